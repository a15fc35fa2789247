/* The two-stage midpoint scheme of papers/004 sec. 3 (theta = theta_vq = 1/2).
 *
 * Stage 1 (free motion) solves the implicit midpoint momentum balance
 *
 *   m(v) = M(q_mid) (v - v0) - dt k(q_mid, v_mid) = 0,
 *   v_mid = (v0 + v) / 2,   q_mid = q0 (+) (dt/2) v_mid,
 *
 * with k = qfrc_smooth (springs, damping, actuators, applied forces, minus Coriolis and
 * gravity). The Jacobian dm/dv is replaced by the SPD matrix of eq. (15),
 *
 *   A = M(q_mid) + dt/2 D + dt^2/4 K     (D, K: joint damping and stiffness, diagonal),
 *
 * and the iteration v <- v - A^-1 m(v) converges linearly with a rate of O(dt) (the part of
 * dm/dv that A leaves out is dt times the Coriolis and dM/dq terms); for joint springs and
 * dampers on a constant M it is exact in one step. Stage 2 (contact around v*, issue 4)
 * reuses the factor of A: see mr_midpoint_constraint.
 *
 * The position update q = q0 (+) dt v_mid moves hinges and slides linearly and rotates
 * quaternions by the Cayley map, q <- q * normalize(1, dt w_mid / 2), not the exponential
 * map. Why: for a torque-free body the midpoint momentum balance in body coordinates is
 * I (w - w0) = -dt w_mid x I w_mid, i.e. with L = I w and W = [w_mid]x,
 *   (1 + dt/2 W) L = (1 - dt/2 W) L0,   L = C L0,   C = (1 + dt/2 W)^-1 (1 - dt/2 W).
 * World momentum R L is conserved iff R = R0 C^-1 = R0 (1 - dt/2 W)^-1 (1 + dt/2 W), which
 * is the Cayley rotation cay(dt w_mid): angle 2 atan(dt |w_mid| / 2) about w_mid, whose
 * quaternion is exactly (1, dt w_mid / 2) normalized. So rotation and momentum update
 * compose to conserve world angular momentum exactly (up to round-off and the Newton
 * tolerance), and w . (w - w0) . I = 0 conserves the kinetic energy too. The exponential
 * map rotates by dt |w_mid| instead: an O(dt^3) error per step that drifts.
 *
 * Nothing here allocates: scratch comes from the arena (about nq + 4 nv doubles, within
 * data.c's budget of 8 nv for the integrators) and is returned at the end.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/constraint/constraint.h"
#include "integrator.h"
#include "moreau.h"
#include "engine/core/spatial.h"
#include "engine/core/tree_ldl.h"

/* Newton stops when ||m(v)||_inf <= MR_MIDPOINT_TOL * (||M v_mid||_inf + dt ||k||_inf),
 * relative to the momentum being balanced and about 1e3 round-offs above the floor: tight
 * enough that the torque-free body conserves L to ~1e-11 over 1e4 steps (at 1e-12 the
 * Newton error alone accumulated to 5e-10). */
#define MR_MIDPOINT_TOL 1e-13
/* Evaluations of m at the midpoint before giving up (newton_status 1). At the step sizes
 * robots use the residual falls by 1e-3 or more per iteration, so 2 to 4 are typical. */
#define MR_MIDPOINT_MAX_ITER 30

typedef struct mr_midpoint_work {
  double *q0, *v0; /* start of the step */
  double *v;       /* the end velocity being solved for */
  double *res;     /* m(v), then the Newton correction */
  double *tmp;     /* nv scratch */
} mr_midpoint_work;

/* ------------------------------------------------------------------ configuration map */

/* q <- q * cay(h omega): the unit quaternion (1, h omega / 2) normalized (see above). */
static void mr_quat_cayley_step(double q[4], const double omega[3], double h) {
  double dq[4] = {1, 0.5 * h * omega[0], 0.5 * h * omega[1], 0.5 * h * omega[2]}, r[4];
  mr_quat_normalize(q);
  mr_quat_normalize(dq);
  mr_quat_mul(r, q, dq);
  mr_quat_normalize(r);
  memcpy(q, r, sizeof r);
}

/* qpos <- qpos (+) h qvel with the Cayley map for ball and free-joint rotations. */
static void mr_midpoint_integrate_pos(const mr_model *m, double *qpos, const double *qvel, double h) {
  for (int j = 0; j < m->njnt; j++) {
    double *q = qpos + m->jnt_qposadr[j];
    const double *v = qvel + m->jnt_dofadr[j];
    switch (m->jnt_type[j]) {
      case MR_JOINT_FREE:
        for (int k = 0; k < 3; k++) q[k] += h * v[k];
        mr_quat_cayley_step(q + 3, v + 3, h);
        break;
      case MR_JOINT_BALL:
        mr_quat_cayley_step(q, v, h);
        break;
      default:
        q[0] += h * v[0];
        break;
    }
  }
}

