/* Model constants from the dynamics at reference configurations (setconst.h).
 *
 * Length ranges follow MuJoCo's recipe (its "Actuator length range" section): from qpos0 at
 * rest, a force along the actuator's moment arms, scaled so that the joint-space
 * acceleration it causes has norm `accel`, pushes the model towards the actuator's shortest
 * (then longest) length, in a simulation without contacts, gravity, passive or actuator
 * forces, whose velocities are damped by exp(-dt / timeconst) each step; after `inttotal`
 * seconds the extreme length over the last `interval` seconds is the bound, and lengths
 * still spreading by more than `tolrange` of the range mean the transmission is not limited.
 * The limits that stop the motion are Moreau's rows, which hold a limit hard where MuJoCo's
 * soft constraints give way a little under the pushing force: Moreau's ranges are the
 * limits' lengths, MuJoCo's slightly wider (the tests measure the difference).
 */
#include "setconst.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/constraint/constraint.h"
#include "engine/core/error.h"
#include "engine/dynamics/dynamics.h"

static const char *mr_label(const char *name) { return name && *name ? name : "(unnamed)"; }

/* The dense moment row of actuator u from the sparse one the transmission computed. */
static void mr_moment_dense(const mr_model *m, const mr_data *d, int u, double *row) {
  memset(row, 0, (size_t)m->nv * sizeof(double));
  int adr = m->actuator_Jrowadr[u];
  for (int k = 0; k < m->actuator_Jrownnz[u]; k++)
    row[m->actuator_Jcolind[adr + k]] = d->actuator_moment[adr + k];
}

/* The position stage, M's factor and the transmissions at d's qpos. */
static void mr_setconst_position(const mr_model *m, mr_data *d) {
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_factor_mass(m, d, 0);
  mr_transmission(m, d);
}

/* ||M^-1 moment|| of actuator u (scratch: 2 nv). */
static double mr_accel_norm(const mr_model *m, const mr_data *d, int u, double *scratch) {
  double *row = scratch, *acc = scratch + m->nv, s = 0;
  mr_moment_dense(m, d, u, row);
  mr_solve_mass(m, d, acc, row, 1);
  for (int i = 0; i < m->nv; i++) s += acc[i] * acc[i];
  return sqrt(s);
}

/* ------------------------------------------------------------------ inverse weights
 *
 * MuJoCo's mj_setM0 constants, which scale its soft constraints' regularizer (the `soft`
 * solver's R = (1 - d)/d w): at qpos0, a body's mean translational and rotational inverse
 * inertia 1/3 tr(J M^-1 J^T) with J the 3 x nv Jacobians of its centre of mass, M^-1's
 * diagonal per dof (averaged over a free joint's three translations and three rotations
 * and over a ball's three), and a tendon's J M^-1 J^T. */

/* x^T M^-1 x summed over the k rows of X (k x nv); Y: k nv scratch. */
static double mr_inverse_norm2(const mr_model *m, const mr_data *d, const double *X, double *Y, int k) {
  mr_solve_mass(m, d, Y, X, k);
  double s = 0;
  for (int i = 0; i < k * m->nv; i++) s += X[i] * Y[i];
  return s;
}

/* scratch: 6 nv. */
static void mr_body_invweight0(mr_model *m, const mr_data *d, int b, double *scratch) {
  const int nv = m->nv;
  double *J = scratch, *Y = scratch + 3 * (size_t)nv;
  for (int rot = 0; rot < 2; rot++) {
    memset(J, 0, 3 * (size_t)nv * sizeof(double));
    mr_jac_point_add(m, d, b, d->xipos + 3 * b, 1, rot ? NULL : J, rot ? J : NULL);
    m->body_invweight0[2 * b + rot] = mr_inverse_norm2(m, d, J, Y, 3) / 3;
  }
}

