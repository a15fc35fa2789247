/* `stagproj`: staggered projections on the NCP (papers/002 Alg. 6, Kaufman et al. 2008,
 * Le Lidec et al. 2021).
 *
 * A fixed point between two convex QPs on the blocks of G (R added to the diagonal):
 *   normal QP    min 1/2 l_N^T G_NN l_N + (g_N + G_NT l_T)^T l_N   (the digest's fix of the
 *                printed g_T), over bilateral rows free, limit rows and contact normals >= 0;
 *   friction QP  min 1/2 l_T^T G_TT l_T + (g_T + G_TN l_N)^T l_T over the disks
 *                |l_T,k| <= mu_k l_N,k.
 * Each QP is solved by a projected method on its G blocks ([R] uses ADMM; here projected
 * Gauss-Seidel, which needs no factorization and tolerates rank-deficient blocks): exact
 * scalar steps on the normal rows, and per contact up to STAG_BLOCK_STEPS projected-
 * gradient steps on the 2x2 tangent block (step 1 / Gershgorin bound, disk projection,
 * which makes the block's fixed point its exact minimizer). Each QP gets up to
 * STAG_INNER sweeps, ending when its largest step (velocity units) is below tol / 10.
 * A fixed point satisfies Signorini (normal QP), the cone and maximum dissipation
 * (friction QP): it solves the NCP. There is no convergence guarantee (digest sec. 3.8).
 *
 * Stopping measure, after each outer iteration: the NCP residual of the iterate, max over
 * bilateral rows |c|, limit rows |min(lambda, c)|, and contacts of the dual-cone distance
 * of c + Gamma(c) and the complementarity |<lambda, c + Gamma(c)>| (primal feasibility
 * holds by construction). Dual solver on G, g, mu and R.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "solver.h"

#define STAG_INNER 100
#define STAG_BLOCK_STEPS 10
#define STAG_TINY 1e-300

static double stag_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

/* (G + R) lambda + g at row i. */
static double stag_row(const mr_problem *p, const double *l, int i) {
  return mr_dense_row_dot(p->G, p->nrow, i, l) + p->g[i] + stag_reg(p, i) * l[i];
}

/* One projected step on a normal-QP row; returns |step| * diagonal. */
static double stag_normal_step(const mr_problem *p, double *l, int i) {
  double diag = p->G[(size_t)i * (size_t)p->nrow + (size_t)i] + stag_reg(p, i);
  if (!(diag > STAG_TINY)) return 0;
  double x = l[i] - stag_row(p, l, i) / diag;
  if (i >= p->neq) x = fmax(x, 0.0);
  double res = fabs(x - l[i]) * diag;
  l[i] = x;
  return res;
}

/* Projected-gradient steps on contact k's tangent block, the disk radius mu l_N fixed. */
static double stag_friction_step(const mr_problem *p, double *l, int k) {
  int n = p->nrow, t = p->neq + p->nlim + 3 * k + 1;
  double B[4], grad[2], bound = 0;
  for (int a = 0; a < 2; a++) {
    double row = 0;
    for (int b = 0; b < 2; b++) {
      B[2 * a + b] = p->G[(size_t)(t + a) * (size_t)n + (size_t)(t + b)] + (a == b ? stag_reg(p, t + a) : 0);
      row += fabs(B[2 * a + b]);
    }
    bound = fmax(bound, row);
    grad[a] = stag_row(p, l, t + a);
  }
  if (!(bound > STAG_TINY)) return 0;
  double s = 1 / bound, radius = p->mu[k] * fmax(l[t - 1], 0.0), res = 0;
  for (int it = 0; it < STAG_BLOCK_STEPS; it++) {
    double y[2] = {l[t] - s * grad[0], l[t + 1] - s * grad[1]}, ny = mr_len2(y[0], y[1]);
    if (ny > radius) {
      double sc = radius > 0 ? radius / ny : 0;
      y[0] *= sc, y[1] *= sc;
    }
    double d[2] = {y[0] - l[t], y[1] - l[t + 1]}, step = fmax(fabs(d[0]), fabs(d[1]));
    if (it == 0) res = step / s;
    grad[0] += B[0] * d[0] + B[1] * d[1];
    grad[1] += B[2] * d[0] + B[3] * d[1];
    l[t] = y[0], l[t + 1] = y[1];
    if (step <= 1e-15 * (1 + radius)) break;
  }
  return res;
}

