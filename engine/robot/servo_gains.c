/* Servo gains from the mass matrix, keyframe controls that hold each keyframe, and the one
 * check that refuses a model: a singular mass matrix.
 *
 * A servo on dof i drives an inertia m: with it the servo is a second-order system, and
 * kp = m w^2, kd = 2 m w make it critically damped at the bandwidth w (MR_SERVO_BANDWIDTH)
 * whatever the joint's size, a finger like a hip. Which inertia: M_ii, the joint-space mass
 * matrix's diagonal at the start pose, is what the joint moves when the robot's base holds
 * still (an arm on its base, a leg in the air). A floating robot standing on a leg turns
 * that around: the foot holds still and the leg's joints carry the rest of the robot, whose
 * inertia about the joint axis is cdof_i . (I_tree - I_subtree(i)) cdof_i (composite
 * inertias, one frame per tree). So a joint whose subtree touches the floor at the start
 * pose is tuned for the larger of the two: the ankle of TALOS (M_ii 0.03 kg m^2, 67 kg m^2 the
 * other way) could not otherwise hold the robot up. The damping is the joint's own
 * (spec_servo.c), integrated implicitly, so a foot that lifts off with a servo tuned for the
 * whole robot is only overdamped (time constant 2/w), not unstable. The effort limit (the
 * actuator's force range) caps what the servo may ask. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/spatial.h"
#include "robot.h"

/* The start pose: keyframe by name or index, else qpos0. */
static const double *mr_robot_start_pose(const mr_model *m, const char *keyframe) {
  if (!keyframe) return m->qpos0;
  int k = mr_name2id(m, MR_OBJ_KEY, keyframe);
  if (k < 0) {
    char *end;
    long i = strtol(keyframe, &end, 10);
    if (end != keyframe && *end == 0 && i >= 0 && i < m->nkey) k = (int)i;
  }
  return k >= 0 ? m->key_qpos + (size_t)k * m->nq : m->qpos0;
}

/* Bodies whose subtree has collision geometry on the floor (z <= MR_STANCE_HEIGHT) in d. */
static void mr_robot_stance(const mr_model *m, const mr_data *d, char *stance) {
  memset(stance, 0, (size_t)m->nbody);
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_bodyid[g];
    if (b > 0 && !stance[b] && mr_robot_geom_lowest(m, d, g) <= MR_STANCE_HEIGHT) stance[b] = 1;
  }
  for (int b = m->nbody - 1; b > 0; b--)
    if (stance[b]) stance[m->body_parentid[b]] = 1;
}

/* The inertia a servo on dof i drives (see above); d holds the start pose's kinematics and
 * composite inertias. */
static double mr_robot_servo_mass(const mr_model *m, const mr_data *d, const char *stance, int i) {
  double mass = d->qM[m->dof_Madr[i]];
  int b = m->dof_bodyid[i], root = m->body_rootid[b];
  int floating = m->body_jntnum[root] > 0 && m->jnt_type[m->body_jntadr[root]] == MR_JOINT_FREE;
  if (!floating || !stance[b] || b == root) return mass;
  double rest[10], force[6];
  for (int k = 0; k < 10; k++) rest[k] = d->crb[10 * root + k] - d->crb[10 * b + k];
  mr_inert_mul(force, rest, d->cdof + 6 * i);
  return fmax(mass, mr_dot6(d->cdof + 6 * i, force));
}

static void mr_robot_set_gains(mr_model *m, int u, double mass) {
  const double w = MR_SERVO_BANDWIDTH;
  double *gain = m->actuator_gainprm + MR_NGAIN * u, *bias = m->actuator_biasprm + MR_NBIAS * u;
  int dof = m->jnt_dofadr[m->actuator_trnid[2 * u]];
  if (m->actuator_kind[u] == MR_ACT_POSITION) {
    gain[0] = mass * w * w;
    bias[1] = -gain[0];
    m->dof_damping[dof] += 2 * mass * w;
  } else if (m->actuator_kind[u] == MR_ACT_VELOCITY) {
    gain[0] = mass * w;
    bias[2] = -gain[0];
  }
}

/* A position or velocity servo (kind) on a joint: what this stage sets targets for. */
static int mr_robot_joint_servo(const mr_model *m, int u, int kind) {
  return m->actuator_kind[u] == kind && m->actuator_trntype[u] == MR_TRN_JOINT;
}

/* What each keyframe's controls are for its servos: hold the keyframe. */
static void mr_robot_key_ctrl(mr_model *m) {
  for (int k = 0; k < m->nkey; k++) {
    const double *qpos = m->key_qpos + (size_t)k * m->nq;
    double *ctrl = m->key_ctrl + (size_t)k * m->nu;
    for (int u = 0; u < m->nu; u++) {
      int j = m->actuator_trnid[2 * u];
      if (mr_robot_joint_servo(m, u, MR_ACT_POSITION))
        ctrl[u] = m->actuator_gear[6 * u] * qpos[m->jnt_qposadr[j]];
      if (mr_robot_joint_servo(m, u, MR_ACT_VELOCITY)) ctrl[u] = 0;
    }
  }
}

void mr_robot_servo_gains(const mr_spec *s, mr_model *m, mr_data *d, const char *keyframe,
                          int hold) {
  int any = 0;
  for (int u = 0; u < m->nu && u < s->nactuators; u++) any |= s->actuators[u].auto_gains;
  char *stance = any ? malloc((size_t)m->nbody) : NULL;
  if (stance) {
    memcpy(d->qpos, mr_robot_start_pose(m, keyframe), sizeof(double) * (size_t)m->nq);
    mr_kinematics(m, d);
    mr_mass_matrix(m, d);
    mr_robot_stance(m, d, stance);
    for (int u = 0; u < m->nu && u < s->nactuators; u++) {
      if (!s->actuators[u].auto_gains) continue;
      int dof = m->jnt_dofadr[m->actuator_trnid[2 * u]];
      int velocity = m->actuator_kind[u] == MR_ACT_VELOCITY; /* explicit: M_ii alone */
      mr_robot_set_gains(m, u, velocity ? d->qM[m->dof_Madr[dof]] : mr_robot_servo_mass(m, d, stance, dof));
    }
    free(stance);
  }
  /* MJCF keyframes say their own controls; servos made here hold their keyframe. */
  if (s->is_urdf || any || hold) mr_robot_key_ctrl(m);
}

void mr_robot_hold_targets(const mr_model *m, mr_data *d) {
  for (int u = 0; u < m->nu; u++)
    if (mr_robot_joint_servo(m, u, MR_ACT_POSITION))
      d->ctrl[u] = m->actuator_gear[6 * u] * d->qpos[m->jnt_qposadr[m->actuator_trnid[2 * u]]];
}

int mr_robot_check_mass(const mr_spec *s, const mr_model *m, mr_data *d, char *err,
                        int errlen) {
  if (m->nv == 0 || !s->is_urdf) return 0; /* MJCF keeps MuJoCo's checks */
  memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_factor_mass(m, d, 0);
  for (int i = 0; i < m->nv; i++) {
    double diag = d->qM[m->dof_Madr[i]], pivot = 1.0 / d->qLDiagInv[i];
    if (pivot > 1e-14 && pivot > 1e-12 * diag) continue;
    int j = m->dof_jntid[i];
    const mr_spec_joint *sj = &s->joints[j];
    return mr_errorf(err, errlen, sj->src,
                     "joint '%s': the mass matrix is singular: nothing with inertia moves with "
                     "this joint (a massless end link, or zero inertia about the joint axis)",
                     sj->name ? sj->name : "(unnamed)");
  }
  return 0;
}
