/* libmpi, loaded when a batch finds itself started by mpirun rather than when the process
 * starts (engine/core/lazy_lib.h says why: OpenMPI brings seven libraries, a quarter of
 * the time every moreau command took to start, though only a batch under mpirun calls
 * it). batch_mpi.c includes this header instead of <mpi.h>: it includes <mpi.h> for the
 * types and constants, then turns every function it calls, and the predefined objects
 * behind OpenMPI's MPI_COMM_WORLD, MPI_INT and MPI_BYTE, into entries of one table, which
 * mr_mpi_load fills with dlopen and dlsym. As with h5_api.h, a function called but not
 * listed is an undefined symbol at link time (moreau does not link libmpi). */
#ifndef MR_MPI_API_H
#define MR_MPI_API_H

#include <mpi.h>

#define MR_MPI_FUNCTIONS(X)                                                                    \
  X(MPI_Init_thread) X(MPI_Finalize) X(MPI_Comm_rank) X(MPI_Comm_size) X(MPI_Bcast)          \
  X(MPI_Send) X(MPI_Recv)

/* OpenMPI's handles are the addresses of these objects; MPICH's are integer constants. */
#ifdef OPEN_MPI
#define MR_MPI_GLOBALS(X) X(ompi_mpi_comm_world) X(ompi_mpi_int) X(ompi_mpi_byte)
#else
#define MR_MPI_GLOBALS(X)
#endif

#define MR_MPI_POINTER(name) __typeof__(name) *name;
typedef struct mr_mpi_api {
  MR_MPI_FUNCTIONS(MR_MPI_POINTER)
  MR_MPI_GLOBALS(MR_MPI_POINTER)
} mr_mpi_api;
#undef MR_MPI_POINTER

extern mr_mpi_api mr_mpi;

/* Loads libmpi once per process. 0, or -1 and one line in err. */
int mr_mpi_load(char *err, int errlen);

#ifndef MR_MPI_API_IMPL
#define MPI_Init_thread (mr_mpi.MPI_Init_thread)
#define MPI_Finalize (mr_mpi.MPI_Finalize)
#define MPI_Comm_rank (mr_mpi.MPI_Comm_rank)
#define MPI_Comm_size (mr_mpi.MPI_Comm_size)
#define MPI_Bcast (mr_mpi.MPI_Bcast)
#define MPI_Send (mr_mpi.MPI_Send)
#define MPI_Recv (mr_mpi.MPI_Recv)
#ifdef OPEN_MPI
#define ompi_mpi_comm_world (*mr_mpi.ompi_mpi_comm_world)
#define ompi_mpi_int (*mr_mpi.ompi_mpi_int)
#define ompi_mpi_byte (*mr_mpi.ompi_mpi_byte)
#endif
#endif

#endif
