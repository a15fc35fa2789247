/* The URDF front end on small fixtures (tests/data/urdf): tree shaping and fixed-link
 * merging, inertials, joint types, mimic, package:// resolution, SRDF, and the errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/io/spec.h"

#define DATA MOREAU_SOURCE_DIR "/tests/data/urdf/"

static char err[2048];

/* Parses one fixture into a fresh spec; NULL (err set) on failure. */
static mr_spec *parse_with(const char *path, const mr_load_options *opt) {
  mr_spec *s = mr_spec_create(path);
  MR_REQUIRE(s != NULL);
  s->quiet = 1;
  err[0] = 0;
  if (mr_urdf_parse(s, path, opt, err, sizeof err) == 0) return s;
  mr_spec_free(s);
  return NULL;
}

static mr_spec *parse(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s%s", DATA, name);
  return parse_with(path, NULL);
}

/* Full inertia tensor of a spec body from its principal moments and frame. */
static void body_tensor(const mr_spec_body *b, double I[9]) {
  double R[9];
  mr_quat_to_mat(R, b->iquat);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      I[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) I[3 * i + j] += R[3 * i + k] * b->inertia[k] * R[3 * j + k];
    }
}

static int count_dofs(const mr_spec *s, int *nq) {
  int nv = 0;
  *nq = 0;
  for (int j = 0; j < s->njoints; j++) {
    int t = s->joints[j].type;
    nv += t == MR_JOINT_FREE ? 6 : t == MR_JOINT_BALL ? 3 : 1;
    *nq += t == MR_JOINT_FREE ? 7 : t == MR_JOINT_BALL ? 4 : 1;
  }
  return nv;
}

/* 'tip' (mass 1, com 0.1 along its x, diag(0.01, 0.02, 0.03)) is welded 1 m along arm's x,
 * turned 90 degrees about z, onto 'arm' (mass 2, com (0.5, 0, 0), diag(0.1, 0.2, 0.3)).
 * By hand: tip com in arm = (1, 0.1, 0), tip tensor in arm = diag(0.02, 0.01, 0.03);
 * combined mass 3, com (2/3, 1/30, 0); offsets d_arm = (-1/6, -1/30, 0), d_tip = (1/3, 1/15, 0);
 * parallel-axis sum: Ixx = 0.12 + 6/900, Iyy = 0.21 + 150/900, Izz = 0.33 + 156/900,
 * Ixy = -2 (1/6)(1/30) - (1/3)(1/15) = -1/30. */
static void test_merge(void) {
  mr_spec *s = parse("merge.urdf");
  MR_REQUIRE(s != NULL);
  MR_CHECK(s->nbodies == 4); /* world, base, arm (+tip), finger */
  MR_CHECK(s->is_urdf == 1);
  MR_CHECK(s->inertiafromgeom == 0);
  MR_CHECK_NEAR(s->opt.timestep, 0.001, 0);
  int arm = mr_spec_find_body(s, "arm");
  MR_REQUIRE(arm == 2);
  MR_CHECK(mr_spec_find_body(s, "tip") < 0);
  const mr_spec_body *b = &s->bodies[arm];
  MR_CHECK(b->has_inertial);
  MR_CHECK_NEAR(b->mass, 3, 1e-15);
  MR_CHECK_NEAR(b->ipos[0], 2.0 / 3, 1e-14);
  MR_CHECK_NEAR(b->ipos[1], 1.0 / 30, 1e-14);
  MR_CHECK_NEAR(b->ipos[2], 0, 1e-14);
  double I[9];
  body_tensor(b, I);
  const double expect[9] = {0.12 + 6.0 / 900, -1.0 / 30, 0, -1.0 / 30, 0.21 + 150.0 / 900, 0,
                            0, 0, 0.33 + 156.0 / 900};
  for (int k = 0; k < 9; k++) MR_CHECK_NEAR(I[k], expect[k], 1e-12);

  /* finger hangs from tip: re-parented to arm with the composed pose. */
  int finger = mr_spec_find_body(s, "finger");
  MR_REQUIRE(finger == 3);
  MR_CHECK(s->bodies[finger].parent == arm);
  MR_CHECK_NEAR(s->bodies[finger].pos[0], 1, 1e-14);
  MR_CHECK_NEAR(s->bodies[finger].pos[1], 0.2, 1e-14);
  MR_CHECK_NEAR(s->bodies[finger].quat[0], sqrt(0.5), 1e-14);
  MR_CHECK_NEAR(s->bodies[finger].quat[3], sqrt(0.5), 1e-14);

  /* Geoms: arm's box, then tip's sphere collision and visual, all in arm's body. */
  MR_REQUIRE(s->ngeoms == 3);
  const mr_spec_geom *box = &s->geoms[0], *col = &s->geoms[1], *vis = &s->geoms[2];
  MR_CHECK(box->type == MR_GEOM_BOX && box->body == arm);
  MR_CHECK_NEAR(box->size[0], 0.5, 1e-15);
  MR_CHECK_NEAR(box->size[1], 0.05, 1e-15);
  MR_CHECK(col->type == MR_GEOM_SPHERE && col->body == arm);
  MR_CHECK_NEAR(col->pos[0], 1, 1e-14);
  MR_CHECK_NEAR(col->pos[1], 0.1, 1e-14);
  MR_CHECK(col->group == 0 && col->contype == 1 && col->conaffinity == 1);
  MR_CHECK(vis->group == 1 && vis->contype == 0 && vis->conaffinity == 0);
  for (int g = 0; g < s->ngeoms; g++) {
    MR_CHECK(s->geoms[g].mass == 0);
    MR_CHECK_NEAR(s->geoms[g].friction[0], 1, 0);
    MR_CHECK_NEAR(s->geoms[g].friction[1], 0.005, 0);
    MR_CHECK_NEAR(s->geoms[g].friction[2], 0.0001, 0);
  }
  mr_spec_free(s);
}