static void mr_invweight0(mr_model *m, const mr_data *d, double *scratch) {
  const int nv = m->nv;
  for (int b = 0; b < m->nbody; b++) mr_body_invweight0(m, d, b, scratch);
  double *e = scratch, *y = scratch + nv;
  for (int i = 0; i < nv; i++) {
    memset(e, 0, (size_t)nv * sizeof(double));
    e[i] = 1;
    m->dof_invweight0[i] = mr_inverse_norm2(m, d, e, y, 1);
  }
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j], a = m->jnt_dofadr[j];
    int groups = type == MR_JOINT_FREE ? 2 : type == MR_JOINT_BALL ? 1 : 0;
    for (int g = 0; g < groups; g++) {
      double *w = m->dof_invweight0 + a + 3 * g, mean = (w[0] + w[1] + w[2]) / 3;
      w[0] = w[1] = w[2] = mean;
    }
  }
  for (int t = 0; t < m->ntendon; t++) {
    memset(e, 0, (size_t)nv * sizeof(double));
    for (int k = 0, adr = m->tendon_Jrowadr[t]; k < m->tendon_Jrownnz[t]; k++)
      e[m->tendon_Jcolind[adr + k]] = d->ten_J[adr + k];
    m->tendon_invweight0[t] = mr_inverse_norm2(m, d, e, y, 1);
  }
}

static void mr_reference_constants(mr_model *m, mr_data *d, double *scratch) {
  mr_data_reset(m, d);
  mr_setconst_position(m, d);
  mr_invweight0(m, d, scratch);
  for (int t = 0; t < m->ntendon; t++) m->tendon_length0[t] = d->ten_length[t];
  for (int u = 0; u < m->nu; u++) {
    m->actuator_length0[u] = d->actuator_length[u];
    m->actuator_acc0[u] = mr_accel_norm(m, d, u, scratch);
  }
  int unset = 0;
  for (int t = 0; t < m->ntendon; t++) unset |= m->tendon_lengthspring[t] < 0;
  if (!unset) return;
  memcpy(d->qpos, m->qpos_spring, (size_t)m->nq * sizeof(double));
  mr_kinematics(m, d);
  for (int t = 0; t < m->ntendon; t++)
    if (m->tendon_lengthspring[t] < 0) m->tendon_lengthspring[t] = d->ten_length[t];
}

/* ------------------------------------------------------------------ length ranges */

static int mr_is_muscle(const mr_model *m, int u) {
  return m->actuator_gaintype[u] == MR_GAIN_MUSCLE || m->actuator_biastype[u] == MR_BIAS_MUSCLE;
}

/* The joint's or tendon's range, when limited and uselimit asks for it: 1, else 0. */
static int mr_range_from_limit(const mr_model *m, int u, double lr[2]) {
  int id = m->actuator_trnid[2 * u], type = m->actuator_trntype[u];
  const double *range;
  if ((type == MR_TRN_JOINT || type == MR_TRN_JOINTINPARENT) && m->jnt_limited[id])
    range = m->jnt_range + 2 * id;
  else if (type == MR_TRN_TENDON && m->tendon_limited[id])
    range = m->tendon_range + 2 * id;
  else
    return 0;
  double gear = m->actuator_gear[6 * u], a = gear * range[0], b = gear * range[1];
  lr[0] = fmin(a, b);
  lr[1] = fmax(a, b);
  return 1;
}

/* One side (dir -1: shortest, +1: longest) of actuator u's range by the damped pushing
 * simulation: the extreme length over the final interval, and that interval's spread. */
