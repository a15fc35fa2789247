/* Bad and hostile input, end to end: the `moreau` command on broken files.
 *
 * DESIGN.md sec. 5 promises one line on stderr, "moreau: FILE:LINE: what is wrong", exit
 * status 2, never a crash and never a hang. Each fixture in tests/data/bad breaks one
 * rule; the files that must not be committed (a > 64 MiB file, a secret for the external
 * entity to leak) are made at run time in a temporary directory.
 *
 * Each run is a fork/exec with an alarm armed in the child (alarms survive exec): a child
 * killed by SIGALRM hung, one killed by any other signal crashed.
 */
#define _DEFAULT_SOURCE /* wait4, in mr_run.h */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mr_run.h"
#include "mr_test.h"

#define BAD_DIR MOREAU_SOURCE_DIR "/tests/data/bad"
enum { TIME_LIMIT_S = 20, MAX_OUTPUT = 1 << 20 };

static char tmp_dir[256];

/* ------------------------------------------------------------------ running moreau */

typedef struct run_result {
  int exited;      /* 1: exited normally with status */
  int status;      /* exit status when exited */
  int signal;      /* the signal that killed it, else 0 */
  double seconds;  /* wall time */
  char out[MAX_OUTPUT];
  char err[MAX_OUTPUT];
} run_result;

static run_result result; /* large: static, one run at a time */

/* Runs MOREAU_BIN with args (NULL-terminated, without argv[0]); fills `result`. */
static const run_result *run_moreau(const char *const *args) {
  char out_path[512], err_path[512];
  snprintf(out_path, sizeof out_path, "%s/stdout.txt", tmp_dir);
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmp_dir);
  mr_child c = mr_run_moreau(args, out_path, err_path, TIME_LIMIT_S);
  result.seconds = c.wall_s;
  result.exited = c.exited;
  result.status = c.status;
  result.signal = c.signal;
  mr_read_text(out_path, result.out, sizeof result.out);
  mr_read_text(err_path, result.err, sizeof result.err);
  return &result;
}

/* ------------------------------------------------------------------ checking one run */

/* What the one error line must say. lines[] lists the acceptable line numbers (0-ended);
 * ANY_LINE means some line number is required, NO_LINE that none is required. */
enum { NO_LINE = 0, ANY_LINE = -1 };

typedef struct expectation {
  const char *files[2]; /* the line names one of these (basenames); NULL-ended */
  int lines[5];         /* acceptable line numbers, or {ANY_LINE} / {NO_LINE} */
} expectation;

static int count_lines(const char *text) {
  size_t n = strlen(text);
  if (n == 0) return 0;
  int lines = 1;
  for (size_t i = 0; i + 1 < n; i++) lines += text[i] == '\n';
  return lines;
}

/* 1 if `line` holds "file:N:" with N acceptable for e. */
static int names_location(const char *line, const char *file, const expectation *e) {
  size_t flen = strlen(file);
  for (const char *p = strstr(line, file); p; p = strstr(p + 1, file)) {
    const char *q = p + flen;
    if (e->lines[0] == NO_LINE) return 1;
    if (*q != ':' || !isdigit((unsigned char)q[1])) continue;
    char *end;
    long n = strtol(q + 1, &end, 10);
    if (*end != ':') continue;
    if (e->lines[0] == ANY_LINE) return 1;
    for (int i = 0; i < 5 && e->lines[i] > 0; i++)
      if (n == e->lines[i]) return 1;
  }
  return 0;
}

/* The run did not crash and did not hang. */
static int check_survived(const char *what, const run_result *r) {
  MR_CHECK_MSG(r->signal != SIGALRM, "%s: still running after %d s (hang)", what, TIME_LIMIT_S);
  MR_CHECK_MSG(r->signal == 0 || r->signal == SIGALRM, "%s: killed by signal %d (%s)", what,
               r->signal, strsignal(r->signal));
  MR_CHECK_MSG(!r->exited || r->status != 127, "%s: could not run %s", what, MOREAU_BIN);
  return r->exited;
}

