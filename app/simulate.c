/* One headless simulation job (simulate.h): initial state, recordings, the stepping loop and
 * its statistics. Shared by `moreau run` and `moreau batch`, so nothing here prints, touches
 * signals or keeps global state: every message goes through err or the hooks. */
#include "simulate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/record/ctrl_schedule.h"
#include "engine/record/part_file.h"
#include "progress.h"
#include "engine/record/record.h"
#include "engine/record/record_contacts.h"
#include "engine/record/recording.h"

typedef struct sim_context {
  const mr_cli_options *o;
  const mr_model *m;
  mr_data *d;
  const mr_sim_hooks *hooks;
  mr_recorder *rec;
  mr_contact_recorder *contacts;
  mr_ctrl_schedule ctrl;
  int have_ctrl;
  mr_sim_stats *s;
  char *err; /* the caller's: the first error of the run lands here */
  int errlen;
  char unstable_line[512]; /* reported when the run ends (sim_check_stable) */
} sim_context;

static void sim_error(sim_context *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sim_error(sim_context *c, const char *fmt, ...) {
  if (c->err[0]) return; /* the first error is the one worth reading */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->err, (size_t)c->errlen, fmt, ap);
  va_end(ap);
}

static void sim_warning(sim_context *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sim_warning(sim_context *c, const char *fmt, ...) {
  if (!c->hooks || !c->hooks->on_warning) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  c->hooks->on_warning(c->hooks->user, line);
}

/* Total mechanical energy of the current state. mr_step leaves the kinematics of the state
 * it started from, so they are brought up to date first. */
static double sim_energy(const mr_model *m, mr_data *d) {
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_energy(m, d);
  return d->energy[0] + d->energy[1];
}

static int sim_state_finite(const mr_model *m, const mr_data *d) {
  for (int i = 0; i < m->nq; i++)
    if (!isfinite(d->qpos[i])) return 0;
  for (int i = 0; i < m->nv; i++)
    if (!isfinite(d->qvel[i])) return 0;
  return isfinite(d->time);
}

/* The row's sensors: position and velocity ones of its state, acceleration and force ones
 * of the step that produced it (record.h). */
static int sim_record_row(sim_context *c, double energy) {
  char err[1024];
  mr_sensors_state(c->m, c->d);
  if (mr_recorder_write(c->rec, c->d, energy, err, (int)sizeof err) == 0) return 0;
  sim_error(c, "%s", err);
  c->s->record_failed = 1;
  return -1;
}

static int sim_record_contacts(sim_context *c, long step, double time) {
  char err[1024];
  if (mr_contact_recorder_write(c->contacts, step, time, c->d, err, (int)sizeof err) == 0) return 0;
  sim_error(c, "%s", err);
  c->s->contacts_failed = 1;
  return -1;
}

/* The first step that loses contacts for lack of capacity says so, once; the summary has
 * the totals. */
static void sim_count_dropped(sim_context *c, long step) {
  const mr_data *d = c->d;
  if (d->ncon_dropped <= 0) return;
  if (c->s->steps_dropping == 0)
    sim_warning(c, "warning: step %ld found more contacts than the capacity of %d; the %d "
                   "shallowest were dropped (further drops are counted in the summary)",
                step, d->maxcon, d->ncon_dropped);
  c->s->steps_dropping++;
  c->s->contacts_dropped += d->ncon_dropped;
}

/* Solver status counts and the running maximum of every per-step metric. */
static void sim_metrics_max(mr_sim_stats *s, const mr_data *d) {
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

/* The energy a run's growth is measured against: its start energy, or for a model that
 * starts near zero, the energy of lifting it a metre (1 m times its weight). */
static double sim_energy_scale(const mr_model *m, const mr_data *d, double e0) {
  const double *g = d->opt.gravity;
  double weight = mr_model_total_mass(m) * sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  return fmax(fabs(e0), weight * 1.0);
}

/* The first sign of a blow-up (simulate.h: MR_SIM_UNSTABLE_RESIDUAL). The energy is the
 * step's start energy (d->metrics.energy). Its line is reported when the run ends, unless
 * a worse failure (a non-finite state, a failed write) is reported instead. */
static void sim_check_stable(sim_context *c, long step) {
  mr_sim_stats *s = c->s;
  const mr_data *d = c->d;
  double e = d->metrics.energy, e0 = s->energy_start;
  if (e > s->max_energy) s->max_energy = e;
  if (s->unstable) return;
  int residual = !(d->solver_residual <= MR_SIM_UNSTABLE_RESIDUAL);
  int energy = c->m->nu == 0 && e - e0 > 9 * sim_energy_scale(c->m, d, e0);
  if (!residual && !energy) return;
  s->unstable = 1;
  s->unstable_step = step;
  if (residual)
    snprintf(c->unstable_line, sizeof c->unstable_line,
             "%s: unstable from step %ld (t = %.6g s): solver residual %.3g", c->o->model_path,
             step, d->time, d->solver_residual);
  else
    snprintf(c->unstable_line, sizeof c->unstable_line,
             "%s: unstable from step %ld (t = %.6g s): energy %.6g J, %.6g J at the start, "
             "and the model has no actuators", c->o->model_path, step, d->time, e, e0);
}

static void sim_step_stats(sim_context *c, long i) {
  mr_sim_stats *s = c->s;
  const mr_data *d = c->d;
  s->steps++;
  s->sum_iters += d->solver_iters;
  s->sum_sweeps += d->solver_sweeps;
  if (d->solver_iters > s->max_iters) s->max_iters = d->solver_iters;
  s->sum_contacts += d->ncon;
  sim_count_dropped(c, i + 1);
  if (d->solver_residual > s->max_residual) s->max_residual = d->solver_residual;
  sim_metrics_max(s, d);
  sim_check_stable(c, i + 1);
}

/* One step with its bookkeeping; -1 ends the run (divergence or a failed write). The
 * controls for the next step are set before the row is taken, so a row holds the state at
 * its time and the controls applied from that time on. */
static int sim_one_step(sim_context *c, long i) {
  const mr_model *m = c->m;
  mr_data *d = c->d;
  double t = d->time;
  if (mr_step(m, d) != 0 || !sim_state_finite(m, d)) {
    c->s->diverged = 1;
    c->s->diverged_step = i + 1;
    c->s->diverged_time = t;
    sim_error(c, "%s: simulation diverged at step %ld (t = %.17g): non-finite state",
              c->o->model_path, i + 1, t);
    return -1;
  }
  sim_step_stats(c, i);
  if (c->s->sensors.count) mr_sensor_summary_take(&c->s->sensors, m, d, 0);
  if (c->have_ctrl) mr_ctrl_schedule_apply(&c->ctrl, d->time, d->ctrl);
  if ((i + 1) % c->o->record_every != 0) return 0;
  if (c->contacts && sim_record_contacts(c, i + 1, t)) return -1;
  if (c->rec) return sim_record_row(c, sim_energy(m, d));
  return 0;
}

static void sim_loop(sim_context *c) {
  const mr_sim_hooks *h = c->hooks;
  const volatile sig_atomic_t *stop = h ? h->stop : NULL;
  double start = mr_wall_seconds();
  for (long i = 0; i < c->s->steps_requested; i++) {
    if (sim_one_step(c, i)) break;
    if (h && h->on_step) h->on_step(h->user, i + 1);
    if (stop && *stop) break;
  }
  c->s->wall_s = mr_wall_seconds() - start;
  c->s->signal = stop ? *stop : 0;
}

/* The initial state is row 0; it came from no step, so it carries no step statistics. */
static void sim_clear_step_stats(mr_data *d) {
  d->ncon = 0;
  d->solver_iters = d->solver_sweeps = 0;
  d->solver_status = 0;
  d->solver_residual = 0;
  d->nefc = 0;
  memset(&d->metrics, 0, sizeof d->metrics);
}

/* A FILE.part an earlier run left is moved aside (with a warning), never overwritten;
 * -1 when it cannot be. */
static int sim_set_aside(sim_context *c, const char *path) {
  char msg[1024];
  int moved = mr_part_file_set_aside(path, msg, (int)sizeof msg);
  if (moved > 0) sim_warning(c, "%s", msg);
  if (moved < 0) sim_error(c, "%s", msg);
  return moved < 0 ? -1 : 0;
}

/* A failure to write row 0 is a failed run (1); a file that cannot be created is the
 * user's path (2). */
static int sim_record_begin(sim_context *c) {
  char err[1024];
  if (sim_set_aside(c, c->o->record)) return MR_EXIT_FAILURE;
  c->rec = mr_recorder_open(c->m, c->d, c->o->record, err, (int)sizeof err);
  if (!c->rec) {
    sim_error(c, "%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  if (sim_record_row(c, c->s->energy_start)) {
    mr_recorder_abort(c->rec);
    c->rec = NULL;
    return MR_EXIT_FAILURE;
  }
  return MR_EXIT_OK;
}

/* Rows up to a divergence or an interruption are valid and kept; after a write error the
 * file stays FILE.part, incomplete, with the rows that reached the disk. */
static void sim_record_end(sim_context *c) {
  if (!c->rec) return;
  c->s->rows = mr_recorder_rows(c->rec);
  if (c->s->record_failed) {
    mr_recorder_keep(c->rec);
  } else {
    char err[1024];
    if (mr_recorder_finish(c->rec, err, (int)sizeof err)) {
      sim_error(c, "%s", err);
      c->s->record_failed = 1;
    }
  }
  c->rec = NULL;
}

static int sim_contacts_begin(sim_context *c) {
  char err[1024];
  if (sim_set_aside(c, c->o->contacts)) {
    c->s->contacts_failed = 1;
    return -1;
  }
  c->contacts = mr_contact_recorder_open(c->o->contacts, err, (int)sizeof err);
  if (c->contacts) return 0;
  sim_error(c, "%s", err);
  c->s->contacts_failed = 1;
  return -1;
}

/* As for trajectories: rows up to a divergence or an interruption are kept. */
static void sim_contacts_end(sim_context *c) {
  if (!c->contacts) return;
  c->s->contact_rows = mr_contact_recorder_rows(c->contacts);
  if (c->s->contacts_failed) {
    mr_contact_recorder_keep(c->contacts);
  } else {
    char err[1024];
    if (mr_contact_recorder_finish(c->contacts, err, (int)sizeof err)) {
      sim_error(c, "%s", err);
      c->s->contacts_failed = 1;
    }
  }
  c->contacts = NULL;
}

/* --init FILE when FILE does not exist but FILE.part does (a run that was killed): the part
 * file, with a warning saying so. NULL keeps FILE. */
static char *sim_init_part_file(sim_context *c, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0 || errno != ENOENT) return NULL;
  size_t n = strlen(path);
  char *part = malloc(n + 6);
  if (!part) return NULL;
  memcpy(part, path, n);
  memcpy(part + n, ".part", 6);
  if (stat(part, &st) != 0 || !S_ISREG(st.st_mode)) {
    free(part);
    return NULL;
  }
  sim_warning(c, "warning: %s does not exist; starting from %s, the recording an interrupted "
                 "run left", path, part);
  return part;
}

/* --init: the last row of a recording, its time included, so that a continued run lines up
 * with the one it continues (and with a --ctrl schedule on the same clock). */
static int sim_apply_init(sim_context *c) {
  mr_recording rec;
  char err[1024];
  char *part = sim_init_part_file(c, c->o->init_file);
  const char *path = part ? part : c->o->init_file;
  int rc = mr_recording_load_last(path, c->m, &rec, err, (int)sizeof err);
  if (rc) sim_error(c, "%s", err);
  if (rc == 0 && rec.nrows < 1) {
    sim_error(c, "%s: the recording has no rows to start from", path);
    rc = -1;
  }
  free(part);
  if (rc) {
    mr_recording_free(&rec);
    return -1;
  }
  long last = rec.nrows - 1;
  mr_data *d = c->d;
  d->time = rec.time[last];
  if (c->m->nq) memcpy(d->qpos, rec.qpos + last * rec.nq, sizeof *d->qpos * (size_t)rec.nq);
  if (c->m->nv) memcpy(d->qvel, rec.qvel + last * rec.nv, sizeof *d->qvel * (size_t)rec.nv);
  if (rec.ctrl && c->m->nu)
    memcpy(d->ctrl, rec.ctrl + last * rec.nu, sizeof *d->ctrl * (size_t)rec.nu);
  if (rec.act && c->m->na)
    memcpy(d->act, rec.act + last * rec.na, sizeof *d->act * (size_t)rec.na);
  mr_recording_free(&rec);
  return 0;
}

/* splitmix64 (Steele, Lea, Flood 2014): integer arithmetic only, so the same seed gives
 * the same numbers on every platform. */
static uint64_t sim_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [-1, 1): the top 53 bits make an exact double in [0, 1). */
static double sim_uniform(uint64_t *state) {
  double u = (double)(sim_splitmix64(state) >> 11) * 0x1.0p-53;
  return 2.0 * u - 1.0;
}

void mr_sim_perturb(const mr_model *m, mr_data *d, long seed) {
  uint64_t state = (uint64_t)seed;
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j];
    if (type == MR_JOINT_HINGE || type == MR_JOINT_SLIDE)
      d->qpos[m->jnt_qposadr[j]] += MR_SIM_SEED_AMPLITUDE * sim_uniform(&state);
  }
  for (int i = 0; i < m->nv; i++) d->qvel[i] += MR_SIM_SEED_AMPLITUDE * sim_uniform(&state);
}

