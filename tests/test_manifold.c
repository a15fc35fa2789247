/* Contact manifolds on loaded models: box resting on a plane (4 corners), rotated box on a
 * tilted plane, box stacked on box, capsule lying, cylinder standing, a mesh cube from an
 * STL file matching the box, and the flat general-path pairs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "mr_test_model.h"
#include "collision/narrowphase.h"

static const char *stl_path = "/tmp/moreau_test_manifold_cube.stl";

static void write_cube_stl(double h) {
  FILE *f = fopen(stl_path, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "solid cube\n");
  /* 6 faces x 2 triangles, counter-clockwise seen from outside */
  static const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                  {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (int q = 0; q < 6; q++) {
    int tri[2][3] = {{quads[q][0], quads[q][1], quads[q][2]}, {quads[q][0], quads[q][2], quads[q][3]}};
    for (int t = 0; t < 2; t++) {
      fprintf(f, "facet normal 0 0 0\nouter loop\n");
      for (int k = 0; k < 3; k++) {
        int c = tri[t][k];
        fprintf(f, "vertex %g %g %g\n", (c & 1) ? h : -h, (c & 2) ? h : -h, (c & 4) ? h : -h);
      }
      fprintf(f, "endloop\nendfacet\n");
    }
  }
  fprintf(f, "endsolid cube\n");
  fclose(f);
}

static mr_model *load_model(void) {
  write_cube_stl(0.125); /* exact in float, as hull vertices are stored */
  char xml[2048];
  snprintf(xml, sizeof xml,
           "<mujoco>\n"
           " <asset><mesh name='cube' file='%s'/></asset>\n"
           " <worldbody>\n"
           "  <geom name='floor' type='plane' size='5 5 .1'/>\n"
           "  <geom name='tilted' type='plane' size='5 5 .1' pos='0 0 -3' quat='0.9887711 0.1494381 0 0'/>\n"
           "  <body name='box'><freejoint/><geom name='box' type='box' size='.1 .15 .2'/></body>\n"
           "  <body name='box2'><freejoint/><geom name='box2' type='box' size='.1 .1 .1'/></body>\n"
           "  <body name='cap'><freejoint/><geom name='cap' type='capsule' size='.05 .2'/></body>\n"
           "  <body name='cyl'><freejoint/><geom name='cyl' type='cylinder' size='.1 .2'/></body>\n"
           "  <body name='mesh'><freejoint/><geom name='mesh' type='mesh' mesh='cube'/></body>\n"
           "  <body name='cube'><freejoint/><geom name='cube' type='box' size='.125 .125 .125'/></body>\n"
           " </worldbody>\n"
           "</mujoco>\n",
           stl_path);
  mr_model *m = mr_test_load_xml(xml);
  MR_REQUIRE(m != NULL);
  return m;
}

static void set_pose(const mr_model *m, mr_data *d, const char *body, const double pos[3],
                     const double quat[4]) {
  int b = mr_name2id(m, MR_OBJ_BODY, body);
  MR_REQUIRE(b > 0);
  double *q = d->qpos + m->jnt_qposadr[m->body_jntadr[b]];
  mr_copy3(q, pos);
  memcpy(q + 3, quat, 4 * sizeof(double));
  mr_quat_normalize(q + 3);
}

static int geom(const mr_model *m, const char *name) {
  int g = mr_name2id(m, MR_OBJ_GEOM, name);
  MR_REQUIRE(g >= 0);
  return g;
}

static int all_finite(const mr_contact_point *c, int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      if (!isfinite(c[i].pos[k]) || !isfinite(c[i].normal[k]) || !isfinite(c[i].dist)) return 0;
  return 1;
}

static const double ID[4] = {1, 0, 0, 0};

