/* Tendons, transmissions and actuator dynamics against MuJoCo 2.2, the reference oracle.
 *
 * For models that exercise each feature (fixed tendons coupling joints in one tree and
 * across trees; spatial tendons wrapping spheres and cylinders with and without side sites,
 * through a cylinder, and over a pulley; actuators on joints, tendons, sites and a
 * slider-crank; integrator, filter and muscle activations; muscle, affine and fixed gains;
 * ball and free joints driven through 3-D and 6-D gears, in the child's or the parent's frame;
 * with contacts and constraints off in both engines:
 *   - the compiled constants: tendon_length0, tendon_lengthspring, actuator_length0,
 *     actuator_acc0, the muscles' length ranges;
 *   - at random states (positions, velocities, controls, activations): tendon lengths,
 *     velocities and Jacobians, actuator lengths, moments, velocities and forces, act_dot,
 *     passive and actuator generalized forces, qacc;
 *   - 500 Euler steps under controls that change every step: qpos, qvel and act to 1e-6.
 * MuJoCo's muscle curves (mju_muscleGain, mju_muscleBias, mju_muscleDynamics) are also
 * compared with Moreau's on random arguments.
 *
 * arm26 (MuJoCo's sample) computes its muscles' length ranges by simulation, with soft
 * joint limits that give way under the pushing force where Moreau's hold: its ranges are
 * compared with a tolerance, then MuJoCo's are copied into Moreau's model so that the
 * dynamics are compared on the same muscle parameters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "engine/dynamics/dynamics.h"
#include "moreau.h"
#include "mr_compare.h"
#include "mr_test.h"

enum { NUM_STATES = 20, NUM_STEPS = 500 };
static const double TOL_STATE = 1e-9; /* relative, per quantity, at one state */
static const double TOL_TRAJ = 1e-6;  /* absolute, along trajectories */

/* ------------------------------------------------------------------ helpers */

/* A sparse row of Moreau's (values over a pattern) as a dense row of nv. */
static void dense_row(int nv, const int *colind, const double *val, int nnz, double *out) {
  memset(out, 0, (size_t)nv * sizeof(double));
  for (int k = 0; k < nnz; k++) out[colind[k]] = val[k];
}

/* ------------------------------------------------------------------ muscle curves */

/* The scaled length L of a muscle at tendon length len (MuJoCo's muscle documentation). */
static double scaled_length(double len, const double lr[2], const double prm[2]) {
  return prm[0] + (len - lr[0]) * (prm[1] - prm[0]) / (lr[1] - lr[0]);
}

static void test_muscle_curves(void) {
  double worst = 0;
  int below = 0, below_zero = 0;
  for (int k = 0; k < 20000; k++) {
    double prm[10] = {rng_uniform(0.4, 0.9), rng_uniform(0.95, 1.4), rng_uniform(-2, 50),
                      rng_uniform(10, 300),  rng_uniform(0.3, 0.7),  rng_uniform(1.3, 2),
                      rng_uniform(0.5, 3),   rng_uniform(0.5, 2),    rng_uniform(1.05, 2), 0};
    double lr[2] = {rng_uniform(0.1, 0.5), 0};
    lr[1] = lr[0] + rng_uniform(0.05, 0.5);
    double len = rng_uniform(lr[0] - 0.2, lr[1] + 0.2), vel = rng_uniform(-2, 2);
    double acc0 = rng_uniform(0.01, 10), ctrl = rng_uniform(-0.3, 1.3), act = rng_uniform(-0.3, 1.3);
    double dyn[3] = {rng_uniform(0.005, 0.05), rng_uniform(0.02, 0.1), 0};
    double g = mju_muscleGain(len, vel, lr, acc0, prm), b = mju_muscleBias(len, lr, acc0, prm);
    double a = mju_muscleDynamics(ctrl, act, dyn);
    double mg = mr_muscle_gain(len, vel, lr, acc0, prm);
    /* below lmin MuJoCo 2.2.2's FL turns negative (muscle.c); Moreau's is 0 there */
    if (scaled_length(len, lr, prm) < prm[4]) {
      below++;
      below_zero += mg == 0;
      g = mg;
    }
    double eg = fabs(g - mg) / fmax(1, fabs(g));
    double eb = fabs(b - mr_muscle_bias(len, lr, acc0, prm)) / fmax(1, fabs(b));
    double ea = fabs(a - mr_muscle_dynamics(ctrl, act, dyn)) / fmax(1, fabs(a));
    worst = fmax(worst, fmax(eg, fmax(eb, ea)));
  }
  MR_CHECK_MSG(worst <= 1e-12, "muscle gain/bias/dynamics differ from MuJoCo's by %.3g", worst);
  MR_CHECK_MSG(below > 100 && below_zero == below, "below lmin: %d of %d active forces are 0",
               below_zero, below);
  printf("muscle curves: 20000 random arguments, worst relative difference %.2e (%d below lmin, "
         "where MuJoCo 2.2.2's active force turns negative and Moreau's is 0)\n", worst, below);
}