static void test_inertial_rpy(void) {
  mr_spec *s = parse("inertial_rpy.urdf");
  MR_REQUIRE(s != NULL);
  const mr_spec_body *b = &s->bodies[mr_spec_find_body(s, "body")];
  MR_CHECK_NEAR(b->mass, 1.5, 0);
  MR_CHECK_NEAR(b->ipos[0], 0.1, 1e-15);
  MR_CHECK_NEAR(b->ipos[1], 0.2, 1e-15);
  MR_CHECK_NEAR(b->ipos[2], 0.3, 1e-15);
  /* Expected: R I R^T with R = Rz(0.5) Ry(-0.2) Rx(0.3). */
  const double Iin[9] = {0.3, 0.01, 0.02, 0.01, 0.25, -0.015, 0.02, -0.015, 0.2};
  double q[4], R[9], expect[9], got[9];
  mr_rpy_to_quat(q, 0.3, -0.2, 0.5);
  mr_quat_to_mat(R, q);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      expect[3 * i + j] = 0;
      for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) expect[3 * i + j] += R[3 * i + k] * Iin[3 * k + l] * R[3 * j + l];
    }
  body_tensor(b, got);
  for (int k = 0; k < 9; k++) MR_CHECK_NEAR(got[k], expect[k], 1e-13);
  /* The frame is a proper rotation and the moments are principal (sorted by the solver). */
  MR_CHECK_NEAR(b->iquat[0] * b->iquat[0] + b->iquat[1] * b->iquat[1] +
                    b->iquat[2] * b->iquat[2] + b->iquat[3] * b->iquat[3], 1, 1e-14);
  mr_spec_free(s);
}

