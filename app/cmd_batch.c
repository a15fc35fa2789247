/* moreau batch JOBS [--jobs N] [--out DIR] [--resume] [--quiet]: many runs in parallel, on
 * one machine or shared across MPI ranks.
 *
 * The flow: read JOBS into a job table (batch_jobs.c); with --resume, take the rows of an
 * earlier summary that are complete (batch_summary.c); deal the rest to the ranks
 * (batch_mpi.c); run this rank's share on a thread pool (batch_pool.c); gather the rows on
 * rank 0, which writes DIR/summary.csv and DIR/summary.json.
 *
 * Nothing is lost to an interruption: the summary is saved about once a second while jobs
 * finish and once at the end, SIGINT/SIGTERM/SIGHUP stop handing out jobs and stop the running
 * ones cleanly (their recordings keep every completed step), and the batch exits with
 * 128 + signal. A job is complete for --resume when its summary row says ok and, if it
 * records, its recording exists under its final name (recordings get that name only once
 * closed). Exit status: 0 when every job is ok, 1 if any is not, 2 for a bad JOBS file. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_jobs.h"
#include "batch_mpi.h"
#include "batch_pool.h"
#include "batch_summary.h"
#include "options.h"
#include "progress.h"

static volatile sig_atomic_t batch_stop_signal = 0;

static void batch_on_signal(int sig) { batch_stop_signal = sig; }

typedef struct batch {
  mr_cli_options o;
  mr_batch_table table;
  mr_batch_result *results;
  int *pending, npending; /* jobs still to run, over all ranks */
  int *mine, nmine;       /* this rank's share */
  mr_batch_mpi mpi;
  char tag[32];
  int quiet_errors; /* ranks other than 0 leave error lines to rank 0 */
  int summary_failed; /* the last attempt to write DIR/summary.* failed (reported once) */
} batch;

static void batch_error(const batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void batch_error(const batch *b, const char *fmt, ...) {
  if (b->quiet_errors) return;
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  mr_cli_error("%s", line);
}

/* ------------------------------------------------------------------ set-up */

static int batch_parse(batch *b, int argc, char **argv) {
  char err[1024];
  if (mr_cli_parse(argc, argv, MR_OPTS_BATCH | MR_OPTS_OUTPUT | MR_OPTS_SUMMARY, &b->o, err,
                   (int)sizeof err)) {
    batch_error(b, "%s", err);
    return -1;
  }
  if (b->o.help) return 0;
  if (!b->o.model_path) {
    batch_error(b, "usage: moreau batch JOBS [--jobs N] [--out DIR] [--resume] (see moreau --help)");
    return -1;
  }
  if (b->o.json) {
    batch_error(b, "option --json does not apply to batch: the summary is DIR/summary.json");
    return -1;
  }
  if (b->o.resume && !b->o.out_dir) {
    batch_error(b, "--resume needs --out DIR (the summary it resumes from)");
    return -1;
  }
  return 0;
}

/* mkdir -p: every missing directory of path. */
static int make_dirs(const char *path) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != 0) continue;
    char c = *p;
    *p = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = c;
    if (c == 0) return 0;
  }
}

static int make_parent_dir(const char *file) {
  const char *slash = strrchr(file, '/');
  if (!slash || slash == file) return 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - file), file);
  return make_dirs(dir);
}

