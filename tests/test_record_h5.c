/* Recording round trips (record.h, recording.h): `moreau run --record` to .csv and .h5 on
 * sample models, read back with the HDF5 C API and with mr_recording_load, must equal the
 * states of a direct simulation bit for bit; `h5dump -H` must list the documented datasets
 * and attributes; a recording for another model is refused with one line. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "moreau.h"
#include "mr_test.h"
#include "engine/record/recording.h"

static char tmpdir[256];

static int run_cli(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>'%s/stderr'", MOREAU_BIN, args, tmpdir);
  int raw = system(cmd);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

/* The states a plain stepping loop produces: rows x (time, qpos, qvel). */
typedef struct direct_run {
  long rows;
  double *time, *qpos, *qvel;
} direct_run;

static direct_run simulate_direct(const mr_model *m, long steps) {
  direct_run r;
  r.rows = steps + 1;
  r.time = calloc((size_t)r.rows, sizeof *r.time);
  r.qpos = calloc((size_t)(r.rows * m->nq) + 1, sizeof *r.qpos);
  r.qvel = calloc((size_t)(r.rows * m->nv) + 1, sizeof *r.qvel);
  mr_data *d = mr_data_create(m);
  mr_data_reset(m, d);
  for (long k = 0; k < r.rows; k++) {
    if (k > 0) mr_step(m, d);
    r.time[k] = d->time;
    memcpy(r.qpos + k * m->nq, d->qpos, sizeof *d->qpos * (size_t)m->nq);
    memcpy(r.qvel + k * m->nv, d->qvel, sizeof *d->qvel * (size_t)m->nv);
  }
  mr_data_free(d);
  return r;
}

static void direct_free(direct_run *r) {
  free(r->time);
  free(r->qpos);
  free(r->qvel);
}

static int same_doubles(const double *a, const double *b, long n) {
  return n == 0 || memcmp(a, b, sizeof *a * (size_t)n) == 0;
}

static void check_recording_equals(const char *path, const mr_model *m, const direct_run *ref,
                                   int expect_ctrl) {
  mr_recording rec;
  char err[512];
  int rc = mr_recording_load(path, m, &rec, err, (int)sizeof err);
  MR_CHECK_MSG(rc == 0, "%s: %s", path, err);
  if (rc) return;
  MR_CHECK(rec.nq == m->nq && rec.nv == m->nv);
  MR_CHECK_MSG(rec.nrows == ref->rows, "%s: %ld rows, expected %ld", path, rec.nrows, ref->rows);
  if (rec.nrows == ref->rows) {
    MR_CHECK_MSG(same_doubles(rec.time, ref->time, ref->rows), "%s: time differs", path);
    MR_CHECK_MSG(same_doubles(rec.qpos, ref->qpos, ref->rows * m->nq), "%s: qpos differs", path);
    MR_CHECK_MSG(same_doubles(rec.qvel, ref->qvel, ref->rows * m->nv), "%s: qvel differs", path);
  }
  MR_CHECK(expect_ctrl ? rec.ctrl != NULL && rec.nu == m->nu : rec.ctrl == NULL);
  mr_recording_free(&rec);
}

/* Reads a whole dataset as doubles with the library's own API; its dims in dims. */
static double *h5_read_all(hid_t file, const char *name, hsize_t dims[2], int *rank) {
  hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
  if (dset < 0) return NULL;
  hid_t space = H5Dget_space(dset);
  dims[0] = 0;
  dims[1] = 1;
  *rank = H5Sget_simple_extent_ndims(space);
  H5Sget_simple_extent_dims(space, dims, NULL);
  size_t n = (size_t)dims[0] * (size_t)(*rank == 2 ? dims[1] : 1);
  double *x = calloc(n + 1, sizeof *x);
  if (n && H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) {
    free(x);
    x = NULL;
  }
  H5Sclose(space);
  H5Dclose(dset);
  return x;
}

