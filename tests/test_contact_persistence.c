/* Persistent contacts: ids, ages, frames and warm-start impulses carried across steps.
 * The collision stage is tested on its own: the scenes are kinematic (positions advanced
 * with a set velocity, then kinematics and collision), so the bodies pass through each
 * other undisturbed by any solver. One test at the end checks the solver side: a resting
 * box warm-started from last step's impulses converges at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_test.h"
#include "moreau.h"
#include "mr_test_model.h"

static char tmpdir[256];

static const char *box_on_plane =
    "<mujoco><option timestep='0.002'/><worldbody><geom name='floor' type='plane' size='5 5 .1'/>"
    "<body pos='0 0 0.099' euler='0 0 30'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
    "</worldbody></mujoco>";

/* The contact with persistent id `id`, or NULL. */
static const mr_contact *find_id(const mr_data *d, unsigned id) {
  for (int i = 0; i < d->ncon; i++)
    if (d->contact[i].id == id) return &d->contact[i];
  return NULL;
}

/* One kinematic step: q (+) dt v, then the position stage and collision. */
static void advance(const mr_model *m, mr_data *d) {
  mr_integrate_pos(m, d->qpos, d->qvel, d->opt.timestep);
  mr_kinematics(m, d);
  mr_collide(m, d);
}

/* Steps n times; every contact of the first step must persist with the same id, a frame
 * within tol of last step's (0: bit for bit), its age counting up, and the impulse we
 * planted as warm start. Returns the number of steps where this failed. */
static int step_and_compare(const mr_model *m, mr_data *d, int n, double tol, int expect_ncon) {
  advance(m, d);
  MR_CHECK_MSG(d->ncon == expect_ncon, "%d contacts, expected %d", d->ncon, expect_ncon);
  int bad = 0;
  for (int s = 0; s < n; s++) {
    mr_contact prev[64];
    int nprev = d->ncon < 64 ? d->ncon : 64;
    memcpy(prev, d->contact, (size_t)nprev * sizeof(mr_contact));
    for (int i = 0; i < d->ncon; i++) d->contact[i].impulse[0] = 1.0 + i + s; /* as a solver would */
    advance(m, d);
    if (d->ncon != nprev) bad++;
    for (int i = 0; i < nprev; i++) {
      const mr_contact *c = find_id(d, prev[i].id);
      if (!c) {
        bad++;
        continue;
      }
      double diff = 0;
      for (int k = 0; k < 9; k++) diff = fmax(diff, fabs(c->frame[k] - prev[i].frame[k]));
      if (tol == 0 ? memcmp(c->frame, prev[i].frame, sizeof c->frame) != 0 : diff > tol) bad++;
      if (c->age != prev[i].age + 1) bad++;
      if (c->impulse[0] != 1.0 + i + s) bad++;
    }
  }
  return bad;
}

static int ids_distinct(const mr_data *d) {
  for (int i = 0; i < d->ncon; i++)
    for (int j = i + 1; j < d->ncon; j++)
      if (d->contact[i].id == d->contact[j].id) return 0;
  return 1;
}

static void test_resting_box(void) {
  mr_model *m = mr_test_load_xml(box_on_plane);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  d->opt.disable |= MR_DISABLE_GRAVITY;
  int bad = step_and_compare(m, d, 100, 0, 4);
  MR_CHECK_MSG(bad == 0, "%d mismatches over 100 steps of a resting box", bad);
  MR_CHECK(ids_distinct(d));
  MR_CHECK(d->ncon == 4 && d->contact[0].age == 100);
  /* the contacts are the bottom corners, 1 mm deep */
  for (int i = 0; i < d->ncon; i++) {
    MR_CHECK_NEAR(d->contact[i].dist, -0.001, 1e-9);
    MR_CHECK_NEAR(hypot(d->contact[i].pos[0], d->contact[i].pos[1]), 0.1 * sqrt(2), 1e-9);
    MR_CHECK_NEAR(fabs(d->contact[i].frame[2]), 1, 1e-12);
  }
  /* lifted clear and put back: the old contacts are gone, the new ones are new */
  unsigned first_new = d->next_contact_id;
  d->qpos[2] = 1;
  advance(m, d);
  MR_CHECK(d->ncon == 0);
  d->qpos[2] = 0.099;
  advance(m, d);
  MR_CHECK(d->ncon == 4);
  for (int i = 0; i < d->ncon; i++) {
    MR_CHECK(d->contact[i].id >= first_new);
    MR_CHECK(d->contact[i].age == 0);
    MR_CHECK(d->contact[i].impulse[0] == 0);
  }
  /* a reset forgets every contact */
  mr_data_reset(m, d);
  MR_CHECK(d->ncon == 0 && d->ncon_prev == 0 && d->next_contact_id == 0);
  mr_data_free(d);
  mr_model_free(m);
}

/* Sliding at 5 cm/s and turning at 0.5 rad/s about the vertical: every step moves the
 * corners by ~0.1 mm; ids stay, and the normal never changes so neither does the frame. */
static void test_sliding_box(void) {
  mr_model *m = mr_test_load_xml(box_on_plane);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  d->opt.disable |= MR_DISABLE_GRAVITY;
  d->qvel[0] = 0.05;
  d->qvel[1] = 0.02;
  d->qvel[5] = 0.5;
  int bad = step_and_compare(m, d, 100, 0, 4);
  MR_CHECK_MSG(bad == 0, "%d mismatches over 100 steps of a sliding box", bad);
  MR_CHECK(ids_distinct(d));
  mr_data_free(d);
  mr_model_free(m);
}

