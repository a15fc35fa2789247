/* The per-contact sweeps `ccp` (Anitescu CCP, cone projection; engine/solver/ccp.c) and
 * `lcp` (friction pyramid; engine/solver/lcp.c) on hand-built problems with known answers,
 * including the artifacts of their models that papers/002 predicts:
 *   - ccp: the vertical "hop" of a sliding point mass, c_N = mu |c_T| > 0 while lambda_N > 0
 *     (mu 0.4, v_T 1 m/s, dt 1 ms: c_N = 0.343 m/s, papers/002 digest sec. 3.2);
 *   - lcp: friction pushed to a pyramid corner, 15 degrees off the slip at 30 degrees to t1.
 * Both are dual solvers: p->m and p->d stay NULL (documented as unused).
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "mr_test.h"
#include "engine/solver/solver.h"

void mr_solve_ccp(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_lcp(const mr_problem *p, mr_solver_out *out, mr_data *work);

#define MAXROW 8
#define MAXITER 2000
#define GRAVITY 9.81
#define DT 1e-3
#define PI 3.14159265358979323846

static _Alignas(64) unsigned char arena_buffer[1 << 16];
static mr_data work;

typedef struct test_problem {
  mr_problem p;
  double G[MAXROW * MAXROW], g[MAXROW], mu[MAXROW / 3 + 1];
  double lambda[MAXROW], c[MAXROW], history[MAXITER];
  mr_solver_out out;
} test_problem;

static void problem_init(test_problem *t, int neq, int nlim, int ncon, double tol, int max_iter) {
  memset(t, 0, sizeof *t);
  t->p.nrow = neq + nlim + 3 * ncon;
  t->p.neq = neq;
  t->p.nlim = nlim;
  t->p.ncon = ncon;
  t->p.dt = DT;
  t->p.G = t->G;
  t->p.g = t->g;
  t->p.mu = t->mu;
  t->p.tol = tol;
  t->p.max_iter = max_iter;
  t->out.lambda = t->lambda;
  t->out.c = t->c;
  t->out.history = t->history;
}

static void problem_solve(test_problem *t, mr_solver_fn solve) {
  mr_arena_reset(&work);
  solve(&t->p, &t->out, &work);
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static const double G3[9] = {2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2};

static void contact_problem(test_problem *t, const double lambda_star[3], double mu) {
  problem_init(t, 0, 0, 1, 1e-12, 1000);
  memcpy(t->G, G3, sizeof G3);
  t->mu[0] = mu;
  for (int i = 0; i < 3; i++) t->g[i] = -dot3(G3 + 3 * i, lambda_star);
}

/* A point mass m = 1 on the ground, sliding at speed 1 m/s at angle theta to t1, after one
 * step of gravity: G = I, g = (-g dt, cos theta, sin theta). */
static void point_mass(test_problem *t, double mu, double theta) {
  problem_init(t, 0, 0, 1, 1e-12, 1000);
  for (int i = 0; i < 3; i++) t->G[4 * i] = 1.0;
  t->mu[0] = mu;
  t->g[0] = -GRAVITY * DT;
  t->g[1] = cos(theta);
  t->g[2] = sin(theta);
}

static void test_stick(mr_solver_fn solve, const char *name) {
  test_problem t;
  const double star[3] = {1.0, 0.2, -0.1}; /* inside the cone and the pyramid of mu 0.5 */
  contact_problem(&t, star, 0.5);
  problem_solve(&t, solve);
  MR_CHECK_MSG(t.out.status == MR_SOLVER_CONVERGED, "%s", name);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.lambda[i], star[i], 1e-10);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.c[i], 0.0, 1e-10);
  MR_CHECK(t.out.iters >= 1 && t.history[t.out.iters - 1] == t.out.residual);
  printf("%s stick: %d iterations, residual %.2e\n", name, t.out.iters, t.out.residual);
}

