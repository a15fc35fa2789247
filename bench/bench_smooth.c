/* Smooth-dynamics speed: Moreau next to MuJoCo, stepping the same models without contact.
 *
 * Contacts and constraints are disabled in both engines, so a step is kinematics, CRBA,
 * factorization, RNEA, passive and actuator forces and a semi-implicit Euler update: the
 * part of the pipeline that has to be as fast as MuJoCo's before anything else matters.
 * The engines alternate (R rounds of N steps each, interleaved) so that both see the same
 * machine state, thermal throttling and neighbours; the median round is reported.
 *
 * Usage: bench_smooth [--steps N] [--rounds R] [MODEL.xml ...]
 * Default models: MuJoCo's humanoid and humanoid100 samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "bench_common.h"
#include "moreau.h"

/* splitmix64 with a fixed seed: every run steps the same controls */
static double rng_uniform(unsigned long long *state, double lo, double hi) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct bench_row {
  const char *name;
  int nv;
  double mj_rate, mr_rate; /* median steps per second */
  double state_diff;       /* max |qpos|,|qvel| difference after the first round */
} bench_row;

static void set_initial_state(const mjModel *m, mjData *d, const mr_model *mm, mr_data *md,
                              const double *ctrl) {
  mj_resetData(m, d);
  mr_data_reset(mm, md);
  memcpy(md->qpos, d->qpos, sizeof(double) * m->nq); /* one state for both engines */
  for (int i = 0; i < m->nu; i++) d->ctrl[i] = ctrl[i];
  if (mm->nu == m->nu)
    for (int i = 0; i < m->nu; i++) md->ctrl[i] = ctrl[i];
}

static double state_difference(const mjModel *m, const mjData *d, const mr_data *md) {
  double e = 0;
  for (int i = 0; i < m->nq; i++) e = fmax(e, fabs(d->qpos[i] - md->qpos[i]));
  for (int i = 0; i < m->nv; i++) e = fmax(e, fabs(d->qvel[i] - md->qvel[i]));
  return e;
}

static int bench_model(const char *path, int steps, int rounds, bench_row *row) {
  char err[1024] = "";
  row->name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "bench_smooth: MuJoCo cannot load %s: %s\n", path, err);
    return -1;
  }
  mr_model *mm = mr_model_load(path, NULL, err, sizeof err);
  if (!mm || mm->nq != m->nq || mm->nv != m->nv) {
    fprintf(stderr, "bench_smooth: Moreau cannot load %s: %s\n", path, mm ? "sizes differ" : err);
    mr_model_free(mm);
    mj_deleteModel(m);
    return -1;
  }
  mjData *d = mj_makeData(m);
  mr_data *md = mr_data_create(mm);
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
  m->opt.integrator = mjINT_EULER;
  md->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT;
  md->opt.integrator = MR_INT_EULER;
  md->opt.timestep = m->opt.timestep;

  /* small controls, a tenth of each range, fixed for the whole run */
  unsigned long long seed = 12345;
  double *ctrl = calloc((size_t)m->nu + 1, sizeof(double));
  for (int i = 0; i < m->nu; i++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[i]) lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
    ctrl[i] = 0.5 * (lo + hi) + 0.1 * rng_uniform(&seed, -0.5, 0.5) * (hi - lo);
  }

  double mj_rates[MAX_ROUNDS], mr_rates[MAX_ROUNDS];
  row->nv = m->nv;
  row->state_diff = 0;
  for (int r = 0; r < rounds; r++) {
    set_initial_state(m, d, mm, md, ctrl);
    double t0 = now_seconds();
    for (int s = 0; s < steps; s++) mj_step(m, d);
    double t1 = now_seconds();
    for (int s = 0; s < steps; s++) mr_step(mm, md);
    double t2 = now_seconds();
    mj_rates[r] = steps / (t1 - t0);
    mr_rates[r] = steps / (t2 - t1);
    if (r == 0) row->state_diff = state_difference(m, d, md);
  }
  row->mj_rate = median(mj_rates, rounds);
  row->mr_rate = median(mr_rates, rounds);

  free(ctrl);
  mr_data_free(md);
  mj_deleteData(d);
  mr_model_free(mm);
  mj_deleteModel(m);
  return 0;
}

int main(int argc, char **argv) {
  bench_args args = {.steps = 2000, .rounds = 5};
  bench_parse_args(argc, argv, "bench_smooth", 1, &args);
  if (args.nmodels == 0) {
    args.models[args.nmodels++] = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
    args.models[args.nmodels++] = MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml";
  }
  int steps = args.steps, rounds = args.rounds, nmodels = args.nmodels;
  const char **models = args.models;

  printf("smooth dynamics (no contact, no constraints), Euler, %d rounds x %d steps per engine, "
         "interleaved; median steps/s\n\n", rounds, steps);
  printf("%-18s %5s %14s %14s %8s %12s\n", "model", "nv", "MuJoCo st/s", "Moreau st/s",
         "ratio", "state diff");
  int failures = 0;
  for (int i = 0; i < nmodels; i++) {
    bench_row row;
    if (bench_model(models[i], steps, rounds, &row) != 0) {
      failures++;
      continue;
    }
    printf("%-18s %5d %14.0f %14.0f %8.3f %12.2e\n", row.name, row.nv, row.mj_rate, row.mr_rate,
           row.mr_rate / row.mj_rate, row.state_diff);
    fflush(stdout);
  }
  printf("\nratio = Moreau / MuJoCo (above 1: Moreau is faster). state diff = largest |qpos|, "
         "|qvel| difference after the first round (the engines must do the same work).\n");
  return failures ? 1 : 0;
}
