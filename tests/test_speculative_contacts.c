/* Speculative contacts (collision/sweep.h): a pair is found while its gap is one the step
 * can close, so a fast body lands on a surface instead of in it.
 *  (a) a box thrown at the floor at 4 m/s with dt = 10 ms: a contact exists at a positive
 *      gap the step before it would touch, and no corner ever goes more than 1 mm below the
 *      floor, measured from the box's pose after each step (found only once it had moved
 *      in, the box went up to v dt = 4 cm deep);
 *  (b) the same box thrown onto a box resting on the floor: their overlap, from the two
 *      poses, stays under 1 mm;
 *  (c) a box passing another 5 mm to its side at 5 m/s, and one leaving it at 5 m/s, get
 *      no contact with it: the widened margin finds them, and their gap does not close.
 * Every solver but soft, whose model has no rows beyond the margin. */
#include <math.h>
#include <stdio.h>

#include "moreau.h"
#include "mr_test_model.h"

#define HALF 0.05 /* the boxes' half size */

/* The lowest corner of free body b's box (half size HALF, centred on the body) above z = 0,
 * from its qpos. */
static double lowest_corner(const mr_data *d, int b) {
  const double *q = d->qpos + 7 * (b - 1), w = q[3], x = q[4], y = q[5], z = q[6];
  const double row[3] = {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
  double low = INFINITY;
  for (int c = 0; c < 8; c++) {
    double h = q[2];
    for (int k = 0; k < 3; k++) h += row[k] * ((c >> k & 1) ? HALF : -HALF);
    low = fmin(low, h);
  }
  return low;
}

/* Steps a thrown box; returns the deepest its lowest corner went below `floor_at` (the floor,
 * or the top of the box under it), and whether a contact at a positive gap came first. */
static double throw_box(const mr_model *m, int solver, int thrown, int under, int *ahead) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = solver;
  d->qvel[6 * (thrown - 1) + 2] = -4;
  double deepest = 0;
  int touched = 0;
  *ahead = 0;
  for (int s = 0; s < 60; s++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    for (int c = 0; c < d->ncon; c++) {
      const mr_contact *k = &d->contact[c];
      if (k->body1 != thrown && k->body2 != thrown) continue;
      if (!touched && k->dist > 0) *ahead = 1;
      touched |= k->dist <= 0;
    }
    double floor_at = under ? lowest_corner(d, under) + 2 * HALF : 0;
    deepest = fmax(deepest, floor_at - lowest_corner(d, thrown));
  }
  mr_data_free(d);
  return deepest;
}

static void test_thrown(void) {
  mr_model *m = mr_test_load_xml(
      "<mujoco><option timestep='0.01'/><worldbody><geom type='plane' size='5 5 .1'/>"
      "<body pos='0 0 0.37'><freejoint/><geom type='box' size='.05 .05 .05' mass='1'/></body>"
      "<body pos='1 0 0.05'><freejoint/><geom type='box' size='.05 .05 .05' mass='1'/></body>"
      "<body pos='1 0 0.42'><freejoint/><geom type='box' size='.05 .05 .05' mass='1'/></body>"
      "</worldbody></mujoco>");
  MR_REQUIRE(m);
  for (int s = 0; s < mr_solver_count(); s++) {
    if (s == mr_solver_find("soft")) continue;
    int ahead_floor, ahead_box;
    double floor_depth = throw_box(m, s, 1, 0, &ahead_floor);
    double box_depth = throw_box(m, s, 3, 2, &ahead_box);
    printf("  %-9s onto the floor: deepest %.2e m (contact ahead: %d); onto a box: %.2e m (%d)\n",
           mr_solver_name(s), floor_depth, ahead_floor, box_depth, ahead_box);
    MR_CHECK_MSG(ahead_floor && ahead_box, "%s: no contact before touching", mr_solver_name(s));
    MR_CHECK_MSG(floor_depth < 1e-3, "%s: %.3g m into the floor", mr_solver_name(s), floor_depth);
    MR_CHECK_MSG(box_depth < 1e-3, "%s: %.3g m into the box", mr_solver_name(s), box_depth);
  }
  mr_model_free(m);
}

/* Box 1 moves along x at 5 m/s past box 2 (a 5 mm gap along y) or away from it. */
static void test_not_closing(void) {
  mr_model *m = mr_test_load_xml(
      "<mujoco><option timestep='0.01' gravity='0 0 0'/><worldbody>"
      "<body pos='-0.3 0 0'><freejoint/><geom type='box' size='.05 .05 .05' mass='1'/></body>"
      "<body pos='0 0.105 0'><freejoint/><geom type='box' size='.05 .05 .05' mass='1'/></body>"
      "</worldbody></mujoco>");
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  int found = 0;
  d->qvel[0] = 5; /* alongside */
  for (int s = 0; s < 12; s++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    found += d->ncon;
  }
  MR_CHECK_NEAR(d->qvel[1], 0, 1e-12);
  mr_data_reset(m, d);
  d->qpos[0] = 0;
  d->qvel[1] = -5; /* leaving */
  for (int s = 0; s < 5; s++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    found += d->ncon;
  }
  printf("  passing and leaving: %d contacts\n", found);
  MR_CHECK_MSG(found == 0, "%d contacts between boxes whose gap never closed", found);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf("a box thrown down at 4 m/s, dt = 10 ms:\n");
  test_thrown();
  test_not_closing();
  MR_TEST_END();
}
