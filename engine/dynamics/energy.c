/* Mechanical energy: potential = gravity + joint and tendon springs, kinetic = 1/2 v^T M v
 * (M with armature, as MuJoCo's mj_energyPos / mj_energyVel). Needs the position stage
 * (xipos, qM, ten_length) of the current state; the spring terms mirror passive.c. */
#include "moreau.h"
#include "engine/core/spatial.h"
#include "engine/core/tree_ldl.h"

static double mr_spring_energy(const mr_model *m, const mr_data *d) {
  double e = 0;
  for (int j = 0; j < m->njnt; j++) {
    double k = m->jnt_stiffness[j];
    if (k == 0) continue;
    int qa = m->jnt_qposadr[j];
    const double *q = d->qpos + qa, *q0 = m->qpos_spring + qa;
    switch (m->jnt_type[j]) {
      case MR_JOINT_FREE: {
        double dp[3];
        mr_sub3(dp, q, q0);
        e += 0.5 * k * mr_dot3(dp, dp);
        q += 3;
        q0 += 3;
      }
        /* fall through */
      case MR_JOINT_BALL: {
        double quat[4] = {q[0], q[1], q[2], q[3]}, dif[3];
        mr_quat_normalize(quat);
        mr_quat_sub(dif, quat, q0);
        e += 0.5 * k * mr_dot3(dif, dif);
        break;
      }
      default:
        e += 0.5 * k * (q[0] - q0[0]) * (q[0] - q0[0]);
        break;
    }
  }
  for (int t = 0; t < m->ntendon; t++) {
    double stretch = d->ten_length[t] - m->tendon_lengthspring[t];
    e += 0.5 * m->tendon_stiffness[t] * stretch * stretch;
  }
  return e;
}

void mr_energy(const mr_model *m, mr_data *d) {
  double potential = 0, kinetic = 0;
  if (!(d->opt.disable & MR_DISABLE_GRAVITY))
    for (int b = 1; b < m->nbody; b++)
      potential -= m->body_mass[b] * mr_dot3(d->opt.gravity, d->xipos + 3 * b);
  if (!(d->opt.disable & MR_DISABLE_PASSIVE)) potential += mr_spring_energy(m, d);

  /* v^T M v from the lower triangle: diagonal once, off-diagonal twice */
  for (int i = 0; i < m->nv; i++) {
    int adr = m->dof_Madr[i], end = mr_tree_row_end(m, i);
    double vi = d->qvel[i], row = d->qM[adr] * vi;
    while (++adr < end) row += 2 * d->qM[adr] * d->qvel[m->M_colind[adr]];
    kinetic += vi * row;
  }
  d->energy[0] = potential;
  d->energy[1] = 0.5 * kinetic;
}
