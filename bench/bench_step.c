/* The C side of bench/bench_python.py: the plain loop that moreau.step(m, d, N) runs,
 *
 *     for (i = 0; i < N; i++) mr_step(m, d);
 *
 * from the model's initial state (mr_data_reset before every round), timed per round with
 * the model loaded and the data made beforehand, in the thread's CPU time (what the loop
 * itself costs: on a shared machine the wall clock also counts other processes' turns, and
 * bench_python.py times its side the same way). Prints one JSON object per model:
 * {"model": PATH, "steps": N, "us_per_step": [one number per round]}. bench_python.py
 * runs it round by round, alternating with the same loop called from Python. */
#include "bench_common.h"
#include "moreau.h"

static double thread_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  bench_args args = {.steps = 1000, .rounds = 1};
  bench_parse_args(argc, argv, "bench_step", 1, &args);
  if (args.nmodels == 0) args.models[args.nmodels++] = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
  for (int k = 0; k < args.nmodels; k++) {
    char err[1024] = "";
    mr_load_options opt = {.quiet = 1};
    mr_model *m = mr_model_load(args.models[k], &opt, err, (int)sizeof err);
    if (!m) {
      fprintf(stderr, "bench_step: %s\n", err);
      return 2;
    }
    mr_data *d = mr_data_create(m);
    printf("{\"model\": \"%s\", \"steps\": %d, \"us_per_step\": [", args.models[k], args.steps);
    for (int r = 0; r < args.rounds; r++) {
      mr_data_reset(m, d);
      double start = thread_seconds();
      for (int i = 0; i < args.steps; i++) mr_step(m, d);
      double us = 1e6 * (thread_seconds() - start) / args.steps;
      printf("%s%.6g", r ? ", " : "", us);
    }
    printf("]}\n");
    mr_data_free(d);
    mr_model_free(m);
  }
  return 0;
}
