/* moreau batch under mpirun: two ranks share a sweep round-robin, rank 0 writes the
 * summary, and rows and recordings match a plain one-process batch of the same JOBS
 * (wall time and rates aside). OpenMPI is part of the set-up script's packages, so a
 * build without it fails here rather than skipping. */
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

#define MODELS MOREAU_SOURCE_DIR "/models"

static char tmpdir[256];

/* The summary with the columns that measure time blanked: what must match across runs. */
static char *summary_without_timing(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  char *text = mr_test_read_file(path);
  if (!text) return NULL;
  int wall = -1, rate = -1, col = 0;
  for (char *p = text; *p && *p != '\n'; p++) {
    if (p == text || p[-1] == ',') {
      if (strncmp(p, "wall_s,", 7) == 0) wall = col;
      if (strncmp(p, "steps_per_s,", 12) == 0) rate = col;
    }
    col += *p == ',';
  }
  MR_CHECK(wall >= 0 && rate >= 0);
  /* no field of this sweep is quoted, so commas separate fields */
  char *out = text;
  col = 0;
  for (char *p = text; *p; p++) {
    if (*p == '\n') col = -1;
    if (*p == '\n' || *p == ',') {
      *out++ = *p;
      col++;
      continue;
    }
    if (col != wall && col != rate) *out++ = *p;
  }
  *out = 0;
  return text;
}

static void test_two_ranks(void) {
  char jobs[400], plain[400], ranks[400], args[1600], prefix[800];
  snprintf(jobs, sizeof jobs, "%s/sweep.toml", tmpdir);
  mr_test_write_file(jobs, "model = \"" MODELS "/five_balls.xml\"\nsteps = 150\n"
                   "solver = [pgs, admm, implicit]\nseed = 1..3\nrecord = \"{solver}_{seed}.csv\"\n");
  snprintf(plain, sizeof plain, "%s/plain", tmpdir);
  snprintf(ranks, sizeof ranks, "%s/ranks", tmpdir);

  snprintf(args, sizeof args, "batch '%s' --jobs 2 --out '%s'", jobs, plain);
  cli_result r = mr_cli_run(tmpdir, "", args);
  MR_CHECK_MSG(r.status == 0, "plain batch: status %d: %s", r.status, r.err);
  cli_free(&r);

  /* Leak reports from libmpi's own start-up would drown the sanitizer build. */
  snprintf(prefix, sizeof prefix, "ASAN_OPTIONS=detect_leaks=0 '%s' -n 2 --oversubscribe %s",
           MOREAU_MPIEXEC, geteuid() == 0 ? "--allow-run-as-root" : "");
  snprintf(args, sizeof args, "batch '%s' --jobs 1 --out '%s'", jobs, ranks);
  r = mr_cli_run(tmpdir, prefix, args);
  MR_CHECK_MSG(r.status == 0, "mpirun batch: status %d: %s", r.status, r.err);
  MR_CHECK_MSG(strstr(r.out, "9 jobs: 9 ok") != NULL, "stdout: %s", r.out);
  MR_CHECK_MSG(count_char(r.out, '\n') == 1, "only rank 0 reports the total: %s", r.out);
  /* round-robin: job 1 on rank 0, job 2 on rank 1 */
  MR_CHECK_MSG(strstr(r.err, "rank 0: job 1/9 ok") && strstr(r.err, "rank 1: job 2/9 ok"), "stderr: %s", r.err);
  cli_free(&r);

  char *a = summary_without_timing(plain), *b = summary_without_timing(ranks);
  MR_CHECK(a && b && count_char(a, '\n') == 10);
  MR_CHECK_MSG(a && b && strcmp(a, b) == 0, "summaries differ:\n%s\n---\n%s", a ? a : "", b ? b : "");
  free(a);
  free(b);
  const char *solvers[] = {"pgs", "admm", "implicit"};
  for (int s = 0; s < 3; s++)
    for (int seed = 1; seed <= 3; seed++) {
      char x[600], y[600];
      snprintf(x, sizeof x, "%s/%s_%d.csv", plain, solvers[s], seed);
      snprintf(y, sizeof y, "%s/%s_%d.csv", ranks, solvers[s], seed);
      MR_CHECK_MSG(mr_test_files_equal(x, y), "%s and %s differ", x, y);
    }
}

int main(void) {
  MR_CHECK_MSG(MOREAU_HAVE_MPI && MOREAU_MPIEXEC[0], "moreau was built without MPI; install the "
               "set-up script's packages (openmpi-bin, libopenmpi-dev) and reconfigure");
  if (!(MOREAU_HAVE_MPI && MOREAU_MPIEXEC[0])) MR_TEST_END();
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_batch_mpi");
  test_two_ranks();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
