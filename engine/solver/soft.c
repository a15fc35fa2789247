/* `soft`: MuJoCo's soft convex constraints (papers/002 sec. 3.4, MuJoCo "Computation"
 * chapter): contacts, joint and tendon limits and equalities alike.
 *
 * Model. Every row gets MuJoCo's regularizer and reference acceleration from its element's
 * solref/solimp (p->solref, p->solimp: the contact's mix, jnt_solref/jnt_solimp from MJCF
 * solreflimit/solimplimit, tendon_solref_lim/solimp_lim, eq_solref/eq_solimp; defaults
 * 0.02 1 and 0.9 0.95 0.001 0.5 2, as MuJoCo) and its own position error r (p->pos:
 * MuJoCo's efc_pos - efc_margin):
 *   impedance  d(x) = dmin + y(|x|/width) (dmax - dmin), y the polynomial sigmoid of power
 *              p with its inflection at midpoint, d = dmax beyond width, (dmin + dmax)/2
 *              when flat; x = r, except for a connect (|phi| over its 3 rows) and a weld
 *              (|(phi_pos, torquescale phi_rot)| over its 6), one d for all their rows;
 *   R          = (1 - d)/d * w,  R_T = R_N / impratio (impratio = 1) on friction rows, with
 *              w MuJoCo's diagonal approximation (efc_diagApprox) from the model's
 *              inverse weights at qpos0 (mj_setM0's body_invweight0, dof_invweight0,
 *              tendon_invweight0, filled when the model is loaded):
 *                contact          the translational weights of its two bodies, 1/3
 *                                 tr(J_com M^-1 J_com^T) (1/m for a free body), not the
 *                                 row's exact G_NN (4/m at a box's corner: with it the
 *                                 contacts were four times softer than MuJoCo's, a box
 *                                 crept three times further down a sticking incline and a
 *                                 stack walked);
 *                connect, weld    the two bodies' translational weights, on all six rows
 *                                 of a weld (MuJoCo 2.2's mj_diagApprox does so);
 *                joint equality   the dofs' weights, summed;  tendon equality likewise;
 *                joint limit      the dof's weight;  tendon limit the tendon's;
 *              a problem without the model takes G_ii;
 *   a_ref      = -b (J qvel) - k d r,  b = 2/(dmax tc), k = 1/(dmax^2 tc^2 zeta^2), with
 *              tc = max(solref[0], 2 dt) (MuJoCo's refsafe); solref[0] < 0 means direct
 *              (k, b) = (-solref[0], -solref[1]) / (dmax^2, dmax); r = 0 on friction rows.
 * A weld's rotation rows are the log map's (d phi/dt = the relative angular velocity),
 * MuJoCo's the quaternion error's axis part times torquescale, whose Jacobian is
 * torquescale/2 ours: scaling a row by s scales its problem consistently when R takes s^2,
 * so those rows get R s^2 and r = s sin(theta/2) axis with s = 2 / torquescale.
 * MuJoCo minimizes 1/2 f^T (A + R) f + f^T (a0 - a_ref) over the cones. With impulses
 * lambda = dt f and G = A this is, at the velocity level,
 *   min_{lambda in K} 1/2 lambda^T (G + R) lambda + q^T lambda,
 *   q = J v_free - J qvel + dt (b J qvel + k d r).
 * J v_free and J qvel come from p->J, p->v_free and p->d->qvel when they are all given;
 * otherwise (a problem built from G and g alone) both are taken as g, so q = dt b g +
 * dt k d r. The constraint stage's Baumgarte bias is thereby replaced by MuJoCo's own, and
 * neither its position pass nor its equality projection touches soft's rows
 * (mr_solver_info.depenetrate = 0). A limit side open beyond its margin (the stage's
 * look-ahead row) has no row in MuJoCo: its impulse stays 0. A hand-built problem without
 * p->pos keeps g and p->R on its equality and limit rows.
 *
 * Method: block projected Gauss-Seidel. Each sweep solves each equality's rows together
 * exactly (a Cholesky factor of its block of G + R: a weld's rows couple through the lever
 * arm to its frame, and row by row they took hundreds of sweeps), gives limit rows an
 * exact scalar step clamped to R+, and each contact up to SOFT_INNER projected-gradient
 * steps on its own 3x3 block (fixed step 1 / Gershgorin bound of G_kk + R_k, cone
 * projection), the others frozen. The fixed point is exactly the KKT point of the convex
 * problem, which is unique because R > 0 on every soft row. Stopping measure: the largest
 * natural-map residual |lambda - P(lambda - s grad)| / s (velocity units) met during the
 * sweep.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "solver.h"

#define SOFT_IMPRATIO 1.0
#define SOFT_MINIMP 0.0001 /* MuJoCo's clamp of the impedance */
#define SOFT_MAXIMP 0.9999
#define SOFT_INNER 20      /* projected-gradient steps per contact block per sweep */
#define SOFT_TINY 1e-300
#define SOFT_MAX_GROUP 6   /* rows of the largest equality (a weld) */
#define SOFT_INERT (-1.0)  /* R of a row MuJoCo would not have: its impulse stays 0 */

