/* `implicit`: Todorov's implicit complementarity with non-smooth Gauss-Newton (papers/001).
 *
 * Every row's impulse f and velocity v are functions of one free variable x with v = f + x
 * (eq. 14), chosen so that Signorini, the Coulomb cone and maximum dissipation hold for
 * every x (eqs. 10-13, bias b = 0 because g already carries the stabilization):
 *   contact   break x_N >= 0: f = 0;  stick |x_T| <= -mu x_N: f = -x;
 *             slip: f = (-x_N, -s x_T), s = -mu x_N / |x_T|
 *   limit     f = max(0, -x)             bilateral   f = -x (always "stick")
 * and the remaining equation r(x) = (A - I) f(x) - x + g = 0, A = G + diag(R), is solved by
 * minimizing 1/2 |r|^2 with Levenberg-Marquardt Gauss-Newton (J = (A - I) F - I, F the
 * per-row region Jacobians of digest sec. 2.5; H = J^T J + lm I):
 *   - the Newton point x_N is accepted when the actual decrease is at least half of the
 *     Gauss-Newton model's (then lm /= 10);
 *   - otherwise lm *= 10 and the dogleg x -> x_C -> x_N (x_C the Cauchy point) is searched
 *     edge-aware: the analytic crossings of both legs with the plane and cone edges
 *     (digest sec. 3.4, eq. 27 expanded) split them into smooth pieces; every crossing and
 *     the minimizer of a 3-point quadratic fit on every piece are candidates, the best
 *     point that lowers the objective is taken;
 *   - if none does, the next iteration retries with the larger damping.
 * Not implemented (documented simplifications): the edge Jacobian blending (26), the
 * tangent-space restriction (28)-(29) and the projection onto cone edges (sec. 3.6). On an
 * edge the Jacobian of the region selected by the strict inequalities is used.
 * Start: the warm start lambda gives x = (A lambda + g) - lambda; a zero warm start uses
 * the paper's "all sticking" start x = A^+ g ((A + eps I)^-1 A (A + eps I)^-1 g with
 * eps = 1e-9 max(diag A) stands in for the pseudo-inverse, see imp_start).
 * Stopping measure: |r|_inf in velocity units (the velocity equation error); iters counts
 * Gauss-Newton iterations (0 when the start already solves the problem). Dual solver on
 * G, g, mu and R.
 */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "dense.h"
#include "solver.h"

#define IMP_LM_INIT 1e-10   /* relative to max(diag A) */
#define IMP_LM_MAX 1e12     /* relative: beyond this the search has stalled */
#define IMP_PINV_EPS 1e-9   /* relative regularization of the all-sticking start */
#define IMP_MAX_CUTS 256    /* crossings kept per dogleg leg */

typedef struct imp_ctx {
  const mr_problem *p;
  int m, base;
  double *f, *Af, *r; /* at the last evaluated point */
  double *ytmp;       /* a trial point */
  double *cuts;       /* IMP_MAX_CUTS + 2 */
} imp_ctx;

static double imp_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

/* f(x) and, if F is given, the region Jacobian of one contact (row-major 3x3). */
static void imp_contact_map(const double *x, double mu, double *f, double *F) {
  double n = mr_len2(x[1], x[2]);
  if (F) memset(F, 0, 9 * sizeof(double));
  if (x[0] >= 0) { /* break */
    f[0] = f[1] = f[2] = 0;
  } else if (n <= -mu * x[0]) { /* stick */
    for (int a = 0; a < 3; a++) f[a] = -x[a];
    if (F) F[0] = F[4] = F[8] = -1;
  } else { /* slip (n > 0) */
    double s = -mu * x[0] / n, u[2] = {x[1] / n, x[2] / n};
    f[0] = -x[0], f[1] = -s * x[1], f[2] = -s * x[2];
    if (F) {
      F[0] = -1;
      for (int a = 0; a < 2; a++) {
        F[3 * (a + 1)] = mu * u[a];
        for (int b = 0; b < 2; b++) F[3 * (a + 1) + b + 1] = -s * ((a == b) - u[a] * u[b]);
      }
    }
  }
}

