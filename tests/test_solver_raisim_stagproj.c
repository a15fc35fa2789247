/* raisim and stagproj on hand-built contact problems (G, g, mu): sticking, sliding,
 * take-off, bilateral and limit rows, a rank-deficient G, bad input.
 *
 * raisim's sliding contact satisfies Signorini and the cone but violates maximum
 * dissipation as soon as G_NT != 0 (papers/002 digest eq. 21): the test checks both the
 * violation and the digest's KKT law c_T ∝ -(lambda_T + mu^2 lambda_N / G_NN G_TN). */
#include <math.h>
#include <string.h>

#include "mr_test.h"
#include "engine/solver/solver.h"

void mr_solve_raisim(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_stagproj(const mr_problem *p, mr_solver_out *out, mr_data *work);

#define MAXROW 32
#define MAXIT 5000

static _Alignas(64) unsigned char arena[1 << 20];

typedef struct fixture {
  mr_problem p;
  mr_solver_out out;
  mr_data work;
  double G[MAXROW * MAXROW], g[MAXROW], mu[MAXROW], lambda[MAXROW], c[MAXROW], hist[MAXIT];
} fixture;

static void fixture_init(fixture *f, int neq, int nlim, int ncon) {
  memset(f, 0, sizeof *f);
  f->p.neq = neq, f->p.nlim = nlim, f->p.ncon = ncon;
  f->p.nrow = neq + nlim + 3 * ncon;
  f->p.G = f->G, f->p.g = f->g, f->p.mu = f->mu;
  f->p.dt = 1e-3, f->p.tol = 1e-12, f->p.max_iter = MAXIT;
  f->out.lambda = f->lambda, f->out.c = f->c, f->out.history = f->hist;
  f->work.arena = arena, f->work.narena = sizeof arena;
}

/* G = J J^T (unit masses) for J given row-major nrow x nv. */
static void fixture_delassus(fixture *f, const double *J, int nv) {
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

static double c_check(const fixture *f) { /* |c - (G lambda + g)|_inf */
  int n = f->p.nrow;
  double e = 0;
  for (int i = 0; i < n; i++) {
    double s = f->g[i];
    for (int j = 0; j < n; j++) s += f->G[i * n + j] * f->lambda[j];
    e = fmax(e, fabs(s - f->c[i]));
  }
  return e;
}

/* ------------------------------------------------------------------ raisim */

static void raisim_stick(void) {
  fixture f;
  fixture_init(&f, 0, 0, 1);
  const double B[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}; /* point mass m = 2 */
  set_block(&f, 0, B);
  f.g[0] = -1, f.g[1] = 0.1, f.g[2] = -0.05, f.mu[0] = 1;
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.lambda[0], 2.0, 1e-12);
  MR_CHECK_NEAR(f.lambda[1], -0.2, 1e-12);
  MR_CHECK_NEAR(f.lambda[2], 0.1, 1e-12);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.c[i], 0, 1e-12);
  MR_CHECK(c_check(&f) < 1e-14);
  printf("raisim stick: iters %d residual %.3g\n", f.out.iters, f.out.residual);
}

static void raisim_slide_point_mass(void) { /* G_NT = 0: MDP holds exactly */
  fixture f;
  fixture_init(&f, 0, 0, 1);
  const double B[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  set_block(&f, 0, B);
  f.g[0] = -0.01, f.g[1] = 0.6, f.g[2] = 0.8, f.mu[0] = 0.5;
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.lambda[0], 0.01, 1e-10);
  MR_CHECK_NEAR(f.lambda[1], -0.005 * 0.6, 1e-10);
  MR_CHECK_NEAR(f.lambda[2], -0.005 * 0.8, 1e-10);
  MR_CHECK_NEAR(f.c[0], 0, 1e-10);
  printf("raisim slide (point mass): iters %d lambda %.12g %.12g %.12g\n", f.out.iters,
         f.lambda[0], f.lambda[1], f.lambda[2]);
}

