/* papers/002 (Le Lidec et al., "Contact models in robotics: a comparative analysis"),
 * its findings reproduced on whole simulations (issue 4, tests 1, 2, 3, 8, 9):
 *  1. the sliding cube (sec. 5.1): pgs, admm and implicit stop within 1% of v0^2/(2 mu g),
 *     stay on the floor and follow the analytic energy; ccp hops; lcp drifts sideways when
 *     sliding 30 degrees off its pyramid axes; raisim dissipates less than the analytic curve;
 *  2. the ramped push (sec. 5.2): F = 4 m g t, stick-to-slip at t = mu/4 for the NCP solvers;
 *  3. heavy cube on light cube, mass ratio 1e6 (sec. 5.3): admm reaches 1e-8, the
 *     per-contact solvers hit their cap, and every solver's status tells the truth;
 *  8. loop closures (four-bar, slider-crank, duplicated connect) under every solver;
 *  9. self-consistency (Table III): the integral consistency error against a 0.1 ms
 *     reference is first order in dt. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/constraint/constraint.h"
#include "mr_test.h"
#include "mr_test_model.h"

#define GRAVITY 9.81
#define PI 3.14159265358979323846
#define CUBE_MASS 1.0
#define CUBE_INERTIA (CUBE_MASS * 0.2 * 0.2 / 6)
#define MU 0.4
#define V0 1.0

static void use_solver(mr_data *d, const char *name) {
  d->opt.solver = mr_solver_find(name);
  MR_REQUIRE(d->opt.solver >= 0);
}

static double cube_kinetic(const mr_data *d) {
  double lin = 0, ang = 0;
  for (int i = 0; i < 3; i++) lin += d->qvel[i] * d->qvel[i], ang += d->qvel[3 + i] * d->qvel[3 + i];
  return 0.5 * CUBE_MASS * lin + 0.5 * CUBE_INERTIA * ang;
}

/* ------------------------------------------------------------------ 1. sliding cube */

typedef struct slide_stats {
  double travel;      /* along the launch direction, at the end */
  double lateral;     /* max |distance from the launch line| */
  double max_dz;      /* max |z - 0.1| */
  double max_rise;    /* max (z - 0.1) */
  double max_de;      /* max |KE - analytic| while sliding */
  double max_excess;  /* max (KE - analytic) over the whole run */
  double final_speed;
  int failed, not_converged;
} slide_stats;

/* The cube of models/sliding_cube.xml launched at V0 along (cos a, sin a), for 0.5 s. */
static slide_stats slide(mr_model *m, const char *solver, double angle) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d && mr_data_reset_keyframe(m, d, 0) == 0);
  use_solver(d, solver);
  double dir[2] = {cos(angle), sin(angle)};
  d->qvel[0] = V0 * dir[0];
  d->qvel[1] = V0 * dir[1];
  const double dt = d->opt.timestep, t_stop = V0 / (MU * GRAVITY);
  slide_stats s = {0};
  int steps = (int)lround(0.5 / dt);
  for (int k = 0; k < steps && !s.failed; k++) {
    s.failed = mr_step(m, d) != 0;
    s.not_converged += d->solver_status != 0;
    double dz = d->qpos[2] - 0.1;
    s.max_dz = fmax(s.max_dz, fabs(dz));
    s.max_rise = fmax(s.max_rise, dz);
    s.lateral = fmax(s.lateral, fabs(-dir[1] * d->qpos[0] + dir[0] * d->qpos[1]));
    double t = d->time, v = fmax(0, V0 - MU * GRAVITY * t);
    double de = cube_kinetic(d) - 0.5 * CUBE_MASS * v * v;
    if (t < t_stop - 2 * dt) s.max_de = fmax(s.max_de, fabs(de));
    s.max_excess = fmax(s.max_excess, de);
  }
  s.travel = dir[0] * d->qpos[0] + dir[1] * d->qpos[1];
  s.final_speed = hypot(d->qvel[0], d->qvel[1]);
  printf("  %-9s angle %4.1f deg: travel %.5f m, lateral %.2e m, max |z - rest| %.2e m, "
         "max rise %.2e m, max |KE - analytic| %.2e J, max KE excess %.2e J, final speed "
         "%.1e, %d steps not converged\n",
         solver, angle * 180 / PI, s.travel, s.lateral, s.max_dz, s.max_rise, s.max_de,
         s.max_excess, s.final_speed, s.not_converged);
  mr_data_free(d);
  return s;
}

