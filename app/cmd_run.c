/* moreau run MODEL: a headless simulation with a summary and an optional recording.
 *
 * The run owns three things that must end cleanly whatever happens: the recording (renamed
 * to its final name only once complete, rows up to a divergence kept), the progress bar
 * (erased), and SIGINT/SIGTERM (the current step finishes, the file is closed and the
 * summary printed before exiting with 128 + signal). */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "options.h"
#include "progress.h"
#include "record.h"
#include "record_contacts.h"

typedef struct run_stats {
  long steps_requested;
  long steps; /* completed */
  double time_start, time_end;
  double wall_s;
  double sum_iters, sum_contacts, max_residual;
  double energy_start, energy_end;
  int diverged;
  long diverged_step; /* 1-based number of the step that failed */
  double diverged_time;
  int signal;         /* the signal that stopped the run, or 0 */
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
} run_stats;

typedef struct run_context {
  const mr_cli_options *o;
  const mr_model *m;
  mr_data *d;
  mr_recorder *rec;
  mr_contact_recorder *contacts;
  run_stats s;
} run_context;

static volatile sig_atomic_t run_stop_signal = 0;

static void run_on_signal(int sig) { run_stop_signal = sig; }

/* SA_RESETHAND: a second Ctrl-C kills at once, should a step ever take too long. */
static void run_signals_install(struct sigaction old[2]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = run_on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  run_stop_signal = 0;
  sigaction(SIGINT, &sa, &old[0]);
  sigaction(SIGTERM, &sa, &old[1]);
}

static void run_signals_restore(const struct sigaction old[2]) {
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
}

/* Total mechanical energy of the current state. mr_step leaves the kinematics of the state
 * it started from, so they are brought up to date first. */
static double run_energy(const mr_model *m, mr_data *d) {
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_energy(m, d);
  return d->energy[0] + d->energy[1];
}

static int state_finite(const mr_model *m, const mr_data *d) {
  for (int i = 0; i < m->nq; i++)
    if (!isfinite(d->qpos[i])) return 0;
  for (int i = 0; i < m->nv; i++)
    if (!isfinite(d->qvel[i])) return 0;
  return isfinite(d->time);
}

static int run_record_row(run_context *c, double energy) {
  char err[1024];
  if (mr_recorder_write(c->rec, c->d, energy, err, (int)sizeof err) == 0) return 0;
  mr_cli_error("%s", err);
  c->s.record_failed = 1;
  return -1;
}

static int run_record_contacts(run_context *c, long step, double time) {
  char err[1024];
  if (mr_contact_recorder_write(c->contacts, step, time, c->d, err, (int)sizeof err) == 0) return 0;
  mr_cli_error("%s", err);
  c->s.contacts_failed = 1;
  return -1;
}

/* The first step that loses contacts for lack of capacity says so, once; the summary has
 * the totals. */
static void run_count_dropped(run_context *c, long step) {
  const mr_data *d = c->d;
  if (d->ncon_dropped <= 0) return;
  if (c->s.steps_dropping == 0 && !c->o->quiet)
    mr_cli_error("warning: step %ld found more contacts than the capacity of %d; the %d "
                 "shallowest were dropped (further drops are counted in the summary)",
                 step, d->maxcon, d->ncon_dropped);
  c->s.steps_dropping++;
  c->s.contacts_dropped += d->ncon_dropped;
}

/* Solver status counts and the running maximum of every per-step metric. */
static void run_metrics_max(run_stats *s, const mr_data *d) {
  const mr_metrics *x = &d->metrics;
  mr_metrics *mx = &s->metrics_max;
  s->steps_capped += d->solver_status == 1;
  s->steps_failed += d->solver_status == 2;
  s->sum_rows += d->nefc;
  mx->primal = fmax(mx->primal, x->primal);
  mx->dual = fmax(mx->dual, x->dual);
  mx->complementarity = fmax(mx->complementarity, x->complementarity);
  mx->natural_map = fmax(mx->natural_map, x->natural_map);
  mx->signorini = fmax(mx->signorini, x->signorini);
  mx->dissipation = fmax(mx->dissipation, x->dissipation);
  mx->penetration = fmax(mx->penetration, x->penetration);
  mx->loop_closure = fmax(mx->loop_closure, x->loop_closure);
  mx->energy = fmax(mx->energy, x->energy);
  mx->solver_time = fmax(mx->solver_time, x->solver_time);
}

