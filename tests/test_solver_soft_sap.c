/* soft and sap on hand-built contact problems.
 *
 * soft: (1) a 1 kg, 10 cm sphere pressed 1 mm into a plane, the same problem MuJoCo 2.2.2
 * solves (numbers recorded from mj_forward with cone="elliptic", default solref/solimp,
 * dt = 1 ms, qvel = (0.2, 0, -0.3, 0, 0, 0)): the impulses must be dt * MuJoCo's
 * efc_force; (2) with the MuJoCo defaults, on a coupled 1-contact problem given by G and
 * g alone, the solution is the analytic minimizer of the regularized QP (stick: the linear
 * solve; slide: the minimum over the cone boundary, found by a dense angle scan);
 * (3) bilateral and limit rows, take-off, rank-deficient G, bad input.
 * sap: on one contact, Newton iterations <= 5 and the impulse obeys the compliant law of
 * papers/004 sec. 5.2 in stiction and sliding; take-off; mixed rows; duplicates; NaN. */
#include <math.h>
#include <string.h>

#include "mr_test.h"
#include "engine/solver/solver.h"

void mr_solve_soft(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_sap(const mr_problem *p, mr_solver_out *out, mr_data *work);

#define MAXROW 32
#define MAXIT 5000
#define PI 3.14159265358979323846

static _Alignas(64) unsigned char arena[1 << 20];

typedef struct fixture {
  mr_problem p;
  mr_solver_out out;
  mr_data work;
  double G[MAXROW * MAXROW], g[MAXROW], mu[MAXROW], dist[MAXROW], lambda[MAXROW], c[MAXROW];
  double hist[MAXIT];
} fixture;

static void fixture_init(fixture *f, int neq, int nlim, int ncon) {
  memset(f, 0, sizeof *f);
  f->p.neq = neq, f->p.nlim = nlim, f->p.ncon = ncon;
  f->p.nrow = neq + nlim + 3 * ncon;
  f->p.G = f->G, f->p.g = f->g, f->p.mu = f->mu, f->p.dist = f->dist;
  f->p.dt = 1e-3, f->p.tol = 1e-12, f->p.max_iter = MAXIT;
  f->out.lambda = f->lambda, f->out.c = f->c, f->out.history = f->hist;
  f->work.arena = arena, f->work.narena = sizeof arena;
}

static void fixture_delassus(fixture *f, const double *J, int nv) { /* unit masses */
  int n = f->p.nrow;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++) s += J[i * nv + k] * J[j * nv + k];
      f->G[i * n + j] = s;
    }
}

static void set_block(fixture *f, int r0, const double B[9]) {
  int n = f->p.nrow;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) f->G[(r0 + a) * n + r0 + b] = B[3 * a + b];
}

/* ------------------------------------------------------------------ soft */

static void soft_matches_mujoco(void) {
  fixture f;
  fixture_init(&f, 0, 0, 1);
  static const double J[18] = {0, 0, 1, 0, 0, 0, 0, 1, 0, 0.0995, 0, 0, -1, 0, 0, 0, 0.0995, 0};
  static const double Minv[6] = {1, 1, 1, 250, 250, 250};
  static double qvel[6] = {0.2, 0, -0.3, 0, 0, 0};
  double vfree[6] = {0.2, 0, -0.3 - 1e-3 * 9.81, 0, 0, 0};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += J[6 * i + k] * Minv[k] * J[6 * j + k];
      f.G[3 * i + j] = s;
    }
    f.g[i] = 0;
    for (int k = 0; k < 6; k++) f.g[i] += J[6 * i + k] * vfree[k];
  }
  f.mu[0] = 0.7, f.dist[0] = -0.001;
  static const int nzadr[4] = {0, 6, 12, 18};
  static const int nzind[18] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
  f.p.nv = 6, f.p.J = J, f.p.nzadr = nzadr, f.p.nzind = nzind, f.p.v_free = vfree;
  f.work.qvel = qvel; /* the step-start velocity MuJoCo's reference acceleration uses */
  f.p.d = &f.work;
  mr_solve_soft(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.lambda[0] / 1e-3, 41.819500000000012, 1e-8);
  MR_CHECK_NEAR(f.lambda[1] / 1e-3, 0, 1e-8);
  MR_CHECK_NEAR(f.lambda[2] / 1e-3, 5.9678166835910238, 1e-8);
  printf("soft vs MuJoCo sphere: force %.12g %.3g %.12g (MuJoCo 41.8195 0 5.96781668359), iters %d\n",
         f.lambda[0] / 1e-3, f.lambda[1] / 1e-3, f.lambda[2] / 1e-3, f.out.iters);
}

