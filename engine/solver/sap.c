/* `sap`: Drake's Semi-Analytic Primal solver for convex compliant contact (papers/004).
 *
 * Model (digest sec. 5). Per contact k, with w = |G_kk|_F / 3 (the paper's RMS Delassus
 * estimate), beta = 1, sigma = 1e-3:
 *   R_t = sigma w,   R_n = max(beta^2/(4 pi^2) w, 1/(dt k (dt + tau_d))),
 *   v_hat_n = -(phi0 + slop) / (dt + tau_d),  phi0 = dist (signed distance at the step
 *   start), slop the depth a resting contact is held at (SAP_SLOP below),
 * with the near-rigid defaults k = infinity (the beta clamp sets the stiffness, as in the
 * paper's Clutter runs) and tau_d = beta dt / pi (critical damping, digest sec. 2) unless
 * opt.sap_tau_d sets it (the Clutter runs use tau_d = dt). The
 * contact velocity target is the free velocity J v_free (from p->J and p->v_free, else g):
 * SAP's own v_hat replaces the constraint stage's Baumgarte bias on contacts. Bilateral
 * rows and limit rows keep g (with the stage's bias) and are near-rigid like Drake's
 * holonomic and limit constraints: R = beta^2/(4 pi^2) (G_ii + eps) (+ p->R), gamma = y and
 * gamma = max(0, y) respectively.
 *
 * Form. The dual (22) min_{gamma in F} 1/2 gamma^T (G + R) gamma + r^T gamma is solved
 * through SAP's unconstrained primal (24) written in constraint coordinates: factor
 * G + eps I = L L^T (eps = 1e-12 max G_ii, so redundant rows never break it) and take
 * A = I, J = L. With z = v - v* the cost is
 *   l(z) = 1/2 |z|^2 + sum_i l_R,i(u_i),   u = L z + r,   r = v_c* - v_hat,
 * gradient z - L^T gamma(u) and Hessian I + L^T G_c L (G_c = -d gamma/du, per-row blocks,
 * digest sec. 6.2). This is the paper's algorithm with the mass metric replaced by G's own;
 * it needs only G, g, mu, dist (and J, v_free when present), so hand-built problems work.
 *
 * Method (Alg. 2). Warm start: z = L^T lambda (last step's impulses) or the step-start
 * velocity (Drake's), whichever costs less (sap_warm_start). Newton direction by Cholesky of the Hessian,
 * exact line search on alpha in [0, 1.5] (Newton on dl/dalpha safeguarded by bisection,
 * the rtsafe scheme; O(m) per trial with u(alpha) = u + alpha L dz). Stop when
 * |grad| < 1e-16 + tol max(|z|, |L^T gamma|): (26) with the momentum scale taken in
 * constraint space (|z| = |A (v - v*)|), since v* itself is undefined along null(G).
 * history[k] and residual hold the dimensionless momentum error (32); iters counts Newton
 * iterations (0 when the warm start already passes). out->lambda = gamma.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "engine/core/mr_math.h"
#include "solver.h"

#define SAP_BETA 1.0
#define SAP_SIGMA 1e-3
#define SAP_STIFFNESS INFINITY /* contact stiffness k (N/m): near-rigid by default */
#define SAP_EPS_ABS 1e-16
#define SAP_ALPHA_MAX 1.5
#define SAP_LS_MAX 100
#define SAP_LS_FTOL 1e-8
/* A resting contact is held min(SAP_SLOP dt^2, SAP_SLOP_MAX) deep (0.25 um at dt = 1 ms, about
 * the paper's static penetration beta^2 g dt^2 / (4 pi^2)): v_hat_n = -(phi0 + slop) / (dt +
 * tau_d). Aimed at phi = 0 exactly, the near-rigid spring lifted a resting body a round-off
 * above its support, its rows vanished (a contact is a row only below margin - gap, 0 by
 * default), it fell a step and landed again, and a box on a sticking incline rocked on
 * alternate edges (rows 4-2-2) and crept down it. A depth fixed in dt (the constraint
 * stage's 1 um MR_CONTACT_SLOP) shifts a rolling contact's radius by O(1) and cost the
 * midpoint scheme its second order on the spring-cylinder; O(dt^2) keeps it. The cap keeps
 * coarse steps shallow: 25 um at dt = 10 ms tripled the Newton iterations of the resting
 * Clutter pile (contacts wedged between bodies each asking for the depth). At 10 ms the
 * capped depth is too shallow to stop the rocking on the incline; a contact margin (a
 * geom's margin="...") keeps the rows and stops it at any step. */
