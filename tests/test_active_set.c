/* The active-set refinement behind pgs (engine/solver/active_set.c) on hand-made problems
 * with known answers: two coupled sticking contacts solved to round-off from a nearby
 * guess, a duplicated (redundant) contact whose two copies share the correction equally (the
 * proximal term's least change), a sliding contact whose friction turns to oppose its slip,
 * and a wrong guess the refinement must never make worse. Then pgs on a box landing on its
 * four corners: the refinement brings that hyperstatic problem to round-off in a few
 * sweeps. */
#include <math.h>
#include <string.h>

#include "engine/constraint/constraint.h"
#include "engine/solver/ncp.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/solver/active_set.h"
#include "engine/solver/solver.h"

#define NMAX 6

typedef struct problem {
  mr_problem p;
  double G[NMAX * NMAX], g[NMAX], mu[2], lambda[NMAX], c[NMAX];
} problem;

static void problem_init(problem *q, int ncon, const double *G, const double *mu) {
  memset(q, 0, sizeof *q);
  int n = 3 * ncon;
  memcpy(q->G, G, (size_t)n * n * sizeof(double));
  memcpy(q->mu, mu, (size_t)ncon * sizeof(double));
  q->p = (mr_problem){.nrow = n, .ncon = ncon, .dt = 1e-3, .G = q->G, .g = q->g, .mu = q->mu,
                      .tol = 1e-15, .max_iter = 100};
}

/* lambda := start and c := G lambda + g; returns the NCP residual there. */
static double problem_start(problem *q, const double *start) {
  int n = q->p.nrow;
  memcpy(q->lambda, start, (size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) {
    q->c[i] = q->g[i];
    for (int j = 0; j < n; j++) q->c[i] += q->G[i * n + j] * q->lambda[j];
  }
  return mr_ncp_residual(&q->p, q->lambda, q->c);
}

/* g := -G target: target is then an exact solution with c = 0. */
static void problem_target(problem *q, const double *target) {
  int n = q->p.nrow;
  for (int i = 0; i < n; i++) {
    q->g[i] = 0;
    for (int j = 0; j < n; j++) q->g[i] -= q->G[i * n + j] * target[j];
  }
}

/* Two contacts coupled through G (a symmetric positive definite 6 x 6), both sticking. */
static void test_sticking_pair(mr_data *work) {
  static const double G[36] = {2.0, 0.3, 0.1, 0.5, 0.2, 0.0, 0.3, 1.5, 0.2, 0.1, 0.4, 0.1,
                               0.1, 0.2, 1.2, 0.0, 0.1, 0.3, 0.5, 0.1, 0.0, 1.8, 0.2, 0.1,
                               0.2, 0.4, 0.1, 0.2, 1.6, 0.2, 0.0, 0.1, 0.3, 0.1, 0.2, 1.1};
  const double mu[2] = {0.5, 0.8}, target[6] = {1.0, 0.1, -0.05, 0.5, 0.02, 0.1};
  const double guess[6] = {0.9, 0.12, -0.02, 0.56, 0.0, 0.08};
  problem q;
  problem_init(&q, 2, G, mu);
  problem_target(&q, target);
  double res = problem_start(&q, guess), before = res;
  MR_CHECK(res > 1e-2);
  MR_CHECK(mr_active_set_refine(&q.p, q.lambda, q.c, NULL, &res, 0, work) == 1);
  MR_CHECK_MSG(res < 1e-14, "residual %.3e (was %.3e)", res, before);
  for (int i = 0; i < 6; i++) MR_CHECK_NEAR(q.lambda[i], target[i], 1e-13);
  for (int i = 0; i < 6; i++) MR_CHECK_NEAR(q.c[i], 0, 1e-13);
}

/* The same contact twice (G singular): the pair carries the load exactly, and the copies,
 * which the equations cannot tell apart, take equal shares of the correction. */
static void test_redundant_pair(mr_data *work) {
  static const double S[9] = {1.0, 0.2, 0.1, 0.2, 0.8, 0.05, 0.1, 0.05, 0.9};
  double G[36];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) G[i * 6 + j] = S[(i % 3) * 3 + j % 3];
  const double mu[2] = {0.6, 0.6}, total[6] = {1.0, 0.1, -0.2, 0, 0, 0};
  const double guess[6] = {0.4, 0.02, -0.05, 0.45, 0.03, -0.1};
  problem q;
  problem_init(&q, 2, G, mu);
  problem_target(&q, total);
  double res = problem_start(&q, guess);
  MR_CHECK(mr_active_set_refine(&q.p, q.lambda, q.c, NULL, &res, 0, work) == 1);
  MR_CHECK_MSG(res < 1e-14, "residual %.3e", res);
  for (int i = 0; i < 3; i++) {
    MR_CHECK_NEAR(q.lambda[i] + q.lambda[i + 3], total[i], 1e-13);
    MR_CHECK_NEAR(q.lambda[i] - guess[i], q.lambda[i + 3] - guess[i + 3], 1e-12);
  }
}

