/* `ccp`: Anitescu's convex relaxation solved by projected Gauss-Seidel with the cone
 * projection, as Chrono does (papers/002 Alg. 2, papers/000 Alg. 2 without De Saxce).
 *
 * The CCP drops the De Saxce term of the NCP: it solves K ∋ lambda ⊥ c ∈ K*, the KKT
 * system of  min_{lambda in K} 1/2 lambda^T (G + R) lambda + g^T lambda. Its sliding
 * contacts therefore satisfy c_N = mu |c_T| > 0 while pushing: the "hop" of papers/002
 * sec. 3.2, kept here on purpose so the artifact can be shown and measured.
 *
 * One sweep visits the rows in the problem's order: bilateral rows get an exact scalar
 * Gauss-Seidel step, limit rows the same step clamped to R+, and each contact the block
 * step lambda <- P_K(lambda - 3 / tr(G_kk) c_k) (step = inverse mean of the 3x3 diagonal).
 * The stopping measure is the CCP residual of the iterate: max over rows of |c| for
 * bilateral rows, and of primal, dual and complementarity terms without De Saxce for limits
 * and contacts ([R]'s CCP-PGS criterion). It is NOT the NCP residual: a CCP solution of a
 * sliding contact is never an NCP solution, and engine/constraint/metrics.c reports the NCP numbers.
 * The problem's m and d are not used: this is a dual solver on G, g, mu and R.
 */
#include <math.h>

#include "dense.h"
#include "solver.h"

#define CCP_TINY 1e-300 /* a row whose diagonal is below this has no effect: left alone */

static double ccp_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

/* (G + R) lambda + g at row i, with the current lambda (Gauss-Seidel). */
static double ccp_row_velocity(const mr_problem *p, const double *lambda, int i) {
  return mr_dense_row_dot(p->G, p->nrow, i, lambda) + p->g[i] + ccp_reg(p, i) * lambda[i];
}

static void ccp_sweep(const mr_problem *p, double *lambda) {
  int n = p->nrow, base = p->neq + p->nlim;
  for (int i = 0; i < base; i++) {
    double diag = p->G[(size_t)i * (size_t)n + (size_t)i] + ccp_reg(p, i);
    if (!(diag > CCP_TINY)) continue;
    lambda[i] -= ccp_row_velocity(p, lambda, i) / diag;
    if (i >= p->neq) lambda[i] = fmax(lambda[i], 0.0);
  }
  for (int k = 0; k < p->ncon; k++) {
    int r = base + 3 * k;
    double trace = 0, c[3];
    for (int j = 0; j < 3; j++) {
      trace += p->G[(size_t)(r + j) * (size_t)n + (size_t)(r + j)] + ccp_reg(p, r + j);
      c[j] = ccp_row_velocity(p, lambda, r + j);
    }
    if (!(trace > CCP_TINY)) continue;
    double step = 3.0 / trace;
    for (int j = 0; j < 3; j++) lambda[r + j] -= step * c[j];
    mr_cone_project(lambda + r, p->mu[k]);
  }
}

/* c = G lambda + g (the interface's velocity) and the CCP residual on c + R lambda. */
static double ccp_residual(const mr_problem *p, const double *lambda, double *c) {
  mr_dense_matvec(p->G, p->nrow, lambda, c);
  for (int i = 0; i < p->nrow; i++) c[i] += p->g[i];
  double r = 0;
  for (int i = 0; i < p->neq; i++) r = fmax(r, fabs(c[i] + ccp_reg(p, i) * lambda[i]));
  for (int i = p->neq; i < p->neq + p->nlim; i++) {
    double v = c[i] + ccp_reg(p, i) * lambda[i];
    r = fmax(r, fmax(fmax(-lambda[i], 0.0), fmax(fmax(-v, 0.0), fabs(lambda[i] * v))));
  }
  int base = p->neq + p->nlim;
  for (int k = 0; k < p->ncon; k++) {
    int row = base + 3 * k;
    const double *lam = lambda + row;
    double v[3], pv[3];
    for (int j = 0; j < 3; j++) pv[j] = v[j] = c[row + j] + ccp_reg(p, row + j) * lam[j];
    mr_cone_project_dual(pv, p->mu[k]);
    double dual = sqrt((v[0] - pv[0]) * (v[0] - pv[0]) + (v[1] - pv[1]) * (v[1] - pv[1]) +
                       (v[2] - pv[2]) * (v[2] - pv[2]));
    double comp = fabs(lam[0] * v[0] + lam[1] * v[1] + lam[2] * v[2]);
    r = fmax(r, fmax(mr_cone_distance(lam, p->mu[k]), fmax(dual, comp)));
  }
  return r;
}

void mr_solve_ccp(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  (void)work; /* works in place in out->lambda and out->c */
  out->iters = 0;
  out->residual = 0;
  out->status = MR_SOLVER_CONVERGED;
  if (p->nrow == 0) return;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  double *lambda = out->lambda;
  for (int i = 0; i < p->nrow; i++)
    if (!isfinite(lambda[i])) lambda[i] = 0;
  double residual = ccp_residual(p, lambda, out->c);
  int iters = 0;
  while (residual > p->tol && iters < p->max_iter) {
    ccp_sweep(p, lambda);
    residual = ccp_residual(p, lambda, out->c);
    if (out->history) out->history[iters] = residual;
    iters++;
    if (!isfinite(residual)) {
      mr_solver_fail(p, out);
      out->iters = iters;
      return;
    }
  }
  out->iters = iters;
  out->residual = residual;
  out->status = residual <= p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
}