/* The energy bound: the simulation is first order in dt, its kinetic energy lags the
 * continuous analytic curve by a fraction of one step's dissipation m v0 mu g dt = 3.9e-3 J
 * (measured: 4e-4 J); 2e-3 J is the bound the NCP solvers must meet. */
#define ENERGY_BOUND 2e-3

static void test_sliding_cube(void) {
  printf("1. sliding cube (mu %.1f, v0 %.0f m/s, dt 1 ms)\n", MU, V0);
  mr_model *m = mr_test_load(MR_TEST_MODEL("sliding_cube.xml"), NULL);
  MR_REQUIRE(m);
  const double stop = V0 * V0 / (2 * MU * GRAVITY);
  const char *ncp[] = {"pgs", "admm", "implicit"};
  for (int i = 0; i < 3; i++) {
    slide_stats s = slide(m, ncp[i], 0);
    MR_CHECK_MSG(!s.failed, "%s", ncp[i]);
    MR_CHECK_MSG(fabs(s.travel - stop) < 0.01 * stop, "%s stops at %.5f, analytic %.5f", ncp[i],
                 s.travel, stop);
    MR_CHECK_MSG(s.max_dz < 1e-5, "%s height off rest by %.2e", ncp[i], s.max_dz);
    MR_CHECK_MSG(s.max_de < ENERGY_BOUND, "%s KE off the analytic curve by %.2e J", ncp[i],
                 s.max_de);
    MR_CHECK_MSG(s.final_speed < 1e-5, "%s still moving at %.2e m/s", ncp[i], s.final_speed);
  }

  /* ccp: c_N = mu (mu v_fN + v_fT) / (1 + mu^2) upward for a point mass (digest sec. 3.2),
   * a ballistic hop of c_N^2 / (2 g) */
  double vfn = -GRAVITY * 1e-3, cn = MU * (MU * vfn + V0) / (1 + MU * MU);
  double hop = cn * cn / (2 * GRAVITY);
  slide_stats s = slide(m, "ccp", 0);
  printf("  ccp: max rise %.3f mm, predicted first hop c_N^2/(2g) = %.3f mm (c_N %.3f m/s)\n",
         1e3 * s.max_rise, 1e3 * hop, cn);
  MR_CHECK(!s.failed);
  MR_CHECK_MSG(s.max_rise > 0.5 * hop, "ccp rises %.2e m, predicted %.2e", s.max_rise, hop);

  /* lcp: for a plane contact the frame's t1 is world x, t2 world y (collision/contact.c,
   * default frame: the axis least aligned with the normal). Sliding 30 degrees off t1, the
   * pyramid saturates both components, friction points at a corner (45 degrees), and the
   * path bends: with both components decelerating at mu g, the cube ends up
   * (v0^2 / (2 mu g)) (cos^2 30, sin^2 30), 2.0 cm off the launch line. */
  const double a30 = PI / 6;
  double lateral_predicted =
      fabs(-sin(a30) * cos(a30) * cos(a30) + cos(a30) * sin(a30) * sin(a30)) * stop;
  slide_stats lcp = slide(m, "lcp", a30), pgs = slide(m, "pgs", a30);
  printf("  lcp lateral drift %.2e m (pyramid prediction %.2e), pgs %.2e m\n", lcp.lateral,
         lateral_predicted, pgs.lateral);
  MR_CHECK(!lcp.failed && !pgs.failed);
  MR_CHECK_MSG(lcp.lateral > 0.25 * lateral_predicted, "lcp lateral %.2e", lcp.lateral);
  MR_CHECK_MSG(lcp.lateral > 100 * pgs.lateral + 1e-4, "lcp %.2e vs pgs %.2e", lcp.lateral,
               pgs.lateral);
  MR_CHECK_MSG(fabs(pgs.travel - stop) < 0.01 * stop, "pgs at 30 deg stops at %.5f",
               pgs.travel);

  /* raisim: MDP lost at off-centre contacts (G_NT != 0), so less dissipation: kinetic
   * energy above the analytic curve by well over the NCP solvers' one-step lag (4e-4 J,
   * printed above), and a slide past the analytic stop */
  s = slide(m, "raisim", 0);
  MR_CHECK(!s.failed);
  MR_CHECK_MSG(s.max_excess > 1e-3 && s.travel > stop,
               "raisim KE excess %.2e J, travel %.5f (analytic %.5f)", s.max_excess, s.travel,
               stop);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 2. ramped push */

/* ContactBench's cube.py --drag: F(t) = min(2 * 0.9 m g, 4 m g t) at the com, along the
 * cube's face normal x. Sliding starts when 4 m g t = mu m g: t = mu / 4. The force is
 * held over each step at its start value, so the first slipping step (starting at
 * mu/4 + dt) ends at 4 g dt^2 = 3.9e-5 m/s, above the 1e-5 m/s detection threshold.
 * Settings as ContactBench's cube.py: tolerance 1e-9, cap 10000. At the default 1e-8 the
 * absolute complementarity residual (impulse x velocity: 1e-3 N s x 4e-5 m/s) accepts a
 * creep of 4e-5 m/s per step about 10 ms early: printed for information. */
static double push_slip_time(mr_model *m, const char *solver, double tol) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  use_solver(d, solver);
  d->opt.tol = tol;
  d->opt.max_iter = 10000;
  int body = 1, steps = (int)lround(0.2 / d->opt.timestep);
  double t_slip = -1;
  for (int k = 0; k < steps; k++) {
    d->xfrc_applied[6 * body] = fmin(2 * 0.9 * CUBE_MASS * GRAVITY, 4 * CUBE_MASS * GRAVITY * d->time);
    MR_REQUIRE(mr_step(m, d) == 0);
    /* the step's force is F(t at its start): the slip begins at that time */
    if (t_slip < 0 && d->qvel[0] > 1e-5) t_slip = d->time - d->opt.timestep;
    if (t_slip >= 0 && d->time > t_slip + 0.02) break;
  }
  mr_data_free(d);
  return t_slip;
}