static void test_take_off(mr_solver_fn solve, const char *name) {
  test_problem t;
  problem_init(&t, 0, 0, 1, 1e-12, 100);
  memcpy(t.G, G3, sizeof G3);
  t.mu[0] = 0.5;
  t.g[0] = 0.2;
  t.g[1] = -0.3;
  t.g[2] = 0.1;
  for (int i = 0; i < 3; i++) t.lambda[i] = 0.7; /* a stale warm start */
  problem_solve(&t, solve);
  MR_CHECK_MSG(t.out.status == MR_SOLVER_CONVERGED, "%s", name);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.lambda[i], 0.0, 1e-12);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.c[i], t.g[i], 1e-12);
}

/* A bilateral row coupled to a sticking contact; then two limit rows, one pushed and one
 * opening. */
static void test_bilateral_and_limits(mr_solver_fn solve, const char *name) {
  test_problem t;
  problem_init(&t, 1, 0, 1, 1e-12, 1000);
  static const double G4[16] = {3.0, 0.5, 0.2, -0.1, 0.5, 2.0, 0.3, 0.1,
                                0.2, 0.3, 1.5, 0.2, -0.1, 0.1, 0.2, 1.2};
  const double star[4] = {-2.0, 1.0, 0.2, -0.1};
  memcpy(t.G, G4, sizeof G4);
  t.mu[0] = 0.5;
  for (int i = 0; i < 4; i++) t.g[i] = -(G4[4 * i] * star[0] + dot3(G4 + 4 * i + 1, star + 1));
  problem_solve(&t, solve);
  MR_CHECK_MSG(t.out.status == MR_SOLVER_CONVERGED, "%s bilateral", name);
  for (int i = 0; i < 4; i++) MR_CHECK_NEAR(t.lambda[i], star[i], 1e-10);

  problem_init(&t, 0, 2, 0, 1e-12, 1000);
  t.G[0] = 2.0;
  t.G[1] = t.G[2] = 0.5;
  t.G[3] = 1.0;
  t.g[0] = -1.0;
  t.g[1] = 0.6;
  problem_solve(&t, solve);
  MR_CHECK_MSG(t.out.status == MR_SOLVER_CONVERGED, "%s limits", name);
  MR_CHECK_NEAR(t.lambda[0], 0.5, 1e-12);
  MR_CHECK_NEAR(t.lambda[1], 0.0, 1e-12);
  MR_CHECK_NEAR(t.c[1], 0.85, 1e-12);
}

static void test_bad_input(mr_solver_fn solve, const char *name) {
  test_problem t;
  const double star[3] = {1.0, 0.2, -0.1};
  contact_problem(&t, star, 0.5);
  t.g[0] = NAN;
  for (int i = 0; i < 3; i++) t.lambda[i] = 5.0;
  problem_solve(&t, solve);
  MR_CHECK_MSG(t.out.status == MR_SOLVER_FAILED, "%s", name);
  for (int i = 0; i < 3; i++) MR_CHECK(t.lambda[i] == 0.0 && isfinite(t.c[i]));
}

/* ccp sliding with coupling in G: on the cone boundary, friction opposite the slip
 * (maximum dissipation holds in the CCP), and the CCP's own normal velocity
 * c_N = mu |c_T| instead of Signorini's c_N = 0. */
static void test_ccp_slide(void) {
  test_problem t;
  problem_init(&t, 0, 0, 1, 1e-12, 1000);
  memcpy(t.G, G3, sizeof G3);
  t.mu[0] = 0.3;
  t.g[0] = -0.5;
  t.g[1] = 2.0;
  t.g[2] = -1.0;
  problem_solve(&t, mr_solve_ccp);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  double lt = hypot(t.lambda[1], t.lambda[2]), ct = hypot(t.c[1], t.c[2]);
  MR_CHECK(t.lambda[0] > 0.1 && ct > 0.5);
  MR_CHECK_NEAR(lt, 0.3 * t.lambda[0], 1e-10);
  MR_CHECK_NEAR((t.lambda[1] * t.c[1] + t.lambda[2] * t.c[2]) / (lt * ct), -1.0, 1e-10);
  MR_CHECK_NEAR(t.c[0], 0.3 * ct, 1e-10);
  printf("ccp slide: lambda (%.6f %.6f %.6f) c (%.6f %.6f %.6f), %d iterations\n", t.lambda[0],
         t.lambda[1], t.lambda[2], t.c[0], t.c[1], t.c[2], t.out.iters);
}