/* f(x) for all rows; F (block-diagonal: base scalars then 9 per contact) if given. */
static void imp_map(const imp_ctx *c, const double *x, double *f, double *F) {
  const mr_problem *p = c->p;
  for (int i = 0; i < c->base; i++) {
    int stick = i < p->neq || x[i] < 0;
    f[i] = stick ? -x[i] : 0;
    if (F) F[i] = stick ? -1 : 0;
  }
  for (int k = 0; k < p->ncon; k++) {
    int r0 = c->base + 3 * k;
    imp_contact_map(x + r0, p->mu[k], f + r0, F ? F + c->base + 9 * k : NULL);
  }
}

/* 1/2 |r(x)|^2, leaving f, A f and r in the context. */
static double imp_objective(const imp_ctx *c, const double *x) {
  const mr_problem *p = c->p;
  int m = c->m;
  imp_map(c, x, c->f, NULL);
  mr_dense_matvec(p->G, m, c->f, c->Af);
  double l = 0;
  for (int i = 0; i < m; i++) {
    c->Af[i] += imp_reg(p, i) * c->f[i];
    c->r[i] = c->Af[i] - c->f[i] - x[i] + p->g[i];
    l += c->r[i] * c->r[i];
  }
  return 0.5 * l;
}

/* J = (A - I) F - I, dense row-major. */
static void imp_jacobian(const imp_ctx *c, const double *F, double *J) {
  const mr_problem *p = c->p;
  int m = c->m;
  for (int i = 0; i < m; i++) {
    const double *Gi = p->G + (size_t)i * (size_t)m;
    double *Ji = J + (size_t)i * (size_t)m;
    for (int j = 0; j < c->base; j++) {
      double aij = Gi[j] + (i == j ? imp_reg(p, i) - 1 : 0);
      Ji[j] = aij * F[j];
    }
    for (int k = 0; k < p->ncon; k++) {
      int r0 = c->base + 3 * k;
      const double *Fk = F + c->base + 9 * k;
      double a[3];
      for (int b = 0; b < 3; b++) a[b] = Gi[r0 + b] + (i == r0 + b ? imp_reg(p, i) - 1 : 0);
      for (int b = 0; b < 3; b++) Ji[r0 + b] = a[0] * Fk[b] + a[1] * Fk[3 + b] + a[2] * Fk[6 + b];
    }
    Ji[i] -= 1;
  }
}

static void imp_add_cut(double *cuts, int *n, double a) {
  if (a > 1e-12 && a < 1 - 1e-12 && *n < IMP_MAX_CUTS) cuts[(*n)++] = a;
}

/* Crossings of the segment x0 + a d (a in (0,1)) with the plane and cone edges, sorted. */
static int imp_crossings(const imp_ctx *c, const double *x0, const double *d, double *cuts) {
  const mr_problem *p = c->p;
  int n = 0;
  for (int i = p->neq; i < c->base; i++)
    if (d[i] != 0) imp_add_cut(cuts, &n, -x0[i] / d[i]);
  for (int k = 0; k < p->ncon; k++) {
    const double *x = x0 + c->base + 3 * k, *u = d + c->base + 3 * k;
    double mu2 = p->mu[k] * p->mu[k];
    if (u[0] != 0) imp_add_cut(cuts, &n, -x[0] / u[0]); /* plane */
    double qa = mu2 * u[0] * u[0] - u[1] * u[1] - u[2] * u[2];
    double qb = 2 * (mu2 * x[0] * u[0] - x[1] * u[1] - x[2] * u[2]);
    double qc = mu2 * x[0] * x[0] - x[1] * x[1] - x[2] * x[2];
    double roots[2];
    int nr = 0;
    if (fabs(qa) < 1e-14 * (fabs(qb) + fabs(qc) + 1e-300)) {
      if (qb != 0) roots[nr++] = -qc / qb;
    } else {
      double disc = qb * qb - 4 * qa * qc;
      if (disc >= 0) {
        double sq = sqrt(disc), q = -0.5 * (qb + (qb >= 0 ? sq : -sq));
        if (q != 0) roots[nr++] = qc / q;
        roots[nr++] = q / qa;
      }
    }
    for (int j = 0; j < nr; j++)
      if (x[0] + roots[j] * u[0] <= 0) imp_add_cut(cuts, &n, roots[j]); /* lower nappe only */
  }
  for (int i = 1; i < n; i++) { /* insertion sort: n is small */
    double v = cuts[i];
    int j = i - 1;
    while (j >= 0 && cuts[j] > v) cuts[j + 1] = cuts[j], j--;
    cuts[j + 1] = v;
  }
  return n;
}

