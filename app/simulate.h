/* One headless simulation job, shared by `moreau run` (one job, summary printed) and
 * `moreau batch` (many jobs on worker threads, summaries gathered).
 *
 * mr_sim_execute applies the options to a fresh mr_data (keyframe, --init, --seed, dt,
 * solver...), opens the recordings, steps, and closes the recordings however the run ends.
 * It prints nothing: errors come back in err, one line "FILE:LINE: what is wrong" or
 * "FILE: what is wrong". That keeps it safe to call from several threads at once (each
 * with its own mr_data; the model is shared read-only).
 *
 * The initial state, in order: the keyframe (--keyframe) or qpos0; --init FILE: qpos, qvel,
 * time and (HDF5) ctrl of the recording's last row, so a continued run carries on the clock
 * of the run it continues; --seed N (N != 0): mr_sim_perturb; --ctrl FILE: the schedule's
 * controls at that time (ctrl_schedule.h); then hooks->on_start.
 *
 * Recordings: row 0 is the initial state (zero step statistics), then one row after every
 * K-th step (--record-every K), holding the state, the step's statistics and the controls
 * applied from that row's time on. */
#ifndef MR_APP_SIMULATE_H
#define MR_APP_SIMULATE_H

#include <signal.h>

#include "moreau.h"
#include "options.h"
#include "sensor_summary.h"

typedef struct mr_sim_stats {
  long steps_requested;
  long steps; /* completed */
  double time_start, time_end;
  double wall_s;
  double sum_iters, max_iters, sum_contacts, max_residual; /* max_iters: of any one step */
  double sum_sweeps; /* of sum_iters, the pgs sweeps newton handed parts of steps to */
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
  mr_metrics metrics_max; /* the largest value of each per-step metric (energy: max_energy) */
  double max_energy;      /* the largest step-start energy, the start included */
  int unstable;           /* a blow-up: residual above MR_SIM_UNSTABLE_RESIDUAL, or the
                             energy of a model without actuators grown tenfold */
  long unstable_step;     /* 1-based number of the first step that showed it */
  int ran;                /* 1 once stepping began: the fields above describe a run (0 when
                             the job stopped at its set-up: bad input, a file not created) */
  mr_sensor_summary sensors; /* --summary-sensors: final and largest values */
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

/* A run is unstable (one warning line, exit 1, "unstable": true) once a step's solver
 * residual exceeds this, or once a model without actuators has gained nine times the
 * magnitude of the energy it started with (E - E0 > 9 max(|E0|, its weight times 1 m)):
 * energy the step invented, which a passive model cannot gain from anywhere else. */
#define MR_SIM_UNSTABLE_RESIDUAL 1.0

/* --seed: the reproducible perturbation of an initial state. A splitmix64 stream seeded
 * with seed draws uniform numbers u in [-1, 1) (the top 53 bits of each output, as an exact
 * double); the state gets MR_SIM_SEED_AMPLITUDE * u added to the qpos of every hinge and
 * slide joint (rad or m), in joint order, then to every qvel entry, in order. Ball and free
 * joint positions are left alone (a quaternion or a base pose is no small offset to add);
 * their velocities are perturbed. Integer arithmetic and one exact conversion: the same
 * seed gives bit-identical states on every platform. */
#define MR_SIM_SEED_AMPLITUDE 1e-3
void mr_sim_perturb(const mr_model *m, mr_data *d, long seed);

/* The total mechanical energy of d's state, as every recorded row holds it: brings the
 * kinematics and the mass matrix up to date first (mr_step leaves those of the state it
 * started from). */
double mr_sim_state_energy(const mr_model *m, mr_data *d);

/* Name of the solver the run used (the registry's default when none was chosen). */
const char *mr_sim_solver_name(const mr_data *d);

#endif
