/* moreau batch end to end: a 24-job sweep on two workers, a failing job that leaves the
 * others alone, bit-identical recordings whoever runs a job, --resume, an interrupted
 * batch, and bad JOBS files (one FILE:LINE line, exit 2). */
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"
#include "engine/record/recording.h"

#define MODELS MOREAU_SOURCE_DIR "/models"

static char tmpdir[256];

static cli_result batch(const char *prefix, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cli_result batch(const char *prefix, const char *fmt, ...) {
  char args[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  return mr_cli_run(tmpdir, prefix, args);
}

/* ------------------------------------------------------------------ summary.csv */

enum { MAX_FIELDS = 64, MAX_ROWS = 64 };

typedef struct summary {
  char *text;
  int ncols, nrows;
  char *head[MAX_FIELDS];
  char *cell[MAX_ROWS][MAX_FIELDS];
} summary;

/* Splits one CSV line in place (quotes as RFC 4180); returns the field count. */
static int csv_split(char *line, char **fields) {
  int n = 0;
  char *p = line;
  for (;;) {
    char *out = p;
    fields[n++] = out;
    if (*p == '"') {
      for (p++; *p && !(*p == '"' && p[1] != '"'); p++) *out++ = *p == '"' ? *++p : *p;
      if (*p == '"') p++;
    } else {
      while (*p && *p != ',') *out++ = *p++;
    }
    char next = *p;
    *out = 0;
    if (next != ',' || n == MAX_FIELDS) return n;
    p++;
  }
}

static int summary_read(summary *s, const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  memset(s, 0, sizeof *s);
  s->text = mr_test_read_file(path);
  if (!s->text) return -1;
  char *save = NULL;
  char *line = strtok_r(s->text, "\n", &save);
  if (!line) return -1;
  s->ncols = csv_split(line, s->head);
  while ((line = strtok_r(NULL, "\n", &save)) && s->nrows < MAX_ROWS) {
    int n = csv_split(line, s->cell[s->nrows]);
    MR_CHECK_MSG(n == s->ncols, "summary row %d has %d fields, the header %d", s->nrows + 1, n, s->ncols);
    s->nrows++;
  }
  return 0;
}

static const char *summary_get(const summary *s, int row, const char *column) {
  for (int c = 0; c < s->ncols; c++)
    if (strcmp(s->head[c], column) == 0) return s->cell[row][c];
  return NULL;
}

static int summary_count(const summary *s, const char *column, const char *value) {
  int n = 0;
  for (int r = 0; r < s->nrows; r++) {
    const char *v = summary_get(s, r, column);
    n += v && strcmp(v, value) == 0;
  }
  return n;
}

/* ------------------------------------------------------------------ tests */

static const char *sweep_text =
    "# 3 solvers x 2 timesteps x 4 seeds = 24 jobs\n"
    "model = \"" MODELS "/double_pendulum.xml\"\n"
    "steps = 100\n"
    "solver = [pgs, admm, sap]\n"
    "dt = [0.001, 0.002]\n"
    "seed = 1..4\n"
    "record = \"{solver}_{dt}_{seed}.h5\"\n";

static const char *solvers[] = {"pgs", "admm", "sap"}, *dts[] = {"0.001", "0.002"};

/* The 24 jobs in nested-loop order, one ok row each, every recording complete. */
static void check_sweep(const char *out) {
  summary s;
  MR_REQUIRE(summary_read(&s, out) == 0);
  MR_CHECK(s.nrows == 24);
  for (int a = 0; a < s.ncols; a++)
    for (int b = a + 1; b < s.ncols; b++)
      MR_CHECK_MSG(strcmp(s.head[a], s.head[b]) != 0, "column '%s' twice", s.head[a]);
  MR_CHECK(summary_count(&s, "status", "ok") == 24);
  for (int r = 0; r < s.nrows && r < 24; r++) {
    const char *solver = solvers[r / 8], *dt = dts[(r / 4) % 2];
    char seed[8], file[600];
    snprintf(seed, sizeof seed, "%d", r % 4 + 1);
    MR_CHECK(strcmp(summary_get(&s, r, "solver"), solver) == 0);
    MR_CHECK(strcmp(summary_get(&s, r, "used_solver"), solver) == 0);
    MR_CHECK(strcmp(summary_get(&s, r, "dt"), dt) == 0);
    MR_CHECK_NEAR(atof(summary_get(&s, r, "used_dt")), atof(dt), 1e-15);
    MR_CHECK(strcmp(summary_get(&s, r, "seed"), seed) == 0);
    MR_CHECK(strcmp(summary_get(&s, r, "steps_done"), "100") == 0);
    MR_CHECK(strcmp(summary_get(&s, r, "rows"), "101") == 0);
    MR_CHECK(atof(summary_get(&s, r, "wall_s")) > 0);
    snprintf(file, sizeof file, "%s/%s_%s_%s.h5", out, solver, dt, seed);
    MR_CHECK_MSG(file_exists(file), "no %s", file);
    snprintf(file, sizeof file, "%s/%s_%s_%s.h5.part", out, solver, dt, seed);
    MR_CHECK_MSG(!file_exists(file), "%s left behind", file);
  }
  free(s.text);
}

static void test_sweep_and_resume(void) {
  char jobs[400], out[400], gone[600];
  snprintf(jobs, sizeof jobs, "%s/sweep.toml", tmpdir);
  snprintf(out, sizeof out, "%s/sweep", tmpdir);
  mr_test_write_file(jobs, sweep_text);
  cli_result r = batch("", "batch '%s' --jobs 2 --out '%s'", jobs, out);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  MR_CHECK_MSG(strstr(r.out, "24 jobs: 24 ok, 0 failed") != NULL, "stdout: %s", r.out);
  MR_CHECK(count_char(r.err, '\n') == 24); /* progress: one line per job, not a terminal */
  cli_free(&r);
  check_sweep(out);
  char json[500];
  snprintf(json, sizeof json, "%s/summary.json", out);
  char *js = mr_test_read_file(json);
  MR_CHECK(js && strstr(js, "\"jobs\": 24") && strstr(js, "\"solver\": \"sap\""));
  free(js);

  /* --resume runs exactly the job whose recording went missing. */
  snprintf(gone, sizeof gone, "%s/admm_0.002_3.h5", out);
  MR_REQUIRE(unlink(gone) == 0);
  r = batch("", "batch '%s' --jobs 2 --out '%s' --resume", jobs, out);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strstr(r.err, "job 15/24 ok"), "stderr: %s", r.err);
  cli_free(&r);
  MR_CHECK(file_exists(gone));
  check_sweep(out);
  js = mr_test_read_file(json);
  int resumed = 0;
  for (const char *p = js; p && (p = strstr(p, "\"resumed\": true")); p++) resumed++;
  MR_CHECK_MSG(resumed == 23, "%d rows resumed", resumed);
  free(js);
}

/* A job that cannot load is an error row; the jobs around it still run; exit 1. */
static void test_failing_job(void) {
  char jobs[400], out[400], text[2048];
  snprintf(jobs, sizeof jobs, "%s/mixed.csv", tmpdir);
  snprintf(out, sizeof out, "%s/mixed", tmpdir);
  snprintf(text, sizeof text,
           "name,model,steps,seed,record\n"
           "first,%s/five_balls.xml,200,3,a.csv\n"
           "missing,/nonexistent/dir/x.xml,10,,\n"
           "\"third, quoted\",%s/pendulum.xml,50,1,c.h5\n",
           MODELS, MODELS);
  mr_test_write_file(jobs, text);
  cli_result r = batch("", "batch '%s' --jobs 2 --out '%s'", jobs, out);
  MR_CHECK_MSG(r.status == 1, "status %d", r.status);
  MR_CHECK(strstr(r.out, "3 jobs: 2 ok, 1 failed") != NULL);
  cli_free(&r);
  summary s;
  MR_REQUIRE(summary_read(&s, out) == 0);
  MR_CHECK(s.nrows == 3);
  if (s.nrows == 3) {
    MR_CHECK(strcmp(summary_get(&s, 0, "status"), "ok") == 0);
    MR_CHECK(strcmp(summary_get(&s, 1, "status"), "error") == 0);
    MR_CHECK(strstr(summary_get(&s, 1, "message"), "/nonexistent/dir/x.xml") != NULL);
    /* a job that never ran has no numbers: empty fields, not zeros */
    const char *numbers[] = {"steps_done", "sim_time", "used_dt", "energy_start", "rows", "used_solver"};
    for (int k = 0; k < 6; k++)
      MR_CHECK_MSG(strcmp(summary_get(&s, 1, numbers[k]), "") == 0, "error row: %s = '%s'", numbers[k],
                   summary_get(&s, 1, numbers[k]));
    MR_CHECK(strcmp(summary_get(&s, 2, "status"), "ok") == 0);
    MR_CHECK(strcmp(summary_get(&s, 2, "name"), "third, quoted") == 0);
    MR_CHECK(strcmp(summary_get(&s, 2, "steps_done"), "50") == 0);
  }
  free(s.text);
}

/* The same job alone, next to others on two workers, and as moreau run --seed: the
 * recordings are byte for byte (CSV) and value for value (HDF5) the same. On one worker
 * the three five_balls jobs run back to back on one reused mr_data (batch_pool.c): the
 * second must not inherit the first's solver, nor the third (no solver given) either's,
 * and what the first left in the data must not reach the second's trajectory. */
static void test_identical_recordings(void) {
  char jobs[400], text[2048], dir1[400], dir2[400], alone[400], a[600], b[600];
  snprintf(jobs, sizeof jobs, "%s/same.csv", tmpdir);
  snprintf(text, sizeof text,
           "model,steps,seed,solver,record\n"
           "%s/five_balls.xml,300,7,pgs,five.csv\n"
           "%s/five_balls.xml,300,7,implicit,five_implicit.h5\n"
           "%s/five_balls.xml,300,7,,five_default.csv\n"
           "%s/balls_in_box.xml,200,2,admm,box.h5\n",
           MODELS, MODELS, MODELS, MODELS);
  mr_test_write_file(jobs, text);
  snprintf(dir1, sizeof dir1, "%s/same1", tmpdir);
  snprintf(dir2, sizeof dir2, "%s/same2", tmpdir);
  snprintf(alone, sizeof alone, "%s/alone.csv", tmpdir);
  cli_result r = batch("", "batch '%s' --jobs 1 --out '%s'", jobs, dir1);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  cli_free(&r);
  r = batch("", "batch '%s' --jobs 2 --out '%s'", jobs, dir2);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  cli_free(&r);
  r = batch("", "run '%s/five_balls.xml' --steps 300 --seed 7 --solver pgs --record '%s'", MODELS, alone);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  cli_free(&r);
  snprintf(a, sizeof a, "%s/five.csv", dir1);
  snprintf(b, sizeof b, "%s/five.csv", dir2);
  MR_CHECK(mr_test_files_equal(a, b));
  MR_CHECK(mr_test_files_equal(a, alone));
  summary s;
  MR_REQUIRE(summary_read(&s, dir1) == 0);
  MR_CHECK(s.nrows == 4);
  if (s.nrows == 4) {
    MR_CHECK(strcmp(summary_get(&s, 1, "used_solver"), "implicit") == 0);
    MR_CHECK(strcmp(summary_get(&s, 2, "used_solver"), mr_solver_name(mr_solver_default())) == 0);
  }
  free(s.text);
  r = batch("", "run '%s/five_balls.xml' --steps 300 --seed 7 --record '%s'", MODELS, alone);
  MR_CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err);
  cli_free(&r);
  snprintf(a, sizeof a, "%s/five_default.csv", dir1);
  MR_CHECK(mr_test_files_equal(a, alone));

  char err[512];
  mr_load_options lo = {0};
  mr_model *m = mr_model_load(MODELS "/five_balls.xml", &lo, err, (int)sizeof err);
  MR_REQUIRE(m != NULL);
  mr_recording x, y;
  snprintf(a, sizeof a, "%s/five_implicit.h5", dir1);
  snprintf(b, sizeof b, "%s/five_implicit.h5", dir2);
  MR_REQUIRE(mr_recording_load(a, m, &x, err, (int)sizeof err) == 0);
  MR_REQUIRE(mr_recording_load(b, m, &y, err, (int)sizeof err) == 0);
  MR_CHECK(x.nrows == 301 && y.nrows == 301);
  if (x.nrows == y.nrows) {
    MR_CHECK(memcmp(x.qpos, y.qpos, (size_t)x.nrows * (size_t)x.nq * sizeof(double)) == 0);
    MR_CHECK(memcmp(x.qvel, y.qvel, (size_t)x.nrows * (size_t)x.nv * sizeof(double)) == 0);
  }
  /* the seed did perturb the resting balls: free joints get it in their first velocities */
  double moved = 0;
  for (int i = 0; i < x.nv; i++) moved = fmax(moved, fabs(x.qvel[i]));
  MR_CHECK(moved > 0 && moved <= 1e-3);
  mr_recording_free(&x);
  mr_recording_free(&y);
  mr_model_free(m);
}

