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
 * per-row region Jacobians of digest sec. 2.5; H = J^T J + lm I).
 *
 * Edges (where r has a kink: a contact's plane x_N = 0 and cone |x_T| = -mu x_N, a limit's
 * x = 0) are handled as in the paper's sec. 3.2-3.7:
 *   - a block is "on" an edge only when the solver put it there: the edge-aware line search
 *     stopped at its crossing, or a later step kept it there. The flag is carried from
 *     iteration to iteration and x is snapped onto the edge exactly, since a round-off
 *     distance would select one side's Jacobian (digest sec. 6, note 8);
 *   - every iteration re-tests each flagged edge with the one-sided slopes (25): if the
 *     objective falls into either side the edge is inactive, the flag is dropped and the
 *     steeper side's Jacobian is used; otherwise the sides' Jacobians are blended (26),
 *     which puts the gradient into the edge;
 *   - steps of blocks on active edges are restricted to the edge's tangent space (28): B is
 *     block-diagonal with I for free blocks, (e_T1, e_T2) on a plane, no column for a limit
 *     and the orthonormal generator/circle pair on a cone (eq. 29 with the digest's
 *     erratum: the printed first column is not tangent unless mu = 1); the Newton and
 *     Cauchy points come from the reduced model B^T H B, B^T g;
 *   - x_N and x_C are projected back onto the cones of active cone blocks (sec. 3.6, closed
 *     form), and so is the point the line search picks, since on a chord between two cone
 *     points it lies inside the cone (if projecting it loses the decrease, the point is
 *     kept as it is and the flags are dropped).
 * The step (sec. 3.7): the Newton point is accepted when the actual decrease is at least
 * half of the model's (then lm /= 10); otherwise lm *= 10 and the dogleg x -> x_C -> x_N is
 * searched edge-aware: the analytic crossings of both legs with the plane and cone edges of
 * the free blocks (eq. 27 expanded) split them into smooth pieces; every crossing and the
 * minimizer of a 3-point quadratic fit on every piece (the paper leaves its cubic search
 * unspecified; the pieces are quadratic in break and stick) are candidates, the best point
 * that lowers the objective is taken. If none does, the next iteration retries with the
 * larger damping, up to IMP_LM_MAX.
 * Stationary points (the model predicts no decrease while r != 0, so J is singular) are
 * common here, unlike in the paper: A is singular for wedged balls and redundant contacts,
 * and g carries a stabilization bias that need not lie in range(A). One escape is tried
 * (imp_escape); if it finds nothing, the solver stops at that local minimum, as the paper's
 * pseudocode does, instead of raising the damping until IMP_LM_MAX (about 20 more
 * iterations that cannot move a point with a zero gradient). Many of these problems have no
 * solution (a ball jammed in a corner by mu >= 1), some do and are left unsolved.
 * Simplifications: a cone apex (x = 0) is never "on" an edge (its three regions meet; the
 * region of the strict inequalities is used), and several edges of one block at once
 * (plane and cone) only occur at the apex.
 * Start: the warm start lambda gives x = (A lambda + g) - lambda; a zero warm start uses
 * the paper's "all sticking" start x = A^+ g ((A + eps I)^-1 A (A + eps I)^-1 g with
 * eps = 1e-9 max(diag A) stands in for the pseudo-inverse, see imp_start).
 * Stopping measure: |r|_inf in velocity units (the velocity equation error); iters counts
 * Gauss-Newton iterations, the last unsuccessful one included (0 when the start already
 * solves the problem). Dual solver on G, g, mu and R.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "solver.h"

#define IMP_LM_INIT 1e-10   /* relative to max(diag A) */
#define IMP_LM_MAX 1e12     /* relative: beyond this the search has stalled */
#define IMP_PINV_EPS 1e-9   /* relative regularization of the all-sticking start */
#define IMP_MAX_CUTS 256    /* crossings kept per dogleg leg */
#define IMP_STATIONARY 1e-6 /* predicted decrease / l below which x is a stationary point */
#define IMP_ESCAPE_REACH 2  /* escape leg length / |x| */

enum { IMP_FREE = 0, IMP_PLANE = 1, IMP_CONE = 2 }; /* the edge a block is on */

/* Blocks: the neq + nlim single rows, then one block of 3 rows per contact. F (region or
 * blended Jacobian, sz x sz) and B (tangent basis, sz x ncol, row stride sz) of a block
 * start at imp_off. */