static void h5_check_string_attr(hid_t file, const char *name, const char *expected) {
  hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  MR_CHECK_MSG(attr >= 0, "no attribute %s", name);
  if (attr < 0) return;
  hid_t type = H5Aget_type(attr);
  char value[256] = {0};
  size_t size = H5Tget_size(type);
  MR_CHECK(H5Tget_class(type) == H5T_STRING && size < sizeof value);
  if (size < sizeof value) H5Aread(attr, type, value);
  if (expected) MR_CHECK_MSG(strcmp(value, expected) == 0, "attribute %s = '%s', expected '%s'", name, value, expected);
  H5Tclose(type);
  H5Aclose(attr);
}

static void check_h5_with_library(const char *path, const mr_model *m, const direct_run *ref,
                                  double dt, long steps) {
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  MR_REQUIRE(file >= 0);
  hsize_t dims[2];
  int rank;
  double *time = h5_read_all(file, "time", dims, &rank);
  MR_CHECK(time && rank == 1 && (long)dims[0] == ref->rows);
  if (time && (long)dims[0] == ref->rows) MR_CHECK(same_doubles(time, ref->time, ref->rows));
  double *qpos = h5_read_all(file, "qpos", dims, &rank);
  MR_CHECK(qpos && rank == 2 && (long)dims[0] == ref->rows && (int)dims[1] == m->nq);
  if (qpos && (long)dims[0] == ref->rows) MR_CHECK(same_doubles(qpos, ref->qpos, ref->rows * m->nq));
  double *qvel = h5_read_all(file, "qvel", dims, &rank);
  MR_CHECK(qvel && rank == 2 && (long)dims[0] == ref->rows && (int)dims[1] == m->nv);
  if (qvel && (long)dims[0] == ref->rows) MR_CHECK(same_doubles(qvel, ref->qvel, ref->rows * m->nv));
  double *ctrl = h5_read_all(file, "ctrl", dims, &rank);
  MR_CHECK(ctrl && rank == 2 && (long)dims[0] == ref->rows && (int)dims[1] == m->nu);
  /* Row 0 is the initial state, so it reports no step; later rows report theirs. */
  double *iters = h5_read_all(file, "iters", dims, &rank);
  double *ncon = h5_read_all(file, "ncon", dims, &rank);
  MR_CHECK(iters && ncon && iters[0] == 0 && ncon[0] == 0);
  const char *scalars[] = {"residual", "energy", "solver_status", "nefc", "primal", "dual",
                           "complementarity", "penetration", "loop_closure"};
  for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
    double *x = h5_read_all(file, scalars[i], dims, &rank);
    MR_CHECK_MSG(x && rank == 1 && (long)dims[0] == ref->rows, "dataset %s", scalars[i]);
    free(x);
  }
  h5_check_string_attr(file, "model", m->model_name);
  h5_check_string_attr(file, "solver", mr_solver_name(mr_solver_default()));
  h5_check_string_attr(file, "integrator", "euler");
  h5_check_string_attr(file, "moreau_version", MR_VERSION_STRING);
  double timestep = 0;
  hid_t attr = H5Aopen(file, "timestep", H5P_DEFAULT);
  MR_CHECK(attr >= 0 && H5Aread(attr, H5T_NATIVE_DOUBLE, &timestep) >= 0);
  if (attr >= 0) H5Aclose(attr);
  MR_CHECK(timestep == dt);
  MR_CHECK(time && time[steps] == ref->time[steps]);
  free(time);
  free(qpos);
  free(qvel);
  free(ctrl);
  free(iters);
  free(ncon);
  H5Fclose(file);
}