static void test_box_on_plane(const mr_model *m, mr_data *d) {
  set_pose(m, d, "box", (double[3]){0.3, -0.2, 0.199}, ID);
  mr_kinematics(m, d);
  mr_contact_point c[MR_MAX_MANIFOLD];
  int n = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "box"), 0, c);
  MR_CHECK(n == 4);
  MR_CHECK(all_finite(c, n));
  for (int i = 0; i < n; i++) {
    MR_CHECK_NEAR(c[i].dist, -0.001, 1e-12);
    MR_CHECK_NEAR(c[i].normal[2], 1, 1e-12);
    MR_CHECK_NEAR(fabs(c[i].pos[0] - 0.3), 0.1, 1e-12);
    MR_CHECK_NEAR(fabs(c[i].pos[1] + 0.2), 0.15, 1e-12);
    MR_CHECK_NEAR(c[i].pos[2], -0.0005, 1e-12);
  }
  /* other order: normal flips */
  n = mr_narrowphase(m, d, geom(m, "box"), geom(m, "floor"), 0, c);
  MR_CHECK(n == 4 && fabs(c[0].normal[2] + 1) < 1e-12);
  /* lifted by 0.01: none at margin 0, 4 at margin 0.02 with dist 0.009 */
  set_pose(m, d, "box", (double[3]){0.3, -0.2, 0.209}, ID);
  mr_kinematics(m, d);
  MR_CHECK(mr_narrowphase(m, d, geom(m, "floor"), geom(m, "box"), 0, c) == 0);
  n = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "box"), 0.02, c);
  MR_CHECK(n == 4);
  for (int i = 0; i < n; i++) MR_CHECK_NEAR(c[i].dist, 0.009, 1e-12);
}

static void test_box_on_tilted_plane(const mr_model *m, mr_data *d) {
  /* plane at (0,0,-3) tilted by 0.3 rad about x; the box shares its tilt, plus a yaw of 0.7
   * about the plane normal, and sinks 0.002 into it */
  double qt[4] = {0.9887711, 0.1494381, 0, 0}, qyaw[4], q[4], nrm[3], R[9];
  mr_quat_normalize(qt);
  mr_axis_angle_to_quat(qyaw, (double[3]){0, 0, 1}, 0.7);
  mr_quat_mul(q, qt, qyaw);
  mr_quat_to_mat(R, qt);
  nrm[0] = R[2]; nrm[1] = R[5]; nrm[2] = R[8];
  double pos[3] = {0.4, 0.5, -3};
  /* move within the plane then up along the normal by half height - 0.002 */
  double inplane[3] = {0.4, 0.5, 0}, w[3];
  mr_mulmat3(w, R, inplane);
  pos[0] = w[0]; pos[1] = w[1]; pos[2] = -3 + w[2];
  mr_addscl3(pos, nrm, 0.2 - 0.002);
  set_pose(m, d, "box", pos, q);
  mr_kinematics(m, d);
  mr_contact_point c[MR_MAX_MANIFOLD];
  int n = mr_narrowphase(m, d, geom(m, "tilted"), geom(m, "box"), 0, c);
  MR_CHECK(n == 4);
  double Rb[9];
  mr_quat_to_mat(Rb, q);
  for (int i = 0; i < n; i++) {
    MR_CHECK_NEAR(c[i].dist, -0.002, 1e-9);
    MR_CHECK_NEAR(mr_dot3(c[i].normal, nrm), 1, 1e-12);
    /* in the box frame the point sits at a bottom corner (x +-0.1, y +-0.15) */
    double r[3], l[3];
    mr_sub3(r, c[i].pos, pos);
    mr_mulmatT3(l, Rb, r);
    MR_CHECK_NEAR(fabs(l[0]), 0.1, 1e-9);
    MR_CHECK_NEAR(fabs(l[1]), 0.15, 1e-9);
    MR_CHECK_NEAR(l[2], -0.2 + 0.001, 1e-9);
  }
}

