/* Issue 4 tests 4-7: the findings of papers/001 (Todorov, implicit complementarity) and
 * papers/004 (SAP, convex compliant contact) reproduced on the sample models:
 *   4. balls in a box (001 Table 1): `implicit` iterations per converged step, cold start,
 *      and the share of steps it converges on;
 *   5. five stacked balls dropped on the floor (001 Fig. 6): the shock stops the whole
 *      stack within the step of impact;
 *   6. spring-cylinder (004 sec. 9.1): convergence order of midpoint and euler, energy
 *      behaviour of midpoint (frictionless and rolling);
 *   7. clutter (004 sec. 9.2): `sap` Newton iterations and converged status.
 * Every measured number is printed so the run log doubles as the reproduction table. */
#include <string.h>
#include <time.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"


static int solver_index(const char *name) {
  int s = mr_solver_find(name);
  MR_REQUIRE(s >= 0);
  return s;
}

static double wall_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Deterministic uniform numbers in [lo, hi) (xorshift), independent of the C library. */
static unsigned long long rng_state;
static double uniform(double lo, double hi) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (double)(rng_state >> 11) / 9007199254740992.0;
}

static int compare_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

/* ------------------------------------------------------------------ 4. balls in a box */

enum { BALLS_MAX = 15, BALLS_STEPS = 200, BALLS_SEEDS = 10 };

/* Balls 0..nb-1 go to a jittered 3 x 3 grid, layer by layer, with random linear (+-1 m/s)
 * and angular (+-5 rad/s) velocities; the others are parked 50 m up, 1 m apart, where they
 * fall freely without touching anything during the 1 s run. */
static void balls_place(const mr_model *m, mr_data *d, int nb) {
  mr_data_reset(m, d);
  for (int i = 0; i < BALLS_MAX; i++) {
    double *q = d->qpos + 7 * i, *v = d->qvel + 6 * i;
    memset(q, 0, 7 * sizeof(double));
    q[3] = 1;
    if (i < nb) {
      q[0] = -0.18 + 0.18 * (i % 3) + uniform(-0.02, 0.02);
      q[1] = -0.18 + 0.18 * ((i / 3) % 3) + uniform(-0.02, 0.02);
      q[2] = 0.1 + 0.17 * (i / 9) + uniform(0, 0.1);
      for (int k = 0; k < 3; k++) v[k] = uniform(-1, 1), v[3 + k] = uniform(-5, 5);
    } else {
      q[0] = 5 + i, q[1] = 5, q[2] = 50;
      memset(v, 0, 6 * sizeof(double));
    }
  }
}

/* One run's steps with contacts: how many, how many converged, and the median of the
 * iteration counts over the converged ones (0 when none converged). Cold start: the
 * persistent contacts' impulses are zeroed before every step, so the solver always starts
 * from the paper's all-sticking point. */
typedef struct balls_result {
  int steps, converged, median;
  double mean_ncon;
} balls_result;

static balls_result balls_run(const mr_model *m, mr_data *d) {
  int iters[BALLS_STEPS];
  balls_result r = {0};
  double ncon_sum = 0;
  for (int k = 0; k < BALLS_STEPS; k++) {
    for (int c = 0; c < d->ncon; c++) memset(d->contact[c].impulse, 0, 3 * sizeof(double));
    MR_REQUIRE(mr_step(m, d) == 0);
    if (d->ncon == 0) continue;
    r.steps++;
    ncon_sum += d->ncon;
    if (d->solver_status == 0) iters[r.converged++] = d->solver_iters;
  }
  r.mean_ncon = r.steps ? ncon_sum / r.steps : 0;
  if (r.converged > 0) {
    qsort(iters, (size_t)r.converged, sizeof(int), compare_int);
    r.median = iters[r.converged / 2];
  }
  return r;
}

/* The share of steps with contacts implicit must converge on, per (mu, n_b) cell over its
 * 10 seeds. The unconverged steps are local minima of |r| (engine/solver/implicit.c): g
 * carries the stabilization bias, which need not lie in range(A) when a ball is wedged in
 * a corner or a pile has redundant contacts, so high friction and many balls converge
 * least. Measured on today's code (Release, 2026-11-25), rows mu = 0.1, 0.5, 1, 2 and
 * columns n_b = 5, 10, 15: 0.989 0.994 0.967 / 0.996 0.990 0.946 / 0.877 0.843 0.651 /
 * 0.820 0.725 0.622; each floor is 0.02 below, rounded down to the hundredth. */
