/* Contacts against MuJoCo 2.2 on the same poses.
 *
 * MuJoCo simulates (with its own contacts and solver) and after every step its qpos is
 * copied into Moreau, which runs kinematics and collision only: both engines then look at
 * exactly the same scene, whatever Moreau's dynamics would have done.
 *
 * Humanoid falling on its floor (2 s): the contact counts must be in the same range. The
 * bound per step, where MuJoCo has contacts, is mj <= moreau <= 2 mj + 4:
 *   - Moreau reports every pair MuJoCo does (same filters, same zero margin), so not fewer;
 *   - MuJoCo gives 1 point per sphere-plane and capsule-capsule pair and 1-2 per
 *     capsule-plane (one per end sphere below the plane); Moreau's manifolds give the same
 *     1 per sphere, 2 for a lying capsule, and up to 2 for near-parallel capsules, so at
 *     most twice as many per pair;
 *   - + 4 for pairs that graze at |dist| ~ 1e-12, which round-off may put on either side.
 * The test also checks that every geom pair MuJoCo reports is among Moreau's.
 *
 * models/pile200.xml, 200 mixed primitives dropped into a box: along MuJoCo's trajectory
 * Moreau never exceeds its contact capacity and every contact is finite; then Moreau steps
 * the pile on its own (no solver yet: the bodies fall through one another) without NaN. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "moreau.h"
#include "mr_test.h"

/* A narrowphase that never returns (an iteration without a cap) would otherwise hold the
 * whole ctest run until its timeout: fail fast, saying where. */
enum { WATCHDOG_SECONDS = 240 };
static volatile sig_atomic_t watchdog_step = -1;

static void watchdog_fire(int sig) {
  (void)sig;
  char msg[160];
  int n = snprintf(msg, sizeof msg, "test_mj_contacts: collision still running after %d s (at step %d): "
                   "a narrowphase routine does not terminate\n", WATCHDOG_SECONDS, (int)watchdog_step);
  if (n > 0) (void)!write(2, msg, (size_t)n);
  _exit(1);
}

typedef struct range_stats {
  int mj_min, mj_max, mr_min, mr_max, max_diff, steps_with_contact, pairs_missing;
  double mj_sum, mr_sum;
  int steps;
} range_stats;

static void stats_init(range_stats *s) {
  memset(s, 0, sizeof *s);
  s->mj_min = s->mr_min = 1 << 30;
}

static void stats_add(range_stats *s, int mj, int mr) {
  s->mj_min = mj < s->mj_min ? mj : s->mj_min;
  s->mj_max = mj > s->mj_max ? mj : s->mj_max;
  s->mr_min = mr < s->mr_min ? mr : s->mr_min;
  s->mr_max = mr > s->mr_max ? mr : s->mr_max;
  int diff = abs(mr - mj);
  s->max_diff = diff > s->max_diff ? diff : s->max_diff;
  s->mj_sum += mj;
  s->mr_sum += mr;
  s->steps++;
  if (mj > 0) s->steps_with_contact++;
}

static void stats_print(const char *name, const range_stats *s) {
  printf("%s: %d steps (%d with MuJoCo contacts)\n", name, s->steps, s->steps_with_contact);
  printf("  MuJoCo contacts per step: %d .. %d (mean %.2f)\n", s->mj_min, s->mj_max, s->mj_sum / s->steps);
  printf("  Moreau contacts per step: %d .. %d (mean %.2f)\n", s->mr_min, s->mr_max, s->mr_sum / s->steps);
  printf("  largest per-step difference: %d; MuJoCo pairs missing in Moreau: %d\n", s->max_diff,
         s->pairs_missing);
}

/* The contacts MuJoCo's rule would report: dist <= margin. Moreau also keeps a pair's
 * contacts that lift a little beyond the margin after a step (collision/band.h: present for
 * the rigid solvers, which let them separate), and those have no MuJoCo counterpart. */
static int moreau_within_margin(const mr_data *d) {
  int n = 0;
  for (int i = 0; i < d->ncon; i++) n += d->contact[i].dist <= d->contact[i].margin;
  return n;
}

static int moreau_has_pair(const mr_data *d, int g1, int g2) {
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    if ((c->geom1 == g1 && c->geom2 == g2) || (c->geom1 == g2 && c->geom2 == g1)) return 1;
  }
  return 0;
}

static int contacts_finite(const mr_data *d) {
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    double s = c->dist + c->pos[0] + c->pos[1] + c->pos[2];
    for (int k = 0; k < 9; k++) s += c->frame[k];
    if (!isfinite(s)) return 0;
  }
  return 1;
}

typedef struct engines {
  mjModel *m;
  mjData *d;
  mr_model *mm;
  mr_data *md;
} engines;

static void engines_open(engines *e, const char *path) {
  char err[1024] = "";
  e->m = mj_loadXML(path, NULL, err, sizeof err);
  if (!e->m) fprintf(stderr, "MuJoCo: %s: %s\n", path, err);
  MR_REQUIRE(e->m);
  mr_load_options opt = {0};
  opt.quiet = 1;
  e->mm = mr_model_load(path, &opt, err, sizeof err);
  if (!e->mm) fprintf(stderr, "Moreau: %s: %s\n", path, err);
  MR_REQUIRE(e->mm);
  MR_REQUIRE(e->mm->nq == e->m->nq && e->mm->ngeom == e->m->ngeom);
  e->d = mj_makeData(e->m);
  e->md = mr_data_create(e->mm);
  MR_REQUIRE(e->d && e->md);
}