/* The MuJoCo-default soft QP of one contact given by G and g: A = G + R, q. */
static void soft_reference_qp(const fixture *f, double A[9], double q[3]) {
  double dist = f->dist[0], dt = f->p.dt;
  double x = fabs(dist) / 0.001, y = x >= 1 ? 1 : (x <= 0.5 ? x * x / 0.5 : 1 - (1 - x) * (1 - x) / 0.5);
  double d = 0.9 + y * (0.95 - 0.9), dmax = 0.95, tc = 0.02;
  double b = 2 / (dmax * tc), k = 1 / (dmax * dmax * tc * tc);
  double Rn = (1 - d) / d * f->G[0];
  for (int i = 0; i < 9; i++) A[i] = f->G[i];
  for (int i = 0; i < 3; i++) {
    A[4 * i] += Rn;
    q[i] = dt * b * f->g[i] + (i == 0 ? dt * k * d * dist : 0);
  }
}

static double qp_cost(const double A[9], const double q[3], const double l[3]) {
  double s = 0;
  for (int a = 0; a < 3; a++) s += l[a] * (0.5 * (A[3 * a] * l[0] + A[3 * a + 1] * l[1] + A[3 * a + 2] * l[2]) + q[a]);
  return s;
}

/* Minimum of the QP over the boundary of the cone: angle scan, then golden section. */
static void boundary_minimizer(const double A[9], const double q[3], double mu, double out[3]) {
  double best = INFINITY, phi_best = 0;
#define BOUNDARY_AT(phi, lam, cost)                                                  \
  do {                                                                               \
    double e_[3] = {1, mu * cos(phi), mu * sin(phi)};                                \
    double qe_ = q[0] * e_[0] + q[1] * e_[1] + q[2] * e_[2];                         \
    double ee_ = 0;                                                                  \
    for (int a_ = 0; a_ < 3; a_++)                                                   \
      ee_ += e_[a_] * (A[3 * a_] * e_[0] + A[3 * a_ + 1] * e_[1] + A[3 * a_ + 2] * e_[2]); \
    double t_ = qe_ < 0 ? -qe_ / ee_ : 0;                                            \
    for (int a_ = 0; a_ < 3; a_++) (lam)[a_] = t_ * e_[a_];                          \
    (cost) = qp_cost(A, q, lam);                                                     \
  } while (0)
  double lam[3], cost;
  for (int s = 0; s < 3600; s++) {
    double phi = 2 * PI * s / 3600;
    BOUNDARY_AT(phi, lam, cost);
    if (cost < best) best = cost, phi_best = phi;
  }
  double lo = phi_best - 2 * PI / 3600, hi = phi_best + 2 * PI / 3600, gr = (sqrt(5) - 1) / 2;
  for (int it = 0; it < 200; it++) {
    double a = hi - gr * (hi - lo), b = lo + gr * (hi - lo), ca, cb;
    BOUNDARY_AT(a, lam, ca);
    BOUNDARY_AT(b, lam, cb);
    if (ca < cb) hi = b; else lo = a;
  }
  BOUNDARY_AT(0.5 * (lo + hi), out, cost);
#undef BOUNDARY_AT
}

