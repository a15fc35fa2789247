/* MJCF conformance: for MuJoCo's sample models, the project's own models and the MJCF
 * fixtures, what Moreau's parser (and compiler) reads must be what MuJoCo 2.2.2 compiles:
 * counts, body frames, joint axes and limits, geom shapes and poses, contact parameters,
 * actuator gains. Compared twice: on the spec the parser fills, and on the loaded model. */
#include <glob.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/io/spec.h"

#define TOL 1e-12

/* What the two sides are compared on, gathered from either a spec or a model. */
typedef struct view {
  int nq, nv, nbody, njnt, ngeom, nu, nsite, nsensor;
  double *site_pos, *site_quat, *site_size;           /* nsite */
  double *body_pos, *body_quat;                       /* nbody */
  int *jnt_type, *jnt_limited;                        /* njnt */
  double *jnt_pos, *jnt_axis, *jnt_range;             /* njnt */
  double *jnt_stiffness, *jnt_damping, *jnt_armature; /* njnt */
  int *geom_type, *geom_contype, *geom_conaffinity, *geom_condim;
  double *geom_size, *geom_pos, *geom_quat, *geom_friction;
  double *act_gear, *act_gain, *act_bias; /* nu x1, x1, x3 */
  int *act_joint;
  void *mem[32];
  int nmem;
} view;

static void *view_alloc(view *v, size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  MR_REQUIRE(p && v->nmem < 32);
  v->mem[v->nmem++] = p;
  return p;
}

static void view_free(view *v) {
  for (int i = 0; i < v->nmem; i++) free(v->mem[i]);
}

#define VD(v, n, k) ((double *)view_alloc(v, (size_t)(n) * (k) * sizeof(double)))
#define VI(v, n) ((int *)view_alloc(v, (size_t)(n) * sizeof(int)))

static void view_alloc_all(view *v) {
  v->body_pos = VD(v, v->nbody, 3);
  v->body_quat = VD(v, v->nbody, 4);
  v->jnt_type = VI(v, v->njnt);
  v->jnt_limited = VI(v, v->njnt);
  v->jnt_pos = VD(v, v->njnt, 3);
  v->jnt_axis = VD(v, v->njnt, 3);
  v->jnt_range = VD(v, v->njnt, 2);
  v->jnt_stiffness = VD(v, v->njnt, 1);
  v->jnt_damping = VD(v, v->njnt, 1);
  v->jnt_armature = VD(v, v->njnt, 1);
  v->geom_type = VI(v, v->ngeom);
  v->geom_contype = VI(v, v->ngeom);
  v->geom_conaffinity = VI(v, v->ngeom);
  v->geom_condim = VI(v, v->ngeom);
  v->geom_size = VD(v, v->ngeom, 3);
  v->geom_pos = VD(v, v->ngeom, 3);
  v->geom_quat = VD(v, v->ngeom, 4);
  v->geom_friction = VD(v, v->ngeom, 3);
  v->act_gear = VD(v, v->nu, 1);
  v->act_gain = VD(v, v->nu, 1);
  v->act_bias = VD(v, v->nu, 3);
  v->act_joint = VI(v, v->nu);
  v->site_pos = VD(v, v->nsite, 3);
  v->site_quat = VD(v, v->nsite, 4);
  v->site_size = VD(v, v->nsite, 3);
}