/* A unit point mass pushed into the ground and sliding at 30 degrees to the tangent axes:
 * from friction on the cone boundary but 20 degrees off the slip's direction, the normal
 * impulse is solved and the friction turns against the slip and scales with it (Signorini
 * c_N = 0, lambda_T = -mu lambda_N c_T / |c_T|). */
static void test_sliding(mr_data *work) {
  const double G[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, mu = 0.4;
  const double cs = cos(MR_PI / 6), sn = sin(MR_PI / 6);
  problem q;
  problem_init(&q, 1, G, &mu);
  q.g[0] = -0.01;
  q.g[1] = cs;
  q.g[2] = sn;
  const double off = MR_PI / 6 + MR_PI / 9;
  const double guess[3] = {0.008, -mu * 0.008 * cos(off), -mu * 0.008 * sin(off)};
  double res = problem_start(&q, guess);
  MR_CHECK(mr_active_set_refine(&q.p, q.lambda, q.c, NULL, &res, 0, work) == 1);
  MR_CHECK_NEAR(q.lambda[0], 0.01, 1e-15);
  MR_CHECK_NEAR(q.lambda[1], -mu * 0.01 * cs, 1e-15);
  MR_CHECK_NEAR(q.lambda[2], -mu * 0.01 * sn, 1e-15);
  MR_CHECK_NEAR(q.c[0], 0, 1e-15);
  MR_CHECK(res < 1e-15);
}

/* A guess whose set is wrong: it has the second contact pushing, but holding both
 * contacts still needs it to pull (lambda_N = -0.3). Whatever the rounds find, the
 * refinement must not hand back anything worse than the guess: either the guess untouched,
 * or a feasible point whose velocities match its impulses and whose residual is lower. */
static void test_refused(mr_data *work) {
  static const double G[36] = {2.0, 0.3, 0.1, 0.5, 0.2, 0.0, 0.3, 1.5, 0.2, 0.1, 0.4, 0.1,
                               0.1, 0.2, 1.2, 0.0, 0.1, 0.3, 0.5, 0.1, 0.0, 1.8, 0.2, 0.1,
                               0.2, 0.4, 0.1, 0.2, 1.6, 0.2, 0.0, 0.1, 0.3, 0.1, 0.2, 1.1};
  const double mu[2] = {0.5, 0.8}, target[6] = {1.0, 0.1, -0.05, -0.3, 0.02, 0.1};
  const double guess[6] = {0.95, 0.1, -0.05, 0.01, 0.0, 0.0};
  problem q;
  problem_init(&q, 2, G, mu);
  problem_target(&q, target);
  double res = problem_start(&q, guess), before = res;
  double lambda0[6], c0[6];
  memcpy(lambda0, q.lambda, sizeof lambda0);
  memcpy(c0, q.c, sizeof c0);
  int kept = mr_active_set_refine(&q.p, q.lambda, q.c, NULL, &res, 0, work);
  MR_CHECK(kept == 0 || kept == 1);
  if (kept == 0) {
    MR_CHECK(res == before);
    for (int i = 0; i < 6; i++) MR_CHECK(q.lambda[i] == lambda0[i] && q.c[i] == c0[i]);
    return;
  }
  MR_CHECK_MSG(res < before, "%.3e vs %.3e", res, before);
  double lambda[6], c[6];
  memcpy(lambda, q.lambda, sizeof lambda);
  memcpy(c, q.c, sizeof c);
  MR_CHECK_NEAR(problem_start(&q, lambda), res, 1e-15);
  for (int i = 0; i < 6; i++) MR_CHECK_NEAR(q.c[i], c[i], 1e-14);
  for (int k = 0; k < 2; k++) {
    MR_CHECK(lambda[3 * k] >= 0);
    double friction = mr_len2(lambda[3 * k + 1], lambda[3 * k + 2]);
    MR_CHECK(friction <= mu[k] * lambda[3 * k] * (1 + 1e-12));
  }
}

/* A 3 kg box landing flat on its four bottom corners (12 rows on 6 dofs, hyperstatic)
 * with some spin, cold started: pgs with the refinement reaches 1e-12 in a few sweeps,
 * plain Gauss-Seidel (pgs without scratch memory, which skips the refinement) needs many. */
static int box_corners_sweeps(mr_data *work) {
  const double half[3] = {0.2, 0.15, 0.1}, mass = 3;
  const double inertia[3] = {mass * (half[1] * half[1] + half[2] * half[2]) / 3,
                             mass * (half[0] * half[0] + half[2] * half[2]) / 3,
                             mass * (half[0] * half[0] + half[1] * half[1]) / 3};
  const double v_free[6] = {0.01, -0.02, -0.5, 0.3, -0.2, 0.05};
  double J[12][6] = {{0}}, G[144], g[12], mu[4] = {0.8, 0.8, 0.8, 0.8};
  for (int k = 0; k < 4; k++) {
    double r[3] = {k & 1 ? half[0] : -half[0], k & 2 ? half[1] : -half[1], -half[2]};
    for (int a = 0; a < 3; a++) { /* rows n = z, t1 = x, t2 = y: [axis, r x axis] */
      int axis = a == 0 ? 2 : a - 1;
      double e[3] = {0, 0, 0}, rxe[3];
      e[axis] = 1;
      rxe[0] = r[1] * e[2] - r[2] * e[1];
      rxe[1] = r[2] * e[0] - r[0] * e[2];
      rxe[2] = r[0] * e[1] - r[1] * e[0];
      for (int i = 0; i < 3; i++) J[3 * k + a][i] = e[i], J[3 * k + a][3 + i] = rxe[i];
    }
  }
  for (int i = 0; i < 12; i++) {
    g[i] = 0;
    for (int t = 0; t < 6; t++) g[i] += J[i][t] * v_free[t];
    for (int j = 0; j < 12; j++) {
      double s = 0;
      for (int t = 0; t < 3; t++) s += J[i][t] * J[j][t] / mass + J[i][3 + t] * J[j][3 + t] / inertia[t];
      G[i * 12 + j] = s;
    }
  }
  double lambda[12] = {0}, c[12];
  mr_problem p = {.nrow = 12, .ncon = 4, .dt = 1e-3, .G = G, .g = g, .mu = mu, .tol = 1e-12,
                  .max_iter = 2000};
  mr_solver_out out = {.lambda = lambda, .c = c};
  mr_solver_get(mr_solver_find("pgs"))->solve(&p, &out, work);
  MR_CHECK(out.status == MR_SOLVER_CONVERGED);
  double net = 0;
  for (int k = 0; k < 4; k++) net += lambda[3 * k];
  MR_CHECK_NEAR(net, 0.5 * mass, 1e-9); /* the normal impulse stops the fall */
  return out.iters;
}

static void test_box_corners(mr_data *work) {
  int refined = box_corners_sweeps(work), plain = box_corners_sweeps(NULL);
  fprintf(stderr, "box corners: %d sweeps with the refinement, %d without\n", refined, plain);
  MR_CHECK_MSG(refined <= 8, "%d sweeps", refined);
  MR_CHECK_MSG(plain > 4 * refined, "%d vs %d sweeps", plain, refined);
}

int main(void) {
  char err[256];
  mr_model *m = mr_model_load(MOREAU_SOURCE_DIR "/models/sliding_cube.xml",
                              &(mr_load_options){.quiet = 1}, err, sizeof err);
  MR_REQUIRE(m);
  mr_data *work = mr_data_create(m);
  test_sticking_pair(work);
  test_redundant_pair(work);
  test_sliding(work);
  test_refused(work);
  test_box_corners(work);
  mr_data_free(work);
  mr_model_free(m);
  MR_TEST_END();
}
