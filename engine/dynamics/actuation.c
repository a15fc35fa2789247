/* Actuators (MuJoCo's mj_transmission and mj_fwdActuation): transmission, activation
 * dynamics, force generation.
 *
 * Transmission: each actuator has a length l(q) and moment arms dl/dq over the dofs of its
 * pattern (model actuator_J*): a hinge or slide joint gives gear q and gear on its dof; a
 * ball joint a torque about the 3-D gear axis (in the child frame, or the parent's for
 * jointinparent) and the length gear . (rotation vector of the joint); a free joint the
 * 6-D gear (force in the world frame, torque in the child's or the parent's) and length 0;
 * a tendon gear times its length and Jacobian; a site, length 0 and the moment of the 6-D
 * gear applied as a force and torque in the site frame; a slider-crank, the slider's
 * position along its axis where the rod reaches the crank pin. velocity = moment . qvel.
 *
 * Activation: an actuator with dynamics owns act[u - (nu - na)] (stateful actuators come
 * last, as in MuJoCo 2.2); act_dot is ctrl (integrator), (ctrl - act) / dynprm[0] (filter)
 * or the muscle's, and mr_activation_advance integrates it after the step, clamping to
 * actrange where actlimited.
 *
 * Force: gain * input + bias, input = act when there is one, else ctrl; gain fixed, affine
 * in length and velocity, or the muscle's; bias none, affine or the muscle's. The control
 * is clamped to ctrlrange on the fly (d->ctrl, the user's input, is left as written) and the
 * force to forcerange. qfrc_actuator = moment^T force.
 */
#include <math.h>
#include <string.h>

#include "dynamics.h"
#include "engine/core/arena.h"
#include "engine/core/spatial.h"

static double mr_clamp(double x, const double range[2]) {
  return x < range[0] ? range[0] : (x > range[1] ? range[1] : x);
}

/* ------------------------------------------------------------------ transmission */

/* Site transmission: the gear's force (first 3) and torque (last 3), in the site frame,
 * applied at the site; length 0. */
static void mr_site_moment(const mr_model *m, const mr_data *d, int u, double *row) {
  int s = m->actuator_trnid[2 * u], b = m->site_bodyid[s];
  const double *gear = m->actuator_gear + 6 * u, *R = d->site_xmat + 9 * s;
  double f[3], tau[3];
  mr_mulmat3(f, R, gear);
  mr_mulmat3(tau, R, gear + 3);
  if (b <= 0) return;
  double arm[3], armxf[3];
  mr_sub3(arm, d->site_xpos + 3 * s, d->subtree_com + 3 * m->body_rootid[b]);
  mr_cross3(armxf, arm, f);
  for (int i = mr_chain_last_dof(m, b); i >= 0; i = m->dof_parentid[i]) {
    const double *cd = d->cdof + 6 * i;
    row[i] += mr_dot3(f, cd + 3) + mr_dot3(cd, armxf) + mr_dot3(tau, cd);
  }
}

/* Slider-crank: slider pin s moving along the slider site's z axis a, crank pin c, rod of
 * length r. The slider's position x along a with |c - (s + x a)| = r is
 * x = a.v - sqrt(det), v = c - s, det = (a.v)^2 - v.v + r^2; its differential
 * dx = (1 - a.v / sqrt(det)) (a . dv + v . da) + v . dv / sqrt(det), with da = w x a from
 * the slider body's rotation. When the rod is too short to reach (det <= 0, a "broken"
 * crank) x = a.v and dx its differential, as in MuJoCo. Returns x; adds dx/dq into row. */