static void test_box_on_box(const mr_model *m, mr_data *d) {
  /* box (0.1,0.15,0.2) at z=0.2, cube (0.1) on top shifted in x by 0.05, sunk 0.001 */
  set_pose(m, d, "box", (double[3]){0, 0, 0.2}, ID);
  set_pose(m, d, "box2", (double[3]){0.05, 0, 0.499}, ID);
  mr_kinematics(m, d);
  mr_contact_point c[MR_MAX_MANIFOLD];
  int n = mr_narrowphase(m, d, geom(m, "box"), geom(m, "box2"), 0, c);
  MR_CHECK_MSG(n == 4, "box on box: %d points", n);
  MR_CHECK(all_finite(c, n));
  int seen = 0;
  for (int i = 0; i < n; i++) {
    MR_CHECK_NEAR(c[i].dist, -0.001, 1e-9);
    MR_CHECK_NEAR(c[i].normal[2], 1, 1e-9);
    MR_CHECK_NEAR(c[i].pos[2], 0.4 - 0.0005, 1e-9);
    /* the overlap is x in [-0.05, 0.1], y in [-0.1, 0.1] */
    int cx = fabs(c[i].pos[0] + 0.05) < 1e-9 ? 0 : fabs(c[i].pos[0] - 0.1) < 1e-9 ? 1 : -1;
    int cy = fabs(c[i].pos[1] + 0.1) < 1e-9 ? 0 : fabs(c[i].pos[1] - 0.1) < 1e-9 ? 1 : -1;
    MR_CHECK(cx >= 0 && cy >= 0);
    if (cx >= 0 && cy >= 0) seen |= 1 << (2 * cx + cy);
  }
  MR_CHECK(seen == 15);
  /* features are distinct */
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) MR_CHECK(c[i].feature != c[j].feature);
  /* the cube turned 45 degrees about z: an octagon, clipped to at most 8, all at -0.001 */
  double q[4];
  mr_axis_angle_to_quat(q, (double[3]){0, 0, 1}, MR_PI / 4);
  set_pose(m, d, "box2", (double[3]){0.0, 0, 0.499}, q);
  mr_kinematics(m, d);
  n = mr_narrowphase(m, d, geom(m, "box"), geom(m, "box2"), 0, c);
  MR_CHECK_MSG(n >= 4, "turned box on box: %d points", n);
  for (int i = 0; i < n; i++) MR_CHECK_NEAR(c[i].dist, -0.001, 1e-9);
}

static void test_capsule_and_cylinder(const mr_model *m, mr_data *d) {
  double qy[4];
  mr_axis_angle_to_quat(qy, (double[3]){0, 1, 0}, MR_PI / 2);
  set_pose(m, d, "cap", (double[3]){1, 1, 0.049}, qy);
  set_pose(m, d, "cyl", (double[3]){-1, 1, 0.199}, ID);
  mr_kinematics(m, d);
  mr_contact_point c[MR_MAX_MANIFOLD];
  int n = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "cap"), 0, c);
  MR_CHECK(n == 2);
  for (int i = 0; i < n; i++) MR_CHECK_NEAR(c[i].dist, -0.001, 1e-12);
  n = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "cyl"), 0, c);
  MR_CHECK_MSG(n >= 3, "standing cylinder: %d points", n);
  for (int i = 0; i < n; i++) {
    MR_CHECK_NEAR(c[i].dist, -0.001, 1e-12);
    double rx = c[i].pos[0] + 1, ry = c[i].pos[1] - 1;
    MR_CHECK_NEAR(sqrt(rx * rx + ry * ry), 0.1, 1e-12); /* on the rim */
  }
  /* cylinder standing on the box top (general path): cap rim points, all on the rim */
  set_pose(m, d, "box", (double[3]){-1, 1, -0.2}, ID);
  set_pose(m, d, "cyl", (double[3]){-1, 1, 0.199}, ID);
  mr_kinematics(m, d);
  n = mr_narrowphase(m, d, geom(m, "box"), geom(m, "cyl"), 0, c);
  MR_CHECK_MSG(n >= 3, "cylinder on box: %d points", n);
  for (int i = 0; i < n; i++) {
    MR_CHECK_NEAR(c[i].dist, -0.001, 1e-9);
    MR_CHECK_NEAR(c[i].normal[2], 1, 1e-9);
  }
  /* capsule lying on the box (general path): 2 points */
  set_pose(m, d, "cap", (double[3]){-1, 1, 0.049}, qy);
  mr_kinematics(m, d);
  n = mr_narrowphase(m, d, geom(m, "box"), geom(m, "cap"), 0, c);
  MR_CHECK_MSG(n == 2, "capsule on box: %d points", n);
  for (int i = 0; i < n; i++) MR_CHECK_NEAR(c[i].dist, -0.001, 1e-9);
}

