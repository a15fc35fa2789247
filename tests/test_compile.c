/* The model compiler on hand-built specs: dof layout and M sparsity, primitive and mesh
 * inertia against closed forms, hulls, geom grouping, and every validation error. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/compile/compile.h"
#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "engine/io/spec.h"

static mr_source at(int line) {
  mr_source s = {"test.xml", line};
  return s;
}

static int add_body(mr_spec *s, int parent, double x, double y, double z, int line) {
  int b = mr_spec_add_body(s, parent, at(line));
  s->bodies[b].pos[0] = x;
  s->bodies[b].pos[1] = y;
  s->bodies[b].pos[2] = z;
  return b;
}

static int add_sphere(mr_spec *s, int body, double r, double mass, int line) {
  int g = mr_spec_add_geom(s, body, at(line));
  s->geoms[g].type = MR_GEOM_SPHERE;
  s->geoms[g].size[0] = r;
  s->geoms[g].mass = mass;
  return g;
}

static int add_joint(mr_spec *s, int body, int type, int line) {
  int j = mr_spec_add_joint(s, body, at(line));
  s->joints[j].type = type;
  return j;
}

/* Free root, two limbs of two hinge bodies; the last body has two hinges. */
static void test_tree(void) {
  mr_spec *s = mr_spec_create("test.xml");
  int root = add_body(s, 0, 0, 0, 1, 2);
  add_joint(s, root, MR_JOINT_FREE, 3);
  add_sphere(s, root, 0.1, -1, 4);
  int a1 = add_body(s, root, 0.2, 0, 0, 5);
  add_joint(s, a1, MR_JOINT_HINGE, 6);
  add_sphere(s, a1, 0.05, -1, 7);
  int a2 = add_body(s, a1, 0.2, 0, 0, 8);
  add_joint(s, a2, MR_JOINT_HINGE, 9);
  add_sphere(s, a2, 0.05, -1, 10);
  int b1 = add_body(s, root, -0.2, 0, 0, 11);
  int jb1 = add_joint(s, b1, MR_JOINT_HINGE, 12);
  s->joints[jb1].ref = 0.25;
  s->joints[jb1].springref = -0.5;
  s->joints[jb1].axis[0] = 2;
  s->joints[jb1].axis[2] = 0;
  add_sphere(s, b1, 0.05, -1, 13);
  int b2 = add_body(s, b1, -0.2, 0, 0, 14);
  add_joint(s, b2, MR_JOINT_HINGE, 15);
  add_joint(s, b2, MR_JOINT_SLIDE, 16);
  add_sphere(s, b2, 0.05, -1, 17);
  s->bodies[b2].name = mr_spec_strdup(s, "hand");
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_REQUIRE(m != NULL);
  MR_CHECK(m->nbody == 6 && m->njnt == 6 && m->nq == 12 && m->nv == 11);
  static const int parent[11] = {-1, 0, 1, 2, 3, 4, 5, 6, 5, 8, 9};
  static const int Madr[11] = {0, 1, 3, 6, 10, 15, 21, 28, 36, 43, 51};
  for (int i = 0; i < 11; i++) {
    MR_CHECK_MSG(m->dof_parentid[i] == parent[i], "dof %d parent %d", i, m->dof_parentid[i]);
    MR_CHECK_MSG(m->dof_Madr[i] == Madr[i], "dof %d Madr %d", i, m->dof_Madr[i]);
  }
  MR_CHECK(m->nM == 60);
  static const int qposadr[6] = {0, 7, 8, 9, 10, 11}, dofadr[6] = {0, 6, 7, 8, 9, 10};
  for (int j = 0; j < 6; j++) MR_CHECK(m->jnt_qposadr[j] == qposadr[j] && m->jnt_dofadr[j] == dofadr[j]);
  MR_CHECK(m->body_dofadr[0] == -1 && m->body_dofnum[5] == 2 && m->body_dofadr[5] == 9);
  MR_CHECK(m->body_rootid[3] == 1 && m->body_rootid[1] == 1 && m->body_weldid[4] == 4);
  MR_CHECK(m->dof_bodyid[10] == 5 && m->dof_jntid[10] == 5);
  /* qpos0: free joint at the body pose, hinge at ref; spring reference at springref */
  MR_CHECK(m->qpos0[2] == 1 && m->qpos0[3] == 1 && m->qpos0[9] == 0.25);
  MR_CHECK(m->qpos_spring[9] == -0.5 && m->qpos_spring[2] == 1);
  MR_CHECK_NEAR(m->jnt_axis[3 * 3], 1, 1e-15); /* normalized */
  double sub = 0;
  for (int b = 1; b < 6; b++) sub += m->body_mass[b];
  MR_CHECK_NEAR(m->body_subtreemass[0], sub, 1e-12);
  MR_CHECK_NEAR(m->body_subtreemass[4], m->body_mass[4] + m->body_mass[5], 1e-12);
  MR_CHECK(mr_name2id(m, MR_OBJ_BODY, "hand") == 5);
  MR_CHECK(mr_name2id(m, MR_OBJ_BODY, "world") == 0);
  MR_CHECK(strcmp(mr_id2name(m, MR_OBJ_BODY, 5), "hand") == 0);
  MR_CHECK(strcmp(mr_id2name(m, MR_OBJ_BODY, 2), "") == 0);
  mr_model_free(m);
  mr_spec_free(s);
}