static void test_ramped_push(void) {
  printf("2. ramped push F = 4 m g t (mu %.1f: slip at mu/4 = %.4f s)\n", MU, MU / 4);
  mr_model *m = mr_test_load(MR_TEST_MODEL("sliding_cube.xml"), NULL);
  MR_REQUIRE(m);
  const char *ncp[] = {"pgs", "admm", "implicit"};
  for (int i = 0; i < 3; i++) {
    double t = push_slip_time(m, ncp[i], 1e-9), t8 = push_slip_time(m, ncp[i], 1e-8);
    printf("  %-9s slip at %.4f s (error %+.2f ms); at tol 1e-8: %.4f s\n", ncp[i], t,
           1e3 * (t - MU / 4), t8);
    MR_CHECK_MSG(fabs(t - MU / 4) < 2e-3, "%s slips at %.4f s", ncp[i], t);
  }
  const char *others[] = {"lcp", "ccp", "raisim", "stagproj", "sap", "soft"};
  for (int i = 0; i < 6; i++)
    printf("  %-9s slip at %.4f s (information)\n", others[i],
           push_slip_time(m, others[i], 1e-9));
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 3. mass ratio 1e6 */

/* The rows the last mr_step solved. Their header is the first block of the step's arena
 * (constraint.h) and stays there until the next step resets the arena; mr_constraint_rows
 * no longer returns it because the step count has moved on. */
static const mr_rows *solved_rows(const mr_data *d) {
  const mr_rows *r = (const mr_rows *)d->arena;
  if (!r || d->parena < sizeof *r) return NULL;
  return r->magic == MR_ROWS_MAGIC && r->nstep == d->nstep - 1 ? r : NULL;
}

/* x onto the Coulomb cone {mu |x_T| <= x_N}, written here rather than taken from
 * engine/solver/cone.c so that the check does not share the solvers' code. */
static void coulomb_project(double x[3], double mu) {
  double t = hypot(x[1], x[2]);
  if (t <= mu * x[0]) return;
  if (mu * t <= -x[0]) {
    x[0] = x[1] = x[2] = 0;
    return;
  }
  double n = (x[0] + mu * t) / (1 + mu * mu);
  x[0] = n;
  x[1] *= mu * n / t;
  x[2] *= mu * n / t;
}

/* The NCP natural-map residual of the step just taken, max over contacts of
 * |lambda - P_K(lambda - (c + Gamma(c)))| (L-infinity), Gamma(c) = (mu |c_T|, 0, 0): zero
 * exactly when the impulses solve the Coulomb NCP. Computed from what the step produced, not
 * from the solver's output or the metrics module: lambda is each contact's impulse and the
 * contact velocity is c = J v+ + bias, with v+ the end-of-step velocity (semi-implicit
 * Euler: the one the impulses produced) and J, bias the rows the step built at its start.
 * Only for contact-only scenes (no equality or limit rows, whose impulses the data does
 * not keep per row). */
static double step_natural_map(const mr_data *d) {
  const mr_rows *r = solved_rows(d);
  MR_REQUIRE(r && r->neq == 0 && r->nlim == 0);
  double worst = 0;
  for (int k = 0; k < r->ncon; k++) {
    const double *lambda = d->contact[r->id[3 * k]].impulse;
    double c[3], y[3];
    for (int a = 0; a < 3; a++) {
      int i = 3 * k + a;
      c[a] = r->bias[i];
      for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) c[a] += r->J[t] * d->qvel[r->nzind[t]];
    }
    c[0] += r->mu[k] * hypot(c[1], c[2]);
    for (int a = 0; a < 3; a++) y[a] = lambda[a] - c[a];
    coulomb_project(y, r->mu[k]);
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs(lambda[a] - y[a]));
  }
  return worst;
}

