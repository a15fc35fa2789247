/* The newton solver on the steps where contacts change (issue 15 item 1): every step of
 * MuJoCo's humanoid falling from qpos0 converges to the tolerance, piles of tumbling
 * objects converge on all but a few steps, and a newton solve cut short keeps the best
 * point the stage has had, not pgs's last sweep. */
#include <math.h>
#include <stdio.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

static mr_model *load_humanoid(void) {
  mr_model *m = mr_test_load(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", NULL);
  MR_REQUIRE(m);
  return m;
}

/* The largest of the NCP measures the metrics report for the last step. */
static double ncp_error(const mr_data *d) {
  const mr_metrics *e = &d->metrics;
  return fmax(fmax(e->primal, e->dual), fmax(e->complementarity, e->natural_map));
}

/* 20 s from qpos0: the humanoid lands, falls and lies on the floor. Steps 302 and 417 used
 * to stall (the first iterate after a proximal step at eps 1e-6 turned every contact off;
 * a sticking contact starting to slide left Newton steps of 1e-3 of its length) and end
 * in pgs at a natural map of 4.8e-5 and 3.8e-6. Newton now settles every step itself; the
 * mean iteration count is the one the warm path brought (1.48 before). The longest step
 * is a soft restart where the feet's contacts turn between sticking and sliding; which
 * step that is depends on round-off (38 iterations before the warm path's sliding
 * linearization, 77 after it, on a trajectory that parts from the other at 1e-12): the
 * bound keeps such a step below the cap, short of the stall test and pgs's fallback. */
static void test_humanoid_every_step(void) {
  mr_model *m = load_humanoid();
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("newton");
  const int steps = 4000;
  long iters = 0;
  int unconverged = 0, above = 0, maxiter = 0, worst_step = -1;
  double worst = 0;
  for (int step = 0; step < steps; step++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    iters += d->solver_iters;
    unconverged += d->solver_status != 0;
    above += d->metrics.natural_map > 1e-6;
    if (d->solver_iters > maxiter) maxiter = d->solver_iters;
    if (d->metrics.natural_map > worst) worst = d->metrics.natural_map, worst_step = step;
  }
  double mean = (double)iters / steps;
  MR_CHECK_MSG(unconverged == 0, "%d steps not converged", unconverged);
  MR_CHECK_MSG(above == 0, "%d steps with natural map > 1e-6 (worst %g at step %d)", above, worst,
               worst_step);
  MR_CHECK_MSG(worst <= 1e-7, "worst natural map %g at step %d", worst, worst_step);
  MR_CHECK_MSG(maxiter < 85, "a step took %d iterations", maxiter);
  MR_CHECK_MSG(mean < 1.6, "mean iterations %.3f", mean);
  printf("humanoid 20 s newton: mean iterations %.3f, max %d, worst natural map %.2e (step %d)\n",
         mean, maxiter, worst, worst_step);
  mr_data_free(d);
  mr_model_free(m);
}

/* Two replays of the same trajectory (newton, deterministic) part at a probe step: one
 * steps with newton capped at two iterations, so that it stops short and the stage hands
 * the step to pgs with one iteration left; the other steps with pgs capped at one
 * iteration from the same warm start, what the fallback ran. The stage keeps the best of
 * newton's point, the warm start and pgs's, so its error is never above pgs's alone, and
 * where newton's point was better it is strictly below. */
static void test_fallback_keeps_best(void) {
  mr_model *m = load_humanoid();
  mr_data *a = mr_data_create(m), *b = mr_data_create(m);
  MR_REQUIRE(a && b);
  const int newton = mr_solver_find("newton"), pgs = mr_solver_find("pgs");
  const mr_option defaults = a->opt;
  int probes = 0, fell_back = 0, kept = 0, worse = 0;
  for (int probe = 250; probe < 450; probe += 10) {
    mr_data_reset(m, a);
    mr_data_reset(m, b);
    a->opt = b->opt = defaults;
    a->opt.solver = b->opt.solver = newton;
    for (int step = 0; step < probe; step++) {
      MR_REQUIRE(mr_step(m, a) == 0);
      MR_REQUIRE(mr_step(m, b) == 0);
    }
    MR_REQUIRE(a->qpos[2] == b->qpos[2]);
    a->opt.max_iter = 2;
    b->opt.solver = pgs;
    b->opt.max_iter = 1;
    MR_REQUIRE(mr_step(m, a) == 0);
    MR_REQUIRE(mr_step(m, b) == 0);
    probes++;
    if (a->solver_iters <= 2 || a->ncon == 0) continue; /* newton converged itself */
    fell_back++;
    double ea = ncp_error(a), eb = ncp_error(b);
    worse += ea > eb * (1 + 1e-9) + 1e-15;
    kept += ea < 0.5 * eb;
  }
  printf("fallback probes: %d, fell back %d, kept an earlier point %d\n", probes, fell_back, kept);
  MR_CHECK(fell_back >= 5);
  MR_CHECK_MSG(worse == 0, "%d steps ended worse than pgs alone", worse);
  MR_CHECK_MSG(kept >= 1, "no step kept newton's point or the warm start");
  mr_data_free(a);
  mr_data_free(b);
  mr_model_free(m);
}

/* The nudge of bench_contact --seeded and bench_batch: qvel within 1e-3 of zero. */
static double seed_nudge(int seed, int i) {
  return 1e-3 * ((seed * 7919 + i * 104729) % 2001 - 1000) / 1000.0;
}

/* Seeded humanoids (qvel nudged as bench_contact --seeded and bench_batch nudge it): on
 * seeds 52, 53 and 76 newton's line search wrote a third kink per contact (its normal's
 * zero and two rim crossings) into a buffer sized for two per block, over the tree factor's
 * index arrays after it in the arena, and the next factorization crashed within 5 s. */
static void test_seeded_humanoids(void) {
  mr_model *m = load_humanoid();
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  const int seeds[] = {52, 53, 76};
  for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
    mr_data_reset(m, d);
    d->opt.solver = mr_solver_find("newton");
    for (int i = 0; i < m->nv; i++) d->qvel[i] = seed_nudge(seeds[k], i);
    int failed = 0, finite = 1;
    for (int step = 0; step < 1000 && !failed; step++) {
      failed = mr_step(m, d) != 0;
      for (int i = 0; i < m->nq; i++) finite &= isfinite(d->qpos[i]);
    }
    MR_CHECK_MSG(!failed && finite, "seed %d: the step failed or the state is not finite", seeds[k]);
    MR_CHECK_MSG(d->qpos[2] > 0 && d->qpos[2] < 1.5, "seed %d: torso height %g", seeds[k], d->qpos[2]);
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* pile20 from nudged starts, among them the two (11 and 25, of 36) where newton once stalled
 * for most of the run: a body kept rocking or rolling in a pile whose island had contacts
 * its warm start still pushed on and that lift this step. Newton's warm step found them off
 * and restarted soft (a dozen iterations) on nearly every step, and 990 and 1365 of 5000
 * steps ended at the cap. A contact that lifts is now linearized again from the impulses
 * the step reached, as one that turned between sticking and sliding (mr_newton_warm_path).
 * One seed's count is a lottery: the heap is chaotic, and changes that only reorder
 * round-off move a run into or out of a long stall (seed 11 has had 37, 504, 92 and 227
 * steps at the cap across versions that differ so). So the bound is on twelve runs
 * together. They stayed between 0.4% and 0.9% of steps at the cap while a short Newton
 * step left eps where it was (seed 11 alone: 227 steps); raising eps then
 * (mr_newton_soften_more) brought them to 0.02%. Seeds 11 and 25 alone once made 3.9%.
 * Those last steps were not stalls but slow solves cut off at 100 iterations: under
 * newton's own cap (500, registry.c) every step of the twelve runs reached the tolerance.
 * What is left is the lottery itself: an island of a few contacts (a box wedged between
 * the floor and a wall, a capsule leaning on it) where Newton and pgs both end at a natural
 * map near 1e-7 and neither goes lower. Seeds 37-108 have three such steps of 360,000,
 * the natural map at most 1.2e-7; keeping a warm start already a tenth below the tolerance
 * (MR_NEWTON_REST_KEEP) moved them to two (1.6e-7) and seed 25 into one (1.3e-7). So the
 * bound is issue 15's with room: at most one step in 10,000 short of the tolerance, and
 * every step's natural map, measured by metrics.c, below 1e-6. */
static void test_pile_lifting_contacts(void) {
  mr_model *m = mr_test_load(MR_TEST_MODEL("pile20.xml"), NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  const int seeds[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 25};
  long capped = 0, iters = 0, total = 0;
  double worst = 0;
  for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
    mr_data_reset(m, d);
    d->opt.solver = mr_solver_find("newton");
    for (int i = 0; i < m->nv; i++) d->qvel[i] = seed_nudge(seeds[k], i);
    int steps = (int)(10.0 / d->opt.timestep + 0.5), run_capped = 0;
    long run_iters = 0;
    for (int step = 0; step < steps; step++) {
      MR_REQUIRE(mr_step(m, d) == 0);
      run_capped += d->solver_status != 0;
      run_iters += d->solver_iters;
      worst = fmax(worst, d->metrics.natural_map);
    }
    printf("pile20 seed %d: %d of %d steps at the cap, %.2f iterations per step\n", seeds[k],
           run_capped, steps, (double)run_iters / steps);
    capped += run_capped;
    iters += run_iters;
    total += steps;
  }
  MR_CHECK_MSG(capped <= total / 10000, "%ld of %ld steps at the cap", capped, total);
  MR_CHECK_MSG(worst < 1e-6, "worst natural map %g", worst);
  MR_CHECK_MSG(iters <= 8 * total, "%.2f iterations per step", (double)iters / total);
  mr_data_free(d);
  mr_model_free(m);
}

/* humanoid100 from nudged starts: a humanoid and 100 free bodies falling into a heap, where
 * objects tumble and spin on the floor and on each other. Coulomb's law leaves Newton's
 * direction a descent direction for tiny steps only there, or none (two contacts at
 * y_N = 0, each side's direction leaving into the other), and newton stalled on 8% of
 * steps, which pgs's fallback left at the cap (seeds 1-3: 72, 62 and 89 of 1000 steps,
 * 24.7 iterations per step). A short step now raises the proximal weight, whose softer
 * problem is monotone, and a window with a proximal step is not a stall: 22 steps of
 * 3000 at the cap, 19.4 iterations per step. Newton starting again from the point ten pgs
 * sweeps reach, where it stops short, brought that to 14; moving the proximal centre as
 * soon as the point settles to the scale of the move (MR_NEWTON_INEXACT), to 2, and the
 * iterations per step from 18.6 to 14.9; a soft start at eps = 1 instead of 1e-2, to 12.3.
 * The two left needed 100 to 200 iterations: under newton's own cap (500) none stops
 * short, and every step's natural map is below 1e-6. The bound is on Newton's own
 * iterations: since pgs first (newton.c) a warm path that misses takes ten pgs sweeps
 * before Newton goes on, a tenth of an iteration's work each, counted apart
 * (d->solver_sweeps). */
static void test_humanoid100_tumbling(void) {
  mr_model *m = mr_test_load(MUJOCO_MODEL_DIR "/humanoid100/humanoid100.xml", NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  long capped = 0, iters = 0, sweeps = 0, total = 0;
  double worst = 0;
  for (int seed = 1; seed <= 3; seed++) {
    mr_data_reset(m, d);
    d->opt.solver = mr_solver_find("newton");
    for (int i = 0; i < m->nv; i++) d->qvel[i] = seed_nudge(seed, i);
    int steps = (int)(5.0 / d->opt.timestep + 0.5);
    for (int step = 0; step < steps; step++) {
      MR_REQUIRE(mr_step(m, d) == 0);
      capped += d->nefc > 0 && d->solver_status != 0;
      iters += d->solver_iters - d->solver_sweeps;
      sweeps += d->solver_sweeps;
      worst = fmax(worst, d->metrics.natural_map);
    }
    total += steps;
  }
  printf("humanoid100, seeds 1-3: %ld of %ld steps at the cap, %.2f Newton iterations and %.2f pgs "
         "sweeps per step\n", capped, total, (double)iters / total, (double)sweeps / total);
  MR_CHECK_MSG(capped == 0, "%ld of %ld steps at the cap", capped, total);
  MR_CHECK_MSG(worst < 1e-6, "worst natural map %g", worst);
  MR_CHECK_MSG(iters <= 14 * total, "%.2f iterations per step", (double)iters / total);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_humanoid100_tumbling();
  test_pile_lifting_contacts();
  test_seeded_humanoids();
  test_humanoid_every_step();
  test_fallback_keeps_best();
  MR_TEST_END();
}