typedef struct imp_ctx {
  const mr_problem *p;
  int m, base, nblk;
  double *f, *Af, *r; /* at the last evaluated point */
  double *ytmp;       /* a trial point */
  double *cuts;       /* IMP_MAX_CUTS + 2 crossings of a leg ... */
  int *cut_edge;      /* ... and which edge each is: 4 block + kind */
  int *edge;          /* per block: IMP_FREE, IMP_PLANE or IMP_CONE */
  int *ncol;          /* per block: columns of B */
  double *F, *B;
} imp_ctx;

static double imp_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }
static int imp_size(const imp_ctx *c, int b) { return b < c->base ? 1 : 3; }
static int imp_row0(const imp_ctx *c, int b) {
  return b < c->base ? b : c->base + 3 * (b - c->base);
}
static int imp_off(const imp_ctx *c, int b) {
  return b < c->base ? b : c->base + 9 * (b - c->base);
}
static double imp_mu(const imp_ctx *c, int b) { return c->p->mu[b - c->base]; }

/* The slip Jacobian for the tangent direction u with ratio s (digest sec. 2.5). */
static void imp_slip_jacobian(const double *u, double mu, double s, double *F) {
  memset(F, 0, 9 * sizeof(double));
  F[0] = -1;
  for (int a = 0; a < 2; a++) {
    F[3 * (a + 1)] = mu * u[a];
    for (int b = 0; b < 2; b++) F[3 * (a + 1) + b + 1] = -s * ((a == b) - u[a] * u[b]);
  }
}

static void imp_stick_jacobian(double *F) {
  memset(F, 0, 9 * sizeof(double));
  F[0] = F[4] = F[8] = -1;
}

/* f(x) and, if F is given, the region Jacobian of one contact (row-major 3x3). */
static void imp_contact_map(const double *x, double mu, double *f, double *F) {
  double n = mr_len2(x[1], x[2]);
  if (x[0] >= 0) { /* break */
    f[0] = f[1] = f[2] = 0;
    if (F) memset(F, 0, 9 * sizeof(double));
  } else if (n <= -mu * x[0]) { /* stick */
    for (int a = 0; a < 3; a++) f[a] = -x[a];
    if (F) imp_stick_jacobian(F);
  } else { /* slip (n > 0) */
    double s = -mu * x[0] / n, u[2] = {x[1] / n, x[2] / n};
    f[0] = -x[0], f[1] = -s * x[1], f[2] = -s * x[2];
    if (F) imp_slip_jacobian(u, mu, s, F);
  }
}

/* f(x) for all rows. */
static void imp_map(const imp_ctx *c, const double *x, double *f) {
  const mr_problem *p = c->p;
  for (int i = 0; i < c->base; i++) f[i] = (i < p->neq || x[i] < 0) ? -x[i] : 0;
  for (int k = 0; k < p->ncon; k++) {
    int r0 = c->base + 3 * k;
    imp_contact_map(x + r0, p->mu[k], f + r0, NULL);
  }
}

/* 1/2 |r(x)|^2, leaving f, A f and r in the context. */
static double imp_objective(const imp_ctx *c, const double *x) {
  const mr_problem *p = c->p;
  int m = c->m;
  imp_map(c, x, c->f);
  mr_dense_matvec(p->G, m, c->f, c->Af);
  double l = 0;
  for (int i = 0; i < m; i++) {
    c->Af[i] += imp_reg(p, i) * c->f[i];
    c->r[i] = c->Af[i] - c->f[i] - x[i] + p->g[i];
    l += c->r[i] * c->r[i];
  }
  return 0.5 * l;
}

/* ------------------------------------------------------------------ edges */

/* The closest point of the cone edge |x_T| = -mu x_N (x_N <= 0) to x (digest sec. 3.6). */
static void imp_project_cone(double *x, double mu) {
  double n = mr_len2(x[1], x[2]), tau = (mu * n - x[0]) / (1 + mu * mu);
  if (tau <= 0 || n == 0) {
    x[0] = x[1] = x[2] = 0; /* the apex */
    return;
  }
  x[0] = -tau, x[1] *= mu * tau / n, x[2] *= mu * tau / n;
}