/* ------------------------------------------------------------------ constants */

typedef struct tendon_case {
  const char *path;
  int copy_lengthrange; /* arm26: MuJoCo's simulated ranges are copied after the comparison */
  double tol_lengthrange; /* relative to the range, for computed ranges */
} tendon_case;

static void compare_constants(const char *name, const mjModel *m, mr_model *mm,
                              const tendon_case *c) {
  MR_CHECK_MSG(mm->ntendon == m->ntendon, "%s: ntendon %d, MuJoCo %d", name, mm->ntendon, m->ntendon);
  MR_CHECK_MSG(mm->nwrap == m->nwrap, "%s: nwrap %d, MuJoCo %d", name, mm->nwrap, m->nwrap);
  MR_CHECK_MSG(mm->nu == m->nu && mm->na == m->na, "%s: nu %d na %d, MuJoCo %d %d", name, mm->nu,
               mm->na, m->nu, m->na);
  if (mm->ntendon != m->ntendon || mm->nu != m->nu || mm->nwrap != m->nwrap) return;
  for (int i = 0; i < m->nwrap; i++)
    MR_CHECK_MSG(mm->wrap_type[i] == m->wrap_type[i] && mm->wrap_objid[i] == m->wrap_objid[i] &&
                     mm->wrap_prm[i] == m->wrap_prm[i],
                 "%s: wrap %d is (%d %d %g), MuJoCo (%d %d %g)", name, i, mm->wrap_type[i],
                 mm->wrap_objid[i], mm->wrap_prm[i], m->wrap_type[i], m->wrap_objid[i], m->wrap_prm[i]);
  double e0 = rel_diff(m->tendon_length0, mm->tendon_length0, m->ntendon);
  double es = rel_diff(m->tendon_lengthspring, mm->tendon_lengthspring, m->ntendon);
  double el = rel_diff(m->actuator_length0, mm->actuator_length0, m->nu);
  double ea = rel_diff(m->actuator_acc0, mm->actuator_acc0, m->nu);
  MR_CHECK_MSG(e0 <= 1e-12 && es <= 1e-12, "%s: tendon_length0 / lengthspring differ by %.3g / %.3g",
               name, e0, es);
  MR_CHECK_MSG(el <= 1e-12 && ea <= 1e-10, "%s: actuator_length0 / acc0 differ by %.3g / %.3g",
               name, el, ea);
  double worst_lr = 0;
  for (int u = 0; u < m->nu; u++) {
    const double *a = m->actuator_lengthrange + 2 * u, *b = mm->actuator_lengthrange + 2 * u;
    double range = fmax(a[1] - a[0], 1e-12), e = max_diff(a, b, 2) / range;
    worst_lr = fmax(worst_lr, e);
    MR_CHECK_MSG(e <= c->tol_lengthrange, "%s: actuator %d length range [%.9g, %.9g], MuJoCo "
                 "[%.9g, %.9g]", name, u, b[0], b[1], a[0], a[1]);
  }
  printf("%-18s constants: length0 %.1e spring %.1e act length0 %.1e acc0 %.1e lengthrange %.1e\n",
         name, e0, es, el, ea, worst_lr);
  if (c->copy_lengthrange) memcpy(mm->actuator_lengthrange, m->actuator_lengthrange, 2 * sizeof(double) * m->nu);
}

/* ------------------------------------------------------------------ states */

/* Random controls in range, activations in their range (or [-0.5, 1.5]). */
static void random_controls(const mjModel *m, mjData *d) {
  for (int u = 0; u < m->nu; u++) {
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[u]) lo = m->actuator_ctrlrange[2 * u], hi = m->actuator_ctrlrange[2 * u + 1];
    d->ctrl[u] = rng_uniform(lo - 0.2 * (hi - lo), hi + 0.2 * (hi - lo)); /* beyond: clamping */
  }
}

