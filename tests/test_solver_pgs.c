/* pgs on small hand-made problems with known answers: a sticking contact, a sliding contact
 * on the cone boundary with maximum dissipation, bilateral rows, a joint limit; and the
 * registry lookups. */
#include <math.h>
#include <string.h>

#include "engine/constraint/constraint.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/solver/solver.h"

#define NMAX 8

typedef struct problem {
  mr_problem p;
  double G[NMAX * NMAX], g[NMAX], R[NMAX], mu[NMAX], dist[NMAX];
  double lambda[NMAX], c[NMAX], history[MR_MAX_ITER_CAP];
  mr_solver_out out;
} problem;

static void problem_init(problem *q, int neq, int nlim, int ncon, const double *G, const double *g,
                         const double *mu) {
  memset(q, 0, sizeof *q);
  int n = neq + nlim + 3 * ncon;
  memcpy(q->G, G, (size_t)n * n * sizeof(double));
  memcpy(q->g, g, (size_t)n * sizeof(double));
  if (ncon) memcpy(q->mu, mu, (size_t)ncon * sizeof(double));
  q->p = (mr_problem){.nrow = n, .neq = neq, .nlim = nlim, .ncon = ncon, .dt = 1e-3,
                      .G = q->G, .g = q->g, .R = q->R, .mu = q->mu, .dist = q->dist,
                      .tol = 1e-12, .max_iter = 1000};
  q->out = (mr_solver_out){.lambda = q->lambda, .c = q->c, .history = q->history};
}

static void solve(problem *q) {
  int pgs = mr_solver_find("pgs");
  MR_REQUIRE(pgs >= 0);
  mr_solver_get(pgs)->solve(&q->p, &q->out, NULL);
}

/* A point mass (G = I) pushed down and sideways, with enough friction: it sticks. */
static void test_sticking(void) {
  problem q;
  const double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {-0.01, 0.002, -0.001}, mu = 0.5;
  problem_init(&q, 0, 0, 1, G, g, &mu);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(q.lambda[0], 0.01, 1e-12);
  MR_CHECK_NEAR(q.lambda[1], -0.002, 1e-12);
  MR_CHECK_NEAR(q.lambda[2], 0.001, 1e-12);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(q.c[i], 0, 1e-12);
}

/* Sliding at 30 degrees to the tangent axes: friction on the cone boundary, opposite to
 * the slip (maximum dissipation), Signorini c_N = 0 (no hop). */
static void test_sliding(void) {
  problem q;
  const double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu = 0.4;
  const double g[3] = {-0.01, cos(MR_PI / 6), sin(MR_PI / 6)};
  problem_init(&q, 0, 0, 1, G, g, &mu);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(q.lambda[0], 0.01, 1e-12);
  MR_CHECK_NEAR(q.lambda[1], -0.004 * cos(MR_PI / 6), 1e-12);
  MR_CHECK_NEAR(q.lambda[2], -0.004 * sin(MR_PI / 6), 1e-12);
  MR_CHECK_NEAR(q.c[0], 0, 1e-12);
  MR_CHECK_NEAR(q.c[1], (1 - 0.004) * cos(MR_PI / 6), 1e-12);
  MR_CHECK_NEAR(q.c[2], (1 - 0.004) * sin(MR_PI / 6), 1e-12);
  MR_CHECK(q.out.residual <= 1e-12);
  MR_CHECK(q.out.iters >= 1 && q.history[q.out.iters - 1] == q.out.residual);
}

/* An off-centre contact with an anisotropic, coupled G: still converges, and the friction
 * opposes the slip exactly (the step that keeps MDP). */
static void test_sliding_coupled(void) {
  problem q;
  const double G[9] = {2, 0.3, -0.4, 0.3, 5, 1.5, -0.4, 1.5, 40}, mu = 0.6;
  const double g[3] = {-0.05, 0.7, -0.2};
  problem_init(&q, 0, 0, 1, G, g, &mu);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  double lt = hypot(q.lambda[1], q.lambda[2]), ct = hypot(q.c[1], q.c[2]);
  MR_CHECK(q.lambda[0] > 0);
  MR_CHECK_NEAR(q.c[0], 0, 1e-10);
  MR_CHECK_NEAR(lt, mu * q.lambda[0], 1e-10);
  MR_CHECK(ct > 1e-3);
  MR_CHECK_NEAR(q.lambda[1] * q.c[1] + q.lambda[2] * q.c[2], -lt * ct, 1e-10);
}

/* A separating contact gets no impulse. */
static void test_separating(void) {
  problem q;
  const double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, g[3] = {0.3, 1, 0}, mu = 1;
  problem_init(&q, 0, 0, 1, G, g, &mu);
  q.lambda[0] = 1; /* a bad warm start */
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(q.lambda[i], 0, 1e-14);
}