static const double balls_share_floor[4][3] = {
    {0.96, 0.97, 0.94}, {0.97, 0.97, 0.92}, {0.85, 0.82, 0.63}, {0.80, 0.70, 0.60}};

static void test_balls_in_box(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("balls_in_box.xml"), NULL);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL && m->nq == 7 * BALLS_MAX);
  const double mus[4] = {0.1, 0.5, 1.0, 2.0};
  const int nbs[3] = {5, 10, 15};
  printf("balls in a box (papers/001 Table 1), implicit, cold start, h = 5 ms, 200 steps, "
         "%d seeds:\n  mean over seeds of the per-run median iterations per converged step "
         "[worst run median] (mean contacts) {converged share of the steps with contacts}\n",
         BALLS_SEEDS);
  for (int a = 0; a < 4; a++) {
    for (int g = 0; g < m->ngeom; g++) m->geom_friction[3 * g] = mus[a];
    printf("  mu = %.1f:", mus[a]);
    for (int b = 0; b < 3; b++) {
      double median_sum = 0, ncon_sum = 0;
      int worst = 0, steps = 0, converged = 0;
      for (int seed = 0; seed < BALLS_SEEDS; seed++) {
        rng_state = 0x9E3779B97F4A7C15ull * (unsigned long long)(1 + seed + 100 * b);
        balls_place(m, d, nbs[b]);
        d->opt.solver = solver_index("implicit");
        balls_result r = balls_run(m, d);
        median_sum += r.median, ncon_sum += r.mean_ncon;
        steps += r.steps, converged += r.converged;
        if (r.median > worst) worst = r.median;
        /* issue 4 test 4: every run's median over its converged steps in the range of
         * papers/001 Table 1 (2.6 to 16.2 there) */
        MR_CHECK_MSG(r.converged > 0 && r.median <= 20,
                     "seed %d, mu %g, %d balls: median iterations per converged step %d "
                     "(%d of %d steps converged)", seed, mus[a], nbs[b], r.median, r.converged,
                     r.steps);
      }
      double share = (double)converged / (steps > 0 ? steps : 1);
      printf("  n_b %2d: %4.1f [%2d] (%4.1f) {%.3f}", nbs[b], median_sum / BALLS_SEEDS, worst,
             ncon_sum / BALLS_SEEDS, share);
      MR_CHECK_MSG(steps >= BALLS_SEEDS * BALLS_STEPS / 2 && share >= balls_share_floor[a][b],
                   "mu %g, %d balls: implicit converged on %d of %d steps with contacts (%.3f, "
                   "floor %.2f)", mus[a], nbs[b], converged, steps, share, balls_share_floor[a][b]);
    }
    printf("\n");
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 5. five-ball drop */

/* The floor is geom 0. The stack falls until a step starts with the bottom ball touching
 * the floor (its contact at dist <= 0): that is the step of impact, after which every ball
 * must be at rest vertically. (The step before it, the 1 mm margin already reports the
 * floor contact and the solver lets the ball close the remaining gap exactly, at
 * v_z = -dist / h: the landing happens at the end of that step.) */
static void test_five_balls(const char *solver) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("five_balls.xml"), NULL);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL && m->nv == 30);
  /* 1e-9 m/s is below the default tolerance (1e-8) of the iterative solvers: ask for
   * 1e-12 and give pgs the iterations a 5-ball chain needs (its rate is linear). */
  d->opt.solver = solver_index(solver);
  d->opt.tol = 1e-12;
  d->opt.max_iter = 2000;
  int impact = -1;
  double worst = 0;
  for (int k = 0; k < 200 && impact < 0; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    for (int c = 0; c < d->ncon; c++) {
      const mr_contact *con = &d->contact[c];
      if ((con->geom1 == 0 || con->geom2 == 0) && con->dist <= 0) impact = k;
    }
    if (impact < 0) continue;
    for (int i = 0; i < 5; i++) worst = fmax(worst, fabs(d->qvel[6 * i + 2]));
    printf("five-ball drop, %s: impact at step %d (t = %.3f s), max |v_z| after it %.2e m/s, "
           "%d solver iterations, status %d\n",
           solver, k, d->time, worst, d->solver_iters, d->solver_status);
  }
  MR_CHECK_MSG(impact >= 0, "%s: no impact", solver);
  MR_CHECK_MSG(worst < 1e-9, "%s: max |v_z| %g after the impact step", solver, worst);
  mr_data_free(d);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 6. spring-cylinder */