static double mr_crank_moment(const mr_model *m, const mr_data *d, int u, double *row) {
  int cs = m->actuator_trnid[2 * u], ss = m->actuator_trnid[2 * u + 1];
  const double *c = d->site_xpos + 3 * cs, *s = d->site_xpos + 3 * ss, *R = d->site_xmat + 9 * ss;
  double a[3] = {R[2], R[5], R[8]}, v[3], axv[3];
  double rod = m->actuator_cranklength[u];
  mr_sub3(v, c, s);
  double av = mr_dot3(a, v), det = av * av - mr_dot3(v, v) + rod * rod;
  double sq = det > 0 ? sqrt(det) : 0, inv = det > 0 ? 1 / sq : 0;
  double x = av - sq, k = 1 - av * inv;
  /* dv terms: (k a + v / sqrt(det)) . (J_c - J_s); da term: k (a x v) . w_slider */
  double dir[3];
  for (int i = 0; i < 3; i++) dir[i] = k * a[i] + v[i] * inv;
  mr_point_row_add(m, d, m->site_bodyid[cs], c, dir, 1, row);
  mr_point_row_add(m, d, m->site_bodyid[ss], s, dir, -1, row);
  int b = m->site_bodyid[ss];
  mr_cross3(axv, a, v);
  if (b > 0)
    for (int i = mr_chain_last_dof(m, b); i >= 0; i = m->dof_parentid[i])
      row[i] += k * mr_dot3(axv, d->cdof + 6 * i);
  return x;
}

/* Ball and free joints: the gear's torque axis, in the child frame where the dofs' angular
 * velocities are, from the parent's for jointinparent (the joint's rotation R: R^T g). */
static double mr_multidof_moment(const mr_model *m, const mr_data *d, int u, double *row) {
  int j = m->actuator_trnid[2 * u], free = m->jnt_type[j] == MR_JOINT_FREE;
  const double *gear = m->actuator_gear + 6 * u, *q = d->qpos + m->jnt_qposadr[j] + (free ? 3 : 0);
  double quat[4] = {q[0], q[1], q[2], q[3]}, axis[3], *out = row + m->jnt_dofadr[j];
  mr_quat_normalize(quat);
  const double *g = gear + (free ? 3 : 0);
  if (m->actuator_trntype[u] == MR_TRN_JOINTINPARENT) {
    double qc[4];
    mr_quat_conj(qc, quat);
    mr_quat_rotvec(axis, qc, g);
  } else {
    mr_copy3(axis, g);
  }
  if (free) {
    for (int k = 0; k < 3; k++) out[k] += gear[k], out[3 + k] += axis[k];
    return 0;
  }
  double rotvec[3];
  mr_quat_log(rotvec, quat);
  for (int k = 0; k < 3; k++) out[k] += axis[k];
  return mr_dot3(axis, rotvec);
}

/* Length of actuator u (before gear[0] for the scalar transmissions) with its moment in row. */
static double mr_actuator_row(const mr_model *m, const mr_data *d, int u, double *row) {
  int id = m->actuator_trnid[2 * u];
  switch (m->actuator_trntype[u]) {
    case MR_TRN_TENDON: {
      int adr = m->tendon_Jrowadr[id];
      for (int k = 0; k < m->tendon_Jrownnz[id]; k++) row[m->tendon_Jcolind[adr + k]] += d->ten_J[adr + k];
      return d->ten_length[id];
    }
    case MR_TRN_SITE:
      mr_site_moment(m, d, u, row);
      return 0;
    case MR_TRN_SLIDERCRANK:
      return mr_crank_moment(m, d, u, row);
    default: /* a joint */
      if (m->jnt_type[id] == MR_JOINT_BALL || m->jnt_type[id] == MR_JOINT_FREE)
        return mr_multidof_moment(m, d, u, row);
      row[m->jnt_dofadr[id]] += 1;
      return d->qpos[m->jnt_qposadr[id]];
  }
}

/* Whether actuator u's row already holds its gear (a 6-D or 3-D one) rather than needing
 * gear[0] applied. */
static int mr_gear_in_row(const mr_model *m, int u) {
  int type = m->actuator_trntype[u], id = m->actuator_trnid[2 * u];
  if (type == MR_TRN_SITE) return 1;
  if (type != MR_TRN_JOINT && type != MR_TRN_JOINTINPARENT) return 0;
  return m->jnt_type[id] == MR_JOINT_BALL || m->jnt_type[id] == MR_JOINT_FREE;
}