static const double soft_solref_default[2] = {0.02, 1.0};
static const double soft_solimp_default[5] = {0.9, 0.95, 0.001, 0.5, 2.0};

/* MuJoCo's impedance d(r): a polynomial sigmoid from dmin at r = 0 to dmax at |r| >= width. */
static double soft_impedance(const double solimp[5], double r) {
  double dmin = fmin(fmax(solimp[0], SOFT_MINIMP), SOFT_MAXIMP);
  double dmax = fmin(fmax(solimp[1], SOFT_MINIMP), SOFT_MAXIMP);
  double width = solimp[2], mid = fmin(fmax(solimp[3], SOFT_MINIMP), SOFT_MAXIMP);
  double power = fmax(solimp[4], 1.0);
  if (dmin == dmax || !(width > 1e-15)) return 0.5 * (dmin + dmax); /* MuJoCo's flat case */
  double x = fabs(r) / width;
  if (x >= 1) return dmax;
  double y;
  if (power == 1)
    y = x;
  else if (x <= mid)
    y = pow(x, power) / pow(mid, power - 1);
  else
    y = 1 - pow(1 - x, power) / pow(1 - mid, power - 1);
  return dmin + y * (dmax - dmin);
}

/* The constraint velocities the MuJoCo terms need: J v_free and J qvel, or g for both. */
static void soft_velocities(const mr_problem *p, double *gfree, double *vrel) {
  int n = p->nrow, nv = p->nv;
  int primal = p->J && p->v_free && p->d && p->d->qvel && nv > 0;
  for (int i = 0; i < n; i++) {
    if (!primal) {
      gfree[i] = vrel[i] = p->g[i];
      continue;
    }
    gfree[i] = mr_problem_row_dot(p, i, p->v_free);
    vrel[i] = mr_problem_row_dot(p, i, p->d->qvel);
  }
}

/* MuJoCo's efc_diagApprox of the contact whose normal row is `row`: the translational
 * inverse weights at qpos0 of its two bodies (mr_model.body_invweight0), or G_NN for a
 * problem without the model. */
static double soft_contact_weight(const mr_problem *p, int row) {
  double gnn = p->G[(size_t)row * (size_t)p->nrow + (size_t)row];
  if (!p->id || !p->m || !p->d || !p->m->body_invweight0) return gnn;
  const mr_contact *c = &p->d->contact[p->id[row]];
  double w = p->m->body_invweight0[2 * c->body1] + p->m->body_invweight0[2 * c->body2];
  return w > 0 && isfinite(w) ? w : gnn;
}

/* MuJoCo's impedance d at violation r and its reference stiffness k and damping b, from a
 * row's solimp and solref (tc clamped to 2 dt: MuJoCo's refsafe; a solref mixing the
 * standard and the direct form is replaced by the default, as MuJoCo does). */
static void soft_reference(const double imp[5], const double ref[2], double r, double dt,
                           double *d, double *kk, double *bb) {
  if ((ref[0] > 0) != (ref[1] > 0)) ref = soft_solref_default;
  double dmax = fmin(fmax(imp[1], SOFT_MINIMP), SOFT_MAXIMP);
  *d = fmin(fmax(soft_impedance(imp, r), SOFT_MINIMP), SOFT_MAXIMP);
  if (ref[0] > 0) {
    double tc = fmax(ref[0], 2 * dt), zeta = ref[1];
    *kk = 1 / (dmax * dmax * tc * tc * zeta * zeta);
    *bb = 2 / (dmax * tc);
  } else {
    *kk = -ref[0] / (dmax * dmax);
    *bb = -ref[1] / dmax;
  }
}