/* SIGINT stops the batch cleanly: summary written, the running job interrupted with its
 * rows kept, the others not run; exit 130. */
static void test_interrupted(void) {
  char jobs[400], out[400], text[1024];
  snprintf(jobs, sizeof jobs, "%s/long.toml", tmpdir);
  snprintf(out, sizeof out, "%s/long", tmpdir);
  snprintf(text, sizeof text,
           "model = \"%s/humanoid/humanoid.xml\"\nsteps = 10000000\nseed = 1..3\n"
           "record = \"long_{seed}.csv\"\n", MUJOCO_MODEL_DIR);
  mr_test_write_file(jobs, text);
  /* The signal goes once the first job is recording (its .part file exists), not after a
   * fixed delay: on a loaded machine or under the sanitizers, loading alone can outlast
   * any delay short enough to keep the test quick. */
  char cmd[4096], said[600];
  snprintf(said, sizeof said, "%s/long.out", tmpdir);
  snprintf(cmd, sizeof cmd,
           "'%s' batch '%s' --jobs 1 --out '%s' >'%s' 2>/dev/null & pid=$!; i=0; "
           "while [ ! -e '%s/long_1.csv.part' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; "
           "sleep 0.3; kill -INT $pid; wait $pid",
           MOREAU_BIN, jobs, out, said, out);
  int raw = system(cmd);
  int status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  MR_CHECK_MSG(status == 128 + SIGINT, "status %d", status);
  /* the interrupted job is counted as such, not as a failure */
  char *totals = mr_test_read_file(said);
  MR_CHECK_MSG(totals && strstr(totals, "3 jobs: 0 ok, 0 failed, 1 interrupted, 2 not run"), "stdout: %s",
               totals ? totals : "");
  free(totals);
  summary s;
  MR_REQUIRE(summary_read(&s, out) == 0);
  MR_CHECK(s.nrows == 3);
  MR_CHECK(summary_count(&s, "status", "interrupted") == 1);
  MR_CHECK(summary_count(&s, "status", "not_run") == 2);
  if (s.nrows == 3) MR_CHECK(atol(summary_get(&s, 0, "steps_done")) > 0);
  free(s.text);
  char rec[600];
  snprintf(rec, sizeof rec, "%s/long_1.csv", out);
  char *csv = mr_test_read_file(rec);
  MR_CHECK(csv && count_char(csv, '\n') > 2);
  free(csv);
}