static void view_from_spec(view *v, const mr_spec *s) {
  memset(v, 0, sizeof *v);
  v->nbody = s->nbodies;
  v->njnt = s->njoints;
  v->ngeom = s->ngeoms;
  v->nu = s->nactuators;
  v->nsite = s->nsites;
  v->nsensor = s->nsensors;
  view_alloc_all(v);
  for (int i = 0; i < s->nsites; i++) {
    memcpy(v->site_pos + 3 * i, s->sites[i].pos, 3 * sizeof(double));
    memcpy(v->site_quat + 4 * i, s->sites[i].quat, 4 * sizeof(double));
    mr_quat_normalize(v->site_quat + 4 * i);
    memcpy(v->site_size + 3 * i, s->sites[i].size, 3 * sizeof(double));
  }
  for (int i = 0; i < s->nbodies; i++) {
    memcpy(v->body_pos + 3 * i, s->bodies[i].pos, 3 * sizeof(double));
    memcpy(v->body_quat + 4 * i, s->bodies[i].quat, 4 * sizeof(double));
    mr_quat_normalize(v->body_quat + 4 * i);
  }
  for (int i = 0; i < s->njoints; i++) {
    const mr_spec_joint *j = &s->joints[i];
    static const int nq[] = {7, 4, 1, 1}, nv[] = {6, 3, 1, 1};
    v->nq += nq[j->type];
    v->nv += nv[j->type];
    v->jnt_type[i] = j->type;
    v->jnt_limited[i] = j->limited;
    memcpy(v->jnt_pos + 3 * i, j->pos, 3 * sizeof(double));
    memcpy(v->jnt_axis + 3 * i, j->axis, 3 * sizeof(double));
    mr_normalize3(v->jnt_axis + 3 * i);
    memcpy(v->jnt_range + 2 * i, j->range, 2 * sizeof(double));
    v->jnt_stiffness[i] = j->stiffness;
    v->jnt_damping[i] = j->damping;
    v->jnt_armature[i] = j->armature;
  }
  for (int i = 0; i < s->ngeoms; i++) {
    const mr_spec_geom *g = &s->geoms[i];
    v->geom_type[i] = g->type;
    v->geom_contype[i] = g->contype;
    v->geom_conaffinity[i] = g->conaffinity;
    v->geom_condim[i] = g->condim;
    memcpy(v->geom_size + 3 * i, g->size, 3 * sizeof(double));
    memcpy(v->geom_pos + 3 * i, g->pos, 3 * sizeof(double));
    memcpy(v->geom_quat + 4 * i, g->quat, 4 * sizeof(double));
    mr_quat_normalize(v->geom_quat + 4 * i);
    memcpy(v->geom_friction + 3 * i, g->friction, 3 * sizeof(double));
  }
  for (int i = 0; i < s->nactuators; i++) {
    const mr_spec_actuator *a = &s->actuators[i];
    v->act_gear[i] = a->gear[0];
    v->act_gain[i] = a->gainprm[0];
    if (a->biastype == MR_BIAS_AFFINE) memcpy(v->act_bias + 3 * i, a->biasprm, 3 * sizeof(double));
    v->act_joint[i] = a->joint;
  }
}

