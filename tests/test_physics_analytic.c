/* Analytic physics: small-angle pendulum period, double-pendulum energy, and the
 * torque-free asymmetric rigid body (angular momentum and energy), under semi-implicit
 * Euler (first order: the drifts are documented and bounded) and the midpoint scheme
 * (second order: the conservation targets of issue 2). Models are built with the spec API
 * so the test needs no parser. */
#include <string.h>

#include "moreau.h"
#include "mr_test.h"
#include "engine/core/spatial.h"
#include "engine/io/spec.h"
#include "spec_helpers.h"


/* ------------------------------------------------------------------ pendulum */

/* A rod-like body hanging from a hinge at the world origin: com at distance l below,
 * moments about the com. Small-angle period T = 2 pi sqrt(I_pivot / (m g l)). */
static void test_pendulum_period(void) {
  const double mass = 1.3, l = 0.7, g = 9.81, Ic = 0.02, dt = 1e-4;
  mr_spec *s = mr_spec_create("pendulum");
  s->opt.timestep = dt;
  const double zero[3] = {0, 0, 0}, ipos[3] = {0, 0, -l}, inertia[3] = {Ic, Ic, Ic}, axis[3] = {0, 1, 0};
  int b = add_body(s, 0, zero, mass, ipos, inertia);
  add_joint(s, b, MR_JOINT_HINGE, axis);
  mr_model *m = compile(s);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);

  double expected = 2 * MR_PI * sqrt((Ic + mass * l * l) / (mass * g * l));
  d->qpos[0] = 1e-3; /* the amplitude correction theta^2/16 is 6e-8: negligible */
  /* time the downward zero crossings (linear interpolation between steps) */
  double crossings[8];
  int n = 0;
  double prev = d->qpos[0];
  while (n < 8 && d->time < 20 * expected) {
    mr_step(m, d);
    double q = d->qpos[0];
    if (prev > 0 && q <= 0) crossings[n++] = d->time - dt * q / (q - prev);
    prev = q;
  }
  MR_REQUIRE(n == 8);
  double period = (crossings[7] - crossings[0]) / 7;
  printf("pendulum: period %.9f s, analytic %.9f s, relative error %.2e\n", period, expected,
         fabs(period - expected) / expected);
  MR_CHECK_MSG(fabs(period - expected) < 1e-3 * expected, "period %g vs %g", period, expected);
  mr_data_free(d);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ double pendulum */

/* Max |E - E0| over 10 s of a double pendulum released from near horizontal. `scale` is
 * the potential range (see below); `above_min` is E0 minus the lowest potential energy the
 * pendulum can have (both coms straight below their joints), i.e. the total energy with
 * the potential zero at the lowest configuration. */
static double double_pendulum_drift(double dt, int integrator, double *scale, double *above_min) {
  mr_spec *s = mr_spec_create("double_pendulum");
  s->opt.timestep = dt;
  s->opt.integrator = integrator;
  const double zero[3] = {0, 0, 0}, axis[3] = {0, 1, 0};
  const double ipos1[3] = {0.25, 0, 0}, pos2[3] = {0.5, 0, 0}, ipos2[3] = {0.2, 0, 0.01};
  const double inertia1[3] = {0.001, 0.021, 0.021}, inertia2[3] = {0.001, 0.015, 0.015};
  int b1 = add_body(s, 0, zero, 1.0, ipos1, inertia1);
  add_joint(s, b1, MR_JOINT_HINGE, axis);
  int b2 = add_body(s, b1, pos2, 0.8, ipos2, inertia2);
  add_joint(s, b2, MR_JOINT_HINGE, axis);
  mr_model *m = compile(s);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);

  /* the energy exchanged: the potential range, each com swinging through 2 * its radius */
  *scale = 9.81 * (1.0 * 2 * 0.25 + 0.8 * 2 * (0.5 + sqrt(0.2 * 0.2 + 0.01 * 0.01)));
  d->qpos[1] = 0.3;
  mr_forward(m, d);
  mr_energy(m, d);
  double e0 = d->energy[0] + d->energy[1], worst = 0;
  /* the world frame is at the first joint, so the lowest coms sit at z = -0.25 and
   * z = -(0.5 + |ipos2|) */
  *above_min = e0 - 9.81 * (-1.0 * 0.25 - 0.8 * (0.5 + sqrt(0.2 * 0.2 + 0.01 * 0.01)));
  int steps = (int)(10.0 / dt + 0.5);
  for (int k = 0; k < steps; k++) {
    mr_step(m, d);
    if (k % 100 == 99) {
      mr_forward(m, d);
      mr_energy(m, d);
      worst = fmax(worst, fabs(d->energy[0] + d->energy[1] - e0));
    }
  }
  mr_data_free(d);
  mr_model_free(m);
  return worst;
}