/* A sphere rolling over a fixed sphere: the normal turns by ~0.2 mrad a step. The frame
 * follows it (last step's t1 projected on the new normal's plane), so it changes only by
 * about that much from step to step and stays orthonormal and right-handed. */
static void test_turning_normal(void) {
  mr_model *m = mr_test_load_xml(
      "<mujoco><option timestep='0.002'/><worldbody><geom type='sphere' size='.1'/>"
      "<body pos='0 0 0.199'><freejoint/><geom type='sphere' size='.1'/></body>"
      "</worldbody></mujoco>");
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  d->opt.disable |= MR_DISABLE_GRAVITY;
  d->qvel[0] = 0.02;
  int bad = step_and_compare(m, d, 100, 1e-3, 1);
  MR_CHECK_MSG(bad == 0, "%d mismatches over 100 steps of a turning normal", bad);
  const double *n = d->contact[0].frame, *t1 = n + 3, *t2 = n + 6;
  MR_CHECK(n[0] > 0.01); /* it did turn */
  MR_CHECK_NEAR(n[0] * t1[0] + n[1] * t1[1] + n[2] * t1[2], 0, 1e-12);
  MR_CHECK_NEAR(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2], 1, 1e-12);
  MR_CHECK_NEAR(n[1] * t1[2] - n[2] * t1[1], t2[0], 1e-12);
  MR_CHECK_NEAR(n[2] * t1[0] - n[0] * t1[2], t2[1], 1e-12);
  MR_CHECK_NEAR(n[0] * t1[1] - n[1] * t1[0], t2[2], 1e-12);
  MR_CHECK(d->contact[0].age == 100);
  mr_data_free(d);
  mr_model_free(m);
}

/* With gravity and the default solver, last step's impulses are the warm start: once the
 * box has settled, each step's solve starts at the answer. */
static void test_warm_start(void) {
  mr_model *m = mr_test_load_xml(box_on_plane);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  long iters = 0;
  for (int s = 0; s < 200; s++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    if (s >= 100) iters += d->solver_iters;
  }
  MR_CHECK(d->ncon == 4);
  double total = 0;
  for (int i = 0; i < d->ncon; i++) total += d->contact[i].impulse[0];
  /* the four normal impulses carry the weight: 1000 kg/m^3 * 0.008 m^3 * g * dt */
  MR_CHECK_NEAR(total, 8.0 * 9.81 * 0.002, 1e-5);
  printf("settled box: %.2f solver iterations per step with warm start\n", iters / 100.0);
  MR_CHECK(iters <= 2 * 100);
  mr_data_free(d);
  mr_model_free(m);
}

/* The box sunk by exactly the penetration the contact solver keeps (constraint.h's
 * MR_CONTACT_SLOP), so without gravity it stays where it is. */
static const char *box_resting =
    "<mujoco><option timestep='0.002'/><worldbody><geom name='floor' type='plane' size='5 5 .1'/>"
    "<body pos='0 0 0.099999' euler='0 0 30'><freejoint/><geom type='box' size='.1 .1 .1'/></body>"
    "</worldbody></mujoco>";

/* moreau run --contacts: one row per contact of every recorded step, ids as in the data. */
static void test_cli_contacts(void) {
  char model[512], csv[512], cmd[2048];
  snprintf(model, sizeof model, "%s/box.xml", tmpdir);
  snprintf(csv, sizeof csv, "%s/contacts.csv", tmpdir);
  FILE *f = fopen(model, "w");
  MR_REQUIRE(f);
  fputs(box_resting, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s run %s --steps 6 --record-every 2 --no-gravity --quiet --contacts %s >/dev/null",
           MOREAU_BIN, model, csv);
  MR_CHECK(system(cmd) == 0);
  f = fopen(csv, "r");
  MR_REQUIRE(f);
  char line[1024];
  MR_REQUIRE(fgets(line, sizeof line, f));
  MR_CHECK(strcmp(line, "step,time,geom1,geom2,pos_x,pos_y,pos_z,normal_x,normal_y,normal_z,dist,id\n") == 0);
  int rows = 0, steps_seen[8] = {0};
  while (fgets(line, sizeof line, f)) {
    long step;
    double time, p[3], n[3], dist;
    int g1, g2;
    unsigned id;
    int k = sscanf(line, "%ld,%lf,%d,%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%u", &step, &time, &g1, &g2, &p[0],
                   &p[1], &p[2], &n[0], &n[1], &n[2], &dist, &id);
    MR_CHECK(k == 12);
    if (k != 12) break;
    MR_CHECK(step == 2 || step == 4 || step == 6);
    MR_CHECK_NEAR(time, (step - 1) * 0.002, 1e-12); /* the poses the step started from */
    MR_CHECK(g1 == 0 && g2 == 1 && id < 4);
    MR_CHECK_NEAR(dist, -1e-6, 1e-9);
    MR_CHECK_NEAR(n[2], 1, 1e-12);
    if (step >= 0 && step < 8) steps_seen[step]++;
    rows++;
  }
  fclose(f);
  MR_CHECK(rows == 12);
  MR_CHECK(steps_seen[2] == 4 && steps_seen[4] == 4 && steps_seen[6] == 4);
  /* a name that is not .csv is bad input, rejected before anything is written */
  snprintf(cmd, sizeof cmd, "%s run %s --steps 1 --quiet --contacts %s/c.txt 2>/dev/null", MOREAU_BIN,
           model, tmpdir);
  int status = system(cmd);
  MR_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
  unlink(csv);
  unlink(model);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "persist");
  test_resting_box();
  test_sliding_box();
  test_turning_normal();
  test_warm_start();
  test_cli_contacts();
  rmdir(tmpdir);
  MR_TEST_END();
}
