/* The compiled-mesh cache (mesh_cache.h): keys, the entry format, atomic writes.
 *
 * Entry: a header of 8 uint64 (magic, version, key hash 0 and 1, flags, nvert, nface,
 * nhullvert... see entry_header) and 3 doubles of scale, then pos[3], quat[4], volume,
 * inertia[3], the vertices (doubles), normals (floats), faces (int32), hull vertices and hull
 * faces, then a 64-bit checksum of everything before it. Native byte order: a cache folder
 * belongs to one machine. */
#include "mesh_cache.h"

#include "engine/core/file_read.h"
#include "engine/io/mesh_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MR_MESH_CACHE_MAGIC 0x4853454d55455230ull /* "0REUMESH" */
#define MR_MESH_CACHE_MAX_COUNT (1 << 26)          /* vertices or faces of one mesh */

/* ------------------------------------------------------------------ hashing */

/* Two 64-bit lanes over 8-byte words, each a multiply-xorshift chain with its own seed and
 * multiplier: not cryptographic, but a collision between two real mesh files of equal size
 * is beyond reach, and it hashes a gigabyte a second. */
typedef struct mr_hasher {
  uint64_t a, b, n;
} mr_hasher;

static void hasher_word(mr_hasher *h, uint64_t w) {
  h->a = (h->a ^ w) * 0x9E3779B97F4A7C15ull;
  h->a ^= h->a >> 29;
  h->b = (h->b ^ (w + 0x632BE59BD9B4E019ull)) * 0xBF58476D1CE4E5B9ull;
  h->b ^= h->b >> 31;
}

static void hasher_bytes(mr_hasher *h, const unsigned char *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    hasher_word(h, w);
  }
  uint64_t tail = 0;
  for (size_t k = 0; i + k < n; k++) tail |= (uint64_t)p[i + k] << (8 * k);
  if (i < n) hasher_word(h, tail);
  h->n += n;
}

static uint64_t checksum(const unsigned char *p, size_t n) {
  mr_hasher h = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0};
  hasher_bytes(&h, p, n);
  return h.a ^ (h.b * 31) ^ n;
}

int mr_mesh_key_make(const char *path, const double scale[3], mr_mesh_key *key) {
  /* a regular file, read no further than a mesh may be long: a FIFO or /dev/zero gets no
   * key, and the loader then refuses it with its own message */
  char why[200];
  FILE *f = mr_file_open_regular(path, why, (int)sizeof why);
  if (!f) return -1;
  mr_hasher h = {0x6A09E667F3BCC908ull, 0xBB67AE8584CAA73Bull, 0};
  unsigned char buf[1 << 16];
  size_t n, total = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0 && total <= (size_t)MR_MESH_MAX_BYTES) {
    /* chunks are multiples of 8 except the last, so words line up as in one pass */
    hasher_bytes(&h, buf, n);
    total += n;
  }
  int bad = ferror(f) || total > (size_t)MR_MESH_MAX_BYTES;
  fclose(f);
  if (bad) return -1;
  hasher_word(&h, h.n);
  key->hash[0] = h.a;
  key->hash[1] = h.b;
  memcpy(key->scale, scale, 3 * sizeof(double));
  return 0;
}

/* ------------------------------------------------------------------ the folder */

static int mkdir_p(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    int rc = mkdir(path, 0755);
    *p = '/';
    if (rc != 0 && errno != EEXIST) return -1;
  }
  return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int mr_mesh_cache_dir(char *dir, int len) {
  const char *env = getenv("MOREAU_CACHE_DIR");
  int n;
  if (env) {
    if (!*env || strcmp(env, "off") == 0) return 0;
    n = snprintf(dir, (size_t)len, "%s", env);
  } else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME") == '/') {
    n = snprintf(dir, (size_t)len, "%s/moreau", getenv("XDG_CACHE_HOME"));
  } else if (getenv("HOME") && *getenv("HOME")) {
    n = snprintf(dir, (size_t)len, "%s/.cache/moreau", getenv("HOME"));
  } else {
    return 0;
  }
  if (n <= 0 || n >= len) return 0;
  while (n > 1 && dir[n - 1] == '/') dir[--n] = 0;
  return mkdir_p(dir) == 0;
}