static void expect_bad_jobs(const char *name, const char *text, const char *where, const char *what) {
  char jobs[400];
  snprintf(jobs, sizeof jobs, "%s/%s", tmpdir, name);
  mr_test_write_file(jobs, text);
  cli_result r = batch("", "batch '%s' --out '%s/never'", jobs, tmpdir);
  MR_CHECK_MSG(r.status == 2, "%s: status %d", name, r.status);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strncmp(r.err, "moreau: ", 8) == 0, "%s: %s", name, r.err);
  MR_CHECK_MSG(strstr(r.err, where) && strstr(r.err, what), "%s: %s lacks '%s' / '%s'", name, r.err, where, what);
  cli_free(&r);
}

static void test_bad_jobs(void) {
  expect_bad_jobs("open.toml", "model = \"a.xml\"\nsolver = [pgs, admm\n", "open.toml:2:", "]");
  expect_bad_jobs("key.toml", "model = \"a.xml\"\n\nfrobnicate = 3\n", "key.toml:3:", "frobnicate");
  expect_bad_jobs("range.toml", "model = \"a.xml\"\nseed = 5..1\n", "range.toml:2:", "5..1");
  expect_bad_jobs("holder.toml", "model = \"a.xml\"\nrecord = \"{nosuch}.csv\"\n", "holder.toml:2:", "{nosuch}");
  expect_bad_jobs("solver.toml", "model = \"a.xml\"\nsolver = nosuch\n", "solver.toml:2:", "nosuch");
  expect_bad_jobs("clash.toml", "model = \"a.xml\"\nseed = 1..2\nrecord = \"same.csv\"\n", "clash.toml",
                  "same.csv");
  expect_bad_jobs("fields.csv", "model,steps\na.xml,1\na.xml,1,2\n", "fields.csv:3:", "3 fields");
  expect_bad_jobs("empty.csv", "", "empty.csv:1:", "header");
  expect_bad_jobs("empty.toml", "# nothing\n\n", "empty.toml:2:", "no jobs");
  expect_bad_jobs("header_only.csv", "model,steps\n", "header_only.csv:1:", "no jobs");
  expect_bad_jobs("quote.toml", "steps = 3\nmodel = \"abc\n", "quote.toml:2:", "unterminated string");
  expect_bad_jobs("quote_item.toml", "model = \"a.xml\"\nsolver = [pgs, \"admm]\n", "quote_item.toml:2:",
                  "unterminated string");
  expect_bad_jobs("nul.csv", "model,steps\na.xml,abc\n", "nul.csv:2:", "abc");
  cli_result r = batch("", "batch '%s/nosuch.toml'", tmpdir);
  MR_CHECK(r.status == 2 && strstr(r.err, "nosuch.toml"));
  cli_free(&r);
  char never[400];
  snprintf(never, sizeof never, "%s/never", tmpdir);
  MR_CHECK_MSG(!file_exists(never), "a rejected batch made its --out directory");
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_batch");
  test_sweep_and_resume();
  test_failing_job();
  test_identical_recordings();
  test_interrupted();
  test_bad_jobs();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
