/* Penetrations taken from earlier steps (collision/depth_cache.h), checked against a fresh
 * search on a data that has no anchors:
 *   - a cylinder lying on a box: the same state is answered from the anchor with the same
 *     depth; a move within the bound is answered from it, within the bound of the fresh
 *     depth; a move of the anchor's tolerance, or a turn of it, forces a new search;
 *   - the pile of models/pile20.xml settling for 4 s: every contact pair's deepest point
 *     agrees with the fresh search's within the bound, and most pairs of the general path
 *     in contact are taken from their anchors;
 *   - mr_data_reset forgets the anchors. */
#include <math.h>
#include <string.h>

#include "collision/depth_cache.h"
#include "collision/narrowphase.h"
#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

static const char *lying_cylinder =
    "<mujoco><option timestep='0.002'/><worldbody>"
    "<geom name='table' type='box' size='0.2 0.2 0.05'/>"
    "<body name='cyl' pos='0 0 0.089'><freejoint/>"
    "<geom name='roller' type='cylinder' size='0.04 0.06'"
    " quat='0.7071067811865476 0.7071067811865476 0 0'/>"
    "</body></worldbody></mujoco>";

/* The smallest distance among the contacts of pair (g1, g2), in either order (HUGE_VAL if
 * none). */
static double pair_min_dist(const mr_data *d, int g1, int g2) {
  double best = HUGE_VAL;
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    if ((c->geom1 == g1 && c->geom2 == g2) || (c->geom1 == g2 && c->geom2 == g1))
      best = fmin(best, c->dist);
  }
  return best;
}

/* The contacts of d's current state by a data without anchors. */
static void fresh_forward(const mr_model *m, const mr_data *d, mr_data *fresh) {
  mr_data_reset(m, fresh);
  memcpy(fresh->qpos, d->qpos, (size_t)m->nq * sizeof(double));
  memcpy(fresh->qvel, d->qvel, (size_t)m->nv * sizeof(double));
  mr_forward(m, fresh);
}

/* The pair's accuracy bound: MR_DEPTH_DRIFT of the smaller bounding radius (>= 1 mm). */
static double pair_tolerance(const mr_model *m, int g1, int g2) {
  return MR_DEPTH_DRIFT * fmax(1e-3, fmin(m->geom_rbound[g1], m->geom_rbound[g2]));
}

static void test_lying_cylinder(void) {
  mr_model *m = mr_test_load_xml(lying_cylinder);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m), *fresh = mr_data_create(m);
  MR_REQUIRE(d && fresh);
  int table = mr_name2id(m, MR_OBJ_GEOM, "table"), roller = mr_name2id(m, MR_OBJ_GEOM, "roller");
  double tol = pair_tolerance(m, table, roller);

  mr_forward(m, d);
  double searched = pair_min_dist(d, table, roller);
  MR_CHECK(searched < -1e-4); /* 1 mm deep by construction */
  MR_CHECK(d->npair_anchored == 0);
  mr_forward(m, d);
  MR_CHECK(d->npair_anchored == 1);
  MR_CHECK_NEAR(pair_min_dist(d, table, roller), searched, 1e-15);

  /* a tenth of the tolerance along x: answered from the anchor, within the bound */
  d->qpos[0] += 0.1 * tol;
  mr_forward(m, d);
  MR_CHECK(d->npair_anchored == 1);
  fresh_forward(m, d, fresh);
  MR_CHECK(fresh->npair_anchored == 0);
  MR_CHECK_NEAR(pair_min_dist(d, table, roller), pair_min_dist(fresh, table, roller), tol);

  /* the whole tolerance from the anchor (not from the last step): searched again */
  d->qpos[0] += 0.9 * tol;
  mr_forward(m, d);
  MR_CHECK(d->npair_anchored == 0);

  /* a turn that moves the rim by ten tolerances, no translation: searched again */
  mr_forward(m, d); /* anchored at this pose */
  MR_CHECK(d->npair_anchored == 1);
  double th = 10 * tol / m->geom_rbound[roller];
  double q[4] = {d->qpos[3], d->qpos[4], d->qpos[5], d->qpos[6]};
  double r[4] = {cos(th / 2), 0, 0, sin(th / 2)};
  d->qpos[3] = r[0] * q[0] - r[3] * q[3];
  d->qpos[4] = r[0] * q[1] - r[3] * q[2];
  d->qpos[5] = r[0] * q[2] + r[3] * q[1];
  d->qpos[6] = r[0] * q[3] + r[3] * q[0];
  mr_forward(m, d);
  MR_CHECK(d->npair_anchored == 0);

  mr_data_reset(m, d);
  mr_forward(m, d);
  MR_CHECK(d->npair_anchored == 0); /* nothing survives a reset */
  mr_data_free(d);
  mr_data_free(fresh);
  mr_model_free(m);
}

static void test_pile(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("pile20.xml"), NULL);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m), *fresh = mr_data_create(m);
  MR_REQUIRE(d && fresh);
  int steps = (int)(4.0 / m->opt.timestep + 0.5), compared = 0, worse = 0;
  long anchored = 0, general = 0;
  double worst = 0;
  for (int s = 0; s < steps; s++) {
    int check = s >= steps / 2 && s % 10 == 0;
    if (check) fresh_forward(m, d, fresh);
    mr_step(m, d); /* its contacts are those of the state fresh saw */
    if (!check) continue;
    anchored += d->npair_anchored;
    for (int i = 0; i < fresh->ncon; i++) {
      const mr_contact *c = &fresh->contact[i];
      double mine = pair_min_dist(d, c->geom1, c->geom2);
      double theirs = pair_min_dist(fresh, c->geom1, c->geom2);
      if (c->dist != theirs) continue; /* the pair's deepest point only */
      general += mr_narrowphase_is_general(m->geom_type[c->geom1], m->geom_type[c->geom2]);
      double err = fabs(mine - theirs), tol = pair_tolerance(m, c->geom1, c->geom2);
      compared++;
      worst = fmax(worst, err / tol);
      if (!(err <= tol + 1e-15)) worse++;
    }
  }
  printf("pile: %d pairs compared, worst error %.3g of the bound; %ld of %ld pairs of the "
         "general path in contact answered from an anchor\n", compared, worst, anchored, general);
  MR_CHECK(compared > 1000);
  MR_CHECK_MSG(worse == 0, "%d pairs beyond the bound", worse);
  /* at rest most pairs of the general path are answered from their anchors (the second
   * half of the fall: 75-100% over the first seven nudged starts) */
  MR_CHECK_MSG(anchored > general / 2, "%ld of %ld", anchored, general);
  mr_data_free(d);
  mr_data_free(fresh);
  mr_model_free(m);
}

int main(void) {
  test_lying_cylinder();
  test_pile();
  MR_TEST_END();
}
