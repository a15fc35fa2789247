/* What raisim, ccp and sap do on a sliding box is their method, to the figure (issue 17).
 *
 * raisim: its sliding impulse is the point of the cone/plane ellipse closest to the free
 * solution in the G_kk metric, whose KKT conditions (papers/002 digest eq. 21) give
 *   c_T ∝ -(lambda_T + mu^2 lambda_N G_TN / G_NN).
 * A cube sliding along x on a face has c_T along x at its four corners r = (±a, ±a, -a),
 * with G_TyN / G_NN = (a^2 / I) / (1/m + 2 a^2 / I) = 3/8 (I = 2 m a^2 / 3), so every corner
 * turns its friction by lambda_Ty = -(3/8) mu^2 lambda_N and keeps |lambda_T| = mu
 * lambda_N: the deceleration is mu g sqrt(1 - (3 mu / 8)^2), not mu g. raisim must match that
 * (and pgs Coulomb's mu g) on the floor and on an incline.
 *
 * ccp: Anitescu's relaxation makes every sliding contact leave with c_N = mu |c_T| (papers/002
 * sec. 3.2): launched at 1 m/s the cube takes off at about mu |v_T| and flies a ballistic
 * hop of (mu |v_T|)^2 / 2g. sap's convex model has the same relaxation (papers/004 sec. 5.2:
 * it reduces to Anitescu's in the rigid limit; its near-rigid R_n takes a few percent off the
 * take-off). The dt mu |v_T| of papers/004 is the gliding layer of a steady slide, not the
 * hop of an impulsive start. Both are checked against the contact velocities after the
 * first step, computed here from the body's velocity (the ballistic height within 5%: the
 * box turns a little in flight).
 *
 * ccp and sap glide on the layer phi = dt mu |v_T| (their convex models, papers/004 sec.
 * 5.2): with a margin that keeps that layer's contacts as rows, a box sliding down a
 * mu = 0.3 incline follows Coulomb's acceleration and does not turn. (With margin 0 the
 * gliding contacts leave the problem each step, the box hops and can tumble: that is the
 * contact activation, not these solvers.) */
#include "mr_fidelity_scene.h"

#define G 9.81

/* Mean acceleration down the plane over T seconds from rest, or the deceleration of a box
 * launched at v0 along -x on the floor (positive when it slows). */
static double acceleration(const char *solver, double deg, double mu, double v0, double T) {
  mr_fid_scene s = mr_fid_box(deg, mu, 1e-3, solver, 1e-3);
  s.d->qvel[0] = -v0;
  int steps = (int)(T / 1e-3 + 0.5);
  for (int i = 0; i < steps; i++) MR_REQUIRE(mr_step(s.m, s.d) == 0);
  double t = s.tilt, v = -(s.d->qvel[0] * cos(t) + s.d->qvel[2] * sin(t));
  MR_CHECK_MSG(mr_fid_rotation(&s) < 1e-3, "%s turned %g rad", solver, mr_fid_rotation(&s));
  mr_fid_free(&s);
  return v0 > 0 ? (v0 - v) / T : v / T;
}

static void raisim_model(void) {
  const double mu = 0.4, turn = sqrt(1 - (3 * mu / 8) * (3 * mu / 8));
  double a_pgs = acceleration("pgs", 0, mu, 1, 0.2), a_raisim = acceleration("raisim", 0, mu, 1, 0.2);
  printf("floor: deceleration pgs %.6f (Coulomb %.6f), raisim %.6f (its model %.6f)\n", a_pgs,
         mu * G, a_raisim, mu * G * turn);
  MR_CHECK_NEAR(a_pgs, mu * G, 1e-3 * mu * G);
  MR_CHECK_NEAR(a_raisim, mu * G * turn, 1e-3 * mu * G);
  const double mu2 = 0.3, th = 20 * MR_FID_PI / 180, turn2 = sqrt(1 - (3 * mu2 / 8) * (3 * mu2 / 8));
  double coulomb = G * (sin(th) - mu2 * cos(th)), model = G * (sin(th) - mu2 * cos(th) * turn2);
  a_pgs = acceleration("pgs", 20, mu2, 0, 1);
  a_raisim = acceleration("raisim", 20, mu2, 0, 1);
  printf("incline: acceleration pgs %.6f (Coulomb %.6f), raisim %.6f (its model %.6f)\n", a_pgs,
         coulomb, a_raisim, model);
  MR_CHECK_NEAR(a_pgs, coulomb, 2e-3 * coulomb);
  MR_CHECK_NEAR(a_raisim, model, 2e-3 * coulomb);
}

/* A cube launched at 1 m/s: after one step every corner leaves at c_N = mu |c_T| (ccp exactly;
 * sap to within its normal compliance R_n, a few percent), then flies a ballistic hop. */
static void launch(const char *solver, double exact) {
  const double mu = 0.4, a = MR_FID_HALF;
  mr_fid_scene s = mr_fid_box(0, mu, 1e-3, solver, 1e-3);
  s.d->opt.tol = 1e-12;
  s.d->qvel[0] = 1;
  MR_REQUIRE(mr_step(s.m, s.d) == 0);
  const double *v = s.d->qvel, *w = s.d->qvel + 3; /* w in the body frame: unturned here */
  double worst = 0;
  for (int c = 0; c < 4; c++) {
    double r[3] = {c & 1 ? a : -a, c & 2 ? a : -a, -a};
    /* c_N is the velocity the solver sees: with the stage's 1 um resting gap closed
     * (MR_CONTACT_SLOP: bias slop / dt on a contact at dist 0) */
    double cn = v[2] + w[0] * r[1] - w[1] * r[0] + 1e-6 / 1e-3;
    double ct = hypot(v[0] + w[1] * r[2] - w[2] * r[1], v[1] + w[2] * r[0] - w[0] * r[2]);
    worst = fmax(worst, fabs(cn - mu * ct) / (mu * ct));
  }
  double launch = v[2], hop = 0;
  printf("%s: take-off %.4f m/s, worst |c_N - mu |c_T|| / mu |c_T| %.2g\n", solver, launch, worst);
  MR_CHECK_MSG(worst < exact, "%s: c_N off mu |c_T| by %g", solver, worst);
  for (int i = 0; i < 300; i++) {
    MR_REQUIRE(mr_step(s.m, s.d) == 0);
    hop = fmax(hop, mr_fid_lift(&s));
  }
  double ballistic = launch * launch / (2 * G);
  printf("%s: hop %.5f m, ballistic from the take-off %.5f m\n", solver, hop, ballistic);
  MR_CHECK_NEAR(hop, ballistic, 0.05 * ballistic);
  mr_fid_free(&s);
}

static void gliding_slides(void) {
  const double th = 20 * MR_FID_PI / 180, coulomb = G * (sin(th) - 0.3 * cos(th));
  const char *solvers[] = {"ccp", "sap"};
  for (int i = 0; i < 2; i++) {
    double acc = acceleration(solvers[i], 20, 0.3, 0, 3);
    printf("%s on the mu = 0.3 incline: %.6f (Coulomb %.6f)\n", solvers[i], acc, coulomb);
    MR_CHECK_NEAR(acc, coulomb, 0.01 * coulomb);
  }
}

int main(void) {
  raisim_model();
  launch("ccp", 1e-6);
  launch("sap", 0.05);
  gliding_slides();
  MR_TEST_END();
}