/* Objective at x0 + a d (uses ytmp). */
static double imp_at(const imp_ctx *c, const double *x0, const double *d, double a) {
  for (int i = 0; i < c->m; i++) c->ytmp[i] = x0[i] + a * d[i];
  return imp_objective(c, c->ytmp);
}

/* Best point on the leg x0 -> x0 + d: crossings and per-piece quadratic-fit minima. */
static double imp_search_leg(const imp_ctx *c, const double *x0, const double *d, double *best_a) {
  int n = imp_crossings(c, x0, d, c->cuts + 1);
  c->cuts[0] = 0;
  c->cuts[n + 1] = 1;
  double best = INFINITY, lo_val = imp_at(c, x0, d, 0);
  *best_a = 0;
  for (int s = 0; s <= n; s++) {
    double a0 = c->cuts[s], a1 = c->cuts[s + 1], am = 0.5 * (a0 + a1);
    double f1 = imp_at(c, x0, d, a1), fm = imp_at(c, x0, d, am);
    double cand[3] = {a1, am, -1}, val[3] = {f1, fm, INFINITY};
    double curv = lo_val - 2 * fm + f1; /* quadratic through the three points */
    if (curv > 0) {
      double t = 0.5 + 0.25 * (lo_val - f1) / curv; /* in units of the piece */
      if (t > 0 && t < 1) cand[2] = a0 + t * (a1 - a0), val[2] = imp_at(c, x0, d, cand[2]);
    }
    for (int j = 0; j < 3; j++)
      if (val[j] < best) best = val[j], *best_a = cand[j];
    lo_val = f1;
  }
  return best;
}

/* The start point x (warm or all-sticking); L is m x m scratch. */
static int imp_start(const imp_ctx *c, const double *lambda, double *x, double *L, double amax) {
  const mr_problem *p = c->p;
  int m = c->m, warm = 0;
  for (int i = 0; i < m; i++) warm |= lambda[i] != 0;
  if (warm) {
    mr_dense_matvec(p->G, m, lambda, x);
    for (int i = 0; i < m; i++) x[i] += imp_reg(p, i) * lambda[i] + p->g[i] - lambda[i];
    return 1;
  }
  /* x = A^+ g (f = -x, v = f + x = 0) as (A + eps)^-1 A (A + eps)^-1 g: on range(A) this is
   * A^-1 g up to O(eps), while round-off components of g along null(A) (a sphere wedged in
   * a corner, coplanar box corners) are damped instead of amplified by 1/eps. A plain
   * regularized solve turned them into opposing 1e7 impulses in null(A), where J = -A
   * cannot see them: Gauss-Newton then stalled at that start (balls in a box, mu >= 1). */
  double eps = IMP_PINV_EPS * amax, *y = c->ytmp;
  if (mr_dense_cholesky(L, p->G, p->R, eps, m, eps) < 0) return 0;
  memcpy(y, p->g, sizeof(double) * (size_t)m);
  mr_dense_cholesky_solve(L, m, y);
  mr_dense_matvec(p->G, m, y, x);
  for (int i = 0; i < m; i++) x[i] += imp_reg(p, i) * y[i];
  mr_dense_cholesky_solve(L, m, x);
  return 1;
}

static double imp_norm_inf(const double *r, int m) { return mr_dense_norm_inf(r, m); }

