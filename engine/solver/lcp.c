/* `lcp`: the linear complementarity model with a 4-facet friction pyramid, solved by
 * projected Gauss-Seidel as ODE and Bullet do (papers/002 Alg. 1).
 *
 * The Coulomb cone is replaced by the box |lambda_t1|, |lambda_t2| <= mu lambda_N whose
 * facets are aligned with the contact frame's t1 and t2. Sliding drives the friction
 * impulse to a corner of the box: unless the slip is exactly along t1 or t2 the friction
 * points at 45 degrees to the axes with magnitude sqrt(2) mu lambda_N, the lateral bias
 * (drift) of papers/002 Fig. 9. That is the model, not a bug.
 *
 * Per contact and sweep: lambda_N <- max(0, lambda_N - c_N / G_NN); then, with c_T
 * recomputed after the normal update, lambda_T <- lambda_T - c_T / min(G_t1t1, G_t2t2),
 * clamped component-wise into the box. Bilateral rows get an exact scalar Gauss-Seidel
 * step, limit rows the same step clamped to R+.
 *
 * Stopping measure: the residual of this boxed LCP, max over rows of |c| (bilateral rows);
 * max(-lambda, -c, |lambda c|)^+ (limits and contact normals); and for each tangent row
 * the complementarity of the box, (lambda_t + mu lambda_N) max(c_t, 0) and
 * (mu lambda_N - lambda_t) max(-c_t, 0), plus any excursion out of the box. It measures
 * the LCP this solver solves; engine/constraint/metrics.c reports the NCP numbers. The problem's m
 * and d are not used: this is a dual solver on G, g, mu and R.
 */
#include <math.h>

#include "dense.h"
#include "solver.h"

#define LCP_TINY 1e-300 /* a row whose diagonal is below this has no effect: left alone */

static double lcp_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

static double lcp_diag(const mr_problem *p, int i) {
  return p->G[(size_t)i * (size_t)p->nrow + (size_t)i] + lcp_reg(p, i);
}

/* (G + R) lambda + g at row i, with the current lambda (Gauss-Seidel). */
static double lcp_row_velocity(const mr_problem *p, const double *lambda, int i) {
  return mr_dense_row_dot(p->G, p->nrow, i, lambda) + p->g[i] + lcp_reg(p, i) * lambda[i];
}

static void lcp_contact_update(const mr_problem *p, double *lambda, int r, double mu) {
  double dn = lcp_diag(p, r);
  if (dn > LCP_TINY)
    lambda[r] = fmax(0.0, lambda[r] - lcp_row_velocity(p, lambda, r) / dn);
  double dt = fmin(lcp_diag(p, r + 1), lcp_diag(p, r + 2));
  if (!(dt > LCP_TINY)) dt = fmax(lcp_diag(p, r + 1), lcp_diag(p, r + 2));
  double bound = mu * lambda[r];
  if (dt > LCP_TINY) { /* both tangents take a step from the same velocity (Jacobi pair) */
    double c1 = lcp_row_velocity(p, lambda, r + 1), c2 = lcp_row_velocity(p, lambda, r + 2);
    lambda[r + 1] -= c1 / dt;
    lambda[r + 2] -= c2 / dt;
  }
  lambda[r + 1] = fmin(fmax(lambda[r + 1], -bound), bound);
  lambda[r + 2] = fmin(fmax(lambda[r + 2], -bound), bound);
}

static void lcp_sweep(const mr_problem *p, double *lambda) {
  int base = p->neq + p->nlim;
  for (int i = 0; i < base; i++) {
    double diag = lcp_diag(p, i);
    if (!(diag > LCP_TINY)) continue;
    lambda[i] -= lcp_row_velocity(p, lambda, i) / diag;
    if (i >= p->neq) lambda[i] = fmax(lambda[i], 0.0);
  }
  for (int k = 0; k < p->ncon; k++) lcp_contact_update(p, lambda, base + 3 * k, p->mu[k]);
}

/* Residual of a scalar complementarity 0 <= lambda ⊥ v >= 0. */
static double lcp_pair_residual(double lambda, double v) {
  return fmax(fmax(-lambda, 0.0), fmax(fmax(-v, 0.0), fabs(lambda * v)));
}

/* Residual of one tangent row of the box [-b, b] with velocity v. */
static double lcp_box_residual(double lambda, double v, double b) {
  double outside = fmax(fabs(lambda) - b, 0.0);
  double lower = (lambda + b) * fmax(v, 0.0), upper = (b - lambda) * fmax(-v, 0.0);
  return fmax(outside, fmax(fabs(lower), fabs(upper)));
}

/* c = G lambda + g (the interface's velocity) and the LCP residual on c + R lambda. */
static double lcp_residual(const mr_problem *p, const double *lambda, double *c) {
  mr_dense_matvec(p->G, p->nrow, lambda, c);
  for (int i = 0; i < p->nrow; i++) c[i] += p->g[i];
  double r = 0;
  for (int i = 0; i < p->neq; i++) r = fmax(r, fabs(c[i] + lcp_reg(p, i) * lambda[i]));
  for (int i = p->neq; i < p->neq + p->nlim; i++)
    r = fmax(r, lcp_pair_residual(lambda[i], c[i] + lcp_reg(p, i) * lambda[i]));
  int base = p->neq + p->nlim;
  for (int k = 0; k < p->ncon; k++) {
    int row = base + 3 * k;
    double b = p->mu[k] * fmax(lambda[row], 0.0);
    r = fmax(r, lcp_pair_residual(lambda[row], c[row] + lcp_reg(p, row) * lambda[row]));
    for (int j = 1; j < 3; j++) {
      double v = c[row + j] + lcp_reg(p, row + j) * lambda[row + j];
      r = fmax(r, lcp_box_residual(lambda[row + j], v, b));
    }
  }
  return r;
}

void mr_solve_lcp(const mr_problem *p, mr_solver_out *out, mr_data *work) {
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
  double residual = lcp_residual(p, lambda, out->c);
  int iters = 0;
  while (residual > p->tol && iters < p->max_iter) {
    lcp_sweep(p, lambda);
    residual = lcp_residual(p, lambda, out->c);
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