#define SAP_SLOP 0.25
#define SAP_SLOP_MAX 1e-6

typedef struct sap_ctx {
  const mr_problem *p;
  int m, base;
  double *Rr;    /* m: per-row regularization (R_n, R_t, R_t for contacts) */
  double *r;     /* m: v_c* - v_hat */
  double *gamma; /* m */
  double *gc;    /* G_c: base scalars, then 9 per contact */
} sap_ctx;

/* gamma = P_F(y), y = -R^-1 u, and G_c = -d gamma / d u for one contact (digest sec. 5.1,
 * 6.2; rows ordered N, T1, T2). */
static void sap_contact_project(const double u[3], double mu, double Rn, double Rt, double gam[3],
                                double G[9]) {
  double yn = -u[0] / Rn, y1 = -u[1] / Rt, y2 = -u[2] / Rt, yr = mr_len2(y1, y2);
  double mu_hat = mu * Rt / Rn, mu_t2 = mu * mu * Rt / Rn;
  memset(G, 0, 9 * sizeof(double));
  if (yr <= mu * yn) { /* stiction */
    gam[0] = yn, gam[1] = y1, gam[2] = y2;
    G[0] = 1 / Rn, G[4] = G[8] = 1 / Rt;
  } else if (yn > -mu_hat * yr) { /* sliding (yr > 0 here) */
    double f = 1 / (1 + mu_t2), gn = (yn + mu_hat * yr) * f, t[2] = {y1 / yr, y2 / yr};
    gam[0] = gn, gam[1] = mu * gn * t[0], gam[2] = mu * gn * t[1];
    double ut = Rt * yr, perp = mu * gn / ut;
    G[0] = f / Rn;
    for (int a = 0; a < 2; a++) {
      G[3 * (a + 1)] = G[a + 1] = mu * f * t[a] / Rn;
      for (int b = 0; b < 2; b++)
        G[3 * (a + 1) + b + 1] = mu * mu * f / Rn * t[a] * t[b] + perp * ((a == b) - t[a] * t[b]);
    }
  } else { /* no contact */
    gam[0] = gam[1] = gam[2] = 0;
  }
}

/* gamma(u), optionally G_c(u), and the regularizer cost sum 1/2 gamma^T R gamma. */
static double sap_rows_eval(const sap_ctx *s, const double *u, double *gam, double *gc) {
  double cost = 0, Gk[9];
  for (int i = 0; i < s->base; i++) {
    double y = -u[i] / s->Rr[i];
    int active = i < s->p->neq || y > 0;
    gam[i] = active ? y : 0;
    if (gc) gc[i] = active ? 1 / s->Rr[i] : 0;
    cost += 0.5 * s->Rr[i] * gam[i] * gam[i];
  }
  for (int k = 0; k < s->p->ncon; k++) {
    int r0 = s->base + 3 * k;
    sap_contact_project(u + r0, s->p->mu[k], s->Rr[r0], s->Rr[r0 + 1], gam + r0, Gk);
    if (gc) memcpy(gc + s->base + 9 * k, Gk, sizeof Gk);
    for (int a = 0; a < 3; a++) cost += 0.5 * s->Rr[r0 + a] * gam[r0 + a] * gam[r0 + a];
  }
  return cost;
}

/* du^T G_c du with the block structure of gc. */
static double sap_gc_quad(const sap_ctx *s, const double *gc, const double *du) {
  double q = 0;
  for (int i = 0; i < s->base; i++) q += gc[i] * du[i] * du[i];
  for (int k = 0; k < s->p->ncon; k++) {
    const double *G = gc + s->base + 9 * k, *d = du + s->base + 3 * k;
    for (int a = 0; a < 3; a++) q += d[a] * (G[3 * a] * d[0] + G[3 * a + 1] * d[1] + G[3 * a + 2] * d[2]);
  }
  return q;
}

