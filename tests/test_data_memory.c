/* An mr_data is sized to its model's problem (issue 15): J by its nonzeros, A^-1 J^T over
 * each row's trees, dense G only for the solvers that form it and for at most
 * MR_DENSE_MAX_ROWS rows. humanoid100 (627 dofs, up to 2048 constraint rows) fits in
 * 20 MB (it took 175 MB with dense J, AJ and G at its worst-case row count), and
 * mr_data_bytes, which `info` reports, is what mr_data_create allocates. */
#include "moreau.h"
#include "mr_test.h"

static void check_model(const char *path, double limit) {
  char err[512];
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  size_t claimed = mr_data_bytes(m);
  size_t allocated = sizeof(mr_data) + d->nbuffer + d->narena;
  printf("%s: %.2f MB per mr_data (arrays %.2f MB, arena %.2f MB)\n", m->model_name,
         (double)claimed / 1e6, (double)d->nbuffer / 1e6, (double)d->narena / 1e6);
  MR_CHECK_MSG(claimed >= allocated && claimed - allocated <= 256, "claimed %zu, allocated %zu",
               claimed, allocated);
  MR_CHECK_MSG((double)claimed <= limit, "%.3g MB", (double)claimed / 1e6);
  /* the data steps: the arena holds a step of the pile (a sizing bug would fail the solve) */
  for (int k = 0; k < 200; k++) MR_REQUIRE(mr_step(m, d) == 0);
  MR_CHECK(d->solver_status != 2);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  check_model(MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", 20e6);
  check_model(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 20e6);
  MR_TEST_END();
}