/* Puts every flagged block exactly onto its edge (round-off of steps and crossings). */
static void imp_settle(const imp_ctx *c, double *x) {
  for (int b = c->p->neq; b < c->nblk; b++) {
    double *xb = x + imp_row0(c, b);
    if (c->edge[b] == IMP_PLANE) xb[0] = 0;
    if (c->edge[b] == IMP_CONE) imp_project_cone(xb, imp_mu(c, b));
  }
}

/* The Jacobians F1, F2 on the two sides of block b's edge and the edge normal d pointing
 * into side 1 (digest sec. 3.2, "edge data"). 0 when the block is at a cone apex. */
static int imp_edge_sides(const imp_ctx *c, int b, const double *xb, double *F1, double *F2,
                          double *d) {
  if (imp_size(c, b) == 1) { /* limit: break above, stick below */
    F1[0] = 0, F2[0] = -1, d[0] = 1;
    return 1;
  }
  double mu = imp_mu(c, b), n = mr_len2(xb[1], xb[2]);
  double u[2] = {n > 0 ? xb[1] / n : 0, n > 0 ? xb[2] / n : 0};
  if (c->edge[b] == IMP_PLANE) { /* side 1 break, side 2 slip at s = 0 (stick at x_T = 0) */
    memset(F1, 0, 9 * sizeof(double));
    if (n > 0) imp_slip_jacobian(u, mu, 0, F2);
    else imp_stick_jacobian(F2);
    d[0] = 1, d[1] = d[2] = 0;
    return 1;
  }
  if (n == 0) return 0;
  double w = 1 / sqrt(1 + mu * mu); /* cone: side 1 slip at s = 1, side 2 stick */
  imp_slip_jacobian(u, mu, 1, F1);
  imp_stick_jacobian(F2);
  d[0] = mu * w, d[1] = u[0] * w, d[2] = u[1] * w;
  return 1;
}

/* r^T J d for J = (A - I) F - I restricted to one block: rho^T F d - r^T d, rho = (A-I)^T r. */
static double imp_slope(const double *F, const double *d, const double *rho, const double *r,
                        int sz) {
  double s = 0;
  for (int a = 0; a < sz; a++) {
    double Fd = 0;
    for (int e = 0; e < sz; e++) Fd += F[a * sz + e] * d[e];
    s += rho[a] * Fd - r[a] * d[a];
  }
  return s;
}

/* Block b's tangent basis: identity, or the edge's orthonormal tangent columns (eq. 29). */
static void imp_basis(const imp_ctx *c, int b, const double *xb) {
  int sz = imp_size(c, b);
  double *B = c->B + imp_off(c, b);
  memset(B, 0, (size_t)(sz * sz) * sizeof(double));
  if (c->edge[b] == IMP_FREE) {
    for (int a = 0; a < sz; a++) B[a * sz + a] = 1;
    c->ncol[b] = sz;
  } else if (sz == 1) { /* a limit on its edge is fixed */
    c->ncol[b] = 0;
  } else if (c->edge[b] == IMP_PLANE) { /* x_N stays 0 */
    B[3] = B[7] = 1;
    c->ncol[b] = 2;
  } else { /* cone: the generator through x and the circle around the axis */
    double mu = imp_mu(c, b), n = mr_len2(xb[1], xb[2]), w = 1 / sqrt(1 + mu * mu);
    double u0 = xb[1] / n, u1 = xb[2] / n;
    B[0] = -w, B[3] = mu * u0 * w, B[6] = mu * u1 * w;
    B[4] = -u1, B[7] = u0;
    c->ncol[b] = 2;
  }
}

/* F and B of every block at x. Flagged edges are re-tested with the slopes (25) into both
 * sides: an active edge blends the sides' Jacobians (26), an inactive one is left. */
static void imp_blocks(const imp_ctx *c, const double *x, const double *rho) {
  const mr_problem *p = c->p;
  for (int b = 0; b < c->nblk; b++) {
    int r0 = imp_row0(c, b), sz = imp_size(c, b);
    const double *xb = x + r0;
    double *F = c->F + imp_off(c, b), F1[9], F2[9], d[3], fb[3];
    if (b < p->neq) F[0] = -1;
    else if (sz == 1) F[0] = xb[0] < 0 ? -1 : 0;
    else imp_contact_map(xb, imp_mu(c, b), fb, F);
    if (c->edge[b] != IMP_FREE) {
      if (!imp_edge_sides(c, b, xb, F1, F2, d)) {
        c->edge[b] = IMP_FREE;
      } else {
        double d1 = imp_slope(F1, d, rho + r0, c->r + r0, sz);
        double d2 = -imp_slope(F2, d, rho + r0, c->r + r0, sz);
        if (d1 >= 0 && d2 >= 0) {
          double w1 = d1 + d2 > 0 ? d2 / (d1 + d2) : 0.5;
          for (int e = 0; e < sz * sz; e++) F[e] = w1 * F1[e] + (1 - w1) * F2[e];
        } else {
          memcpy(F, d1 < d2 ? F1 : F2, (size_t)(sz * sz) * sizeof(double));
          c->edge[b] = IMP_FREE;
        }
      }
    }
    imp_basis(c, b, xb);
  }
}

