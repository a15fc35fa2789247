/* Recordings are reproducible and say what was applied (DESIGN.md sec. 5, issue 18):
 * - identical runs write byte-identical HDF5 files (no object time stamps);
 * - /ctrl holds the controls the actuators applied: clamped to ctrlrange, not the values a
 *   --ctrl table asked for;
 * - SIGHUP ends a run as SIGTERM does: the recording is completed under its final name, the
 *   summary printed, one line on stderr, exit 128 + 1. */
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

#define FOURBAR MOREAU_SOURCE_DIR "/models/fourbar.xml"
#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"

static char dir[256];

static const char *in_dir(const char *name) {
  static char paths[8][512];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static unsigned char *read_bytes(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)*n + 1);
  if (b && fread(b, 1, (size_t)*n, f) != (size_t)*n) *n = -1;
  fclose(f);
  return b;
}

static void check_identical_hdf5(void) {
  char args[2048];
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "run '%s' --steps 1500 --solver admm --record '%s' --quiet", FOURBAR,
             in_dir(k ? "b.h5" : "a.h5"));
    cli_result r = mr_cli_run(dir, "", args);
    MR_REQUIRE(r.status == 0);
    cli_free(&r);
    if (k == 0) sleep(1); /* a time stamp would differ by now */
  }
  long na = 0, nb = 0;
  unsigned char *a = read_bytes(in_dir("a.h5"), &na), *b = read_bytes(in_dir("b.h5"), &nb);
  MR_REQUIRE(a && b);
  long differ = 0;
  for (long i = 0; i < na && i < nb; i++) differ += a[i] != b[i];
  MR_CHECK_MSG(na == nb && differ == 0, "two identical runs: %ld and %ld bytes, %ld differ", na, nb, differ);
  printf("identical runs: %ld bytes each, %ld differ\n", na, differ);
  free(a);
  free(b);
}

/* /ctrl of the recording, as doubles (rows x nu); NULL if it cannot be read. */
static double *read_ctrl(const char *path, hsize_t dims[2]) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return NULL;
  hid_t d = H5Dopen2(f, "ctrl", H5P_DEFAULT);
  hid_t s = d >= 0 ? H5Dget_space(d) : -1;
  double *v = NULL;
  if (s >= 0 && H5Sget_simple_extent_dims(s, dims, NULL) == 2) {
    v = malloc(sizeof *v * (size_t)(dims[0] * dims[1] + 1));
    if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
      free(v);
      v = NULL;
    }
  }
  if (s >= 0) H5Sclose(s);
  if (d >= 0) H5Dclose(d);
  H5Fclose(f);
  return v;
}

static void check_applied_ctrl(void) {
  /* the crank motor's range is -5..5; the table asks for 10, then -20 */
  mr_test_write_file(in_dir("push.csv"), "time,crank_motor\n0,10\n0.5,10\n0.5,-20\n");
  char args[2048];
  snprintf(args, sizeof args, "run '%s' --duration 1 --ctrl '%s' --record '%s' --quiet", FOURBAR,
           in_dir("push.csv"), in_dir("ctrl.h5"));
  cli_result r = mr_cli_run(dir, "", args);
  MR_REQUIRE(r.status == 0);
  cli_free(&r);
  hsize_t dims[2] = {0, 0};
  double *ctrl = read_ctrl(in_dir("ctrl.h5"), dims);
  MR_REQUIRE(ctrl != NULL && dims[1] == 1 && dims[0] > 10);
  int high = 0, low = 0, outside = 0;
  for (hsize_t i = 0; i < dims[0]; i++) {
    high += ctrl[i] == 5;
    low += ctrl[i] == -5;
    outside += ctrl[i] > 5 || ctrl[i] < -5;
  }
  MR_CHECK_MSG(outside == 0, "/ctrl: %d rows outside the control range", outside);
  MR_CHECK_MSG(ctrl[0] == 5 && ctrl[dims[0] - 1] == -5, "/ctrl: first %g, last %g; expected 5 and -5",
               ctrl[0], ctrl[dims[0] - 1]);
  MR_CHECK_MSG(high > 0 && low > 0 && high + low == (int)dims[0], "/ctrl: %d rows at 5, %d at -5 of %d",
               high, low, (int)dims[0]);
  free(ctrl);
}

static void check_sighup(void) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "'%s' run '%s' --steps 100000000 --record '%s' >'%s' 2>'%s' & pid=$!; i=0; "
           "while [ ! -e '%s.part' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; "
           "sleep 0.3; kill -HUP $pid; wait $pid",
           MOREAU_BIN, HUMANOID, in_dir("hup.csv"), in_dir("hup.out"), in_dir("hup.err"),
           in_dir("hup.csv"));
  int raw = system(cmd);
  int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  MR_CHECK_MSG(status == 128 + SIGHUP, "SIGHUP: exit status %d, expected %d", status, 128 + SIGHUP);
  char *out = mr_test_read_file(in_dir("hup.out")), *err = mr_test_read_file(in_dir("hup.err"));
  MR_CHECK_MSG(out && strstr(out, "interrupted  by signal 1"), "SIGHUP: no summary: %s", out ? out : "");
  MR_CHECK_MSG(err && count_char(err, '\n') == 1 && strstr(err, "interrupted by SIGHUP"),
               "SIGHUP: stderr: %s", err ? err : "");
  MR_CHECK_MSG(file_exists(in_dir("hup.csv")), "SIGHUP: the recording was not completed");
  char part[600];
  snprintf(part, sizeof part, "%s.part", in_dir("hup.csv"));
  MR_CHECK_MSG(!file_exists(part), "SIGHUP: a part file was left");
  free(out);
  free(err);
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "repro");
  check_identical_hdf5();
  check_applied_ctrl();
  check_sighup();
  MR_REQUIRE(mr_test_rmdir(dir) == 0);
  MR_TEST_END();
}
