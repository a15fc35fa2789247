/* `admm`: proximal ADMM on the NCP with the De Saxce correction (papers/000 Alg. 6,
 * ADMM-NCP-SA; papers/002 Alg. 3 with the ContactBench defaults of its digest sec. 3.3).
 *
 * The NCP  K ∋ lambda ⊥ c + Gamma(c) ∈ K*,  c = (G + R) lambda + g,  is solved as a
 * sequence of convex problems  min_{x in K} 1/2 x^T (G + R) x + x^T (g + s)  whose linear
 * term s = Gamma(c) is re-estimated from the latest iterate at every iteration (successive
 * approximation, papers/000 eq. 127). Each convex problem is split x = y, y in K:
 *
 *   x <- -(G + R + (eta + rho) I)^-1 (g + s - eta x_prev - rho y + z)   (dense Cholesky)
 *   y <- P_K(x + z / rho)                                               (lambda = y)
 *   z <- z + rho (x - y)                                                (z -> -(c + s))
 *
 * The De Saxce estimate s = mu |c_T| takes c_T from the multiplier (c_T = -z_T at the fixed
 * point) rather than from G y + g: the multiplier is the averaged velocity the linear step
 * is consistent with, and with it the heavy-on-light cubes keep converging while sliding,
 * where the raw velocity of the projected iterate made the estimate jump and the iteration
 * collapse to a no-contact point.
 *
 * eta = 1e-6 is the proximal term: with it the matrix is positive definite even when G is
 * rank-deficient (hyperstatic boxes, duplicated loop rows), and it does not bias the fixed
 * point. The factor is the reason this solver survives mass ratios of 1e6 where the
 * per-contact sweeps stall: the linear step is global and exact.
 *
 * Penalty: the spectral rule, rho0 = sqrt(L m) (L/m)^0.4 with L = lambda_max(G) from ten
 * power iterations and m = eta + min(R); then rho is multiplied or divided by (L/m)^0.1
 * when the ADMM primal and dual residuals are more than 10x apart, and the matrix is
 * re-factored.
 *
 * Rows: bilateral rows are left free (identity projection), limit rows are projected on
 * R+, contacts on their Coulomb cone. The stopping measure is the NCP residual of the
 * feasible iterate y (max of primal, dual and complementarity, papers/002 sec. 2), so
 * `converged` means what the metrics report. The NCP has no convergence guarantee, so the
 * solver hands back the iterate of lowest residual it met (with that residual): MAX_ITER at
 * the cap, FAILED if the iteration went non-finite; bad input is FAILED with zero impulses.
 * out->c is G lambda + g (without R lambda). The problem's m and d are not used: this is a
 * dual solver working from G, g, mu and R only.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "solver.h"

#define ADMM_ETA 1e-6            /* proximal parameter */
#define ADMM_RATIO 10.0          /* residual ratio that triggers a penalty change */
#define ADMM_INIT_EXPONENT 0.4   /* rho0 = sqrt(L m) (L/m)^0.4 */
#define ADMM_ADAPT_EXPONENT 0.1  /* rho *= (L/m)^+-0.1 */
#define ADMM_RHO_MIN 1e-12
#define ADMM_RHO_MAX 1e12
#define ADMM_POWER_ITERS 10
#define ADMM_POWER_RTOL 1e-8

typedef struct admm_state {
  const mr_problem *p;
  int n;
  double *L;               /* Cholesky factor of G + R + (eta + rho) I */
  double *x, *x_prev;      /* linear-step iterate */
  double *y, *y_prev;      /* projected iterate: the impulses */
  double *z;               /* multiplier, tends to -(c + Gamma(c)) */
  double *c;               /* (G + R) y + g */
  double *best;            /* the iterate of lowest NCP residual so far */
  double *rhs;
  double rho, kappa;
} admm_state;

static int admm_alloc(admm_state *s, mr_data *work) {
  size_t n = (size_t)s->n;
  s->L = mr_arena_doubles(work, n * n);
  double *v = mr_arena_doubles(work, 8 * n);
  if (!s->L || !v) return 0;
  s->x = v;
  s->x_prev = v + n;
  s->y = v + 2 * n;
  s->y_prev = v + 3 * n;
  s->z = v + 4 * n;
  s->c = v + 5 * n;
  s->rhs = v + 6 * n;
  s->best = v + 7 * n;
  return 1;
}

static int admm_factor(admm_state *s) {
  double shift = ADMM_ETA + s->rho;
  return mr_dense_cholesky(s->L, s->p->G, s->p->R, shift, s->n, 0.5 * shift) >= 0;
}