typedef struct ratio_stats {
  int converged, capped, failed_status, steps;
  int false_converged;        /* reported converged with the NCP natural map above the bound */
  double worst_own;           /* the solver's own residual, max over steps */
  double worst_ncp;           /* the independent natural map, max over steps */
  double worst_ncp_converged; /* the same over the steps reported converged */
  double worst_report;        /* max |d->metrics.natural_map - independent| */
} ratio_stats;

/* A converged NCP solution at tolerance tol has every primal, dual and complementarity term
 * below tol (ncp.c): its natural map is then within a few tol (dual and primal errors pass
 * into it unscaled, the complementarity one divided by the impulse, here > 1e-3 N s). */
#define NCP_BOUND(tol) (10 * (tol))

static ratio_stats run_mass_ratio(mr_model *m, const char *solver, int cap) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  use_solver(d, solver);
  MR_REQUIRE(d->opt.integrator == MR_INT_EULER);
  d->opt.tol = 1e-8;
  d->opt.max_iter = cap;
  ratio_stats r = {0};
  for (int k = 0; k < 100; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    if (d->ncon == 0) continue;
    r.steps++;
    r.converged += d->solver_status == 0;
    r.capped += d->solver_status == 1;
    r.failed_status += d->solver_status == 2;
    r.worst_own = fmax(r.worst_own, d->solver_residual);
    double ncp = step_natural_map(d);
    r.worst_ncp = fmax(r.worst_ncp, ncp);
    r.worst_report = fmax(r.worst_report, fabs(d->metrics.natural_map - ncp));
    if (d->solver_status != 0) continue;
    r.worst_ncp_converged = fmax(r.worst_ncp_converged, ncp);
    if (ncp > NCP_BOUND(d->opt.tol) && !r.false_converged++)
      fprintf(stderr, "  %s step %d: reports converged (own residual %.3e) with NCP natural map "
              "%.3e\n", solver, k, d->solver_residual, ncp);
  }
  printf("  %-9s cap %5d: %d contact steps, %d converged, %d capped, %d failed; own residual "
         "max %.2e; NCP natural map max %.2e (%.2e over converged steps), reported natural map "
         "off by %.1e; %d converged above %.0e\n",
         solver, cap, r.steps, r.converged, r.capped, r.failed_status, r.worst_own, r.worst_ncp,
         r.worst_ncp_converged, r.worst_report, r.false_converged, NCP_BOUND(d->opt.tol));
  mr_data_free(d);
  return r;
}

/* Solvers that today report converged on this scene with an NCP natural map above the
 * bound, NULL-terminated. Checked strictly: when a solver is fixed, this test fails until
 * its entry is removed. None today. stagproj was here until its inner QPs were solved to
 * tolerance. */
static const char *const known_false_converged[] = {NULL};

static int is_known_false_converged(const char *solver) {
  for (size_t i = 0; known_false_converged[i]; i++)
    if (!strcmp(solver, known_false_converged[i])) return 1;
  return 0;
}

