/* Passive forces: joint and tendon springs and viscous damping (MuJoCo's mj_passive
 * without fluid forces).
 *
 * Hinge and slide springs act on q - qpos_spring. Ball springs act on the rotation vector
 * taking the spring quaternion to the current one, free springs on the position difference
 * and the same rotation vector, as in MuJoCo. Damping is -damping * qvel per dof; the Euler
 * integrator also treats it implicitly (forward.c). A tendon pulls with
 * -stiffness (length - lengthspring) - damping * velocity along its Jacobian; its damping is
 * explicit, as in MuJoCo 2.2 (which is why MuJoCo advises joint damping where possible).
 */
#include <string.h>

#include "moreau.h"
#include "engine/core/spatial.h"

void mr_passive_forces(const mr_model *m, mr_data *d) {
  const int nv = m->nv;
  double *f = d->qfrc_passive;
  memset(f, 0, (size_t)nv * sizeof(double));
  if (d->opt.disable & MR_DISABLE_PASSIVE) return;

  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    int qa = m->jnt_qposadr[j], da = m->jnt_dofadr[j];
    const double *q = d->qpos + qa, *q0 = m->qpos_spring + qa;
    switch (m->jnt_type[j]) {
      case MR_JOINT_FREE:
        for (int c = 0; c < 3; c++) f[da + c] = -k * (q[c] - q0[c]);
        q += 3;
        q0 += 3;
        da += 3;
        /* the rotation is a ball spring */
        /* fall through */
      case MR_JOINT_BALL: {
        double quat[4] = {q[0], q[1], q[2], q[3]}, dif[3];
        mr_quat_normalize(quat);
        mr_quat_sub(dif, quat, q0);
        for (int c = 0; c < 3; c++) f[da + c] = -k * dif[c];
        break;
      }
      default:
        f[da] = -k * (q[0] - q0[0]);
        break;
    }
  }
  for (int i = 0; i < nv; i++)
    if (m->dof_damping[i] != 0) f[i] -= m->dof_damping[i] * d->qvel[i];
  for (int t = 0; t < m->ntendon; t++) {
    double k = m->tendon_stiffness[t], b = m->tendon_damping[t];
    if (k == 0 && b == 0) continue;
    double frc = -k * (d->ten_length[t] - m->tendon_lengthspring[t]) - b * d->ten_velocity[t];
    int adr = m->tendon_Jrowadr[t];
    for (int n = 0; n < m->tendon_Jrownnz[t]; n++)
      f[m->tendon_Jcolind[adr + n]] += frc * d->ten_J[adr + n];
  }
}
