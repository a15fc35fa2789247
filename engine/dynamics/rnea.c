/* Velocity stage and bias forces: body velocities (cvel), the time derivatives of the
 * motion subspaces (cdof_dot), and the recursive Newton-Euler algorithm with zero joint
 * acceleration, which gives qfrc_bias = C(q, v) v + g(q) (MuJoCo's mj_rne with flg_acc 0).
 *
 * Gravity enters as an upward acceleration of the world (a = -g), the classic trick that
 * turns weight into inertial force. One forward sweep computes velocities, accelerations
 * and body forces together; one backward sweep accumulates forces into parents; the
 * projection onto each dof reads the force of its own body. O(nbody + nv).
 */
#include <string.h>

#include "engine/core/arena.h"
#include "moreau.h"
#include "engine/core/spatial.h"

/* cdof_dot for the dofs of joint j (cvel is the velocity of the body so far: the parent's
 * plus the joints before j) and the velocity after joint j. */
static void mr_joint_velocity(const mr_model *m, mr_data *d, int j, double cvel[6]) {
  const double *qvel = d->qvel;
  int da = m->jnt_dofadr[j], n;
  switch (m->jnt_type[j]) {
    case MR_JOINT_FREE:
      /* translations along fixed world axes: their subspace does not change */
      memset(d->cdof_dot + 6 * da, 0, 18 * sizeof(double));
      for (int k = 0; k < 3; k++) mr_addscl6(cvel, d->cdof + 6 * (da + k), qvel[da + k]);
      da += 3;
      n = 3;
      break;
    case MR_JOINT_BALL:
      n = 3;
      break;
    default:
      n = 1;
      break;
  }
  /* every subspace of the joint moves with the velocity before the joint's own motion */
  for (int k = 0; k < n; k++) mr_cross_motion(d->cdof_dot + 6 * (da + k), cvel, d->cdof + 6 * (da + k));
  for (int k = 0; k < n; k++) mr_addscl6(cvel, d->cdof + 6 * (da + k), qvel[da + k]);
}

void mr_bias_forces(const mr_model *m, mr_data *d) {
  const int nbody = m->nbody;
  size_t mark = mr_arena_mark(d);
  double *cacc = mr_arena_doubles(d, 6 * (size_t)nbody);
  double *cfrc = mr_arena_doubles(d, 6 * (size_t)nbody);
  if (!cacc || !cfrc) return;

  memset(d->cvel, 0, 6 * sizeof(double));
  memset(cacc, 0, 6 * sizeof(double));
  memset(cfrc, 0, 6 * sizeof(double));
  if (!(d->opt.disable & MR_DISABLE_GRAVITY)) mr_scale3(cacc + 3, d->opt.gravity, -1);

  for (int b = 1; b < nbody; b++) {
    int p = m->body_parentid[b];
    double *v = d->cvel + 6 * b, *a = cacc + 6 * b, *f = cfrc + 6 * b;
    memcpy(v, d->cvel + 6 * p, 6 * sizeof(double));
    int jbeg = m->body_jntadr[b], jend = jbeg + m->body_jntnum[b];
    for (int j = jbeg; j < jend; j++) mr_joint_velocity(m, d, j, v);

    /* a = a_parent + cdof_dot * qvel (zero qacc) */
    memcpy(a, cacc + 6 * p, 6 * sizeof(double));
    int dbeg = m->body_dofadr[b], dend = dbeg + m->body_dofnum[b];
    for (int i = dbeg; i < dend; i++) mr_addscl6(a, d->cdof_dot + 6 * i, d->qvel[i]);

    /* f = I a + v x* (I v) */
    double momentum[6], gyro[6];
    const double *I = d->cinert + 10 * b;
    mr_inert_mul(f, I, a);
    mr_inert_mul(momentum, I, v);
    mr_cross_force(gyro, v, momentum);
    for (int k = 0; k < 6; k++) f[k] += gyro[k];
  }
  for (int b = nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0)
      for (int k = 0; k < 6; k++) cfrc[6 * p + k] += cfrc[6 * b + k];
  }
  for (int i = 0; i < m->nv; i++)
    d->qfrc_bias[i] = mr_dot6(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i]);
  mr_arena_restore(d, mark);
}
