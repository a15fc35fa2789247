/* A disk cache of compiled meshes (vertices in the mesh's principal frame, mass properties,
 * convex hull), so that a robot with dozens of meshes loads in a blink the second time.
 *
 * Key: a 128-bit hash of the mesh file's bytes (the path and time stamps do not matter: a
 * copy of the file hits, an edited file misses), its scale, and MR_MESH_CACHE_VERSION. One
 * file per key, MOREAU_CACHE_DIR/<key>.mesh, where MOREAU_CACHE_DIR defaults to
 * $XDG_CACHE_HOME/moreau, else $HOME/.cache/moreau; MOREAU_CACHE_DIR=off (or empty)
 * disables the cache.
 *
 * Safe under concurrent writers (batch workers, MPI ranks, several commands at once): an
 * entry is written to a temporary file in the same folder and renamed over the final name,
 * which is atomic, so a reader sees a whole entry or none. A reader trusts nothing: a wrong
 * magic, version, key, size or checksum, or an index out of range, is a miss (the mesh is
 * read from its file again and the entry rewritten). Failing to create the folder or write
 * an entry costs the next load its speed, never the load itself. */
#ifndef MR_MESH_CACHE_H
#define MR_MESH_CACHE_H

#include <stdint.h>

#include "compile.h"

#define MR_MESH_CACHE_VERSION 1

typedef struct mr_mesh_key {
  uint64_t hash[2];
  double scale[3];
} mr_mesh_key;

/* The key of a mesh file and scale: 0, or -1 if the file cannot be read. */
int mr_mesh_key_make(const char *path, const double scale[3], mr_mesh_key *key);

/* The cache folder (no trailing slash) into dir, or 0 when the cache is off. */
int mr_mesh_cache_dir(char *dir, int len);

/* Fills cm (data, hull when the entry has one, frame, volume, inertia) and *flags from the
 * entry for key. Returns 1 on a hit, 0 on a miss (cm left empty). */
int mr_mesh_cache_load(const char *dir, const mr_mesh_key *key, mr_compiled_mesh *cm, int *flags);

/* Writes the entry for key (atomically). flags: MR_MESH_* below. 0, or -1 if it could not. */
int mr_mesh_cache_store(const char *dir, const mr_mesh_key *key, const mr_compiled_mesh *cm,
                        int flags);

enum {
  MR_MESH_HAS_HULL = 1, /* the entry holds the convex hull */
  MR_MESH_FLAT = 2,     /* qhull found the points flat: the hull is the vertex set */
  MR_MESH_NO_VOLUME = 4 /* the mesh encloses no volume: no mass */
};

#endif