static void random_state(const mjModel *m, mjData *d) {
  mj_resetData(m, d);
  for (int j = 0; j < m->njnt; j++) {
    double *q = d->qpos + m->jnt_qposadr[j];
    if (m->jnt_type[j] == mjJNT_FREE) {
      for (int k = 0; k < 3; k++) q[k] += rng_uniform(-0.2, 0.2);
      for (int k = 3; k < 7; k++) q[k] += rng_uniform(-0.3, 0.3);
      mju_normalize4(q + 3);
    } else if (m->jnt_type[j] == mjJNT_HINGE) {
      q[0] += rng_uniform(-0.8, 0.8);
    } else if (m->jnt_type[j] == mjJNT_SLIDE) {
      q[0] += rng_uniform(-0.1, 0.1);
    }
  }
  for (int i = 0; i < m->nv; i++) d->qvel[i] = rng_uniform(-1.5, 1.5);
  random_controls(m, d);
  for (int a = 0; a < m->na; a++) d->act[a] = rng_uniform(-0.5, 1.5);
}

static void copy_state(const mjModel *m, const mjData *d, mr_data *md) {
  memcpy(md->qpos, d->qpos, sizeof(double) * m->nq);
  memcpy(md->qvel, d->qvel, sizeof(double) * m->nv);
  memcpy(md->ctrl, d->ctrl, sizeof(double) * m->nu);
  memcpy(md->act, d->act, sizeof(double) * m->na);
  md->time = d->time;
}

typedef struct state_errors {
  double ten_length, ten_velocity, ten_J, act_length, act_velocity, moment, force, act_dot;
  double passive, actuator, qacc;
} state_errors;

static void compare_rows(const mjModel *m, const mjData *d, const mr_model *mm, const mr_data *md,
                         state_errors *e, double *row) {
  int nv = m->nv;
  for (int t = 0; t < m->ntendon; t++) {
    dense_row(nv, mm->tendon_Jcolind + mm->tendon_Jrowadr[t], md->ten_J + mm->tendon_Jrowadr[t],
              mm->tendon_Jrownnz[t], row);
    e->ten_J = fmax(e->ten_J, rel_diff(d->ten_J + (size_t)t * nv, row, nv));
  }
  for (int u = 0; u < m->nu; u++) {
    dense_row(nv, mm->actuator_Jcolind + mm->actuator_Jrowadr[u],
              md->actuator_moment + mm->actuator_Jrowadr[u], mm->actuator_Jrownnz[u], row);
    e->moment = fmax(e->moment, rel_diff(d->actuator_moment + (size_t)u * nv, row, nv));
  }
}

static void compare_states(const char *name, const mjModel *m, mjData *d, const mr_model *mm,
                           mr_data *md) {
  state_errors e = {0};
  double *row = calloc((size_t)m->nv + 1, sizeof(double));
  MR_REQUIRE(row);
  for (int s = 0; s < NUM_STATES; s++) {
    random_state(m, d);
    copy_state(m, d, md);
    mj_forward(m, d);
    mr_forward(mm, md);
    state_errors one = {0};
    one.ten_length = rel_diff(d->ten_length, md->ten_length, m->ntendon);
    one.ten_velocity = rel_diff(d->ten_velocity, md->ten_velocity, m->ntendon);
    one.act_length = rel_diff(d->actuator_length, md->actuator_length, m->nu);
    one.act_velocity = rel_diff(d->actuator_velocity, md->actuator_velocity, m->nu);
    one.force = rel_diff(d->actuator_force, md->actuator_force, m->nu);
    one.act_dot = rel_diff(d->act_dot, md->act_dot, m->na);
    one.passive = rel_diff(d->qfrc_passive, md->qfrc_passive, m->nv);
    one.actuator = rel_diff(d->qfrc_actuator, md->qfrc_actuator, m->nv);
    one.qacc = rel_diff(d->qacc, md->qacc, m->nv);
    compare_rows(m, d, mm, md, &one, row);
    const double *v = &one.ten_length;
    static const char *const what[] = {"ten_length", "ten_velocity", "ten_J", "actuator_length",
                                       "actuator_velocity", "actuator_moment", "actuator_force",
                                       "act_dot", "qfrc_passive", "qfrc_actuator", "qacc"};
    for (int k = 0; k < 11; k++) {
      MR_CHECK_MSG(v[k] <= TOL_STATE, "%s: state %d: %s differs from MuJoCo's by %.3g (relative)",
                   name, s, what[k], v[k]);
      (&e.ten_length)[k] = fmax((&e.ten_length)[k], v[k]);
    }
  }
  printf("%-18s states: ten_length %.1e ten_J %.1e moment %.1e force %.1e act_dot %.1e "
         "passive %.1e qacc %.1e\n", name, e.ten_length, e.ten_J, e.moment, e.force, e.act_dot,
         e.passive, e.qacc);
  free(row);
}

/* ------------------------------------------------------------------ trajectories */