static int entry_path(const char *dir, const mr_mesh_key *key, char *path, size_t len) {
  mr_hasher h = {key->hash[0], key->hash[1], 0};
  hasher_bytes(&h, (const unsigned char *)key->scale, sizeof key->scale);
  int n = snprintf(path, len, "%s/%016llx%016llx.mesh", dir, (unsigned long long)h.a,
                   (unsigned long long)h.b);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/* ------------------------------------------------------------------ layout */

enum { H_MAGIC, H_VERSION, H_KEY0, H_KEY1, H_FLAGS, H_NVERT, H_NFACE, H_NHULLVERT, H_NHULLFACE, H_COUNT };

static size_t entry_size(const uint64_t *h) {
  return sizeof(uint64_t) * H_COUNT + sizeof(double) * (3 + 3 + 4 + 1 + 3) +
         (sizeof(double) * 3 + sizeof(float) * 3) * h[H_NVERT] + sizeof(int32_t) * 3 * h[H_NFACE] +
         sizeof(double) * 3 * h[H_NHULLVERT] + sizeof(int32_t) * 3 * h[H_NHULLFACE] +
         sizeof(uint64_t);
}

static void put(unsigned char **p, const void *src, size_t n) {
  if (n) memcpy(*p, src, n);
  *p += n;
}

static void get(const unsigned char **p, void *dst, size_t n) {
  if (n) memcpy(dst, *p, n);
  *p += n;
}

int mr_mesh_cache_store(const char *dir, const mr_mesh_key *key, const mr_compiled_mesh *cm,
                        int flags) {
  int has_hull = (flags & MR_MESH_HAS_HULL) != 0;
  uint64_t h[H_COUNT] = {MR_MESH_CACHE_MAGIC, MR_MESH_CACHE_VERSION, key->hash[0], key->hash[1],
                         (uint64_t)flags, (uint64_t)cm->data.nvert, (uint64_t)cm->data.nface,
                         has_hull ? (uint64_t)cm->hull.nvert : 0, has_hull ? (uint64_t)cm->hull.nface : 0};
  size_t size = entry_size(h);
  unsigned char *buf = malloc(size), *p = buf;
  if (!buf) return -1;
  put(&p, h, sizeof h);
  put(&p, key->scale, 3 * sizeof(double));
  put(&p, cm->pos, 3 * sizeof(double));
  put(&p, cm->quat, 4 * sizeof(double));
  put(&p, &cm->volume, sizeof(double));
  put(&p, cm->inertia, 3 * sizeof(double));
  put(&p, cm->data.vert, sizeof(double) * 3 * h[H_NVERT]);
  put(&p, cm->data.normal, sizeof(float) * 3 * h[H_NVERT]);
  put(&p, cm->data.face, sizeof(int32_t) * 3 * h[H_NFACE]);
  if (has_hull) {
    put(&p, cm->hull.vert, sizeof(double) * 3 * h[H_NHULLVERT]);
    put(&p, cm->hull.face, sizeof(int32_t) * 3 * h[H_NHULLFACE]);
  }
  uint64_t sum = checksum(buf, (size_t)(p - buf));
  put(&p, &sum, sizeof sum);

  char final[4200], tmp[4200];
  int rc = -1;
  if (entry_path(dir, key, final, sizeof final) == 0 &&
      snprintf(tmp, sizeof tmp, "%s/.entry-XXXXXX", dir) < (int)sizeof tmp) {
    int fd = mkstemp(tmp);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "wb");
      int ok = f && fwrite(buf, 1, size, f) == size;
      if (f) ok = fclose(f) == 0 && ok;
      else close(fd);
      if (ok && rename(tmp, final) == 0) rc = 0;
      else unlink(tmp);
    }
  }
  free(buf);
  return rc;
}

/* ------------------------------------------------------------------ reading */

/* An entry file, regular and bounded like every file read (file_read.h). */
static unsigned char *read_all(const char *path, size_t *size) {
  char *data = NULL, why[200];
  if (mr_file_read_all(path, 1L << 30, &data, size, why, (int)sizeof why)) return NULL;
  return (unsigned char *)data;
}

static int indices_valid(const int32_t *idx, uint64_t n, uint64_t bound) {
  for (uint64_t i = 0; i < n; i++)
    if (idx[i] < 0 || (uint64_t)idx[i] >= bound) return 0;
  return 1;
}