/* qpos: x, z, roll angle. Spring k_s = 100 N/m, m = 0.5 kg, released from rest at 0.1 m.
 * Solver: `sap`, the paper's own. Its compliant parameters for this scene (k = 1e4 N/m,
 * tau_d = 0.02 s) cannot be set (sap has no per-contact stiffness yet), so it runs with its
 * near-rigid defaults (beta = 1, sigma = 1e-3), which the rolling and frictionless motions
 * do not depend on beyond the settling transient below. */
static const double cyl_ks = 100, cyl_mass = 0.5, cyl_x0 = 0.1;

static double cylinder_exact(int rolling, double t) {
  double m_eff = rolling ? 1.5 * cyl_mass : cyl_mass;
  return cyl_x0 * cos(sqrt(cyl_ks / m_eff) * t);
}

static double cylinder_energy(const mr_model *m, mr_data *d) {
  mr_forward(m, d);
  mr_energy(m, d);
  return d->energy[0] + d->energy[1];
}

static void cylinder_set_friction(mr_model *m, double mu) {
  for (int g = 0; g < m->ngeom; g++) m->geom_friction[3 * g] = mu;
}

/* RMS of x - x_e over the steps of 5 s (papers/004's e_q, sampled at the steps). The energy
 * band (max - min) / E0 goes into band[0] over the whole run and into band[1] over t >= 1 s,
 * after the contact has settled: sap's near-rigid contact is compliant (stiffness
 * m (2 pi / dt)^2 at beta = 1), so the cylinder, released touching the floor, first sinks
 * to m g / k ~ 1e-4 m at dt = 20 ms and its damped vertical motion costs ~7e-4 of E0. */
static double cylinder_run(const mr_model *m, int rolling, int integrator, double dt,
                           double duration, double band[2]) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL && m->nkey == 1);
  MR_REQUIRE(mr_data_reset_keyframe(m, d, 0) == 0);
  d->opt.timestep = dt;
  d->opt.integrator = integrator;
  d->opt.solver = solver_index("sap");
  double e0 = cylinder_energy(m, d), emin = e0, emax = e0, lmin = INFINITY, lmax = -INFINITY;
  double sum = 0;
  int steps = (int)(duration / dt + 0.5);
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    double e = d->qpos[0] - cylinder_exact(rolling, d->time);
    sum += e * e;
    double en = cylinder_energy(m, d);
    emin = fmin(emin, en), emax = fmax(emax, en);
    if (d->time >= 1.0 - 1e-9) lmin = fmin(lmin, en), lmax = fmax(lmax, en);
  }
  band[0] = (emax - emin) / e0, band[1] = (lmax - lmin) / e0;
  mr_data_free(d);
  return sqrt(sum / steps);
}

/* Order: dt = 5, 2.5, 1.25 ms (Euler's error has a large second-order part, so its ratios
 * approach 2 slowly: frictionless 2.66 2.37 2.20 from dt = 20 ms down). Energy: the paper's dt = 20 ms, over 5 s (10 periods). */
static void test_spring_cylinder(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("spring_cylinder.xml"), NULL);
  MR_REQUIRE(m != NULL);
  const double dts[3] = {0.005, 0.0025, 0.00125};
  const char *names[2] = {"euler", "midpoint"};
  for (int rolling = 1; rolling >= 0; rolling--) {
    cylinder_set_friction(m, rolling ? 1.0 : 0.0);
    const char *label = rolling ? "rolling, mu 1" : "frictionless";
    for (int integ = MR_INT_EULER; integ <= MR_INT_MIDPOINT; integ++) {
      double err[3], band[2];
      for (int i = 0; i < 3; i++) err[i] = cylinder_run(m, rolling, integ, dts[i], 5.0, band);
      double r1 = err[0] / err[1], r2 = err[1] / err[2];
      printf("spring-cylinder (%s), sap, %s: e_q over 5 s %.3e %.3e %.3e at dt 5/2.5/1.25 ms "
             "(ratios %.2f %.2f)\n",
             label, names[integ], err[0], err[1], err[2], r1, r2);
      if (integ == MR_INT_MIDPOINT)
        MR_CHECK_MSG(r1 > 3.3 && r1 < 4.7 && r2 > 3.3 && r2 < 4.7, "midpoint ratios %g %g", r1, r2);
      else
        MR_CHECK_MSG(r1 > 1.7 && r1 < 2.3 && r2 > 1.7 && r2 < 2.3, "euler ratios %g %g", r1, r2);
      cylinder_run(m, rolling, integ, 0.02, 5.0, band);
      printf("spring-cylinder (%s), sap, %s, dt 20 ms: energy band (max - min) / E0 %.2e over "
             "5 s, %.2e over t >= 1 s\n", label, names[integ], band[0], band[1]);
      if (integ == MR_INT_MIDPOINT && rolling)
        MR_CHECK_MSG(band[0] < 5e-3, "rolling energy band %g", band[0]);
      if (integ == MR_INT_MIDPOINT && !rolling)
        MR_CHECK_MSG(band[1] < 1e-6, "frictionless energy band after settling %g", band[1]);
    }
  }
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 7. clutter */