static void view_from_model(view *v, const mr_model *m) {
  memset(v, 0, sizeof *v);
  v->nq = m->nq;
  v->nv = m->nv;
  v->nbody = m->nbody;
  v->njnt = m->njnt;
  v->ngeom = m->ngeom;
  v->nu = m->nu;
  v->nsite = m->nsite;
  v->nsensor = m->nsensor;
  view_alloc_all(v);
  memcpy(v->site_pos, m->site_pos, 3 * sizeof(double) * (size_t)m->nsite);
  memcpy(v->site_quat, m->site_quat, 4 * sizeof(double) * (size_t)m->nsite);
  memcpy(v->site_size, m->site_size, 3 * sizeof(double) * (size_t)m->nsite);
  memcpy(v->body_pos, m->body_pos, 3 * sizeof(double) * (size_t)m->nbody);
  memcpy(v->body_quat, m->body_quat, 4 * sizeof(double) * (size_t)m->nbody);
  for (int i = 0; i < m->njnt; i++) {
    int d = m->jnt_dofadr[i];
    v->jnt_type[i] = m->jnt_type[i];
    v->jnt_limited[i] = m->jnt_limited[i];
    v->jnt_stiffness[i] = m->jnt_stiffness[i];
    v->jnt_damping[i] = m->dof_damping[d];
    v->jnt_armature[i] = m->dof_armature[d];
  }
  memcpy(v->jnt_pos, m->jnt_pos, 3 * sizeof(double) * (size_t)m->njnt);
  memcpy(v->jnt_axis, m->jnt_axis, 3 * sizeof(double) * (size_t)m->njnt);
  memcpy(v->jnt_range, m->jnt_range, 2 * sizeof(double) * (size_t)m->njnt);
  for (int i = 0; i < m->ngeom; i++) {
    v->geom_type[i] = m->geom_type[i];
    v->geom_contype[i] = m->geom_contype[i];
    v->geom_conaffinity[i] = m->geom_conaffinity[i];
    v->geom_condim[i] = m->geom_condim[i];
  }
  memcpy(v->geom_size, m->geom_size, 3 * sizeof(double) * (size_t)m->ngeom);
  memcpy(v->geom_pos, m->geom_pos, 3 * sizeof(double) * (size_t)m->ngeom);
  memcpy(v->geom_quat, m->geom_quat, 4 * sizeof(double) * (size_t)m->ngeom);
  memcpy(v->geom_friction, m->geom_friction, 3 * sizeof(double) * (size_t)m->ngeom);
  for (int i = 0; i < m->nu; i++) {
    v->act_gear[i] = m->actuator_gear[6 * i];
    v->act_gain[i] = m->actuator_gainprm[MR_NGAIN * i];
    if (m->actuator_biastype[i] == MR_BIAS_AFFINE)
      memcpy(v->act_bias + 3 * i, m->actuator_biasprm + MR_NBIAS * i, 3 * sizeof(double));
    v->act_joint[i] = m->actuator_trnid[2 * i];
  }
}

static int near_all(const double *a, const double *b, int n) {
  for (int i = 0; i < n; i++)
    if (!(fabs(a[i] - b[i]) <= TOL)) return 0;
  return 1;
}

#define CMP_VEC(what, a, b, n, idx)                                                       \
  MR_CHECK_MSG(near_all(a, b, n), "%s %s[%d]: moreau (%g %g %g) mujoco (%g %g %g)", tag, \
               what, idx, (a)[0], (n) > 1 ? (a)[1] : 0, (n) > 2 ? (a)[2] : 0, (b)[0],      \
               (n) > 1 ? (b)[1] : 0, (n) > 2 ? (b)[2] : 0)

/* fitted[i]: geom i is a primitive fitted to a mesh (test_mj_meshes compares those to
 * float precision), or NULL. */