static void raisim_slide_coupled(void) { /* G_NT != 0: Signorini and cone hold, MDP fails */
  fixture f;
  fixture_init(&f, 0, 0, 1);
  const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  set_block(&f, 0, B);
  f.g[0] = -0.1, f.g[1] = 1, f.g[2] = 0.5, f.mu[0] = 0.4;
  mr_solve_raisim(&f.p, &f.out, &f.work);
  double *l = f.lambda, *c = f.c, mu = 0.4;
  double lt = hypot(l[1], l[2]), ct = hypot(c[1], c[2]);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(c[0], 0, 1e-9);                 /* Signorini: lambda_N > 0, c_N = 0 */
  MR_CHECK(l[0] > 0);
  MR_CHECK_NEAR(lt, mu * l[0], 1e-9);           /* on the cone boundary */
  MR_CHECK(ct > 0.1);                           /* sliding */
  double mdp = hypot(l[1] + mu * l[0] * c[1] / ct, l[2] + mu * l[0] * c[2] / ct);
  MR_CHECK_MSG(mdp > 1e-3 * mu * l[0], "MDP error %g", mdp); /* friction not opposite to slip */
  double w1 = -(l[1] + mu * mu * l[0] / B[0] * B[3]), w2 = -(l[2] + mu * mu * l[0] / B[0] * B[6]);
  double cross = (w1 * c[2] - w2 * c[1]) / (hypot(w1, w2) * ct), dot = w1 * c[1] + w2 * c[2];
  MR_CHECK_NEAR(cross, 0, 1e-7);                /* digest eq. 21 */
  MR_CHECK(dot > 0);
  printf("raisim slide (G_NT != 0): iters %d, MDP error %.4g (= %.2f%% of mu lambda_N), "
         "eq. 21 misalignment %.2g\n",
         f.out.iters, mdp, 100 * mdp / (mu * l[0]), cross);
}

static void raisim_takeoff(void) {
  fixture f;
  fixture_init(&f, 0, 0, 1);
  const double B[9] = {1, 0.3, 0, 0.3, 2, 0, 0, 0, 1.5};
  set_block(&f, 0, B);
  f.g[0] = 0.2, f.g[1] = 1, f.g[2] = 0, f.mu[0] = 1;
  f.lambda[0] = 3, f.lambda[1] = 1; /* a stale warm start */
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], 0, 1e-12);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.c[i], f.g[i], 1e-12);
}

/* One bilateral row, one limit row and one contact on a 6-dof body with unit inertia. */
static void build_mixed(fixture *f, double glim) {
  fixture_init(f, 1, 1, 1);
  const double J[5 * 6] = {
      1, 0.2, 0, 0, 0.1, 0,   /* bilateral */
      0, 0.3, 1, 0.2, 0, 0,   /* limit */
      0, 0, 1, 0.1, -0.2, 0,  /* contact normal */
      1, 0, 0, 0, 0.3, 0.1,   /* t1 */
      0, 1, 0, -0.3, 0, 0.2}; /* t2 */
  fixture_delassus(f, J, 6);
  f->g[0] = 0.3, f->g[1] = glim, f->g[2] = -0.5, f->g[3] = 0.05, f->g[4] = -0.02;
  f->mu[0] = 0.8;
}

static void check_mixed(const fixture *f, const char *name) {
  const double *l = f->lambda, *c = f->c;
  MR_CHECK_MSG(fabs(c[0]) < 1e-9, "%s bilateral c %g", name, c[0]);
  MR_CHECK(l[1] >= 0 && c[1] > -1e-9 && fabs(l[1] * c[1]) < 1e-9);
  MR_CHECK(l[2] >= 0 && c[2] > -1e-9 && fabs(l[2] * c[2]) < 1e-9);
  MR_CHECK(hypot(l[3], l[4]) <= 0.8 * l[2] + 1e-9);
  MR_CHECK(c_check(f) < 1e-12);
}

static void raisim_mixed_rows(void) {
  fixture f;
  build_mixed(&f, -2); /* the limit pushes */
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  check_mixed(&f, "raisim");
  MR_CHECK(f.lambda[1] > 0);
  printf("raisim bilateral+limit+contact: iters %d lambda_lim %.6g\n", f.out.iters, f.lambda[1]);
  build_mixed(&f, 0.4); /* the limit is inactive */
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  check_mixed(&f, "raisim");
  MR_CHECK_NEAR(f.lambda[1], 0, 1e-12);
}

/* Two copies of one point-mass contact: G has rank 3 of 6. */
static void build_duplicate(fixture *f, double gt) {
  fixture_init(f, 0, 0, 2);
  const double J[6 * 3] = {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0};
  fixture_delassus(f, J, 3);
  f->g[0] = f->g[3] = -1, f->g[1] = f->g[4] = gt, f->mu[0] = f->mu[1] = 0.5;
}