/* One soft row: R = (1 - d)/d w s^2 and q from MuJoCo's reference acceleration with the
 * impedance taken at `at` and the stiffness acting on the row's own error r. s scales a
 * row whose Jacobian is s times MuJoCo's (a weld's rotation rows), so that the problem in
 * our rows is MuJoCo's problem in its own. */
static void soft_row(const mr_problem *p, int i, const double imp[5], const double ref[2],
                     double at, double r, double w, double s, double *R, double *q,
                     const double *gfree, const double *vrel) {
  double d, kk, bb, dt = p->dt > 0 ? p->dt : 0;
  soft_reference(imp, ref, at, dt, &d, &kk, &bb);
  R[i] = fmax((1 - d) / d * w * s * s, 1e-15);
  q[i] = gfree[i] - vrel[i] + dt * (bb * vrel[i] + kk * d * r);
}

static const double *soft_ref_of(const mr_problem *p, int i) {
  return p->solref ? p->solref + 2 * i : soft_solref_default;
}
static const double *soft_imp_of(const mr_problem *p, int i) {
  return p->solimp ? p->solimp + 5 * i : soft_solimp_default;
}

/* The rows [i, i + n) of equality e (MuJoCo 2.2: mj_diagApprox, getposdim). connect: one
 * impedance from |phi| over its 3 rows, w = the two bodies' translational weights. weld:
 * one impedance from |(phi_pos, torquescale phi_rot)|, w = the translational weights on
 * all six rows (MuJoCo 2.2 takes the translational weight for the rotation rows too). Our
 * rotation rows are the log map's, d phi = dw; MuJoCo's are the quaternion's axis part,
 * sin(theta/2) axis, times torquescale, whose Jacobian is torquescale/2 ours: s = 2 /
 * torquescale, r = s sin(theta/2) axis. joint, tendon: w = the dof's or tendon's weight
 * (plus the second's). Returns n. */
static int soft_equality(const mr_problem *p, int i, double *R, double *q, const double *gfree,
                         const double *vrel) {
  const mr_model *m = p->m;
  int e = p->id[i], n = 1, type = m->eq_type[e];
  while (i + n < p->neq && p->id[i + n] == e) n++;
  const double *pos = p->pos + i, *imp = soft_imp_of(p, i), *ref = soft_ref_of(p, i);
  int o1 = m->eq_obj1id[e], o2 = m->eq_obj2id[e];
  if (type == MR_EQ_CONNECT || type == MR_EQ_WELD) {
    const double *bw = m->body_invweight0;
    double wt = (o1 > 0 ? bw[2 * o1] : 0) + (o2 > 0 ? bw[2 * o2] : 0);
    double r[6] = {0}, s[6] = {1, 1, 1, 1, 1, 1}, norm2 = 0;
    for (int a = 0; a < n && a < 6; a++) r[a] = pos[a];
    if (type == MR_EQ_WELD && n == 6) {
      double ts = m->eq_data[11 * e + 10], th = sqrt(pos[3] * pos[3] + pos[4] * pos[4] + pos[5] * pos[5]);
      double half = th > 1e-12 ? sin(th / 2) / th : 0.5; /* sin(theta/2) axis = half phi */
      for (int a = 3; a < 6; a++) {
        double mj = half * pos[a];
        s[a] = ts > 0 ? 2 / ts : 1e15; /* torquescale 0: MuJoCo's rotation rows are empty */
        r[a] = ts > 0 ? s[a] * mj : 0;
        norm2 += ts * ts * mj * mj;
      }
    }
    for (int a = 0; a < n && a < 3; a++) norm2 += pos[a] * pos[a];
    for (int a = 0; a < n; a++)
      soft_row(p, i + a, imp, ref, sqrt(norm2), r[a], wt, s[a], R, q, gfree, vrel);
    return n;
  }
  const double *ow = type == MR_EQ_JOINT ? m->dof_invweight0 : m->tendon_invweight0;
  const int *adr = type == MR_EQ_JOINT ? m->jnt_dofadr : NULL;
  double wt = ow[adr ? adr[o1] : o1] + (o2 >= 0 ? ow[adr ? adr[o2] : o2] : 0);
  for (int a = 0; a < n; a++)
    soft_row(p, i + a, imp, ref, pos[a], pos[a], wt, 1, R, q, gfree, vrel);
  return n;
}

