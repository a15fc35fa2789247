/* Contact speed and accuracy: every Moreau solver next to MuJoCo on the same falling scenes.
 *
 * Both engines load the model, keep its timestep and contacts, start from qpos0 and step N
 * times (the humanoid falls on the floor; humanoid100's objects fall and pile). One untimed
 * accuracy round collects the residuals below, then R timed rounds alternate the engines:
 * per round MuJoCo runs, then each Moreau solver (d->opt.solver = i) in registry order; the
 * median round of each is reported. Timed rounds do nothing but step and read the thread's
 * CPU clock a few times.
 *
 * Accuracy is measured the same way for both engines, with the definitions of
 * engine/constraint/metrics.c (L-infinity over rows, max over the steps):
 *   lambda  impulses: MuJoCo's contact forces in the contact frame (mj_contactForce, which
 *           also turns pyramidal-cone rows into normal + tangential force) times dt, and
 *           its joint-limit forces (efc_force) times dt;
 *   c       the constraint velocities after the step plus Moreau's stabilization bias
 *           (ERP dist / dt when penetrating, dist / dt inside the margin; constraint.h)
 *           computed from MuJoCo's own distances, as Moreau's c = G lambda + g carries
 *           it: both engines are judged on the same problem. For a contact, the frame
 *           times (v2 - v1), the velocity of the contact point on geom2's body relative to
 *           geom1's, from mj_jac at contact.pos (the kinematics mj_step leaves in mjData are
 *           those of the step's start, where the contacts were found) times the new qvel;
 *           for a limit row, efc_J times the new qvel (mj_mulJacVec);
 *   primal  distance of lambda to the cone K_mu (mu = friction[0]; condim 1: mu = 0);
 *   dual    distance of c + Gamma(c) to the dual cone (max(0, -c_N) in effect);
 *   compl   |<lambda, c + Gamma(c)>|, Gamma(c) = (mu ||c_T||, 0, 0);
 *   pen     max(0, -dist) over the step's contacts (MuJoCo: contact[].dist).
 * Moreau's come from d->metrics, which mr_step computes with the same functions.
 * The cone projections are Moreau's own (engine/solver/cone.c), so the two columns use
 * literally the same definitions.
 *
 * Slow solvers: a solver's accuracy round stops after a wall-time budget; the steps it
 * reached become its step count in the timed rounds (column "steps"), and its ratio is
 * taken against MuJoCo's time over the same first steps.
 *
 * Usage: bench_contact [--steps N] [--rounds R] [--long | --seeded] [MODEL.xml ...]
 * --long: the long-horizon scenes (bench_long), the default solver and pgs, then the
 * chaotic ones over seeded starts (bench_seeded); --seeded: those seeded runs only.
 * MOREAU_BENCH_SOLVERS=pgs,sap limits the Moreau rows to the solvers named.
 * Default models: MuJoCo's humanoid (2 s simulated) and humanoid100 (1 s) samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench_common.h"
#include "mujoco_dropped.h"
#include "engine/constraint/constraint.h"
#include "moreau.h"
#include "engine/solver/solver.h"

enum { MAX_SOLVERS = 32 };

/* Stepping time one solver may take on one model over all its rounds (seconds): its
 * accuracy round gets budget / (R + 1) of wall time and sets the steps of the others. */
static const double SOLVER_BUDGET = 12.0;

typedef struct accuracy {
  double primal, dual, compl, natural, penetration;
} accuracy;

typedef struct engine_row {
  const char *name;
  int steps;         /* steps per round (capped for slow solvers) */
  double iters;      /* mean solver iterations per step */
  int capped_steps;  /* steps whose solver hit its iteration cap or failed */
  int diverged;      /* the state became non-finite */
  accuracy acc;
  /* per-step maxima of the penetration, summed: their mean says how deep contacts rest,
   * where the max is mostly the depth of the first impacts (found before any solver acts) */
  double penetration_sum;
  double solver_share; /* Moreau: fraction of the step time spent in the solver */
  int dropped;         /* MuJoCo: steps whose contact or constraint buffer overflowed */
} engine_row;

