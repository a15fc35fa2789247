/* JOBS files of `moreau batch`: the first byte picks the format (CSV or sweep spec), the
 * rest is the file, read into a job table as the command does (nothing is run: its jobs'
 * models are paths the input chose). */
#include "app/batch_jobs.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  char path[600], out[600], err[1024];
  const char *name = data[0] & 1 ? "jobs.csv" : "jobs.toml";
  fuzz_remove("jobs.csv"), fuzz_remove("jobs.toml");
  fuzz_write(name, data + 1, size - 1, path, sizeof path);
  fuzz_path("out", out, sizeof out);
  mr_batch_table t;
  if (mr_batch_table_load(&t, path, out, 1, err, (int)sizeof err) != 0) {
    fuzz_check_error_line(err);
    return 0;
  }
  mr_batch_table_free(&t);
  return 0;
}