/* MuJoCo's weight of limit row i: dof_invweight0 of the joint's dof, tendon_invweight0 of
 * the tendon (the row's id says which). */
static double soft_limit_weight(const mr_problem *p, int i) {
  const mr_model *m = p->m;
  int id = p->id[i];
  double w = id >= 0 ? m->dof_invweight0[m->jnt_dofadr[id]] : m->tendon_invweight0[(-1 - id) / 2];
  return w > 0 && isfinite(w) ? w : p->G[(size_t)i * (size_t)p->nrow + (size_t)i];
}

/* R and q of the soft problem, row by row. Without the stage's per-row terms and the model
 * (a hand-built problem) equality and limit rows keep g and p->R, and contacts take
 * p->dist, the defaults and G_NN. */
static void soft_build(const mr_problem *p, double *R, double *q, double *gfree, double *vrel) {
  int base = p->neq + p->nlim;
  int model = p->pos && p->id && p->m && p->d && p->m->dof_invweight0;
  soft_velocities(p, gfree, vrel);
  for (int i = 0; i < base; i++) {
    R[i] = p->R ? fmax(p->R[i], 0.0) : 0.0;
    q[i] = p->g[i];
  }
  for (int i = 0; model && i < p->neq;) i += soft_equality(p, i, R, q, gfree, vrel);
  /* limits inside their margin. Beyond it MuJoCo has no row: the stage's look-ahead row is
   * inert (a rigid catch there made a limit entered at speed an impact instead of MuJoCo's
   * soft entry one step later). */
  for (int i = p->neq; model && i < base; i++) {
    double r = p->pos[i];
    if (r < 0)
      soft_row(p, i, soft_imp_of(p, i), soft_ref_of(p, i), r, r, soft_limit_weight(p, i), 1, R, q,
               gfree, vrel);
    else
      R[i] = SOFT_INERT;
  }
  for (int k = 0; k < p->ncon; k++) {
    int r0 = base + 3 * k;
    const double *imp = soft_imp_of(p, r0), *ref = soft_ref_of(p, r0);
    double dist = p->pos ? p->pos[r0] : p->dist ? p->dist[k] : 0;
    double wn = soft_contact_weight(p, r0);
    soft_row(p, r0, imp, ref, dist, dist, wn, 1, R, q, gfree, vrel);
    for (int j = 1; j < 3; j++) {
      soft_row(p, r0 + j, imp, ref, dist, 0, wn, 1, R, q, gfree, vrel);
      R[r0 + j] = R[r0] / SOFT_IMPRATIO;
    }
  }
}

/* Scalar rows: exact Gauss-Seidel step, clamped for limits. Returns the step size in
 * velocity units (the natural-map residual of the row). */
static double soft_row_step(const mr_problem *p, const double *R, const double *q,
                            double *lambda, int i) {
  int n = p->nrow;
  if (R[i] == SOFT_INERT) {
    lambda[i] = 0;
    return 0;
  }
  double diag = p->G[(size_t)i * (size_t)n + (size_t)i] + R[i];
  if (!(diag > SOFT_TINY)) return 0;
  double grad = mr_dense_row_dot(p->G, n, i, lambda) + q[i] + R[i] * lambda[i];
  double x = lambda[i] - grad / diag;
  if (i >= p->neq) x = fmax(x, 0.0);
  double res = fabs(x - lambda[i]) * diag;
  lambda[i] = x;
  return res;
}

/* The equality rows [i, end) of one element (a connect's 3, a weld's 6; else 1 row). */
static int soft_group_end(const mr_problem *p, int i) {
  int end = i + 1;
  while (p->id && end < p->neq && end - i < SOFT_MAX_GROUP && p->id[end] == p->id[i]) end++;
  return end;
}

/* One equality element: its rows solved together exactly, the others frozen (block
 * Gauss-Seidel). A weld's rows couple through the lever arm from its frame to the body,
 * and stepping them one at a time took hundreds of sweeps. Returns the largest gradient
 * entry at entry (velocity units), as soft_row_step. */