/* ------------------------------------------------------------------ linear algebra */

/* r = M x from the branch-sparse lower triangle (crba.c's layout). */
static void mr_mass_mul(const mr_model *m, const mr_data *d, double *r, const double *x) {
  const int nv = m->nv;
  memset(r, 0, (size_t)nv * sizeof(double));
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i], end = mr_tree_row_end(m, i);
    r[i] += d->qM[adr] * x[i];
    while (++adr < end) {
      int j = m->M_colind[adr];
      double mij = d->qM[adr];
      r[i] += mij * x[j];
      r[j] += mij * x[i];
    }
  }
}

static double mr_norm_inf(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(x[i]));
  return s;
}

static int mr_joint_dofs(int type) {
  return type == MR_JOINT_FREE ? 6 : (type == MR_JOINT_BALL ? 3 : 1);
}

/* L^T D L factor of A = M + dt/2 D + dt^2/4 K into d->qLD. K goes onto the diagonal of qM
 * for the factorization and the diagonal is then restored bit for bit from `save`. With
 * passive forces disabled there are no springs or dampers, so A = M. */
static void mr_midpoint_factor(const mr_model *m, mr_data *d, double *save) {
  const double dt = d->opt.timestep;
  if (d->opt.disable & MR_DISABLE_PASSIVE) {
    mr_factor_mass(m, d, 0);
    return;
  }
  int stiff = 0;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_stiffness[j] == 0) continue;
    int adr = m->jnt_dofadr[j], n = mr_joint_dofs(m->jnt_type[j]);
    for (int i = adr; i < adr + n; i++) {
      if (!stiff) {
        for (int k = 0; k < m->nv; k++) save[k] = d->qM[m->dof_Madr[k]];
        stiff = 1;
      }
      d->qM[m->dof_Madr[i]] += 0.25 * dt * dt * m->jnt_stiffness[j];
    }
  }
  mr_factor_mass(m, d, 0.5 * dt);
  if (stiff)
    for (int k = 0; k < m->nv; k++) d->qM[m->dof_Madr[k]] = save[k];
}

/* ------------------------------------------------------------------ stage 1 */

/* Evaluates every stage at the midpoint of the candidate v (kinematics, CRBA, RNEA,
 * passive, actuators, applied forces: the data then describe (q_mid, v_mid)), writes
 * res = m(v) and returns the momentum scale the residual is measured against. */
static double mr_midpoint_residual(const mr_model *m, mr_data *d, const mr_midpoint_work *w) {
  const int nv = m->nv;
  const double dt = d->opt.timestep;
  for (int i = 0; i < nv; i++) d->qvel[i] = 0.5 * (w->v0[i] + w->v[i]);
  memcpy(d->qpos, w->q0, (size_t)m->nq * sizeof(double));
  mr_midpoint_integrate_pos(m, d->qpos, d->qvel, 0.5 * dt);

  /* the stages one by one: mr_forward's position stage would also run collision, but
   * contacts stay those found at q0 (papers/004: C, J and phi frozen at q0) */
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_bias_forces(m, d);
  mr_passive_forces(m, d);
  mr_actuator_forces(m, d);
  mr_smooth_force(m, d);

  for (int i = 0; i < nv; i++) w->tmp[i] = w->v[i] - w->v0[i];
  mr_mass_mul(m, d, w->res, w->tmp);
  for (int i = 0; i < nv; i++) w->res[i] -= dt * d->qfrc_smooth[i];
  mr_mass_mul(m, d, w->tmp, d->qvel);
  return mr_norm_inf(w->tmp, nv) + dt * mr_norm_inf(d->qfrc_smooth, nv);
}

/* The predictor: one Newton step from v0 with the forces and M already evaluated at
 * (q0, v0) by the pipeline, v = v0 + dt A(q0)^-1 k(q0, v0). */
static void mr_midpoint_predict(const mr_model *m, mr_data *d, const mr_midpoint_work *w) {
  const double dt = d->opt.timestep;
  mr_midpoint_factor(m, d, w->tmp);
  mr_solve_mass(m, d, w->res, d->qfrc_smooth, 1);
  for (int i = 0; i < m->nv; i++) w->v[i] = w->v0[i] + dt * w->res[i];
}

/* Quasi-Newton on m(v) = 0 from the predictor. The iteration converges linearly with a
 * rate rho = O(dt) that the last two residuals measure; once rho * ||m|| is below the
 * tolerance, the correction just computed is accepted without evaluating m again (that
 * evaluation would cost a full pass of the dynamics to confirm it). The factor of A is
 * refreshed at every evaluation, so on return d->qLD holds A at the last midpoint
 * evaluated (stage 2 needs it). */
