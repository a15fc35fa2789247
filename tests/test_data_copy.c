/* mr_data_copy: a copy steps on exactly as its source does, warm start and contact history
 * included (the step's solver reads last step's impulses and contacts), and a copy across
 * models is refused. bench_replay relies on it to solve the same states twice. */
#include <string.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

/* Whether qpos and qvel of a and b are bitwise the same. */
static int same_state(const mr_model *m, const mr_data *a, const mr_data *b) {
  return memcmp(a->qpos, b->qpos, (size_t)m->nq * sizeof(double)) == 0 &&
         memcmp(a->qvel, b->qvel, (size_t)m->nv * sizeof(double)) == 0;
}

/* The humanoid in the middle of its fall, copied: both go on bitwise together, with the
 * same iterations every step. A copy of the state alone (qpos, qvel) into fresh data
 * loses the warm start, and its next step is solved from zero impulses: it lands on
 * another point within the tolerance (and once took more iterations, before pgs first
 * made a start from zero impulses cheap: newton.c), so its state parts from the source's
 * at once, which is what shows that the warm start was carried over. */
static void test_copy_steps_on_identically(void) {
  mr_model *m = mr_test_load(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m), *e = mr_data_create(m), *cold = mr_data_create(m);
  MR_REQUIRE(d && e && cold);
  for (int i = 0; i < m->nv; i++) d->qvel[i] = 1e-3 * ((i * 37) % 11 - 5);
  for (int k = 0; k < 300; k++) MR_REQUIRE(mr_step(m, d) == 0);
  MR_REQUIRE(d->ncon > 0);
  MR_CHECK(mr_data_copy(m, e, d) == 0);
  MR_CHECK(e->time == d->time && e->ncon == d->ncon && same_state(m, d, e));
  double t = d->time, q = d->qpos[7];
  MR_CHECK(mr_data_copy(m, d, d) == 0 && d->time == t && d->qpos[7] == q); /* onto itself */
  memcpy(cold->qpos, d->qpos, (size_t)m->nq * sizeof(double));
  memcpy(cold->qvel, d->qvel, (size_t)m->nv * sizeof(double));
  cold->time = d->time;
  int diverged = -1, iters_differ = 0, warm = 0, cold_iters = 0, cold_same = 1;
  for (int k = 0; k < 500; k++) {
    MR_REQUIRE(mr_step(m, d) == 0 && mr_step(m, e) == 0);
    iters_differ += d->solver_iters != e->solver_iters;
    if (diverged < 0 && !same_state(m, d, e)) diverged = k;
    if (k == 0) {
      MR_REQUIRE(mr_step(m, cold) == 0);
      warm = d->solver_iters;
      cold_iters = cold->solver_iters;
      cold_same = same_state(m, d, cold);
    }
  }
  printf("copied at t = %.2f s: first step %d iterations from the copy, %d from the state alone\n",
         d->time - 500 * d->opt.timestep, warm, cold_iters);
  MR_CHECK_MSG(diverged < 0, "the copy left its source at step %d", diverged);
  MR_CHECK_MSG(iters_differ == 0, "%d steps with other iterations", iters_differ);
  MR_CHECK_MSG(!cold_same, "warm start lost? the state alone stepped bitwise as the copy (%d and "
               "%d iterations)", warm, cold_iters);
  mr_data_free(d), mr_data_free(e), mr_data_free(cold);
  mr_model_free(m);
}

/* Data of another model is refused and left as it was. */
static void test_copy_across_models_refused(void) {
  mr_model *a = mr_test_load(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", NULL);
  mr_model *b = mr_test_load(MOREAU_SOURCE_DIR "/models/pendulum.xml", NULL);
  MR_REQUIRE(a && b);
  mr_data *da = mr_data_create(a), *db = mr_data_create(b);
  MR_REQUIRE(da && db);
  mr_step(b, db);
  double time = db->time, q = db->qpos[0];
  MR_CHECK(mr_data_copy(b, db, da) == -1);
  MR_CHECK(mr_data_copy(a, db, da) == -1);
  MR_CHECK(db->time == time && db->qpos[0] == q);
  mr_data_free(da), mr_data_free(db);
  mr_model_free(a), mr_model_free(b);
}

int main(void) {
  test_copy_steps_on_identically();
  test_copy_across_models_refused();
  MR_TEST_END();
}
