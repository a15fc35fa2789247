/* `raisim`: Hwangbo's per-contact bisection (papers/002 Alg. 4, lines 3-9 rebuilt in the
 * digest's sec. 3.6, defaults from [R]).
 *
 * Per contact k, the others frozen (Gauss-Seidel), with B = G_kk + R_k and
 * gt = c_k - G_kk lambda_k the contact's velocity "as if it were free":
 *   take-off   gt_N > 0                     -> lambda* = 0
 *   stick      lambda_v0 = -B^-1 gt in K    -> lambda* = lambda_v0
 *   slide      otherwise: the point of the ellipse K boundary ∩ {(B lambda + gt)_N = 0}
 *              closest to lambda_v0 in the B metric, found by bisection on the polar
 *              angle theta of lambda_T (bracket: step 0.01 rad, x1.3 while the derivative
 *              keeps its sign, x0.5 on an infeasible angle; bisection until lambda moves
 *              less than RAISIM_BISECT_TOL).
 *   relax      lambda_k <- (1 - alpha) lambda_k + alpha lambda*, alpha = 1 decaying once
 *              per sweep toward alpha_min = 0.1 with factor 0.99 ([R]'s convention).
 * Restricting sliding to the zero-normal-velocity plane enforces Signorini and the cone
 * but not maximum dissipation: by the KKT conditions (digest eq. 21)
 * c_T ∝ -lambda_T - (mu^2 lambda_N / G_NN) G_NT, so friction opposes slip only when
 * G_NT = 0. That is the model, not a bug.
 *
 * Bilateral rows get exact scalar Gauss-Seidel steps, limit rows the same clamped to R+.
 * Stopping measure: RaiSim's model is not the NCP, so the NCP residual would never vanish
 * on sliding off-centre contacts; the measure is the model's own fixed-point residual,
 * max over rows/contacts of |B (lambda* - lambda_k)| in velocity units, taken during the
 * sweep before relaxation. engine/constraint/metrics.c reports the NCP numbers.
 * Dual solver: uses G, g, mu and R only.
 */
#include <math.h>
#include <string.h>

#include "engine/core/mr_math.h"

#include "dense.h"
#include "solver.h"

#define RAISIM_ALPHA_MIN 0.1
#define RAISIM_ALPHA_DECAY 0.99
#define RAISIM_BETA1 0.01 /* initial angle step (rad) */
#define RAISIM_BETA2 0.5  /* step shrink on an infeasible angle */
#define RAISIM_BETA3 1.3  /* step growth while the derivative keeps its sign */
#define RAISIM_BISECT_TOL 1e-6
#define RAISIM_SEARCH_MAX 200
#define RAISIM_TINY 1e-300

typedef struct raisim_contact {
  double B[9];   /* G_kk + R_k, rows (N, T1, T2) */
  double gt[3];  /* free velocity of the contact */
  double v0[3];  /* lambda_v0 = -B^-1 gt */
  double mu;
} raisim_contact;

static double raisim_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

/* lambda on the ellipse at angle theta; returns r (<= 0: the plane misses this ray). */
static double raisim_point(const raisim_contact *c, double th, double lam[3]) {
  double co = cos(th), si = sin(th);
  double D = c->B[0] / c->mu + c->B[1] * co + c->B[2] * si;
  double r = D > RAISIM_TINY ? -c->gt[0] / D : -1;
  lam[0] = r / c->mu;
  lam[1] = r * co;
  lam[2] = r * si;
  return r;
}

/* d/dtheta of 1/2 l^T B l + gt^T l along the ellipse (only the tangent part of B l + gt
 * is nonzero on the plane). */
static double raisim_slope(const raisim_contact *c, double th) {
  double lam[3], co = cos(th), si = sin(th);
  double r = raisim_point(c, th, lam);
  double D = c->B[0] / c->mu + c->B[1] * co + c->B[2] * si;
  double dD = -c->B[1] * si + c->B[2] * co;
  double dr = -r * dD / D;
  double dl[3] = {dr / c->mu, dr * co - r * si, dr * si + r * co};
  double s = 0;
  for (int a = 1; a < 3; a++)
    s += (c->B[3 * a] * lam[0] + c->B[3 * a + 1] * lam[1] + c->B[3 * a + 2] * lam[2] + c->gt[a]) * dl[a];
  return s;
}

