/* Running the built moreau command from a test as a measured child: fork/exec with stdin
 * from /dev/null and stdout/stderr to files, an alarm armed in the child (alarms survive
 * exec, so a hang ends as SIGALRM), and wait4 for the child's own CPU time and peak
 * memory. A test including this defines _DEFAULT_SOURCE (wait4) before any include. */
#ifndef MR_RUN_H
#define MR_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mr_test.h"

typedef struct mr_child {
  int exited;    /* 1: it exited, with status */
  int status;    /* exit status, or -1 */
  int signal;    /* the signal that ended it, or 0 */
  double wall_s; /* wall time */
  double cpu_s;  /* its user + system CPU time */
  long rss_kb;   /* its peak resident memory */
} mr_child;

/* At most cap - 1 bytes of the file, NUL-terminated ("" if it cannot be read). */
static inline void mr_read_text(const char *path, char *buf, size_t cap) {
  buf[0] = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return;
  size_t n = fread(buf, 1, cap - 1, f);
  buf[n] = 0;
  fclose(f);
}

static inline double mr_run_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs MOREAU_BIN with args (NULL-ended, without argv[0]); out_path and err_path receive
 * its stdout and stderr (NULL: /dev/null); it is killed by SIGALRM after hang_s seconds. */
static inline mr_child mr_run_moreau(const char *const *args, const char *out_path,
                                     const char *err_path, int hang_s) {
  char *argv[32];
  int argc = 0;
  argv[argc++] = (char *)MOREAU_BIN;
  for (int i = 0; args[i] && argc < 31; i++) argv[argc++] = (char *)args[i];
  argv[argc] = NULL;
  fflush(NULL);
  double t0 = mr_run_now();
  pid_t pid = fork();
  if (pid == 0) {
    int in = open("/dev/null", O_RDONLY);
    int out = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path ? err_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    alarm((unsigned)hang_s);
    execv(argv[0], argv);
    _exit(127);
  }
  MR_REQUIRE(pid > 0);
  int st = 0;
  struct rusage ru;
  while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
  }
  mr_child c;
  c.wall_s = mr_run_now() - t0;
  c.exited = WIFEXITED(st);
  c.status = c.exited ? WEXITSTATUS(st) : -1;
  c.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  c.cpu_s = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
            (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  c.rss_kb = ru.ru_maxrss;
  return c;
}

#endif