static int cmp_point(const void *pa, const void *pb) {
  const mr_contact_point *a = pa, *b = pb;
  for (int k = 0; k < 3; k++) {
    if (a->pos[k] < b->pos[k] - 1e-7) return -1;
    if (a->pos[k] > b->pos[k] + 1e-7) return 1;
  }
  return 0;
}

static void compare_sets(const char *what, mr_contact_point *a, int na, mr_contact_point *b, int nb) {
  MR_CHECK_MSG(na == nb, "%s: %d vs %d points", what, na, nb);
  if (na != nb) return;
  qsort(a, (size_t)na, sizeof *a, cmp_point);
  qsort(b, (size_t)nb, sizeof *b, cmp_point);
  for (int i = 0; i < na; i++) {
    for (int k = 0; k < 3; k++) {
      MR_CHECK_NEAR(a[i].pos[k], b[i].pos[k], 1e-9);
      MR_CHECK_NEAR(a[i].normal[k], b[i].normal[k], 1e-9);
    }
    MR_CHECK_NEAR(a[i].dist, b[i].dist, 1e-9);
  }
}

static void test_mesh_cube(const mr_model *m, mr_data *d) {
  double q[4] = {0.95, 0.1, -0.2, 0.15};
  mr_quat_normalize(q);
  mr_contact_point a[MR_MAX_MANIFOLD], b[MR_MAX_MANIFOLD];
  /* resting on the floor, flat and turned about z */
  double qz[4];
  mr_axis_angle_to_quat(qz, (double[3]){0, 0, 1}, 0.4);
  set_pose(m, d, "mesh", (double[3]){2, 0, 0.124}, qz);
  set_pose(m, d, "cube", (double[3]){2, 0, 0.124}, qz);
  mr_kinematics(m, d);
  int na = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "mesh"), 0, a);
  int nb = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "cube"), 0, b);
  MR_CHECK(nb == 4);
  compare_sets("mesh vs box on plane", a, na, b, nb);
  /* tilted on an edge */
  set_pose(m, d, "mesh", (double[3]){2, 0, 0.15}, q);
  set_pose(m, d, "cube", (double[3]){2, 0, 0.15}, q);
  mr_kinematics(m, d);
  na = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "mesh"), 0.01, a);
  nb = mr_narrowphase(m, d, geom(m, "floor"), geom(m, "cube"), 0.01, b);
  MR_CHECK(nb >= 1);
  compare_sets("mesh vs box tilted", a, na, b, nb);
  /* stacked on the box */
  set_pose(m, d, "box", (double[3]){2, 0, 0.2}, ID);
  set_pose(m, d, "mesh", (double[3]){2.05, 0.02, 0.524}, qz);
  set_pose(m, d, "cube", (double[3]){2.05, 0.02, 0.524}, qz);
  mr_kinematics(m, d);
  na = mr_narrowphase(m, d, geom(m, "box"), geom(m, "mesh"), 0, a);
  nb = mr_narrowphase(m, d, geom(m, "box"), geom(m, "cube"), 0, b);
  MR_CHECK(nb >= 4);
  compare_sets("mesh vs box stacked", a, na, b, nb);
}

int main(void) {
  mr_model *m = load_model();
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  test_box_on_plane(m, d);
  test_box_on_tilted_plane(m, d);
  test_box_on_box(m, d);
  test_capsule_and_cylinder(m, d);
  test_mesh_cube(m, d);
  mr_data_free(d);
  mr_model_free(m);
  remove(stl_path);
  MR_TEST_END();
}