/* Keyframe and settings, --init, --seed, --ctrl: the state the first row records. */
static int sim_initial_state(sim_context *c) {
  long steps = mr_cli_apply(c->o, c->m, c->d, c->err, c->errlen);
  if (steps < 0) return -1;
  c->s->steps_requested = steps;
  if (c->o->init_file && sim_apply_init(c)) return -1;
  if (c->o->seed != 0) mr_sim_perturb(c->m, c->d, c->o->seed);
  if (c->o->ctrl_file) {
    char err[1024];
    if (mr_ctrl_schedule_load(&c->ctrl, c->o->ctrl_file, c->m, err, (int)sizeof err)) {
      sim_error(c, "%s", err);
      return -1;
    }
    c->have_ctrl = 1;
    mr_ctrl_schedule_apply(&c->ctrl, c->d->time, c->d->ctrl);
  }
  sim_clear_step_stats(c->d);
  if (c->hooks && c->hooks->on_start) c->hooks->on_start(c->hooks->user, c->m, c->d);
  return 0;
}

static int sim_exit_status(const mr_sim_stats *s) {
  if (s->diverged || s->unstable || s->record_failed || s->contacts_failed) return MR_EXIT_FAILURE;
  if (s->signal) return 128 + s->signal;
  return MR_EXIT_OK;
}

