/* The midpoint integrator (stage 1 of papers/004's two-stage scheme): its order against
 * exact solutions, exact energy conservation on a linear spring, the stage-1 momentum
 * balance checked independently through the public API, applied forces, Newton
 * iteration counts, and agreement with Euler at small steps. Models are built with the
 * spec API so the test needs no parser. */
#include <string.h>

#include "moreau.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/io/spec.h"
#include "spec_helpers.h"


static const double zero3[3] = {0, 0, 0}, xaxis[3] = {1, 0, 0}, yaxis[3] = {0, 1, 0};

/* ------------------------------------------------------------------ spring-mass */

/* A mass on a slide joint with a spring (and optionally a damper): m x'' = -k x - c x'.
 * Gravity is along z, across the slide, so it does nothing. */
static const double sm_mass = 2.0, sm_k = 50.0, sm_x0 = 0.1;

static mr_model *spring_mass(double damping) {
  mr_spec *s = mr_spec_create("spring_mass");
  const double inertia[3] = {0.01, 0.01, 0.01};
  int b = add_body(s, 0, zero3, sm_mass, zero3, inertia);
  int j = add_joint(s, b, MR_JOINT_SLIDE, xaxis);
  s->joints[j].stiffness = sm_k;
  s->joints[j].damping = damping;
  return compile(s);
}

/* x(t) of the (under)damped oscillator released from rest at x0. */
static double spring_exact(double c, double t) {
  double w = sqrt(sm_k / sm_mass), zeta = c / (2 * sqrt(sm_k * sm_mass));
  double wd = w * sqrt(1 - zeta * zeta);
  return exp(-zeta * w * t) * (sm_x0 * cos(wd * t) + zeta * w * sm_x0 / wd * sin(wd * t));
}

/* RMS over the steps of |x - x_exact| over `duration`. */
static double spring_error(const mr_model *m, double c, int integrator, double dt, double duration) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  d->opt.timestep = dt;
  d->opt.integrator = integrator;
  d->qpos[0] = sm_x0;
  int steps = (int)(duration / dt + 0.5);
  double sum = 0;
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    double e = d->qpos[0] - spring_exact(c, d->time);
    sum += e * e;
  }
  mr_data_free(d);
  return sqrt(sum / steps);
}

/* Halving dt divides the error by ~4 for midpoint (second order), ~2 for Euler. */
static void test_spring_order(double c) {
  mr_model *m = spring_mass(c);
  MR_REQUIRE(m != NULL);
  const double dts[3] = {4e-3, 2e-3, 1e-3};
  for (int integ = 0; integ < 2; integ++) {
    double err[3];
    for (int i = 0; i < 3; i++) err[i] = spring_error(m, c, integ, dts[i], 5.0);
    double r1 = err[0] / err[1], r2 = err[1] / err[2];
    printf("spring-mass (damping %g), %s: RMS error over 5 s %.3e %.3e %.3e at dt 4e-3 2e-3 1e-3 "
           "(ratios %.2f %.2f)\n",
           c, integ == MR_INT_MIDPOINT ? "midpoint" : "euler", err[0], err[1], err[2], r1, r2);
    if (integ == MR_INT_MIDPOINT) {
      MR_CHECK_MSG(r1 > 3.6 && r1 < 4.4 && r2 > 3.6 && r2 < 4.4, "midpoint ratios %g %g", r1, r2);
    } else {
      MR_CHECK_MSG(r1 > 1.7 && r1 < 2.3 && r2 > 1.7 && r2 < 2.3, "euler ratios %g %g", r1, r2);
    }
  }
  mr_model_free(m);
}

/* The midpoint rule conserves the quadratic energy of a linear spring exactly: check it
 * over 1000 periods at a coarse step (omega dt = 0.05). */
