/* Contacts, loops and limits in motion, with the pgs solver:
 *  (a) the sliding cube of papers/002 sec. 5.1 stops within 1% of v0^2 / (2 mu g) and
 *      stays on the floor (height within 1e-5 m of rest), following the analytic energy;
 *  (b) a box resting on the floor stays put (drift < 1e-6 m over 1 s);
 *  (c) the four-bar linkage: the closure pgs's velocities leave at the end of each step,
 *      before the position projection (metrics.loop_closure, checked against the closure
 *      recomputed here at the unprojected positions), stays second order (< 1e-3 m, where
 *      ignoring the loop leaves metres: test_paper_002), and the projection then closes it
 *      (< 1e-6 m over 10 s);
 *  (d) the URDF arm falling against its joint limits violates them by < 1e-3 rad at
 *      dt = 2 ms. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "engine/constraint/constraint.h"
#include "mr_test.h"
#include "mr_test_model.h"


static void use_pgs(mr_data *d) {
  d->opt.solver = mr_solver_find("pgs");
  MR_REQUIRE(d->opt.solver >= 0);
}

static void test_sliding_cube(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("sliding_cube.xml"), NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(mr_data_reset_keyframe(m, d, 0) == 0);
  use_pgs(d);
  const double mu = 0.4, g = 9.81, v0 = 1, dt = d->opt.timestep;
  const double stop = v0 * v0 / (2 * mu * g), t_stop = v0 / (mu * g);
  double max_dz = 0, max_de = 0, max_y = 0;
  int steps = (int)lround(0.5 / dt), failed = 0, not_converged = 0;
  for (int k = 0; k < steps && !failed; k++) {
    failed = mr_step(m, d) != 0;
    not_converged += d->solver_status != MR_SOLVER_CONVERGED;
    max_dz = fmax(max_dz, fabs(d->qpos[2] - 0.1));
    max_y = fmax(max_y, fabs(d->qpos[1]));
    /* kinetic energy against 1/2 m (v0 - mu g t)^2 while sliding */
    double t = d->time, v = fmax(0, v0 - mu * g * t), ke = 0.5 * d->qvel[0] * d->qvel[0];
    if (t < t_stop - 2 * dt) max_de = fmax(max_de, fabs(ke - 0.5 * v * v));
  }
  MR_CHECK(!failed);
  double x = d->qpos[0];
  printf("sliding cube: stopped at %.5f m (analytic %.5f, %.2f%%), max |z - rest| %.2e m, "
         "max |y| %.2e, max |KE - analytic| %.2e J, %d steps not converged\n",
         x, stop, 100 * (x - stop) / stop, max_dz, max_y, max_de, not_converged);
  MR_CHECK(fabs(x - stop) < 0.01 * stop);
  MR_CHECK(max_dz < 1e-5);
  MR_CHECK(max_y < 1e-6);
  MR_CHECK(max_de < 0.01); /* first order in dt: v0 mu g dt / 2 ~ 2e-3 */
  MR_CHECK(fabs(d->qvel[0]) < 1e-6);
  MR_CHECK(d->metrics.penetration < 1e-5);
  mr_data_free(d);
  mr_model_free(m);
}

static void test_resting_box(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("sliding_cube.xml"), NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  use_pgs(d);
  double drift = 0, q0[7];
  memcpy(q0, d->qpos, sizeof q0);
  int steps = (int)lround(1.0 / d->opt.timestep);
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    for (int i = 0; i < 3; i++) drift = fmax(drift, fabs(d->qpos[i] - q0[i]));
  }
  printf("resting box: max drift %.2e m over 1 s, %d rows, last solve %d iterations\n", drift,
         d->nefc, d->solver_iters);
  /* The box starts touching (dist 0) and settles MR_CONTACT_SLOP deep by design; beyond
   * that it must not move. */
  MR_CHECK(drift < MR_CONTACT_SLOP + 1e-8);
  MR_CHECK(d->nefc == 12);
  mr_data_free(d);
  mr_model_free(m);
}