static int all_finite(const double *v, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Allocates and fills cm from a checked entry. 0, or -1 (out of memory or bad numbers). */
static int entry_unpack(const unsigned char *p, const uint64_t *h, mr_compiled_mesh *cm) {
  memset(cm, 0, sizeof *cm);
  size_t nv = h[H_NVERT], nf = h[H_NFACE], nhv = h[H_NHULLVERT], nhf = h[H_NHULLFACE];
  cm->data.vert = malloc(sizeof(double) * 3 * (nv ? nv : 1));
  cm->data.normal = malloc(sizeof(float) * 3 * (nv ? nv : 1));
  cm->data.face = malloc(sizeof(int) * 3 * (nf ? nf : 1));
  cm->hull.vert = malloc(sizeof(double) * 3 * (nhv ? nhv : 1));
  cm->hull.face = malloc(sizeof(int) * 3 * (nhf ? nhf : 1));
  if (!cm->data.vert || !cm->data.normal || !cm->data.face || !cm->hull.vert || !cm->hull.face)
    return -1;
  get(&p, cm->pos, 3 * sizeof(double));
  get(&p, cm->quat, 4 * sizeof(double));
  get(&p, &cm->volume, sizeof(double));
  get(&p, cm->inertia, 3 * sizeof(double));
  get(&p, cm->data.vert, sizeof(double) * 3 * nv);
  get(&p, cm->data.normal, sizeof(float) * 3 * nv);
  get(&p, cm->data.face, sizeof(int32_t) * 3 * nf);
  get(&p, cm->hull.vert, sizeof(double) * 3 * nhv);
  get(&p, cm->hull.face, sizeof(int32_t) * 3 * nhf);
  cm->data.nvert = (int)nv, cm->data.nface = (int)nf;
  cm->hull.nvert = (int)nhv, cm->hull.nface = (int)nhf;
  double frame[11];
  memcpy(frame, cm->pos, 3 * sizeof(double));
  memcpy(frame + 3, cm->quat, 4 * sizeof(double));
  frame[7] = cm->volume;
  memcpy(frame + 8, cm->inertia, 3 * sizeof(double));
  if (!all_finite(frame, 11) || !all_finite(cm->data.vert, 3 * nv) ||
      !all_finite(cm->hull.vert, 3 * nhv) || !indices_valid(cm->data.face, 3 * nf, nv) ||
      !indices_valid(cm->hull.face, 3 * nhf, nhv))
    return -1;
  return 0;
}

int mr_mesh_cache_load(const char *dir, const mr_mesh_key *key, mr_compiled_mesh *cm, int *flags) {
  memset(cm, 0, sizeof *cm);
  char path[4200];
  size_t size = 0;
  if (entry_path(dir, key, path, sizeof path)) return 0;
  unsigned char *buf = read_all(path, &size);
  if (!buf) return 0;
  uint64_t h[H_COUNT];
  double scale[3];
  int hit = 0;
  if (size >= sizeof h + sizeof scale + sizeof(uint64_t)) {
    memcpy(h, buf, sizeof h);
    memcpy(scale, buf + sizeof h, sizeof scale);
    int counts_ok = h[H_NVERT] < MR_MESH_CACHE_MAX_COUNT && h[H_NFACE] < MR_MESH_CACHE_MAX_COUNT &&
                    h[H_NHULLVERT] < MR_MESH_CACHE_MAX_COUNT && h[H_NHULLFACE] < MR_MESH_CACHE_MAX_COUNT;
    uint64_t sum;
    if (h[H_MAGIC] == MR_MESH_CACHE_MAGIC && h[H_VERSION] == MR_MESH_CACHE_VERSION &&
        h[H_KEY0] == key->hash[0] && h[H_KEY1] == key->hash[1] &&
        memcmp(scale, key->scale, sizeof scale) == 0 && counts_ok && entry_size(h) == size) {
      memcpy(&sum, buf + size - sizeof sum, sizeof sum);
      hit = sum == checksum(buf, size - sizeof sum);
    }
  }
  if (hit && entry_unpack(buf + sizeof h + sizeof scale, h, cm) == 0) {
    *flags = (int)h[H_FLAGS];
  } else {
    mr_mesh_data_free(&cm->data);
    mr_hull_free(&cm->hull);
    memset(cm, 0, sizeof *cm);
    hit = 0;
  }
  free(buf);
  return hit;
}
