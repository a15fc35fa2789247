/* Worker threads, shared models and progress of a batch (batch_pool.h).
 *
 * One mutex guards the queue, the counters and the results as they are stored; a second
 * one serializes model loading, so a slow load never stalls workers that only report a
 * result. Worker threads block SIGINT/SIGTERM/SIGHUP: the signal lands in the calling thread,
 * whose handler only sets the stop flag, and no recording write is cut by EINTR. */
#include "batch_pool.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "simulate.h"

enum { BAR_WIDTH = 24 };
static const double redraw_interval_s = 0.1;
static const double checkpoint_interval_s = 1.0;

typedef struct shared_model {
  const mr_cli_options *key; /* the first job that names this model file and load options */
  int state;                 /* 0 not loaded yet, 1 loaded, -1 failed */
  mr_model *model;
  char message[512];
} shared_model;

typedef struct pool {
  const mr_batch_pool_config *c;
  pthread_mutex_t lock, load_lock;
  pthread_cond_t changed;
  int next, running, done, failed, workers_left, unsaved;
  shared_model *models;
  int nmodels;
  int *model_of; /* per job index: its entry in models */
  int tty;
  double start;
} pool;

int mr_batch_core_count(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* ------------------------------------------------------------------ models */

static int same_text(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int same_model(const mr_cli_options *a, const mr_cli_options *b) {
  const mr_load_options *x = &a->load, *y = &b->load;
  /* Servo gains chosen at load come from the start pose: one model per keyframe. */
  int same_hold = x->hold == y->hold && x->hold_kp == y->hold_kp && x->hold_kd == y->hold_kd &&
                  same_text(a->keyframe, b->keyframe);
  return strcmp(a->model_path, b->model_path) == 0 && x->floating == y->floating &&
         same_text(x->package_path, y->package_path) && same_text(x->srdf, y->srdf) &&
         x->floor == y->floor && x->self_collision == y->self_collision &&
         x->strict == y->strict && same_hold;
}

/* Groups the jobs to run by model, before any thread starts. */
static int pool_models_index(pool *p) {
  const mr_batch_pool_config *c = p->c;
  p->models = calloc((size_t)c->ntodo + 1, sizeof *p->models);
  p->model_of = calloc((size_t)c->table->njobs + 1, sizeof *p->model_of);
  if (!p->models || !p->model_of) return -1;
  for (int i = 0; i < c->ntodo; i++) {
    const mr_cli_options *o = &c->table->jobs[c->todo[i]].opt;
    int k = 0;
    while (k < p->nmodels && !same_model(p->models[k].key, o)) k++;
    if (k == p->nmodels) p->models[p->nmodels++].key = o;
    p->model_of[c->todo[i]] = k;
  }
  return 0;
}

static void pool_models_free(pool *p) {
  for (int k = 0; k < p->nmodels; k++) mr_model_free(p->models[k].model);
  free(p->models);
  free(p->model_of);
}

/* The job's model, loaded on first use; NULL with the loader's message on failure. */
static const mr_model *pool_model(pool *p, int job, const char **message) {
  shared_model *s = &p->models[p->model_of[job]];
  pthread_mutex_lock(&p->load_lock);
  if (s->state == 0) {
    mr_load_options load = s->key->load;
    load.quiet = s->key->quiet;
    load.keyframe = s->key->keyframe;
    load.meshes = MR_MESHES_COLLISION;
    s->model = mr_model_load(s->key->model_path, &load, s->message, (int)sizeof s->message);
    s->state = s->model ? 1 : -1;
    if (!s->model && !s->message[0])
      snprintf(s->message, sizeof s->message, "%s: cannot load the model", s->key->model_path);
  }
  pthread_mutex_unlock(&p->load_lock);
  *message = s->message;
  return s->model;
}

/* ------------------------------------------------------------------ one job */

static double mean(double sum, long n) { return n > 0 ? sum / (double)n : 0; }

static void result_from_stats(mr_batch_result *r, const mr_sim_stats *s, const mr_data *d) {
  r->ran = s->ran;
  snprintf(r->solver, sizeof r->solver, "%s", mr_sim_solver_name(d));
  snprintf(r->integrator, sizeof r->integrator, "%s", mr_cli_integrator_name(d->opt.integrator));
  r->dt = d->opt.timestep;
  r->steps = s->steps;
  r->steps_requested = s->steps_requested;
  r->rows = s->rows;
  r->sim_time = s->time_end - s->time_start;
  r->wall_s = s->wall_s;
  r->steps_per_s = s->wall_s > 0 ? (double)s->steps / s->wall_s : 0;
  r->mean_iters = mean(s->sum_iters, s->steps);
  r->max_iters = s->max_iters;
  r->max_residual = s->max_residual;
  r->max_primal = s->metrics_max.primal;
  r->max_dual = s->metrics_max.dual;
  r->max_complementarity = s->metrics_max.complementarity;
  r->max_penetration = s->metrics_max.penetration;
  r->energy_start = s->energy_start;
  r->energy_end = s->energy_end;
  r->energy_drift = s->energy_end - s->energy_start;
  r->sensors = s->sensors;
  r->steps_not_converged = s->steps_capped; /* as run --json */
  r->steps_solver_failed = s->steps_failed;
  r->max_natural_map = s->metrics_max.natural_map;
}

static void result_status(mr_batch_result *r, int exit_status, const mr_sim_stats *s, const char *err) {
  if (exit_status == MR_EXIT_OK) r->status = MR_JOB_OK;
  else if (s->diverged) r->status = MR_JOB_DIVERGED;
  else if (exit_status >= 128) r->status = MR_JOB_INTERRUPTED;
  else if (s->unstable) r->status = MR_JOB_UNSTABLE;
  else r->status = MR_JOB_ERROR;
  if (r->status == MR_JOB_OK) r->message[0] = 0;
  else if (err[0]) snprintf(r->message, sizeof r->message, "%s", err);
  else snprintf(r->message, sizeof r->message, "diverged at step %ld", s->diverged_step);
}

/* A worker's data, kept from job to job while they share a model: creating one per job
 * zeroed its whole arena (sized for the worst contact count) every time, which cost as
 * much as a short job's steps. Reused, it starts each job as a new one does: the model's
 * options, then mr_sim_execute's reset of the state; the arena is per-step scratch that
 * no step reads before writing. */
typedef struct worker_data {
  const mr_model *m;
  mr_data *d;
} worker_data;

static mr_data *worker_data_for(worker_data *w, const mr_model *m) {
  if (w->d && w->m == m) {
    w->d->opt = m->opt;
    return w->d;
  }
  mr_data_free(w->d);
  w->d = mr_data_create(m);
  w->m = w->d ? m : NULL;
  return w->d;
}

static void pool_run_job(pool *p, int job, worker_data *w, mr_batch_result *r) {
  const mr_batch_job *jb = &p->c->table->jobs[job];
  memset(r, 0, sizeof *r);
  const char *message;
  const mr_model *m = pool_model(p, job, &message);
  if (!m) {
    r->status = MR_JOB_ERROR;
    snprintf(r->message, sizeof r->message, "%s", message);
    return;
  }
  mr_data *d = worker_data_for(w, m);
  if (!d) {
    r->status = MR_JOB_ERROR;
    snprintf(r->message, sizeof r->message, "%s: out of memory for the data", jb->opt.model_path);
    return;
  }
  mr_sim_hooks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.stop = p->c->stop;
  mr_sim_stats stats;
  char err[512] = "";
  mr_cli_options opt = jb->opt;
  opt.summary_sensors = p->c->table->summary_sensors;
  int status = mr_sim_execute(&opt, m, d, &hooks, &stats, err, (int)sizeof err);
  result_from_stats(r, &stats, d);
  result_status(r, status, &stats, err);
}

/* ------------------------------------------------------------------ progress */

static void pool_report_line(pool *p, int job, const mr_batch_result *r) {
  const mr_batch_pool_config *c = p->c;
  if (c->quiet) return;
  if (p->tty) fputs("\r\033[K", stderr); /* the bar is redrawn below the line */
  if (r->status == MR_JOB_OK)
    fprintf(stderr, "%sjob %d/%d ok %s (%.3g s, %.4g steps/s)\n", c->tag, job + 1,
            c->table->njobs, c->table->jobs[job].label, r->wall_s, r->steps_per_s);
  else
    fprintf(stderr, "%sjob %d/%d %s %s: %s\n", c->tag, job + 1, c->table->njobs,
            mr_job_status_name(r->status), c->table->jobs[job].label, r->message);
  fflush(stderr);
}

static void pool_draw_bar(const pool *p) {
  int total = p->c->ntodo;
  double elapsed = mr_wall_seconds() - p->start;
  int filled = total > 0 ? p->done * BAR_WIDTH / total : BAR_WIDTH;
  char bar[BAR_WIDTH + 1];
  for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '-';
  bar[BAR_WIDTH] = 0;
  char eta[32] = "ETA --";
  if (p->done > 0) snprintf(eta, sizeof eta, "ETA %.0f s", elapsed / p->done * (total - p->done));
  fprintf(stderr, "\r%s[%s] %d/%d done, %d failed, %d running, %s\033[K", p->c->tag, bar, p->done,
          total, p->failed, p->running, eta);
  fflush(stderr);
}

/* ------------------------------------------------------------------ workers */

static void *pool_worker(void *arg) {
  pool *p = arg;
  const mr_batch_pool_config *c = p->c;
  worker_data w = {NULL, NULL};
  pthread_mutex_lock(&p->lock);
  while (!*c->stop && p->next < c->ntodo) {
    int job = c->todo[p->next++];
    p->running++;
    pthread_mutex_unlock(&p->lock);
    mr_batch_result r;
    pool_run_job(p, job, &w, &r);
    pthread_mutex_lock(&p->lock);
    c->results[job] = r;
    p->running--;
    p->done++;
    p->failed += r.status != MR_JOB_OK && r.status != MR_JOB_INTERRUPTED;
    p->unsaved = 1;
    pool_report_line(p, job, &r);
    pthread_cond_signal(&p->changed);
  }
  p->workers_left--;
  pthread_cond_signal(&p->changed);
  pthread_mutex_unlock(&p->lock);
  mr_data_free(w.d);
  return NULL;
}

static void deadline_after(struct timespec *ts, double seconds) {
  clock_gettime(CLOCK_REALTIME, ts);
  long ns = ts->tv_nsec + (long)(seconds * 1e9);
  ts->tv_sec += ns / 1000000000L;
  ts->tv_nsec = ns % 1000000000L;
}

/* The calling thread: redraws the bar and saves checkpoints until the workers are gone. */
static void pool_watch(pool *p) {
  double last_save = mr_wall_seconds(), interval = checkpoint_interval_s;
  pthread_mutex_lock(&p->lock);
  while (p->workers_left > 0) {
    struct timespec ts;
    deadline_after(&ts, redraw_interval_s);
    pthread_cond_timedwait(&p->changed, &p->lock, &ts);
    if (p->c->tick) {
      pthread_mutex_unlock(&p->lock);
      p->c->tick(p->c->user);
      pthread_mutex_lock(&p->lock);
    }
    if (p->tty && !p->c->quiet) pool_draw_bar(p);
    double now = mr_wall_seconds();
    if (p->unsaved && p->c->checkpoint && now - last_save >= interval) {
      p->c->checkpoint(p->c->user);
      p->unsaved = 0;
      last_save = mr_wall_seconds();
      /* The workers wait on the lock while the summary is written: a summary of many rows
       * (100,000 jobs: seconds) is saved at most a tenth of the time, or every checkpoint
       * would start as the last one ended and the batch would mostly write summaries. */
      interval = fmax(checkpoint_interval_s, 10 * (last_save - now));
    }
  }
  if (p->tty && !p->c->quiet) fputs("\r\033[K", stderr);
  pthread_mutex_unlock(&p->lock);
}

static int pool_start(pool *p, pthread_t *threads, int n) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  int started = 0;
  pthread_mutex_lock(&p->lock);
  for (; started < n; started++) {
    if (pthread_create(&threads[started], NULL, pool_worker, p) != 0) break;
    p->workers_left++;
  }
  pthread_mutex_unlock(&p->lock);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return started;
}

int mr_batch_pool_run(const mr_batch_pool_config *c) {
  pool p;
  memset(&p, 0, sizeof p);
  p.c = c;
  p.tty = isatty(STDERR_FILENO);
  p.start = mr_wall_seconds();
  int n = c->threads < c->ntodo ? c->threads : c->ntodo;
  if (n < 1) n = c->ntodo > 0 ? 1 : 0;
  pthread_t *threads = calloc((size_t)n + 1, sizeof *threads);
  if (!threads || pool_models_index(&p)) {
    free(threads);
    pool_models_free(&p);
    return -1;
  }
  pthread_mutex_init(&p.lock, NULL);
  pthread_mutex_init(&p.load_lock, NULL);
  pthread_cond_init(&p.changed, NULL);
  int started = pool_start(&p, threads, n);
  if (started > 0) pool_watch(&p);
  for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
  pthread_cond_destroy(&p.changed);
  pthread_mutex_destroy(&p.load_lock);
  pthread_mutex_destroy(&p.lock);
  pool_models_free(&p);
  free(threads);
  return started > 0 || n == 0 ? 0 : -1;
}