/* c = (G + R) lambda + g */
static void admm_velocity(const mr_problem *p, const double *lambda, double *c) {
  mr_dense_matvec(p->G, p->nrow, lambda, c);
  for (int i = 0; i < p->nrow; i++) c[i] += p->g[i] + (p->R ? p->R[i] * lambda[i] : 0.0);
}

static void admm_project(const mr_problem *p, double *y) {
  for (int i = p->neq; i < p->neq + p->nlim; i++) y[i] = fmax(y[i], 0.0);
  double *contact = y + p->neq + p->nlim;
  for (int k = 0; k < p->ncon; k++) mr_cone_project(contact + 3 * k, p->mu[k]);
}

/* De Saxce: mu |c_T|, the normal velocity a sliding contact must be credited with. */
static double admm_gamma(const double c[3], double mu) { return mu * mr_len2(c[1], c[2]); }

/* The NCP residual of papers/002 sec. 2 (L-infinity over rows): bilateral rows |c|, limit
 * rows and contacts max(primal, dual, complementarity) with the De Saxce term. */
static double admm_ncp_residual(const mr_problem *p, const double *lambda, const double *c) {
  double r = 0;
  for (int i = 0; i < p->neq; i++) r = fmax(r, fabs(c[i]));
  for (int i = p->neq; i < p->neq + p->nlim; i++) {
    r = fmax(r, fmax(-lambda[i], 0.0));
    r = fmax(r, fmax(-c[i], 0.0));
    r = fmax(r, fabs(lambda[i] * c[i]));
  }
  int base = p->neq + p->nlim;
  for (int k = 0; k < p->ncon; k++) {
    const double *lam = lambda + base + 3 * k, *ck = c + base + 3 * k;
    double mu = p->mu[k];
    double v[3] = {ck[0] + admm_gamma(ck, mu), ck[1], ck[2]};
    double pv[3] = {v[0], v[1], v[2]};
    mr_cone_project_dual(pv, mu);
    double dual = sqrt((v[0] - pv[0]) * (v[0] - pv[0]) + (v[1] - pv[1]) * (v[1] - pv[1]) +
                       (v[2] - pv[2]) * (v[2] - pv[2]));
    double comp = fabs(lam[0] * v[0] + lam[1] * v[1] + lam[2] * v[2]);
    r = fmax(r, fmax(mr_cone_distance(lam, mu), fmax(dual, comp)));
  }
  return r;
}

/* Warm start: y = P_K(lambda0), x = y, z = -(c + Gamma(c)) so that a converged lambda0 is
 * already a fixed point. */
static void admm_start(admm_state *s, const double *lambda0) {
  const mr_problem *p = s->p;
  int n = s->n;
  for (int i = 0; i < n; i++) s->y[i] = isfinite(lambda0[i]) ? lambda0[i] : 0.0;
  admm_project(p, s->y);
  memcpy(s->x, s->y, (size_t)n * sizeof(double));
  admm_velocity(p, s->y, s->c);
  for (int i = 0; i < n; i++) s->z[i] = -s->c[i];
  int base = p->neq + p->nlim;
  for (int k = 0; k < p->ncon; k++)
    s->z[base + 3 * k] -= admm_gamma(s->c + base + 3 * k, p->mu[k]);
}

