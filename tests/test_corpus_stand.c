/* Every robot of ../shared/models/example-robot-data loads floating, and each legged one
 * with an SRDF standing state (a keyframe the SRDF gives a base pose and whose collision
 * geometry rests on the floor) starts from it on the default floor and, under --hold, still
 * stands after 10 s: base height >= 80% of the start, tilt < 10 degrees (issue 16, point
 * 10). The standing set is found from the files, and checked against the list of legged
 * robots the collection has, so that a robot that stops being recognised fails too. The
 * falling half of point 10 is test_corpus_fall.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/io/spec.h"
#include "engine/robot/robot.h"
#include "moreau.h"
#include "mr_corpus.h"
#include "mr_test.h"
#include "mr_test_model.h"

static const char *const LEGGED[] = {
    "solo_description/robots/solo.urdf",          "solo_description/robots/solo12.urdf",
    "talos_data/robots/talos_full_v2.urdf",       "talos_data/robots/talos_full_v2_box.urdf",
    "talos_data/robots/talos_reduced.urdf",       "talos_data/robots/talos_reduced_box.urdf",
    "talos_data/robots/talos_reduced_corrected.urdf"};
enum { NLEGGED = sizeof LEGGED / sizeof LEGGED[0] };

static mr_model *load(const char *path, mr_load_options opt) {
  opt.package_path = MR_CORPUS_PACKAGES;
  opt.meshes = MR_MESHES_COLLISION;
  return mr_test_load(path, &opt);
}

/* ------------------------------------------------------------------ standing */

/* 1 if the SRDF state behind keyframe `name` gives the floating base's pose (a state without
 * one is put on the floor by Moreau, which says nothing about the robot standing there). */
static int state_gives_base(const char *path, const char *name) {
  char err[2048];
  mr_load_options opt = {.floating = 1, .package_path = MR_CORPUS_PACKAGES, .quiet = 1};
  mr_spec *s = mr_spec_create(path);
  MR_REQUIRE(s);
  s->quiet = 1;
  int gives = 0;
  if (mr_urdf_parse(s, path, &opt, err, sizeof err) == 0)
    for (int k = 0; k < s->nkeys; k++)
      gives |= s->keys[k].name && !strcmp(s->keys[k].name, name) && !s->keys[k].drop_to_floor;
  mr_spec_free(s);
  return gives;
}

/* The first keyframe of the floating robot that the SRDF poses on the floor: its base pose
 * given, its collision geometry within MR_STANCE_HEIGHT of z = 0. */
static int standing_key(const char *path, const mr_model *m, mr_data *d) {
  for (int k = 0; k < m->nkey; k++) {
    mr_data_reset_keyframe(m, d, k);
    mr_kinematics(m, d);
    if (fabs(mr_robot_lowest_point(m, d)) <= MR_STANCE_HEIGHT &&
        state_gives_base(path, mr_id2name(m, MR_OBJ_KEY, k)))
      return k;
  }
  return -1;
}

/* Tilt of the base: the angle between its z axis and the world's, in degrees. */
static double tilt_deg(const double *q) {
  double x = q[4], y = q[5];
  double c = 1 - 2 * (x * x + y * y);
  return acos(fmax(-1, fmin(1, c))) * 180 / 3.14159265358979323846;
}

/* 1 if the robot has a standing state (and then checked), 0 if not. */
static int check_standing(const char *path) {
  mr_model *m = load(path, (mr_load_options){.floating = 1});
  if (!m) return 0;
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  int k = standing_key(path, m, d);
  char key[128] = "";
  if (k >= 0) snprintf(key, sizeof key, "%s", mr_id2name(m, MR_OBJ_KEY, k));
  mr_data_free(d);
  mr_model_free(m);
  if (k < 0) return 0;

  m = load(path, (mr_load_options){.floating = 1, .hold = 1, .keyframe = key});
  MR_REQUIRE(m);
  d = mr_data_create(m);
  MR_REQUIRE(d);
  MR_REQUIRE(mr_data_reset_keyframe(m, d, mr_name2id(m, MR_OBJ_KEY, key)) == 0);
  mr_robot_hold_targets(m, d);
  int base = mr_robot_base_qposadr(m);
  MR_REQUIRE(base >= 0);
  double z0 = d->qpos[base + 2], worst_tilt = 0, lowest_z = z0;
  int steps = (int)lround(10.0 / m->opt.timestep), failed = -1;
  for (int i = 0; i < steps && failed < 0; i++) {
    if (mr_step(m, d) != 0 || !state_finite(m, d)) failed = i;
    worst_tilt = fmax(worst_tilt, tilt_deg(d->qpos + base));
    lowest_z = fmin(lowest_z, d->qpos[base + 2]);
  }
  double z = d->qpos[base + 2], tilt = tilt_deg(d->qpos + base);
  printf("%-48s %-14s z %.4f -> %.4f (%.1f%%, lowest %.1f%%), tilt %.2f deg (worst %.2f)\n",
         mr_corpus_shown(path), key, z0, z, 100 * z / z0, 100 * lowest_z / z0, tilt, worst_tilt);
  MR_CHECK_MSG(failed < 0, "%s: diverged at step %d", mr_corpus_shown(path), failed);
  MR_CHECK_MSG(z >= 0.8 * z0, "%s: base at %.4f after 10 s, started at %.4f", mr_corpus_shown(path), z, z0);
  MR_CHECK_MSG(tilt < 10, "%s: tilted %.2f degrees after 10 s", mr_corpus_shown(path), tilt);
  mr_data_free(d);
  mr_model_free(m);
  return 1;
}

int main(void) {
  path_list list = mr_corpus_urdfs(MR_CORPUS_ROBOTS);
  MR_REQUIRE(list.n > 0);
  int found[NLEGGED] = {0}, nstanding = 0;
  for (int i = 0; i < list.n; i++) {
    int standing = check_standing(list.paths[i]);
    nstanding += standing;
    int legged = -1;
    for (int k = 0; k < NLEGGED; k++)
      if (strcmp(mr_corpus_shown(list.paths[i]), LEGGED[k]) == 0) legged = k;
    if (legged >= 0) found[legged] = standing;
    MR_CHECK_MSG(standing == (legged >= 0), "%s: %s", mr_corpus_shown(list.paths[i]),
                 standing ? "stands, but is no legged robot" : "a legged robot without a standing state");
    free(list.paths[i]);
  }
  free(list.paths);
  for (int k = 0; k < NLEGGED; k++) MR_CHECK_MSG(found[k], "%s: not found or not standing", LEGGED[k]);
  printf("%d robots stand\n", nstanding);
  MR_TEST_END();
}
