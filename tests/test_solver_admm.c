/* The `admm` solver (engine/solver/admm.c) on hand-built problems with known answers:
 * stick, slide (on the cone, no hop, maximal dissipation), take-off, bilateral and limit
 * rows, the rank-deficient hyperstatic box, duplicated contacts, bad input, warm start;
 * and the heavy-on-light stacked cubes (mass ratio 1e6, papers/002 sec. 5.3), where admm
 * reaches 1e-8 while the per-contact sweeps `ccp` and `lcp` truthfully report that they
 * hit their 100-iteration cap.
 *
 * The problems are dual-only (G, g, mu): p->m and p->d stay NULL, which these solvers
 * document they never read. G for the rigid bodies is J M^-1 J^T from a J written here
 * for free cubes (6 dof each: world linear velocity, world angular velocity about the
 * centre of mass, identity orientation, inertia m a^2 / 6).
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "mr_test.h"
#include "engine/solver/solver.h"

void mr_solve_admm(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_ccp(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_lcp(const mr_problem *p, mr_solver_out *out, mr_data *work);

#define MAXROW 24
#define MAXITER 2000
#define GRAVITY 9.81
#define DT 1e-3

static _Alignas(64) unsigned char arena_buffer[1 << 20];
static mr_data work;

typedef struct test_problem {
  mr_problem p;
  double G[MAXROW * MAXROW], g[MAXROW], mu[MAXROW / 3];
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

static int all_finite(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* ---------------------------------------------------------------- rigid-body G from J */

typedef struct cube_body {
  double mass, inertia; /* isotropic: m a^2 / 6 */
  double pos[3];
} cube_body;

/* One contact row of direction d at point pt on body b (sign +1: second body of the
 * contact, -1: first). J is nrow x nv, row-major. */
static void jacobian_row(double *J, int nv, int row, int b, double sign, const cube_body *body,
                         const double pt[3], const double d[3]) {
  double r[3] = {pt[0] - body->pos[0], pt[1] - body->pos[1], pt[2] - body->pos[2]};
  double rxd[3] = {r[1] * d[2] - r[2] * d[1], r[2] * d[0] - r[0] * d[2], r[0] * d[1] - r[1] * d[0]};
  for (int j = 0; j < 3; j++) {
    J[row * nv + 6 * b + j] += sign * d[j];
    J[row * nv + 6 * b + 3 + j] += sign * rxd[j];
  }
}

/* A contact with normal +z and tangents +x, +y at pt, between body b1 (first, -1 sign; -1
 * for the world) and b2 (second). */
static void jacobian_contact(double *J, int nv, int k, const cube_body *bodies, int b1, int b2,
                             const double pt[3]) {
  static const double frame[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int j = 0; j < 3; j++) {
    if (b1 >= 0) jacobian_row(J, nv, 3 * k + j, b1, -1, &bodies[b1], pt, frame[j]);
    jacobian_row(J, nv, 3 * k + j, b2, +1, &bodies[b2], pt, frame[j]);
  }
}

/* G = J M^-1 J^T and g = J v_free for bodies at rest under gravity for one step. */
static void delassus_build(test_problem *t, const double *J, int nv, const cube_body *bodies) {
  int n = t->p.nrow;
  double minv[MAXROW], vfree[MAXROW];
  for (int b = 0; b < nv / 6; b++)
    for (int j = 0; j < 3; j++) {
      minv[6 * b + j] = 1.0 / bodies[b].mass;
      minv[6 * b + 3 + j] = 1.0 / bodies[b].inertia;
      vfree[6 * b + j] = j == 2 ? -GRAVITY * DT : 0.0;
      vfree[6 * b + 3 + j] = 0;
    }
  for (int i = 0; i < n; i++) {
    t->g[i] = 0;
    for (int a = 0; a < nv; a++) t->g[i] += J[i * nv + a] * vfree[a];
    for (int j = 0; j < n; j++) {
      double sum = 0;
      for (int a = 0; a < nv; a++) sum += J[i * nv + a] * minv[a] * J[j * nv + a];
      t->G[i * n + j] = sum;
    }
  }
}

static cube_body cube_make(double mass, double a, double z) {
  cube_body b = {mass, mass * a * a / 6.0, {0, 0, z}};
  return b;
}

/* The four bottom corners of a cube of edge a centred at (0, 0, zc). */
static void cube_corner(double a, double zc, int i, double pt[3]) {
  pt[0] = (i & 1 ? 0.5 : -0.5) * a;
  pt[1] = (i & 2 ? 0.5 : -0.5) * a;
  pt[2] = zc - 0.5 * a;
}

