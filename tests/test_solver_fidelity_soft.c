/* soft reads the step-start velocity under both integrators (issue 17, part 3).
 *
 * MuJoCo's reference acceleration a_ref = -b J qvel - k d r takes qvel at the start of the
 * step. Under the midpoint integrator the solver runs after stage 1, which left the
 * midpoint velocity of its last evaluation in d->qvel; soft read that one. A 1 kg ball of
 * radius 0.1 m, 2 mm into the floor at rest (v0 = 0), one step of dt = 2 ms: with one
 * contact (G_NN = 1/m, no tangential coupling at the lowest point) and |r| beyond solimp's
 * width, d = dmax and MuJoCo's problem min 1/2 (G + R) l^2 + q l, R = (1 - d)/d G, gives
 *   l = -q d m,  q = J v_free - J v0 + dt (b J v0 + k d r) = -g dt + dt k d r,
 * so the new vertical velocity is -g dt + l / m whichever integrator computed v_free
 * (gravity alone: v_free = -g dt exactly under both). */
#include "mr_test_model.h"

#include <math.h>

static void ball_step(int integrator) {
  const double dt = 2e-3, depth = 2e-3, g = 9.81;
  char xml[512];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep=\"%g\" gravity=\"0 0 -%g\"/><worldbody><geom type=\"plane\" size=\"5 5 0.1\"/>"
           "<body pos=\"0 0 %.17g\"><freejoint/><geom type=\"sphere\" size=\"0.1\" mass=\"1\"/></body>"
           "</worldbody></mujoco>", dt, g, 0.1 - depth);
  mr_model *m = mr_test_load_xml(xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("soft");
  d->opt.integrator = integrator;
  d->opt.tol = 1e-14;
  MR_REQUIRE(mr_step(m, d) == 0);
  /* MuJoCo's defaults: solref (0.02, 1), solimp (0.9, 0.95, 0.001, ...) */
  double dmax = 0.95, tc = 0.02, k = 1 / (dmax * dmax * tc * tc);
  double q = -g * dt + dt * k * dmax * -depth, l = -q * dmax * 1.0;
  double expect = -g * dt + l;
  printf("integrator %d: vz %.12g, MuJoCo's model %.12g\n", integrator, d->qvel[2], expect);
  MR_CHECK_NEAR(d->qvel[2], expect, 1e-9);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  ball_step(MR_INT_EULER);
  ball_step(MR_INT_MIDPOINT);
  MR_TEST_END();
}