/* Semi-implicit Euler in (q, v) with a configuration-dependent M is not symplectic (the
 * Coriolis term is explicit in v), so energy drifts at first order in dt rather than
 * oscillating; MuJoCo 2.2.2's Euler measures the same 5.05e-2 J on this model at dt 1e-4.
 * A 1e-4 relative drift would need dt ~ 3e-6: the bounds below are the measured first-order
 * behaviour (3.2e-3 of the energy scale at dt 1e-4) with margin. */
static void test_double_pendulum_energy(void) {
  double scale, emin, d1 = double_pendulum_drift(1e-4, MR_INT_EULER, &scale, &emin);
  double d2 = double_pendulum_drift(2e-4, MR_INT_EULER, &scale, &emin);
  printf("double pendulum over 10 s: max |E - E0| = %.3e J at dt 1e-4, %.3e J at dt 2e-4 "
         "(energy scale %.2f J: relative %.2e, %.2e; order %.2f)\n",
         d1, d2, scale, d1 / scale, d2 / scale, log(d2 / d1) / log(2));
  MR_CHECK_MSG(d1 < 5e-3 * scale, "energy drift %g J", d1);
  MR_CHECK_MSG(d2 > 1.5 * d1 && d2 < 2.5 * d1, "drift should be first order in dt: %g, %g", d1, d2);
}

/* The midpoint scheme is symmetric (time-reversible) and second order: its energy error
 * oscillates at O(dt^2) instead of drifting. Issue 2's target, relative drift < 1e-4 at
 * dt 1e-4 over 10 s, is asserted against the SMALLER of the two energy references (the
 * energy above the lowest configuration), and with the order checked at dt 2e-4. */
static void test_double_pendulum_energy_midpoint(void) {
  double scale, emin, d1 = double_pendulum_drift(1e-4, MR_INT_MIDPOINT, &scale, &emin);
  double d2 = double_pendulum_drift(2e-4, MR_INT_MIDPOINT, &scale, &emin);
  double e1 = double_pendulum_drift(1e-4, MR_INT_EULER, &scale, &emin);
  printf("double pendulum over 10 s, midpoint: max |E - E0| = %.3e J at dt 1e-4, %.3e J at dt 2e-4 "
         "(order %.2f); relative to the energy above the lowest configuration (%.3f J): %.2e, to "
         "the potential range (%.3f J): %.2e; euler at dt 1e-4: %.3e J (relative %.2e, %.2e)\n",
         d1, d2, log(d2 / d1) / log(2), emin, d1 / emin, scale, d1 / scale, e1, e1 / emin, e1 / scale);
  MR_CHECK_MSG(d1 < 1e-4 * fmin(emin, scale), "midpoint energy drift %g J", d1);
  MR_CHECK_MSG(d2 > 3 * d1 && d2 < 5 * d1, "midpoint energy error should be second order: %g, %g", d1, d2);
  MR_CHECK_MSG(d1 < 1e-3 * e1, "midpoint should beat euler by orders of magnitude: %g vs %g", d1, e1);
}

/* ------------------------------------------------------------------ free rigid body */

/* World angular momentum about the com: R I w_body (com at the body origin). */
static void angular_momentum(const mr_model *m, const mr_data *d, double L[3]) {
  double Iw[3];
  const double *w = d->qvel + 3, *I = m->body_inertia + 3;
  for (int k = 0; k < 3; k++) Iw[k] = I[k] * w[k];
  mr_quat_rotvec(L, d->qpos + 3, Iw);
}

/* Runs the torque-free body for `duration` seconds; returns the max relative drift of |L|
 * components and of the kinetic energy. */