/* One step with its bookkeeping; -1 ends the run (divergence or a failed write). */
static int run_one_step(run_context *c, long i) {
  const mr_model *m = c->m;
  mr_data *d = c->d;
  double t = d->time;
  if (mr_step(m, d) != 0 || !state_finite(m, d)) {
    c->s.diverged = 1;
    c->s.diverged_step = i + 1;
    c->s.diverged_time = t;
    return -1;
  }
  c->s.steps++;
  c->s.sum_iters += d->solver_iters;
  c->s.sum_contacts += d->ncon;
  run_count_dropped(c, i + 1);
  if (d->solver_residual > c->s.max_residual) c->s.max_residual = d->solver_residual;
  run_metrics_max(&c->s, d);
  if ((i + 1) % c->o->record_every != 0) return 0;
  if (c->contacts && run_record_contacts(c, i + 1, t)) return -1;
  if (c->rec) return run_record_row(c, run_energy(m, d));
  return 0;
}

static void run_loop(run_context *c) {
  mr_progress bar;
  struct sigaction old[2];
  run_signals_install(old);
  mr_progress_begin(&bar, c->s.steps_requested, c->o->quiet);
  double start = mr_wall_seconds();
  for (long i = 0; i < c->s.steps_requested; i++) {
    if (run_one_step(c, i)) break;
    mr_progress_update(&bar, i + 1);
    if (run_stop_signal) break;
  }
  c->s.wall_s = mr_wall_seconds() - start;
  mr_progress_end(&bar);
  c->s.signal = run_stop_signal;
  run_signals_restore(old);
}

/* The solver the steps actually used: d->opt.solver, or the registry's default. */
static const char *run_solver_name(const mr_data *d) {
  const char *name = mr_solver_name(d->opt.solver);
  return name ? name : mr_solver_name(mr_solver_default());
}

/* The largest value of each per-step metric, as flat max_* keys (the summary is one flat
 * object). */
static void run_json_metrics(mr_json *j, const run_stats *s) {
  const mr_metrics *mx = &s->metrics_max;
  mr_json_double(j, "max_primal", mx->primal);
  mr_json_double(j, "max_dual", mx->dual);
  mr_json_double(j, "max_complementarity", mx->complementarity);
  mr_json_double(j, "max_natural_map", mx->natural_map);
  mr_json_double(j, "max_signorini", mx->signorini);
  mr_json_double(j, "max_dissipation", mx->dissipation);
  mr_json_double(j, "max_penetration", mx->penetration);
  mr_json_double(j, "max_loop_closure", mx->loop_closure);
  mr_json_double(j, "max_energy", mx->energy);
  mr_json_double(j, "max_solver_time", mx->solver_time);
}

static double run_mean(double sum, long n) { return n > 0 ? sum / (double)n : 0; }

static void run_print_json(const run_context *c) {
  const run_stats *s = &c->s;
  mr_json j;
  mr_json_init(&j, stdout);
  mr_json_object_begin(&j, NULL);
  mr_json_string(&j, "model", c->m->model_name ? c->m->model_name : "");
  mr_json_string(&j, "file", c->o->model_path);
  mr_json_int(&j, "nq", c->m->nq);
  mr_json_int(&j, "nv", c->m->nv);
  mr_json_int(&j, "steps", s->steps);
  mr_json_int(&j, "steps_requested", s->steps_requested);
  mr_json_double(&j, "dt", c->d->opt.timestep);
  mr_json_double(&j, "sim_time", s->time_end - s->time_start);
  mr_json_double(&j, "final_time", s->time_end);
  mr_json_double(&j, "wall_s", s->wall_s);
  mr_json_double(&j, "steps_per_s", s->wall_s > 0 ? (double)s->steps / s->wall_s : 0);
  mr_json_string(&j, "solver", run_solver_name(c->d));
  mr_json_string(&j, "integrator", mr_cli_integrator_name(c->d->opt.integrator));
  mr_json_double(&j, "mean_iters", run_mean(s->sum_iters, s->steps));
  mr_json_double(&j, "max_residual", s->max_residual);
  mr_json_int(&j, "steps_not_converged", s->steps_capped);
  mr_json_int(&j, "steps_solver_failed", s->steps_failed);
  mr_json_double(&j, "mean_rows", run_mean((double)s->sum_rows, s->steps));
  run_json_metrics(&j, s);
  mr_json_double(&j, "mean_contacts", run_mean(s->sum_contacts, s->steps));
  mr_json_double(&j, "energy_start", s->energy_start);
  mr_json_double(&j, "energy_end", s->energy_end);
  mr_json_bool(&j, "diverged", s->diverged);
  if (s->diverged) mr_json_int(&j, "diverged_step", s->diverged_step);
  mr_json_bool(&j, "interrupted", s->signal != 0);
  mr_json_string(&j, "record", c->o->record && !s->record_failed ? c->o->record : NULL);
  mr_json_int(&j, "rows", s->rows);
  if (c->o->contacts) {
    mr_json_string(&j, "contacts", s->contacts_failed ? NULL : c->o->contacts);
    mr_json_int(&j, "contact_rows", s->contact_rows);
  }
  mr_json_int(&j, "max_contacts", c->d->maxcon);
  mr_json_int(&j, "contacts_dropped", s->contacts_dropped);
  mr_json_object_end(&j);
}

