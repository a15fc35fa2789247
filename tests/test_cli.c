/* End-to-end tests of the moreau command (DESIGN.md sec. 5): runs the built binary through
 * the shell and checks its output, files and exit statuses. Counts are MuJoCo's for the
 * same file (mj_loadXML on humanoid.xml: nq 28, nv 27, nu 21, nbody 17, njnt 22, ngeom 20,
 * total mass 40.84402122162134, timestep 0.005). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"

static char tmpdir[256];

/* Runs "[prefix] BIN args" with stdout and stderr captured in files. */
static cli_result cli_run_prefixed(const char *prefix, const char *args) {
  return mr_cli_run(tmpdir, prefix, args);
}

static cli_result cli_run(const char *args) { return cli_run_prefixed("", args); }

/* The number after "key": in a JSON text; NAN if absent. */
static double json_number(const char *json, const char *key) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = strstr(json, pattern);
  if (!p) return NAN;
  p += strlen(pattern);
  char *end;
  double v = strtod(p, &end);
  return end == p ? NAN : v;
}

/* 1 if "key": is followed by the literal word (true, false, null). */
static int json_is(const char *json, const char *key, const char *word) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *p = strstr(json, pattern);
  if (!p) return 0;
  p += strlen(pattern);
  while (*p == ' ') p++;
  return strncmp(p, word, strlen(word)) == 0;
}

/* One line on stderr, starting "moreau: ". */
static int is_one_error_line(const char *err) {
  return strncmp(err, "moreau: ", 8) == 0 && count_char(err, '\n') == 1 &&
         err[strlen(err) - 1] == '\n';
}

static void test_binary_exists(void) {
  MR_REQUIRE(access(MOREAU_BIN, X_OK) == 0);
  MR_REQUIRE(access(HUMANOID, R_OK) == 0);
}