/* Two coupled bilateral rows: lambda = -G^-1 g, free in sign. */
static void test_bilateral(void) {
  problem q;
  const double G[4] = {2, 1, 1, 2}, g[2] = {1, -1};
  problem_init(&q, 2, 0, 0, G, g, NULL);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(q.lambda[0], -1, 1e-11);
  MR_CHECK_NEAR(q.lambda[1], 1, 1e-11);
}

/* A redundant bilateral pair (the same row twice, G singular): the velocity still
 * converges to zero. */
static void test_bilateral_redundant(void) {
  problem q;
  const double G[4] = {1, 1, 1, 1}, g[2] = {-0.5, -0.5};
  problem_init(&q, 2, 0, 0, G, g, NULL);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(q.lambda[0] + q.lambda[1], 0.5, 1e-11);
}

/* A joint limit: pushed into it, the impulse stops it; moving away, no impulse. */
static void test_limit(void) {
  problem q;
  const double G[1] = {2}, into[1] = {-1}, away[1] = {1};
  problem_init(&q, 0, 1, 0, G, into, NULL);
  solve(&q);
  MR_CHECK(q.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(q.lambda[0], 0.5, 1e-14);
  MR_CHECK_NEAR(q.c[0], 0, 1e-14);
  problem_init(&q, 0, 1, 0, G, away, NULL);
  solve(&q);
  MR_CHECK_NEAR(q.lambda[0], 0, 0);
  MR_CHECK_NEAR(q.c[0], 1, 1e-14);
}

/* The cap is honoured and reported. */
static void test_cap(void) {
  problem q;
  const double G[9] = {2, 0.3, -0.4, 0.3, 5, 1.5, -0.4, 1.5, 40}, mu = 0.6, g[3] = {-0.05, 0.7, -0.2};
  problem_init(&q, 0, 0, 1, G, g, &mu);
  q.p.max_iter = 1;
  q.p.tol = 1e-300;
  solve(&q);
  MR_CHECK(q.out.iters == 1);
  MR_CHECK(q.out.status == MR_SOLVER_MAX_ITER);
}

static void test_registry(void) {
  MR_CHECK(mr_solver_count() >= 1);
  MR_CHECK(mr_solver_find("pgs") >= 0);
  MR_CHECK(mr_solver_find("no-such-solver") == -1);
  MR_CHECK(mr_solver_find(NULL) == -1);
  MR_CHECK(strcmp(mr_solver_name(mr_solver_default()), "newton") == 0);
  MR_CHECK(mr_solver_default_reason() && mr_solver_default_reason()[0]);
  for (int i = 0; i < mr_solver_count(); i++) {
    MR_CHECK(mr_solver_find(mr_solver_name(i)) == i);
    MR_CHECK(mr_solver_hotkey(i) != 0);
    MR_CHECK(mr_solver_description(i) && mr_solver_description(i)[0]);
    for (int j = 0; j < i; j++) MR_CHECK(mr_solver_hotkey(i) != mr_solver_hotkey(j));
  }
  MR_CHECK(mr_solver_name(-1) == NULL && mr_solver_name(mr_solver_count()) == NULL);
}

/* Cone projections: onto K_mu, its dual, and mu = 0. */
static void test_cones(void) {
  double x[3] = {1, 3, 4};
  mr_cone_project(x, 0.5); /* outside: onto the boundary */
  MR_CHECK_NEAR(hypot(x[1], x[2]), 0.5 * x[0], 1e-14);
  double y[3] = {-10, 1, 0};
  mr_cone_project(y, 0.5); /* in the polar cone */
  MR_CHECK(y[0] == 0 && y[1] == 0 && y[2] == 0);
  double z[3] = {2, 0.5, 0};
  mr_cone_project(z, 0.5);
  MR_CHECK(z[0] == 2 && z[1] == 0.5);
  double w[3] = {-1, 0, 0};
  mr_cone_project(w, 0);
  MR_CHECK(w[0] == 0);
  double v[3] = {-1, 2, 0};
  mr_cone_project_dual(v, 0); /* K*_0 is the half-space x_N >= 0 */
  MR_CHECK(v[0] == 0 && v[1] == 2);
  double u[3] = {1, 3, 4};
  mr_cone_project_dual(u, 0.5);
  MR_CHECK_NEAR(0.5 * hypot(u[1], u[2]), u[0], 1e-14);
  MR_CHECK_NEAR(mr_cone_distance((double[3]){1, 0.1, 0}, 0.5), 0, 0);
}

int main(void) {
  test_sticking();
  test_sliding();
  test_sliding_coupled();
  test_separating();
  test_bilateral();
  test_bilateral_redundant();
  test_limit();
  test_cap();
  test_registry();
  test_cones();
  MR_TEST_END();
}