/* Per-row regularization and velocity target (the model above). eps is the shift the
 * factor of G carries: the near-rigid R of a bilateral or limit row is taken from the
 * shifted diagonal G_ii + eps, the one L actually factors. A row with G_ii = 0 (the
 * out-of-plane row of a planar loop: J A^-1 J^T vanishes on it) would otherwise get R = 0,
 * y = -u / 0 and a non-finite Hessian; with the shift, L_ii^2 / R_i = 1 / rigid stays
 * O(1) and the row's impulse, which moves nothing, stays bounded. */
static void sap_build(sap_ctx *s, double eps) {
  const mr_problem *p = s->p;
  int m = s->m, nv = p->nv;
  int primal = p->J && p->v_free && nv > 0;
  double rigid = SAP_BETA * SAP_BETA / (4 * MR_PI * MR_PI);
  double dt = p->dt > 0 ? p->dt : 1e-3, tau_d = SAP_BETA * dt / MR_PI;
  if (p->d && p->d->opt.sap_tau_d > 0) tau_d = p->d->opt.sap_tau_d;
  for (int i = 0; i < s->base; i++) {
    double gii = fmax(p->G[(size_t)i * (size_t)m + (size_t)i], 0.0) + eps;
    s->Rr[i] = rigid * gii + (p->R ? fmax(p->R[i], 0.0) : 0.0);
    s->r[i] = p->g[i];
  }
  for (int k = 0; k < p->ncon; k++) {
    int r0 = s->base + 3 * k;
    double fro = 0;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double x = p->G[(size_t)(r0 + a) * (size_t)m + (size_t)(r0 + b)];
        fro += x * x;
      }
    double w = sqrt(fro) / 3, wfloor = 1e-12 * (1 + w);
    s->Rr[r0] = fmax(fmax(rigid * w, 1 / (dt * SAP_STIFFNESS * (dt + tau_d))), wfloor);
    s->Rr[r0 + 1] = s->Rr[r0 + 2] = fmax(SAP_SIGMA * w, wfloor);
    double phi0 = p->dist ? p->dist[k] : 0;
    for (int a = 0; a < 3; a++) {
      int i = r0 + a;
      double vfree = p->g[i];
      if (primal) vfree = mr_problem_row_dot(p, i, p->v_free);
      s->r[i] = vfree - (a == 0 ? -(phi0 + fmin(SAP_SLOP * dt * dt, SAP_SLOP_MAX)) / (dt + tau_d) : 0.0);
    }
  }
}

static double sap_dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* u = L z + r (L lower triangle of a row-major m x m). */
static void sap_lower_matvec(const double *L, int m, const double *z, const double *r, double *u) {
  for (int i = 0; i < m; i++) {
    const double *Li = L + (size_t)i * (size_t)m;
    double s = r ? r[i] : 0;
    for (int j = 0; j <= i; j++) s += Li[j] * z[j];
    u[i] = s;
  }
}

/* y = L^T x. */
static void sap_upper_matvec(const double *L, int m, const double *x, double *y) {
  for (int j = 0; j < m; j++) y[j] = 0;
  for (int i = 0; i < m; i++) {
    const double *Li = L + (size_t)i * (size_t)m;
    for (int j = 0; j <= i; j++) y[j] += Li[j] * x[i];
  }
}

/* H = I + L^T G_c L into H (full), T: m x m scratch. */
static void sap_hessian(const sap_ctx *s, const double *L, double *T, double *H) {
  int m = s->m;
  memset(T, 0, sizeof(double) * (size_t)m * (size_t)m);
  for (int i = 0; i < s->base; i++)
    for (int j = 0; j <= i; j++) T[(size_t)i * m + j] = s->gc[i] * L[(size_t)i * m + j];
  for (int k = 0; k < s->p->ncon; k++) {
    int r0 = s->base + 3 * k;
    const double *G = s->gc + s->base + 9 * k;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double gab = G[3 * a + b];
        if (gab == 0) continue;
        for (int j = 0; j <= r0 + b; j++) T[(size_t)(r0 + a) * m + j] += gab * L[(size_t)(r0 + b) * m + j];
      }
  }
  for (int i = 0; i < m; i++)
    for (int j = 0; j <= i; j++) {
      double h = i == j ? 1 : 0;
      for (int k = i; k < m; k++) h += L[(size_t)k * m + i] * T[(size_t)k * m + j];
      H[(size_t)i * m + j] = H[(size_t)j * m + i] = h;
    }
}