/* One body holding one geom at its origin: the body inertia is the geom's. */
static void check_primitive(int type, double a, double b, double c, double volume,
                            double ix, double iy, double iz) {
  mr_spec *s = mr_spec_create("test.xml");
  int body = add_body(s, 0, 0, 0, 0, 2);
  int g = mr_spec_add_geom(s, body, at(3));
  s->geoms[g].type = type;
  s->geoms[g].size[0] = a;
  s->geoms[g].size[1] = b;
  s->geoms[g].size[2] = c;
  s->geoms[g].density = 500;
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_REQUIRE(m != NULL);
  double mass = 500 * volume;
  MR_CHECK_NEAR(m->body_mass[1], mass, 1e-12 * mass);
  double I[9], want[3] = {ix * mass, iy * mass, iz * mass};
  mr_inertia_matrix(I, m->body_inertia + 3, m->body_iquat + 4);
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(I[4 * k], want[k], 1e-12 * want[k]);
  MR_CHECK(fabs(I[1]) + fabs(I[2]) + fabs(I[5]) < 1e-12 * want[0]);
  mr_model_free(m);
  mr_spec_free(s);
}

static void test_primitives(void) {
  const double pi = MR_PI;
  double r = 0.3, h = 0.4; /* capsule and cylinder half length h */
  check_primitive(MR_GEOM_SPHERE, r, 0, 0, 4.0 / 3 * pi * r * r * r, 0.4 * r * r, 0.4 * r * r,
                  0.4 * r * r);
  check_primitive(MR_GEOM_BOX, 0.1, 0.2, 0.3, 8 * 0.1 * 0.2 * 0.3, (0.04 + 0.09) / 3,
                  (0.01 + 0.09) / 3, (0.01 + 0.04) / 3);
  check_primitive(MR_GEOM_ELLIPSOID, 0.1, 0.2, 0.3, 4.0 / 3 * pi * 0.006, (0.04 + 0.09) / 5,
                  (0.01 + 0.09) / 5, (0.01 + 0.04) / 5);
  double L = 2 * h;
  check_primitive(MR_GEOM_CYLINDER, r, h, 0, pi * r * r * L, (3 * r * r + L * L) / 12,
                  (3 * r * r + L * L) / 12, r * r / 2);
  /* capsule, per unit mass: cylinder part plus two hemispheres (own com 3r/8 off the face,
   * transverse moment 83/320 m r^2 there) */
  double vc = pi * r * r * L, vs = 4.0 / 3 * pi * r * r * r, fc = vc / (vc + vs), fs = vs / (vc + vs);
  double d = L / 2 + 3 * r / 8;
  double across = fc * (3 * r * r + L * L) / 12 + fs * (83.0 / 320 * r * r + d * d);
  check_primitive(MR_GEOM_CAPSULE, r, h, 0, vc + vs, across, across, fc * r * r / 2 + fs * 0.4 * r * r);
}

