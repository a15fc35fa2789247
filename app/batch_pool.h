/* The worker threads of a batch: each takes the next job, runs it with mr_sim_execute on
 * its own mr_data, and stores the result; the calling thread shows the progress.
 *
 * Models are shared: one read-only mr_model per distinct model file and load options,
 * loaded lazily by the first worker that needs it (under a lock, since the parsers'
 * libraries are not known to be reentrant) and freed at the end. A model that fails to
 * load turns each of its jobs into an error row carrying the loader's message.
 *
 * A worker holds one mr_data at a time, made fresh for each job and freed after it: nothing
 * of one job (warm starts, settings) can leak into the next, which keeps every job's
 * recording bit-identical to the same job run alone. */
#ifndef MR_BATCH_POOL_H
#define MR_BATCH_POOL_H

#include <signal.h>

#include "batch_jobs.h"
#include "batch_summary.h"

typedef struct mr_batch_pool_config {
  const mr_batch_table *table;
  mr_batch_result *results; /* one per job of the table; the pool fills those it runs */
  const int *todo;          /* the job indices to run, in the order to hand them out */
  int ntodo;
  int threads;
  int quiet;                /* no progress at all */
  const char *tag;          /* prefix of progress lines ("rank 1: "), or "" */
  /* Set asynchronously (signals): no job is handed out after, running jobs stop cleanly. */
  const volatile sig_atomic_t *stop;
  /* Called from the calling thread about once a second while results keep arriving, and
   * never concurrently with a result being stored (e.g. to save a partial summary). */
  void (*checkpoint)(void *user);
  /* Called from the calling thread about ten times a second while jobs run, without the
   * pool's lock held (e.g. to notice a Python KeyboardInterrupt and set *stop); may be NULL. */
  void (*tick)(void *user);
  void *user;
} mr_batch_pool_config;

/* Runs the jobs; returns once every worker has ended (all jobs done, or stopped). Returns
 * -1 if no thread could be started (every job then still is MR_JOB_NOT_RUN). */
int mr_batch_pool_run(const mr_batch_pool_config *c);

/* The number of online cores (at least 1). */
int mr_batch_core_count(void);

#endif
