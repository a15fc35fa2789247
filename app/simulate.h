/* One headless simulation job, shared by `moreau run` (one job, summary printed) and
 * `moreau batch` (many jobs on worker threads, summaries gathered).
 *
 * mr_sim_execute applies the options to a fresh mr_data (keyframe, --init, --seed, dt,
 * solver...), opens the recordings, steps, and closes the recordings however the run ends.
 * It prints nothing: errors come back in err, one line "FILE:LINE: what is wrong" or
 * "FILE: what is wrong". That keeps it safe to call from several threads at once (each
 * with its own mr_data; the model is shared read-only). */
#ifndef MR_APP_SIMULATE_H
#define MR_APP_SIMULATE_H

#include <signal.h>

#include "moreau.h"
#include "options.h"

typedef struct mr_sim_stats {
  long steps_requested;
  long steps; /* completed */
  double time_start, time_end;
  double wall_s;
  double sum_iters, max_iters, sum_contacts, max_residual;
  double energy_start, energy_end;
  int diverged;
  long diverged_step; /* 1-based number of the step that failed */
  double diverged_time;
  int signal;         /* the value of *hooks->stop that ended the run, or 0 */
  int record_failed;
  long rows;
  int contacts_failed;
  long contact_rows;
  long steps_dropping;   /* steps that found more contacts than the capacity */
  long contacts_dropped; /* contacts lost over the run */
  long steps_capped;     /* solves that hit the iteration cap */
  long steps_failed;     /* solves that failed */
  long sum_rows;         /* constraint rows over the run */
  mr_metrics metrics_max; /* the largest value of each per-step metric */
} mr_sim_stats;

typedef struct mr_sim_hooks {
  /* After every completed step (progress bars); may be NULL. */
  void (*on_step)(void *user, long steps_done);
  /* Once the initial state is set and before the first step or row (e.g. a custom
   * perturbation); may be NULL. */
  void (*on_start)(void *user, const mr_model *m, mr_data *d);
  /* Warnings worth one line (contact capacity reached...); NULL: dropped. */
  void (*on_warning)(void *user, const char *line);
  /* Checked after every step; nonzero ends the run cleanly and lands in stats->signal. */
  const volatile sig_atomic_t *stop;
  void *user;
} mr_sim_hooks;

/* Runs the job o describes on model m with data d (fresh from mr_data_create(m)). hooks may
 * be NULL. Returns an MR_EXIT_* status (or 128 + signal when stopped); stats is filled in
 * every case it can be (steps done, recordings' rows), and err holds one line whenever the
 * status is not MR_EXIT_OK. */
int mr_sim_execute(const mr_cli_options *o, const mr_model *m, mr_data *d,
                   const mr_sim_hooks *hooks, mr_sim_stats *stats, char *err, int errlen);

/* Name of the solver the run used (the registry's default when none was chosen). */
const char *mr_sim_solver_name(const mr_data *d);

#endif
