/* implicit (Todorov's implicit complementarity) on hand-built problems.
 *
 * Five stacked balls (papers/001 Fig. 6), built from point masses: balls 1..5 of masses
 * 1, 2, 0.5, 3, 1 kg (bottom to top) in a vertical column, 3 dofs each (no rotation, so
 * nv = 15); contact 0 is floor-ball 1, contact k is ball k - ball k+1, normal +z (from the
 * lower body to the upper), tangents x and y; the contact velocity is upper minus lower,
 * so J has +I3 on the upper ball's columns and -I3 on the lower's; G = J M^-1 J^T. The
 * stack falls at 1 m/s and reaches the floor: with dt = 5 ms, v_free = -1 - 9.81 dt for
 * every ball, so g_N = -1.049 at the floor and 0 between balls. After the step every
 * vertical velocity must be 0 (< 1e-9). Plus: sliding with and without G_NT (the NCP holds:
 * Signorini, cone and maximum dissipation), take-off, bilateral and limit rows, duplicate
 * contacts, warm start, bad input. */
#include <math.h>
#include <string.h>

#include "mr_test.h"
#include "engine/solver/solver.h"

void mr_solve_implicit(const mr_problem *p, mr_solver_out *out, mr_data *work);

#define MAXROW 32
#define MAXIT 500

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
  f->p.dt = 5e-3, f->p.tol = 1e-12, f->p.max_iter = MAXIT;
  f->out.lambda = f->lambda, f->out.c = f->c, f->out.history = f->hist;
  f->work.arena = arena, f->work.narena = sizeof arena;
}

static void set_block(fixture *f, int r0, const double B[9]) {
  int n = f->p.nrow;
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) f->G[(r0 + a) * n + r0 + b] = B[3 * a + b];
}

static void fixture_delassus(fixture *f, const double *J, const double *minv, int nv) {
  int n = f->p.nrow;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++) s += J[i * nv + k] * minv[k] * J[j * nv + k];
      f->G[i * n + j] = s;
    }
}

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

static void five_balls(void) {
  enum { NB = 5, NV = 3 * NB };
  const double mass[NB] = {1, 2, 0.5, 3, 1};
  double J[3 * NB * NV] = {0}, minv[NV], vfree[NV], dt = 5e-3;
  fixture f;
  fixture_init(&f, 0, 0, NB);
  for (int b = 0; b < NB; b++)
    for (int a = 0; a < 3; a++) {
      minv[3 * b + a] = 1 / mass[b];
      vfree[3 * b + a] = a == 2 ? -1 - 9.81 * dt : 0;
    }
  for (int k = 0; k < NB; k++) /* contact k: ball k over ball k-1 (or the floor) */
    for (int a = 0; a < 3; a++) {
      int row = 3 * k + a, axis = a == 0 ? 2 : a - 1; /* rows (N=z, T1=x, T2=y) */
      J[row * NV + 3 * k + axis] = 1;
      if (k > 0) J[row * NV + 3 * (k - 1) + axis] = -1;
    }
  fixture_delassus(&f, J, minv, NV);
  for (int i = 0; i < 3 * NB; i++) {
    f.g[i] = 0;
    for (int j = 0; j < NV; j++) f.g[i] += J[i * NV + j] * vfree[j];
  }
  for (int k = 0; k < NB; k++) f.mu[k] = 0.5;
  mr_solve_implicit(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  double vmax = 0;
  for (int j = 0; j < NV; j++) { /* v = v_free + M^-1 J^T lambda */
    double v = vfree[j];
    for (int i = 0; i < 3 * NB; i++) v += minv[j] * J[i * NV + j] * f.lambda[i];
    if (j % 3 == 2) vmax = fmax(vmax, fabs(v));
  }
  MR_CHECK_MSG(vmax < 1e-9, "vertical velocity %g", vmax);
  MR_CHECK(f.out.iters <= 1);
  printf("five balls: %d iterations, max |vertical velocity| after impact %.3g m/s, floor impulse %.6g\n",
         f.out.iters, vmax, f.lambda[0]);
}

static void sliding(void) {
  const double Bs[2][9] = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5}};
  for (int t = 0; t < 2; t++) {
    fixture f;
    fixture_init(&f, 0, 0, 1);
    set_block(&f, 0, Bs[t]);
    f.g[0] = -0.1, f.g[1] = 1, f.g[2] = 0.5, f.mu[0] = 0.4;
    mr_solve_implicit(&f.p, &f.out, &f.work);
    double e = ncp_error(&f);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
    MR_CHECK_MSG(e < 1e-10, "NCP error %g", e);
    MR_CHECK(hypot(f.c[1], f.c[2]) > 0.1 && f.lambda[0] > 0);
    printf("implicit slide (%s): %d iterations, NCP error %.3g\n", t ? "G_NT != 0" : "point mass",
           f.out.iters, e);
    /* warm start from the solution: nothing left to do */
    mr_solve_implicit(&f.p, &f.out, &f.work);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED && f.out.iters == 0);
  }
}

