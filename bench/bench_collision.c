/* Collision speed: Moreau's mr_collide next to MuJoCo on the same scenes.
 *
 * MuJoCo simulates the model with its own contacts and solver for N steps; its qpos after
 * every step is stored, and Moreau runs kinematics and collision on each stored pose, so
 * the two engines see exactly the same scenes (Moreau has no contact solver yet and could
 * not produce a pile of its own). Per step the table reports:
 *   MuJoCo step     the full mj_step (collision, constraints, solver, integration);
 *   MuJoCo coll     MuJoCo's own collision stage (its mjTIMER_POS_COLLISION timer);
 *   Moreau coll     mr_collide alone (broadphase, filters, narrowphase, manifolds,
 *                   assembly, persistence), after an untimed mr_kinematics;
 *   contacts        mean contacts per step of each engine.
 * Rounds alternate the engines (MuJoCo's N steps, then Moreau's N collisions) so both see
 * the same machine state; the median round is reported.
 *
 * Usage: bench_collision [--steps N] [--rounds R] [MODEL.xml ...]
 * Default models: MuJoCo's humanoid and humanoid100 samples and models/pile200.xml, each
 * over 2 s of simulated time unless --steps is given.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench_common.h"
#include "mujoco_dropped.h"
#include "moreau.h"

/* MuJoCo's stage timers read this clock. */
static mjtNum mujoco_clock(void) { return (mjtNum)now_seconds(); }

typedef struct bench_row {
  const char *name;
  int ngeom, steps;
  double mj_step_us, mj_coll_us, mr_coll_us; /* median per step */
  double mj_contacts, mr_contacts;           /* mean per step */
  int mr_max_contacts, mr_capacity;
  long mr_dropped;
} bench_row;

typedef struct bench_models {
  mjModel *m;
  mjData *d;
  mr_model *mm;
  mr_data *md;
  double *traj; /* steps x nq: MuJoCo's qpos after every step */
} bench_models;

static void bench_models_free(bench_models *b) {
  free(b->traj);
  mr_data_free(b->md);
  mr_model_free(b->mm);
  mj_deleteData(b->d);
  mj_deleteModel(b->m);
}

static int bench_models_load(const char *path, int steps, bench_models *b) {
  char err[1024] = "";
  memset(b, 0, sizeof *b);
  b->m = mj_loadXML(path, NULL, err, sizeof err);
  if (!b->m) {
    fprintf(stderr, "bench_collision: MuJoCo cannot load %s: %s\n", path, err);
    return -1;
  }
  mr_load_options opt = {0};
  opt.quiet = 1;
  b->mm = mr_model_load(path, &opt, err, sizeof err);
  if (!b->mm || b->mm->nq != b->m->nq || b->mm->ngeom != b->m->ngeom) {
    fprintf(stderr, "bench_collision: Moreau cannot load %s: %s\n", path, b->mm ? "sizes differ" : err);
    bench_models_free(b);
    return -1;
  }
  b->d = mj_makeData(b->m);
  b->md = mr_data_create(b->mm);
  b->traj = malloc(sizeof(double) * (size_t)steps * (size_t)b->m->nq);
  if (!b->d || !b->md || !b->traj) {
    bench_models_free(b);
    return -1;
  }
  return 0;
}

/* One MuJoCo round: N steps from the initial state, storing the poses. Returns the time
 * per step; *coll gets MuJoCo's collision time per step, *contacts the mean count. */
static double mujoco_round(bench_models *b, int steps, double *coll, double *contacts) {
  mj_resetData(b->m, b->d);
  double ncon = 0, t0 = now_seconds();
  for (int s = 0; s < steps; s++) {
    mj_step(b->m, b->d);
    ncon += b->d->ncon;
    memcpy(b->traj + (size_t)s * b->m->nq, b->d->qpos, sizeof(double) * b->m->nq);
  }
  double t = now_seconds() - t0;
  if (bench_mujoco_dropped(b->d))
    fprintf(stderr, "bench_collision: MuJoCo dropped contacts (raise nconmax/njmax in the "
                    "file's <size>): its contacts and times are not comparable\n");
  *coll = b->d->timer[mjTIMER_POS_COLLISION].duration / b->d->timer[mjTIMER_POS_COLLISION].number;
  *contacts = ncon / steps;
  return t / steps;
}