/* ------------------------------------------------------------------ the reduced model */

/* JT = (J B)^T = (F B)^T (A - I) - B^T (A symmetric), nr x m row-major; returns nr. */
static int imp_reduced_jacobian_t(const imp_ctx *c, double *JT) {
  const mr_problem *p = c->p;
  int m = c->m, col = 0;
  for (int b = 0; b < c->nblk; b++) {
    int r0 = imp_row0(c, b), sz = imp_size(c, b), nc = c->ncol[b];
    const double *F = c->F + imp_off(c, b), *B = c->B + imp_off(c, b);
    for (int j = 0; j < nc; j++, col++) {
      double *row = JT + (size_t)col * (size_t)m;
      memset(row, 0, sizeof(double) * (size_t)m);
      for (int a = 0; a < sz; a++) {
        double fb = 0;
        for (int e = 0; e < sz; e++) fb += F[a * sz + e] * B[e * sz + j];
        const double *Ga = p->G + (size_t)(r0 + a) * (size_t)m;
        if (fb != 0) {
          for (int i = 0; i < m; i++) row[i] += fb * Ga[i];
          row[r0 + a] += fb * (imp_reg(p, r0 + a) - 1);
        }
        row[r0 + a] -= B[a * sz + j];
      }
    }
  }
  return col;
}

/* out = x + t B xi (x NULL: 0). */
static void imp_expand(const imp_ctx *c, const double *x, const double *xi, double t,
                       double *out) {
  int col = 0;
  for (int b = 0; b < c->nblk; b++) {
    int r0 = imp_row0(c, b), sz = imp_size(c, b);
    const double *B = c->B + imp_off(c, b);
    for (int a = 0; a < sz; a++) {
      double s = 0;
      for (int j = 0; j < c->ncol[b]; j++) s += B[a * sz + j] * xi[col + j];
      out[r0 + a] = (x ? x[r0 + a] : 0) + t * s;
    }
    col += c->ncol[b];
  }
}

/* out = B^T y. */
static void imp_reduce(const imp_ctx *c, const double *y, double *out) {
  int col = 0;
  for (int b = 0; b < c->nblk; b++) {
    int r0 = imp_row0(c, b), sz = imp_size(c, b);
    const double *B = c->B + imp_off(c, b);
    for (int j = 0; j < c->ncol[b]; j++, col++) {
      out[col] = 0;
      for (int a = 0; a < sz; a++) out[col] += B[a * sz + j] * y[r0 + a];
    }
  }
}

/* y = JT^T xi (= J B xi), JT nr x m. */
static void imp_jt_apply(const double *JT, int nr, int m, const double *xi, double *y) {
  memset(y, 0, sizeof(double) * (size_t)m);
  for (int j = 0; j < nr; j++) {
    const double *row = JT + (size_t)j * (size_t)m;
    for (int i = 0; i < m; i++) y[i] += xi[j] * row[i];
  }
}

/* H = JT JT^T (nr x nr) and grad = JT r. */
static void imp_normal_equations(const double *JT, int nr, int m, const double *r, double *H,
                                 double *grad) {
  for (int i = 0; i < nr; i++) {
    const double *ri = JT + (size_t)i * (size_t)m;
    grad[i] = 0;
    for (int k = 0; k < m; k++) grad[i] += ri[k] * r[k];
    for (int j = 0; j <= i; j++) {
      const double *rj = JT + (size_t)j * (size_t)m;
      double s = 0;
      for (int k = 0; k < m; k++) s += ri[k] * rj[k];
      H[(size_t)i * nr + j] = H[(size_t)j * nr + i] = s;
    }
  }
}

/* ------------------------------------------------------------------ edge-aware line search */