static void test_spring_energy(void) {
  mr_model *m = spring_mass(0);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  const double dt = 1e-2, period = 2 * MR_PI * sqrt(sm_mass / sm_k);
  d->opt.timestep = dt;
  d->opt.integrator = MR_INT_MIDPOINT;
  d->qpos[0] = sm_x0;
  mr_forward(m, d);
  mr_energy(m, d);
  double e0 = d->energy[0] + d->energy[1], worst = 0;
  int steps = (int)(1000 * period / dt), max_iters = 0;
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    if (d->newton_iters > max_iters) max_iters = d->newton_iters;
    if (k % 50 == 49) {
      mr_forward(m, d);
      mr_energy(m, d);
      worst = fmax(worst, fabs(d->energy[0] + d->energy[1] - e0) / e0);
    }
  }
  printf("spring-mass, midpoint, 1000 periods at dt %g: max |E - E0|/E0 = %.2e (E0 = %.4f J), "
         "max Newton evaluations per step %d\n",
         dt, worst, e0, max_iters);
  MR_CHECK_MSG(worst < 1e-9, "energy drift %g", worst);
  /* linear forces, constant M: A is the exact Jacobian, so the predictor already solves */
  MR_CHECK_MSG(max_iters <= 2, "iterations %d", max_iters);
  mr_data_free(d);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ pendulum */

static mr_model *pendulum(void) {
  mr_spec *s = mr_spec_create("pendulum");
  const double ipos[3] = {0, 0, -0.7}, inertia[3] = {0.02, 0.02, 0.02};
  int b = add_body(s, 0, zero3, 1.3, ipos, inertia);
  add_joint(s, b, MR_JOINT_HINGE, yaxis);
  return compile(s);
}

/* Samples q every 0.1 s for 3 s, released from 1 rad (far from the linear regime). */
static void pendulum_samples(const mr_model *m, int integrator, double dt, double out[30]) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  d->opt.timestep = dt;
  d->opt.integrator = integrator;
  d->qpos[0] = 1.0;
  int per = (int)(0.1 / dt + 0.5);
  for (int s = 0; s < 30; s++) {
    for (int k = 0; k < per; k++) MR_REQUIRE(mr_step(m, d) == 0);
    out[s] = d->qpos[0];
  }
  mr_data_free(d);
}

static double max_diff(const double *a, const double *b, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
  return e;
}

/* Against a midpoint reference at dt = 1/16 of the finest step (its own error is 1/256 of
 * the finest midpoint error, far below Euler's). */
static void test_pendulum_order(void) {
  mr_model *m = pendulum();
  MR_REQUIRE(m != NULL);
  double ref[30], q[30];
  pendulum_samples(m, MR_INT_MIDPOINT, 1e-3 / 16, ref);
  const double dts[3] = {4e-3, 2e-3, 1e-3};
  for (int integ = 0; integ < 2; integ++) {
    double err[3];
    for (int i = 0; i < 3; i++) {
      pendulum_samples(m, integ, dts[i], q);
      err[i] = max_diff(q, ref, 30);
    }
    double r1 = err[0] / err[1], r2 = err[1] / err[2];
    printf("pendulum from 1 rad, %s: max error over 3 s %.3e %.3e %.3e at dt 4e-3 2e-3 1e-3 "
           "(ratios %.2f %.2f)\n",
           integ == MR_INT_MIDPOINT ? "midpoint" : "euler", err[0], err[1], err[2], r1, r2);
    if (integ == MR_INT_MIDPOINT) {
      MR_CHECK_MSG(r1 > 3.5 && r1 < 4.5 && r2 > 3.5 && r2 < 4.5, "midpoint ratios %g %g", r1, r2);
    } else {
      MR_CHECK_MSG(r1 > 1.7 && r1 < 2.3 && r2 > 1.7 && r2 < 2.3, "euler ratios %g %g", r1, r2);
    }
  }
  mr_model_free(m);
}

/* ------------------------------------------------------------------ ball + hinge chain */

