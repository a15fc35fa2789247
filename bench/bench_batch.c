/* Batch throughput: `moreau batch` on 1 worker and on every core, next to MuJoCo running
 * the same jobs on as many threads (one mjData per thread, jobs taken from a shared
 * counter, the way a user would batch MuJoCo by hand).
 *
 * Moreau is timed end to end through the command (process start, model load, summary),
 * so its figure is what a user gets; MuJoCo's excludes its model load. Wall clock, since
 * the point is parallel throughput. The table reports the median round. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <mujoco/mujoco.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "bench_common.h"
#include "mujoco_dropped.h"

typedef struct mj_pool {
  const mjModel *m;
  int jobs, steps;
  atomic_int next;
} mj_pool;

/* One worker: take the next job, reset, nudge the start like --seed, step. */
static void *mj_worker(void *arg) {
  mj_pool *p = arg;
  mjData *d = mj_makeData(p->m);
  for (int j; (j = atomic_fetch_add(&p->next, 1)) < p->jobs;) {
    mj_resetData(p->m, d);
    for (int i = 0; i < p->m->nv; i++) d->qvel[i] = bench_seed_nudge(j, i);
    for (int s = 0; s < p->steps; s++) mj_step(p->m, d);
    if (bench_mujoco_dropped(d))
      fprintf(stderr, "bench_batch: MuJoCo dropped contacts in job %d (raise nconmax/njmax in "
                      "the file's <size>): its rate is not comparable\n", j);
  }
  mj_deleteData(d);
  return NULL;
}

static double mujoco_batch(const mjModel *m, int jobs, int steps, int threads) {
  mj_pool p = {m, jobs, steps, 0};
  pthread_t t[64];
  double t0 = now_seconds();
  for (int k = 0; k < threads; k++) pthread_create(&t[k], NULL, mj_worker, &p);
  for (int k = 0; k < threads; k++) pthread_join(t[k], NULL);
  return now_seconds() - t0;
}

static double moreau_batch(const char *spec, const char *out, int threads) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' batch '%s' --jobs %d --out '%s' >/dev/null 2>&1", MOREAU_BIN,
           spec, threads, out);
  double t0 = now_seconds();
  int status = system(cmd);
  double wall = now_seconds() - t0;
  if (status != 0) {
    fprintf(stderr, "bench_batch: '%s' failed (status %d)\n", cmd, status);
    exit(1);
  }
  return wall;
}

static void write_spec(const char *path, const char *model, int jobs, int steps) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  const char *solver = getenv("MOREAU_BENCH_SOLVER");
  fprintf(f, "model = \"%s\"\nsteps = %d\nseed = 1..%d\n", model, steps, jobs);
  if (solver && *solver) fprintf(f, "solver = %s\n", solver);
  fclose(f);
}

int main(int argc, char **argv) {
  /* Nine rounds: a round is a fraction of a second, and on a shared machine whose speed
   * moves within a run the median of three followed it (one-worker ratios of 0.80 and
   * 1.53 from one commit), where nine hold still. */
  bench_args a = {.steps = 1000, .rounds = 9};
  bench_parse_args(argc, argv, "bench_batch", 10, &a);
  if (a.nmodels == 0) a.models[a.nmodels++] = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
  int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1) cores = 1;
  if (cores > 64) cores = 64;
  int jobs = 4 * cores;
  char dir[] = "/tmp/moreau_bench_batch_XXXXXX", spec[128], out[128];
  if (!mkdtemp(dir)) return 1;
  snprintf(spec, sizeof spec, "%s/jobs.toml", dir);
  snprintf(out, sizeof out, "%s/out", dir);
  printf("%d jobs x %d steps, %d rounds, %d cores; steps/s over the whole batch (wall clock)\n",
         jobs, a.steps, a.rounds, cores);
  printf("%-28s %7s %12s %12s %7s %9s\n", "model", "workers", "MuJoCo st/s", "Moreau st/s",
         "ratio", "scaling");
  for (int i = 0; i < a.nmodels; i++) {
    char err[1000] = "";
    mjModel *m = mj_loadXML(a.models[i], NULL, err, sizeof err);
    if (!m) {
      fprintf(stderr, "bench_batch: %s: %s\n", a.models[i], err);
      return 1;
    }
    char model[4096]; /* the spec lives in /tmp, and its paths resolve against it */
    if (!realpath(a.models[i], model)) snprintf(model, sizeof model, "%s", a.models[i]);
    write_spec(spec, model, jobs, a.steps);
    int workers[3] = {1, 2, cores}, nworkers = cores > 2 ? 3 : cores; /* 1, 2 and all cores */
    double moreau_one = 0;
    for (int w = 0; w < nworkers; w++) {
      double mj[MAX_ROUNDS], mr[MAX_ROUNDS];
      for (int r = 0; r < a.rounds; r++) {
        mj[r] = mujoco_batch(m, jobs, a.steps, workers[w]);
        mr[r] = moreau_batch(spec, out, workers[w]);
      }
      double total = (double)jobs * a.steps;
      double mj_rate = total / median(mj, a.rounds), mr_rate = total / median(mr, a.rounds);
      if (w == 0) moreau_one = mr_rate;
      const char *name = strrchr(a.models[i], '/');
      printf("%-28s %7d %12.0f %12.0f %7.2f %8.2fx\n", name ? name + 1 : a.models[i], workers[w],
             mj_rate, mr_rate, mr_rate / mj_rate, mr_rate / moreau_one);
    }
    mj_deleteModel(m);
  }
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : 1;
}