/* Heavy cube (m2) on light cube (m1) on the floor: 8 contacts, 24 rows, 12 dof (rank <= 12),
 * papers/002 sec. 5.3 with [R]'s 2cubes.py values (a = 0.2, mu 0.9 floor, 0.95 between). */
static void stacked_cubes(test_problem *t, double m1, double m2, double tol, int max_iter) {
  const double a = 0.2;
  problem_init(t, 0, 0, 8, tol, max_iter);
  cube_body bodies[2] = {cube_make(m1, a, 0.5 * a), cube_make(m2, a, 1.5 * a)};
  double J[24 * 12] = {0};
  for (int i = 0; i < 4; i++) {
    double pt[3];
    cube_corner(a, 0.5 * a, i, pt);
    jacobian_contact(J, 12, i, bodies, -1, 0, pt);
    t->mu[i] = 0.9;
    cube_corner(a, 1.5 * a, i, pt);
    jacobian_contact(J, 12, 4 + i, bodies, 0, 1, pt);
    t->mu[4 + i] = 0.95;
  }
  delassus_build(t, J, 12, bodies);
}

/* One cube on four corner contacts: 12 rows, 6 dof, rank 6. */
static void hyperstatic_box(test_problem *t, double mass, double tol, int max_iter) {
  const double a = 0.2;
  problem_init(t, 0, 0, 4, tol, max_iter);
  cube_body body = cube_make(mass, a, 0.5 * a);
  double J[12 * 6] = {0};
  for (int i = 0; i < 4; i++) {
    double pt[3];
    cube_corner(a, 0.5 * a, i, pt);
    jacobian_contact(J, 6, i, &body, -1, 0, pt);
    t->mu[i] = 0.5;
  }
  delassus_build(t, J, 6, &body);
}

/* ---------------------------------------------------------------- small problems */

static const double G3[9] = {2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2};

static void contact_problem(test_problem *t, const double lambda_star[3], double mu) {
  problem_init(t, 0, 0, 1, 1e-10, 500);
  memcpy(t->G, G3, sizeof G3);
  t->mu[0] = mu;
  for (int i = 0; i < 3; i++) t->g[i] = -dot3(G3 + 3 * i, lambda_star);
}

static void test_stick(void) {
  test_problem t;
  const double star[3] = {1.0, 0.2, -0.1}; /* |lambda_T| = 0.22 < 0.5 */
  contact_problem(&t, star, 0.5);
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.lambda[i], star[i], 1e-8);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.c[i], 0.0, 1e-9);
  printf("stick: %d iterations, residual %.2e\n", t.out.iters, t.out.residual);
}

/* Sliding with coupling in G: lambda on the cone boundary, no normal velocity (no hop),
 * friction exactly opposite the slip (maximum dissipation). */
static void test_slide(void) {
  test_problem t;
  problem_init(&t, 0, 0, 1, 1e-10, 500);
  memcpy(t.G, G3, sizeof G3);
  t.mu[0] = 0.3;
  t.g[0] = -0.5;
  t.g[1] = 2.0;
  t.g[2] = -1.0;
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  double lt = hypot(t.lambda[1], t.lambda[2]), ct = hypot(t.c[1], t.c[2]);
  MR_CHECK(t.lambda[0] > 0.1);
  MR_CHECK_NEAR(lt, 0.3 * t.lambda[0], 1e-8);
  MR_CHECK_NEAR(t.c[0], 0.0, 1e-9);
  MR_CHECK(ct > 0.5);
  double cosine = (t.lambda[1] * t.c[1] + t.lambda[2] * t.c[2]) / (lt * ct);
  MR_CHECK_NEAR(cosine, -1.0, 1e-8);
  printf("slide: lambda (%.6f %.6f %.6f) c (%.2e %.6f %.6f), %d iterations\n", t.lambda[0],
         t.lambda[1], t.lambda[2], t.c[0], t.c[1], t.c[2], t.out.iters);
}

/* The point mass of papers/002 sec. 3.2 (mu 0.4, 1 m/s, 1 ms): where ccp hops, admm
 * keeps c_N = 0 and lambda_N = m g dt. */
static void test_point_mass_no_hop(void) {
  test_problem t;
  problem_init(&t, 0, 0, 1, 1e-12, 500);
  for (int i = 0; i < 3; i++) t.G[4 * i] = 1.0; /* m = 1 */
  t.mu[0] = 0.4;
  t.g[0] = -GRAVITY * DT;
  t.g[1] = 1.0;
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(t.lambda[0], GRAVITY * DT, 1e-10);
  MR_CHECK_NEAR(t.lambda[1], -0.4 * GRAVITY * DT, 1e-10);
  MR_CHECK_NEAR(t.lambda[2], 0.0, 1e-12);
  MR_CHECK_NEAR(t.c[0], 0.0, 1e-9);
  printf("point mass slide: c_N %.2e, lambda_N %.6e, %d iterations\n", t.c[0], t.lambda[0],
         t.out.iters);
}

