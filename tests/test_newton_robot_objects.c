/* Objects lying on a robot (newton_matrix.c): an island that holds an articulated tree is
 * factored in the mass layout tree by tree, the contacts between its trees joining the
 * low-rank terms. A three-link arm of planks on a free base (eight dofs) lies on the floor
 * and a box, a ball and a capsule fall onto it: over 4 s every step must converge to the
 * solver's tolerance by the NCP natural map of engine/constraint/metrics.c (computed from the
 * impulses, not the solver's own measure), the objects must come to lie on the arm (the
 * path under test: contacts between the arm's bodies and the objects on most steps), the
 * energy of this passive model must never rise, and the run must take few Newton
 * iterations: a direction solved wrongly (a column left out, a tree's part not solved)
 * still converges, as a quasi-Newton one, but takes tens of times more. */
#include <math.h>
#include <stdio.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

static const char *arm_xml =
    "<mujoco model='robot_objects'>\n"
    "  <option timestep='0.005'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body name='base' pos='0 0 0.05'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' pos='0.2 0 0' size='0.2 0.15 0.05'/>\n"
    "      <body pos='0.42 0 0'>\n"
    "        <joint type='hinge' axis='0 0 1' damping='0.1'/>\n"
    "        <geom type='box' pos='0.2 0 0' size='0.2 0.15 0.05'/>\n"
    "        <body pos='0.42 0 0'>\n"
    "          <joint type='hinge' axis='0 1 0' range='-0.5 0.5' limited='true'/>\n"
    "          <geom type='box' pos='0.2 0 0' size='0.2 0.15 0.05'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='box1' pos='0.2 0 0.3'><freejoint/>\n"
    "      <geom type='box' size='.08 .08 .04'/></body>\n"
    "    <body name='ball' pos='0.62 0.02 0.45'><freejoint/>\n"
    "      <geom type='sphere' size='.05'/></body>\n"
    "    <body name='bar' pos='1.04 0 0.6'><freejoint/>\n"
    "      <geom type='capsule' fromto='0 -0.1 0 0 0.1 0' size='.04'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* Whether a contact joins the arm (bodies 1-3) and an object (bodies 4-6). */
static int arm_object_contact(const mr_model *m, const mr_contact *c) {
  int a = m->geom_bodyid[c->geom1], b = m->geom_bodyid[c->geom2];
  int arm_a = a >= 1 && a <= 3, arm_b = b >= 1 && b <= 3;
  return (arm_a && b >= 4) || (arm_b && a >= 4);
}

int main(void) {
  mr_model *m = mr_test_load_xml(arm_xml);
  MR_REQUIRE(m && m->nv == 8 + 18 && m->nbody == 7);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  const int steps = 800;
  int converged = 0, joined = 0, worst_step = -1, total_iters = 0;
  double worst = 0, rise = 0;
  double energy = NAN; /* from the first step on: the state at rest has no kinematics yet */
  for (int s = 0; s < steps; s++) {
    mr_step(m, d);
    converged += d->solver_status == 0;
    if (d->metrics.natural_map > worst) {
      worst = d->metrics.natural_map;
      worst_step = s;
    }
    int touching = 0;
    for (int k = 0; k < d->ncon; k++) touching |= arm_object_contact(m, &d->contact[k]);
    joined += touching;
    total_iters += d->solver_iters - d->solver_sweeps; /* Newton's own */
    mr_energy(m, d);
    double now = d->energy[0] + d->energy[1];
    if (s > 0) rise = fmax(rise, (now - energy) / fabs(energy));
    energy = now;
  }
  printf("converged %d of %d steps, worst natural map %.2e (step %d), %d steps with an object "
         "on the arm, largest energy rise %.2e of its magnitude, %d iterations\n",
         converged, steps, worst, worst_step, joined, rise, total_iters);
  MR_CHECK_MSG(converged >= steps * 99 / 100, "%d of %d steps converged", converged, steps);
  MR_CHECK_MSG(worst <= 1e-6, "natural map %.3g at step %d", worst, worst_step);
  MR_CHECK_MSG(joined >= steps / 2, "an object lay on the arm on %d steps only", joined);
  MR_CHECK_MSG(rise <= 1e-3, "energy rose by %.3g of its magnitude in a step", rise);
  /* the exact direction lands the warm path on the answer: a fraction of an iteration per
   * step over the run; a direction short of a column or of a tree's solve is a quasi-Newton
   * one, which still converges but in tens of iterations a step while the objects land */
  MR_CHECK_MSG(total_iters <= steps / 2, "%d Newton iterations over %d steps", total_iters, steps);
  mr_data_free(d);
  mr_model_free(m);
  MR_TEST_END();
}
