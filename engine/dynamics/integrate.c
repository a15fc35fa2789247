/* Integration on the configuration manifold: q (+) dt * v.
 *
 * Hinge, slide and the position of a free joint are vector spaces. Ball and free-joint
 * quaternions rotate by the exponential map of the LOCAL angular velocity, which is how
 * qvel stores it: q <- q * exp(omega dt / 2), renormalized so round-off never accumulates
 * into a non-unit quaternion (MuJoCo's mju_quatIntegrate).
 */
#include "moreau.h"
#include "engine/core/spatial.h"

static void mr_quat_integrate(double q[4], const double omega[3], double dt) {
  double w[3] = {omega[0] * dt, omega[1] * dt, omega[2] * dt}, dq[4], r[4];
  mr_quat_normalize(q);
  mr_quat_exp(dq, w);
  mr_quat_mul(r, q, dq);
  mr_quat_normalize(r);
  q[0] = r[0];
  q[1] = r[1];
  q[2] = r[2];
  q[3] = r[3];
}

void mr_integrate_pos(const mr_model *m, double *qpos, const double *qvel, double dt) {
  for (int j = 0; j < m->njnt; j++) {
    double *q = qpos + m->jnt_qposadr[j];
    const double *v = qvel + m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
      case MR_JOINT_FREE:
        for (int k = 0; k < 3; k++) q[k] += dt * v[k];
        mr_quat_integrate(q + 3, v + 3, dt);
        break;
      case MR_JOINT_BALL:
        mr_quat_integrate(q, v, dt);
        break;
      default:
        q[0] += dt * v[0];
        break;
    }
  }
}

void mr_normalize_quats(const mr_model *m, double *qpos) {
  for (int j = 0; j < m->njnt; j++) {
    double *q = qpos + m->jnt_qposadr[j];
    if (m->jnt_type[j] == MR_JOINT_FREE)
      mr_quat_normalize(q + 3);
    else if (m->jnt_type[j] == MR_JOINT_BALL)
      mr_quat_normalize(q);
  }
}
