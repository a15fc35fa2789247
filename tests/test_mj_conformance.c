/* Conformance against MuJoCo 2.2, the reference oracle, on smooth dynamics.
 *
 * With contacts and constraints disabled in both engines the step is pure rigid-body
 * dynamics (CRBA, RNEA, passive and actuator forces, semi-implicit Euler with implicit
 * joint damping), which Moreau promises to reproduce to round-off (DESIGN.md sec. 2, 7).
 * For each model this test checks:
 *   - the sizes `moreau info` reports (nq, nv, nbody, njnt, ngeom, nu) and qpos0;
 *   - at random states, the dense mass matrix, the bias forces and qacc, relative to the
 *     largest entry of MuJoCo's value;
 *   - 500 Euler steps from qpos0 and from keyframe 0 where there is one, and 200 from a
 *     random state with velocities and controls.
 * The models are four MuJoCo samples and every .xml file in models/ (which must therefore
 * stay loadable by MuJoCo 2.2). One summary line per model shows the largest errors, so
 * drift is visible even when the checks pass. The RNG is seeded with a constant: every
 * run sees the same states.
 */
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "moreau.h"
#include "mr_compare.h"
#include "mr_test.h"

/* From a random state with random velocities the humanoids are chaotic: round-off grows
 * by about 2x every 25 steps (measured: 1e-14 at step 1, 1e-7 at step 450), so trajectories
 * from a random start are compared over fewer steps than those from rest. */
enum { NUM_STATES = 10, NUM_STEPS = 500, NUM_STEPS_RANDOM = 200 };

/* Mass matrix and bias forces are sums of products of the same numbers in both engines:
 * they must agree to round-off. qacc = M^-1 f amplifies round-off by the condition number
 * of M (up to ~1e4 on the humanoids, whose armature is .01 next to torso masses of ~8 kg),
 * hence its looser bound. */
static const double TOL_MASS = 1e-9;
static const double TOL_BIAS = 1e-9;
static const double TOL_QACC = 1e-8;
static const double TOL_TRAJ = 1e-6;

/* ------------------------------------------------------------------ the models */

typedef struct conformance_case {
  char path[1024];
  /* Actuation disabled in both engines (and nu not compared): see arm26 in main. */
  int skip_actuation;
} conformance_case;

typedef struct conformance_result {
  double mass, bias, qacc; /* worst relative errors over the random states */
  double traj0, trajrand, trajkey; /* worst absolute qpos/qvel errors along trajectories */
} conformance_result;

static void configure(mjModel *m, mr_data *d, int skip_actuation) {
  m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
  d->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT;
  if (skip_actuation) {
    m->opt.disableflags |= mjDSBL_ACTUATION;
    d->opt.disable |= MR_DISABLE_ACTUATION;
  }
  m->opt.integrator = mjINT_EULER;
  d->opt.integrator = MR_INT_EULER;
  d->opt.timestep = m->opt.timestep;
}

static void check_sizes(const char *name, const mjModel *m, const mr_model *mm, int skip_act) {
  MR_CHECK_MSG(mm->nq == m->nq, "%s: nq %d, MuJoCo %d", name, mm->nq, m->nq);
  MR_CHECK_MSG(mm->nv == m->nv, "%s: nv %d, MuJoCo %d", name, mm->nv, m->nv);
  MR_CHECK_MSG(mm->nbody == m->nbody, "%s: nbody %d, MuJoCo %d", name, mm->nbody, m->nbody);
  MR_CHECK_MSG(mm->njnt == m->njnt, "%s: njnt %d, MuJoCo %d", name, mm->njnt, m->njnt);
  MR_CHECK_MSG(mm->ngeom == m->ngeom, "%s: ngeom %d, MuJoCo %d", name, mm->ngeom, m->ngeom);
  MR_CHECK_MSG(mm->nkey == m->nkey, "%s: nkey %d, MuJoCo %d", name, mm->nkey, m->nkey);
  if (!skip_act) MR_CHECK_MSG(mm->nu == m->nu, "%s: nu %d, MuJoCo %d", name, mm->nu, m->nu);
  MR_CHECK_MSG(fabs(mm->opt.timestep - m->opt.timestep) <= 1e-15, "%s: timestep %g, MuJoCo %g",
               name, mm->opt.timestep, m->opt.timestep);
  if (mm->nq == m->nq) {
    double e = max_diff(m->qpos0, mm->qpos0, m->nq);
    MR_CHECK_MSG(e <= 1e-12, "%s: qpos0 differs from MuJoCo's by %.3g", name, e);
  }
}