/* Two 1 kg spheres of radius 0.1 at x = +-0.5, in a body rotated about z. */
static void test_composite(void) {
  mr_spec *s = mr_spec_create("test.xml");
  int b = add_body(s, 0, 0, 0, 0, 2);
  add_joint(s, b, MR_JOINT_FREE, 3);
  int g1 = add_sphere(s, b, 0.1, 1, 4), g2 = add_sphere(s, b, 0.1, 1, 5);
  s->geoms[g1].pos[0] = 0.5;
  s->geoms[g1].pos[1] = 0.2;
  s->geoms[g2].pos[0] = -0.5;
  s->geoms[g2].pos[1] = 0.2;
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_REQUIRE(m != NULL);
  MR_CHECK_NEAR(m->body_mass[1], 2, 1e-15);
  MR_CHECK_NEAR(m->body_ipos[3], 0, 1e-15);
  MR_CHECK_NEAR(m->body_ipos[4], 0.2, 1e-15);
  double I[9], want[9] = {0.008, 0, 0, 0, 0.508, 0, 0, 0, 0.508};
  mr_inertia_matrix(I, m->body_inertia + 3, m->body_iquat + 4);
  for (int k = 0; k < 9; k++) MR_CHECK_NEAR(I[k], want[k], 1e-14);
  mr_model_free(m);
  mr_spec_free(s);
}

static const char *cube_stl = "/tmp/moreau_test_compile_cube.stl";