/* One ADMM iteration; returns the ADMM primal and dual residuals for the penalty rule. */
static void admm_iterate(admm_state *s, double *r_prim, double *r_dual) {
  const mr_problem *p = s->p;
  int n = s->n, base = p->neq + p->nlim;
  memcpy(s->x_prev, s->x, (size_t)n * sizeof(double));
  memcpy(s->y_prev, s->y, (size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    s->rhs[i] = p->g[i] - ADMM_ETA * s->x[i] - s->rho * s->y[i] + s->z[i];
  for (int k = 0; k < p->ncon; k++) { /* s = Gamma(-z): z is the smoothed -(c + s) */
    const double *zk = s->z + base + 3 * k;
    s->rhs[base + 3 * k] += p->mu[k] * mr_len2(zk[1], zk[2]);
  }
  mr_dense_cholesky_solve(s->L, n, s->rhs);
  for (int i = 0; i < n; i++) {
    s->x[i] = -s->rhs[i];
    s->y[i] = s->x[i] + s->z[i] / s->rho;
  }
  admm_project(p, s->y);
  double rp = 0, rd = 0;
  for (int i = 0; i < n; i++) {
    s->z[i] += s->rho * (s->x[i] - s->y[i]);
    rp = fmax(rp, fabs(s->x[i] - s->y[i]));
    rd = fmax(rd, fabs(s->rho * (s->y[i] - s->y_prev[i]) + ADMM_ETA * (s->x[i] - s->x_prev[i])));
  }
  *r_prim = rp;
  *r_dual = rd;
}

/* Spectral penalty update; returns 0 when the re-factorization failed. */
static int admm_adapt(admm_state *s, double r_prim, double r_dual) {
  double factor = pow(s->kappa, ADMM_ADAPT_EXPONENT), rho = s->rho;
  if (r_prim > ADMM_RATIO * r_dual) rho = fmin(rho * factor, ADMM_RHO_MAX);
  else if (r_dual > ADMM_RATIO * r_prim) rho = fmax(rho / factor, ADMM_RHO_MIN);
  if (rho == s->rho) return 1;
  s->rho = rho;
  return admm_factor(s);
}

static void admm_penalty_init(admm_state *s, mr_data *work) {
  const mr_problem *p = s->p;
  double rmin = INFINITY, rmax = 0;
  for (int i = 0; i < s->n; i++) {
    double r = p->R ? p->R[i] : 0.0;
    rmin = fmin(rmin, r);
    rmax = fmax(rmax, r);
  }
  double lmin = ADMM_ETA + fmax(rmin, 0.0);
  size_t mark = mr_arena_mark(work);
  double *power = mr_arena_doubles(work, 2 * (size_t)s->n);
  double lmax = power ? mr_dense_power_max(p->G, s->n, power, ADMM_POWER_ITERS, ADMM_POWER_RTOL)
                      : 1.0;
  mr_arena_restore(work, mark);
  lmax = fmax(lmax + rmax, lmin); /* G = 0 still gets a sane, positive kappa */
  s->kappa = fmax(lmax / lmin, 1.0 + 1e-3);
  double rho = sqrt(lmax * lmin) * pow(s->kappa, ADMM_INIT_EXPONENT);
  s->rho = fmin(fmax(rho, ADMM_RHO_MIN), ADMM_RHO_MAX);
}

/* The iteration loop; returns the lowest residual met (its iterate is in s->best), or a
 * non-finite value when the factorization failed. */
static double admm_run(admm_state *s, mr_solver_out *out, int *iters) {
  const mr_problem *p = s->p;
  size_t bytes = (size_t)s->n * sizeof(double);
  double residual = admm_ncp_residual(p, s->y, s->c), best = residual;
  memcpy(s->best, s->y, bytes);
  if (!admm_factor(s)) return NAN;
  *iters = 0;
  while (best > p->tol && *iters < p->max_iter) {
    double r_prim, r_dual;
    admm_iterate(s, &r_prim, &r_dual);
    admm_velocity(p, s->y, s->c);
    residual = admm_ncp_residual(p, s->y, s->c);
    if (out->history) out->history[*iters] = residual;
    (*iters)++;
    if (!isfinite(residual)) break; /* diverged: keep the best iterate */
    if (residual < best) {
      best = residual;
      memcpy(s->best, s->y, bytes);
    }
    if (best > p->tol && !admm_adapt(s, r_prim, r_dual)) return NAN;
  }
  return isfinite(residual) ? best : -best; /* negative: diverged after `best` */
}

void mr_solve_admm(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  out->residual = 0;
  out->status = MR_SOLVER_CONVERGED;
  if (p->nrow == 0) return;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  size_t mark = mr_arena_mark(work);
  admm_state s = {.p = p, .n = p->nrow};
  if (!admm_alloc(&s, work)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  admm_penalty_init(&s, work);
  admm_start(&s, out->lambda);
  int iters = 0;
  double best = admm_run(&s, out, &iters);
  if (isnan(best)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    out->iters = iters;
    return;
  }
  /* Return the best iterate, with its own velocity, so a stalled or diverging run still
   * hands back the most accurate impulses it met, and the residual reported is theirs. */
  memcpy(out->lambda, s.best, (size_t)p->nrow * sizeof(double));
  mr_dense_matvec(p->G, p->nrow, out->lambda, out->c);
  for (int i = 0; i < p->nrow; i++) out->c[i] += p->g[i];
  out->iters = iters;
  out->residual = fabs(best);
  if (best < 0) out->status = MR_SOLVER_FAILED;
  else out->status = best <= p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
  mr_arena_restore(work, mark);
}