static void perturb_quat(double *q, const double *q0) {
  for (int k = 0; k < 4; k++) q[k] = q0[k] + rng_uniform(-0.4, 0.4);
  mju_normalize4(q);
}

/* qpos0 plus a perturbation, quaternions renormalized; random qvel; random ctrl in range.
 * The state is written into MuJoCo's data; the caller copies it to Moreau's. */
static void random_state(const mjModel *m, mjData *d) {
  for (int j = 0; j < m->njnt; j++) {
    int a = m->jnt_qposadr[j];
    double *q = d->qpos + a;
    const double *q0 = m->qpos0 + a;
    switch (m->jnt_type[j]) {
    case mjJNT_FREE:
      for (int k = 0; k < 3; k++) q[k] = q0[k] + rng_uniform(-0.2, 0.2);
      perturb_quat(q + 3, q0 + 3);
      break;
    case mjJNT_BALL: perturb_quat(q, q0); break;
    case mjJNT_SLIDE: q[0] = q0[0] + rng_uniform(-0.1, 0.1); break;
    default: q[0] = q0[0] + rng_uniform(-0.6, 0.6); break;
    }
  }
  for (int i = 0; i < m->nv; i++) d->qvel[i] = rng_uniform(-1, 1);
  for (int i = 0; i < m->nu; i++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[i]) lo = m->actuator_ctrlrange[2 * i], hi = m->actuator_ctrlrange[2 * i + 1];
    d->ctrl[i] = rng_uniform(lo, hi);
  }
}

static void copy_state(const mjModel *m, const mjData *d, const mr_model *mm, mr_data *md,
                       int same_nu) {
  memcpy(md->qpos, d->qpos, sizeof(double) * m->nq);
  memcpy(md->qvel, d->qvel, sizeof(double) * m->nv);
  if (same_nu) memcpy(md->ctrl, d->ctrl, sizeof(double) * m->nu);
  else memset(md->ctrl, 0, sizeof(double) * mm->nu);
  md->time = d->time;
}

static void compare_random_states(const char *name, const mjModel *m, mjData *d,
                                  const mr_model *mm, mr_data *md, int same_nu,
                                  conformance_result *r) {
  int nv = m->nv;
  double *dense_mj = calloc((size_t)nv * nv, sizeof(double));
  double *dense_mr = calloc((size_t)nv * nv, sizeof(double));
  MR_REQUIRE(dense_mj && dense_mr);
  for (int s = 0; s < NUM_STATES; s++) {
    mj_resetData(m, d);
    random_state(m, d);
    copy_state(m, d, mm, md, same_nu);
    mj_forward(m, d);
    mr_forward(mm, md);
    mj_fullM(m, dense_mj, d->qM);
    mr_dense_mass(mm, md, dense_mr);
    double em = rel_diff(dense_mj, dense_mr, nv * nv);
    double eb = rel_diff(d->qfrc_bias, md->qfrc_bias, nv);
    double ea = rel_diff(d->qacc, md->qacc, nv);
    MR_CHECK_MSG(em <= TOL_MASS, "%s: state %d: mass matrix relative error %.3g", name, s, em);
    MR_CHECK_MSG(eb <= TOL_BIAS, "%s: state %d: qfrc_bias relative error %.3g", name, s, eb);
    MR_CHECK_MSG(ea <= TOL_QACC, "%s: state %d: qacc relative error %.3g", name, s, ea);
    r->mass = fmax(r->mass, em);
    r->bias = fmax(r->bias, eb);
    r->qacc = fmax(r->qacc, ea);
  }
  free(dense_mj);
  free(dense_mr);
}

/* Where a trajectory starts. */
enum { START_QPOS0 = -1, START_RANDOM = -2 }; /* else: a keyframe index */

static const char *start_name(int start) {
  return start == START_QPOS0 ? "from qpos0" : start == START_RANDOM ? "from a random state"
                                                                       : "from keyframe 0";
}

/* Steps both engines from the same start (each engine's own qpos0 or keyframe, so the
 * parsed values are tested too; or one random state with velocities and controls, which
 * exercises what a start from rest may not: rotation of free bodies, Coriolis terms,
 * damping) and returns the largest qpos/qvel difference seen along the way. */