/* An angle is usable when the plane meets its ray and lambda lies on the side of the cone
 * facing lambda_v0 (the digest's grad h2 . (lambda_v0 - lambda) >= 0). */
static int raisim_feasible(const raisim_contact *c, double th) {
  double lam[3];
  if (raisim_point(c, th, lam) <= 0) return 0;
  double mu2 = c->mu * c->mu;
  double dot = -2 * mu2 * lam[0] * (c->v0[0] - lam[0]) + 2 * lam[1] * (c->v0[1] - lam[1]) +
               2 * lam[2] * (c->v0[2] - lam[2]);
  return dot >= 0;
}

static double raisim_cost(const raisim_contact *c, const double l[3]) {
  double s = 0;
  for (int a = 0; a < 3; a++)
    s += l[a] * (0.5 * (c->B[3 * a] * l[0] + c->B[3 * a + 1] * l[1] + c->B[3 * a + 2] * l[2]) + c->gt[a]);
  return s;
}

/* The starting angle: lambda_v0's tangent direction, or the best usable of 64 samples. */
static int raisim_start(const raisim_contact *c, double *th) {
  *th = atan2(c->v0[2], c->v0[1]);
  if (raisim_feasible(c, *th)) return 1;
  double best = INFINITY, lam[3];
  int found = 0;
  for (int s = 0; s < 64; s++) {
    double t = -MR_PI + 2 * MR_PI * s / 64;
    if (!raisim_feasible(c, t)) continue;
    raisim_point(c, t, lam);
    double f = raisim_cost(c, lam);
    if (f < best) best = f, *th = t, found = 1;
  }
  return found;
}

/* The sliding solution: bracket the slope's sign change, then bisect. */
static void raisim_bisect(const raisim_contact *c, double tol, double out[3]) {
  double th;
  memset(out, 0, 3 * sizeof(double));
  if (!(c->gt[0] < 0) || !raisim_start(c, &th)) return;
  double d0 = raisim_slope(c, th), step = d0 > 0 ? -RAISIM_BETA1 : RAISIM_BETA1;
  double lo = th, hi = th;
  int bracketed = 0;
  for (int it = 0; it < RAISIM_SEARCH_MAX && d0 != 0; it++) {
    double tn = lo + step;
    if (!raisim_feasible(c, tn)) {
      step *= RAISIM_BETA2;
      continue;
    }
    if ((raisim_slope(c, tn) > 0) == (d0 > 0)) {
      lo = tn;
      step *= RAISIM_BETA3;
    } else {
      hi = tn;
      bracketed = 1;
      break;
    }
  }
  double prev[3];
  raisim_point(c, lo, out);
  if (!bracketed) return;
  for (int it = 0; it < RAISIM_SEARCH_MAX; it++) {
    double mid = 0.5 * (lo + hi);
    memcpy(prev, out, sizeof prev);
    raisim_point(c, mid, out);
    if ((raisim_slope(c, mid) > 0) == (d0 > 0))
      lo = mid;
    else
      hi = mid;
    double move = fmax(fabs(out[0] - prev[0]), fmax(fabs(out[1] - prev[1]), fabs(out[2] - prev[2])));
    if (move < tol || fabs(hi - lo) < 1e-15) break;
  }
}