/* papers/002 sec. 3.2: lambda_N = (mu v_T - v_N) / (1 + mu^2), c_N = mu (mu v_N + v_T) /
 * (1 + mu^2) = 0.343 m/s upward while the contact pushes. */
static void test_ccp_hop(void) {
  test_problem t;
  const double mu = 0.4, vn = -GRAVITY * DT, vt = 1.0;
  point_mass(&t, mu, 0.0);
  problem_solve(&t, mr_solve_ccp);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(t.lambda[0], (mu * vt - vn) / (1 + mu * mu), 1e-12);
  MR_CHECK_NEAR(t.c[0], mu * (mu * vn + vt) / (1 + mu * mu), 1e-12);
  MR_CHECK_NEAR(t.c[1], t.c[0] / mu, 1e-12);
  MR_CHECK(t.c[0] > 0.34 && t.lambda[0] > 0.35);
  printf("ccp hop: c_N = %.6f m/s while lambda_N = %.6f N s (c_T = %.6f), %d iterations\n",
         t.c[0], t.lambda[0], t.c[1], t.out.iters);
}

/* lcp, slip at 30 degrees to t1: the friction sits on the pyramid corner, at 225 degrees
 * (15 degrees off the 210 of maximum dissipation), with magnitude sqrt(2) mu lambda_N; the
 * normal keeps Signorini (c_N = 0). Slip along t1 gives friction exactly along -t1. */
static void test_lcp_pyramid_bias(void) {
  test_problem t;
  const double mu = 0.4, lambda_n = GRAVITY * DT;
  point_mass(&t, mu, 30.0 * PI / 180.0);
  problem_solve(&t, mr_solve_lcp);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(t.lambda[0], lambda_n, 1e-12);
  MR_CHECK_NEAR(t.c[0], 0.0, 1e-12);
  MR_CHECK_NEAR(t.lambda[1], -mu * lambda_n, 1e-12);
  MR_CHECK_NEAR(t.lambda[2], -mu * lambda_n, 1e-12);
  double angle = atan2(t.lambda[2], t.lambda[1]) * 180.0 / PI + 360.0;
  double slip = atan2(t.c[2], t.c[1]) * 180.0 / PI;
  MR_CHECK_NEAR(angle, 225.0, 1e-9);
  MR_CHECK_NEAR(hypot(t.lambda[1], t.lambda[2]), sqrt(2.0) * mu * lambda_n, 1e-12);
  printf("lcp 30 deg slip: friction at %.3f deg (slip at %.3f deg, MDP wants %.3f), "
         "|lambda_T| / (mu lambda_N) = %.6f\n",
         angle, slip, slip + 180.0, hypot(t.lambda[1], t.lambda[2]) / (mu * lambda_n));

  point_mass(&t, mu, 0.0);
  problem_solve(&t, mr_solve_lcp);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(t.lambda[1], -mu * lambda_n, 1e-12);
  MR_CHECK_NEAR(t.lambda[2], 0.0, 1e-12);
}

int main(void) {
  work.arena = arena_buffer;
  work.narena = sizeof arena_buffer;
  mr_solver_fn solvers[2] = {mr_solve_ccp, mr_solve_lcp};
  const char *names[2] = {"ccp", "lcp"};
  for (int s = 0; s < 2; s++) {
    test_stick(solvers[s], names[s]);
    test_take_off(solvers[s], names[s]);
    test_bilateral_and_limits(solvers[s], names[s]);
    test_bad_input(solvers[s], names[s]);
  }
  test_ccp_slide();
  test_ccp_hop();
  test_lcp_pyramid_bias();
  MR_TEST_END();
}