/* The paper's Clutter settings: tau_d = dt and its tolerance eps_r = 1e-5 (the
 * dimensionless momentum error (32)). The paper reports about 3 Newton iterations per step
 * once the pile rests (Fig. 9); how long the pile takes to come to rest is chaotic: a
 * round-off change in G moved it from about 3 s to about 5 s, and placing a box corner's
 * contact at the corner instead of halfway to a face corner (collision/manifold.c) moved
 * it to about 9 s on this start, while three nudged starts (qvel within 1e-3) then rest
 * sooner than before (means over 5-10 s of 1.8, 1.6 and 2.1 iterations, against 2.8, 7.1
 * and 8.1). The mean is therefore asserted over the last second of 10 s, when the pile
 * rests in every run measured (3.0 on this start); the mean of the second half is printed.
 * An unoptimized (sanitizer) build runs the first 3 s, which checks memory and convergence
 * but not the mean. Every step must converge. */
#ifdef __OPTIMIZE__
#define CLUTTER_SECONDS 10.0
#else
#define CLUTTER_SECONDS 3.0
#endif
static void test_clutter(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("clutter.xml"), NULL);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  d->opt.solver = solver_index("sap");
  d->opt.tol = 1e-5;
  d->opt.sap_tau_d = d->opt.timestep; /* the paper's Clutter setting, tau_d = dt */
  const double dt = d->opt.timestep, duration = CLUTTER_SECONDS;
  MR_REQUIRE(fabs(dt - 0.01) < 1e-12);
  int steps = (int)(duration / dt + 0.5), first = (int)(0.5 * duration / dt + 0.5);
  long iters_sum = 0, transient_iters = 0, last_second_iters = 0;
  int last_second = steps - (int)(1.0 / dt + 0.5);
  int not_converged = 0, max_iters = 0, max_ncon = 0;
  double t0 = wall_seconds();
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    if (d->ncon > max_ncon) max_ncon = d->ncon;
    if (d->ncon > 0 && d->solver_status != 0) not_converged++;
    if (k < first) {
      transient_iters += d->solver_iters;
      continue;
    }
    iters_sum += d->solver_iters;
    if (k >= last_second) last_second_iters += d->solver_iters;
    if (d->solver_iters > max_iters) max_iters = d->solver_iters;
  }
  double wall = wall_seconds() - t0, mean = (double)iters_sum / (steps - first);
  double rest = (double)last_second_iters / (steps - last_second);
  printf("clutter (40 bodies, dt 10 ms, %.0f s), sap, tol %g: mean Newton iterations %.2f in the "
         "first half, %.2f in the second (max %d), %.2f in the last second, %d steps not "
         "converged, last ncon %d (max %d), wall %.2f s\n",
         duration, d->opt.tol, (double)transient_iters / first, mean, max_iters, rest,
         not_converged, d->ncon, max_ncon, wall);
  if (duration >= 10.0) MR_CHECK_MSG(rest <= 5.0, "sap: %.2f Newton iterations per step at rest", rest);
  MR_CHECK_MSG(not_converged == 0, "%d steps not converged", not_converged);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_balls_in_box();
  test_five_balls("implicit");
  test_five_balls("admm");
  test_five_balls("pgs");
  test_spring_cylinder();
  test_clutter();
  MR_TEST_END();
}