static void soft_analytic_one_contact(void) {
  static const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  fixture f;
  double A[9], q[3], ref[3];
  /* stick: the unconstrained minimizer lies inside the cone */
  fixture_init(&f, 0, 0, 1);
  set_block(&f, 0, B);
  f.g[0] = -0.5, f.g[1] = 0.05, f.g[2] = -0.02, f.mu[0] = 1, f.dist[0] = -0.0005;
  mr_solve_soft(&f.p, &f.out, &f.work);
  soft_reference_qp(&f, A, q);
  { /* ref = -A^-1 q by Cramer's rule */
    double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
                 A[2] * (A[3] * A[7] - A[4] * A[6]);
    double inv[9] = {A[4] * A[8] - A[5] * A[7], A[2] * A[7] - A[1] * A[8], A[1] * A[5] - A[2] * A[4],
                     A[5] * A[6] - A[3] * A[8], A[0] * A[8] - A[2] * A[6], A[2] * A[3] - A[0] * A[5],
                     A[3] * A[7] - A[4] * A[6], A[1] * A[6] - A[0] * A[7], A[0] * A[4] - A[1] * A[3]};
    for (int a = 0; a < 3; a++) ref[a] = -(inv[3 * a] * q[0] + inv[3 * a + 1] * q[1] + inv[3 * a + 2] * q[2]) / det;
  }
  MR_REQUIRE(hypot(ref[1], ref[2]) < ref[0]); /* inside the cone indeed */
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  double err = 0;
  for (int a = 0; a < 3; a++) err = fmax(err, fabs(f.lambda[a] - ref[a]));
  MR_CHECK_MSG(err < 1e-12, "stick error %g", err);
  printf("soft 1-contact stick: |lambda - analytic| = %.3g, iters %d\n", err, f.out.iters);
  /* slide: the minimizer is on the cone boundary */
  fixture_init(&f, 0, 0, 1);
  set_block(&f, 0, B);
  f.g[0] = -0.5, f.g[1] = 3, f.g[2] = -1, f.mu[0] = 0.5, f.dist[0] = -0.0005;
  mr_solve_soft(&f.p, &f.out, &f.work);
  soft_reference_qp(&f, A, q);
  boundary_minimizer(A, q, 0.5, ref);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  err = 0;
  for (int a = 0; a < 3; a++) err = fmax(err, fabs(f.lambda[a] - ref[a]));
  MR_CHECK_MSG(err < 1e-9, "slide error %g", err);
  MR_CHECK(qp_cost(A, q, f.lambda) <= qp_cost(A, q, ref) + 1e-14);
  printf("soft 1-contact slide: |lambda - analytic| = %.3g, iters %d\n", err, f.out.iters);
}

static void build_mixed(fixture *f, double glim) {
  fixture_init(f, 1, 1, 1);
  static const double J[5 * 6] = {1, 0.2, 0, 0, 0.1, 0, 0, 0.3, 1, 0.2, 0, 0, 0, 0, 1, 0.1, -0.2, 0,
                                  1, 0, 0, 0, 0.3, 0.1, 0, 1, 0, -0.3, 0, 0.2};
  fixture_delassus(f, J, 6);
  f->g[0] = 0.3, f->g[1] = glim, f->g[2] = -0.5, f->g[3] = 0.05, f->g[4] = -0.02;
  f->mu[0] = 0.8, f->dist[0] = -0.0002;
}

static void build_duplicate(fixture *f, double gt) { /* two copies of a point-mass contact */
  fixture_init(f, 0, 0, 2);
  static const double J[6 * 3] = {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0};
  fixture_delassus(f, J, 3);
  f->g[0] = f->g[3] = -1, f->g[1] = f->g[4] = gt, f->mu[0] = f->mu[1] = 0.5;
  f->dist[0] = f->dist[1] = -0.0003;
}

static void soft_rows_takeoff_rank(void) {
  fixture f;
  build_mixed(&f, -2);
  mr_solve_soft(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.c[0], 0, 1e-10); /* bilateral, R = 0: exact */
  MR_CHECK(f.lambda[1] > 0 && fabs(f.c[1]) < 1e-10);
  MR_CHECK(f.lambda[2] >= 0 && hypot(f.lambda[3], f.lambda[4]) <= 0.8 * f.lambda[2] + 1e-12);
  printf("soft bilateral+limit+contact: iters %d lambda %g %g %g %g %g\n", f.out.iters, f.lambda[0],
         f.lambda[1], f.lambda[2], f.lambda[3], f.lambda[4]);
  /* take-off: separating and 1 cm apart. soft is a CCP (MuJoCo): a fast-sliding
   * separating contact may still push ("hop"), so take-off needs q in the dual cone */
  fixture_init(&f, 0, 0, 1);
  static const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  set_block(&f, 0, B);
  f.g[0] = 0.3, f.g[1] = 0.1, f.mu[0] = 1, f.dist[0] = 0.01;
  f.lambda[0] = 1;
  mr_solve_soft(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], 0, 1e-14);
  /* rank-deficient: R makes the split unique and even */
  build_duplicate(&f, 0.05);
  mr_solve_soft(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], f.lambda[3 + i], 1e-10);
  printf("soft duplicate contacts: iters %d, lambda_N %.6g %.6g\n", f.out.iters, f.lambda[0], f.lambda[3]);
  /* bad input */
  build_mixed(&f, -2);
  f.G[7] = NAN;
  f.lambda[2] = 4;
  mr_solve_soft(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < f.p.nrow; i++) MR_CHECK(f.lambda[i] == 0 && isfinite(f.c[i]));
}