static void write_cube_stl(void) {
  /* unit cube [0,1]^3, 12 outward-wound triangles */
  static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                  {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  FILE *f = fopen(cube_stl, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "solid cube\n");
  for (int q = 0; q < 6; q++) {
    int tri[2][3] = {{quads[q][0], quads[q][1], quads[q][2]}, {quads[q][0], quads[q][2], quads[q][3]}};
    for (int t = 0; t < 2; t++) {
      fprintf(f, " facet normal 0 0 0\n  outer loop\n");
      for (int k = 0; k < 3; k++) {
        int v = tri[t][k];
        fprintf(f, "   vertex %d %d %d\n", (v >> 2) & 1, (v >> 1) & 1, v & 1);
      }
      fprintf(f, "  endloop\n endfacet\n");
    }
  }
  fprintf(f, "endsolid cube\n");
  fclose(f);
}

static void test_mesh(void) {
  write_cube_stl();
  mr_spec *s = mr_spec_create("test.xml");
  int mesh = mr_spec_add_mesh(s, at(2));
  s->meshes[mesh].path = mr_spec_strdup(s, cube_stl);
  s->meshes[mesh].name = mr_spec_strdup(s, "cube");
  int b = add_body(s, 0, 0, 0, 0, 3);
  add_joint(s, b, MR_JOINT_FREE, 4);
  for (int k = 0; k < 2; k++) { /* two geoms share the mesh */
    int g = mr_spec_add_geom(s, b, at(5 + k));
    s->geoms[g].type = MR_GEOM_MESH;
    s->geoms[g].mesh = mesh;
    s->geoms[g].pos[2] = k;
  }
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  if (!m) fprintf(stderr, "compile failed: %s\n", err);
  MR_REQUIRE(m != NULL);
  MR_CHECK(m->nmesh == 1 && m->mesh_facenum[0] == 12);
  MR_CHECK_MSG(m->mesh_hullvertnum[0] == 8, "hull has %d vertices", m->mesh_hullvertnum[0]);
  MR_CHECK(m->mesh_hullfacenum[0] == 12);
  MR_CHECK_NEAR(m->body_mass[1], 2000, 1e-9);
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(m->geom_pos[k], 0.5, 1e-12);
  MR_CHECK_NEAR(m->geom_pos[5], 1.5, 1e-12);
  MR_CHECK_NEAR(m->geom_rbound[0], sqrt(0.75), 1e-6);
  /* each cube: m (1 + 1) / 12 about its com; the two are 1 apart along z */
  double I[9];
  mr_inertia_matrix(I, m->body_inertia + 3, m->body_iquat + 4);
  double own = 1000 * 2.0 / 12, shift = 2 * 1000 * 0.25;
  MR_CHECK_NEAR(I[0], 2 * own + shift, 1e-9);
  MR_CHECK_NEAR(I[4], 2 * own + shift, 1e-9);
  MR_CHECK_NEAR(I[8], 2 * own, 1e-9);
  MR_CHECK(strcmp(m->names + m->mesh_pathadr[0], cube_stl) == 0);
  /* hull faces point outward */
  const double *hv = m->mesh_hullvert;
  for (int f = 0; f < m->mesh_hullfacenum[0]; f++) {
    const int *t = m->mesh_hullface + 3 * f;
    double a[3], b2[3], c[3], u[3], w[3], n[3];
    for (int r = 0; r < 3; r++) a[r] = hv[3 * t[0] + r], b2[r] = hv[3 * t[1] + r], c[r] = hv[3 * t[2] + r];
    mr_sub3(u, b2, a);
    mr_sub3(w, c, a);
    mr_cross3(n, u, w);
    MR_CHECK(mr_dot3(n, a) > 0); /* the hull contains the origin (the mesh com) */
  }
  mr_model_free(m);
  mr_spec_free(s);
}

/* Geoms added out of body order are grouped, and pairs follow them. */
static void test_geom_order(void) {
  mr_spec *s = mr_spec_create("test.xml");
  int b1 = add_body(s, 0, 0, 0, 0, 2), b2 = add_body(s, 0, 1, 0, 0, 3);
  int g0 = add_sphere(s, b2, 0.1, -1, 4);
  int g1 = add_sphere(s, b1, 0.2, -1, 5);
  int g2 = add_sphere(s, b2, 0.3, -1, 6);
  s->geoms[g0].name = mr_spec_strdup(s, "g0");
  int p = mr_spec_add_pair(s, at(7));
  s->pairs[p].geom1 = g1;
  s->pairs[p].geom2 = g2;
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_REQUIRE(m != NULL);
  MR_CHECK(m->geom_bodyid[0] == 1 && m->geom_bodyid[1] == 2 && m->geom_bodyid[2] == 2);
  MR_CHECK(m->geom_size[0] == 0.2 && m->geom_size[3] == 0.1 && m->geom_size[6] == 0.3);
  MR_CHECK(m->pair_geom1[0] == 0 && m->pair_geom2[0] == 2);
  MR_CHECK(mr_name2id(m, MR_OBJ_GEOM, "g0") == 1);
  MR_CHECK(m->body_geomadr[2] == 1 && m->body_geomnum[2] == 2);
  mr_model_free(m);
  mr_spec_free(s);
}

/* A one-body model with a free joint and a sphere, which each case then breaks. */
static mr_spec *valid_spec(void) {
  mr_spec *s = mr_spec_create("test.xml");
  int b = add_body(s, 0, 0, 0, 0, 10);
  add_joint(s, b, MR_JOINT_HINGE, 11);
  add_sphere(s, b, 0.1, -1, 12);
  return s;
}

static void expect_error(mr_spec *s, const char *where, const char *what, const char *label) {
  char err[512] = "";
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_CHECK_MSG(m == NULL, "%s: compiled", label);
  MR_CHECK_MSG(strstr(err, where) != NULL, "%s: '%s' lacks '%s'", label, err, where);
  MR_CHECK_MSG(strstr(err, what) != NULL, "%s: '%s' lacks '%s'", label, err, what);
  mr_model_free(m);
  mr_spec_free(s);
}

static void test_errors(void) {
  mr_spec *s = valid_spec();
  char err[256];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  MR_REQUIRE(m != NULL);
  mr_model_free(m);
  mr_spec_free(s);

  s = valid_spec();
  s->bodies[1].has_inertial = 1;
  s->bodies[1].mass = -1;
  s->inertiafromgeom = 2;
  expect_error(s, "test.xml:10:", "negative mass", "negative mass");

  s = valid_spec();
  s->bodies[1].has_inertial = 1;
  s->bodies[1].mass = 1;
  s->bodies[1].inertia[0] = -1;
  expect_error(s, "test.xml:10:", "inertia", "negative inertia");

  s = valid_spec();
  s->bodies[1].has_inertial = 1;
  s->bodies[1].mass = 1;
  s->bodies[1].inertia[0] = NAN;
  expect_error(s, "test.xml:10:", "non-finite", "NaN inertia");

  s = valid_spec();
  s->bodies[1].has_inertial = 1;
  s->bodies[1].mass = 1;
  s->bodies[1].inertia[0] = 1;
  s->bodies[1].inertia[1] = 1;
  s->bodies[1].inertia[2] = 3;
  expect_error(s, "test.xml:10:", "triangle", "triangle inequality");

  s = valid_spec();
  s->geoms[0].mass = 0;
  expect_error(s, "test.xml:10:", "has joints but no mass", "massless");

  s = valid_spec();
  s->geoms[0].size[0] = 0;
  expect_error(s, "test.xml:12:", "size", "zero sphere");

  s = valid_spec();
  s->geoms[0].type = MR_GEOM_CAPSULE;
  s->geoms[0].size[1] = 0;
  expect_error(s, "test.xml:12:", "size", "zero capsule");

  s = valid_spec();
  s->geoms[0].pos[1] = INFINITY;
  expect_error(s, "test.xml:12:", "non-finite", "infinite geom pos");

  s = valid_spec();
  s->joints[0].axis[2] = 0;
  expect_error(s, "test.xml:11:", "zero axis", "zero axis");

  s = valid_spec();
  int k = mr_spec_add_key(s, at(20));
  double q[2] = {0, 0};
  s->keys[k].qpos = mr_spec_doubles(s, q, 2);
  s->keys[k].nqpos = 2;
  expect_error(s, "test.xml:20:", "qpos", "key qpos length");

  s = valid_spec();
  k = mr_spec_add_key(s, at(21));
  s->keys[k].qvel = mr_spec_doubles(s, q, 2);
  s->keys[k].nqvel = 2;
  expect_error(s, "test.xml:21:", "qvel", "key qvel length");

  s = valid_spec();
  k = mr_spec_add_key(s, at(22));
  s->keys[k].ctrl = mr_spec_doubles(s, q, 1);
  s->keys[k].nctrl = 1;
  expect_error(s, "test.xml:22:", "ctrl", "key ctrl length");

  s = valid_spec();
  int a = mr_spec_add_actuator(s, at(30));
  s->actuators[a].joint = 7;
  expect_error(s, "test.xml:30:", "missing joint", "actuator joint");

  s = valid_spec();
  a = mr_spec_add_actuator(s, at(31));
  s->actuators[a].trntype = MR_TRN_TENDON;
  s->actuators[a].joint = 0;
  expect_error(s, "test.xml:31:", "missing tendon", "actuator on a missing tendon");

  s = valid_spec();
  s->joints[0].type = MR_JOINT_BALL;
  add_joint(s, 1, MR_JOINT_HINGE, 13);
  expect_error(s, "test.xml:13:", "follows a ball joint", "hinge after ball");

  s = valid_spec();
  s->joints[0].type = MR_JOINT_BALL;
  add_joint(s, 1, MR_JOINT_SLIDE, 13);
  m = mr_spec_compile(s, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "slide after ball must compile: %s", err);
  mr_model_free(m);
  mr_spec_free(s);

  s = valid_spec();
  int e = mr_spec_add_equality(s, at(40));
  s->equalities[e].type = MR_EQ_CONNECT;
  s->equalities[e].obj1 = 1;
  s->equalities[e].obj2 = 9;
  expect_error(s, "test.xml:40:", "missing body", "equality body");

  s = valid_spec();
  e = mr_spec_add_equality(s, at(41));
  s->equalities[e].type = MR_EQ_JOINT;
  s->equalities[e].obj1 = 3;
  expect_error(s, "test.xml:41:", "missing joint", "equality joint");

  s = valid_spec();
  int mesh = mr_spec_add_mesh(s, at(50));
  s->meshes[mesh].path = mr_spec_strdup(s, "/nonexistent/dir/part.stl");
  expect_error(s, "test.xml:50:", "part.stl", "missing mesh file");

  const char *empty = "/tmp/moreau_test_compile_empty.obj";
  FILE *f = fopen(empty, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "# no faces\nv 0 0 0\nv 1 0 0\n");
  fclose(f);
  s = valid_spec();
  mesh = mr_spec_add_mesh(s, at(51));
  s->meshes[mesh].path = mr_spec_strdup(s, empty);
  expect_error(s, "test.xml:51:", "empty.obj", "mesh without triangles");
  remove(empty);

  s = valid_spec();
  int b = add_body(s, 1, 0, 0, 0, 60);
  add_joint(s, b, MR_JOINT_FREE, 61);
  add_sphere(s, b, 0.1, -1, 62);
  expect_error(s, "test.xml:61:", "free joint", "nested free joint");
}

int main(void) {
  test_tree();
  test_primitives();
  test_composite();
  test_mesh();
  test_geom_order();
  test_errors();
  remove(cube_stl);
  MR_TEST_END();
}
