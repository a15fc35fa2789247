/* `stagproj` solves its two inner QPs to tolerance (issue 17): on a five-box stack (0.2 m,
 * 1 kg boxes, mu = 0.5, dt = 1 ms), the stack whose normal QP is as ill-conditioned as it is
 * tall, every step converges by the solver's own measure, the NCP natural-map residual
 * metrics.c computes from its impulses agrees, and the stack stays where it is. With capped
 * projected Gauss-Seidel as inner solver the outer iteration crawled and hit its cap.
 */
#include <math.h>
#include <stdio.h>

#include "engine/solver/solver.h"
#include "mr_test_model.h"

static const char *stack_xml =
    "<mujoco><option timestep='0.001'/>"
    "<default><geom type='box' size='0.1 0.1 0.1' mass='1' friction='0.5 0.005 0.0001' "
    "margin='0.001'/></default><worldbody><geom name='floor' type='plane' size='2 2 0.1'/>"
    "<body pos='0 0 0.1'><freejoint/><geom/></body><body pos='0 0 0.3'><freejoint/><geom/></body>"
    "<body pos='0 0 0.5'><freejoint/><geom/></body><body pos='0 0 0.7'><freejoint/><geom/></body>"
    "<body pos='0 0 0.9'><freejoint/><geom/></body></worldbody></mujoco>";

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  mr_model *m = mr_test_load_xml(stack_xml);
  MR_REQUIRE(m && m->nv == 30);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("stagproj");
  MR_REQUIRE(d->opt.solver >= 0);
  const double tol = 1e-8;
  d->opt.tol = tol;
  int steps = 1000, unconverged = 0;
  double worst_own = 0, worst_ncp = 0, iters = 0;
  for (int s = 0; s < steps; s++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    unconverged += d->solver_status != MR_SOLVER_CONVERGED;
    worst_own = fmax(worst_own, d->solver_residual);
    worst_ncp = fmax(worst_ncp, d->metrics.natural_map);
    iters += d->solver_iters;
  }
  double drift = hypot(d->qpos[4 * 7] - 0, d->qpos[4 * 7 + 1] - 0), sink = 0.9 - d->qpos[4 * 7 + 2];
  printf("stagproj, five-box stack, 1 s: %d of %d steps unconverged, worst residual %.2e (own) "
         "%.2e (NCP natural map), mean %.2f inner iterations, top box drift %.2e m, sink %.2e m\n",
         unconverged, steps, worst_own, worst_ncp, iters / steps, drift, sink);
  MR_CHECK_MSG(unconverged == 0, "%d steps did not converge", unconverged);
  MR_CHECK(worst_own <= tol);
  MR_CHECK_MSG(worst_ncp < 1e-5, "natural-map residual %.3g", worst_ncp);
  MR_CHECK(drift < 1e-6 && fabs(sink) < 1e-4);
  mr_data_free(d);
  mr_model_free(m);
  MR_TEST_END();
}
