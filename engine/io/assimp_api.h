/* libassimp, loaded when a model first needs a mesh file read (engine/core/lazy_lib.h says
 * why). mesh_io.c includes this header after assimp's own: the assimp calls it makes then
 * name the entries of one table, filled by mr_assimp_load, and still read as assimp calls.
 * The list and the macros name the same functions (engine/record/h5_api.h: the build
 * checks it). */
#ifndef MR_ASSIMP_API_H
#define MR_ASSIMP_API_H

#include <assimp/cimport.h>

#define MR_ASSIMP_FUNCTIONS(X)                                                                 \
  X(aiCreatePropertyStore) X(aiSetImportPropertyInteger) X(aiImportFileExWithProperties)      \
  X(aiReleasePropertyStore) X(aiReleaseImport) X(aiGetErrorString)

#define MR_ASSIMP_POINTER(name) __typeof__(name) *name;
typedef struct mr_assimp_api {
  MR_ASSIMP_FUNCTIONS(MR_ASSIMP_POINTER)
} mr_assimp_api;
#undef MR_ASSIMP_POINTER

extern mr_assimp_api mr_assimp;

/* Loads libassimp once per process (thread-safe). 0, or -1 and "PATH: cannot read mesh
 * files: REASON" in err, PATH the mesh file the caller was about to read. */
int mr_assimp_load(const char *path, char *err, int errlen);

#ifndef MR_ASSIMP_API_IMPL
#define aiCreatePropertyStore (mr_assimp.aiCreatePropertyStore)
#define aiSetImportPropertyInteger (mr_assimp.aiSetImportPropertyInteger)
#define aiImportFileExWithProperties (mr_assimp.aiImportFileExWithProperties)
#define aiReleasePropertyStore (mr_assimp.aiReleasePropertyStore)
#define aiReleaseImport (mr_assimp.aiReleaseImport)
#define aiGetErrorString (mr_assimp.aiGetErrorString)
#endif

#endif