/* One Moreau round: collision on every stored pose; only mr_collide is timed. */
static double moreau_round(bench_models *b, int steps, bench_row *row) {
  mr_data_reset(b->mm, b->md);
  double total = 0, ncon = 0;
  row->mr_max_contacts = 0;
  row->mr_dropped = 0;
  for (int s = 0; s < steps; s++) {
    memcpy(b->md->qpos, b->traj + (size_t)s * b->m->nq, sizeof(double) * b->m->nq);
    mr_kinematics(b->mm, b->md);
    double t0 = now_seconds();
    mr_collide(b->mm, b->md);
    total += now_seconds() - t0;
    ncon += b->md->ncon;
    if (b->md->ncon > row->mr_max_contacts) row->mr_max_contacts = b->md->ncon;
    row->mr_dropped += b->md->ncon_dropped;
  }
  row->mr_contacts = ncon / steps;
  return total / steps;
}

static int bench_model(const char *path, int steps, int rounds, bench_row *row) {
  bench_models b;
  if (steps <= 0) {
    /* 2 s of simulated time by default: read the timestep first */
    char err[1024];
    mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
    steps = m ? (int)(2.0 / m->opt.timestep + 0.5) : 1;
    mj_deleteModel(m);
  }
  if (bench_models_load(path, steps, &b)) return -1;
  memset(row, 0, sizeof *row);
  row->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  row->ngeom = b.m->ngeom;
  row->steps = steps;
  row->mr_capacity = b.md->maxcon;
  double mj_step[MAX_ROUNDS], mj_coll[MAX_ROUNDS], mr_coll[MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    mj_step[r] = mujoco_round(&b, steps, &mj_coll[r], &row->mj_contacts);
    mr_coll[r] = moreau_round(&b, steps, row);
  }
  row->mj_step_us = 1e6 * median(mj_step, rounds);
  row->mj_coll_us = 1e6 * median(mj_coll, rounds);
  row->mr_coll_us = 1e6 * median(mr_coll, rounds);
  bench_models_free(&b);
  return 0;
}

int main(int argc, char **argv) {
  bench_args args = {.steps = 0, .rounds = 3};
  bench_parse_args(argc, argv, "bench_collision", 0, &args);
  if (args.nmodels == 0) {
    args.models[args.nmodels++] = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
    args.models[args.nmodels++] = MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml";
    args.models[args.nmodels++] = MOREAU_SOURCE_DIR "/models/pile200.xml";
  }
  int steps = args.steps, rounds = args.rounds, nmodels = args.nmodels;
  const char **models = args.models;
  mjcb_time = mujoco_clock;
  printf("collision on MuJoCo's trajectory, %d rounds interleaved, median microseconds per step\n\n",
         rounds);
  printf("%-16s %5s %6s %12s %12s %12s %8s %9s %9s %8s\n", "model", "ngeom", "steps", "MuJoCo step",
         "MuJoCo coll", "Moreau coll", "coll x", "MuJoCo nc", "Moreau nc", "max/cap");
  int failures = 0;
  for (int i = 0; i < nmodels; i++) {
    bench_row row;
    if (bench_model(models[i], steps, rounds, &row) != 0) {
      failures++;
      continue;
    }
    char cap[32];
    snprintf(cap, sizeof cap, "%d/%d", row.mr_max_contacts, row.mr_capacity);
    printf("%-16s %5d %6d %12.1f %12.1f %12.1f %8.2f %9.1f %9.1f %8s\n", row.name, row.ngeom,
           row.steps, row.mj_step_us, row.mj_coll_us, row.mr_coll_us, row.mj_coll_us / row.mr_coll_us,
           row.mj_contacts, row.mr_contacts, cap);
    if (row.mr_dropped) printf("  (Moreau dropped %ld contacts for capacity)\n", row.mr_dropped);
    fflush(stdout);
  }
  printf("\ncoll x = MuJoCo collision / Moreau collision (above 1: Moreau's is faster). nc = mean "
         "contacts per step. max/cap = Moreau's largest count / its capacity.\n");
  return failures ? 1 : 0;
}