static void test_fourbar(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("fourbar.xml"), NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(mr_data_reset_keyframe(m, d, 0) == 0); /* the crank motor pushing */
  use_pgs(d);
  MR_REQUIRE(m->neq == 1 && m->nq <= 16 && d->opt.integrator == MR_INT_EULER);
  double worst = 0, before = 0, metric_error = 0, phi[3], travel = 0, q0[16], q[16];
  int steps = (int)lround(10.0 / d->opt.timestep);
  for (int k = 0; k < steps; k++) {
    double a = d->qpos[0];
    memcpy(q0, d->qpos, (size_t)m->nq * sizeof(double));
    MR_REQUIRE(mr_step(m, d) == 0);
    travel += fabs(d->qpos[0] - a);
    /* the unprojected positions: Euler's q0 (+) dt v+ (the projection moves q, not v) */
    memcpy(q, d->qpos, (size_t)m->nq * sizeof(double));
    memcpy(d->qpos, q0, (size_t)m->nq * sizeof(double));
    mr_integrate_pos(m, d->qpos, d->qvel, d->opt.timestep);
    mr_kinematics(m, d);
    mr_equality_residual(m, d, phi);
    double pre = fmax(fabs(phi[0]), fmax(fabs(phi[1]), fabs(phi[2])));
    before = fmax(before, pre);
    metric_error = fmax(metric_error, fabs(pre - d->metrics.loop_closure));
    memcpy(d->qpos, q, (size_t)m->nq * sizeof(double));
    mr_kinematics(m, d);
    mr_equality_residual(m, d, phi);
    for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(phi[i]));
  }
  printf("fourbar: max loop closure %.2e m before the projection (metric off by %.1e), %.2e m "
         "after, over 10 s, crank travel %.1f rad\n", before, metric_error, worst, travel);
  MR_CHECK_MSG(metric_error < 1e-12, "metrics.loop_closure is not the unprojected closure");
  MR_CHECK(before > 0 && before < 1e-3);
  MR_CHECK(worst < 1e-6);
  MR_CHECK(travel > 1); /* it moved */
  mr_data_free(d);
  mr_model_free(m);
}

static void test_arm_limits(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("arm3.urdf"), NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  use_pgs(d);
  d->opt.timestep = 0.002;
  /* swung hard upwards (negative pitch: +pitch folds the arm down onto its base), so the
   * elbow slams into its -2.5 rad limit, then left to gravity */
  d->qvel[1] = -6;
  d->qvel[2] = -6;
  double worst = 0;
  int hit = 0;
  for (int k = 0; k < 1500; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    for (int j = 0; j < m->njnt; j++) {
      if (!m->jnt_limited[j]) continue;
      double q = d->qpos[m->jnt_qposadr[j]], lo = m->jnt_range[2 * j], hi = m->jnt_range[2 * j + 1];
      worst = fmax(worst, fmax(lo - q, q - hi));
      hit |= fabs(q - lo) < 1e-2 || fabs(q - hi) < 1e-2;
    }
  }
  printf("arm3: max limit violation %.2e rad at dt = 2 ms (a limit reached: %s)\n", fmax(worst, 0),
         hit ? "yes" : "no");
  MR_CHECK(hit);
  MR_CHECK(worst < 1e-3);
  mr_data_free(d);
  mr_model_free(m);
}

/* A ball dropped on the floor: the first contact's rebound speed is exactly e times the
 * impact speed, and 0 for e = 0 (the penetration is recovered by moving the position). */
static void test_restitution(void) {
  char path[] = "/tmp/moreau_restitution_XXXXXX";
  int fd = mkstemp(path);
  MR_REQUIRE(fd >= 0);
  const char *xml = "<mujoco><option timestep='0.001'/><worldbody><geom type='plane' size='5 5 .1'/>"
                    "<body pos='0 0 1'><freejoint/><geom type='sphere' size='.1'/></body>"
                    "</worldbody></mujoco>";
  MR_REQUIRE(write(fd, xml, strlen(xml)) == (ssize_t)strlen(xml));
  close(fd);
  char err[512];
  mr_load_options opt = {0};
  opt.quiet = 1;
  mr_model *m = mr_model_load(path, &opt, err, sizeof err);
  unlink(path);
  MR_REQUIRE(m);
  const double es[] = {0, 0.5, 0.8};
  for (int k = 0; k < 3; k++) {
    mr_data *d = mr_data_create(m);
    use_pgs(d);
    d->opt.restitution = es[k];
    double before = 0, after = 0;
    for (int s = 0; s < 1000 && after == 0; s++) {
      double v = d->qvel[2];
      MR_REQUIRE(mr_step(m, d) == 0);
      if (d->ncon > 0 && before == 0) before = v, after = d->qvel[2] == 0 ? 1e-300 : d->qvel[2];
    }
    printf("restitution %.1f: impact %.4f m/s, rebound %.6f m/s\n", es[k], before, after);
    MR_CHECK(before < -4);
    if (es[k] > 0) MR_CHECK_NEAR(after / -before, es[k], 1e-6);
    else MR_CHECK(after < 1e-6 * -before); /* the depth is recovered by moving the position */
    mr_data_free(d);
  }
  mr_model_free(m);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_sliding_cube();
  test_resting_box();
  test_fourbar();
  test_arm_limits();
  test_restitution();
  MR_TEST_END();
}