/* lcp (a 4-facet friction pyramid) and ccp (Anitescu's relaxation, c_N >= mu |c_T|) solve
 * problems of their own whose solutions are the NCP's only while every contact sticks
 * strictly inside both cones; at the 1e6 mass ratio the light cube's contacts reach the
 * cone's edge on some steps, and their converged solution is then 2e-5 to 1e-4 off the
 * NCP's. raisim likewise: its sliding solution keeps the normal velocity zero on the cone's
 * boundary without maximum dissipation, so it is the NCP's only where G_NT = 0
 * (engine/solver/raisim.c). On this trajectory two of its converged steps have both
 * contacts sliding (|lambda_T| = mu lambda_N) with the natural map at 7e-7 and 3e-5; its
 * converged steps met the bound on earlier trajectories only because no sliding step
 * converged. Their status is their own method's, reported beside the NCP residual (the
 * issue's honest reporting); what must be true is the residual they report. */
static int solves_own_problem(const char *solver) {
  return !strcmp(solver, "lcp") || !strcmp(solver, "ccp") || !strcmp(solver, "raisim");
}

/* The compliant solvers solve a regularized problem on purpose (papers/004, papers/000
 * sec. 1.10): their converged solution is not the rigid NCP's, and on this scene sap lets
 * the heavy cube sink 47 mm in 0.1 s (the light cube's near-rigid regularization cannot
 * hold a load 1e6 times its mass), natural map up to 9. Their status is their own
 * method's; what must be true for them is the NCP residual they report. */
static int is_compliant(const char *solver) {
  return !strcmp(solver, "sap") || !strcmp(solver, "soft");
}

/* Every solver: the NCP natural map the step reports (d->metrics) is the independent one.
 * Every solver of the NCP itself: converged means the NCP is solved. admm converges on
 * every step; the per-contact solvers hit their cap. */
static void test_mass_ratio(void) {
  printf("3. heavy (1e3 kg) on light (1e-3 kg) cube, 100 steps, tol 1e-8: status against the "
         "NCP natural map of each step, computed from its impulses and end velocity\n");
  mr_model *m = mr_test_load(MR_TEST_MODEL("heavy_light.xml"), NULL);
  MR_REQUIRE(m);
  MR_REQUIRE(mr_solver_count() >= 9);
  for (int s = 0; s < mr_solver_count(); s++) {
    const char *name = mr_solver_name(s);
    ratio_stats r = run_mass_ratio(m, name, strcmp(name, "admm") ? 100 : 10000);
    MR_CHECK_MSG(r.steps >= 90, "%s: contacts on %d of 100 steps only", name, r.steps);
    MR_CHECK_MSG(r.worst_report <= 1e-9 * fmax(1, r.worst_ncp),
                 "%s: reported natural map off the independent one by %.3e", name,
                 r.worst_report);
    if (!strcmp(name, "pgs") || !strcmp(name, "raisim"))
      MR_CHECK_MSG(r.capped > 0, "%s never reported hitting its cap", name);
    if (is_compliant(name) || solves_own_problem(name)) continue;
    if (is_known_false_converged(name))
      MR_CHECK_MSG(r.false_converged > 0, "%s now reports converged only with the NCP solved: "
                   "remove it from known_false_converged", name);
    else
      MR_CHECK_MSG(r.false_converged == 0, "%s: %d steps reported converged with the NCP "
                   "natural map above %.0e (worst %.3e)", name, r.false_converged,
                   NCP_BOUND(1e-8), r.worst_ncp_converged);
    if (!strcmp(name, "admm"))
      MR_CHECK_MSG(r.steps == 100 && r.converged == r.steps && r.worst_ncp <= NCP_BOUND(1e-8),
                   "admm: %d/%d converged, NCP natural map %.3e", r.converged, r.steps,
                   r.worst_ncp);
  }
  mr_model_free(m);
}

/* ------------------------------------------------------------------ 8. loops */

/* The closure a solver that ignores the equalities leaves, as a reference the solvers'
 * must stay far below: the loop rows are made inactive for the step (no impulse holds the
 * loop's velocity), the closure is read before the projection, and the projection then
 * runs as it does after every step, so the positions start each step closed, as they do
 * for the solvers. Returns the worst over `seconds`. */