typedef struct bench_state {
  mjModel *m;
  mjData *d;
  mr_model *mm;
  mr_data *md;
  double *jac;      /* 2 x 3 x nv: point Jacobians of the two bodies */
  double *efc_vel;  /* efc_J qvel */
  int nefc_cap;
} bench_state;

static void accuracy_max(accuracy *a, const accuracy *b) {
  a->primal = fmax(a->primal, b->primal);
  a->dual = fmax(a->dual, b->dual);
  a->compl = fmax(a->compl, b->compl);
  a->natural = fmax(a->natural, b->natural);
  a->penetration = fmax(a->penetration, b->penetration);
}

/* Moreau's stabilization bias of a unilateral row with gap phi (engine/constraint/constraint.c): its
 * c = J v + bias, so MuJoCo's velocities get the same term from MuJoCo's own distances,
 * and both engines' impulses are judged as solutions of the same problem. */
static double unilateral_bias(double phi, double erp, double dt) {
  (void)erp; /* penetration is recovered by moving positions after the step, not in c */
  return phi > 0 ? phi / dt : 0;
}

/* engine/constraint/metrics.c's per-contact definitions. */
static void contact_errors(const double l[3], const double c[3], double mu, accuracy *e) {
  double sT = hypot(c[1], c[2]);
  double cs[3] = {c[0] + mu * sT, c[1], c[2]}, y[3] = {cs[0], cs[1], cs[2]};
  mr_cone_project_dual(y, mu);
  e->primal = mr_cone_distance(l, mu);
  e->dual = sqrt((cs[0] - y[0]) * (cs[0] - y[0]) + (cs[1] - y[1]) * (cs[1] - y[1]) +
                 (cs[2] - y[2]) * (cs[2] - y[2]));
  e->compl = fabs(l[0] * cs[0] + l[1] * cs[1] + l[2] * cs[2]);
  double z[3] = {l[0] - cs[0], l[1] - cs[1], l[2] - cs[2]};
  mr_cone_project(z, mu);
  e->natural = fmax(fabs(l[0] - z[0]), fmax(fabs(l[1] - z[1]), fabs(l[2] - z[2])));
  e->penetration = 0;
}

/* c = frame (v2 - v1) at the contact point, from the current qvel. */
static void mujoco_contact_velocity(bench_state *b, const mjContact *con, double c[3]) {
  const mjModel *m = b->m;
  int nv = m->nv;
  int b1 = m->geom_bodyid[con->geom1], b2 = m->geom_bodyid[con->geom2];
  double *j1 = b->jac, *j2 = b->jac + 3 * nv, v[3] = {0, 0, 0};
  mj_jac(m, b->d, j1, NULL, con->pos, b1);
  mj_jac(m, b->d, j2, NULL, con->pos, b2);
  for (int r = 0; r < 3; r++)
    for (int k = 0; k < nv; k++) v[r] += (j2[r * nv + k] - j1[r * nv + k]) * b->d->qvel[k];
  for (int r = 0; r < 3; r++) c[r] = con->frame[3 * r] * v[0] + con->frame[3 * r + 1] * v[1] +
                                     con->frame[3 * r + 2] * v[2];
}

/* MuJoCo's step errors, evaluated after mj_step (contacts, forces and kinematics are the
 * step's start, qvel the step's end). */