static void imp_add_cut(const imp_ctx *c, int *n, double a, int code) {
  if (a > 1e-12 && a < 1 - 1e-12 && *n < IMP_MAX_CUTS)
    c->cuts[1 + *n] = a, c->cut_edge[(*n)++] = code;
}

/* Real roots of the cone equation (27) along x + a u on the lower nappe, added as cuts. */
static void imp_cone_cuts(const imp_ctx *c, int *n, const double *x, const double *u, double mu,
                          int code) {
  double mu2 = mu * mu, roots[2];
  double qa = mu2 * u[0] * u[0] - u[1] * u[1] - u[2] * u[2];
  double qb = 2 * (mu2 * x[0] * u[0] - x[1] * u[1] - x[2] * u[2]);
  double qc = mu2 * x[0] * x[0] - x[1] * x[1] - x[2] * x[2];
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
    if (x[0] + roots[j] * u[0] <= 0) imp_add_cut(c, n, roots[j], code);
}

/* Crossings of x0 + a d (a in (0,1)) with the edges of the free blocks, sorted, in
 * cuts[1..n] with their edges in cut_edge[0..n). Blocks on an active edge move along it. */
static int imp_crossings(const imp_ctx *c, const double *x0, const double *d) {
  int n = 0;
  for (int b = c->p->neq; b < c->nblk; b++) {
    if (c->edge[b] != IMP_FREE) continue;
    int r0 = imp_row0(c, b);
    if (d[r0] != 0) imp_add_cut(c, &n, -x0[r0] / d[r0], 4 * b + IMP_PLANE);
    if (imp_size(c, b) == 3)
      imp_cone_cuts(c, &n, x0 + r0, d + r0, imp_mu(c, b), 4 * b + IMP_CONE);
  }
  for (int i = 1; i < n; i++) { /* insertion sort: n is small */
    double v = c->cuts[1 + i];
    int e = c->cut_edge[i], j = i - 1;
    while (j >= 0 && c->cuts[1 + j] > v)
      c->cuts[2 + j] = c->cuts[1 + j], c->cut_edge[j + 1] = c->cut_edge[j], j--;
    c->cuts[2 + j] = v, c->cut_edge[j + 1] = e;
  }
  return n;
}

/* Objective at x0 + a d (uses ytmp). */
static double imp_at(const imp_ctx *c, const double *x0, const double *d, double a) {
  for (int i = 0; i < c->m; i++) c->ytmp[i] = x0[i] + a * d[i];
  return imp_objective(c, c->ytmp);
}

/* The best point on the leg x0 -> x0 + d: crossings and per-piece quadratic-fit minima.
 * *edge is the crossing's edge code when the best point is one, else -1. */
static double imp_search_leg(const imp_ctx *c, const double *x0, const double *d, double *best_a,
                             int *edge) {
  int n = imp_crossings(c, x0, d);
  c->cuts[0] = 0;
  c->cuts[n + 1] = 1;
  double best = INFINITY, lo_val = imp_at(c, x0, d, 0);
  *best_a = 0, *edge = -1;
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
      if (val[j] < best)
        best = val[j], *best_a = cand[j], *edge = (j == 0 && s < n) ? c->cut_edge[s] : -1;
    lo_val = f1;
  }
  return best;
}

/* ------------------------------------------------------------------ start */

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

/* ------------------------------------------------------------------ iteration */

/* Scratch vectors of one solve (m doubles each, from the arena). */
typedef struct imp_vecs {
  double *x, *rho, *grad, *xi, *Jd, *xN, *xC, *leg, *best;
} imp_vecs;

/* Moves x to v->best (a searched point below l; e its crossing's edge code or -1): the
 * flagged blocks are snapped onto their edges if that keeps the decrease. */
static void imp_move(imp_ctx *c, imp_vecs *v, int e, double l) {
  int m = c->m;
  if (e >= 0) c->edge[e / 4] = e % 4; /* stopped at a crossing: now on that edge */
  memcpy(v->xC, v->best, sizeof(double) * (size_t)m);
  imp_settle(c, v->xC);
  if (imp_objective(c, v->xC) < l) {
    memcpy(v->x, v->xC, sizeof(double) * (size_t)m);
  } else { /* snapping (or re-projecting a chord point) lost the decrease */
    memcpy(v->x, v->best, sizeof(double) * (size_t)m);
    memset(c->edge, 0, sizeof(int) * (size_t)c->nblk);
  }
}