static double ignored_closure(mr_model *m, double seconds) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  if (m->nkey > 0) MR_REQUIRE(mr_data_reset_keyframe(m, d, 0) == 0);
  use_solver(d, "pgs");
  double worst = 0, phi[16];
  MR_REQUIRE(mr_equality_rows(m) <= 16);
  int steps = (int)lround(seconds / d->opt.timestep);
  for (int i = 0; i < steps; i++) {
    for (int e = 0; e < m->neq; e++) m->eq_active[e] = 0;
    mr_step(m, d);
    for (int e = 0; e < m->neq; e++) m->eq_active[e] = 1;
    mr_kinematics(m, d);
    mr_equality_residual(m, d, phi);
    for (int k = 0; k < mr_equality_rows(m); k++) worst = fmax(worst, fabs(phi[k]));
    mr_constraint_project(m, d);
  }
  mr_data_free(d);
  return worst;
}

static void test_loops(void) {
  printf("8. loop closures over 10 s, every solver\n");
  /* MuJoCo's model/slider_crank sample has no loop to hold (its slider-crank is an actuator
   * transmission, not a constraint): models/slider_crank.xml is the mechanism closed by a
   * connect, the loop the issue means. */
  mr_model *fourbar = mr_test_load(MR_TEST_MODEL("fourbar.xml"), NULL), *slider = mr_test_load(MR_TEST_MODEL("slider_crank.xml"), NULL);
  MR_REQUIRE(fourbar && slider && slider->neq == 1);
  mr_model *models[2] = {fourbar, slider};
  const char *names[2] = {"fourbar", "slider_crank"};
  /* metrics.loop_closure is read at the end of the step, before the projection closes the
   * loop to round-off: what the solver's velocities left. A solver holding J v = 0 leaves
   * the second-order drift of one step (dt^2 |v|^2 / L); one ignoring the loop leaves the
   * drift of the velocity nothing holds. */
  double ignored[2];
  for (int k = 0; k < 2; k++) {
    ignored[k] = ignored_closure(models[k], 10.0);
    printf("  %-12s with the loop ignored: max loop closure before projection %.2e m\n", names[k],
           ignored[k]);
  }
  for (int s = 0; s < mr_solver_count(); s++) {
    for (int k = 0; k < 2; k++) {
      mr_model *m = models[k];
      mr_data *d = mr_data_create(m);
      MR_REQUIRE(d);
      if (m->nkey > 0) MR_REQUIRE(mr_data_reset_keyframe(m, d, 0) == 0);
      d->opt.solver = s;
      double worst = 0, travel = 0;
      int steps = (int)lround(10.0 / d->opt.timestep), failed = 0, finite = 1;
      for (int i = 0; i < steps && !failed; i++) {
        double a = d->qpos[0];
        failed = mr_step(m, d) != 0;
        travel += fabs(d->qpos[0] - a);
        worst = fmax(worst, d->metrics.loop_closure);
        for (int j = 0; j < m->nq; j++) finite &= isfinite(d->qpos[j]);
      }
      printf("  %-9s %-12s max loop closure %.2e m, joint 0 travel %.1f rad\n", mr_solver_name(s),
             names[k], worst, travel);
      MR_CHECK_MSG(!failed && finite, "%s on %s", mr_solver_name(s), names[k]);
      /* soft's connect is MuJoCo's soft constraint, which gives way under the motor and
       * the inertia: MuJoCo 2.2 opens these loops by 3.8 cm and 1.0 cm over the same 10 s
       * (test_mj_soft_constraints holds soft to MuJoCo's trajectories on both files) */
      int soft = strcmp(mr_solver_name(s), "soft") == 0;
      MR_CHECK_MSG(worst > 0 && worst < (soft ? 0.05 : 0.05 * ignored[k]),
                   "%s on %s: loop closure before projection %.2e, ignoring the loop %.2e",
                   mr_solver_name(s), names[k], worst, ignored[k]);
      MR_CHECK_MSG(travel > 2 * 3.14159265358979, "%s on %s: the motor turned the crank %.2f rad only",
                   mr_solver_name(s), names[k], travel);
      mr_data_free(d);
    }
  }
  mr_model_free(slider);

  mr_model *redundant = mr_test_load(MR_TEST_MODEL("fourbar_redundant.xml"), NULL);
  MR_REQUIRE(redundant && redundant->neq == 2 && redundant->nq == fourbar->nq);
  const char *dup_solvers[] = {"pgs", "admm"};
  for (int s = 0; s < 2; s++) {
    mr_data *d1 = mr_data_create(fourbar), *d2 = mr_data_create(redundant);
    MR_REQUIRE(d1 && d2);
    MR_REQUIRE(mr_data_reset_keyframe(fourbar, d1, 0) == 0);
    MR_REQUIRE(mr_data_reset_keyframe(redundant, d2, 0) == 0);
    use_solver(d1, dup_solvers[s]);
    use_solver(d2, dup_solvers[s]);
    int steps = (int)lround(2.0 / d1->opt.timestep);
    double diff = 0, closure = 0;
    for (int i = 0; i < steps; i++) {
      MR_REQUIRE(mr_step(fourbar, d1) == 0 && mr_step(redundant, d2) == 0);
      closure = fmax(closure, d2->metrics.loop_closure);
    }
    for (int j = 0; j < fourbar->nq; j++) diff = fmax(diff, fabs(d1->qpos[j] - d2->qpos[j]));
    printf("  %-9s duplicated connect: max |qpos - single| after 2 s %.2e, loop closure %.2e m\n",
           dup_solvers[s], diff, closure);
    MR_CHECK_MSG(diff < 1e-6, "%s: duplicated loop changes the motion by %.2e", dup_solvers[s],
                 diff);
    mr_data_free(d1);
    mr_data_free(d2);
  }
  mr_model_free(redundant);
  mr_model_free(fourbar);
}