/* The recordings are open: step, then close them however the run ended. */
static int sim_run_open(sim_context *c) {
  mr_sim_stats *s = c->s;
  s->ran = 1;
  sim_loop(c);
  s->time_end = c->d->time;
  s->energy_end = s->diverged ? NAN : sim_energy(c->m, c->d);
  if (s->sensors.count && !s->diverged) { /* the final state's own sensors */
    mr_sensors_state(c->m, c->d);
    mr_sensor_summary_take(&s->sensors, c->m, c->d, 0);
  }
  if (s->diverged) s->time_end = s->diverged_time;
  sim_record_end(c);
  sim_contacts_end(c);
  if (s->unstable) sim_error(c, "%s", c->unstable_line);
  if (s->signal && !s->diverged)
    sim_error(c, "%s: interrupted by %s after %ld steps", c->o->model_path,
              s->signal == SIGINT    ? "SIGINT"
              : s->signal == SIGTERM ? "SIGTERM"
              : s->signal == SIGHUP  ? "SIGHUP"
                                     : "a signal",
              s->steps);
  return sim_exit_status(s);
}

int mr_sim_execute(const mr_cli_options *o, const mr_model *m, mr_data *d,
                   const mr_sim_hooks *hooks, mr_sim_stats *stats, char *err, int errlen) {
  sim_context c;
  memset(&c, 0, sizeof c);
  memset(stats, 0, sizeof *stats);
  err[0] = 0;
  c.o = o;
  c.m = m;
  c.d = d;
  c.hooks = hooks;
  c.s = stats;
  c.err = err;
  c.errlen = errlen;
  int status = MR_EXIT_BAD_INPUT;
  if (sim_initial_state(&c)) goto done;
  if (mr_sensor_summary_begin(&stats->sensors, o->summary_sensors, m, o->model_path, err, errlen))
    goto done;
  if (stats->sensors.count) { /* the initial state counts too */
    mr_sensors_state(m, d);
    mr_sensor_summary_take(&stats->sensors, m, d, 1);
  }
  stats->time_start = d->time;
  stats->energy_start = stats->max_energy = sim_energy(m, d);
  if (o->record && (status = sim_record_begin(&c)) != MR_EXIT_OK) goto done;
  if (o->contacts && sim_contacts_begin(&c)) {
    mr_recorder_abort(c.rec);
    c.rec = NULL;
    status = MR_EXIT_FAILURE;
    goto done;
  }
  status = sim_run_open(&c);
done:
  if (c.have_ctrl) mr_ctrl_schedule_free(&c.ctrl);
  if (status != MR_EXIT_OK && !err[0]) snprintf(err, (size_t)errlen, "%s: the run failed", o->model_path);
  return status;
}

double mr_sim_state_energy(const mr_model *m, mr_data *d) { return sim_energy(m, d); }

const char *mr_sim_solver_name(const mr_data *d) {
  const char *name = mr_solver_name(d->opt.solver);
  return name ? name : mr_solver_name(mr_solver_default());
}
