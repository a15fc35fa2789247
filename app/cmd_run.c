/* moreau run MODEL: a headless simulation with a summary and an optional recording.
 *
 * The simulation itself is mr_sim_execute (simulate.c), shared with batch. The run owns
 * what a terminal user sees: the progress bar (erased at the end), SIGINT/SIGTERM/SIGHUP (the
 * current step finishes, the recording is completed under its final name and the summary
 * printed before exiting with 128 + signal), warnings and the summary. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "options.h"
#include "progress.h"
#include "engine/record/record.h"
#include "engine/record/record_contacts.h"
#include "simulate.h"

typedef struct run_context {
  const mr_cli_options *o;
  const mr_model *m;
  mr_data *d;
  mr_sim_stats s;
  mr_progress bar;
} run_context;

static volatile sig_atomic_t run_stop_signal = 0;

static void run_on_signal(int sig) { run_stop_signal = sig; }

/* SA_RESETHAND: a second Ctrl-C kills at once, should a step ever take too long. SIGHUP (a
 * closed terminal or ssh session) ends a run the same way. */
static void run_signals_install(struct sigaction old[3]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = run_on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  run_stop_signal = 0;
  sigaction(SIGINT, &sa, &old[0]);
  sigaction(SIGTERM, &sa, &old[1]);
  /* under nohup SIGHUP stays ignored, as the user asked */
  sigaction(SIGHUP, NULL, &old[2]);
  if (old[2].sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, NULL);
}

static void run_signals_restore(const struct sigaction old[3]) {
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
  sigaction(SIGHUP, &old[2], NULL);
}

static void run_on_step(void *user, long steps_done) {
  run_context *c = user;
  mr_progress_update(&c->bar, steps_done);
}

/* The bar is begun here, once the step count is known. */
static void run_on_start(void *user, const mr_model *m, mr_data *d) {
  (void)m;
  (void)d;
  run_context *c = user;
  mr_progress_begin(&c->bar, c->s.steps_requested, c->o->quiet);
}

static void run_on_warning(void *user, const char *line) {
  run_context *c = user;
  if (!c->o->quiet) mr_cli_error("%s", line);
}

/* The largest value of each per-step metric, as flat max_* keys (the summary is one flat
 * object). */
static void run_json_metrics(mr_json *j, const mr_sim_stats *s) {
  const mr_metrics *mx = &s->metrics_max;
  mr_json_double(j, "max_primal", mx->primal);
  mr_json_double(j, "max_dual", mx->dual);
  mr_json_double(j, "max_complementarity", mx->complementarity);
  mr_json_double(j, "max_natural_map", mx->natural_map);
  mr_json_double(j, "max_signorini", mx->signorini);
  mr_json_double(j, "max_dissipation", mx->dissipation);
  mr_json_double(j, "max_penetration", mx->penetration);
  mr_json_double(j, "max_loop_closure", mx->loop_closure);
  mr_json_double(j, "max_energy", s->max_energy);
  mr_json_double(j, "max_solver_time", mx->solver_time);
}

static double run_mean(double sum, long n) { return n > 0 ? sum / (double)n : 0; }

static void run_print_json(const run_context *c) {
  const mr_sim_stats *s = &c->s;
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
  mr_json_string(&j, "solver", mr_sim_solver_name(c->d));
  mr_json_string(&j, "integrator", mr_cli_integrator_name(c->d->opt.integrator));
  mr_json_double(&j, "mean_iters", run_mean(s->sum_iters, s->steps));
  mr_json_double(&j, "mean_pgs_sweeps", run_mean(s->sum_sweeps, s->steps));
  mr_json_double(&j, "max_residual", s->max_residual);
  mr_json_int(&j, "steps_not_converged", s->steps_capped);
  mr_json_int(&j, "steps_solver_failed", s->steps_failed);
  mr_json_double(&j, "mean_rows", run_mean((double)s->sum_rows, s->steps));
  run_json_metrics(&j, s);
  mr_json_double(&j, "mean_contacts", run_mean(s->sum_contacts, s->steps));
  mr_json_double(&j, "energy_start", s->energy_start);
  mr_json_double(&j, "energy_end", s->energy_end);
  mr_json_bool(&j, "diverged", s->diverged);
  mr_json_bool(&j, "unstable", s->unstable);
  if (s->unstable) mr_json_int(&j, "unstable_step", s->unstable_step);
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
  mr_sensor_summary_json(&j, &s->sensors, c->o->summary_sensors);
  mr_json_object_end(&j);
}