/* Exit status 2 and exactly one stderr line "moreau: ..." that names the fault's place. */
static void check_error_line(const char *what, const run_result *r, const expectation *e) {
  MR_CHECK_MSG(r->status == 2, "%s: exit status %d, expected 2; stderr: %s", what, r->status,
               r->err);
  MR_CHECK_MSG(count_lines(r->err) == 1, "%s: %d lines on stderr, expected 1:\n%s", what,
               count_lines(r->err), r->err);
  MR_CHECK_MSG(strncmp(r->err, "moreau: ", 8) == 0, "%s: stderr does not start with 'moreau: ': %s",
               what, r->err);
  if (!e) return;
  int named = 0;
  for (int i = 0; i < 2 && e->files[i]; i++) named |= names_location(r->err, e->files[i], e);
  MR_CHECK_MSG(named, "%s: the error does not name %s%s%s: %s", what, e->files[0],
               e->lines[0] == NO_LINE ? "" : " with the expected line",
               e->files[1] ? " (or the other file)" : "", r->err);
}

static void expect_refused(const char *what, const char *path, const expectation *e) {
  const char *args[] = {"info", path, NULL};
  const run_result *r = run_moreau(args);
  if (check_survived(what, r)) check_error_line(what, r, e);
  printf("%-22s status %3d  %.2f s  %s", what, r->status, r->seconds, r->err);
  if (!strchr(r->err, '\n')) printf("\n");
}

/* ------------------------------------------------------------------ the fixtures */

typedef struct fixture {
  const char *file;
  expectation expect;
} fixture;

static const fixture FIXTURES[] = {
  {"malformed.xml", {{"malformed.xml"}, {6}}},
  {"malformed.urdf", {{"malformed.urdf"}, {5}}},
  /* the mesh element, or the geom that uses it */
  {"missing_mesh.xml", {{"missing_mesh.xml"}, {4, 9}}},
  {"missing_mesh.urdf", {{"missing_mesh.urdf"}, {4, 9, 10, 11}}},
  {"unknown_joint.xml", {{"unknown_joint.xml"}, {5}}},
  {"unknown_joint.urdf", {{"unknown_joint.urdf"}, {11}}},
  /* any of the links or joints on the cycle */
  {"cycle.urdf", {{"cycle.urdf"}, {ANY_LINE}}},
  /* two roots have no one place: the file alone is enough */
  {"two_roots.urdf", {{"two_roots.urdf"}, {NO_LINE}}},
  /* the link, the inertial or the number itself */
  {"negative_mass.urdf", {{"negative_mass.urdf"}, {5, 6, 8}}},
  /* the body (as MuJoCo says) or its inertial */
  {"negative_mass.xml", {{"negative_mass.xml"}, {4, 6}}},
  /* a massless moving link is bounded (urdf_inertia.c); a singular M is refused */
  {"singular_mass.urdf", {{"singular_mass.urdf"}, {10}}},
  {"zero_inertia.xml", {{"zero_inertia.xml"}, {6, 8}}},
  {"nan.xml", {{"nan.xml"}, {4}}},
  {"inf.urdf", {{"inf.urdf"}, {5, 6, 7}}},
  /* the loop is found at either include element (both on line 3) */
  {"include_loop_a.xml", {{"include_loop_a.xml", "include_loop_b.xml"}, {3}}},
};

static void check_fixtures(void) {
  for (size_t i = 0; i < sizeof FIXTURES / sizeof FIXTURES[0]; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BAD_DIR, FIXTURES[i].file);
    expect_refused(FIXTURES[i].file, path, &FIXTURES[i].expect);
  }
  expectation missing = {{"no_such_file.xml"}, {NO_LINE}};
  expect_refused("missing file", BAD_DIR "/no_such_file.xml", &missing);
}

/* A > 64 MiB file with a valid XML start: refused by its size, quickly, never parsed.
 * Sparse (ftruncate), so it costs no disk. */
static void check_huge_file(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/huge.xml", tmp_dir);
  FILE *f = fopen(path, "wb");
  MR_REQUIRE(f != NULL);
  fputs("<?xml version=\"1.0\"?>\n<mujoco model=\"huge\">\n  <worldbody>\n", f);
  fclose(f);
  MR_REQUIRE(truncate(path, 65L * 1024 * 1024) == 0);
  expectation e = {{"huge.xml"}, {NO_LINE}};
  expect_refused("huge file", path, &e);
  MR_CHECK_MSG(result.seconds < 5, "huge file: took %.1f s; it must be refused before parsing",
               result.seconds);
  unlink(path);
}

/* Entities: either refused (status 2, one line) or left unexpanded (status 0), but never
 * resolved and never a crash or hang. */