static void compare(const char *tag, const view *v, const mjModel *mj, int compare_nu,
                    const unsigned char *fitted) {
  MR_CHECK_MSG(v->nq == mj->nq, "%s nq %d vs %d", tag, v->nq, mj->nq);
  MR_CHECK_MSG(v->nv == mj->nv, "%s nv %d vs %d", tag, v->nv, mj->nv);
  MR_CHECK_MSG(v->nbody == mj->nbody, "%s nbody %d vs %d", tag, v->nbody, mj->nbody);
  MR_CHECK_MSG(v->njnt == mj->njnt, "%s njnt %d vs %d", tag, v->njnt, mj->njnt);
  MR_CHECK_MSG(v->ngeom == mj->ngeom, "%s ngeom %d vs %d", tag, v->ngeom, mj->ngeom);
  if (compare_nu) MR_CHECK_MSG(v->nu == mj->nu, "%s nu %d vs %d", tag, v->nu, mj->nu);
  /* sensors on tendons or skipped actuators are skipped with them */
  if (compare_nu && mj->ntendon == 0)
    MR_CHECK_MSG(v->nsensor == mj->nsensor, "%s nsensor %d vs %d", tag, v->nsensor, mj->nsensor);
  if (v->nbody != mj->nbody || v->njnt != mj->njnt || v->ngeom != mj->ngeom) return;
  for (int i = 0; i < v->nbody; i++) {
    CMP_VEC("body_pos", v->body_pos + 3 * i, mj->body_pos + 3 * i, 3, i);
    CMP_VEC("body_quat", v->body_quat + 4 * i, mj->body_quat + 4 * i, 4, i);
  }
  for (int i = 0; i < v->njnt; i++) {
    int d = mj->jnt_dofadr[i];
    MR_CHECK_MSG(v->jnt_type[i] == mj->jnt_type[i], "%s jnt_type[%d]", tag, i);
    MR_CHECK_MSG(v->jnt_limited[i] == mj->jnt_limited[i], "%s jnt_limited[%d]", tag, i);
    if (mj->jnt_type[i] == mjJNT_FREE) continue;
    CMP_VEC("jnt_pos", v->jnt_pos + 3 * i, mj->jnt_pos + 3 * i, 3, i);
    if (mj->jnt_type[i] != mjJNT_BALL)
      CMP_VEC("jnt_axis", v->jnt_axis + 3 * i, mj->jnt_axis + 3 * i, 3, i);
    if (mj->jnt_limited[i]) CMP_VEC("jnt_range", v->jnt_range + 2 * i, mj->jnt_range + 2 * i, 2, i);
    CMP_VEC("jnt_stiffness", v->jnt_stiffness + i, mj->jnt_stiffness + i, 1, i);
    CMP_VEC("dof_damping", v->jnt_damping + i, mj->dof_damping + d, 1, i);
    CMP_VEC("dof_armature", v->jnt_armature + i, mj->dof_armature + d, 1, i);
  }
  for (int i = 0; i < v->ngeom; i++) {
    MR_CHECK_MSG(v->geom_type[i] == mj->geom_type[i], "%s geom_type[%d] %d vs %d", tag, i,
                 v->geom_type[i], mj->geom_type[i]);
    MR_CHECK_MSG(v->geom_contype[i] == mj->geom_contype[i], "%s geom_contype[%d]", tag, i);
    MR_CHECK_MSG(v->geom_conaffinity[i] == mj->geom_conaffinity[i], "%s geom_conaffinity[%d]",
                 tag, i);
    MR_CHECK_MSG(v->geom_condim[i] == mj->geom_condim[i], "%s geom_condim[%d]", tag, i);
    CMP_VEC("geom_friction", v->geom_friction + 3 * i, mj->geom_friction + 3 * i, 3, i);
    /* MuJoCo re-centers meshes on their inertial frame and sizes them itself */
    if (mj->geom_type[i] == mjGEOM_MESH || (fitted && fitted[i])) continue;
    /* a heightfield geom's size comes from its hfield when compiled (test_mj_hfield) */
    if (mj->geom_type[i] != mjGEOM_HFIELD)
      CMP_VEC("geom_size", v->geom_size + 3 * i, mj->geom_size + 3 * i, 3, i);
    CMP_VEC("geom_pos", v->geom_pos + 3 * i, mj->geom_pos + 3 * i, 3, i);
    CMP_VEC("geom_quat", v->geom_quat + 4 * i, mj->geom_quat + 4 * i, 4, i);
  }
  MR_CHECK_MSG(v->nsite == mj->nsite, "%s nsite %d vs %d", tag, v->nsite, mj->nsite);
  for (int i = 0; i < v->nsite && v->nsite == mj->nsite; i++) {
    CMP_VEC("site_pos", v->site_pos + 3 * i, mj->site_pos + 3 * i, 3, i);
    CMP_VEC("site_quat", v->site_quat + 4 * i, mj->site_quat + 4 * i, 4, i);
    CMP_VEC("site_size", v->site_size + 3 * i, mj->site_size + 3 * i, 3, i);
  }
  if (v->nu != mj->nu) return;
  for (int i = 0; i < v->nu; i++) {
    MR_CHECK_MSG(v->act_joint[i] == mj->actuator_trnid[2 * i], "%s actuator_trnid[%d]", tag, i);
    CMP_VEC("actuator_gear", v->act_gear + i, mj->actuator_gear + 6 * i, 1, i);
    CMP_VEC("actuator_gainprm", v->act_gain + i, mj->actuator_gainprm + mjNGAIN * i, 1, i);
    double bias[3] = {0, 0, 0};
    if (mj->actuator_biastype[i] == mjBIAS_AFFINE)
      memcpy(bias, mj->actuator_biasprm + mjNBIAS * i, sizeof bias);
    CMP_VEC("actuator_biasprm", v->act_bias + 3 * i, bias, 3, i);
  }
}

