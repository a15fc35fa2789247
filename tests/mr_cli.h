/* Running the built moreau command from a test: the shell runs it with stdout and stderr
 * captured in files under the test's scratch directory, and the test reads them back. */
#ifndef MR_CLI_H
#define MR_CLI_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mr_test.h"

typedef struct cli_result {
  int status; /* exit status, or 128 + signal */
  char *out, *err;
} cli_result;

static inline int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static inline int count_char(const char *s, char c) {
  int n = 0;
  for (; *s; s++) n += *s == c;
  return n;
}

/* Runs "[prefix] BIN args" in the shell; its output goes through DIR/stdout and DIR/stderr. */
static inline cli_result mr_cli_run(const char *dir, const char *prefix, const char *args) {
  char cmd[8192], out_path[400], err_path[400];
  snprintf(out_path, sizeof out_path, "%s/stdout", dir);
  snprintf(err_path, sizeof err_path, "%s/stderr", dir);
  snprintf(cmd, sizeof cmd, "%s '%s' %s >'%s' 2>'%s'", prefix, MOREAU_BIN, args, out_path,
           err_path);
  int raw = system(cmd);
  cli_result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = mr_test_read_file(out_path);
  r.err = mr_test_read_file(err_path);
  if (!r.out) r.out = calloc(1, 1);
  if (!r.err) r.err = calloc(1, 1);
  return r;
}

static inline void cli_free(cli_result *r) {
  free(r->out);
  free(r->err);
}

#endif