static void run_print_text(const run_context *c) {
  const mr_sim_stats *s = &c->s;
  double rate = s->wall_s > 0 ? (double)s->steps / s->wall_s : 0;
  double sim = s->time_end - s->time_start;
  printf("model        %s (%s)\n", c->m->model_name ? c->m->model_name : "", c->o->model_path);
  printf("steps        %ld of %ld, %g s simulated (dt %g s, %s)\n", s->steps, s->steps_requested,
         sim, c->d->opt.timestep, mr_cli_integrator_name(c->d->opt.integrator));
  printf("wall time    %.4g s, %.4g steps/s, %.3gx real time\n", s->wall_s, rate,
         s->wall_s > 0 ? sim / s->wall_s : 0);
  char sweeps[64] = "";
  if (s->sum_sweeps > 0)
    snprintf(sweeps, sizeof sweeps, " (%.3g of them pgs sweeps)", run_mean(s->sum_sweeps, s->steps));
  printf("solver       %s: mean %.3g iterations%s, max residual %.3g by its own measure, %ld "
         "steps at the cap, %ld failed\n", mr_sim_solver_name(c->d),
         run_mean(s->sum_iters, s->steps), sweeps, s->max_residual, s->steps_capped,
         s->steps_failed);
  printf("NCP          max natural-map residual %.3g (the measure every solver is judged by)\n",
         s->metrics_max.natural_map);
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
  if (s->unstable) printf("unstable     from step %ld (max energy %.9g J)\n", s->unstable_step, s->max_energy);
  if (s->signal) printf("interrupted  by signal %d\n", s->signal);
  if (c->o->record && !s->record_failed)
    printf("recorded     %ld rows to %s\n", s->rows, c->o->record);
  if (c->o->contacts && !s->contacts_failed)
    printf("contacts to  %s: %ld rows\n", c->o->contacts, s->contact_rows);
  mr_sensor_summary_print(stdout, &s->sensors, c->o->summary_sensors);
}

/* Everything after the model is loaded and the data made: the job itself is
 * mr_sim_execute's; the run adds signals, the progress bar and the printed summary. */
static int run_simulate(run_context *c) {
  char err[1024];
  mr_sim_hooks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.on_step = run_on_step;
  hooks.on_start = run_on_start;
  hooks.on_warning = run_on_warning;
  hooks.stop = &run_stop_signal;
  hooks.user = c;
  struct sigaction old[3];
  memset(&c->bar, 0, sizeof c->bar);
  run_signals_install(old);
  int status = mr_sim_execute(c->o, c->m, c->d, &hooks, &c->s, err, (int)sizeof err);
  mr_progress_end(&c->bar);
  run_signals_restore(old);
  if (status != MR_EXIT_OK) mr_cli_error("%s", err);
  if (!c->s.ran) return status;
  if (c->o->json) run_print_json(c);
  else run_print_text(c);
  return status; /* main checks that stdout took it all */
}

static int run_parse(int argc, char **argv, mr_cli_options *o) {
  char err[1024];
  if (mr_cli_parse(argc, argv, MR_OPTS_LOAD | MR_OPTS_OUTPUT | MR_OPTS_SIM | MR_OPTS_SUMMARY, o, err,
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
  o.load.meshes = MR_MESHES_COLLISION; /* nothing is drawn */
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
