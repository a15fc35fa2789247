/* Controls and initial states for headless runs (ctrl_schedule.h, simulate.h):
 * - --ctrl drives a motor on a hinge in zero gravity exactly as semi-implicit Euler predicts
 *   from the interpolated schedule, and /ctrl records the controls applied;
 * - --init continues a recording: N steps, then M more from its last row, equal N + M steps;
 * - --seed perturbs the initial state reproducibly (same seed: identical files);
 * - bad control files and mismatched --init recordings: exit 2 and one line FILE:LINE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"
#include "engine/record/recording.h"

#define PENDULUM MOREAU_SOURCE_DIR "/models/pendulum.xml"

static char tmpdir[256];
static char motor_xml[300];

/* Runs the CLI; stderr lands in tmpdir/stderr, stdout in tmpdir/stdout. */
static int run_cli(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s >'%s/stdout' 2>'%s/stderr'", MOREAU_BIN, args, tmpdir, tmpdir);
  int raw = system(cmd);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

static char *last_stream(const char *name) {
  char path[300];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  char *text = mr_test_read_file(path);
  return text ? text : calloc(1, 1);
}


static int load_recording(const char *path, const mr_model *m, mr_recording *rec) {
  char err[512];
  int rc = mr_recording_load(path, m, rec, err, (int)sizeof err);
  MR_CHECK_MSG(rc == 0, "%s: %s", path, err);
  return rc;
}

/* The schedule of the ctrl file below: 0 -> 1 over [0, 0.1], held to 0.2, -> -2 at 0.3, held. */
static double schedule(double t) {
  if (t <= 0) return 0;
  if (t <= 0.1) return t / 0.1;
  if (t <= 0.2) return 1;
  if (t <= 0.3) return 1 + (t - 0.2) / 0.1 * (-3);
  return -2;
}

static void test_ctrl_drives_motor(void) {
  char ctrl[300], h5[300], args[1024];
  snprintf(ctrl, sizeof ctrl, "%s/ramp.csv", tmpdir);
  snprintf(h5, sizeof h5, "%s/motor.h5", tmpdir);
  /* columns in any order, spaces and CRLF tolerated */
  mr_test_write_file(ctrl, "spin, time\r\n0,0\r\n1,0.1\r\n1,0.2\r\n-2,0.3\r\n");
  snprintf(args, sizeof args, "run '%s' --steps 400 --quiet --ctrl '%s' --record '%s'", motor_xml,
           ctrl, h5);
  int status = run_cli(args);
  char *err = last_stream("stderr");
  MR_CHECK_MSG(status == 0, "status %d: %s", status, err);
  free(err);
  mr_model *m = mr_test_load(motor_xml, NULL);
  if (!m) return;
  mr_data *d = mr_data_create(m);
  mr_data_reset(m, d);
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  double inertia = d->qM[0], gear = 2, dt = m->opt.timestep;
  /* a 2 kg box of half sizes 0.2 x 0.1 about its z axis: m (a^2 + b^2) / 3 */
  MR_CHECK_NEAR(inertia, 2 * (0.04 + 0.01) / 3, 1e-12);
  mr_recording rec;
  if (load_recording(h5, m, &rec) == 0) {
    MR_CHECK(rec.nrows == 401 && rec.ctrl != NULL && rec.nu == 1);
    double v = 0, q = 0, max_ctrl_err = 0, max_v_err = 0, max_q_err = 0;
    for (long k = 0; k < rec.nrows && rec.ctrl; k++) {
      double u = schedule(rec.time[k]);
      max_ctrl_err = fmax(max_ctrl_err, fabs(rec.ctrl[k] - u));
      max_v_err = fmax(max_v_err, fabs(rec.qvel[k] - v));
      max_q_err = fmax(max_q_err, fabs(rec.qpos[k] - q));
      v += dt * gear * u / inertia; /* semi-implicit Euler: velocity first */
      q += dt * v;
    }
    MR_CHECK_MSG(max_ctrl_err < 1e-12, "ctrl off the schedule by %g", max_ctrl_err);
    MR_CHECK_MSG(max_v_err < 1e-10, "qvel off the prediction by %g", max_v_err);
    MR_CHECK_MSG(max_q_err < 1e-10, "qpos off the prediction by %g", max_q_err);
    /* spot values: halfway up the ramp, and the final hold */
    MR_CHECK_NEAR(rec.ctrl[50], 0.5, 1e-9);
    MR_CHECK_NEAR(rec.ctrl[400], -2, 1e-15);
    mr_recording_free(&rec);
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* The last row of one recording against another's. */
static void check_same_last_row(const char *a_path, const char *b_path, const mr_model *m, double tol) {
  mr_recording a, b;
  if (load_recording(a_path, m, &a)) return;
  if (load_recording(b_path, m, &b) == 0) {
    long i = a.nrows - 1, j = b.nrows - 1;
    MR_CHECK_NEAR(a.time[i], b.time[j], 1e-12);
    for (int k = 0; k < m->nq; k++) MR_CHECK_NEAR(a.qpos[i * m->nq + k], b.qpos[j * m->nq + k], tol);
    for (int k = 0; k < m->nv; k++) MR_CHECK_NEAR(a.qvel[i * m->nv + k], b.qvel[j * m->nv + k], tol);
    mr_recording_free(&b);
  }
  mr_recording_free(&a);
}

static void test_init_continues(void) {
  const char *ext[] = {"csv", "h5"};
  mr_model *m = mr_test_load(PENDULUM, NULL);
  if (!m) return;
  char full[300], args[1024];
  snprintf(full, sizeof full, "%s/full.csv", tmpdir);
  snprintf(args, sizeof args, "run '%s' --keyframe released --steps 300 --quiet --record '%s'",
           PENDULUM, full);
  MR_CHECK(run_cli(args) == 0);
  for (int i = 0; i < 2; i++) {
    char first[300], rest[300];
    snprintf(first, sizeof first, "%s/first.%s", tmpdir, ext[i]);
    snprintf(rest, sizeof rest, "%s/rest.%s", tmpdir, ext[i]);
    snprintf(args, sizeof args, "run '%s' --keyframe released --steps 120 --quiet --record '%s'",
             PENDULUM, first);
    MR_CHECK(run_cli(args) == 0);
    snprintf(args, sizeof args, "run '%s' --init '%s' --steps 180 --quiet --record '%s'", PENDULUM,
             first, rest);
    int status = run_cli(args);
    char *err = last_stream("stderr");
    MR_CHECK_MSG(status == 0, "status %d: %s", status, err);
    free(err);
    /* the continued run starts on the last row, clock included, and ends where 300 steps do */
    mr_recording a, b;
    if (load_recording(first, m, &a) == 0 && load_recording(rest, m, &b) == 0) {
      MR_CHECK(b.time[0] == a.time[a.nrows - 1] && b.qpos[0] == a.qpos[a.nrows - 1]);
      MR_CHECK(b.qvel[0] == a.qvel[a.nrows - 1] && b.nrows == 181);
      mr_recording_free(&b);
    }
    mr_recording_free(&a);
    check_same_last_row(rest, full, m, 1e-12);
  }
  mr_model_free(m);
}

static void test_seed(void) {
  char a[300], b[300], c[300], args[1024];
  const char *paths[3] = {a, b, c};
  long seeds[3] = {42, 42, 43};
  snprintf(a, sizeof a, "%s/seed_a.csv", tmpdir);
  snprintf(b, sizeof b, "%s/seed_b.csv", tmpdir);
  snprintf(c, sizeof c, "%s/seed_c.csv", tmpdir);
  for (int i = 0; i < 3; i++) {
    snprintf(args, sizeof args, "run '%s' --steps 50 --seed %ld --quiet --record '%s'", PENDULUM,
             seeds[i], paths[i]);
    MR_CHECK(run_cli(args) == 0);
  }
  char *ta = mr_test_read_file(a), *tb = mr_test_read_file(b), *tc = mr_test_read_file(c);
  MR_CHECK(ta && tb && tc);
  if (ta && tb && tc) {
    MR_CHECK_MSG(strcmp(ta, tb) == 0, "same seed, different runs");
    MR_CHECK_MSG(strcmp(ta, tc) != 0, "different seeds, same run");
  }
  free(ta);
  free(tb);
  free(tc);
  mr_model *m = mr_test_load(PENDULUM, NULL);
  mr_recording rec;
  if (m && load_recording(a, m, &rec) == 0) {
    /* pendulum: qpos0 = 0 and at rest; the seed moves both by at most 1e-3 */
    MR_CHECK(rec.qpos[0] != 0 && fabs(rec.qpos[0]) <= 1e-3);
    MR_CHECK(rec.qvel[0] != 0 && fabs(rec.qvel[0]) <= 1e-3);
    mr_recording_free(&rec);
  }
  mr_model_free(m);
}

/* exit 2, nothing on stdout, one line on stderr naming the place. */
static void expect_bad(const char *args, const char *must_contain) {
  int status = run_cli(args);
  char *out = last_stream("stdout"), *err = last_stream("stderr");
  int lines = 0;
  for (const char *p = err; *p; p++) lines += *p == '\n';
  MR_CHECK_MSG(status == 2, "'%s': status %d", args, status);
  MR_CHECK_MSG(lines == 1 && strncmp(err, "moreau: ", 8) == 0, "'%s': stderr \"%s\"", args, err);
  MR_CHECK_MSG(strstr(err, must_contain) != NULL, "'%s': stderr \"%s\" lacks \"%s\"", args, err,
               must_contain);
  MR_CHECK_MSG(out[0] == 0, "'%s': stdout \"%s\"", args, out);
  free(out);
  free(err);
}

static void test_bad_ctrl_files(void) {
  static const struct { const char *text, *where; } cases[] = {
      {"time,nosuch\n0,1\n", "bad.csv:1: column 2: no actuator named 'nosuch'"},
      {"spin\n1\n", "bad.csv:1: no 'time' column"},
      {"time,spin\n0,0\n0.2,1\n0.1,2\n", "bad.csv:4: time"},
      {"time,spin\n0,abc\n", "bad.csv:2:"},
      {"time,spin\n0,1,2\n", "bad.csv:2:"},
      {"time,spin\n", "bad.csv:2: no rows"},
      {"", "bad.csv:1: empty"},
  };
  char bad[300], args[1024];
  snprintf(bad, sizeof bad, "%s/bad.csv", tmpdir);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mr_test_write_file(bad, cases[i].text);
    snprintf(args, sizeof args, "run '%s' --steps 10 --ctrl '%s'", motor_xml, bad);
    expect_bad(args, cases[i].where);
  }
  snprintf(args, sizeof args, "run '%s' --steps 10 --ctrl '%s/none.csv'", motor_xml, tmpdir);
  expect_bad(args, "none.csv");
  /* a pendulum recording does not fit the humanoid */
  snprintf(args, sizeof args, "run '%s/humanoid/humanoid.xml' --steps 10 --init '%s/full.csv'",
           MUJOCO_MODEL_DIR, tmpdir);
  expect_bad(args, "full.csv:1: the recording has nq 1");
  snprintf(args, sizeof args, "run '%s' --steps 10 --init '%s/none.h5'", PENDULUM, tmpdir);
  expect_bad(args, "none.h5");
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_ctrl_init");
  MR_REQUIRE(access(MOREAU_BIN, X_OK) == 0);
  snprintf(motor_xml, sizeof motor_xml, "%s/motor.xml", tmpdir);
  mr_test_write_file(motor_xml,
             "<mujoco model=\"motor\">\n"
             "  <option timestep=\"0.001\" gravity=\"0 0 0\"/>\n"
             "  <worldbody>\n"
             "    <body>\n"
             "      <joint name=\"hinge\" type=\"hinge\" axis=\"0 0 1\"/>\n"
             "      <geom type=\"box\" size=\"0.2 0.1 0.05\" mass=\"2\"/>\n"
             "    </body>\n"
             "  </worldbody>\n"
             "  <actuator><motor name=\"spin\" joint=\"hinge\" gear=\"2\"/></actuator>\n"
             "</mujoco>\n");
  test_ctrl_drives_motor();
  test_init_continues();
  test_seed();
  test_bad_ctrl_files();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