static void raisim_rank_deficient(void) {
  fixture f;
  build_duplicate(&f, 0.2); /* stick */
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 6; i++) MR_CHECK_NEAR(f.c[i], 0, 1e-9);
  MR_CHECK_NEAR(f.lambda[0] + f.lambda[3], 1, 1e-9);
  printf("raisim duplicate contacts (stick): iters %d split %.6g / %.6g\n", f.out.iters,
         f.lambda[0], f.lambda[3]);
  build_duplicate(&f, 2); /* slide */
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.c[0], 0, 1e-9);
  MR_CHECK_NEAR(f.lambda[1] + f.lambda[4], -0.5, 1e-9);
}

static void raisim_bad_input(void) {
  fixture f;
  build_mixed(&f, -0.4);
  f.g[2] = NAN;
  f.lambda[0] = 7;
  mr_solve_raisim(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < f.p.nrow; i++) MR_CHECK(f.lambda[i] == 0 && isfinite(f.c[i]));
}

/* ------------------------------------------------------------------ stagproj */

/* max over contacts of the NCP violations: Signorini, cone, maximum dissipation. */
static double ncp_error(const fixture *f) {
  double e = 0;
  for (int k = 0; k < f->p.ncon; k++) {
    int r0 = f->p.neq + f->p.nlim + 3 * k;
    const double *l = f->lambda + r0, *c = f->c + r0;
    double mu = f->mu[k], lt = hypot(l[1], l[2]), ct = hypot(c[1], c[2]);
    e = fmax(e, fmax(-l[0], -c[0]));
    e = fmax(e, fabs(l[0] * c[0]));
    e = fmax(e, lt - mu * l[0]);
    if (ct > 1e-9) e = fmax(e, hypot(l[1] + mu * l[0] * c[1] / ct, l[2] + mu * l[0] * c[2] / ct));
  }
  return e;
}

static void stagproj_one_contact(void) {
  const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  const double gs[3][3] = {{-1, 0.1, -0.05}, {-0.1, 1, 0.5}, {0.2, 1, 0}};
  const char *name[3] = {"stick", "slide", "take-off"};
  for (int t = 0; t < 3; t++) {
    fixture f;
    fixture_init(&f, 0, 0, 1);
    set_block(&f, 0, B);
    memcpy(f.g, gs[t], sizeof gs[t]);
    f.mu[0] = t == 0 ? 1 : 0.4;
    mr_solve_stagproj(&f.p, &f.out, &f.work);
    double e = ncp_error(&f);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
    MR_CHECK_MSG(e < 1e-10, "%s NCP error %g", name[t], e);
    MR_CHECK(c_check(&f) < 1e-12);
    if (t == 0) for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.c[i], 0, 1e-10);
    if (t == 1) MR_CHECK(hypot(f.c[1], f.c[2]) > 0.1 && f.lambda[0] > 0);
    if (t == 2) for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], 0, 1e-14);
    printf("stagproj %s: %d outer iterations, residual %.3g, NCP error %.3g\n", name[t],
           f.out.iters, f.out.residual, e);
  }
}

static void stagproj_rows_rank_bad(void) {
  fixture f;
  build_mixed(&f, -2);
  mr_solve_stagproj(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  check_mixed(&f, "stagproj");
  MR_CHECK(ncp_error(&f) < 1e-10);
  printf("stagproj bilateral+limit+contact: %d outer iterations\n", f.out.iters);
  for (int t = 0; t < 2; t++) {
    build_duplicate(&f, t ? 2 : 0.2);
    mr_solve_stagproj(&f.p, &f.out, &f.work);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
    MR_CHECK_NEAR(f.lambda[0] + f.lambda[3], 1, 1e-10);
    MR_CHECK(ncp_error(&f) < 1e-10);
    printf("stagproj duplicate contacts (%s): %d outer iterations\n", t ? "slide" : "stick", f.out.iters);
  }
  build_mixed(&f, -2);
  f.mu[0] = NAN;
  f.lambda[3] = 1;
  mr_solve_stagproj(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < f.p.nrow; i++) MR_CHECK(f.lambda[i] == 0 && isfinite(f.c[i]));
}

int main(void) {
  raisim_stick();
  raisim_slide_point_mass();
  raisim_slide_coupled();
  raisim_takeoff();
  raisim_mixed_rows();
  raisim_rank_deficient();
  raisim_bad_input();
  stagproj_one_contact();
  stagproj_rows_rank_bad();
  MR_TEST_END();
}
