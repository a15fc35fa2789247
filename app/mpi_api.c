/* libmpi loaded on first use (mpi_api.h); nothing in a build without MPI. */
#if MOREAU_HAVE_MPI
#define MR_MPI_API_IMPL
#include "mpi_api.h"

#include "engine/core/lazy_lib.h"

#ifndef MOREAU_MPI_SONAME
#error "MOREAU_MPI_SONAME: the build defines it (CMakeLists.txt)"
#endif

mr_mpi_api mr_mpi;

#define MR_MPI_FUNCTION(name) {#name, &mr_mpi.name, 0},
#define MR_MPI_VARIABLE(name) {#name, &mr_mpi.name, 1},
static const mr_lazy_symbol mr_mpi_symbols[] = {MR_MPI_FUNCTIONS(MR_MPI_FUNCTION)
                                                    MR_MPI_GLOBALS(MR_MPI_VARIABLE)};
#undef MR_MPI_FUNCTION
#undef MR_MPI_VARIABLE

/* MOREAU_MPI_LIBRARY names another build of the same MPI (or, in a test, a file that is
 * none, for the failure path). Global: OpenMPI opens its components itself, and they
 * resolve libmpi's symbols in the global scope. */
static mr_lazy_lib mr_mpi_lib =
    MR_LAZY_LIB(MOREAU_MPI_SONAME, "MOREAU_MPI_LIBRARY", mr_mpi_symbols, NULL, MR_LAZY_GLOBAL);

int mr_mpi_load(char *err, int errlen) {
  return mr_lazy_lib_load(&mr_mpi_lib, "mpirun", "start MPI", err, errlen);
}
#endif
