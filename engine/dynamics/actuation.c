/* Actuators with a joint transmission (MuJoCo's mj_fwdActuation for fixed gain and affine
 * bias): length = gear * q, velocity = gear * qdot,
 * force = gain * ctrl + bias0 + bias1 * length + bias2 * velocity, qfrc = gear * force.
 *
 * The control is clamped to ctrlrange on the fly (d->ctrl, the user's input, is left as
 * written) and the force to forcerange. Only hinge and slide joints transmit: the scalar
 * gear has no meaning for the 3 or 6 dofs of ball and free joints, which the compiler is
 * expected to reject; here they get a force but no generalized force.
 */
#include <string.h>

#include "moreau.h"

static double mr_clamp(double x, const double range[2]) {
  return x < range[0] ? range[0] : (x > range[1] ? range[1] : x);
}

void mr_actuator_forces(const mr_model *m, mr_data *d) {
  memset(d->qfrc_actuator, 0, (size_t)m->nv * sizeof(double));
  int disabled = (d->opt.disable & MR_DISABLE_ACTUATION) != 0;
  int clamp = !(d->opt.disable & MR_DISABLE_CLAMPCTRL);
  for (int u = 0; u < m->nu; u++) {
    int j = m->actuator_trnid[u], type = m->jnt_type[j];
    int one_dof = type == MR_JOINT_HINGE || type == MR_JOINT_SLIDE;
    double gear = m->actuator_gear[u];
    double q = one_dof ? d->qpos[m->jnt_qposadr[j]] : 0;
    double qdot = one_dof ? d->qvel[m->jnt_dofadr[j]] : 0;
    double length = gear * q, velocity = gear * qdot;
    d->actuator_length[u] = length;
    d->actuator_velocity[u] = velocity;
    if (disabled) {
      d->actuator_force[u] = 0;
      continue;
    }
    double ctrl = d->ctrl[u];
    if (clamp && m->actuator_ctrllimited[u]) ctrl = mr_clamp(ctrl, m->actuator_ctrlrange + 2 * u);
    const double *bias = m->actuator_biasprm + 3 * u;
    double force = m->actuator_gainprm[3 * u] * ctrl + bias[0] + bias[1] * length + bias[2] * velocity;
    if (m->actuator_forcelimited[u]) force = mr_clamp(force, m->actuator_forcerange + 2 * u);
    d->actuator_force[u] = force;
    if (one_dof) d->qfrc_actuator[m->jnt_dofadr[j]] += gear * force;
  }
}