/* ------------------------------------------------------------------ 9. self-consistency */

#define CONSISTENCY_T 1.1 /* ~ the paper's 1.098 s */
#define REF_DT 1e-4
#define REF_STEPS 11000

/* The com trajectory of the axis-aligned slide at step dt, sampled after every step. */
static int slide_trajectory(mr_model *m, const char *solver, double dt, double *pos, int cap) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d && mr_data_reset_keyframe(m, d, 0) == 0);
  use_solver(d, solver);
  d->opt.timestep = dt;
  int n = (int)lround(CONSISTENCY_T / dt);
  MR_REQUIRE(n <= cap);
  for (int k = 0; k < n; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    memcpy(pos + 3 * k, d->qpos, 3 * sizeof(double));
  }
  mr_data_free(d);
  return n;
}

static double ref_pos[3 * REF_STEPS], coarse_pos[3 * 1100];

/* Integral consistency error (digest sec. 4.4, our choice of state and norm): the com
 * position's Euclidean distance to the reference at the coarse step times, integrated with
 * the coarse step, E = sum_k dt |p_k - p_ref(t_k)| in m s. */
static void test_self_consistency(void) {
  printf("9. self-consistency vs a 0.1 ms reference over %.1f s (Table III)\n", CONSISTENCY_T);
  mr_model *m = mr_test_load(MR_TEST_MODEL("sliding_cube.xml"), NULL);
  MR_REQUIRE(m);
  const char *solvers[] = {"pgs", "ccp", "raisim", "admm"};
  const double dts[3] = {1e-3, 1e-2, 1e-1};
  for (int s = 0; s < 4; s++) {
    int nref = slide_trajectory(m, solvers[s], REF_DT, ref_pos, REF_STEPS);
    double err[3];
    for (int j = 0; j < 3; j++) {
      int n = slide_trajectory(m, solvers[s], dts[j], coarse_pos, 1100);
      int stride = (int)lround(dts[j] / REF_DT);
      err[j] = 0;
      for (int k = 0; k < n; k++) {
        int r = (k + 1) * stride - 1;
        MR_REQUIRE(r < nref);
        double e2 = 0;
        for (int i = 0; i < 3; i++) e2 += pow(coarse_pos[3 * k + i] - ref_pos[3 * r + i], 2);
        err[j] += dts[j] * sqrt(e2);
      }
    }
    printf("  %-9s error %.2e / %.2e / %.2e m s at 1 / 10 / 100 ms (ratios %.1f, %.1f)\n",
           solvers[s], err[0], err[1], err[2], err[1] / err[0], err[2] / err[1]);
    /* Table III: about x10 per decade of dt for every solver (CCP, RaiSim, NCP/PGS) */
    for (int j = 0; j < 2; j++) {
      double ratio = err[j + 1] / err[j];
      MR_CHECK_MSG(ratio > 3 && ratio < 30, "%s: error ratio %.2f between %.0f and %.0f ms",
                   solvers[s], ratio, 1e3 * dts[j], 1e3 * dts[j + 1]);
    }
  }
  mr_model_free(m);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_sliding_cube();
  test_ramped_push();
  test_mass_ratio();
  test_loops();
  test_self_consistency();
  MR_TEST_END();
}