static void mujoco_accuracy(bench_state *b, accuracy *out) {
  const mjModel *m = b->m;
  mjData *d = b->d;
  double dt = m->opt.timestep;
  memset(out, 0, sizeof *out);
  if (d->nefc > b->nefc_cap) {
    free(b->efc_vel);
    b->nefc_cap = 2 * d->nefc;
    b->efc_vel = malloc(sizeof(double) * (size_t)b->nefc_cap);
  }
  mj_mulJacVec(m, d, b->efc_vel, d->qvel);
  accuracy e;
  for (int i = 0; i < d->nefc; i++) {
    if (d->efc_type[i] != mjCNSTR_LIMIT_JOINT) continue;
    double l = d->efc_force[i] * dt;
    double c = b->efc_vel[i] + unilateral_bias(d->efc_pos[i] - d->efc_margin[i], MR_ERP_LIMIT, dt);
    e.primal = fmax(0, -l);
    e.dual = fmax(0, -c);
    e.compl = fabs(l * c);
    e.natural = fabs(l - fmax(0, l - c));
    e.penetration = 0;
    accuracy_max(out, &e);
  }
  for (int i = 0; i < d->ncon; i++) {
    const mjContact *con = &d->contact[i];
    out->penetration = fmax(out->penetration, -con->dist);
    if (con->efc_address < 0) continue; /* excluded or beyond the margin */
    double f[6], l[3], c[3];
    mj_contactForce(m, d, i, f);
    int frictional = con->dim >= 3;
    for (int k = 0; k < 3; k++) l[k] = (k == 0 || frictional) ? f[k] * dt : 0;
    mujoco_contact_velocity(b, con, c);
    c[0] += unilateral_bias(con->dist + MR_CONTACT_SLOP, MR_ERP_CONTACT, dt);
    contact_errors(l, c, frictional ? con->friction[0] : 0, &e);
    accuracy_max(out, &e);
  }
}

static void bench_state_free(bench_state *b) {
  free(b->jac);
  free(b->efc_vel);
  mr_data_free(b->md);
  mr_model_free(b->mm);
  mj_deleteData(b->d);
  mj_deleteModel(b->m);
}

static int bench_state_load(const char *path, double dt, bench_state *b) {
  char err[1024] = "";
  memset(b, 0, sizeof *b);
  b->m = mj_loadXML(path, NULL, err, sizeof err);
  if (!b->m) {
    fprintf(stderr, "bench_contact: MuJoCo cannot load %s: %s\n", path, err);
    return -1;
  }
  mr_load_options opt = {0};
  opt.quiet = 1;
  b->mm = mr_model_load(path, &opt, err, sizeof err);
  if (!b->mm || b->mm->nq != b->m->nq || b->mm->nv != b->m->nv) {
    fprintf(stderr, "bench_contact: Moreau cannot load %s: %s\n", path, b->mm ? "sizes differ" : err);
    bench_state_free(b);
    return -1;
  }
  if (dt > 0) b->m->opt.timestep = b->mm->opt.timestep = dt;
  b->d = mj_makeData(b->m);
  b->md = mr_data_create(b->mm);
  b->jac = malloc(sizeof(double) * 6 * (size_t)b->m->nv);
  return b->d && b->md && b->jac ? 0 : (bench_state_free(b), -1);
}

/* CPU time of this thread: single-threaded engines on a shared 2-core machine, where wall
 * time would charge other processes' preemptions to whichever engine was running. Read
 * only a few times per round (the call is a system call, about a microsecond). */
static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The accuracy round of MuJoCo (untimed). */
static void mujoco_accuracy_round(bench_state *b, engine_row *row) {
  mj_resetData(b->m, b->d);
  double iters = 0;
  for (int s = 0; s < row->steps; s++) {
    mj_step(b->m, b->d);
    row->dropped += bench_mujoco_dropped(b->d);
    b->d->warning[mjWARN_CONTACTFULL].number = b->d->warning[mjWARN_CNSTRFULL].number = 0;
    iters += b->d->solver_iter;
    accuracy e;
    mujoco_accuracy(b, &e);
    accuracy_max(&row->acc, &e);
    row->penetration_sum += e.penetration;
  }
  row->iters = iters / row->steps;
}

/* A timed MuJoCo round: t[s] = CPU seconds after step s, read only where checkpoint[s]. */
static void mujoco_timed_round(bench_state *b, int steps, const char *checkpoint, double *t) {
  mj_resetData(b->m, b->d);
  double t0 = cpu_seconds();
  for (int s = 0; s < steps; s++) {
    mj_step(b->m, b->d);
    if (checkpoint[s]) t[s] = cpu_seconds() - t0;
  }
}