void mr_solve_implicit(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int m = p->nrow;
  size_t mark = mr_arena_mark(work), mm = (size_t)m * (size_t)m;
  imp_ctx c = {p, m, p->neq + p->nlim, NULL, NULL, NULL, NULL, NULL};
  double *v = mr_arena_doubles(work, 10 * (size_t)m + IMP_MAX_CUTS + 2);
  double *F = mr_arena_doubles(work, (size_t)(c.base + 9 * p->ncon) + 1);
  double *J = mr_arena_doubles(work, mm), *H = mr_arena_doubles(work, mm);
  if (!v || !F || !J || !H) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  c.f = v, c.Af = v + m, c.r = v + 2 * m, c.ytmp = v + 3 * m;
  double *x = v + 4 * m, *grad = v + 5 * m, *dN = v + 6 * m, *dC = v + 7 * m, *leg = v + 8 * m;
  double *Jd = v + 9 * m;
  c.cuts = v + 10 * m;
  double amax = 0;
  for (int i = 0; i < m; i++) amax = fmax(amax, p->G[(size_t)i * m + i] + imp_reg(p, i));
  if (!(amax > 0)) amax = 1;
  if (!mr_dense_is_finite(out->lambda, m)) memset(out->lambda, 0, sizeof(double) * (size_t)m);
  int ok = imp_start(&c, out->lambda, x, H, amax);
  double lm = IMP_LM_INIT * amax * amax, l = ok ? imp_objective(&c, x) : NAN;
  double res = imp_norm_inf(c.r, m);
  out->status = res < p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
  for (int it = 0; ok && out->status != MR_SOLVER_CONVERGED && it < p->max_iter; it++) {
    imp_map(&c, x, c.f, F);
    imp_jacobian(&c, F, J);
    for (int j = 0; j < m; j++) { /* grad = J^T r */
      double s = 0;
      for (int i = 0; i < m; i++) s += J[(size_t)i * m + j] * c.r[i];
      grad[j] = s;
    }
    for (int i = 0; i < m; i++) /* H = J^T J (+ lm I in the factor) */
      for (int j = 0; j <= i; j++) {
        double s = 0;
        for (int k = 0; k < m; k++) s += J[(size_t)k * m + i] * J[(size_t)k * m + j];
        H[(size_t)i * m + j] = H[(size_t)j * m + i] = s;
      }
    if (mr_dense_cholesky(H, H, NULL, lm, m, 1e-300) < 0) {
      ok = 0;
      break;
    }
    for (int i = 0; i < m; i++) dN[i] = -grad[i];
    mr_dense_cholesky_solve(H, m, dN);
    mr_dense_matvec(J, m, dN, Jd); /* predicted decrease of the Gauss-Newton model */
    double pred = 0, jj = 0, gg = 0;
    for (int i = 0; i < m; i++) pred -= grad[i] * dN[i] + 0.5 * Jd[i] * Jd[i];
    for (int i = 0; i < m; i++) leg[i] = x[i] + dN[i];
    double lN = imp_objective(&c, leg);
    if (l - lN >= 0.5 * pred && lN < l) {
      memcpy(x, leg, sizeof(double) * (size_t)m);
      lm = fmax(lm / 10, IMP_LM_INIT * amax * amax);
    } else {
      lm *= 10;
      mr_dense_matvec(J, m, grad, Jd); /* Cauchy point along -grad */
      for (int i = 0; i < m; i++) gg += grad[i] * grad[i], jj += Jd[i] * Jd[i];
      double t = jj > 0 ? gg / jj : 0;
      for (int i = 0; i < m; i++) dC[i] = -t * grad[i];
      double a1, a2;
      double l1 = imp_search_leg(&c, x, dC, &a1);
      for (int i = 0; i < m; i++) leg[i] = x[i] + dC[i], dN[i] -= dC[i]; /* x_C -> x_N */
      double l2 = imp_search_leg(&c, leg, dN, &a2);
      if (l2 < l1 && l2 < l) {
        for (int i = 0; i < m; i++) x[i] = leg[i] + a2 * dN[i];
      } else if (l1 < l) {
        for (int i = 0; i < m; i++) x[i] += a1 * dC[i];
      } else if (lm > IMP_LM_MAX * amax * amax) {
        break; /* stalled: not converged */
      }
    }
    l = imp_objective(&c, x);
    res = imp_norm_inf(c.r, m);
    out->iters = it + 1;
    if (out->history) out->history[it] = res;
    if (!isfinite(res)) break;
    if (res < p->tol) out->status = MR_SOLVER_CONVERGED;
  }
  if (ok) { /* f at the final x (the search may have left a trial point's f behind) */
    imp_objective(&c, x);
    res = imp_norm_inf(c.r, m);
    memcpy(out->lambda, c.f, sizeof(double) * (size_t)m);
  }
  mr_arena_restore(work, mark);
  if (!ok || !isfinite(res) || !mr_dense_is_finite(out->lambda, m)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, m, out->lambda, out->c);
  for (int i = 0; i < m; i++) out->c[i] += p->g[i];
}