/* A ball joint at the origin carrying a hinge: gyroscopic, Coriolis and gravity terms,
 * springs and dampers on both joints, a motor on the hinge. */
static mr_model *ball_chain(void) {
  mr_spec *s = mr_spec_create("ball_chain");
  const double ipos1[3] = {0.05, 0.02, -0.3}, in1[3] = {0.02, 0.03, 0.01};
  const double pos2[3] = {0, 0, -0.6}, ipos2[3] = {0.1, 0, -0.2}, in2[3] = {0.01, 0.02, 0.015};
  int b1 = add_body(s, 0, zero3, 1.5, ipos1, in1);
  int j1 = add_joint(s, b1, MR_JOINT_BALL, NULL);
  s->joints[j1].stiffness = 2.0;
  s->joints[j1].damping = 0.05;
  int b2 = add_body(s, b1, pos2, 0.9, ipos2, in2);
  int j2 = add_joint(s, b2, MR_JOINT_HINGE, xaxis);
  s->joints[j2].stiffness = 1.5;
  s->joints[j2].damping = 0.02;
  s->joints[j2].armature = 0.01;
  int a = mr_spec_add_actuator(s, mr_test_src);
  s->actuators[a].joint = j2;
  return compile(s);
}

static void ball_chain_state(mr_data *d) {
  double axis[3] = {0.3, -0.5, 0.8};
  mr_normalize3(axis);
  mr_axis_angle_to_quat(d->qpos, axis, 0.9);
  d->qpos[4] = 0.4;
  const double v[4] = {1.5, -2.0, 3.0, -1.0};
  memcpy(d->qvel, v, sizeof v);
  d->ctrl[0] = 0.3;
}

/* q0 * cay(h w): what the integrator uses for the midpoint (h = dt/2) configuration. */
static void cayley(double out[4], const double q0[4], const double w[3], double h) {
  double dq[4] = {1, 0.5 * h * w[0], 0.5 * h * w[1], 0.5 * h * w[2]};
  mr_quat_normalize(dq);
  mr_quat_mul(out, q0, dq);
  mr_quat_normalize(out);
}

/* After one step, M(q_mid) (v - v0) - dt k(q_mid, v_mid) recomputed by mr_forward at the
 * midpoint state must vanish to the Newton tolerance; applied forces included. */