static void test_joints(void) {
  mr_spec *s = parse("joints.urdf");
  MR_REQUIRE(s != NULL);
  MR_REQUIRE(s->njoints == 6);
  int nq, nv = count_dofs(s, &nq);
  MR_CHECK(nv == 6 && nq == 6);
  const mr_spec_joint *cont = &s->joints[mr_spec_find_joint(s, "j_cont")];
  MR_CHECK(cont->type == MR_JOINT_HINGE && cont->limited == 0);
  const mr_spec_joint *pris = &s->joints[mr_spec_find_joint(s, "j_pris")];
  MR_CHECK(pris->type == MR_JOINT_SLIDE && pris->limited == 1);
  MR_CHECK_NEAR(pris->range[0], -0.1, 0);
  MR_CHECK_NEAR(pris->range[1], 0.2, 0);
  MR_CHECK_NEAR(pris->axis[2], 1, 1e-15); /* (0 0 2) normalized */
  MR_CHECK_NEAR(pris->damping, 0.5, 0);
  MR_CHECK_NEAR(pris->frictionloss, 0.1, 0);
  /* planar about z: slides along x and y, hinge about z, all in l4's body. */
  int t1 = mr_spec_find_joint(s, "j_planar_t1"), t2 = mr_spec_find_joint(s, "j_planar_t2");
  int rz = mr_spec_find_joint(s, "j_planar");
  MR_REQUIRE(t1 >= 0 && t2 >= 0 && rz >= 0);
  MR_CHECK(s->joints[t1].type == MR_JOINT_SLIDE && s->joints[t2].type == MR_JOINT_SLIDE);
  MR_CHECK(s->joints[rz].type == MR_JOINT_HINGE);
  MR_CHECK_NEAR(s->joints[t1].axis[0], 1, 1e-15);
  MR_CHECK_NEAR(s->joints[t2].axis[1], 1, 1e-15);
  MR_CHECK_NEAR(s->joints[rz].axis[2], 1, 1e-15);
  MR_CHECK(s->joints[t1].body == s->joints[rz].body);
  /* mimic: q(j_mimic) = 0.1 + 2 q(j_cont) */
  MR_REQUIRE(s->nequalities == 1);
  const mr_spec_equality *e = &s->equalities[0];
  MR_CHECK(e->type == MR_EQ_JOINT);
  MR_CHECK(e->obj1 == mr_spec_find_joint(s, "j_mimic"));
  MR_CHECK(e->obj2 == mr_spec_find_joint(s, "j_cont"));
  MR_CHECK_NEAR(e->data[0], 0.1, 0);
  MR_CHECK_NEAR(e->data[1], 2, 0);
  MR_CHECK(e->data[2] == 0 && e->data[3] == 0 && e->data[4] == 0);
  mr_spec_free(s);

  /* The same through the compiler. */
  mr_model *m = mr_model_load(DATA "joints.urdf", NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (m) {
    MR_CHECK(m->nq == 6 && m->nv == 6 && m->neq == 1);
    MR_CHECK(m->is_urdf == 1);
    mr_model_free(m);
  }
}

static void test_floating(void) {
  mr_model *m = mr_model_load(DATA "floating.urdf", NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (m) {
    MR_CHECK(m->nq == 7 && m->nv == 6);
    MR_CHECK(m->nbody == 2); /* the link named world is the world body */
    MR_CHECK(strcmp(mr_id2name(m, MR_OBJ_BODY, 0), "world") == 0);
    MR_CHECK(mr_name2id(m, MR_OBJ_BODY, "torso") == 1);
    /* The free body hangs from the world. */
    MR_CHECK(m->body_parentid[1] == 0);
    MR_CHECK_NEAR(m->qpos0[2], 1, 1e-15);
    mr_model_free(m);
  }
  /* --floating: a free joint at the root, on top of the tree's own dofs. */
  mr_load_options opt = {.floating = 1, .quiet = 1};
  m = mr_model_load(DATA "merge.urdf", &opt, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (m) {
    MR_CHECK(m->nq == 2 + 7 && m->nv == 2 + 6);
    MR_CHECK(m->jnt_type[0] == MR_JOINT_FREE && m->jnt_bodyid[0] == 1);
    mr_model_free(m);
  }
}

/* Each bad fixture fails with "PATH:LINE: ..." containing the given text. */
static void expect_error(const char *name, int line, const char *text) {
  mr_spec *s = parse(name);
  MR_CHECK_MSG(s == NULL, "%s loaded", name);
  if (s) {
    mr_spec_free(s);
    return;
  }
  char where[1200];
  snprintf(where, sizeof where, "%s%s:%d: ", DATA, name, line);
  MR_CHECK_MSG(strncmp(err, where, strlen(where)) == 0, "%s: got '%s'", where, err);
  MR_CHECK_MSG(strstr(err, text) != NULL, "'%s' not in '%s'", text, err);
  MR_CHECK(strchr(err, '\n') == NULL);
}

static void test_errors(void) {
  expect_error("two_roots.urdf", 4, "two root links: 'a' and 'b'");
  expect_error("cycle.urdf", 5, "joint cycle through link 'q'");
  expect_error("two_parents.urdf", 8, "link 'c' is the child of two joints");
  expect_error("unknown_type.urdf", 5, "unknown joint type 'spherical'");
  expect_error("unknown_link.urdf", 4, "unknown child link 'nowhere'");
  expect_error("negative_mass.urdf", 5, "negative mass");
  expect_error("bad_number.urdf", 5, "non-finite");
  expect_error("missing_mesh.urdf", 7, "mesh 'package://nosuchpkg/meshes/gone.stl' not found");
  MR_CHECK(strstr(err, "looked in") != NULL);
}

static void check_pkg_spec(const mr_spec *s) {
  MR_CHECK(s->nmeshes == 2); /* the 0.1 cube twice shares one mesh; the 0.2 cube is another */
  MR_REQUIRE(s->ngeoms == 3);
  MR_CHECK(s->geoms[0].mesh == s->geoms[1].mesh);
  MR_CHECK(s->geoms[2].mesh != s->geoms[0].mesh);
  MR_CHECK(s->geoms[0].type == MR_GEOM_MESH);
  const char *p = s->meshes[0].path;
  const char *tail = "pkgroot/mypkg/meshes/cube.stl";
  MR_CHECK(strlen(p) > strlen(tail) && strcmp(p + strlen(p) - strlen(tail), tail) == 0);
  MR_CHECK_NEAR(s->meshes[0].scale[0], 0.1, 0);
  MR_CHECK(s->geoms[0].material == mr_spec_find_material(s, "red"));
  MR_CHECK(s->geoms[0].rgba[0] == 1 && s->geoms[0].rgba[1] == 0);
}

static void test_package_path(void) {
  unsetenv("MOREAU_PACKAGE_PATH");
  mr_spec *s = parse("pkg.urdf");
  MR_CHECK(s == NULL);
  MR_CHECK(strstr(err, "package://mypkg/meshes/cube.stl") != NULL);
  if (s) mr_spec_free(s);

  mr_load_options opt = {.package_path = "/nonexistent:" DATA "pkgroot", .quiet = 1};
  s = parse_with(DATA "pkg.urdf", &opt);
  MR_CHECK_MSG(s != NULL, "%s", err);
  if (s) {
    check_pkg_spec(s);
    mr_spec_free(s);
  }

  setenv("MOREAU_PACKAGE_PATH", "/nonexistent:" DATA "pkgroot/", 1);
  s = parse("pkg.urdf");
  MR_CHECK_MSG(s != NULL, "%s", err);
  if (s) {
    check_pkg_spec(s);
    mr_spec_free(s);
  }
  /* And through the compiler, which loads the mesh. */
  mr_model *m = mr_model_load(DATA "pkg.urdf", NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (m) {
    MR_CHECK(m->nmesh == 2 && m->ngeom == 3);
    mr_model_free(m);
  }
  unsetenv("MOREAU_PACKAGE_PATH");

  /* Relative and file:// paths resolve against the URDF's folder: one file, one mesh. */
  s = parse("relative_mesh.urdf");
  MR_CHECK_MSG(s != NULL, "%s", err);
  if (s) {
    MR_CHECK(s->nmeshes == 1 && s->ngeoms == 2);
    MR_CHECK(s->geoms[1].rgba[1] == 1 && s->geoms[1].rgba[3] == 0.5f); /* inline material */
    mr_spec_free(s);
  }
}

static int has_exclude(const mr_spec *s, int b1, int b2) {
  for (int i = 0; i < s->nexcludes; i++)
    if ((s->excludes[i].body1 == b1 && s->excludes[i].body2 == b2) ||
        (s->excludes[i].body1 == b2 && s->excludes[i].body2 == b1))
      return 1;
  return 0;
}

static void test_srdf(void) {
  /* Default SRDF beside the URDF: a-b and b_fixed(=b)-c; b-b_fixed is one body; ghost is
   * unknown (warned, skipped). */
  mr_spec *s = parse("srdf_test.urdf");
  MR_REQUIRE(s != NULL);
  int a = mr_spec_find_body(s, "a"), b = mr_spec_find_body(s, "b"), c = mr_spec_find_body(s, "c");
  MR_CHECK(s->nexcludes == 2);
  MR_CHECK(has_exclude(s, a, b));
  MR_CHECK(has_exclude(s, b, c));
  mr_spec_free(s);

  mr_load_options opt = {.srdf = DATA "other.srdf", .quiet = 1};
  s = parse_with(DATA "srdf_test.urdf", &opt);
  MR_REQUIRE(s != NULL);
  MR_CHECK(s->nexcludes == 1 && has_exclude(s, a, c));
  mr_spec_free(s);

  opt.srdf = DATA "no_such.srdf";
  s = parse_with(DATA "srdf_test.urdf", &opt);
  MR_CHECK(s == NULL);
  MR_CHECK(strstr(err, "no_such.srdf") != NULL);
  if (s) mr_spec_free(s);
}

static void test_arm3(void) {
  mr_spec *s = parse_with(MOREAU_SOURCE_DIR "/models/arm3.urdf", NULL);
  MR_REQUIRE(s != NULL);
  MR_CHECK(s->nexcludes == 3); /* models/arm3.srdf: link2-tool is link2-link3 again */
  MR_CHECK(s->nequalities == 0);
  mr_spec_free(s);
  mr_model *m = mr_model_load(MOREAU_SOURCE_DIR "/models/arm3.urdf", NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (m) {
    MR_CHECK(m->nv == 3 && m->nq == 3);
    MR_CHECK(m->nbody == 5); /* world, base, link1, link2, link3 + tool */
    MR_CHECK_NEAR(mr_model_total_mass(m), 4.5, 1e-12);
    MR_CHECK_NEAR(m->opt.timestep, 0.001, 0);
    for (int j = 0; j < m->njnt; j++) MR_CHECK(m->jnt_limited[j] == 1);
    mr_model_free(m);
  }
}

/* Visual meshes sit where their collision twins do: panda's link .dae files declare
 * Z_UP, which must not rotate them (ROS tools place mesh vertices in the link frame as
 * written). Compares the body-frame bounding boxes of each link's visual and collision
 * mesh (mesh vertices are stored about their own inertia frame; the geom pose places them). */
static void mesh_box(const mr_model *m, int g, double lo[3], double hi[3]) {
  int id = m->geom_meshid[g];
  for (int k = 0; k < 3; k++) lo[k] = 1e30, hi[k] = -1e30;
  for (int v = 0; v < m->mesh_vertnum[id]; v++) {
    double x[3];
    mr_quat_rotate(x, m->geom_quat + 4 * g, m->mesh_vert + 3 * (m->mesh_vertadr[id] + v));
    for (int k = 0; k < 3; k++) {
      x[k] += m->geom_pos[3 * g + k];
      lo[k] = x[k] < lo[k] ? x[k] : lo[k];
      hi[k] = x[k] > hi[k] ? x[k] : hi[k];
    }
  }
}

static void test_dae_up_axis(void) {
  const char *path = MOREAU_SHARED_DIR "/models/example-robot-data/robots/panda_description/urdf/panda.urdf";
  mr_load_options opt = {.package_path = MOREAU_SHARED_DIR "/models", .quiet = 1};
  mr_model *m = mr_model_load(path, &opt, err, (int)sizeof err);
  if (!m) printf("%s\n", err);
  MR_REQUIRE(m != NULL);
  int compared = 0;
  for (int b = 1; b < m->nbody; b++) {
    int visual = -1, collision = -1;
    for (int g = m->body_geomadr[b]; g < m->body_geomadr[b] + m->body_geomnum[b]; g++) {
      if (m->geom_meshid[g] < 0) continue;
      if (m->geom_group[g] == 1 && visual < 0) visual = g;
      if (m->geom_group[g] == 0 && collision < 0) collision = g;
    }
    if (visual < 0 || collision < 0) continue;
    double vlo[3], vhi[3], clo[3], chi[3];
    mesh_box(m, visual, vlo, vhi);
    mesh_box(m, collision, clo, chi);
    for (int k = 0; k < 3; k++) {
      MR_CHECK_NEAR(vlo[k], clo[k], 0.01);
      MR_CHECK_NEAR(vhi[k], chi[k], 0.01);
    }
    double worst = 0;
    for (int k = 0; k < 3; k++) worst = fmax(worst, fmax(fabs(vlo[k] - clo[k]), fabs(vhi[k] - chi[k])));
    printf("  %s: visual vs collision mesh box differ by %.3f m\n", mr_id2name(m, MR_OBJ_BODY, b), worst);
    compared++;
  }
  MR_CHECK_MSG(compared >= 7, "only %d panda links with both meshes", compared);
  mr_model_free(m);
}

int main(void) {
  test_dae_up_axis();
  test_merge();
  test_inertial_rpy();
  test_joints();
  test_floating();
  test_errors();
  test_package_path();
  test_srdf();
  test_arm3();
  MR_TEST_END();
}
