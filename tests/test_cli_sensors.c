/* Sensors reach the user (issue 19): `info` lists them (nsensor in --json), `run --record`
 * writes them (CSV columns sensor_NAME[_i] after the existing ones, an HDF5 /sensordata
 * whose attributes name the columns), a row's position and velocity sensors describe that
 * row's state, the batch summary and `run` report final and largest values
 * (--summary-sensors), and bad names are one line and exit 2. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau.h"
#include "mr_cli.h"
#include "mr_test.h"

#define CONTACTS MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_contact_sensors.xml"
#define ROBOT MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_sensors.xml"

static char tmpdir[256];

static cli_result run(const char *args) { return mr_cli_run(tmpdir, "", args); }

/* The CSV file as rows of fields (header first); the caller frees with free_csv. */
typedef struct csv {
  int rows, cols;
  char **cell; /* rows x cols */
  char *text;
} csv;

static csv read_csv(const char *path) {
  csv c = {0};
  c.text = mr_test_read_file(path);
  MR_REQUIRE(c.text);
  for (char *p = c.text; *p; p++) c.rows += *p == '\n';
  char *line = c.text;
  c.cols = 1;
  for (char *p = line; *p && *p != '\n'; p++) c.cols += *p == ',';
  c.cell = calloc((size_t)c.rows * c.cols, sizeof *c.cell);
  MR_REQUIRE(c.cell);
  for (int r = 0; r < c.rows; r++) {
    char *end = strchr(line, '\n');
    *end = 0;
    /* fields may be empty: split by hand (no quotes in these files) */
    char *f = line;
    for (int k = 0; k < c.cols && f; k++) {
      char *comma = strchr(f, ',');
      if (comma) *comma = 0;
      c.cell[r * c.cols + k] = f;
      f = comma ? comma + 1 : NULL;
    }
    line = end + 1;
  }
  return c;
}

static void free_csv(csv *c) {
  free(c->cell);
  free(c->text);
}

static int csv_col(const csv *c, const char *name) {
  for (int k = 0; k < c->cols; k++)
    if (c->cell[k] && strcmp(c->cell[k], name) == 0) return k;
  return -1;
}

static double csv_num(const csv *c, int row, int col) { return strtod(c->cell[row * c->cols + col], NULL); }

static void test_info(void) {
  cli_result r = run("info '" CONTACTS "' --json");
  MR_CHECK(r.status == 0);
  MR_CHECK(strstr(r.out, "\"nsensor\": 15") != NULL);
  MR_CHECK(strstr(r.out, "\"nsensordata\": 29") != NULL);
  MR_CHECK(strstr(r.out, "\"name\": \"touch_corner\"") && strstr(r.out, "\"type\": \"jointlimitfrc\""));
  cli_free(&r);
  r = run("info '" CONTACTS "'");
  MR_CHECK(r.status == 0 && strstr(r.out, "nsensor 15") && strstr(r.out, "limfrc_slider"));
  cli_free(&r);
}

/* CSV and HDF5 of the same run: the columns, the values, and a row's own state. */
static void test_record(void) {
  char args[1024], path_csv[512], path_h5[512];
  snprintf(path_csv, sizeof path_csv, "%s/robot.csv", tmpdir);
  snprintf(path_h5, sizeof path_h5, "%s/robot.h5", tmpdir);
  snprintf(args, sizeof args, "run '%s' --steps 200 --record '%s' --quiet", ROBOT, path_csv);
  cli_result r = run(args);
  MR_CHECK_MSG(r.status == 0, "%s", r.err);
  cli_free(&r);
  snprintf(args, sizeof args, "run '%s' --steps 200 --record '%s' --quiet", ROBOT, path_h5);
  r = run(args);
  MR_CHECK_MSG(r.status == 0, "%s", r.err);
  cli_free(&r);

  char err[512];
  mr_model *m = mr_model_load(ROBOT, NULL, err, sizeof err);
  MR_REQUIRE(m);
  csv c = read_csv(path_csv);
  int energy = csv_col(&c, "energy"), last = csv_col(&c, "natural_map"); /* the solver columns end */
  MR_CHECK(energy == 1 + m->nq + m->nv + 3 && last == energy + 2);
  MR_CHECK_MSG(c.cols == last + 1 + m->nsensordata, "%d columns for %d sensor numbers", c.cols, m->nsensordata);
  MR_CHECK(c.rows == 202);
  /* names: scalars plain, vectors with their index */
  MR_CHECK(csv_col(&c, "sensor_q_shoulder") == last + 1 + m->sensor_adr[mr_name2id(m, MR_OBJ_SENSOR, "q_shoulder")]);
  MR_CHECK(csv_col(&c, "sensor_wrist_quat_3") > energy);
  MR_CHECK(csv_col(&c, "sensor_wrist_quat") < 0);
  /* position and velocity sensors are those of the row's own state */
  int q = csv_col(&c, "sensor_q_shoulder"), qd = csv_col(&c, "sensor_qd_shoulder"), clock = csv_col(&c, "sensor_clock");
  int shoulder = mr_name2id(m, MR_OBJ_JOINT, "shoulder");
  char qname[32], vname[32];
  snprintf(qname, sizeof qname, "qpos_%d", m->jnt_qposadr[shoulder]);
  snprintf(vname, sizeof vname, "qvel_%d", m->jnt_dofadr[shoulder]);
  int qp = csv_col(&c, qname), qv = csv_col(&c, vname), time = csv_col(&c, "time");
  int mismatch = 0;
  for (int row = 1; row < c.rows; row++)
    mismatch += csv_num(&c, row, q) != csv_num(&c, row, qp) || csv_num(&c, row, qd) != csv_num(&c, row, qv) ||
                csv_num(&c, row, clock) != csv_num(&c, row, time);
  MR_CHECK_MSG(mismatch == 0, "%d rows whose sensors are not their state's", mismatch);

  /* HDF5: /sensordata equals the CSV's columns; its attributes name them */
  hid_t file = H5Fopen(path_h5, H5F_ACC_RDONLY, H5P_DEFAULT);
  MR_REQUIRE(file >= 0);
  hid_t dset = H5Dopen2(file, "sensordata", H5P_DEFAULT);
  MR_REQUIRE(dset >= 0);
  hid_t space = H5Dget_space(dset);
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, NULL);
  MR_CHECK(dims[0] == 201 && (int)dims[1] == m->nsensordata);
  double *x = calloc((size_t)(dims[0] * dims[1]) + 1, sizeof *x);
  H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
  int differ = 0;
  for (hsize_t row = 0; row < dims[0]; row++)
    for (hsize_t k = 0; k < dims[1]; k++) differ += x[row * dims[1] + k] != csv_num(&c, (int)row + 1, last + 1 + (int)k);
  MR_CHECK_MSG(differ == 0, "%d HDF5 sensor values differ from the CSV's", differ);
  hid_t attr = H5Aopen(dset, "columns", H5P_DEFAULT);
  MR_REQUIRE(attr >= 0);
  hid_t type = H5Aget_type(attr);
  size_t width = H5Tget_size(type);
  char *names = calloc(dims[1] + 1, width);
  H5Aread(attr, type, names);
  int named = 0;
  for (hsize_t k = 0; k < dims[1]; k++) named += strcmp(names + k * width, c.cell[last + 1 + k]) == 0;
  MR_CHECK_MSG(named == (int)dims[1], "%d of %d HDF5 column names match the CSV header", named, (int)dims[1]);
  free(names);
  free(x);
  H5Tclose(type);
  H5Aclose(attr);
  H5Sclose(space);
  H5Dclose(dset);
  H5Fclose(file);
  free_csv(&c);
  mr_model_free(m);
}