static double soft_group_step(const mr_problem *p, const double *R, const double *q,
                              double *lambda, int i, int end) {
  int n = p->nrow, k = end - i;
  if (k == 1) return soft_row_step(p, R, q, lambda, i);
  double L[SOFT_MAX_GROUP * SOFT_MAX_GROUP] = {0}, x[SOFT_MAX_GROUP] = {0}, res = 0;
  for (int a = 0; a < k; a++) {
    for (int b = 0; b < k; b++) L[a * k + b] = p->G[(size_t)(i + a) * (size_t)n + (size_t)(i + b)];
    x[a] = -(mr_dense_row_dot(p->G, n, i + a, lambda) + q[i + a] + R[i + a] * lambda[i + a]);
    res = fmax(res, fabs(x[a]));
  }
  if (mr_dense_cholesky(L, L, R + i, 0, k, 1e-300) < 0) return res;
  mr_dense_cholesky_solve(L, k, x);
  for (int a = 0; a < k; a++) lambda[i + a] += x[a];
  return res;
}

/* One contact: projected-gradient steps on its 3x3 block, the others frozen. Returns the
 * natural-map residual at entry (velocity units). */
static double soft_block_step(const mr_problem *p, const double *R, const double *q,
                              double *lambda, int k) {
  int n = p->nrow, r0 = p->neq + p->nlim + 3 * k;
  double B[9], grad[3], x[3], bound = 0;
  for (int a = 0; a < 3; a++) {
    double row = 0;
    for (int b = 0; b < 3; b++) {
      B[3 * a + b] = p->G[(size_t)(r0 + a) * (size_t)n + (size_t)(r0 + b)] + (a == b ? R[r0 + a] : 0);
      row += fabs(B[3 * a + b]);
    }
    bound = fmax(bound, row);
    grad[a] = mr_dense_row_dot(p->G, n, r0 + a, lambda) + q[r0 + a] + R[r0 + a] * lambda[r0 + a];
    x[a] = lambda[r0 + a];
  }
  if (!(bound > SOFT_TINY)) return 0;
  double s = 1 / bound, res = 0;
  for (int it = 0; it < SOFT_INNER; it++) {
    double y[3] = {x[0] - s * grad[0], x[1] - s * grad[1], x[2] - s * grad[2]};
    mr_cone_project(y, p->mu[k]);
    double dx[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
    double step = fmax(fabs(dx[0]), fmax(fabs(dx[1]), fabs(dx[2])));
    if (it == 0) res = step / s;
    for (int a = 0; a < 3; a++) {
      grad[a] += B[3 * a] * dx[0] + B[3 * a + 1] * dx[1] + B[3 * a + 2] * dx[2];
      x[a] = y[a];
    }
    if (step <= 1e-15 * (1 + fabs(x[0]))) break;
  }
  for (int a = 0; a < 3; a++) lambda[r0 + a] = x[a];
  return res;
}

void mr_solve_soft(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int n = p->nrow, base = p->neq + p->nlim;
  size_t mark = mr_arena_mark(work);
  double *R = mr_arena_doubles(work, (size_t)n), *q = mr_arena_doubles(work, (size_t)n);
  double *gfree = mr_arena_doubles(work, (size_t)n), *vrel = mr_arena_doubles(work, (size_t)n);
  if (n > 0 && (!R || !q || !gfree || !vrel)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  soft_build(p, R, q, gfree, vrel);
  if (!mr_dense_is_finite(out->lambda, n))
    memset(out->lambda, 0, sizeof(double) * (size_t)n);

  double res = 0;
  out->status = MR_SOLVER_MAX_ITER;
  for (int it = 0; it < p->max_iter; it++) {
    res = 0;
    for (int i = 0, end; i < p->neq; i = end) {
      end = soft_group_end(p, i);
      res = fmax(res, soft_group_step(p, R, q, out->lambda, i, end));
    }
    for (int i = p->neq; i < base; i++) res = fmax(res, soft_row_step(p, R, q, out->lambda, i));
    for (int k = 0; k < p->ncon; k++) res = fmax(res, soft_block_step(p, R, q, out->lambda, k));
    out->iters = it + 1;
    if (out->history) out->history[it] = res;
    if (!isfinite(res)) break;
    if (res < p->tol) {
      out->status = MR_SOLVER_CONVERGED;
      break;
    }
  }
  mr_arena_restore(work, mark);
  if (!isfinite(res) || !mr_dense_is_finite(out->lambda, n)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, n, out->lambda, out->c);
  for (int i = 0; i < n; i++) out->c[i] += p->g[i];
}