void mr_transmission(const mr_model *m, mr_data *d) {
  if (m->nu == 0) return;
  size_t mark = mr_arena_mark(d);
  double *row = mr_arena_doubles(d, (size_t)m->nv + 1);
  if (!row) return;
  memset(row, 0, ((size_t)m->nv + 1) * sizeof(double));
  for (int u = 0; u < m->nu; u++) {
    double gear = mr_gear_in_row(m, u) ? 1 : m->actuator_gear[6 * u];
    double length = mr_actuator_row(m, d, u, row), vel = 0;
    int adr = m->actuator_Jrowadr[u];
    for (int k = 0; k < m->actuator_Jrownnz[u]; k++) {
      int c = m->actuator_Jcolind[adr + k];
      double moment = gear * row[c];
      d->actuator_moment[adr + k] = moment;
      vel += moment * d->qvel[c];
      row[c] = 0;
    }
    d->actuator_length[u] = gear * length;
    d->actuator_velocity[u] = vel;
  }
  mr_arena_restore(d, mark);
}

/* ------------------------------------------------------------------ dynamics and force */

static double mr_act_dot(const mr_model *m, int u, double ctrl, double act) {
  const double *prm = m->actuator_dynprm + MR_NDYN * u;
  switch (m->actuator_dyntype[u]) {
    case MR_DYN_INTEGRATOR: return ctrl;
    case MR_DYN_FILTER: return (ctrl - act) / fmax(prm[0], 1e-15);
    case MR_DYN_MUSCLE: return mr_muscle_dynamics(ctrl, act, prm);
    default: return 0;
  }
}

static double mr_gain(const mr_model *m, const mr_data *d, int u) {
  const double *prm = m->actuator_gainprm + MR_NGAIN * u;
  double len = d->actuator_length[u], vel = d->actuator_velocity[u];
  switch (m->actuator_gaintype[u]) {
    case MR_GAIN_AFFINE: return prm[0] + prm[1] * len + prm[2] * vel;
    case MR_GAIN_MUSCLE:
      return mr_muscle_gain(len, vel, m->actuator_lengthrange + 2 * u, m->actuator_acc0[u], prm);
    default: return prm[0];
  }
}

static double mr_bias(const mr_model *m, const mr_data *d, int u) {
  const double *prm = m->actuator_biasprm + MR_NBIAS * u;
  double len = d->actuator_length[u], vel = d->actuator_velocity[u];
  switch (m->actuator_biastype[u]) {
    case MR_BIAS_AFFINE: return prm[0] + prm[1] * len + prm[2] * vel;
    case MR_BIAS_MUSCLE:
      return mr_muscle_bias(len, m->actuator_lengthrange + 2 * u, m->actuator_acc0[u], prm);
    default: return 0;
  }
}

void mr_actuator_forces(const mr_model *m, mr_data *d) {
  memset(d->qfrc_actuator, 0, (size_t)m->nv * sizeof(double));
  mr_transmission(m, d);
  int disabled = (d->opt.disable & MR_DISABLE_ACTUATION) != 0;
  int clamp = !(d->opt.disable & MR_DISABLE_CLAMPCTRL);
  for (int u = 0; u < m->nu; u++) {
    int a = u - (m->nu - m->na); /* activation index, < 0 without dynamics */
    double ctrl = d->ctrl[u];
    if (clamp && m->actuator_ctrllimited[u]) ctrl = mr_clamp(ctrl, m->actuator_ctrlrange + 2 * u);
    if (a >= 0) d->act_dot[a] = mr_act_dot(m, u, ctrl, d->act[a]);
    if (disabled) {
      d->actuator_force[u] = 0;
      continue;
    }
    double input = a >= 0 ? d->act[a] : ctrl;
    double force = mr_gain(m, d, u) * input + mr_bias(m, d, u);
    if (m->actuator_forcelimited[u]) force = mr_clamp(force, m->actuator_forcerange + 2 * u);
    d->actuator_force[u] = force;
    int adr = m->actuator_Jrowadr[u];
    for (int k = 0; k < m->actuator_Jrownnz[u]; k++)
      d->qfrc_actuator[m->actuator_Jcolind[adr + k]] += d->actuator_moment[adr + k] * force;
  }
}

void mr_activation_advance(const mr_model *m, mr_data *d, double dt) {
  for (int a = 0; a < m->na; a++) {
    int u = m->nu - m->na + a;
    d->act[a] += dt * d->act_dot[a];
    if (m->actuator_actlimited[u]) d->act[a] = mr_clamp(d->act[a], m->actuator_actrange + 2 * u);
  }
}
