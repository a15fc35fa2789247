/* The robot stage's two entry points (robot.h): the spec before compile, the model after. */
#include "robot.h"

#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"

static int mr_robot_oom(const mr_spec *s, char *err, int errlen) {
  mr_source src = {s->file, 0};
  return mr_errorf(err, errlen, src, "out of memory");
}

static int mr_spec_has_free_joint(const mr_spec *s) {
  for (int j = 0; j < s->njoints; j++)
    if (s->joints[j].type == MR_JOINT_FREE) return 1;
  return 0;
}

/* A checker texture two greys apart: the viewer's grid is the floor (its squares are sized
 * to the robot once it is compiled: mr_robot_floor_squares). */
static int mr_robot_floor_material(mr_spec *s) {
  mr_source src = {s->file, 0};
  int t = mr_spec_add_texture(s, src);
  if (t < 0) return -1;
  mr_spec_texture *tex = &s->textures[t];
  tex->type = 0;    /* 2d */
  tex->builtin = 2; /* checker */
  tex->width = tex->height = 512;
  const float a[3] = {0.36f, 0.40f, 0.46f}, b[3] = {0.28f, 0.32f, 0.38f};
  memcpy(tex->rgb1, a, sizeof a);
  memcpy(tex->rgb2, b, sizeof b);
  int k = mr_spec_add_material(s, src);
  if (k < 0) return -1;
  mr_spec_material *mat = &s->materials[k];
  mat->name = mr_spec_strdup(s, MR_FLOOR_MATERIAL);
  mat->texture = t;
  mat->texrepeat[0] = mat->texrepeat[1] = 2;
  mat->specular = 0.1f;
  mat->shininess = 0.1f;
  for (int i = 0; i < 4; i++) mat->rgba[i] = 1;
  return k;
}

static int mr_robot_add_floor(mr_spec *s) {
  int material = mr_robot_floor_material(s);
  if (material < 0) return -1;
  mr_source src = {s->file, 0};
  int g = mr_spec_add_geom(s, 0, src);
  if (g < 0) return -1;
  mr_spec_geom *floor = &s->geoms[g];
  /* names are unique in MJCF: a model with a floor of its own keeps that name */
  floor->name = mr_spec_strdup(s, mr_spec_find_geom(s, MR_FLOOR_NAME) >= 0 ? "moreau_" MR_FLOOR_NAME
                                                                          : MR_FLOOR_NAME);
  floor->type = MR_GEOM_PLANE;
  floor->size[2] = 1; /* size 0: infinite, drawn as far as the scene goes */
  floor->material = material;
  floor->mass = 0;
  for (int i = 0; i < 4; i++) floor->rgba[i] = 1;
  return 0;
}

static int mr_robot_exclude(mr_spec *s, int b1, int b2) {
  int e = mr_spec_add_exclude(s, s->bodies[b1 > b2 ? b1 : b2].src);
  if (e < 0) return -1;
  s->excludes[e].body1 = b1 < b2 ? b1 : b2;
  s->excludes[e].body2 = b1 < b2 ? b2 : b1;
  return 0;
}

/* A link never collides with its parent: their geometry meets at the joint by design.
 * (MuJoCo's rule spares a body hinged to the world; a URDF's fixed base is a body of its own
 * welded to the world, so its first link needs the explicit pair.) With MR_OFF, no two
 * bodies of one tree (below the same child of the world) collide. A pair excluded twice
 * costs nothing: the filter looks pairs up. */
static int mr_robot_tree_excludes(mr_spec *s, int mode) {
  if (mode != MR_OFF) {
    for (int b = 1; b < s->nbodies; b++)
      if (s->is_urdf && s->bodies[b].parent > 0 && mr_robot_exclude(s, b, s->bodies[b].parent))
        return -1;
    return 0;
  }
  int *root = malloc(sizeof(int) * (size_t)s->nbodies);
  if (!root) return -1;
  root[0] = 0;
  for (int b = 1; b < s->nbodies; b++) root[b] = s->bodies[b].parent > 0 ? root[s->bodies[b].parent] : b;
  int rc = 0;
  for (int b = 1; b < s->nbodies && !rc; b++)
    for (int c = 1; c < b && !rc; c++)
      if (root[b] == root[c]) rc = mr_robot_exclude(s, c, b);
  free(root);
  return rc;
}

int mr_robot_prepare(mr_spec *s, const mr_load_options *opt, char *err, int errlen) {
  int floor = opt->floor == MR_ON || (opt->floor == MR_AUTO && s->is_urdf && mr_spec_has_free_joint(s));
  if (floor && mr_robot_add_floor(s)) return mr_robot_oom(s, err, errlen);
  if (opt->hold && mr_spec_hold(s, opt->hold_kp, opt->hold_kd, err, errlen)) return -1;
  if (mr_robot_tree_excludes(s, opt->self_collision)) return mr_robot_oom(s, err, errlen);
  return 0;
}

/* 1 if the model has anything for the pose stage to do: an MJCF model without a floor of
 * ours or a servo to tune is left exactly as compiled (and costs no mr_data). */
static int mr_robot_has_work(const mr_spec *s, const mr_model *m, const mr_load_options *opt) {
  if (s->is_urdf || opt->hold || mr_name2id(m, MR_OBJ_MATERIAL, MR_FLOOR_MATERIAL) >= 0) return 1;
  for (int u = 0; u < s->nactuators; u++)
    if (s->actuators[u].auto_gains) return 1;
  return 0;
}

mr_model *mr_robot_finish(const mr_spec *s, mr_model *m, const mr_load_options *opt,
                          char *err, int errlen) {
  if (!mr_robot_has_work(s, m, opt)) return m;
  mr_data *d = mr_data_create(m);
  if (!d) {
    mr_robot_oom(s, err, errlen);
    mr_model_free(m);
    return NULL;
  }
  mr_robot_place(s, m, d);
  mr_robot_floor_squares(m, d);
  int bad = mr_robot_check_mass(s, m, d, err, errlen);
  if (!bad) mr_robot_servo_gains(s, m, d, opt->keyframe, opt->hold);
  mr_data_free(d);
  if (bad) {
    mr_model_free(m);
    return NULL;
  }
  /* Pairs need hulls: a model only inspected (MR_MESHES_INSPECT) is never stepped. */
  if (s->is_urdf && opt->self_collision == MR_AUTO && opt->meshes != MR_MESHES_INSPECT)
    m = mr_robot_self_collision(s, m, opt->quiet, err, errlen);
  return m;
}