static void takeoff_and_stick(void) {
  fixture f;
  const double B[9] = {1, 0.3, -0.2, 0.3, 2, 0.1, -0.2, 0.1, 1.5};
  fixture_init(&f, 0, 0, 1);
  set_block(&f, 0, B);
  f.g[0] = 0.3, f.g[1] = 1, f.mu[0] = 1, f.lambda[0] = 2;
  mr_solve_implicit(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.lambda[i], 0, 1e-14);
  fixture_init(&f, 0, 0, 1);
  set_block(&f, 0, B);
  f.g[0] = -1, f.g[1] = 0.1, f.mu[0] = 1;
  mr_solve_implicit(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  for (int i = 0; i < 3; i++) MR_CHECK_NEAR(f.c[i], 0, 1e-12);
}

static void mixed_rows_and_rank(void) {
  fixture f;
  fixture_init(&f, 1, 1, 1);
  static const double J[5 * 6] = {1, 0.2, 0, 0, 0.1, 0, 0, 0.3, 1, 0.2, 0, 0, 0, 0, 1, 0.1, -0.2, 0,
                                  1, 0, 0, 0, 0.3, 0.1, 0, 1, 0, -0.3, 0, 0.2};
  static const double ones[6] = {1, 1, 1, 1, 1, 1};
  fixture_delassus(&f, J, ones, 6);
  f.g[0] = 0.3, f.g[1] = -2, f.g[2] = -3, f.g[3] = 0.05, f.g[4] = -0.02, f.mu[0] = 0.8;
  mr_solve_implicit(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
  MR_CHECK_NEAR(f.c[0], 0, 1e-10);
  MR_CHECK(f.lambda[1] >= 0 && f.c[1] > -1e-10 && fabs(f.lambda[1] * f.c[1]) < 1e-10);
  MR_CHECK(f.lambda[2] > 0 && ncp_error(&f) < 1e-10);
  printf("implicit bilateral+limit+contact: %d iterations, lambda %.6g %.6g %.6g\n", f.out.iters,
         f.lambda[0], f.lambda[1], f.lambda[2]);
  /* duplicate point-mass contacts: G of rank 3 of 6, sticking then sliding */
  static const double Jd[6 * 3] = {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0};
  for (int t = 0; t < 2; t++) {
    fixture_init(&f, 0, 0, 2);
    fixture_delassus(&f, Jd, ones, 3);
    f.g[0] = f.g[3] = -1, f.g[1] = f.g[4] = t ? 2 : 0.2, f.mu[0] = f.mu[1] = 0.5;
    mr_solve_implicit(&f.p, &f.out, &f.work);
    MR_CHECK(f.out.status == MR_SOLVER_CONVERGED);
    MR_CHECK_NEAR(f.c[0], 0, 1e-10);
    MR_CHECK_NEAR(f.lambda[0] + f.lambda[3], 1, 1e-10);
    MR_CHECK(ncp_error(&f) < 1e-10);
    printf("implicit duplicate contacts (%s): %d iterations\n", t ? "slide" : "stick", f.out.iters);
  }
  /* bad input */
  f.G[4] = NAN;
  f.lambda[1] = 1;
  mr_solve_implicit(&f.p, &f.out, &f.work);
  MR_CHECK(f.out.status == MR_SOLVER_FAILED);
  for (int i = 0; i < f.p.nrow; i++) MR_CHECK(f.lambda[i] == 0 && isfinite(f.c[i]));
}

int main(void) {
  five_balls();
  sliding();
  takeoff_and_stick();
  mixed_rows_and_rank();
  MR_TEST_END();
}