/* One sample model: record both formats through the CLI and compare with a direct run. */
static void check_model(const char *model_path, long steps, int with_contacts) {
  char err[512], csv[300], h5[300], args[1024];
  mr_load_options lo = {0};
  lo.quiet = 1;
  mr_model *m = mr_model_load(model_path, &lo, err, (int)sizeof err);
  MR_REQUIRE(m != NULL);
  snprintf(csv, sizeof csv, "%s/%s.csv", tmpdir, m->model_name);
  snprintf(h5, sizeof h5, "%s/%s.h5", tmpdir, m->model_name);
  snprintf(args, sizeof args, "run '%s' --steps %ld --quiet --record '%s'", model_path, steps, csv);
  MR_CHECK_MSG(run_cli(args) == 0, "%s", args);
  snprintf(args, sizeof args, "run '%s' --steps %ld --quiet --record '%s'", model_path, steps, h5);
  MR_CHECK_MSG(run_cli(args) == 0, "%s", args);
  direct_run ref = simulate_direct(m, steps);
  check_recording_equals(csv, m, &ref, 0);
  check_recording_equals(h5, m, &ref, 1);
  check_h5_with_library(h5, m, &ref, m->opt.timestep, steps);
  if (with_contacts) {
    /* the run must have met contacts for this to test anything about them */
    hid_t file = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t dims[2];
    int rank;
    double *ncon = h5_read_all(file, "ncon", dims, &rank);
    double total = 0;
    for (hsize_t i = 0; ncon && i < dims[0]; i++) total += ncon[i];
    MR_CHECK_MSG(total > 0, "%s: no contacts recorded", model_path);
    free(ncon);
    H5Fclose(file);
  }
  direct_free(&ref);
  mr_model_free(m);
}

/* h5dump reads the file and shows every documented dataset and attribute. */
static void check_h5dump(const char *h5) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "h5dump -H '%s' 2>&1", h5);
  FILE *p = popen(cmd, "r");
  MR_REQUIRE(p != NULL);
  static char text[200000];
  size_t n = fread(text, 1, sizeof text - 1, p);
  text[n] = 0;
  int status = pclose(p);
  MR_CHECK_MSG(status == 0, "h5dump status %d: %.200s", status, text);
  const char *datasets[] = {"time", "qpos", "qvel", "ctrl", "ncon", "iters", "residual", "energy",
                            "solver_status", "nefc", "primal", "dual", "complementarity",
                            "penetration", "loop_closure"};
  const char *attributes[] = {"model", "solver", "integrator", "timestep", "moreau_version"};
  char needle[128];
  for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++) {
    snprintf(needle, sizeof needle, "DATASET \"%s\"", datasets[i]);
    MR_CHECK_MSG(strstr(text, needle) != NULL, "h5dump lacks %s", needle);
  }
  for (size_t i = 0; i < sizeof attributes / sizeof attributes[0]; i++) {
    snprintf(needle, sizeof needle, "ATTRIBUTE \"%s\"", attributes[i]);
    MR_CHECK_MSG(strstr(text, needle) != NULL, "h5dump lacks %s", needle);
  }
  MR_CHECK(strstr(text, "H5S_UNLIMITED") != NULL); /* extendible, so memory stays flat */
}

/* A recording of the five balls read for the pendulum: one line naming the sizes. */
static void check_mismatch(void) {
  char err[512], path[300];
  mr_load_options lo = {0};
  lo.quiet = 1;
  mr_model *m = mr_model_load(MOREAU_SOURCE_DIR "/models/pendulum.xml", &lo, err, (int)sizeof err);
  MR_REQUIRE(m != NULL);
  const char *ext[] = {"csv", "h5"};
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/five_balls.%s", tmpdir, ext[i]);
    mr_recording rec;
    err[0] = 0;
    MR_CHECK(mr_recording_load(path, m, &rec, err, (int)sizeof err) == -1);
    MR_CHECK_MSG(strstr(err, path) && strstr(err, "nq") && !strchr(err, '\n'), "err: %s", err);
    MR_CHECK(rec.nrows == 0 && rec.qpos == NULL);
  }
  mr_recording rec;
  MR_CHECK(mr_recording_load("/nonexistent/x.h5", m, &rec, err, (int)sizeof err) == -1);
  MR_CHECK(strstr(err, "/nonexistent/x.h5") != NULL);
  mr_model_free(m);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_record_h5");
  MR_REQUIRE(access(MOREAU_BIN, X_OK) == 0);
  check_model(MOREAU_SOURCE_DIR "/models/five_balls.xml", 600, 1);
  check_model(MOREAU_SOURCE_DIR "/models/fourbar.xml", 300, 0);
  char h5[300];
  snprintf(h5, sizeof h5, "%s/five_balls.h5", tmpdir);
  check_h5dump(h5);
  check_mismatch();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