/* Skipped actuators (adhesion: body transmissions): nu is compared only without. */
static int has_skipped_actuators(const mjModel *mj) {
  for (int i = 0; i < mj->nu; i++)
    if (mj->actuator_trntype[i] == mjTRN_BODY) return 1;
  return 0;
}

static int files_checked = 0;

/* Every file given here is required: MuJoCo (the oracle) must load it, or the file is
 * missing or broken and the test fails. */
static void check_file(const char *path) {
  char err[1024] = "";
  mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
  MR_CHECK_MSG(mj != NULL, "%s: MuJoCo cannot load it: %s", path, err);
  if (!mj) return;
  files_checked++;
  int compare_nu = !has_skipped_actuators(mj);
  printf("%s: nbody %d njnt %d ngeom %d nu %d%s\n", path, mj->nbody, mj->njnt, mj->ngeom, mj->nu,
         compare_nu ? "" : " (some actuators outside the subset)");

  mr_spec *s = mr_spec_create(path);
  MR_REQUIRE(s);
  s->quiet = 1;
  int rc = mr_mjcf_parse(s, path, err, sizeof err);
  MR_CHECK_MSG(rc == 0, "%s: %s", path, err);
  unsigned char *fitted = calloc((size_t)s->ngeoms + 1, 1);
  MR_REQUIRE(fitted);
  for (int i = 0; i < s->ngeoms; i++) fitted[i] = s->geoms[i].type != MR_GEOM_MESH && s->geoms[i].mesh >= 0;
  if (rc == 0) {
    view v;
    view_from_spec(&v, s);
    char tag[512];
    snprintf(tag, sizeof tag, "%s (spec)", path);
    compare(tag, &v, mj, compare_nu, fitted);
    view_free(&v);
  }
  mr_spec_free(s);

  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s: %s", path, err);
  if (m) {
    view v;
    view_from_model(&v, m);
    char tag[512];
    snprintf(tag, sizeof tag, "%s (model)", path);
    compare(tag, &v, mj, compare_nu, rc == 0 ? fitted : NULL);
    view_free(&v);
    mr_model_free(m);
  }
  free(fitted);
  mj_deleteModel(mj);
}

/* Every file matching pattern; at least `least` of them (a missing folder fails). */
static void check_glob(const char *pattern, size_t least) {
  glob_t g;
  int rc = glob(pattern, 0, NULL, &g);
  MR_CHECK_MSG(rc == 0 && g.gl_pathc >= least, "%s: %zu files, expected at least %zu", pattern,
               rc == 0 ? g.gl_pathc : 0, least);
  if (rc != 0) return;
  for (size_t i = 0; i < g.gl_pathc; i++) check_file(g.gl_pathv[i]);
  globfree(&g);
}

int main(void) {
  const char *samples[] = {"humanoid/humanoid.xml", "humanoid100/humanoid100.xml",
                           "slider_crank/slider_crank.xml", "tendon_arm/arm26.xml",
                           "humanoid/22_humanoids.xml", "mug/mug.xml"};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MUJOCO_MODEL_DIR, samples[i]);
    check_file(path);
  }
  check_glob(MOREAU_SOURCE_DIR "/models/*.xml", 20);
  check_glob(MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_*.xml", 5);
  printf("%d files compared\n", files_checked);
  MR_TEST_END();
}
