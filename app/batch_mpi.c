/* Ranks, dealing and gathering of a distributed batch (batch_mpi.h). Only the calling
 * (main) thread ever calls MPI, hence MPI_THREAD_FUNNELED. */
#include "batch_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MOREAU_HAVE_MPI
#include "mpi_api.h"
#endif

enum { TAG_COUNT = 601, TAG_ROW = 602 };

/* One row on the wire: the job index and its result. */
typedef struct wire_row {
  int job;
  mr_batch_result result;
} wire_row;

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  if (!v || !*v) return fallback;
  char *end;
  long n = strtol(v, &end, 10);
  return *end == 0 && n >= 0 && n < 1000000 ? (int)n : fallback;
}

int mr_batch_mpi_launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

int mr_batch_mpi_env_rank(void) {
  int rank = env_int("OMPI_COMM_WORLD_RANK", -1);
  if (rank < 0) rank = env_int("PMIX_RANK", -1);
  if (rank < 0) rank = env_int("PMI_RANK", 0);
  return rank;
}

int mr_batch_mpi_init(mr_batch_mpi *mp, char *err, int errlen) {
  memset(mp, 0, sizeof *mp);
  mp->size = 1;
  mp->local_size = 1;
  if (!mr_batch_mpi_launched()) return 0;
#if MOREAU_HAVE_MPI
  if (mr_mpi_load(err, errlen)) return -1;
  int provided = 0;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    snprintf(err, (size_t)errlen, "MPI_Init_thread failed");
    return -1;
  }
  mp->active = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &mp->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mp->size);
  mp->local_size = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  if (mp->local_size < 1) mp->local_size = 1;
  return 0;
#else
  snprintf(err, (size_t)errlen, "started by mpirun, but this moreau was built without MPI "
                                "(install OpenMPI and rebuild, or run without mpirun)");
  return -1;
#endif
}

void mr_batch_mpi_finalize(mr_batch_mpi *mp) {
#if MOREAU_HAVE_MPI
  if (mp->active) MPI_Finalize();
#endif
  mp->active = 0;
}

void mr_batch_mpi_broadcast(const mr_batch_mpi *mp, int *values, int n) {
#if MOREAU_HAVE_MPI
  if (mp->active && n > 0) MPI_Bcast(values, n, MPI_INT, 0, MPI_COMM_WORLD);
#else
  (void)mp;
  (void)values;
  (void)n;
#endif
}

int mr_batch_mpi_share(const mr_batch_mpi *mp, const int *pending, int npending, int *mine) {
  int n = 0;
  for (int k = mp->rank; k < npending; k += mp->size) mine[n++] = pending[k];
  return n;
}

#if MOREAU_HAVE_MPI
static void gather_send(const int *mine, int nmine, const mr_batch_result *results) {
  MPI_Send(&nmine, 1, MPI_INT, 0, TAG_COUNT, MPI_COMM_WORLD);
  for (int i = 0; i < nmine; i++) {
    wire_row row;
    memset(&row, 0, sizeof row);
    row.job = mine[i];
    row.result = results[mine[i]];
    MPI_Send(&row, (int)sizeof row, MPI_BYTE, 0, TAG_ROW, MPI_COMM_WORLD);
  }
}

/* Rows naming a job outside the table are dropped rather than trusted. */
static void gather_receive(int from, mr_batch_result *results, int njobs) {
  int count = 0;
  MPI_Recv(&count, 1, MPI_INT, from, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < count; i++) {
    wire_row row;
    MPI_Recv(&row, (int)sizeof row, MPI_BYTE, from, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    row.result.message[sizeof row.result.message - 1] = 0;
    row.result.solver[sizeof row.result.solver - 1] = 0;
    row.result.integrator[sizeof row.result.integrator - 1] = 0;
    if (row.job >= 0 && row.job < njobs) results[row.job] = row.result;
  }
}
#endif

void mr_batch_mpi_gather(const mr_batch_mpi *mp, const int *mine, int nmine, mr_batch_result *results,
                         int njobs) {
#if MOREAU_HAVE_MPI
  if (!mp->active) return;
  if (mp->rank != 0) {
    gather_send(mine, nmine, results);
    return;
  }
  for (int from = 1; from < mp->size; from++) gather_receive(from, results, njobs);
#else
  (void)mp;
  (void)mine;
  (void)nmine;
  (void)results;
  (void)njobs;
#endif
}