/* The accuracy round of Moreau's solver i. It stops once the steps took `budget` wall
 * seconds, which caps row->steps for the timed rounds. */
static void moreau_accuracy_round(bench_state *b, int solver, engine_row *row, double budget) {
  mr_data_reset(b->mm, b->md);
  b->md->opt.solver = solver;
  double total = 0, iters = 0, solver_time = 0;
  int s;
  for (s = 0; s < row->steps; s++) {
    double t0 = now_seconds();
    int rc = mr_step(b->mm, b->md);
    total += now_seconds() - t0;
    if (rc != 0) {
      row->diverged = 1;
      s++;
      break;
    }
    const mr_metrics *x = &b->md->metrics;
    accuracy e = {x->primal, x->dual, x->complementarity, x->natural_map, x->penetration};
    accuracy_max(&row->acc, &e);
    row->penetration_sum += e.penetration;
    solver_time += x->solver_time;
    iters += b->md->solver_iters;
    row->capped_steps += b->md->nefc > 0 && b->md->solver_status != 0;
    if (total > budget) {
      s++;
      break;
    }
  }
  row->steps = s;
  row->iters = iters / s;
  row->solver_share = total > 0 ? solver_time / total : 0;
}

/* A timed Moreau round: CPU seconds for row->steps steps. */
static double moreau_timed_round(bench_state *b, int solver, const engine_row *row) {
  mr_data_reset(b->mm, b->md);
  b->md->opt.solver = solver;
  double t0 = cpu_seconds();
  for (int s = 0; s < row->steps; s++)
    if (mr_step(b->mm, b->md) != 0) break;
  return cpu_seconds() - t0;
}

static void print_row(const engine_row *row, double sps, double ratio) {
  char iters[32], share[16] = "-", note[64] = "";
  snprintf(iters, sizeof iters, "%.1f", row->iters);
  if (row->solver_share > 0) snprintf(share, sizeof share, "%.0f%%", 100 * row->solver_share);
  if (row->capped_steps) snprintf(note, sizeof note, " cap@%d", row->capped_steps);
  if (row->diverged) snprintf(note, sizeof note, " NON-FINITE");
  if (row->dropped) snprintf(note, sizeof note, " DROPPED CONTACTS on %d steps", row->dropped);
  printf("%-16s %6d %10.0f %7.2f %8s %6s %10.2e %10.2e %10.2e %10.2e %10.2e %10.2e%s\n",
         row->name, row->steps, sps, ratio, iters, share, row->acc.primal, row->acc.dual,
         row->acc.compl, row->acc.natural, row->acc.penetration,
         row->penetration_sum / row->steps, note);
}

static int default_steps(const char *path, double seconds) {
  char err[1024];
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  int steps = m ? (int)(seconds / m->opt.timestep + 0.5) : 1;
  mj_deleteModel(m);
  return steps;
}

/* Median over the rounds of MuJoCo's seconds per step over its first n steps. */
static double mujoco_step_time(const double *t, int steps, int rounds, int n) {
  double v[MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) v[r] = t[(size_t)r * steps + n - 1] / n;
  return median(v, rounds);
}

/* Accuracy round first (it also caps slow solvers), then `rounds` timed rounds, each
 * MuJoCo then every solver, so load drifts reach all engines alike. */
/* The registry's solvers, or those named in MOREAU_BENCH_SOLVERS ("pgs,sap"). */
static int selected_solvers(int *sel) {
  const char *only = getenv("MOREAU_BENCH_SOLVERS");
  int n = 0;
  for (int i = 0; i < mr_solver_count() && n < MAX_SOLVERS; i++) {
    const char *name = mr_solver_name(i), *at = only ? strstr(only, name) : NULL;
    size_t len = strlen(name);
    int listed = at && (at == only || at[-1] == ',') && (at[len] == 0 || at[len] == ',');
    if (!only || listed) sel[n++] = i;
  }
  return n;
}