static void run_free_body(const mr_model *m, mr_data *d, int integrator, const double w0[3], double dt,
                          double duration, double *drift_L, double *drift_E) {
  mr_data_reset(m, d);
  d->opt.timestep = dt;
  d->opt.integrator = integrator;
  d->opt.disable |= MR_DISABLE_GRAVITY;
  memcpy(d->qvel + 3, w0, 3 * sizeof(double));
  double L0[3], L[3];
  angular_momentum(m, d, L0);
  mr_forward(m, d);
  mr_energy(m, d);
  double E0 = d->energy[1], nL0 = mr_norm3(L0);
  *drift_L = *drift_E = 0;
  int steps = (int)(duration / dt + 0.5);
  for (int k = 0; k < steps; k++) {
    mr_step(m, d);
    angular_momentum(m, d, L);
    double diff[3];
    mr_sub3(diff, L, L0);
    *drift_L = fmax(*drift_L, mr_norm3(diff) / nL0);
    if (k % 10 == 9) {
      mr_forward(m, d);
      mr_energy(m, d);
      *drift_E = fmax(*drift_E, fabs(d->energy[1] - E0) / E0);
    }
  }
}

static void test_torque_free_body(void) {
  mr_spec *s = mr_spec_create("free_body");
  const double pos[3] = {0, 0, 1}, zero[3] = {0, 0, 0}, inertia[3] = {1, 2, 3};
  int b = add_body(s, 0, pos, 1.0, zero, inertia);
  add_joint(s, b, MR_JOINT_FREE, NULL);
  mr_model *m = compile(s);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);

  /* spin about a principal axis: no gyroscopic torque, and the exponential map is the
   * exact flow, so L is conserved to round-off */
  double dL, dE;
  const double principal[3] = {0, 2, 0};
  run_free_body(m, d, MR_INT_EULER, principal, 1e-3, 10, &dL, &dE);
  printf("free body, principal-axis spin: |dL|/|L| = %.2e, dE/E = %.2e\n", dL, dE);
  MR_CHECK(dL < 1e-12 && dE < 1e-12);

  /* near the intermediate axis (unstable: the body flips): semi-implicit Euler evaluates
   * the gyroscopic term w x Iw at the old velocity and rotates with the new one, an O(dt^2)
   * error per step, so the drift of L is first order in dt */
  const double near_middle[3] = {0.01, 2, 0.01};
  double dL1, dE1, dL2, dE2;
  run_free_body(m, d, MR_INT_EULER, near_middle, 1e-3, 10, &dL1, &dE1);
  run_free_body(m, d, MR_INT_EULER, near_middle, 5e-4, 10, &dL2, &dE2);
  printf("free body near the intermediate axis over 10 s: dt 1e-3: |dL|/|L| = %.2e, dE/E = %.2e; "
         "dt 5e-4: |dL|/|L| = %.2e, dE/E = %.2e (order %.2f)\n",
         dL1, dE1, dL2, dE2, log(dL1 / dL2) / log(2));
  /* bounds from the measured first-order behaviour, with a 2x margin */
  MR_CHECK_MSG(dL1 < 2.6e-3, "angular momentum drift %g", dL1);
  MR_CHECK_MSG(dE1 < 4.7e-3, "energy drift %g", dE1);
  MR_CHECK_MSG(dL2 < 0.6 * dL1, "halving dt should roughly halve the drift: %g vs %g", dL2, dL1);

  /* the midpoint scheme with the Cayley rotation conserves world angular momentum and
   * kinetic energy exactly (midpoint.c derives it): only round-off and the Newton
   * tolerance remain, at either step size */
  const double dts[2] = {1e-3, 1e-2};
  for (int i = 0; i < 2; i++) {
    run_free_body(m, d, MR_INT_MIDPOINT, near_middle, dts[i], 10, &dL, &dE);
    printf("free body near the intermediate axis over 10 s, midpoint at dt %g: |dL|/|L| = %.2e, "
           "dE/E = %.2e\n", dts[i], dL, dE);
    MR_CHECK_MSG(dL < 1e-9, "midpoint angular momentum drift %g", dL);
    MR_CHECK_MSG(dE < 1e-9, "midpoint energy drift %g", dE);
  }
  run_free_body(m, d, MR_INT_MIDPOINT, principal, 1e-3, 10, &dL, &dE);
  printf("free body, principal-axis spin, midpoint: |dL|/|L| = %.2e, dE/E = %.2e\n", dL, dE);
  MR_CHECK(dL < 1e-12 && dE < 1e-12);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_pendulum_period();
  test_double_pendulum_energy();
  test_double_pendulum_energy_midpoint();
  test_torque_free_body();
  MR_TEST_END();
}