/* The escape from a stationary point with r != 0. With every contact sticking, r keeps the
 * part of g outside range(A) wherever x moves along null(A): l is flat there until some
 * contact reaches an edge and changes region. So a long leg is searched edge-aware, as in
 * the dogleg, both ways along an approximate null direction of J B (two inverse iterations
 * with H's factor L from B^T r, which lies in null(A) when all stick). Moves x and returns
 * 1 when a point lowers l. */
static int imp_escape(imp_ctx *c, imp_vecs *v, const double *L, int nr, double l) {
  int m = c->m, e1, e2;
  double a1, a2, xn = 0, dn = 0;
  imp_reduce(c, c->r, v->xi);
  mr_dense_cholesky_solve(L, nr, v->xi);
  mr_dense_cholesky_solve(L, nr, v->xi);
  imp_expand(c, NULL, v->xi, 1, v->leg);
  for (int i = 0; i < m; i++) xn += v->x[i] * v->x[i], dn += v->leg[i] * v->leg[i];
  if (!(dn > 0)) return 0;
  double t = IMP_ESCAPE_REACH * sqrt(xn / dn);
  for (int i = 0; i < m; i++) v->leg[i] *= t;
  double lp = imp_search_leg(c, v->x, v->leg, &a1, &e1);
  for (int i = 0; i < m; i++) v->leg[i] = -v->leg[i];
  double ln = imp_search_leg(c, v->x, v->leg, &a2, &e2);
  if (!(fmin(lp, ln) < l)) return 0;
  if (lp < ln) a2 = -a1, e2 = e1;
  for (int i = 0; i < m; i++) v->best[i] = v->x[i] + a2 * v->leg[i];
  imp_move(c, v, e2, l);
  return 1;
}

/* The dogleg x -> x_C -> x_N, searched edge-aware; x_N is in v->xN and the Gauss-Newton
 * model's gradient in v->grad. Moves x and returns 1 when a point lowers l. */
static int imp_dogleg(imp_ctx *c, imp_vecs *v, const double *JT, int nr, double l) {
  int m = c->m, e1, e2;
  double gg = 0, jj = 0, a1, a2;
  imp_jt_apply(JT, nr, m, v->grad, v->Jd); /* Cauchy point along -grad (eq. 28) */
  for (int j = 0; j < nr; j++) gg += v->grad[j] * v->grad[j];
  for (int i = 0; i < m; i++) jj += v->Jd[i] * v->Jd[i];
  imp_expand(c, v->x, v->grad, jj > 0 ? -gg / jj : 0, v->xC);
  imp_settle(c, v->xC);
  for (int i = 0; i < m; i++) v->leg[i] = v->xC[i] - v->x[i];
  double l1 = imp_search_leg(c, v->x, v->leg, &a1, &e1);
  for (int i = 0; i < m; i++) v->best[i] = v->x[i] + a1 * v->leg[i];
  for (int i = 0; i < m; i++) v->leg[i] = v->xN[i] - v->xC[i];
  double l2 = imp_search_leg(c, v->xC, v->leg, &a2, &e2);
  if (l2 < l1) {
    for (int i = 0; i < m; i++) v->best[i] = v->xC[i] + a2 * v->leg[i];
    l1 = l2, e1 = e2;
  }
  if (!(l1 < l)) return 0;
  imp_move(c, v, e1, l);
  return 1;
}

/* What an iteration did. */
enum { IMP_MOVED, IMP_RETRY, IMP_STUCK, IMP_FAILED };

/* One Gauss-Newton iteration from v->x (objective l, residual in c->r); *lm is adapted.
 * IMP_RETRY: nothing lowered l (the next iteration retries with more damping); IMP_STUCK:
 * a stationary point no escape leaves (the paper's "local minimum"); IMP_FAILED: a
 * numerical failure. */