static void test_info_json(void) {
  cli_result r = cli_run("info '" HUMANOID "' --json");
  MR_CHECK_MSG(r.status == 0, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK(json_number(r.out, "nq") == 28);
  MR_CHECK(json_number(r.out, "nv") == 27);
  MR_CHECK(json_number(r.out, "nu") == 21);
  MR_CHECK(json_number(r.out, "nbody") == 17);
  MR_CHECK(json_number(r.out, "njnt") == 22);
  MR_CHECK(json_number(r.out, "ngeom") == 20);
  MR_CHECK(json_number(r.out, "neq") == 0);
  MR_CHECK(json_number(r.out, "nkey") == 0);
  MR_CHECK_NEAR(json_number(r.out, "mass"), 40.84402122162134, 1e-9);
  MR_CHECK_NEAR(json_number(r.out, "timestep"), 0.005, 1e-15);
  MR_CHECK(strstr(r.out, "\"torso\"") != NULL);
  MR_CHECK(r.out[0] == '{' && count_char(r.out, '{') == count_char(r.out, '}'));
  cli_free(&r);
}

static void test_info_text(void) {
  cli_result r = cli_run("info '" HUMANOID "'");
  MR_CHECK(r.status == 0);
  MR_CHECK(strstr(r.out, "humanoid") != NULL);
  MR_CHECK(strstr(r.out, "nq 28") != NULL);
  MR_CHECK(strstr(r.out, "torso") != NULL);
  cli_free(&r);
}

static void test_run_json(void) {
  cli_result r = cli_run("run '" HUMANOID "' --steps 100 --no-contact --json --quiet");
  MR_CHECK_MSG(r.status == 0, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK(json_number(r.out, "steps") == 100);
  MR_CHECK(json_is(r.out, "diverged", "false"));
  MR_CHECK(json_number(r.out, "nq") == 28);
  MR_CHECK(json_number(r.out, "nv") == 27);
  MR_CHECK_NEAR(json_number(r.out, "final_time"), 0.5, 1e-12);
  MR_CHECK_NEAR(json_number(r.out, "sim_time"), 0.5, 1e-12);
  const char *keys[] = {"wall_s", "steps_per_s", "mean_iters", "max_residual", "mean_contacts",
                        "energy_start", "energy_end", "dt"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    MR_CHECK_MSG(!isnan(json_number(r.out, keys[i])), "key %s", keys[i]);
  MR_CHECK(strstr(r.out, "\"solver\":") && strstr(r.out, "\"integrator\": \"euler\""));
  MR_CHECK(count_char(r.out, '{') == 1 && r.out[0] == '{');
  cli_free(&r);

  /* With contact: the landing's missed warm paths go to pgs first (newton.c), whose sweeps
   * the iterations count and mean_pgs_sweeps counts apart. */
  r = cli_run("run '" HUMANOID "' --steps 300 --json --quiet");
  MR_CHECK_MSG(r.status == 0, "status %d, stderr: %s", r.status, r.err);
  double iters = json_number(r.out, "mean_iters"), sweeps = json_number(r.out, "mean_pgs_sweeps");
  MR_CHECK_MSG(sweeps > 0 && sweeps < iters, "mean_iters %g, mean_pgs_sweeps %g", iters, sweeps);
  cli_free(&r);

  /* Neither --steps nor --duration: 1 s of simulated time. */
  r = cli_run("run '" HUMANOID "' --no-contact --json --quiet");
  MR_CHECK(r.status == 0);
  MR_CHECK(json_number(r.out, "steps") == 200);
  cli_free(&r);

  r = cli_run("run '" HUMANOID "' --steps 10 --dt 0.001 --integrator midpoint --no-constraints --json");
  MR_CHECK_MSG(r.status == 0, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK_NEAR(json_number(r.out, "final_time"), 0.01, 1e-12);
  MR_CHECK(strstr(r.out, "\"integrator\": \"midpoint\"") != NULL);
  cli_free(&r);
}

/* Checks a trajectory CSV: the header, 1 + steps / every rows of full width, row times. */
static void check_trajectory(const char *path, int nq, int nv, int steps, int every, double dt) {
  char *text = mr_test_read_file(path);
  MR_CHECK_MSG(text != NULL, "no file %s", path);
  if (!text) return;
  int columns = nq + nv + 7; /* time, qpos, qvel, ncon, iters, residual, energy, status, natural_map */
  char *save = NULL;
  char *line = strtok_r(text, "\n", &save);
  MR_CHECK(line && strncmp(line, "time,qpos_0,", 12) == 0);
  MR_CHECK(line && count_char(line, ',') == columns - 1);
  MR_CHECK(line && strstr(line, ",ncon,iters,residual,energy,status,natural_map") != NULL);
  int rows = 0, full_width = 1;
  double first_time = NAN, last_time = NAN;
  while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
    if (rows == 0) first_time = strtod(line, NULL);
    last_time = strtod(line, NULL);
    full_width &= count_char(line, ',') == columns - 1;
    rows++;
  }
  MR_CHECK_MSG(rows == 1 + steps / every, "%d rows", rows);
  MR_CHECK(full_width);
  MR_CHECK(first_time == 0);
  MR_CHECK_NEAR(last_time, steps * dt, 1e-12);
  free(text);
}

static void test_record(void) {
  char csv[300], part[310], args[1024];
  snprintf(csv, sizeof csv, "%s/traj.csv", tmpdir);
  snprintf(part, sizeof part, "%s.part", csv);
  snprintf(args, sizeof args, "run '%s' --steps 100 --no-contact --quiet --record '%s'", HUMANOID, csv);
  cli_result r = cli_run(args);
  MR_CHECK_MSG(r.status == 0, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK(!file_exists(part));
  check_trajectory(csv, 28, 27, 100, 1, 0.005);
  cli_free(&r);
  remove(csv);

  snprintf(args, sizeof args, "run '%s' --steps 100 --no-contact --quiet --record '%s' --record-every 10",
           HUMANOID, csv);
  r = cli_run(args);
  MR_CHECK(r.status == 0);
  check_trajectory(csv, 28, 27, 100, 10, 0.005);
  cli_free(&r);
  remove(csv);
}

static void expect_bad_input(const char *args, const char *must_contain) {
  cli_result r = cli_run(args);
  MR_CHECK_MSG(r.status == 2, "'%s': status %d", args, r.status);
  MR_CHECK_MSG(is_one_error_line(r.err), "'%s': stderr \"%s\"", args, r.err);
  MR_CHECK_MSG(!must_contain || strstr(r.err, must_contain), "'%s': stderr \"%s\" lacks \"%s\"", args,
               r.err, must_contain);
  MR_CHECK_MSG(r.out[0] == 0, "'%s': stdout \"%s\"", args, r.out);
  cli_free(&r);
}

static void test_bad_input(void) {
  expect_bad_input("run '" HUMANOID "' --bogus", "--bogus");
  expect_bad_input("run '" HUMANOID "' --steps", "--steps");
  expect_bad_input("run '" HUMANOID "' --steps abc", "abc");
  expect_bad_input("run '" HUMANOID "' --steps -3", "-3");
  expect_bad_input("run '" HUMANOID "' --dt 0", "--dt");
  expect_bad_input("run '" HUMANOID "' --dt nan", "--dt");
  expect_bad_input("run '" HUMANOID "' --integrator rk4", "rk4");
  expect_bad_input("run '" HUMANOID "' --solver nosuch", "unknown solver 'nosuch'");
  expect_bad_input("run '" HUMANOID "' --record-every 0", "--record-every");
  expect_bad_input("run '" HUMANOID "' --record /tmp/x.txt", "x.txt");
  expect_bad_input("run '" HUMANOID "' --keyframe 3", "keyframe");
  expect_bad_input("run '" HUMANOID "' --steps 1 --duration 1", "--duration");
  expect_bad_input("info '" HUMANOID "' --steps 10", "--steps");
  expect_bad_input("run", "usage: ");
  expect_bad_input("", "usage: ");
  expect_bad_input("frobnicate", "frobnicate");
#ifdef MOREAU_TEST_HAVE_VIEWER
  expect_bad_input("view '" HUMANOID "' --frames 0", "--frames");
  expect_bad_input("view /nonexistent/dir/robot.xml --frames 1", "moreau: /nonexistent/dir/robot.xml");
#else
  expect_bad_input("view '" HUMANOID "'", "no viewer");
#endif
  expect_bad_input("batch /nonexistent/dir/jobs.csv", "/nonexistent/dir/jobs.csv");
  expect_bad_input("run /nonexistent/dir/robot.xml", "moreau: /nonexistent/dir/robot.xml");
  expect_bad_input("info /nonexistent/dir/robot.xml --json", "moreau: /nonexistent/dir/robot.xml");
}

/* Whether `moreau solvers`' line of the named solver holds text. */
static int solver_line_has(const char *out, const char *solver, const char *text) {
  char key[32];
  snprintf(key, sizeof key, "\n%s ", solver);
  const char *line = strstr(out, key), *end = line ? strchr(line + 1, '\n') : NULL;
  const char *at = line ? strstr(line, text) : NULL;
  return at && end && at < end;
}

static void test_help_version_solvers(void) {
  cli_result r = cli_run("--help");
  MR_CHECK(r.status == 0);
  const char *commands[] = {"moreau info", "moreau run", "moreau view", "moreau batch", "moreau solvers"};
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    MR_CHECK_MSG(strstr(r.out, commands[i]) != NULL, "usage lacks %s", commands[i]);
  cli_free(&r);
  r = cli_run("help");
  MR_CHECK(r.status == 0 && strstr(r.out, "--record-every"));
  cli_free(&r);
  r = cli_run("--version");
  MR_CHECK(r.status == 0 && strncmp(r.out, "moreau ", 7) == 0);
  cli_free(&r);
  r = cli_run("solvers");
  MR_CHECK(r.status == 0);
  /* one line per registered solver: name, hotkey, description; the default marked */
  const char *solvers[] = {"pgs", "lcp", "ccp", "admm", "raisim", "implicit", "sap", "soft",
                           "stagproj"};
  for (size_t i = 0; i < sizeof solvers / sizeof solvers[0]; i++)
    MR_CHECK_MSG(strstr(r.out, solvers[i]) != NULL, "solvers lacks %s", solvers[i]);
  MR_CHECK(strstr(r.out, "(default)") != NULL);
  /* each solver's own iteration cap: a Newton iteration is a factorization, the others' a
   * sweep (registry.c) */
  MR_CHECK(strstr(r.out, "max-iter") != NULL);
  MR_CHECK(solver_line_has(r.out, "newton", " 500 "));
  MR_CHECK(solver_line_has(r.out, "pgs", " 100 "));
  cli_free(&r);
}

/* A stiff spring stepped far past the explicit stability limit (dt * sqrt(k / I) = 10):
 * the state grows by orders of magnitude per step until it is no longer finite. */
static void test_divergence(void) {
  char xml[300], csv[300], args[1024];
  snprintf(xml, sizeof xml, "%s/unstable.xml", tmpdir);
  snprintf(csv, sizeof csv, "%s/unstable.csv", tmpdir);
  FILE *f = fopen(xml, "w");
  MR_REQUIRE(f != NULL);
  fputs("<mujoco model=\"unstable\">\n"
        "  <option timestep=\"0.01\"/>\n"
        "  <worldbody>\n"
        "    <body>\n"
        "      <joint name=\"hinge\" type=\"hinge\" axis=\"0 1 0\" stiffness=\"1e6\"/>\n"
        "      <geom type=\"sphere\" size=\"0.1\" mass=\"1\" pos=\"1 0 0\"/>\n"
        "    </body>\n"
        "  </worldbody>\n"
        "</mujoco>\n",
        f);
  fclose(f);
  snprintf(args, sizeof args, "run '%s' --steps 100000 --json --record '%s'", xml, csv);
  cli_result r = cli_run(args);
  MR_CHECK_MSG(r.status == 1, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK_MSG(strstr(r.err, "diverged at step") && strstr(r.err, "non-finite"), "stderr: %s", r.err);
  MR_CHECK(json_is(r.out, "diverged", "true"));
  double steps = json_number(r.out, "steps");
  MR_CHECK(steps >= 0 && steps < 100000);
  char *text = mr_test_read_file(csv); /* the rows before the failure are kept, under the final name */
  MR_CHECK(text != NULL);
  if (text) MR_CHECK(count_char(text, '\n') == 2 + (int)steps);
  /* energy may overflow to inf in the last rows; the state itself must be finite */
  if (text) MR_CHECK(strstr(text, "nan") == NULL);
  free(text);
  cli_free(&r);
}

/* SIGTERM mid-run: the step finishes, the file is completed and the summary printed. */
static void test_interrupt(void) {
  char csv[300], part[310], args[1024];
  snprintf(csv, sizeof csv, "%s/long.csv", tmpdir);
  snprintf(part, sizeof part, "%s.part", csv);
  snprintf(args, sizeof args,
           "run '%s' --no-contact --duration 1e6 --record '%s' --record-every 1000 --json", HUMANOID,
           csv);
  /* SIGTERM half a second after FILE.part appears (the run opens it once its handlers are
   * installed and the model is loaded): under ASan on a loaded machine the load alone
   * outlasted a fixed 2 s, and the signal met the default handler */
  char prefix[700];
  snprintf(prefix, sizeof prefix,
           "sh -c 'p=\"$0\"; \"$@\" & pid=$!; n=0; "
           "while [ ! -e \"$p\" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done; "
           "sleep 0.5; kill -TERM $pid; wait $pid' '%s'",
           part);
  cli_result r = cli_run_prefixed(prefix, args);
  MR_CHECK_MSG(r.status == 143, "status %d, stderr: %s", r.status, r.err);
  MR_CHECK(json_is(r.out, "interrupted", "true"));
  MR_CHECK(json_is(r.out, "diverged", "false"));
  MR_CHECK(file_exists(csv) && !file_exists(part));
  char *text = mr_test_read_file(csv);
  double steps = json_number(r.out, "steps");
  if (text) MR_CHECK(count_char(text, '\n') == 2 + (int)steps / 1000);
  free(text);
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_cli");
  test_binary_exists();
  test_help_version_solvers();
  test_bad_input();
  test_info_json();
  test_info_text();
  test_run_json();
  test_record();
  test_divergence();
  test_interrupt();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