/* Exact line search: the root of dl/dalpha on [0, alpha_max] (rtsafe-style). */
static double sap_line_search(const sap_ctx *s, const double *z, const double *dz, const double *u,
                              const double *du, double *ua, double *gam, double *gc) {
  int m = s->m;
  double zdz = sap_dot(z, dz, m), dzdz = sap_dot(dz, dz, m);
  double d0 = zdz - sap_dot(du, s->gamma, m);
  if (!(d0 < 0)) return 0;
#define SAP_SLOPE(a, dd)                                               \
  do {                                                                 \
    for (int i_ = 0; i_ < m; i_++) ua[i_] = u[i_] + (a) * du[i_];      \
    sap_rows_eval(s, ua, gam, gc);                                     \
    (dd) = zdz + (a) * dzdz - sap_dot(du, gam, m);                     \
  } while (0)
  double dmax;
  SAP_SLOPE(SAP_ALPHA_MAX, dmax);
  if (dmax <= 0) return SAP_ALPHA_MAX;
  double lo = 0, hi = SAP_ALPHA_MAX, a = 1, d;
  for (int it = 0; it < SAP_LS_MAX; it++) {
    SAP_SLOPE(a, d);
    if (fabs(d) <= SAP_LS_FTOL * fabs(d0)) break;
    if (d < 0) lo = a; else hi = a;
    double dd = dzdz + sap_gc_quad(s, gc, du);
    double an = dd > 0 ? a - d / dd : -1;
    if (!(an > lo && an < hi)) an = 0.5 * (lo + hi);
    if (hi - lo < 1e-14 * hi) break;
    a = an;
  }
#undef SAP_SLOPE
  return a;
}

/* z = L^-1 b by forward substitution (L lower triangle of a row-major m x m). */
static void sap_lower_solve(const double *L, int m, const double *b, double *z) {
  for (int i = 0; i < m; i++) {
    const double *Li = L + (size_t)i * (size_t)m;
    double s = b[i];
    for (int j = 0; j < i; j++) s -= Li[j] * z[j];
    z[i] = s / Li[i];
  }
}

/* The cost l(z) = 1/2 |z|^2 + sum 1/2 gamma^T R gamma; u: m scratch. */
static double sap_cost(const sap_ctx *s, const double *L, const double *z, double *u, double *gam) {
  sap_lower_matvec(L, s->m, z, s->r, u);
  return 0.5 * sap_dot(z, z, s->m) + sap_rows_eval(s, u, gam, NULL);
}

/* Drake's warm start, the step-start velocity v0 as the guess for the new velocity, in
 * constraint coordinates: z = L^T y with G y = J (v0 - v_free), that is z = L^-1 J (v0 -
 * v_free). Near-rigid rows make gamma(u) stiff (1/R ~ 40/w normal, 1000/w tangential), so
 * last step's impulses, each a little off, can start Newton far from the optimum, while a
 * resting pile's v0 is nearly its new velocity. The guess with the lower cost wins, so the
 * impulse warm start still serves impacts and sliding. z: in the impulse guess, out the
 * winner; b, u, gam: m scratch. */
static void sap_warm_start(const sap_ctx *s, const double *L, double *z, double *b, double *u,
                           double *gam) {
  const mr_problem *p = s->p;
  int m = s->m, nv = p->nv;
  if (!p->d || !p->J || !p->v_free || nv <= 0) return;
  const double *v0 = p->d->qvel;
  for (int i = 0; i < m; i++) b[i] = mr_problem_row_dot(p, i, v0) - mr_problem_row_dot(p, i, p->v_free);
  double *zv = b; /* in place: row i of the solve reads b[i] before writing z[i] */
  sap_lower_solve(L, m, b, zv);
  double cost_v = sap_cost(s, L, zv, u, gam), cost_lambda = sap_cost(s, L, z, u, gam);
  if (cost_v < cost_lambda) memcpy(z, zv, sizeof(double) * (size_t)m);
}