static void stag_normal_qp(const mr_problem *p, double *l, double tol) {
  int base = p->neq + p->nlim;
  for (int sweep = 0; sweep < STAG_INNER; sweep++) {
    double res = 0;
    for (int i = 0; i < base; i++) res = fmax(res, stag_normal_step(p, l, i));
    for (int k = 0; k < p->ncon; k++) res = fmax(res, stag_normal_step(p, l, base + 3 * k));
    if (res < tol) break;
  }
}

static void stag_friction_qp(const mr_problem *p, double *l, double tol) {
  for (int sweep = 0; sweep < STAG_INNER; sweep++) {
    double res = 0;
    for (int k = 0; k < p->ncon; k++) res = fmax(res, stag_friction_step(p, l, k));
    if (res < tol) break;
  }
}

/* Distance to the dual cone K*_mu = K_{1/mu} (a half-space when mu = 0). */
static double stag_dual_distance(const double x[3], double mu) {
  if (mu > 0) return mr_cone_distance(x, 1 / mu);
  return fmax(-x[0], 0.0);
}

/* The NCP residual of lambda with c = (G + R) lambda + g. */
static double stag_ncp_residual(const mr_problem *p, const double *l, const double *c) {
  int base = p->neq + p->nlim;
  double e = 0;
  for (int i = 0; i < p->neq; i++) e = fmax(e, fabs(c[i]));
  for (int i = p->neq; i < base; i++) e = fmax(e, fabs(fmin(l[i], c[i])));
  for (int k = 0; k < p->ncon; k++) {
    int r0 = base + 3 * k;
    double mu = p->mu[k], ct = mr_len2(c[r0 + 1], c[r0 + 2]);
    double x[3] = {c[r0] + mu * ct, c[r0 + 1], c[r0 + 2]}; /* c + Gamma(c) */
    e = fmax(e, stag_dual_distance(x, mu));
    e = fmax(e, fabs(l[r0] * x[0] + l[r0 + 1] * x[1] + l[r0 + 2] * x[2]));
  }
  return e;
}

void mr_solve_stagproj(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  (void)work;
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int n = p->nrow;
  double *l = out->lambda, *c = out->c, res = INFINITY;
  if (!mr_dense_is_finite(l, n)) memset(l, 0, sizeof(double) * (size_t)n);
  for (int k = 0; k < p->ncon; k++) { /* the warm start must lie in the disks */
    int r0 = p->neq + p->nlim + 3 * k;
    l[r0] = fmax(l[r0], 0.0);
    double nt = mr_len2(l[r0 + 1], l[r0 + 2]), rad = p->mu[k] * l[r0];
    if (nt > rad) l[r0 + 1] *= rad / nt, l[r0 + 2] *= rad / nt;
  }
  out->status = MR_SOLVER_MAX_ITER;
  double inner_tol = 0.1 * p->tol;
  for (int it = 0; it < p->max_iter; it++) {
    stag_normal_qp(p, l, inner_tol);
    stag_friction_qp(p, l, inner_tol);
    for (int i = 0; i < n; i++) c[i] = stag_row(p, l, i);
    res = stag_ncp_residual(p, l, c);
    out->iters = it + 1;
    if (out->history) out->history[it] = res;
    if (!isfinite(res)) break;
    if (res < p->tol) {
      out->status = MR_SOLVER_CONVERGED;
      break;
    }
  }
  if (p->max_iter <= 0) res = INFINITY; /* nothing was done: not converged */
  if ((p->max_iter > 0 && !isfinite(res)) || !mr_dense_is_finite(l, n)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, n, l, c);
  for (int i = 0; i < n; i++) c[i] += p->g[i];
}
