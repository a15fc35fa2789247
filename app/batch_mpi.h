/* Sharing a batch across MPI ranks (`mpirun -n K moreau batch JOBS --out DIR`).
 *
 * MPI is initialized only when the process was started by a launcher (OMPI_COMM_WORLD_SIZE,
 * PMIX_RANK or PMI_RANK in the environment), so a plain `moreau batch` never touches it.
 * Jobs are dealt statically: the k-th job still to run goes to rank k mod K, and each rank
 * runs its share on its own thread pool. Static dealing needs no messages while jobs run,
 * and keeps which rank ran a job a pure function of the job list. When all ranks are done,
 * each sends rank 0 its results (one message per row, the fixed-size mr_batch_result as
 * bytes: every rank runs the same binary); rank 0 writes the summary and tells every rank
 * the exit status, so mpirun exits with it. Recordings are written by the rank that ran the
 * job, into --out, which must be on a filesystem every rank sees. */
#ifndef MR_BATCH_MPI_H
#define MR_BATCH_MPI_H

#include "batch_summary.h"

typedef struct mr_batch_mpi {
  int active;     /* MPI was initialized (launched by mpirun and built with MPI) */
  int rank, size; /* 0 and 1 when not active */
  int local_size; /* ranks on this machine, to share its cores */
} mr_batch_mpi;

/* 1 if a launcher started this process (whether or not this build has MPI). */
int mr_batch_mpi_launched(void);
/* This process's rank as the launcher's environment says (0 when not launched). */
int mr_batch_mpi_env_rank(void);

/* Initializes MPI when launched. -1 with one line in err when launched by mpirun but the
 * build has no MPI, or MPI fails to start. */
int mr_batch_mpi_init(mr_batch_mpi *mp, char *err, int errlen);
void mr_batch_mpi_finalize(mr_batch_mpi *mp);

/* Rank 0's n ints to every rank (a no-op when not active). */
void mr_batch_mpi_broadcast(const mr_batch_mpi *mp, int *values, int n);

/* This rank's share of the pending jobs: pending[k] for k = rank, rank + size, ... */
int mr_batch_mpi_share(const mr_batch_mpi *mp, const int *pending, int npending, int *mine);

/* Sends this rank's results (jobs mine[0..nmine)) to rank 0, which stores them in results.
 * A no-op when not active. */
void mr_batch_mpi_gather(const mr_batch_mpi *mp, const int *mine, int nmine, mr_batch_result *results,
                         int njobs);

#endif