/* The dimensionless momentum error at z (fills s->gamma, s->gc, u, jc, grad). */
static double sap_residual(sap_ctx *s, const double *L, const double *z, double *u, double *jc,
                           double *grad, int *done, double tol) {
  int m = s->m;
  sap_lower_matvec(L, m, z, s->r, u);
  sap_rows_eval(s, u, s->gamma, s->gc);
  sap_upper_matvec(L, m, s->gamma, jc);
  for (int i = 0; i < m; i++) grad[i] = z[i] - jc[i];
  double e = sqrt(sap_dot(grad, grad, m));
  double scale = fmax(sqrt(sap_dot(z, z, m)), sqrt(sap_dot(jc, jc, m)));
  *done = e <= SAP_EPS_ABS + tol * scale;
  return scale > 0 ? e / scale : e;
}

void mr_solve_sap(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  /* sap reads J and v_free too (its velocity target), so they must be finite as well */
  int nv = p->J && p->v_free ? p->nv : 0;
  if (!mr_problem_input_ok(p) || (nv && (!mr_dense_is_finite(p->J, p->nzadr[p->nrow]) ||
                                         !mr_dense_is_finite(p->v_free, nv)))) {
    mr_solver_fail(p, out);
    return;
  }
  int m = p->nrow;
  size_t mark = mr_arena_mark(work), mm = (size_t)m * (size_t)m;
  sap_ctx s = {p, m, p->neq + p->nlim, NULL, NULL, NULL, NULL};
  s.Rr = mr_arena_doubles(work, (size_t)m);
  s.r = mr_arena_doubles(work, (size_t)m);
  s.gamma = mr_arena_doubles(work, (size_t)m);
  s.gc = mr_arena_doubles(work, (size_t)(s.base + 9 * p->ncon));
  double *L = mr_arena_doubles(work, mm), *H = mr_arena_doubles(work, mm);
  double *T = mr_arena_doubles(work, mm), *v = mr_arena_doubles(work, 9 * (size_t)m);
  if (m > 0 && (!s.Rr || !s.r || !s.gamma || !s.gc || !L || !H || !T || !v)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  double *z = v, *dz = v + m, *u = v + 2 * m, *du = v + 3 * m, *jc = v + 4 * m;
  double *grad = v + 5 * m, *ua = v + 6 * m, *gam = v + 7 * m, *gca = T; /* T is free in the LS */
  double gmax = 0;
  for (int i = 0; i < m; i++) gmax = fmax(gmax, p->G[(size_t)i * m + i]);
  double eps = 1e-12 * (gmax > 0 ? gmax : 1);
  sap_build(&s, eps);
  int ok = mr_dense_cholesky(L, p->G, NULL, eps, m, eps) >= 0;
  if (ok) {
    if (!mr_dense_is_finite(out->lambda, m)) memset(out->lambda, 0, sizeof(double) * (size_t)m);
    sap_upper_matvec(L, m, out->lambda, z);
    sap_warm_start(&s, L, z, dz, u, grad);
  }
  int done = 0;
  double res = ok ? sap_residual(&s, L, z, u, jc, grad, &done, p->tol) : NAN;
  out->status = MR_SOLVER_MAX_ITER;
  for (int it = 0; ok && !done && it < p->max_iter; it++) {
    sap_hessian(&s, L, T, H);
    if (mr_dense_cholesky(H, H, NULL, 0, m, 1e-300) < 0) {
      ok = 0;
      break;
    }
    for (int i = 0; i < m; i++) dz[i] = -grad[i];
    mr_dense_cholesky_solve(H, m, dz);
    sap_lower_matvec(L, m, dz, NULL, du);
    double alpha = sap_line_search(&s, z, dz, u, du, ua, gam, gca);
    for (int i = 0; i < m; i++) z[i] += alpha * dz[i];
    res = sap_residual(&s, L, z, u, jc, grad, &done, p->tol);
    out->iters = it + 1;
    if (out->history) out->history[it] = res;
    if (alpha == 0 && !done) break; /* no descent left: round-off floor */
  }
  if (done) out->status = MR_SOLVER_CONVERGED;
  if (ok) memcpy(out->lambda, s.gamma, sizeof(double) * (size_t)m);
  mr_arena_restore(work, mark);
  if (!ok || !isfinite(res) || !mr_dense_is_finite(out->lambda, m)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, m, out->lambda, out->c);
  for (int i = 0; i < m; i++) out->c[i] += p->g[i];
}
