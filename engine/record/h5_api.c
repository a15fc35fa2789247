/* libhdf5 loaded on first use (h5_api.h). */
#define MR_H5_API_IMPL
#include "h5_api.h"

#include <stdio.h>

#include "engine/core/lazy_lib.h"

#ifndef MOREAU_HDF5_SONAME
#error "MOREAU_HDF5_SONAME: the build defines it (CMakeLists.txt)"
#endif

mr_h5_api mr_h5;

#define MR_H5_FUNCTION(name) {#name, &mr_h5.name, 0},
#define MR_H5_VARIABLE(name) {#name, &mr_h5.name, 1},
static const mr_lazy_symbol mr_h5_symbols[] = {MR_H5_FUNCTIONS(MR_H5_FUNCTION)
                                                   MR_H5_GLOBALS(MR_H5_VARIABLE)};
#undef MR_H5_FUNCTION
#undef MR_H5_VARIABLE

static int mr_h5_start(const char *file, char *why, int whylen) {
  /* the file format and the API are those of the headers' minor release: another one is
   * refused with a line, where H5check_version would abort the process */
  unsigned major = 0, minor = 0, release = 0;
  if (mr_h5.H5get_libversion(&major, &minor, &release) < 0 || major != H5_VERS_MAJOR ||
      minor != H5_VERS_MINOR) {
    snprintf(why, (size_t)whylen, "%s is HDF5 %u.%u.%u, this build needs %d.%d", file, major, minor,
             release, H5_VERS_MAJOR, H5_VERS_MINOR);
    return -1;
  }
  /* before the library starts (record_h5.c's header says why); harmless if another part
   * of the process started it already */
  mr_h5.H5dont_atexit();
  return mr_h5.H5open() < 0 ? -1 : 0;
}

/* MOREAU_HDF5_LIBRARY names another build of the same release (or, in a test, a file that
 * is none, for the failure path). */
static mr_lazy_lib mr_h5_lib =
    MR_LAZY_LIB(MOREAU_HDF5_SONAME, "MOREAU_HDF5_LIBRARY", mr_h5_symbols, mr_h5_start,
                MR_LAZY_LOCAL);

int mr_h5_load(const char *path, char *err, int errlen) {
  return mr_lazy_lib_load(&mr_h5_lib, path, "record or read HDF5", err, errlen);
}