static void mr_push(const mr_model *m, mr_data *d, const mr_spec *s, int u, int dir,
                    double *scratch, double *extreme, double *spread) {
  mr_data_reset(m, d);
  d->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_GRAVITY | MR_DISABLE_PASSIVE |
                    MR_DISABLE_ACTUATION;
  if (s->lengthrange.timestep > 0) d->opt.timestep = s->lengthrange.timestep;
  const double dt = d->opt.timestep;
  const double decay = exp(-dt / fmax(0.01, s->lengthrange.timeconst));
  double lo = INFINITY, hi = -INFINITY;
  long steps = (long)ceil(s->lengthrange.inttotal / dt);
  for (long k = 0; k <= steps; k++) {
    mr_setconst_position(m, d);
    double length = d->actuator_length[u];
    if (k * dt >= s->lengthrange.inttotal - s->lengthrange.interval) {
      lo = fmin(lo, length);
      hi = fmax(hi, length);
    }
    if (k == steps) break;
    double norm = mr_accel_norm(m, d, u, scratch);
    double force = dir * s->lengthrange.accel / fmax(norm, 1e-15);
    if (s->lengthrange.maxforce > 0 && fabs(force) > s->lengthrange.maxforce)
      force = dir * s->lengthrange.maxforce;
    for (int i = 0; i < m->nv; i++) d->qfrc_applied[i] = force * scratch[i];
    if (mr_step(m, d) != 0) break;
    for (int i = 0; i < m->nv; i++) d->qvel[i] *= decay;
  }
  *extreme = dir < 0 ? lo : hi;
  *spread = hi - lo;
}

static int mr_length_range(mr_model *m, mr_data *d, const mr_spec *s, int u, double *scratch,
                           char *err, int errlen) {
  double *lr = m->actuator_lengthrange + 2 * u;
  if (s->lengthrange.useexisting && lr[0] < lr[1]) return 0;
  if (s->lengthrange.uselimit && mr_range_from_limit(m, u, lr)) return 0;
  double spread[2];
  mr_push(m, d, s, u, -1, scratch, &lr[0], &spread[0]);
  mr_push(m, d, s, u, 1, scratch, &lr[1], &spread[1]);
  double range = lr[1] - lr[0];
  int i = spread[0] > spread[1] ? 0 : 1;
  if (isfinite(range) && range > 0 && spread[i] <= s->lengthrange.tolrange * range) return 0;
  const mr_spec_actuator *a = &s->actuators[u];
  return mr_errorf(err, errlen, a->src,
                   "the length range of actuator '%s' does not converge (its length still moves "
                   "by %.3g over the last %gs of %gs, range %.3g to %.3g): limit its joints or "
                   "tendon, give lengthrange, or loosen <compiler><lengthrange>",
                   mr_label(a->name), spread[i], s->lengthrange.interval,
                   s->lengthrange.inttotal, lr[0], lr[1]);
}

static int mr_wants_range(const mr_model *m, const mr_spec *s, int u) {
  switch (s->lengthrange.mode) {
    case 1: case 2: return mr_is_muscle(m, u); /* no user gains here: muscleuser = muscle */
    case 3: return 1;
    default: return 0;
  }
}

/* The length ranges to find, in a data that can run the constraint rows of the limits. */
static int mr_length_ranges(mr_model *m, const mr_spec *s, double *scratch, char *err, int errlen) {
  int rc = 0, wanted = 0;
  for (int u = 0; u < m->nu; u++) wanted += mr_wants_range(m, s, u);
  if (!wanted) return 0;
  mr_data *d = mr_data_create(m);
  if (!d) return mr_errorf(err, errlen, (mr_source){s->file, 0}, "out of memory");
  for (int u = 0; u < m->nu && rc == 0; u++)
    if (mr_wants_range(m, s, u)) rc = mr_length_range(m, d, s, u, scratch, err, errlen);
  mr_data_free(d);
  return rc;
}

int mr_model_setconst(mr_model *m, const mr_spec *s, char *err, int errlen) {
  if (m->nv == 0) return 0;
  mr_data *d = mr_data_create_smooth(m);
  double *scratch = malloc(6 * ((size_t)m->nv + 1) * sizeof(double));
  int rc = 0;
  if (!d || !scratch) {
    rc = mr_errorf(err, errlen, (mr_source){s->file, 0}, "out of memory");
  } else {
    mr_reference_constants(m, d, scratch);
    rc = mr_length_ranges(m, s, scratch, err, errlen);
  }
  free(scratch);
  mr_data_free(d);
  return rc;
}