static void run_print_text(const run_context *c) {
  const run_stats *s = &c->s;
  double rate = s->wall_s > 0 ? (double)s->steps / s->wall_s : 0;
  double sim = s->time_end - s->time_start;
  printf("model        %s (%s)\n", c->m->model_name ? c->m->model_name : "", c->o->model_path);
  printf("steps        %ld of %ld, %g s simulated (dt %g s, %s)\n", s->steps, s->steps_requested,
         sim, c->d->opt.timestep, mr_cli_integrator_name(c->d->opt.integrator));
  printf("wall time    %.4g s, %.4g steps/s, %.3gx real time\n", s->wall_s, rate,
         s->wall_s > 0 ? sim / s->wall_s : 0);
  printf("solver       %s: mean %.3g iterations, max residual %.3g, %ld steps at the cap, %ld "
         "failed\n", run_solver_name(c->d), run_mean(s->sum_iters, s->steps), s->max_residual,
         s->steps_capped, s->steps_failed);
  printf("errors       max penetration %.3g m, loop closure %.3g, complementarity %.3g\n",
         s->metrics_max.penetration, s->metrics_max.loop_closure, s->metrics_max.complementarity);
  printf("contacts     %.3g per step on average (capacity %d)\n",
         run_mean(s->sum_contacts, s->steps), c->d->maxcon);
  if (s->contacts_dropped)
    printf("dropped      %ld contacts over %ld steps (capacity reached)\n", s->contacts_dropped,
           s->steps_dropping);
  if (s->diverged) printf("energy       %.9g J at start\n", s->energy_start);
  else printf("energy       %.9g J at start, %.9g J at end\n", s->energy_start, s->energy_end);
  if (s->diverged) printf("diverged     at step %ld\n", s->diverged_step);
  if (s->signal) printf("interrupted  by signal %d\n", s->signal);
  if (c->o->record && !s->record_failed)
    printf("recorded     %ld rows to %s\n", s->rows, c->o->record);
  if (c->o->contacts && !s->contacts_failed)
    printf("contacts to  %s: %ld rows\n", c->o->contacts, s->contact_rows);
}

/* The initial state is row 0; it came from no step, so it carries no step statistics. */
static int run_record_begin(run_context *c) {
  char err[1024];
  c->rec = mr_recorder_open(c->m, c->o->record, err, (int)sizeof err);
  if (!c->rec) {
    mr_cli_error("%s", err);
    return -1;
  }
  c->d->ncon = 0;
  c->d->solver_iters = 0;
  c->d->solver_residual = 0;
  if (run_record_row(c, c->s.energy_start)) {
    mr_recorder_abort(c->rec);
    c->rec = NULL;
    return -1;
  }
  return 0;
}

/* Rows up to a divergence or an interruption are valid and kept; after a write error the
 * file is incomplete and removed. */
static void run_record_end(run_context *c) {
  if (!c->rec) return;
  c->s.rows = mr_recorder_rows(c->rec);
  if (c->s.record_failed) {
    mr_recorder_abort(c->rec);
  } else {
    char err[1024];
    if (mr_recorder_finish(c->rec, err, (int)sizeof err)) {
      mr_cli_error("%s", err);
      c->s.record_failed = 1;
    }
  }
  c->rec = NULL;
}

static int run_contacts_begin(run_context *c) {
  char err[1024];
  c->contacts = mr_contact_recorder_open(c->o->contacts, err, (int)sizeof err);
  if (c->contacts) return 0;
  mr_cli_error("%s", err);
  c->s.contacts_failed = 1;
  return -1;
}

