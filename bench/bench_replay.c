/* Two solver settings on the same problems: a reference trajectory is stepped with one
 * (the reference), and at every step a copy of its state (mr_data_copy: warm start and
 * contacts included) is stepped with the other (the probe) and thrown away. Both then solve
 * exactly the same contact problems, step for step.
 *
 * Why: contact dynamics is chaotic, so two settings run side by side from the same start
 * part after a second and meet different landings, slides and heaps; the iterations of a
 * nudged humanoid over 5 s differ by a tenth between two seeds of one setting. A change of
 * the solver judged that way is judged by its draw. Here only the solver differs.
 *
 * Solver time is d->metrics.solver_time (CPU time of the solve alone); which of the two
 * steps first alternates from step to step, so neither always meets warm caches. */
#include "bench_common.h"
#include "moreau.h"

typedef struct replay_side {
  long iters, capped, fewer;
  double solver_time, worst;
} replay_side;

typedef struct replay_setting {
  int solver;
  double tol; /* 0: the model's */
} replay_setting;

static void replay_apply(mr_data *d, const replay_setting *s, double model_tol) {
  d->opt.solver = s->solver;
  d->opt.tol = s->tol > 0 ? s->tol : model_tol;
}

static void replay_count(replay_side *side, const mr_data *d, int other_iters) {
  side->iters += d->solver_iters;
  side->capped += d->nefc > 0 && d->solver_status != 0;
  side->fewer += d->solver_iters < other_iters;
  side->solver_time += d->metrics.solver_time;
  if (d->metrics.natural_map > side->worst) side->worst = d->metrics.natural_map;
}

static void replay_print(const char *name, const replay_side *s, double steps) {
  printf("  %-22s %8.3f %10.2f %8ld %10.1e %8ld\n", name, s->iters / steps,
         1e6 * s->solver_time / steps, s->capped, s->worst, s->fewer);
}

static int replay_model(const char *path, int steps, int seeds, const replay_setting *ref,
                        const replay_setting *probe, const char *ref_name, const char *probe_name) {
  char err[1000];
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "bench_replay: %s\n", err);
    return 1;
  }
  mr_data *d = mr_data_create(m), *e = mr_data_create(m);
  if (!d || !e) return 1;
  const double model_tol = d->opt.tol;
  replay_side a = {0}, b = {0};
  for (int seed = 1; seed <= seeds; seed++) {
    mr_data_reset(m, d);
    replay_apply(d, ref, model_tol);
    for (int i = 0; i < m->nv; i++) d->qvel[i] = bench_seed_nudge(seed, i);
    for (int k = 0; k < steps; k++) {
      if (mr_data_copy(m, e, d)) return 1;
      replay_apply(e, probe, model_tol);
      if (k % 2) mr_step(m, e);
      mr_step(m, d);
      if (!(k % 2)) mr_step(m, e);
      replay_count(&a, d, e->solver_iters);
      replay_count(&b, e, d->solver_iters);
    }
  }
  const char *base = strrchr(path, '/');
  printf("%s: %d seeds x %d steps, the reference's trajectory\n", base ? base + 1 : path, seeds, steps);
  printf("  %-22s %8s %10s %8s %10s %8s\n", "setting", "iters", "solver us", "capped", "natural",
         "fewer");
  double n = (double)steps * seeds;
  replay_print(ref_name, &a, n);
  replay_print(probe_name, &b, n);
  printf("  probe / reference: iterations %.3f, solver time %.3f\n\n",
         a.iters ? (double)b.iters / a.iters : 1, a.solver_time > 0 ? b.solver_time / a.solver_time : 1);
  mr_data_free(d), mr_data_free(e);
  mr_model_free(m);
  return 0;
}

static void usage(void) {
  fprintf(stderr, "usage: bench_replay [--solver NAME] [--probe NAME] [--probe-tol X] "
                  "[--steps N --seeds K] [MODEL.xml ...]\n");
  exit(2);
}

int main(int argc, char **argv) {
  const char *ref_solver = "newton", *probe_solver = NULL, *models[MAX_MODELS];
  double probe_tol = 0;
  int steps = 0, seeds = 0, nmodels = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--solver") && i + 1 < argc) ref_solver = argv[++i];
    else if (!strcmp(argv[i], "--probe") && i + 1 < argc) probe_solver = argv[++i];
    else if (!strcmp(argv[i], "--probe-tol") && i + 1 < argc) probe_tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seeds") && i + 1 < argc) seeds = atoi(argv[++i]);
    else if (argv[i][0] != '-' && nmodels < MAX_MODELS) models[nmodels++] = argv[i];
    else usage();
  }
  if (!probe_solver) probe_solver = probe_tol > 0 ? ref_solver : "pgs";
  replay_setting ref = {mr_solver_find(ref_solver), 0}, probe = {mr_solver_find(probe_solver), probe_tol};
  if (ref.solver < 0 || probe.solver < 0 || steps < 0 || seeds < 0 || probe_tol < 0) usage();
  char probe_name[64];
  snprintf(probe_name, sizeof probe_name, probe_tol > 0 ? "%s, tol %g" : "%s", probe_solver, probe_tol);
  /* the seeded scenes, with the steps and seeds of bench_contact --seeded */
  struct { const char *path; int steps, seeds; } scenes[] = {
      {MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 1000, 8},
      {MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", 500, 1},
      {MOREAU_SOURCE_DIR "/models/pile20.xml", 5000, 6},
      {MOREAU_SOURCE_DIR "/models/clutter.xml", 2500, 6},
  };
  int failed = 0;
  if (nmodels == 0)
    for (size_t s = 0; s < sizeof scenes / sizeof *scenes; s++)
      failed |= replay_model(scenes[s].path, steps ? steps : scenes[s].steps, seeds ? seeds : scenes[s].seeds,
                             &ref, &probe, ref_solver, probe_name);
  for (int s = 0; s < nmodels; s++)
    failed |= replay_model(models[s], steps ? steps : 1000, seeds ? seeds : 4, &ref, &probe, ref_solver,
                           probe_name);
  printf("iters: mean solver iterations per step; solver us: CPU time of the solve per step; capped:\n"
         "steps at the iteration cap; natural: worst natural map; fewer: steps where this setting\n"
         "took fewer iterations than the other on the same problem.\n");
  return failed;
}