static void test_stage1_balance(void) {
  mr_model *m = ball_chain();
  MR_REQUIRE(m != NULL && m->nv == 4 && m->nq == 5);
  mr_data *d = mr_data_create(m), *e = mr_data_create(m);
  MR_REQUIRE(d != NULL && e != NULL);
  const double dt = 5e-3;
  d->opt.timestep = dt;
  d->opt.integrator = MR_INT_MIDPOINT;
  ball_chain_state(d);
  d->qfrc_applied[1] = 0.2;
  d->xfrc_applied[6 * 2 + 0] = 0.7;  /* force on body 2 */
  d->xfrc_applied[6 * 2 + 4] = -0.1; /* torque on body 2 */
  double q0[5], v0[4];
  memcpy(q0, d->qpos, sizeof q0);
  memcpy(v0, d->qvel, sizeof v0);
  MR_REQUIRE(mr_step(m, d) == 0);
  printf("stage 1 on the ball chain at dt %g: %d evaluations, relative residual %.2e, status %d\n",
         dt, d->newton_iters, d->newton_residual, d->newton_status);
  MR_CHECK(d->newton_status == 0);
  MR_CHECK(d->newton_iters <= 6);

  /* the midpoint state, rebuilt independently */
  double vmid[4];
  for (int i = 0; i < 4; i++) vmid[i] = 0.5 * (v0[i] + d->qvel[i]);
  e->opt = d->opt;
  memcpy(e->qfrc_applied, d->qfrc_applied, 4 * sizeof(double));
  memcpy(e->xfrc_applied, d->xfrc_applied, 6 * (size_t)m->nbody * sizeof(double));
  e->ctrl[0] = d->ctrl[0];
  cayley(e->qpos, q0, vmid, 0.5 * dt);
  e->qpos[4] = q0[4] + 0.5 * dt * vmid[3];
  memcpy(e->qvel, vmid, sizeof vmid);
  mr_forward(m, e);
  double M[16], res[4], scale = 0, worst = 0;
  mr_dense_mass(m, e, M);
  for (int i = 0; i < 4; i++) {
    res[i] = -dt * e->qfrc_smooth[i];
    for (int j = 0; j < 4; j++) res[i] += M[4 * i + j] * (d->qvel[j] - v0[j]);
    scale = fmax(scale, fabs(dt * e->qfrc_smooth[i]));
    worst = fmax(worst, fabs(res[i]));
  }
  printf("  independent residual |m(v)|_inf = %.2e (dt |k|_inf = %.2e)\n", worst, scale);
  MR_CHECK_MSG(worst < 1e-11 * scale, "stage-1 residual %g", worst);

  /* the end configuration is q0 (+) dt v_mid, and qacc the mean acceleration */
  double qend[4];
  cayley(qend, q0, vmid, dt);
  for (int k = 0; k < 4; k++) MR_CHECK_NEAR(d->qpos[k], qend[k], 1e-15);
  MR_CHECK_NEAR(d->qpos[4], q0[4] + dt * vmid[3], 1e-15);
  for (int i = 0; i < 4; i++) MR_CHECK_NEAR(d->qacc[i], (d->qvel[i] - v0[i]) / dt, 1e-9);
  MR_CHECK_NEAR(d->time, dt, 1e-18);
  mr_data_free(e);
  mr_data_free(d);
  mr_model_free(m);
}

/* Over 2 s of fast swinging: every step converges within a few evaluations, and the
 * quaternion stays unit. */
static void test_newton_iterations(void) {
  mr_model *m = ball_chain();
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  d->opt.timestep = 2e-3;
  d->opt.integrator = MR_INT_MIDPOINT;
  ball_chain_state(d);
  int steps = 1000, max_iters = 0, failures = 0;
  long total = 0;
  double worst_res = 0;
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    total += d->newton_iters;
    if (d->newton_iters > max_iters) max_iters = d->newton_iters;
    if (d->newton_status != 0) failures++;
    worst_res = fmax(worst_res, d->newton_residual);
  }
  double qn = sqrt(d->qpos[0] * d->qpos[0] + d->qpos[1] * d->qpos[1] + d->qpos[2] * d->qpos[2] +
                   d->qpos[3] * d->qpos[3]);
  printf("ball chain, 2 s at dt 2e-3: mean %.2f, max %d evaluations per step, %d unconverged, "
         "worst relative residual %.1e, |quat| - 1 = %.1e\n",
         (double)total / steps, max_iters, failures, worst_res, qn - 1);
  MR_CHECK(failures == 0);
  MR_CHECK(max_iters <= 6 && total <= 5L * steps);
  MR_CHECK(worst_res <= 1e-13);
  MR_CHECK(fabs(qn - 1) < 1e-14);
  mr_data_free(d);
  mr_model_free(m);
}

/* Midpoint and Euler integrate the same dynamics: at small steps they agree. Euler at
 * dt 1e-5 (error ~1e-5, and it matches MuJoCo step for step) against midpoint at 1e-4. */