/* As for trajectories: rows up to a divergence or an interruption are kept. */
static void run_contacts_end(run_context *c) {
  if (!c->contacts) return;
  c->s.contact_rows = mr_contact_recorder_rows(c->contacts);
  if (c->s.contacts_failed) {
    mr_contact_recorder_abort(c->contacts);
  } else {
    char err[1024];
    if (mr_contact_recorder_finish(c->contacts, err, (int)sizeof err)) {
      mr_cli_error("%s", err);
      c->s.contacts_failed = 1;
    }
  }
  c->contacts = NULL;
}

static void run_report_stop(const run_context *c) {
  const run_stats *s = &c->s;
  if (s->diverged)
    mr_cli_error("%s: simulation diverged at step %ld (t = %.17g): non-finite state",
                 c->o->model_path, s->diverged_step, s->diverged_time);
  else if (s->signal)
    mr_cli_error("%s: interrupted by %s after %ld steps", c->o->model_path,
                 s->signal == SIGINT ? "SIGINT" : "SIGTERM", s->steps);
}

static int run_exit_status(const run_stats *s) {
  if (s->diverged || s->record_failed || s->contacts_failed) return MR_EXIT_FAILURE;
  if (s->signal) return 128 + s->signal;
  return MR_EXIT_OK;
}

/* Everything after the model is loaded and the data made. */
static int run_simulate(run_context *c) {
  char err[1024];
  long steps = mr_cli_apply(c->o, c->m, c->d, err, (int)sizeof err);
  if (steps < 0) {
    mr_cli_error("%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  c->s.steps_requested = steps;
  c->s.time_start = c->d->time;
  c->s.energy_start = run_energy(c->m, c->d);
  if (c->o->record && run_record_begin(c)) return c->s.record_failed ? MR_EXIT_FAILURE : MR_EXIT_BAD_INPUT;
  if (c->o->contacts && run_contacts_begin(c)) {
    mr_recorder_abort(c->rec);
    c->rec = NULL;
    return MR_EXIT_FAILURE;
  }
  run_loop(c);
  c->s.time_end = c->d->time;
  c->s.energy_end = c->s.diverged ? NAN : run_energy(c->m, c->d);
  if (c->s.diverged) c->s.time_end = c->s.diverged_time;
  run_record_end(c);
  run_contacts_end(c);
  run_report_stop(c);
  if (c->o->json) run_print_json(c);
  else run_print_text(c);
  fflush(stdout);
  return run_exit_status(&c->s);
}

static int run_parse(int argc, char **argv, mr_cli_options *o) {
  char err[1024];
  if (mr_cli_parse(argc, argv, MR_OPTS_LOAD | MR_OPTS_OUTPUT | MR_OPTS_SIM, o, err,
                   (int)sizeof err)) {
    mr_cli_error("%s", err);
    return -1;
  }
  if (o->help) return 0;
  if (!o->model_path) {
    mr_cli_error("usage: moreau run MODEL [options] (see moreau --help)");
    return -1;
  }
  /* A bad recording name is rejected before what may be a long load. */
  if (o->record && mr_recorder_check_path(o->record, err, (int)sizeof err)) {
    mr_cli_error("%s", err);
    return -1;
  }
  if (o->contacts && mr_contact_recorder_check_path(o->contacts, err, (int)sizeof err)) {
    mr_cli_error("%s", err);
    return -1;
  }
  return 0;
}

int mr_cmd_run(int argc, char **argv) {
  mr_cli_options o;
  if (run_parse(argc, argv, &o)) return MR_EXIT_BAD_INPUT;
  if (o.help) {
    mr_cli_print_usage(stdout);
    return MR_EXIT_OK;
  }
  mr_model *m = mr_cli_load_model(&o);
  if (!m) return MR_EXIT_BAD_INPUT;
  mr_data *d = mr_data_create(m);
  if (!d) {
    mr_cli_error("%s: out of memory creating the simulation data", o.model_path);
    mr_model_free(m);
    return MR_EXIT_FAILURE;
  }
  run_context c;
  memset(&c, 0, sizeof c);
  c.o = &o;
  c.m = m;
  c.d = d;
  int status = run_simulate(&c);
  mr_data_free(d);
  mr_model_free(m);
  return status;
}