static void check_entity_run(const char *what, const char *path, const char *secret) {
  const char *args[] = {"info", path, NULL};
  const run_result *r = run_moreau(args);
  printf("%-22s status %3d  %.2f s  %s", what, r->status, r->seconds, r->err[0] ? r->err : "\n");
  if (r->err[0] && !strchr(r->err, '\n')) printf("\n");
  if (!check_survived(what, r)) return;
  MR_CHECK_MSG(r->status == 0 || r->status == 2, "%s: exit status %d, expected 2 (refused) or 0",
               what, r->status);
  if (r->status == 2) check_error_line(what, r, NULL);
  if (secret) {
    MR_CHECK_MSG(!strstr(r->out, secret) && !strstr(r->err, secret),
                 "%s: the external entity was resolved: '%s' appears in the output", what, secret);
  }
}

static void check_entities(void) {
  /* The committed fixture points at /etc/hostname. A hostname of a few letters could
   * appear in any message by chance, so it is only looked for when it is distinctive. */
  char host[256] = "";
  mr_read_text("/etc/hostname", host, sizeof host);
  host[strcspn(host, "\r\n")] = 0;
  check_entity_run("xxe.urdf", BAD_DIR "/xxe.urdf", strlen(host) >= 6 ? host : NULL);

  /* The same attack on a secret made for the purpose, in URDF and MJCF. */
  char secret[128], secret_path[512], path[512], text[2048];
  snprintf(secret, sizeof secret, "moreau-xxe-secret-%ld", (long)getpid());
  snprintf(secret_path, sizeof secret_path, "%s/secret.txt", tmp_dir);
  mr_test_write_file(secret_path, secret);
  snprintf(path, sizeof path, "%s/xxe_secret.urdf", tmp_dir);
  snprintf(text, sizeof text,
           "<?xml version=\"1.0\"?>\n<!DOCTYPE robot [ <!ENTITY xxe SYSTEM \"file://%s\"> ]>\n"
           "<robot name=\"&xxe;\">\n  <link name=\"base&xxe;\"/>\n</robot>\n",
           secret_path);
  mr_test_write_file(path, text);
  check_entity_run("xxe_secret.urdf", path, secret);
  snprintf(path, sizeof path, "%s/xxe_secret.xml", tmp_dir);
  snprintf(text, sizeof text,
           "<?xml version=\"1.0\"?>\n<!DOCTYPE mujoco [ <!ENTITY xxe SYSTEM \"file://%s\"> ]>\n"
           "<mujoco model=\"&xxe;\">\n  <worldbody>\n    <body name=\"b\">\n"
           "      <freejoint/>\n      <geom type=\"sphere\" size=\"0.1\"/>\n"
           "    </body>\n  </worldbody>\n</mujoco>\n",
           secret_path);
  mr_test_write_file(path, text);
  check_entity_run("xxe_secret.xml", path, secret);

  check_entity_run("billion_laughs.xml", BAD_DIR "/billion_laughs.xml", NULL);
  MR_CHECK_MSG(result.seconds < 10, "billion laughs: took %.1f s", result.seconds);
}

/* Bad --dt values on an otherwise good run. */
static void check_bad_options(void) {
  const char *bad_dt[] = {"-1", "abc", "0", "nan", "1e-320"};
  for (int i = 0; i < 5; i++) {
    const char *args[] = {"run", MOREAU_SOURCE_DIR "/models/pendulum.xml", "--steps", "1",
                          "--dt", bad_dt[i], NULL};
    char what[64];
    snprintf(what, sizeof what, "run --dt %s", bad_dt[i]);
    const run_result *r = run_moreau(args);
    printf("%-22s status %3d  %.2f s  %s", what, r->status, r->seconds, r->err);
    if (!strchr(r->err, '\n')) printf("\n");
    if (check_survived(what, r)) check_error_line(what, r, NULL);
  }
}

int main(void) {
  mr_test_tmpdir(tmp_dir, sizeof tmp_dir, "bad");
  MR_REQUIRE(access(MOREAU_BIN, X_OK) == 0);

  check_fixtures();
  check_huge_file();
  check_entities();
  check_bad_options();

  char path[512];
  const char *made[] = {"stdout.txt", "stderr.txt", "secret.txt", "xxe_secret.urdf",
                        "xxe_secret.xml", "huge.xml"};
  for (int i = 0; i < 6; i++) {
    snprintf(path, sizeof path, "%s/%s", tmp_dir, made[i]);
    unlink(path);
  }
  rmdir(tmp_dir);
  MR_TEST_END();
}
