/* Control tables (--ctrl FILE.csv) for the fuzz model's actuators: loaded, looked up at
 * times before, inside and after its rows, and applied over a few steps. */
#include <math.h>

#include "engine/record/ctrl_schedule.h"
#include "fuzz_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const mr_model *m = fuzz_model();
  char path[600], err[1024];
  fuzz_write("ctrl.csv", data, size, path, sizeof path);
  mr_ctrl_schedule s;
  if (mr_ctrl_schedule_load(&s, path, m, err, (int)sizeof err) != 0) {
    fuzz_check_error_line(err);
    return 0;
  }
  mr_data *d = mr_data_create(m);
  static const double times[] = {-1e300, -1, 0, 0.5, 1e-300, 3, 1e300, NAN, INFINITY};
  for (size_t i = 0; d && i < sizeof times / sizeof times[0]; i++)
    mr_ctrl_schedule_apply(&s, times[i], d->ctrl);
  for (int i = 0; d && i < 3; i++) {
    mr_ctrl_schedule_apply(&s, d->time, d->ctrl);
    if (mr_step(m, d) != 0) break;
  }
  mr_data_free(d);
  mr_ctrl_schedule_free(&s);
  return 0;
}