/* ------------------------------------------------------------------ sap */

/* The compliant law of papers/004 sec. 5.2 at the solution's contact velocity v = c. */
static double sap_law_error(const fixture *f, int k, int *sliding) {
  int n = f->p.nrow, r0 = f->p.neq + f->p.nlim + 3 * k;
  double fro = 0;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) fro += f->G[(r0 + a) * n + r0 + b] * f->G[(r0 + a) * n + r0 + b];
  double w = sqrt(fro) / 3, dt = f->p.dt, tau = dt / PI, mu = f->mu[k];
  /* sap rests a contact min(0.25 dt^2, 1 um) deep (its slop, sap.c) */
  double slop = fmin(0.25 * dt * dt, 1e-6);
  double Rn = w / (4 * PI * PI), Rt = 1e-3 * w, vhat = -(f->dist[k] + slop) / (dt + tau);
  const double *v = f->c + r0, *l = f->lambda + r0;
  double vt = hypot(v[1], v[2]), ref[3];
  *sliding = 0;
  if (vt / Rt <= mu * (vhat - v[0]) / Rn) { /* stiction */
    ref[0] = (vhat - v[0]) / Rn, ref[1] = -v[1] / Rt, ref[2] = -v[2] / Rt;
  } else if (v[0] - vhat >= mu * vt) { /* no contact */
    ref[0] = ref[1] = ref[2] = 0;
  } else {
    double mt2 = mu * mu * Rt / Rn;
    *sliding = 1;
    ref[0] = (vhat - v[0] + mu * vt) / (Rn * (1 + mt2));
    ref[1] = -mu * ref[0] * v[1] / vt, ref[2] = -mu * ref[0] * v[2] / vt;
  }
  double e = 0;
  for (int a = 0; a < 3; a++) e = fmax(e, fabs(l[a] - ref[a]));
  return e / fmax(fabs(ref[0]), 1e-300);
}

static void sap_one_contact(void) {
  static const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  const double gs[2][3] = {{-0.5, 0.001, -0.0005}, {-0.5, 2, 1}};
  for (int c = 0; c < 2; c++) {
    fixture f;
    fixture_init(&f, 0, 0, 1);
    set_block(&f, 0, B);
    memcpy(f.g, gs[c], sizeof gs[c]);
    f.mu[0] = 1, f.dist[0] = -1e-4;
    f.p.tol = 1e-10;
    mr_solve_sap(&f.p, &f.out, &f.work);
    int sliding;
    double law = sap_law_error(&f, 0, &sliding);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
    MR_CHECK_MSG(f.out.iters <= 5, "Newton iterations %d", f.out.iters);
    MR_CHECK(sliding == c);
    MR_CHECK_MSG(law < 1e-8, "compliant law error %g", law);
    printf("sap 1 contact (%s): %d Newton iterations, momentum error %.3g, law error %.3g\n",
           c ? "slide" : "stick", f.out.iters, f.out.residual, law);
    for (int i = 0; i < f.out.iters; i++) printf("  iteration %d: e_m %.3g\n", i + 1, f.hist[i]);
  }
}