/* lambda* of one contact (lines 3-10 of Alg. 4). */
static void raisim_target(raisim_contact *c, double tol, double out[3]) {
  memset(out, 0, 3 * sizeof(double));
  if (c->gt[0] > 0) return; /* take-off */
  double L[9], tr = c->B[0] + c->B[4] + c->B[8];
  if (!(tr > RAISIM_TINY)) return;
  if (mr_dense_cholesky(L, c->B, NULL, 1e-14 * tr, 3, 1e-14 * tr) < 0) return;
  for (int a = 0; a < 3; a++) c->v0[a] = -c->gt[a];
  mr_dense_cholesky_solve(L, 3, c->v0);
  double vt = mr_len2(c->v0[1], c->v0[2]);
  if (c->v0[0] >= 0 && vt <= c->mu * c->v0[0]) {
    memcpy(out, c->v0, 3 * sizeof(double));
  } else if (c->mu <= 0) {
    out[0] = c->B[0] > RAISIM_TINY ? fmax(-c->gt[0] / c->B[0], 0.0) : 0;
  } else {
    raisim_bisect(c, tol, out);
  }
}

/* One contact's update; returns its fixed-point residual |B (lambda* - lambda)|. */
static double raisim_contact_step(const mr_problem *p, double *lambda, int k, double alpha,
                                  double tol) {
  int n = p->nrow, r0 = p->neq + p->nlim + 3 * k;
  raisim_contact c;
  c.mu = p->mu[k];
  for (int a = 0; a < 3; a++) {
    double ca = mr_dense_row_dot(p->G, n, r0 + a, lambda) + p->g[r0 + a];
    for (int b = 0; b < 3; b++) {
      double gab = p->G[(size_t)(r0 + a) * (size_t)n + (size_t)(r0 + b)];
      ca -= gab * lambda[r0 + b];
      c.B[3 * a + b] = gab + (a == b ? raisim_reg(p, r0 + a) : 0);
    }
    c.gt[a] = ca;
  }
  double star[3], d[3];
  raisim_target(&c, tol, star);
  for (int a = 0; a < 3; a++) d[a] = star[a] - lambda[r0 + a];
  double res = 0;
  for (int a = 0; a < 3; a++)
    res = fmax(res, fabs(c.B[3 * a] * d[0] + c.B[3 * a + 1] * d[1] + c.B[3 * a + 2] * d[2]));
  for (int a = 0; a < 3; a++) lambda[r0 + a] += alpha * d[a];
  return res;
}

/* Bilateral and limit rows: exact scalar step (clamped for limits). */
static double raisim_row_step(const mr_problem *p, double *lambda, int i) {
  int n = p->nrow;
  double diag = p->G[(size_t)i * (size_t)n + (size_t)i] + raisim_reg(p, i);
  if (!(diag > RAISIM_TINY)) return 0;
  double v = mr_dense_row_dot(p->G, n, i, lambda) + p->g[i] + raisim_reg(p, i) * lambda[i];
  double x = lambda[i] - v / diag;
  if (i >= p->neq) x = fmax(x, 0.0);
  double res = fabs(x - lambda[i]) * diag;
  lambda[i] = x;
  return res;
}

void mr_solve_raisim(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  (void)work; /* no scratch beyond the stack */
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int n = p->nrow, base = p->neq + p->nlim;
  if (!mr_dense_is_finite(out->lambda, n)) memset(out->lambda, 0, sizeof(double) * (size_t)n);
  double alpha = 1, res = 0;
  double bisect_tol = fmin(RAISIM_BISECT_TOL, 1e-3 * p->tol);
  out->status = MR_SOLVER_MAX_ITER;
  for (int it = 0; it < p->max_iter; it++) {
    res = 0;
    for (int i = 0; i < base; i++) res = fmax(res, raisim_row_step(p, out->lambda, i));
    for (int k = 0; k < p->ncon; k++)
      res = fmax(res, raisim_contact_step(p, out->lambda, k, alpha, bisect_tol));
    alpha = RAISIM_ALPHA_DECAY * alpha + (1 - RAISIM_ALPHA_DECAY) * RAISIM_ALPHA_MIN;
    out->iters = it + 1;
    if (out->history) out->history[it] = res;
    if (!isfinite(res)) break;
    if (res < p->tol) {
      out->status = MR_SOLVER_CONVERGED;
      break;
    }
  }
  if (!isfinite(res) || !mr_dense_is_finite(out->lambda, n)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, n, out->lambda, out->c);
  for (int i = 0; i < n; i++) out->c[i] += p->g[i];
}