/* --out and the directories of every recording, before any job runs. */
static int batch_make_dirs(const batch *b) {
  if (b->o.out_dir && make_dirs(b->o.out_dir)) {
    batch_error(b, "%s: cannot create the output directory: %s", b->o.out_dir, strerror(errno));
    return -1;
  }
  for (int j = 0; j < b->table.njobs; j++) {
    const mr_cli_options *o = &b->table.jobs[j].opt;
    const char *outputs[2] = {o->record, o->contacts};
    for (int k = 0; k < 2; k++)
      if (outputs[k] && make_parent_dir(outputs[k])) {
        batch_error(b, "%s: cannot create its directory: %s", outputs[k], strerror(errno));
        return -1;
      }
  }
  return 0;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Rank 0 reads the earlier summary; every rank learns which jobs are done. */
static int batch_resume(batch *b) {
  int n = b->table.njobs;
  int *done = calloc((size_t)n + 1, sizeof *done);
  if (!done) return -1;
  int status = 0;
  if (b->mpi.rank == 0 && b->o.resume) {
    char err[1024];
    if (mr_batch_summary_resume(b->o.out_dir, &b->table, b->results, err, (int)sizeof err) < 0) {
      batch_error(b, "%s", err);
      status = -1;
    }
    for (int j = 0; j < n; j++) {
      const mr_cli_options *o = &b->table.jobs[j].opt;
      int outputs_there = (!o->record || file_exists(o->record)) && (!o->contacts || file_exists(o->contacts));
      if (b->results[j].resumed && !outputs_there) memset(&b->results[j], 0, sizeof b->results[j]);
      done[j] = b->results[j].resumed;
    }
  }
  mr_batch_mpi_broadcast(&b->mpi, &status, 1);
  mr_batch_mpi_broadcast(&b->mpi, done, n);
  for (int j = 0; j < n; j++)
    if (!done[j]) b->pending[b->npending++] = j;
  b->nmine = mr_batch_mpi_share(&b->mpi, b->pending, b->npending, b->mine);
  free(done);
  return status;
}

/* ------------------------------------------------------------------ running */

/* A failure is reported once, however many checkpoints fail the same way; the batch then
 * ends with exit 1 and never claims the summary. */
static void batch_save(batch *b) {
  if (!b->o.out_dir || b->mpi.rank != 0) return;
  char err[1024];
  int failed = mr_batch_summary_write(b->o.out_dir, &b->table, b->results, err, (int)sizeof err) != 0;
  if (failed && !b->summary_failed) batch_error(b, "%s", err);
  b->summary_failed = failed;
}

static void batch_checkpoint(void *user) { batch_save(user); }

/* Each rank's pool shares the machine's cores with the other ranks on it. */
static int batch_threads(const batch *b) {
  if (b->o.jobs > 0) return b->o.jobs;
  int n = mr_batch_core_count() / b->mpi.local_size;
  return n > 0 ? n : 1;
}

static int batch_run_pool(batch *b) {
  mr_batch_pool_config c;
  memset(&c, 0, sizeof c);
  c.table = &b->table;
  c.results = b->results;
  c.todo = b->mine;
  c.ntodo = b->nmine;
  c.threads = batch_threads(b);
  c.quiet = b->o.quiet;
  c.tag = b->tag;
  c.stop = &batch_stop_signal;
  c.checkpoint = batch_checkpoint;
  c.user = b;
  if (mr_batch_pool_run(&c) == 0) return 0;
  mr_cli_error("%scannot start worker threads", b->tag);
  return -1;
}

static void signals_install(struct sigaction old[3]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = batch_on_signal;
  sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second Ctrl-C kills at once */
  sigemptyset(&sa.sa_mask);
  batch_stop_signal = 0;
  sigaction(SIGINT, &sa, &old[0]);
  sigaction(SIGTERM, &sa, &old[1]);
  /* under nohup SIGHUP stays ignored, as the user asked */
  sigaction(SIGHUP, NULL, &old[2]);
  if (old[2].sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, NULL);
}

static void signals_restore(const struct sigaction old[3]) {
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
  sigaction(SIGHUP, &old[2], NULL);
}

/* Rank 0's last word: the totals on stdout, and the exit status. A job stopped by a signal
 * is counted as interrupted, not failed: it did nothing wrong. */
static int batch_report(const batch *b, double wall_s) {
  int count[MR_JOB_UNSTABLE + 1] = {0};
  double steps = 0;
  for (int j = 0; j < b->table.njobs; j++) {
    const mr_batch_result *r = &b->results[j];
    count[r->status >= 0 && r->status <= MR_JOB_UNSTABLE ? r->status : MR_JOB_ERROR]++;
    if (!r->resumed) steps += (double)r->steps;
  }
  int failed = count[MR_JOB_DIVERGED] + count[MR_JOB_ERROR] + count[MR_JOB_UNSTABLE];
  printf("%d jobs: %d ok, %d failed, %d interrupted, %d not run", b->table.njobs,
         count[MR_JOB_OK], failed, count[MR_JOB_INTERRUPTED], count[MR_JOB_NOT_RUN]);
  printf("; %.0f steps in %.3g s (%.4g steps/s)", steps, wall_s, wall_s > 0 ? steps / wall_s : 0);
  if (b->o.out_dir && !b->summary_failed) printf("; summary in %s/summary.csv", b->o.out_dir);
  if (b->o.out_dir && b->summary_failed) printf("; no summary (it could not be written)");
  printf("\n");
  if (batch_stop_signal) return 128 + batch_stop_signal;
  if (b->summary_failed) return MR_EXIT_FAILURE;
  return count[MR_JOB_OK] == b->table.njobs ? MR_EXIT_OK : MR_EXIT_FAILURE;
}

static int batch_execute(batch *b) {
  int n = b->table.njobs;
  b->results = calloc((size_t)n, sizeof *b->results);
  b->pending = calloc((size_t)n, sizeof *b->pending);
  b->mine = calloc((size_t)n, sizeof *b->mine);
  if (!b->results || !b->pending || !b->mine) {
    mr_cli_error("out of memory for %d jobs", n);
    return MR_EXIT_FAILURE;
  }
  if (batch_resume(b)) return MR_EXIT_BAD_INPUT;
  struct sigaction old[3];
  signals_install(old);
  double start = mr_wall_seconds();
  int status = batch_run_pool(b) ? MR_EXIT_FAILURE : MR_EXIT_OK;
  mr_batch_mpi_gather(&b->mpi, b->mine, b->nmine, b->results, n);
  double wall_s = mr_wall_seconds() - start;
  if (b->mpi.rank == 0) {
    batch_save(b);
    int report = batch_report(b, wall_s);
    if (status == MR_EXIT_OK) status = report;
  }
  mr_batch_mpi_broadcast(&b->mpi, &status, 1);
  signals_restore(old);
  return status;
}

int mr_cmd_batch(int argc, char **argv) {
  batch b;
  memset(&b, 0, sizeof b);
  b.quiet_errors = mr_batch_mpi_env_rank() > 0;
  if (batch_parse(&b, argc, argv)) return MR_EXIT_BAD_INPUT;
  if (b.o.help) {
    mr_cli_print_usage(stdout);
    return MR_EXIT_OK;
  }
  char err[1024];
  if (mr_batch_table_load(&b.table, b.o.model_path, b.o.out_dir, b.o.quiet, err, (int)sizeof err)) {
    batch_error(&b, "%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  b.table.summary_sensors = b.o.summary_sensors;
  int status = MR_EXIT_BAD_INPUT;
  if (mr_batch_mpi_init(&b.mpi, err, (int)sizeof err)) {
    batch_error(&b, "%s", err);
  } else {
    if (b.mpi.active) snprintf(b.tag, sizeof b.tag, "rank %d: ", b.mpi.rank);
    if (batch_make_dirs(&b) == 0) status = batch_execute(&b);
  }
  mr_batch_mpi_finalize(&b.mpi);
  free(b.results);
  free(b.pending);
  free(b.mine);
  mr_batch_table_free(&b.table);
  return status;
}