static int bench_model(const char *path, double dt, int steps, int rounds, double budget) {
  bench_state b;
  if (bench_state_load(path, dt, &b)) return -1;
  int sel[MAX_SOLVERS], nsolver = selected_solvers(sel);
  engine_row rows[MAX_SOLVERS + 1];
  memset(rows, 0, sizeof rows);
  rows[0].name = b.m->opt.solver == mjSOL_NEWTON ? "MuJoCo (newton)" : "MuJoCo (default)";
  for (int i = 0; i <= nsolver; i++) {
    if (i) rows[i].name = mr_solver_name(sel[i - 1]);
    rows[i].steps = steps;
  }
  const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  printf("%s: nv %d, dt %g s, %d steps (%.2f s), %d timed rounds interleaved\n", name, b.m->nv,
         b.m->opt.timestep, steps, steps * b.m->opt.timestep, rounds);
  fflush(stdout);
  mujoco_accuracy_round(&b, &rows[0]);
  for (int i = 1; i <= nsolver; i++)
    moreau_accuracy_round(&b, sel[i - 1], &rows[i], budget);
  char *checkpoint = calloc((size_t)steps, 1);
  double *mj_t = calloc((size_t)rounds * (size_t)steps, sizeof(double));
  double mr_t[MAX_SOLVERS + 1][MAX_ROUNDS];
  if (!checkpoint || !mj_t) {
    free(checkpoint);
    free(mj_t);
    bench_state_free(&b);
    return -1;
  }
  for (int i = 0; i <= nsolver; i++) checkpoint[rows[i].steps - 1] = 1;
  for (int r = 0; r < rounds; r++) {
    mujoco_timed_round(&b, steps, checkpoint, mj_t + (size_t)r * steps);
    for (int i = 1; i <= nsolver; i++) mr_t[i][r] = moreau_timed_round(&b, sel[i - 1], &rows[i]);
  }
  printf("%-16s %6s %10s %7s %8s %6s %10s %10s %10s %10s %10s %10s\n", "engine/solver", "steps",
         "steps/s", "ratio", "iters", "solver", "primal", "dual", "compl", "natural", "penetr",
         "mean pen");
  print_row(&rows[0], 1 / mujoco_step_time(mj_t, steps, rounds, steps), 1.0);
  for (int i = 1; i <= nsolver; i++) {
    int n = rows[i].steps;
    /* against MuJoCo over the same first n steps (the fall's first steps are cheap) */
    double mj_n = mujoco_step_time(mj_t, steps, rounds, n), mr_n = median(mr_t[i], rounds) / n;
    print_row(&rows[i], 1 / mr_n, mj_n / mr_n);
  }
  printf("\n");
  fflush(stdout);
  free(checkpoint);
  free(mj_t);
  bench_state_free(&b);
  return 0;
}

/* --long: the scenes of issue 15, where contact rests for a long time, at their full
 * horizons (no solver is cut short), then three more resting scenes: papers/004's Clutter
 * (forty objects settled in a bin: one island of a few hundred rows), a hundred boxes
 * resting apart on a floor (a hundred small islands) and a heap of 72 objects (one island
 * of more than 400 rows, cylinders rolling in its hollows). Solvers: the default and pgs
 * unless MOREAU_BENCH_SOLVERS names others. */
typedef struct scene {
  const char *path;
  double seconds, dt; /* dt 0: the model's */
} scene;