static void mr_midpoint_solve_free(const mr_model *m, mr_data *d, const mr_midpoint_work *w) {
  const int nv = m->nv;
  int iter = 0, converged = 0;
  double rel = 0, prev = INFINITY;
  mr_midpoint_predict(m, d, w);
  while (iter < MR_MIDPOINT_MAX_ITER) {
    double scale = mr_midpoint_residual(m, d, w), norm = mr_norm_inf(w->res, nv);
    iter++;
    mr_midpoint_factor(m, d, w->tmp);
    rel = scale > 0 ? norm / scale : norm;
    if (norm <= MR_MIDPOINT_TOL * scale) {
      converged = 1;
      break;
    }
    if (!isfinite(norm)) break;
    double rho = norm / prev;
    prev = norm;
    /* no progress: stuck at the round-off floor, or dt too large for the O(dt) rate (a
     * fast spin at a coarse step) and diverging. Keep this iterate, report status 1. */
    if (iter > 1 && rho > 0.9) break;
    mr_solve_mass(m, d, w->res, w->res, 1);
    for (int i = 0; i < nv; i++) w->v[i] -= w->res[i];
    if (iter > 1 && rho < 0.5 && rho * norm <= MR_MIDPOINT_TOL * scale) {
      rel *= rho; /* the predicted residual of the accepted iterate */
      converged = 1;
      break;
    }
  }
  /* Iterations = evaluations of m at the midpoint; residual = ||m||_inf relative to the
   * momentum scale. The solver_* fields stay the contact solver's (stage 2). */
  d->newton_iters = iter;
  d->newton_status = converged ? 0 : 1;
  d->newton_residual = rel;
}

/* ------------------------------------------------------------------ stage 2 (hook) */

/* Stage 2: contacts, joint limits and equalities around v*,
 *   A (v - v*) = J^T gamma,   J = J(q0),   A factored in d->qLD (the final midpoint's),
 * i.e. the solver gets v* as the free velocity and G = J A^-1 J^T, and v = v* + A^-1 J^T
 * gamma; the position update below uses the corrected v. The rows were built at q0 by the
 * pipeline's first pass (mr_step, before mr_midpoint_step: constraint.h keeps them at the
 * head of the arena), since stage 1 has moved the kinematics to the midpoint since. */
static void mr_midpoint_constraint(const mr_model *m, mr_data *d, const double *v0, double *v) {
  memset(d->qfrc_constraint, 0, (size_t)m->nv * sizeof(double));
  mr_rows *r = mr_constraint_rows(d);
  if (!r || r->nrow == 0) return;
  /* The solvers read d->qvel as the step-start velocity (soft's reference acceleration
   * -b J qvel, sap's warm start), as the rows were built at (q0, v0); stage 1 left the
   * midpoint velocity of its last evaluation there. */
  memcpy(d->qvel, v0, (size_t)m->nv * sizeof(double));
  size_t mark = mr_arena_mark(d);
  double *dv = mr_arena_doubles(d, (size_t)m->nv);
  if (dv && mr_constraint_solve(m, d, r, v, dv) == 0)
    for (int i = 0; i < m->nv; i++) v[i] += dv[i];
  mr_arena_restore(d, mark);
}

/* ------------------------------------------------------------------ the step */

void mr_midpoint_step(const mr_model *m, mr_data *d) {
  const int nq = m->nq, nv = m->nv;
  const double dt = d->opt.timestep;
  size_t mark = mr_arena_mark(d);
  mr_midpoint_work w = {
      .q0 = mr_arena_doubles(d, (size_t)nq),
      .v0 = mr_arena_doubles(d, (size_t)nv),
      .v = mr_arena_doubles(d, (size_t)nv),
      .res = mr_arena_doubles(d, (size_t)nv),
      .tmp = mr_arena_doubles(d, (size_t)nv),
  };
  if (!w.q0 || !w.v0 || !w.v || !w.res || !w.tmp) {
    /* an arena sizing bug: poison the state so mr_step reports it rather than go on */
    if (nv > 0) d->qacc[0] = NAN;
    mr_arena_restore(d, mark);
    return;
  }
  memcpy(w.q0, d->qpos, (size_t)nq * sizeof(double));
  memcpy(w.v0, d->qvel, (size_t)nv * sizeof(double));

  mr_midpoint_solve_free(m, d, &w);
  mr_midpoint_constraint(m, d, w.v0, w.v);

  /* q = q0 (+) dt v_mid with the final v */
  for (int i = 0; i < nv; i++) {
    d->qvel[i] = 0.5 * (w.v0[i] + w.v[i]);
    d->qacc[i] = (w.v[i] - w.v0[i]) / dt;
  }
  /* acceleration sensors at the midpoint the forces were last evaluated at */
  mr_sensors(m, d, MR_STAGE_ACC);
  memcpy(d->qpos, w.q0, (size_t)nq * sizeof(double));
  mr_midpoint_integrate_pos(m, d->qpos, d->qvel, dt);
  memcpy(d->qvel, w.v, (size_t)nv * sizeof(double));
  memcpy(d->qacc_smooth, d->qacc, (size_t)nv * sizeof(double));
  d->time += dt;
  mr_arena_restore(d, mark);
}