static void engines_close(engines *e) {
  mr_data_free(e->md);
  mr_model_free(e->mm);
  mj_deleteData(e->d);
  mj_deleteModel(e->m);
}

/* One MuJoCo step, then Moreau's collision on MuJoCo's new pose (MuJoCo's contacts of
 * that pose come from mj_forward, so both engines see the same configuration). */
static void step_both(engines *e) {
  mj_step(e->m, e->d);
  mj_forward(e->m, e->d);
  memcpy(e->md->qpos, e->d->qpos, sizeof(double) * e->m->nq);
  mr_kinematics(e->mm, e->md);
  mr_collide(e->mm, e->md);
}

static void test_humanoid(void) {
  engines e;
  engines_open(&e, MUJOCO_MODEL_DIR "/humanoid/humanoid.xml");
  range_stats s;
  stats_init(&s);
  int steps = (int)(2.0 / e.m->opt.timestep + 0.5), out_of_bound = 0;
  for (int i = 0; i < steps; i++) {
    step_both(&e);
    int mj = e.d->ncon, mr = moreau_within_margin(e.md);
    stats_add(&s, mj, mr);
    if (mj > 0 && (mr < mj || mr > 2 * mj + 4)) {
      if (out_of_bound++ < 5)
        fprintf(stderr, "  step %d: MuJoCo %d contacts, Moreau %d\n", i + 1, mj, mr);
    }
    for (int k = 0; k < mj; k++)
      if (!moreau_has_pair(e.md, e.d->contact[k].geom1, e.d->contact[k].geom2)) {
        if (s.pairs_missing++ < 5)
          fprintf(stderr, "  step %d: MuJoCo pair %d-%d (dist %.3g) not in Moreau\n", i + 1,
                  e.d->contact[k].geom1, e.d->contact[k].geom2, e.d->contact[k].dist);
      }
    MR_CHECK(e.md->ncon_dropped == 0);
  }
  stats_print("humanoid falling, 2 s", &s);
  MR_CHECK(s.steps_with_contact > steps / 2);
  MR_CHECK_MSG(out_of_bound == 0, "%d steps outside mj <= moreau <= 2 mj + 4", out_of_bound);
  MR_CHECK_MSG(s.pairs_missing == 0, "%d MuJoCo contacts with no Moreau contact of the same pair",
               s.pairs_missing);
  engines_close(&e);
}

static void test_pile(void) {
  engines e;
  engines_open(&e, MOREAU_SOURCE_DIR "/models/pile200.xml");
  MR_REQUIRE(e.mm->ngeom >= 200);
  range_stats s;
  stats_init(&s);
  int steps = (int)(1.0 / e.m->opt.timestep + 0.5), dropped = 0, nonfinite = 0;
  long mj_contacts = 0;
  for (int i = 0; i < steps; i++) {
    watchdog_step = i + 1;
    step_both(&e);
    stats_add(&s, e.d->ncon, moreau_within_margin(e.md));
    dropped += e.md->ncon_dropped;
    nonfinite += !contacts_finite(e.md);
    for (int k = 0; k < e.d->ncon; k++) {
      mj_contacts++;
      s.pairs_missing += !moreau_has_pair(e.md, e.d->contact[k].geom1, e.d->contact[k].geom2);
    }
  }
  stats_print("pile200 on MuJoCo's trajectory, 1 s", &s);
  printf("  Moreau capacity %d contacts\n", e.md->maxcon);
  MR_CHECK_MSG(dropped == 0, "%d contacts dropped for capacity", dropped);
  MR_CHECK(nonfinite == 0);
  MR_CHECK(s.mr_max > 100);
  MR_CHECK(s.mr_max < e.md->maxcon);
  /* Box-box, cylinder and ellipsoid pairs go through different algorithms in the two
   * engines (MuJoCo: box-box clipping with up to 8 points, MPR with 1; Moreau: see
   * collision/narrowphase.h), so counts differ; but pairs MuJoCo finds in contact must be
   * found by Moreau too, except a few grazing ones at |dist| ~ MPR tolerance. */
  MR_CHECK_MSG(s.pairs_missing <= mj_contacts / 100, "%d of %ld MuJoCo contacts have no Moreau pair",
               s.pairs_missing, mj_contacts);

  /* Moreau on its own: the arena and capacity hold, nothing turns NaN */
  mr_data_reset(e.mm, e.md);
  int failed = 0, max_con = 0;
  for (int i = 0; i < 300 && !failed; i++) {
    failed = mr_step(e.mm, e.md) != 0;
    dropped += e.md->ncon_dropped;
    nonfinite += !contacts_finite(e.md);
    max_con = e.md->ncon > max_con ? e.md->ncon : max_con;
  }
  printf("pile200 stepped by Moreau alone, 300 steps: max %d contacts\n", max_con);
  MR_CHECK(!failed);
  MR_CHECK(dropped == 0 && nonfinite == 0);
  MR_CHECK(e.md->warning_count == 0);
  engines_close(&e);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGALRM, watchdog_fire);
  alarm(WATCHDOG_SECONDS);
  test_humanoid();
  test_pile();
  MR_TEST_END();
}
