/* libglfw loaded on first use (glfw_api.h). */
#define MR_GLFW_API_IMPL
#define GLFW_INCLUDE_NONE /* no OpenGL header here: the viewer has glad's */
#include "glfw_api.h"

#include "engine/core/lazy_lib.h"

#ifndef MOREAU_GLFW_SONAME
#error "MOREAU_GLFW_SONAME: the build defines it (CMakeLists.txt)"
#endif

mr_glfw_api mr_glfw;

#define MR_GLFW_FUNCTION(name) {#name, &mr_glfw.name, 0},
static const mr_lazy_symbol mr_glfw_symbols[] = {MR_GLFW_FUNCTIONS(MR_GLFW_FUNCTION)};
#undef MR_GLFW_FUNCTION

/* MOREAU_GLFW_LIBRARY names another build of the same major version (or, in a test, a file
 * that is none, for the failure path). */
static mr_lazy_lib mr_glfw_lib =
    MR_LAZY_LIB(MOREAU_GLFW_SONAME, "MOREAU_GLFW_LIBRARY", mr_glfw_symbols, NULL,
                MR_LAZY_LOCAL);

int mr_glfw_load(char *err, int errlen) {
  return mr_lazy_lib_load(&mr_glfw_lib, "GLFW", "be loaded", err, errlen);
}
