/* No write fails quietly (DESIGN.md sec. 5): a full disk or a closed stdout gives one line
 * naming the file and the reason, exit status 1, never a crash; rows already written stay
 * readable in FILE.part, which says by its name (and, in HDF5, its `complete` attribute)
 * that it is incomplete; a leftover FILE.part is never overwritten.
 *
 * A full disk is made two ways. Everywhere: the shell's `ulimit -f` (RLIMIT_FSIZE, with
 * SIGXFSZ ignored) makes every write past a size fail with EFBIG, exactly where a full disk
 * fails with ENOSPC. Where a tmpfs can be mounted (root, or a user namespace through
 * `unshare -rm`): a 1 MB tmpfs, the real thing, for CSV and HDF5 alike. */
#include <errno.h>
#include <hdf5.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/record/recording.h"
#include "mr_test.h"

#define PENDULUM MOREAU_SOURCE_DIR "/models/double_pendulum.xml"
#define BALLS MOREAU_SOURCE_DIR "/models/five_balls.xml"

static char dir[256];

typedef struct sh_result {
  int status;
  char *err;
} sh_result;

/* Runs a shell command line with stderr to a file; its exit status and stderr. */
static sh_result sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static sh_result sh(const char *fmt, ...) {
  char cmd[8192], err_path[400];
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  snprintf(cmd + n, sizeof cmd - (size_t)n, " 2>'%s'", err_path);
  int raw = system(cmd);
  sh_result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.err = mr_test_read_file(err_path);
  if (!r.err) r.err = calloc(1, 1);
  return r;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static const char *path_in(const char *name) {
  static char paths[8][512];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

/* One line, "moreau: ", naming what and saying why. */
static void check_one_line(const char *what, const sh_result *r, const char *names, const char *why) {
  MR_CHECK_MSG(count_lines(r->err) == 1 && strncmp(r->err, "moreau: ", 8) == 0,
               "%s: stderr is not one 'moreau: ' line:\n%s", what, r->err);
  MR_CHECK_MSG(strstr(r->err, names) != NULL, "%s: the line does not name %s: %s", what, names, r->err);
  MR_CHECK_MSG(strstr(r->err, why) != NULL, "%s: the line does not say '%s': %s", what, why, r->err);
}

/* ------------------------------------------------------------------ stdout */

static void check_stdout(void) {
  const char *cases[][2] = {
      {"run > /dev/full", "run '" PENDULUM "' --steps 10 >/dev/full"},
      {"run --json > /dev/full", "run '" PENDULUM "' --steps 10 --json >/dev/full"},
      {"info > /dev/full", "info '" PENDULUM "' >/dev/full"},
      {"info --json > /dev/full", "info '" PENDULUM "' --json >/dev/full"},
      {"solvers > /dev/full", "solvers >/dev/full"},
      {"--help > /dev/full", "--help >/dev/full"},
      {"run, stdout closed", "run '" PENDULUM "' --steps 10 >&-"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    sh_result r = sh("'%s' %s", MOREAU_BIN, cases[i][1]);
    MR_CHECK_MSG(r.status == 1, "%s: exit status %d, expected 1", cases[i][0], r.status);
    check_one_line(cases[i][0], &r, "stdout: write error",
                   strstr(cases[i][1], "&-") ? "Bad file descriptor" : "No space left on device");
    free(r.err);
  }
  /* a batch's totals go to stdout too */
  mr_test_write_file(path_in("one.toml"), "model = \"" PENDULUM "\"\nsteps = 5\n");
  sh_result r = sh("'%s' batch '%s' --quiet >/dev/full", MOREAU_BIN, path_in("one.toml"));
  MR_CHECK_MSG(r.status == 1, "batch > /dev/full: exit status %d", r.status);
  check_one_line("batch > /dev/full", &r, "stdout: write error", "No space left on device");
  free(r.err);
}

/* ------------------------------------------------------------------ a full disk (EFBIG) */

/* The rows in FILE.part must be the first rows of the same run written in full. */
static void check_prefix(const char *what, const char *part, const char *whole) {
  mr_recording a, b;
  char err[1024];
  int ra = mr_recording_load(part, NULL, &a, err, (int)sizeof err);
  MR_CHECK_MSG(ra == 0, "%s: %s does not read: %s", what, part, err);
  int rb = mr_recording_load(whole, NULL, &b, err, (int)sizeof err);
  MR_REQUIRE(rb == 0);
  if (ra == 0) {
    MR_CHECK_MSG(a.nrows > 0 && a.nrows < b.nrows, "%s: %ld rows kept of %ld", what, a.nrows, b.nrows);
    int same = a.nq == b.nq && a.nv == b.nv;
    for (long i = 0; same && i < a.nrows; i++) {
      same = a.time[i] == b.time[i];
      for (int k = 0; same && k < a.nq; k++) same = a.qpos[i * a.nq + k] == b.qpos[i * b.nq + k];
    }
    MR_CHECK_MSG(same, "%s: the rows kept differ from the same run's first rows", what);
    printf("%-28s %ld of %ld rows kept in %s\n", what, a.nrows, b.nrows, part);
    mr_recording_free(&a);
  }
  mr_recording_free(&b);
}

static int h5_complete_attribute(const char *path) {
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return -1;
  int value = -1;
  hid_t a = H5Aopen(f, "complete", H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_INT, &value);
    H5Aclose(a);
  }
  H5Fclose(f);
  return value;
}

static void check_file_limit(const char *ext, long blocks, long steps) {
  char what[64], name[64], whole[64];
  snprintf(what, sizeof what, "full disk, %s", ext);
  snprintf(name, sizeof name, "limited.%s", ext);
  snprintf(whole, sizeof whole, "whole.%s", ext);
  char part[600];
  snprintf(part, sizeof part, "%s.part", path_in(name));
  unlink(path_in(name)), unlink(part);
  sh_result r = sh("trap '' XFSZ; ulimit -f %ld; '%s' run '%s' --steps %ld --record '%s' --quiet >/dev/null",
                   blocks, MOREAU_BIN, PENDULUM, steps, path_in(name));
  MR_CHECK_MSG(r.status == 1, "%s: exit status %d, expected 1 (stderr: %s)", what, r.status, r.err);
  check_one_line(what, &r, part, "File too large");
  MR_CHECK_MSG(!exists(path_in(name)), "%s: an incomplete recording took the final name", what);
  MR_CHECK_MSG(exists(part), "%s: the part file was deleted", what);
  free(r.err);
  r = sh("'%s' run '%s' --steps %ld --record '%s' --quiet >/dev/null", MOREAU_BIN, PENDULUM, steps,
         path_in(whole));
  MR_REQUIRE(r.status == 0);
  free(r.err);
  check_prefix(what, part, path_in(whole));
  if (strcmp(ext, "h5") == 0) {
    MR_CHECK_MSG(h5_complete_attribute(part) == 0, "%s: the part file does not say complete = 0", what);
    MR_CHECK_MSG(h5_complete_attribute(path_in(whole)) == 1, "%s: a finished file does not say complete = 1",
                 what);
  }
  /* --init FILE when only FILE.part is there: it reads the part, with a warning */
  r = sh("'%s' run '%s' --steps 2 --init '%s' >/dev/null", MOREAU_BIN, PENDULUM, path_in(name));
  MR_CHECK_MSG(r.status == 0, "%s: --init from the part file: exit %d: %s", what, r.status, r.err);
  MR_CHECK_MSG(strstr(r.err, "warning") && strstr(r.err, ".part"), "%s: --init took the part file "
               "without saying so: %s", what, r.err);
  free(r.err);
}

/* Contacts: the same, for the contacts CSV. */
static void check_contacts_limit(void) {
  char part[600];
  snprintf(part, sizeof part, "%s.part", path_in("contacts.csv"));
  unlink(part);
  sh_result r = sh("trap '' XFSZ; ulimit -f 100; '%s' run '%s' --steps 4000 --contacts '%s' --quiet >/dev/null",
                   MOREAU_BIN, BALLS, path_in("contacts.csv"));
  MR_CHECK_MSG(r.status == 1, "contacts, full disk: exit status %d (stderr: %s)", r.status, r.err);
  check_one_line("contacts, full disk", &r, part, "File too large");
  MR_CHECK_MSG(exists(part) && !exists(path_in("contacts.csv")), "contacts, full disk: part file");
  free(r.err);
}

/* ------------------------------------------------------------------ a real full disk */

static void check_tmpfs(void) {
  char mnt[400], script[8192];
  snprintf(mnt, sizeof mnt, "%s/mnt", dir);
  mkdir(mnt, 0700);
  snprintf(script, sizeof script,
           "mount -t tmpfs -o size=1m tmpfs '%s' || exit 99\n"
           "'%s' run '%s' --steps 60000 --record '%s/x.h5' --quiet >/dev/null 2>'%s/h5.err'; echo $? >'%s/h5.status'\n"
           "'%s' run '%s' --steps 2 --init '%s/x.h5' --quiet >/dev/null 2>&1; echo $? >'%s/h5init.status'\n"
           "'%s' run '%s' --steps 60000 --record '%s/x.csv' --quiet >/dev/null 2>'%s/csv.err'; echo $? >'%s/csv.status'\n"
           "'%s' run '%s' --steps 2 --init '%s/x.csv' --quiet >/dev/null 2>&1; echo $? >'%s/csvinit.status'\n",
           mnt, MOREAU_BIN, PENDULUM, mnt, dir, dir, MOREAU_BIN, PENDULUM, mnt, dir, MOREAU_BIN,
           PENDULUM, mnt, dir, dir, MOREAU_BIN, PENDULUM, mnt, dir);
  mr_test_write_file(path_in("tmpfs.sh"), script);
  const char *how = geteuid() == 0 ? "unshare -m" : "unshare -rm";
  sh_result r = sh("%s sh '%s' >/dev/null", how, path_in("tmpfs.sh"));
  /* A full disk is what users hit; the ulimit cases above stop the writers at a size, not
   * with ENOSPC. Without a private tmpfs the disk-full path would go untested: a failure. */
  MR_CHECK_MSG(r.status == 0, "tmpfs: cannot mount one here (%s exit %d): the full-disk cases "
               "need mount namespaces (root, or unprivileged user namespaces)", how, r.status);
  if (r.status != 0) {
    free(r.err);
    return;
  }
  free(r.err);
  const char *names[4] = {"h5.status", "csv.status", "h5init.status", "csvinit.status"};
  const int want[4] = {1, 1, 0, 0};
  for (int i = 0; i < 4; i++) {
    char *s = mr_test_read_file(path_in(names[i]));
    MR_CHECK_MSG(s && atoi(s) == want[i], "tmpfs: %s is %s, expected %d", names[i], s ? s : "missing", want[i]);
    free(s);
  }
  const char *errs[2] = {"h5.err", "csv.err"};
  for (int i = 0; i < 2; i++) {
    char *e = mr_test_read_file(path_in(errs[i]));
    sh_result fake = {1, e ? e : calloc(1, 1)};
    check_one_line(errs[i], &fake, ".part: write error", "No space left on device");
    printf("tmpfs %s: %s", errs[i], fake.err);
    free(fake.err);
  }
}

/* A recording that cannot be created says why, for HDF5 as for CSV (the library's error
 * stack holds the system's reason). */
static void check_create_reason(void) {
  const char *ext[2] = {"h5", "csv"};
  for (int i = 0; i < 2; i++) {
    char what[64];
    snprintf(what, sizeof what, "cannot create .%s", ext[i]);
    sh_result r = sh("'%s' run '%s' --steps 3 --record '%s/no_such_dir/x.%s' >/dev/null", MOREAU_BIN,
                     PENDULUM, dir, ext[i]);
    MR_CHECK_MSG(r.status == 2, "%s: exit status %d", what, r.status);
    check_one_line(what, &r, "x.", "No such file or directory");
    free(r.err);
  }
}

/* ------------------------------------------------------------------ leftovers, summaries */

static void check_leftover_part(void) {
  const char *rec = path_in("left.csv");
  char part[600], aside[600];
  snprintf(part, sizeof part, "%s.part", rec);
  snprintf(aside, sizeof aside, "%s.part.1", rec);
  unlink(rec), unlink(aside);
  mr_test_write_file(part, "rows a crashed run left\n");
  sh_result r = sh("'%s' run '%s' --steps 5 --record '%s' >/dev/null", MOREAU_BIN, PENDULUM, rec);
  MR_CHECK_MSG(r.status == 0, "leftover part: exit %d: %s", r.status, r.err);
  MR_CHECK_MSG(strstr(r.err, "warning") && strstr(r.err, aside), "leftover part: no warning naming %s: %s",
               aside, r.err);
  char *kept = mr_test_read_file(aside);
  MR_CHECK_MSG(kept && strcmp(kept, "rows a crashed run left\n") == 0, "leftover part: not kept as %s", aside);
  free(kept);
  MR_CHECK(exists(rec) && !exists(part));
  free(r.err);
}

static void check_summary_failure(void) {
  const char *out = path_in("out");
  mkdir(out, 0700);
  char blocker[600];
  snprintf(blocker, sizeof blocker, "%s/summary.csv.part", out);
  mkdir(blocker, 0700); /* a directory where the summary's part file must go */
  sh_result r = sh("'%s' batch '%s' --out '%s' --quiet >'%s'", MOREAU_BIN, path_in("one.toml"), out,
                   path_in("batch.out"));
  MR_CHECK_MSG(r.status == 1, "unwritable summary: exit %d", r.status);
  check_one_line("unwritable summary", &r, "summary.csv", "cannot write");
  char *said = mr_test_read_file(path_in("batch.out"));
  MR_CHECK_MSG(said && !strstr(said, "summary in"), "unwritable summary: stdout still claims it: %s",
               said ? said : "");
  free(said);
  free(r.err);
  rmdir(blocker);
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "writes");
  check_stdout();
  check_file_limit("csv", 200, 20000);
  check_file_limit("h5", 3000, 20000);
  check_contacts_limit();
  check_tmpfs();
  check_create_reason();
  check_leftover_part();
  check_summary_failure();
  MR_REQUIRE(mr_test_rmdir(dir) == 0);
  MR_TEST_END();
}