static double compare_trajectory(const char *name, const mjModel *m, mjData *d,
                                 const mr_model *mm, mr_data *md, int same_nu, int start) {
  if (start == START_QPOS0) {
    mj_resetData(m, d);
    mr_data_reset(mm, md);
  } else if (start == START_RANDOM) {
    mj_resetData(m, d);
    random_state(m, d);
    mr_data_reset(mm, md);
    copy_state(m, d, mm, md, same_nu);
  } else {
    mj_resetDataKeyframe(m, d, start);
    MR_CHECK_MSG(mr_data_reset_keyframe(mm, md, start) == 0, "%s: keyframe %d", name, start);
  }
  double worst = 0;
  int steps = start == START_RANDOM ? NUM_STEPS_RANDOM : NUM_STEPS;
  for (int step = 0; step < steps; step++) {
    mj_step(m, d);
    int rc = mr_step(mm, md);
    double e = fmax(max_diff(d->qpos, md->qpos, m->nq), max_diff(d->qvel, md->qvel, m->nv));
    worst = fmax(worst, e);
    if (rc != 0 || !(e <= TOL_TRAJ)) {
      MR_CHECK_MSG(0, "%s: %s: step %d: mr_step %d, qpos/qvel differ by %.3g", name,
                   start_name(start), step + 1, rc, e);
      return worst;
    }
  }
  MR_CHECK(worst <= TOL_TRAJ);
  return worst;
}

static void run_case(const conformance_case *c) {
  const char *name = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
  char err[1024] = "";
  mjModel *m = mj_loadXML(c->path, NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s: MuJoCo cannot load it: %s", name, err);
  if (!m) return;
  err[0] = 0;
  mr_model *mm = mr_model_load(c->path, NULL, err, sizeof err);
  MR_CHECK_MSG(mm != NULL, "%s: Moreau cannot load it: %s", name, err);
  if (!mm) {
    mj_deleteModel(m);
    return;
  }
  check_sizes(name, m, mm, c->skip_actuation);
  if (mm->nq != m->nq || mm->nv != m->nv) { /* state layouts differ: nothing to compare */
    printf("%-22s sizes differ, dynamics not compared\n", name);
    mr_model_free(mm);
    mj_deleteModel(m);
    return;
  }

  mjData *d = mj_makeData(m);
  mr_data *md = mr_data_create(mm);
  MR_REQUIRE(d && md);
  configure(m, md, c->skip_actuation);
  int same_nu = !c->skip_actuation && mm->nu == m->nu;

  conformance_result r = {0};
  compare_random_states(name, m, d, mm, md, same_nu, &r);
  r.traj0 = compare_trajectory(name, m, d, mm, md, same_nu, START_QPOS0);
  r.trajrand = compare_trajectory(name, m, d, mm, md, same_nu, START_RANDOM);
  char key_text[32] = "   -    ";
  if (m->nkey > 0 && mm->nkey > 0) {
    r.trajkey = compare_trajectory(name, m, d, mm, md, same_nu, 0);
    snprintf(key_text, sizeof key_text, "%.2e", r.trajkey);
  }

  printf("%-20s nv %3d  M %.1e  bias %.1e  qacc %.1e  traj: qpos0 %.1e  random(200) %.1e  key0 %s%s\n",
         name, m->nv, r.mass, r.bias, r.qacc, r.traj0, r.trajrand, key_text,
         c->skip_actuation ? "  (actuation off)" : "");
  fflush(stdout);

  mr_data_free(md);
  mj_deleteData(d);
  mr_model_free(mm);
  mj_deleteModel(m);
}

static int add_case(conformance_case *cases, int n, const char *path, int skip_actuation) {
  snprintf(cases[n].path, sizeof cases[n].path, "%s", path);
  cases[n].skip_actuation = skip_actuation;
  return n + 1;
}

int main(void) {
  enum { MAX_CASES = 64 };
  static conformance_case cases[MAX_CASES];
  int n = 0;
  n = add_case(cases, n, MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 0);
  n = add_case(cases, n, MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", 0);
  /* arm26: six muscles on wrapping spatial tendons, whose length ranges MuJoCo finds by a
   * simulation with soft joint limits and Moreau with hard ones (0.1% apart): with the
   * muscles' random controls that is a 0.1% force difference, so actuation is off here;
   * test_mj_tendon compares the muscles on MuJoCo's ranges. */
  n = add_case(cases, n, MUJOCO_MODEL_DIR "/tendon_arm/arm26.xml", 1);
  /* slider_crank: position servos through slider-crank transmissions */
  n = add_case(cases, n, MUJOCO_MODEL_DIR "/slider_crank/slider_crank.xml", 0);

  glob_t g;
  if (glob(MOREAU_SOURCE_DIR "/models/*.xml", 0, NULL, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc && n < MAX_CASES; i++) n = add_case(cases, n, g.gl_pathv[i], 0);
    globfree(&g);
  }
  MR_CHECK_MSG(n >= 8, "expected the 4 MuJoCo samples and at least 4 models/*.xml, found %d", n);

  for (int i = 0; i < n; i++) run_case(&cases[i]);
  MR_TEST_END();
}
