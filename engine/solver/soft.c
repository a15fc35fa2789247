/* `soft`: MuJoCo's soft convex contact (papers/002 sec. 3.4, MuJoCo "Computation" chapter).
 *
 * Model. Every contact row gets MuJoCo's regularizer and reference acceleration from the
 * contact's solimp/solref (defaults 0.9 0.95 0.001 0.5 2 and 0.02 1, as MuJoCo):
 *   impedance  d(r) = dmin + y(|r|/width) (dmax - dmin), y the polynomial sigmoid of power
 *              p with its inflection at midpoint, d = dmax beyond width;
 *   R_N        = (1 - d)/d * w,   R_T = R_N / impratio (impratio = 1), with w MuJoCo's
 *              diagonal approximation of a contact (efc_diagApprox): the sum over its two
 *              bodies of their translational inverse weights, 1/3 tr(J_com A^-1 J_com^T)
 *              at the body's centre of mass (1/m for a free body), not the contact row's
 *              exact G_NN. At a box's corner G_NN is 4/m (the lever arm adds 3/m): with it
 *              the contacts were four times softer than MuJoCo's, a box crept three times
 *              further down a sticking incline and a stack walked. MuJoCo evaluates the
 *              weights once at qpos0; here they are taken at the current configuration (the
 *              same for free bodies). The body of each side is the one owning the row's
 *              deepest dof in each of its kinematic trees; hand-built problems (no J)
 *              fall back to G_NN;
 *   a_ref      = -b (J qvel) - k d r,  b = 2/(dmax tc), k = 1/(dmax^2 tc^2 zeta^2), with
 *              tc = max(solref[0], 2 dt) (MuJoCo's refsafe); solref[0] < 0 means direct
 *              (k, b) = (-solref[0], -solref[1]) / (dmax^2, dmax);
 *              r = dist (signed distance, negative when penetrating), 0 on friction rows.
 * MuJoCo minimizes 1/2 f^T (A + R) f + f^T (a0 - a_ref) over the cones. With impulses
 * lambda = dt f and G = A this is, at the velocity level,
 *   min_{lambda in K} 1/2 lambda^T (G + R) lambda + q^T lambda,
 *   q = J v_free - J qvel + dt (b J qvel + k d r).
 * J v_free and J qvel come from p->J, p->v_free and p->d->qvel when they are all given;
 * otherwise (a problem built from G and g alone) both are taken as g, so q = dt b g +
 * dt k d r. The constraint stage's Baumgarte bias is thereby replaced by MuJoCo's own.
 * Joint limits are soft too, as in MuJoCo: the same terms with r = phi - margin < 0 (the gap
 * to the limit, from qpos and the joint's range), w = G_ii (the dof's inverse weight: the
 * row is +-e_dof) and MuJoCo's default solref/solimp (the model holds no per-joint
 * solreflimit yet). Equality rows and tendon limits keep the constraint stage's g and R (p->R, may be
 * NULL): rigid, with its stabilization.
 *
 * Method: block projected Gauss-Seidel. Each sweep gives bilateral rows an exact scalar
 * step, limit rows the same step clamped to R+, and each contact up to SOFT_INNER
 * projected-gradient steps on its own 3x3 block (fixed step 1 / Gershgorin bound of
 * G_kk + R_k, cone projection), the other contacts frozen. A scalar step per block makes
 * the fixed point exactly the KKT point of the convex problem, which is unique because
 * R > 0 on contact rows. Stopping measure: the largest natural-map residual
 * |lambda - P(lambda - s grad)| / s (velocity units) met during the sweep.
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

static const double soft_solref_default[2] = {0.02, 1.0};
static const double soft_solimp_default[5] = {0.9, 0.95, 0.001, 0.5, 2.0};

/* MuJoCo's impedance d(r): a polynomial sigmoid from dmin at r = 0 to dmax at |r| >= width. */
static double soft_impedance(const double solimp[5], double r) {
  double dmin = fmin(fmax(solimp[0], SOFT_MINIMP), SOFT_MAXIMP);
  double dmax = fmin(fmax(solimp[1], SOFT_MINIMP), SOFT_MAXIMP);
  double width = solimp[2], mid = fmin(fmax(solimp[3], SOFT_MINIMP), SOFT_MAXIMP);
  double power = fmax(solimp[4], 1.0);
  if (!(width > 0)) return dmax;
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

/* MuJoCo's translational inverse weight of the body owning dof `dof`: 1/3 tr(Jc A^-1 Jc^T),
 * Jc the 3 x nv Jacobian of its centre of mass (from cdof, as constraint.c's point
 * Jacobians). w: 6 nv scratch. */
static double soft_body_weight(const mr_problem *p, int dof, double *w) {
  const mr_model *m = p->m;
  const mr_data *d = p->d;
  int nv = p->nv, b = m->dof_bodyid[dof];
  double arm[3], *jc = w, *x = w + 3 * (size_t)nv;
  const double *com = d->subtree_com + 3 * m->body_rootid[b];
  for (int k = 0; k < 3; k++) arm[k] = d->xipos[3 * b + k] - com[k];
  memset(jc, 0, 3 * (size_t)nv * sizeof(double));
  for (int i = dof; i >= 0; i = m->dof_parentid[i]) {
    const double *cd = d->cdof + 6 * i;
    jc[i] = cd[1] * arm[2] - cd[2] * arm[1] + cd[3];
    jc[nv + i] = cd[2] * arm[0] - cd[0] * arm[2] + cd[4];
    jc[2 * nv + i] = cd[0] * arm[1] - cd[1] * arm[0] + cd[5];
  }
  mr_problem_solve_mass(p, x, jc, 3);
  double tr = 0;
  for (int i = 0; i < 3 * nv; i++) tr += jc[i] * x[i];
  return tr / 3;
}

/* MuJoCo's efc_diagApprox of the contact whose normal row is `row`: the inverse weights of
 * the bodies owning the row's deepest dof in each of its trees (p->span), or G_NN when the
 * problem has no Jacobian. cache: the last bodies' dofs and weights (4 entries). */
static double soft_diag_approx(const mr_problem *p, int row, double *w, int cache_dof[4],
                               double cache_w[4]) {
  double gnn = p->G[(size_t)row * (size_t)p->nrow + (size_t)row];
  if (!p->J || !p->span || !p->m || !p->d || !p->d->cdof || p->nv <= 0) return gnn;
  const int *s = p->span + 4 * row;
  int deepest[2] = {-1, -1};
  for (int t = p->nzadr[row]; t < p->nzadr[row + 1]; t++) {
    int k = p->nzind[t], side = k >= s[0] && k < s[1] ? 0 : 1;
    if (k > deepest[side]) deepest[side] = k;
  }
  double sum = 0;
  for (int side = 0; side < 2; side++) {
    int dof = deepest[side], hit = -1;
    if (dof < 0) continue;
    for (int c = 0; c < 4; c++)
      if (cache_dof[c] == dof) hit = c;
    if (hit < 0) { /* newest first; the oldest entry drops out */
      memmove(cache_dof + 1, cache_dof, 3 * sizeof(int));
      memmove(cache_w + 1, cache_w, 3 * sizeof(double));
      cache_dof[0] = dof, cache_w[0] = soft_body_weight(p, dof, w), hit = 0;
    }
    sum += cache_w[hit];
  }
  return sum > 0 && isfinite(sum) ? sum : gnn;
}

/* MuJoCo's impedance d at violation r and its reference stiffness k and damping b, from a
 * row's solimp and solref (tc clamped to 2 dt: MuJoCo's refsafe). */
static void soft_reference(const double imp[5], const double ref[2], double r, double dt,
                           double *d, double *kk, double *bb) {
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

/* The violation r = phi - margin of a joint-limit row (one Jacobian entry, +1 on the lower
 * side, -1 on the upper, as constraint.c builds them), or NAN for a tendon limit or a problem
 * without the model. */
static double soft_limit_violation(const mr_problem *p, int row) {
  if (!p->J || !p->m || !p->d || !p->d->qpos || p->nzadr[row + 1] - p->nzadr[row] != 1) return NAN;
  const mr_model *m = p->m;
  int t = p->nzadr[row], j = m->dof_jntid[p->nzind[t]];
  double q = p->d->qpos[m->jnt_qposadr[j]];
  double phi = p->J[t] > 0 ? q - m->jnt_range[2 * j] : m->jnt_range[2 * j + 1] - q;
  return phi - m->jnt_margin[j];
}

/* R and q of the soft problem, row by row. w: 6 nv scratch. */
static void soft_build(const mr_problem *p, double *R, double *q, double *gfree, double *vrel,
                       double *w) {
  int base = p->neq + p->nlim;
  double dt = p->dt > 0 ? p->dt : 0;
  soft_velocities(p, gfree, vrel);
  for (int i = 0; i < base; i++) {
    R[i] = p->R ? fmax(p->R[i], 0.0) : 0.0;
    q[i] = p->g[i];
    double r = i >= p->neq ? soft_limit_violation(p, i) : NAN;
    /* a joint limit inside its margin: MuJoCo's soft limit with its defaults, w = the dof's
     * inverse weight (G_ii: J = +-e_dof). Beyond the margin MuJoCo has no row; the stage's
     * look-ahead row stays as built (inert unless the limit would be crossed this step). */
    if (isnan(r) || r >= 0) continue;
    double d, kk, bb, gii = p->G[(size_t)i * (size_t)p->nrow + (size_t)i];
    soft_reference(soft_solimp_default, soft_solref_default, r, dt, &d, &kk, &bb);
    R[i] = fmax((1 - d) / d * gii, 1e-15);
    q[i] = gfree[i] - vrel[i] + dt * (bb * vrel[i] + kk * d * r);
  }
  int cache_dof[4] = {-1, -1, -1, -1};
  double cache_w[4] = {0, 0, 0, 0};
  for (int k = 0; k < p->ncon; k++) {
    int r0 = base + 3 * k;
    const double *imp = p->solimp ? p->solimp + 5 * k : soft_solimp_default;
    const double *ref = p->solref ? p->solref + 2 * k : soft_solref_default;
    double dist = p->dist ? p->dist[k] : 0, d, kk, bb;
    soft_reference(imp, ref, dist, dt, &d, &kk, &bb);
    double Rn = fmax((1 - d) / d * soft_diag_approx(p, r0, w, cache_dof, cache_w), 1e-15);
    for (int j = 0; j < 3; j++) {
      int i = r0 + j;
      double r = j == 0 ? dist : 0.0;
      R[i] = j == 0 ? Rn : Rn / SOFT_IMPRATIO;
      q[i] = gfree[i] - vrel[i] + dt * (bb * vrel[i] + kk * d * r);
    }
  }
}

/* Scalar rows: exact Gauss-Seidel step, clamped for limits. Returns the step size in
 * velocity units (the natural-map residual of the row). */
static double soft_row_step(const mr_problem *p, const double *R, const double *q,
                            double *lambda, int i) {
  int n = p->nrow;
  double diag = p->G[(size_t)i * (size_t)n + (size_t)i] + R[i];
  if (!(diag > SOFT_TINY)) return 0;
  double grad = mr_dense_row_dot(p->G, n, i, lambda) + q[i] + R[i] * lambda[i];
  double x = lambda[i] - grad / diag;
  if (i >= p->neq) x = fmax(x, 0.0);
  double res = fabs(x - lambda[i]) * diag;
  lambda[i] = x;
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
  double *w = mr_arena_doubles(work, 6 * (size_t)p->nv + 1);
  if (n > 0 && (!R || !q || !gfree || !vrel || !w)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  soft_build(p, R, q, gfree, vrel, w);
  if (!mr_dense_is_finite(out->lambda, n))
    memset(out->lambda, 0, sizeof(double) * (size_t)n);

  double res = 0;
  out->status = MR_SOLVER_MAX_ITER;
  for (int it = 0; it < p->max_iter; it++) {
    res = 0;
    for (int i = 0; i < base; i++) res = fmax(res, soft_row_step(p, R, q, out->lambda, i));
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