static void test_take_off(void) {
  test_problem t;
  problem_init(&t, 0, 0, 1, 1e-10, 100);
  memcpy(t.G, G3, sizeof G3);
  t.mu[0] = 0.5;
  t.g[0] = 0.2;
  t.g[1] = -0.3;
  t.g[2] = 0.1;
  for (int i = 0; i < 3; i++) t.lambda[i] = 0.7; /* a stale warm start */
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.lambda[i], 0.0, 1e-10);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(t.c[i], t.g[i], 1e-9);
}

/* One bilateral row coupled to a sticking contact: c = 0 on all rows, exact solution. */
static void test_bilateral(void) {
  test_problem t;
  problem_init(&t, 1, 0, 1, 1e-10, 500);
  static const double G4[16] = {3.0, 0.5, 0.2, -0.1, 0.5, 2.0, 0.3, 0.1,
                                0.2, 0.3, 1.5, 0.2, -0.1, 0.1, 0.2, 1.2};
  const double star[4] = {-2.0, 1.0, 0.2, -0.1}; /* bilateral impulse may be negative */
  memcpy(t.G, G4, sizeof G4);
  t.mu[0] = 0.5;
  for (int i = 0; i < 4; i++) t.g[i] = -(G4[4 * i] * star[0] + dot3(G4 + 4 * i + 1, star + 1));
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 4; i++) MR_CHECK_NEAR(t.lambda[i], star[i], 1e-8);
  MR_CHECK_NEAR(t.c[0], 0.0, 1e-10);
}

/* Two limit rows: one pushed (g < 0), one opening (g > 0) that must stay at zero force. */
static void test_limits(void) {
  test_problem t;
  problem_init(&t, 0, 2, 0, 1e-12, 500);
  t.G[0] = 2.0;
  t.G[1] = t.G[2] = 0.5;
  t.G[3] = 1.0;
  t.g[0] = -1.0;
  t.g[1] = 0.6;
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(t.lambda[0], 0.5, 1e-10);
  MR_CHECK_NEAR(t.lambda[1], 0.0, 1e-12);
  MR_CHECK_NEAR(t.c[0], 0.0, 1e-10);
  MR_CHECK_NEAR(t.c[1], 0.85, 1e-10);
}

static double total_normal(const test_problem *t, int first, int count) {
  double sum = 0;
  for (int k = first; k < first + count; k++) sum += t->lambda[3 * k];
  return sum;
}

/* The hyperstatic box: G is 12 x 12 of rank 6 (no Cholesky of G alone exists). */
static void test_hyperstatic_box(void) {
  test_problem t;
  hyperstatic_box(&t, 2.0, 1e-10, 500);
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK(all_finite(t.lambda, 12));
  MR_CHECK_NEAR(total_normal(&t, 0, 4), 2.0 * GRAVITY * DT, 1e-9);
  for (int i = 0; i < 12; i++) MR_CHECK_NEAR(t.c[i], 0.0, 1e-9);
  printf("hyperstatic box: %d iterations, residual %.2e, normals %.6e %.6e %.6e %.6e\n",
         t.out.iters, t.out.residual, t.lambda[0], t.lambda[3], t.lambda[6], t.lambda[9]);
}

/* Four copies of one contact under the centre of a box: 12 identical-by-block rows of
 * rank 3. The split between copies is free; admm must still converge to finite impulses
 * carrying the weight. */
static void test_duplicated_contacts(void) {
  const double a = 0.2;
  test_problem t;
  problem_init(&t, 0, 0, 4, 1e-10, 500);
  cube_body body = cube_make(1.0, a, 0.5 * a);
  double J[12 * 6] = {0}, centre[3] = {0, 0, 0};
  for (int i = 0; i < 4; i++) {
    jacobian_contact(J, 6, i, &body, -1, 0, centre);
    t.mu[i] = 0.5;
  }
  delassus_build(&t, J, 6, &body);
  t.g[1] = t.g[4] = t.g[7] = t.g[10] = 0.05; /* a slow slide along t1 */
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK(all_finite(t.lambda, 12));
  MR_CHECK_NEAR(total_normal(&t, 0, 4), GRAVITY * DT, 1e-9);
  printf("duplicated contacts: %d iterations, residual %.2e\n", t.out.iters, t.out.residual);
}

/* Heavy (1e3 kg) on light (1e-3 kg): admm converges to 1e-8 with the weights carried; the
 * per-contact sweeps stop at their 100-iteration cap and say so. */