static void test_summaries(void) {
  cli_result r = run("run '" CONTACTS "' --steps 400 --summary-sensors touch_bottom,force_bob --json --quiet");
  MR_CHECK_MSG(r.status == 0, "%s", r.err);
  const char *touch = strstr(r.out, "\"touch_bottom\"");
  MR_CHECK(touch != NULL);
  double final = touch ? strtod(strstr(touch, "[") + 1, NULL) : 0;
  /* the resting block's weight, to what the solver's tolerance allows: each of its four
   * contacts' impulses within 1e-8 of the NCP's answer, read as force over dt = 2 ms (the
   * last step's sum moves by up to 1e-5 N from run to run under round-off) */
  MR_CHECK_NEAR(final, 2 * 9.81, 4 * 1e-8 / 0.002);
  cli_free(&r);

  char jobs[512], out[512], args[2048];
  snprintf(jobs, sizeof jobs, "%s/jobs.csv", tmpdir);
  snprintf(out, sizeof out, "%s/batch", tmpdir);
  FILE *f = fopen(jobs, "w");
  MR_REQUIRE(f);
  fprintf(f, "model,solver,steps\n%s,pgs,300\n%s,sap,300\n%s,pgs,10\n", CONTACTS, CONTACTS, ROBOT);
  fclose(f);
  snprintf(args, sizeof args, "batch '%s' --out '%s' --summary-sensors touch_bottom,limfrc_hinge --quiet", jobs, out);
  r = run(args);
  MR_CHECK(r.status == 1); /* the robot has no touch_bottom: its row is an error */
  cli_free(&r);
  char summary[600];
  snprintf(summary, sizeof summary, "%s/summary.csv", out);
  csv c = read_csv(summary);
  int fin = csv_col(&c, "sensor_touch_bottom_final"), max = csv_col(&c, "sensor_touch_bottom_max");
  int lim = csv_col(&c, "sensor_limfrc_hinge_max"), status = csv_col(&c, "status");
  MR_CHECK(fin > 0 && max > 0 && lim > 0 && c.rows == 4);
  if (fin > 0 && max > 0 && lim > 0 && c.rows == 4) {
    for (int row = 1; row <= 2; row++) {
      MR_CHECK_NEAR(csv_num(&c, row, fin), 2 * 9.81, 1e-5);
      MR_CHECK(csv_num(&c, row, max) >= csv_num(&c, row, fin));
      MR_CHECK(csv_num(&c, row, lim) > 0);
    }
    MR_CHECK(strcmp(c.cell[3 * c.cols + status], "error") == 0);
  }
  free_csv(&c);
}

static void test_bad_names(void) {
  cli_result r = run("run '" CONTACTS "' --steps 5 --summary-sensors touch_bottom,nosuch");
  MR_CHECK(r.status == 2 && count_char(r.err, '\n') == 1 && strstr(r.err, "'nosuch'"));
  cli_free(&r);
  r = run("run '" CONTACTS "' --steps 5 --summary-sensors a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q");
  MR_CHECK(r.status == 2 && count_char(r.err, '\n') == 1 && strstr(r.err, "at most 16"));
  cli_free(&r);
  r = run("run '" CONTACTS "' --steps 5 --summary-sensors touch_bottom,,force_bob");
  MR_CHECK(r.status == 2 && strstr(r.err, "empty name"));
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_cli_sensors");
  test_info();
  test_record();
  test_summaries();
  test_bad_names();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