static void test_agrees_with_euler(void) {
  mr_model *m = ball_chain();
  MR_REQUIRE(m != NULL);
  mr_data *a = mr_data_create(m), *b = mr_data_create(m);
  MR_REQUIRE(a != NULL && b != NULL);
  a->opt.timestep = 1e-4;
  a->opt.integrator = MR_INT_MIDPOINT;
  b->opt.timestep = 1e-5;
  b->opt.integrator = MR_INT_EULER;
  ball_chain_state(a);
  ball_chain_state(b);
  for (int k = 0; k < 10000; k++) MR_REQUIRE(mr_step(m, a) == 0);
  for (int k = 0; k < 100000; k++) MR_REQUIRE(mr_step(m, b) == 0);
  double dq = max_diff(a->qpos, b->qpos, m->nq), dv = max_diff(a->qvel, b->qvel, m->nv);
  printf("ball chain after 1 s: midpoint (dt 1e-4) vs euler (dt 1e-5): |dq| %.2e, |dv| %.2e\n", dq, dv);
  MR_CHECK_MSG(dq < 1e-3 && dv < 1e-2, "dq %g dv %g", dq, dv);
  mr_data_free(a);
  mr_data_free(b);
  mr_model_free(m);
}

/* A constant force and torque on a free body in zero gravity at rest: the momentum update
 * is exact, v = dt F / m, w = dt I^-1 tau (no gyroscopic term at w_mid about a principal
 * axis). */
static void test_applied_force(void) {
  mr_spec *s = mr_spec_create("free");
  const double pos[3] = {0, 0, 1}, inertia[3] = {1, 2, 3};
  int body = add_body(s, 0, pos, 2.0, zero3, inertia);
  add_joint(s, body, MR_JOINT_FREE, NULL);
  mr_model *m = compile(s);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  const double dt = 1e-2, F[3] = {1, -2, 3};
  d->opt.timestep = dt;
  d->opt.integrator = MR_INT_MIDPOINT;
  d->opt.disable |= MR_DISABLE_GRAVITY;
  memcpy(d->xfrc_applied + 6, F, sizeof F);
  d->xfrc_applied[6 + 5] = 0.6; /* torque about z: the body's third principal axis */
  MR_REQUIRE(mr_step(m, d) == 0);
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(d->qvel[k], dt * F[k] / 2.0, 1e-15);
  MR_CHECK_NEAR(d->qvel[5], dt * 0.6 / 3.0, 1e-15);
  MR_CHECK_NEAR(d->qvel[3], 0, 1e-15);
  MR_CHECK_NEAR(d->qpos[0], 0.5 * dt * dt * F[0] / 2.0, 1e-16);
  mr_data_free(d);
  mr_model_free(m);
}

/* A fast spin at a coarse step: the quasi-Newton rate ~ dt |w| exceeds 1, so stage 1
 * cannot converge. It must say so (status 1) and stop early, not burn the iteration cap. */
static void test_nonconvergence_reported(void) {
  mr_spec *s = mr_spec_create("spin");
  const double pos[3] = {0, 0, 1}, inertia[3] = {1, 2, 3};
  int body = add_body(s, 0, pos, 1.0, zero3, inertia);
  add_joint(s, body, MR_JOINT_FREE, NULL);
  mr_model *m = compile(s);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  d->opt.timestep = 0.5;
  d->opt.integrator = MR_INT_MIDPOINT;
  d->opt.disable |= MR_DISABLE_GRAVITY;
  const double w[3] = {10, 20, 10};
  memcpy(d->qvel + 3, w, sizeof w);
  mr_step(m, d);
  printf("spin at dt 0.5, |w| 24.5 rad/s: status %d after %d evaluations (relative residual %.1e)\n",
         d->newton_status, d->newton_iters, d->newton_residual);
  MR_CHECK(d->newton_status == 1);
  MR_CHECK(d->newton_iters < 10);
  /* the same body at a sane step converges */
  mr_data_reset(m, d);
  d->opt.timestep = 1e-3;
  memcpy(d->qvel + 3, w, sizeof w);
  MR_CHECK(mr_step(m, d) == 0 && d->newton_status == 0);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_spring_order(0);
  test_spring_order(0.8);
  test_spring_energy();
  test_pendulum_order();
  test_stage1_balance();
  test_newton_iterations();
  test_agrees_with_euler();
  test_applied_force();
  test_nonconvergence_reported();
  MR_TEST_END();
}