static const scene long_scenes[] = {
    {MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 20.0, 0},
    {MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", 5.0, 0},
    {MOREAU_SOURCE_DIR "/models/stack5.xml", 10.0, 0.001},
    {MOREAU_SOURCE_DIR "/models/stack5.xml", 10.0, 0.01},
    {MOREAU_SOURCE_DIR "/models/pile20.xml", 10.0, 0},
    {MOREAU_SOURCE_DIR "/models/clutter.xml", 25.0, 0},
    {MOREAU_SOURCE_DIR "/models/boxes100.xml", 5.0, 0},
    {MOREAU_SOURCE_DIR "/models/pile72.xml", 5.0, 0},
};

/* The chaotic scenes again from nudged starts: in a heap, or a humanoid with objects lying on
 * it, a last-bit change of the trajectory moves the steps at the cap by hundreds, so a
 * single run from qpos0 measures its own luck. SEEDS runs of the default solver, each from
 * qpos0 with qvel nudged by up to 1e-3 (bench_batch's nudge), and MuJoCo from the same
 * starts; the humanoid's 5 s are bench_batch's seeded batch. MOREAU_BENCH_SEED_OFFSET=K
 * runs seeds K+1..K+SEEDS instead of 1..SEEDS. */
#define SEEDS 6
static const scene seeded_scenes[] = {
    {MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 5.0, 0},
    {MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", 5.0, 0},
    {MOREAU_SOURCE_DIR "/models/pile20.xml", 10.0, 0},
    {MOREAU_SOURCE_DIR "/models/clutter.xml", 25.0, 0},
};

/* One seeded run of each engine: CPU seconds into mj_s and mr_s; Moreau's capped steps,
 * iterations and worst natural map added into the totals. */
static void seeded_run(bench_state *b, int steps, int seed, double *mj_s, double *mr_s, int *capped,
                       double *iters, double *natural) {
  mj_resetData(b->m, b->d);
  for (int i = 0; i < b->m->nv; i++) b->d->qvel[i] = bench_seed_nudge(seed, i);
  double t0 = cpu_seconds();
  for (int s = 0; s < steps; s++) mj_step(b->m, b->d);
  *mj_s = cpu_seconds() - t0;
  if (bench_mujoco_dropped(b->d))
    printf("MuJoCo dropped contacts on seed %d (raise nconmax/njmax in the file's <size>): "
           "its time is not comparable\n", seed);
  mr_data_reset(b->mm, b->md);
  b->md->opt.solver = mr_solver_default();
  for (int i = 0; i < b->mm->nv; i++) b->md->qvel[i] = bench_seed_nudge(seed, i);
  /* One clock read around the whole run, as MuJoCo's: a read per step would charge Moreau
   * a system call per step. The tallies read the step's results, a few loads. */
  t0 = cpu_seconds();
  for (int s = 0; s < steps; s++) {
    if (mr_step(b->mm, b->md) != 0) break;
    *capped += b->md->nefc > 0 && b->md->solver_status != 0;
    *iters += b->md->solver_iters;
    if (b->md->metrics.natural_map > *natural) *natural = b->md->metrics.natural_map;
  }
  *mr_s = cpu_seconds() - t0;
}

static int bench_seeded(void) {
  printf("seeded: %d runs of each scene from qpos0 with qvel nudged by up to 1e-3, Moreau's %s "
         "and MuJoCo from the same starts (CPU time; ratio = MuJoCo's total / Moreau's)\n",
         SEEDS, mr_solver_name(mr_solver_default()));
  printf("%-18s %6s %8s %8s %7s %7s %10s  %s\n", "scene", "steps", "MuJoCo/s", "Moreau/s", "ratio",
         "iters", "natural", "steps at the cap, per seed");
  int failures = 0;
  for (size_t k = 0; k < sizeof seeded_scenes / sizeof seeded_scenes[0]; k++) {
    const scene *sc = &seeded_scenes[k];
    bench_state b;
    if (bench_state_load(sc->path, sc->dt, &b) != 0) {
      failures++;
      continue;
    }
    int steps = (int)(sc->seconds / b.mm->opt.timestep + 0.5), capped[SEEDS], total = 0;
    double mj = 0, mr = 0, iters = 0, natural = 0;
    int seed0 = getenv("MOREAU_BENCH_SEED_OFFSET") ? atoi(getenv("MOREAU_BENCH_SEED_OFFSET")) : 0;
    for (int seed = 1 + seed0; seed <= SEEDS + seed0; seed++) {
      double a, c;
      capped[seed - 1 - seed0] = 0;
      seeded_run(&b, steps, seed, &a, &c, &capped[seed - 1 - seed0], &iters, &natural);
      mj += a;
      mr += c;
      total += capped[seed - 1 - seed0];
    }
    const char *name = strrchr(sc->path, '/') ? strrchr(sc->path, '/') + 1 : sc->path;
    printf("%-18s %6d %8.0f %8.0f %7.2f %7.1f %10.2e  %d of %d (%.2f%%):", name, steps,
           SEEDS * steps / mj, SEEDS * steps / mr, mj / mr, iters / (SEEDS * steps), natural, total,
           SEEDS * steps, 100.0 * total / (SEEDS * steps));
    for (int i = 0; i < SEEDS; i++) printf(" %d", capped[i]);
    printf("\n");
    fflush(stdout);
    bench_state_free(&b);
  }
  printf("\n");
  return failures;
}

static int bench_long(int rounds) {
  if (!getenv("MOREAU_BENCH_SOLVERS")) {
    static char names[128];
    snprintf(names, sizeof names, "%s,pgs", mr_solver_name(mr_solver_default()));
    setenv("MOREAU_BENCH_SOLVERS", names, 1);
  }
  printf("long horizons: MuJoCo and Moreau's %s from qpos0, the whole horizon in every round "
         "(CPU time, median of %d)\n\n", getenv("MOREAU_BENCH_SOLVERS"), rounds);
  int failures = 0;
  for (size_t i = 0; i < sizeof long_scenes / sizeof long_scenes[0]; i++) {
    const scene *sc = &long_scenes[i];
    double dt = sc->dt > 0 ? sc->dt : 0;
    int steps = dt > 0 ? (int)(sc->seconds / dt + 0.5) : default_steps(sc->path, sc->seconds);
    if (bench_model(sc->path, dt, steps, rounds, INFINITY) != 0) failures++;
  }
  return failures + bench_seeded();
}

int main(int argc, char **argv) {
  bench_args args = {.steps = 0, .rounds = 3};
  bench_parse_args(argc, argv, "bench_contact", 0, &args);
  double seconds[MAX_MODELS];
  if (args.nmodels == 0) {
    args.models[args.nmodels] = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
    seconds[args.nmodels++] = 2.0;
    args.models[args.nmodels] = MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml";
    seconds[args.nmodels++] = 1.0;
  } else {
    for (int i = 0; i < args.nmodels; i++) seconds[i] = 2.0;
  }
  if (!args.long_horizon)
    printf("contacts on: each Moreau solver and MuJoCo from qpos0; one accuracy round, then R "
           "timed rounds (CPU time, median). A solver's accuracy round stops after %.0f/(R+1) s "
           "of stepping; the steps it reached then hold for its timed rounds\n\n",
           SOLVER_BUDGET);
  int failures = 0;
  if (args.seeded) failures = bench_seeded();
  else if (args.long_horizon) failures = bench_long(args.rounds);
  for (int i = 0; i < args.nmodels && !args.long_horizon; i++) {
    int steps = args.steps > 0 ? args.steps : default_steps(args.models[i], seconds[i]);
    if (bench_model(args.models[i], 0, steps, args.rounds, SOLVER_BUDGET / (args.rounds + 1)) != 0)
      failures++;
  }
  printf("ratio = MuJoCo time / Moreau time over the same steps (above 1: Moreau is faster).\n"
         "iters = mean solver iterations per step; solver = share of Moreau's step time in the "
         "solver (d->metrics.solver_time; the rest: collision, rows, Delassus, dynamics).\n"
         "primal, dual, compl (N s m/s), natural: the NCP residuals and natural map of "
         "engine/constraint/metrics.c, max over steps; penetr: max penetration (m); mean pen: "
         "its per-step max, averaged over the steps (m).\n"
         "cap@K = K steps ended at the solver's iteration cap (or failed).\n"
         "DROPPED CONTACTS = MuJoCo's contact or constraint buffer (the file's <size nconmax "
         "njmax>) overflowed: it simulated fewer contacts than there are, and its ratio is "
         "not comparable.\n");
  return failures ? 1 : 0;
}