static int imp_iterate(imp_ctx *c, imp_vecs *v, double *JT, double *H, double l, double *lm,
                       double lm_min) {
  const mr_problem *p = c->p;
  int m = c->m;
  mr_dense_matvec(p->G, m, c->r, v->rho); /* rho = (A - I) r, A symmetric */
  for (int i = 0; i < m; i++) v->rho[i] += (imp_reg(p, i) - 1) * c->r[i];
  imp_blocks(c, v->x, v->rho);
  int nr = imp_reduced_jacobian_t(c, JT);
  imp_normal_equations(JT, nr, m, c->r, H, v->grad);
  if (mr_dense_cholesky(H, H, NULL, *lm, nr, 1e-300) < 0) return IMP_FAILED;
  for (int j = 0; j < nr; j++) v->xi[j] = -v->grad[j];
  mr_dense_cholesky_solve(H, nr, v->xi); /* the Newton point (28) */
  imp_jt_apply(JT, nr, m, v->xi, v->Jd); /* predicted decrease of the Gauss-Newton model */
  double pred = 0;
  for (int j = 0; j < nr; j++) pred -= v->grad[j] * v->xi[j];
  for (int i = 0; i < m; i++) pred -= 0.5 * v->Jd[i] * v->Jd[i];
  imp_expand(c, v->x, v->xi, 1, v->xN);
  imp_settle(c, v->xN);
  double lN = imp_objective(c, v->xN);
  if (l - lN >= 0.5 * pred && lN < l) {
    memcpy(v->x, v->xN, sizeof(double) * (size_t)m);
    *lm = fmax(*lm / 10, lm_min);
    return IMP_MOVED;
  }
  *lm *= 10;
  if (pred <= IMP_STATIONARY * l) /* no model predicts a decrease: only the escape can */
    return imp_escape(c, v, H, nr, l) ? IMP_MOVED : IMP_STUCK;
  return imp_dogleg(c, v, JT, nr, l) ? IMP_MOVED : IMP_RETRY;
}

void mr_solve_implicit(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int m = p->nrow;
  size_t mark = mr_arena_mark(work), mm = (size_t)m * (size_t)m;
  imp_ctx c = {0};
  c.p = p, c.m = m, c.base = p->neq + p->nlim, c.nblk = c.base + p->ncon;
  size_t nfb = (size_t)(c.base + 9 * p->ncon) + 1;
  double *s = mr_arena_doubles(work, 13 * (size_t)m + IMP_MAX_CUTS + 2 + 2 * nfb);
  int *ints = mr_arena_ints(work, 2 * (size_t)c.nblk + IMP_MAX_CUTS + 1);
  double *JT = mr_arena_doubles(work, mm), *H = mr_arena_doubles(work, mm);
  if (!s || !ints || !JT || !H) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  c.f = s, c.Af = s + m, c.r = s + 2 * m, c.ytmp = s + 3 * m;
  imp_vecs v = {s + 4 * m, s + 5 * m, s + 6 * m, s + 7 * m, s + 8 * m,
                s + 9 * m, s + 10 * m, s + 11 * m, s + 12 * m};
  c.cuts = s + 13 * m, c.F = c.cuts + IMP_MAX_CUTS + 2, c.B = c.F + nfb;
  c.edge = ints, c.ncol = ints + c.nblk, c.cut_edge = ints + 2 * c.nblk;
  memset(c.edge, 0, sizeof(int) * (size_t)c.nblk);
  double amax = 0;
  for (int i = 0; i < m; i++) amax = fmax(amax, p->G[(size_t)i * m + i] + imp_reg(p, i));
  if (!(amax > 0)) amax = 1;
  if (!mr_dense_is_finite(out->lambda, m)) memset(out->lambda, 0, sizeof(double) * (size_t)m);
  int ok = imp_start(&c, out->lambda, v.x, H, amax);
  double lm_min = IMP_LM_INIT * amax * amax, lm = lm_min;
  double l = ok ? imp_objective(&c, v.x) : NAN, res = mr_dense_norm_inf(c.r, m);
  out->status = res < p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
  for (int it = 0; ok && out->status != MR_SOLVER_CONVERGED && it < p->max_iter; it++) {
    int done = imp_iterate(&c, &v, JT, H, l, &lm, lm_min);
    ok = done != IMP_FAILED;
    if (!ok) break;
    out->iters = it + 1;
    int stop = done == IMP_STUCK || (done == IMP_RETRY && lm > IMP_LM_MAX * amax * amax);
    if (!stop) { /* (a stop leaves x, l and res as they were) */
      l = imp_objective(&c, v.x);
      res = mr_dense_norm_inf(c.r, m);
    }
    if (out->history) out->history[it] = res;
    if (stop || !isfinite(res)) break;
    if (res < p->tol) out->status = MR_SOLVER_CONVERGED;
  }
  if (ok) { /* f at the final x (the search may have left a trial point's f behind) */
    imp_objective(&c, v.x);
    res = mr_dense_norm_inf(c.r, m);
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