/* Controls that wander: a random walk inside (and a little beyond) each control range.
 * Muscles get a noisy reflex instead, more activation the longer they are, which keeps
 * them inside their operating range the way joint limits would (constraints are off here):
 * below lmin MuJoCo 2.2.2's active force turns negative and Moreau's does not (muscle.c). */
static void wander_controls(const mjModel *m, mjData *d) {
  for (int u = 0; u < m->nu; u++) {
    if (m->actuator_gaintype[u] == mjGAIN_MUSCLE) {
      double L = scaled_length(d->actuator_length[u], m->actuator_lengthrange + 2 * u,
                               m->actuator_gainprm + mjNGAIN * u);
      d->ctrl[u] = fmin(1.2, fmax(-0.2, 0.5 + 3 * (L - 0.9) + rng_uniform(-0.3, 0.3)));
      continue;
    }
    double lo = -1, hi = 1;
    if (m->actuator_ctrllimited[u]) lo = m->actuator_ctrlrange[2 * u], hi = m->actuator_ctrlrange[2 * u + 1];
    double c = d->ctrl[u] + 0.05 * (hi - lo) * rng_uniform(-1, 1);
    d->ctrl[u] = fmin(hi + 0.1 * (hi - lo), fmax(lo - 0.1 * (hi - lo), c));
  }
}

static void compare_trajectory(const char *name, const mjModel *m, mjData *d, const mr_model *mm,
                               mr_data *md) {
  mj_resetData(m, d);
  mr_data_reset(mm, md);
  random_controls(m, d);
  double worst = 0, worst_act = 0;
  for (int step = 0; step < NUM_STEPS; step++) {
    wander_controls(m, d);
    memcpy(md->ctrl, d->ctrl, sizeof(double) * m->nu);
    mj_step(m, d);
    int rc = mr_step(mm, md);
    double e = fmax(max_diff(d->qpos, md->qpos, m->nq), max_diff(d->qvel, md->qvel, m->nv));
    double ea = max_diff(d->act, md->act, m->na);
    worst = fmax(worst, e);
    worst_act = fmax(worst_act, ea);
    if (rc != 0 || !(e <= TOL_TRAJ) || !(ea <= TOL_TRAJ)) {
      MR_CHECK_MSG(0, "%s: step %d: mr_step %d, qpos/qvel differ by %.3g, act by %.3g", name,
                   step + 1, rc, e, ea);
      return;
    }
  }
  MR_CHECK(worst <= TOL_TRAJ && worst_act <= TOL_TRAJ);
  printf("%-18s trajectory (%d steps): qpos/qvel %.1e act %.1e\n", name, NUM_STEPS, worst, worst_act);
}

/* ------------------------------------------------------------------ driver */

static void run_case(const tendon_case *c) {
  const char *name = strrchr(c->path, '/') ? strrchr(c->path, '/') + 1 : c->path;
  char err[1024] = "";
  mjModel *m = mj_loadXML(c->path, NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s: MuJoCo cannot load it: %s", name, err);
  if (!m) return;
  mr_model *mm = mr_model_load(c->path, NULL, err, sizeof err);
  MR_CHECK_MSG(mm != NULL, "%s: Moreau cannot load it: %s", name, err);
  if (!mm) {
    mj_deleteModel(m);
    return;
  }
  compare_constants(name, m, mm, c);
  if (mm->nq == m->nq && mm->nv == m->nv && mm->nu == m->nu && mm->na == m->na &&
      mm->ntendon == m->ntendon) {
    mjData *d = mj_makeData(m);
    mr_data *md = mr_data_create(mm);
    MR_REQUIRE(d && md);
    m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT;
    m->opt.integrator = mjINT_EULER;
    md->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT;
    md->opt.integrator = MR_INT_EULER;
    md->opt.timestep = m->opt.timestep;
    compare_states(name, m, d, mm, md);
    compare_trajectory(name, m, d, mm, md);
    mr_data_free(md);
    mj_deleteData(d);
  }
  mr_model_free(mm);
  mj_deleteModel(m);
}

int main(void) {
  test_muscle_curves();
  static const tendon_case cases[] = {
      {MOREAU_SOURCE_DIR "/models/tendon_coupled.xml", 0, 1e-12},
      {MOREAU_SOURCE_DIR "/models/tendon_wrap.xml", 0, 1e-12},
      {MOREAU_SOURCE_DIR "/models/site_thrusters.xml", 0, 1e-12},
      {MOREAU_SOURCE_DIR "/models/joint_gears.xml", 0, 1e-12},
      {MUJOCO_MODEL_DIR "/slider_crank/slider_crank.xml", 0, 1e-12},
      {MUJOCO_MODEL_DIR "/tendon_arm/arm26.xml", 1, 0.01},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
  MR_TEST_END();
}