static void test_mass_ratio(void) {
  static test_problem t;
  const double m1 = 1e-3, m2 = 1e3;
  stacked_cubes(&t, m1, m2, 1e-8, 1000);
  problem_solve(&t, mr_solve_admm);
  printf("mass ratio 1e6, admm: status %d, %d iterations, residual %.3e\n", t.out.status,
         t.out.iters, t.out.residual);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK(t.out.residual <= 1e-8);
  MR_CHECK(t.out.iters >= 1 && t.history[t.out.iters - 1] == t.out.residual);
  MR_CHECK_NEAR(total_normal(&t, 0, 4), (m1 + m2) * GRAVITY * DT, 2e-8 * m2); /* tol x mass */
  MR_CHECK_NEAR(total_normal(&t, 4, 4), m2 * GRAVITY * DT, 2e-8 * m2);
  MR_CHECK(all_finite(t.lambda, 24));

  mr_solver_fn per_contact[2] = {mr_solve_ccp, mr_solve_lcp};
  const char *names[2] = {"ccp", "lcp"};
  for (int s = 0; s < 2; s++) {
    stacked_cubes(&t, m1, m2, 1e-8, 100);
    problem_solve(&t, per_contact[s]);
    printf("mass ratio 1e6, %s: status %d, %d iterations, residual %.3e\n", names[s],
           t.out.status, t.out.iters, t.out.residual);
    MR_CHECK(t.out.status == MR_SOLVER_MAX_ITER);
    MR_CHECK(t.out.iters == 100);
    MR_CHECK(t.out.residual > 1e-8 && t.history[99] == t.out.residual);
    MR_CHECK(all_finite(t.lambda, 24));
  }
}

/* Heavy on light, both sliding at 0.3 m/s relative to the floor: no convergence guarantee
 * for the NCP, but the answer must be finite, accurate to 1e-5, and the status truthful. */
static void test_mass_ratio_sliding(void) {
  static test_problem t;
  stacked_cubes(&t, 1e-3, 1e3, 1e-8, 1000);
  for (int k = 4; k < 8; k++) t.g[3 * k + 1] += 0.3; /* top cube slides over the bottom one */
  problem_solve(&t, mr_solve_admm);
  printf("mass ratio 1e6 sliding, admm: status %d, %d iterations, residual %.3e\n",
         t.out.status, t.out.iters, t.out.residual);
  MR_CHECK(all_finite(t.lambda, 24) && all_finite(t.c, 24));
  MR_CHECK(t.out.residual < 1e-5);
  MR_CHECK((t.out.status == MR_SOLVER_CONVERGED) == (t.out.residual <= 1e-8));
  MR_CHECK(t.out.status != MR_SOLVER_FAILED);

  stacked_cubes(&t, 1e-3, 1e3, 1e-8, 0); /* a zero cap: no iteration, honest status */
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.iters == 0 && t.out.status == MR_SOLVER_MAX_ITER);
}

/* NaN in g: FAILED, impulses zeroed, everything finite. */
static void test_bad_input(void) {
  test_problem t;
  const double star[3] = {1.0, 0.2, -0.1};
  contact_problem(&t, star, 0.5);
  t.g[1] = NAN;
  for (int i = 0; i < 3; i++) t.lambda[i] = 5.0;
  problem_solve(&t, mr_solve_admm);
  MR_CHECK(t.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < 3; i++) MR_CHECK(t.lambda[i] == 0.0);
  MR_CHECK(all_finite(t.c, 3));
}

/* A converged answer fed back as the warm start needs no iteration; the arena is handed
 * back as it was found. */
static void test_warm_start(void) {
  static test_problem t;
  stacked_cubes(&t, 1.0, 1.0, 1e-10, 1000);
  problem_solve(&t, mr_solve_admm);
  int cold = t.out.iters;
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  mr_arena_reset(&work);
  size_t before = mr_arena_mark(&work);
  mr_solve_admm(&t.p, &t.out, &work);
  MR_CHECK(mr_arena_mark(&work) == before);
  MR_CHECK(t.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK(t.out.iters <= 1);
  printf("warm start: cold %d iterations, warm %d\n", cold, t.out.iters);
}

int main(void) {
  work.arena = arena_buffer;
  work.narena = sizeof arena_buffer;
  test_stick();
  test_slide();
  test_point_mass_no_hop();
  test_take_off();
  test_bilateral();
  test_limits();
  test_hyperstatic_box();
  test_duplicated_contacts();
  test_mass_ratio();
  test_mass_ratio_sliding();
  test_bad_input();
  test_warm_start();
  MR_TEST_END();
}