static void sap_rows_takeoff_rank(void) {
  fixture f;
  int sliding;
  fixture_init(&f, 0, 0, 1); /* take-off */
  static const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  set_block(&f, 0, B);
  f.g[0] = 0.3, f.g[1] = 1, f.mu[0] = 1, f.dist[0] = 0.01, f.lambda[0] = 2;
  mr_solve_sap(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], 0, 1e-14);
  build_mixed(&f, -2); /* bilateral + limit + contact */
  mr_solve_sap(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  double rig = 1 / (4 * PI * PI);
  MR_CHECK_NEAR(f.c[0], -rig * f.G[0] * f.lambda[0], 1e-9); /* near-rigid bilateral law */
  MR_CHECK(f.lambda[1] > 0);
  MR_CHECK_NEAR(f.c[1], -rig * f.G[6] * f.lambda[1], 1e-9);
  MR_CHECK(sap_law_error(&f, 0, &sliding) < 1e-7);
  printf("sap bilateral+limit+contact: %d Newton iterations\n", f.out.iters);
  build_duplicate(&f, 0.05); /* rank-deficient */
  mr_solve_sap(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], f.lambda[3 + i], 1e-9);
  MR_CHECK(sap_law_error(&f, 0, &sliding) < 1e-7 && sap_law_error(&f, 1, &sliding) < 1e-7);
  printf("sap duplicate contacts: %d Newton iterations, lambda_N %.6g %.6g\n", f.out.iters,
         f.lambda[0], f.lambda[3]);
  build_mixed(&f, -2); /* bad input */
  f.g[3] = INFINITY;
  mr_solve_sap(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < f.p.nrow; i++) MR_CHECK(f.lambda[i] == 0 && isfinite(f.c[i]));
}

/* Bilateral rows only, rank-deficient: the planar four-bar's connect gives 3 rows, one of
 * them (out of plane) with J = 0, so G has a zero row and column and G_ii = 0. sap used to
 * take R_i = G_ii / (4 pi^2) = 0 there and fail on every step (models/fourbar.xml).
 * Second case: two identical rows (a duplicated loop closure), G singular with G_ii > 0. */
static void sap_bilateral_rank_deficient(void) {
  static const double Jzero[3 * 3] = {1, 0.5, 0, 0, 0, 0, 0.3, 1, 0.2};
  static const double Jdup[3 * 3] = {1, 0.5, 0, 1, 0.5, 0, 0.3, 1, 0.2};
  const double *Js[2] = {Jzero, Jdup};
  const char *names[2] = {"zero row", "duplicate rows"};
  double rig = 1 / (4 * PI * PI);
  for (int c = 0; c < 2; c++) {
    fixture f;
    fixture_init(&f, 3, 0, 0);
    fixture_delassus(&f, Js[c], 3);
    f.p.mu = NULL, f.p.dist = NULL; /* no contacts, as the constraint stage passes them */
    f.g[0] = -0.002, f.g[1] = c ? -0.002 : 0, f.g[2] = -0.02; /* consistent right-hand side */
    f.p.tol = 1e-10;
    mr_solve_sap(&f.p, &f.out, &f.work);
    MR_CHECK_MSG(f.out.status == MR_SOLVER_CONVERGED, "%s: status %d", names[c], f.out.status);
    MR_CHECK(f.out.iters <= 3); /* bilateral only: the cost is quadratic, one Newton step */
    int finite = isfinite(f.out.residual);
    for (int i = 0; i < 3; i++) finite = finite && isfinite(f.lambda[i]) && isfinite(f.c[i]);
    MR_CHECK_MSG(finite, "%s: non-finite output", names[c]);
    double vmax = 0;
    for (int i = 0; i < 3; i++) vmax = fmax(vmax, fabs(f.c[i]));
    /* near-rigid: the constraint velocities shrink to the compliant law, |c| << |g| */
    MR_CHECK_MSG(vmax < 0.05 * 0.02, "%s: |c| = %g", names[c], vmax);
    MR_CHECK_NEAR(f.c[2], -rig * f.G[8] * f.lambda[2], 1e-9 * (1 + fabs(f.lambda[2])));
    if (c == 0) MR_CHECK(fabs(f.lambda[1]) < 1e-6); /* a row that moves nothing takes nothing */
    if (c == 1) MR_CHECK_NEAR(f.lambda[0], f.lambda[1], 1e-9);
    printf("sap bilateral rank-deficient (%s): %d Newton iterations, lambda %.6g %.6g %.6g, |c| %.3g\n",
           names[c], f.out.iters, f.lambda[0], f.lambda[1], f.lambda[2], vmax);
  }
}

int main(void) {
  soft_matches_mujoco();
  soft_analytic_one_contact();
  soft_rows_takeoff_rank();
  sap_one_contact();
  sap_rows_takeoff_rank();
  sap_bilateral_rank_deficient();
  MR_TEST_END();
}
