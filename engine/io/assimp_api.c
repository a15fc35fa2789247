/* libassimp loaded on first use (assimp_api.h). */
#define MR_ASSIMP_API_IMPL
#include "assimp_api.h"

#include "engine/core/lazy_lib.h"

#ifndef MOREAU_ASSIMP_SONAME
#error "MOREAU_ASSIMP_SONAME: the build defines it (CMakeLists.txt)"
#endif

mr_assimp_api mr_assimp;

#define MR_ASSIMP_SYMBOL(name) {#name, &mr_assimp.name, 0},
static const mr_lazy_symbol mr_assimp_symbols[] = {MR_ASSIMP_FUNCTIONS(MR_ASSIMP_SYMBOL)};
#undef MR_ASSIMP_SYMBOL

/* MOREAU_ASSIMP_LIBRARY names another build of the same release (or, in a test, a file
 * that is none, for the failure path). */
static mr_lazy_lib mr_assimp_lib =
    MR_LAZY_LIB(MOREAU_ASSIMP_SONAME, "MOREAU_ASSIMP_LIBRARY", mr_assimp_symbols, NULL,
                MR_LAZY_LOCAL);

int mr_assimp_load(const char *path, char *err, int errlen) {
  return mr_lazy_lib_load(&mr_assimp_lib, path, "read mesh files", err, errlen);
}
