/* Meshes and primitives fitted to them against MuJoCo 2.2 (the oracle): mj_meshes.xml
 * (inline vertex and face data, a non-convex L block; inline vertices alone, their convex
 * hull; MuJoCo's binary .msh; an OBJ with hexagon and quad faces; a box, sphere, capsule,
 * cylinder and ellipsoid fitted to them) loaded three ways:
 *   1. as written, compiler exactmeshinertia="true" (Moreau's default): exact volumes and
 *      inertias, primitives fitted to the equivalent-inertia box;
 *   2. exactmeshinertia="false" (MuJoCo 2.2's default): the legacy estimate, pyramids
 *      counted positive from the surface centroid and the mass of the inertia box;
 *   3. fitaabb="true" settotalmass="10": primitives fitted to the bounding box, every body
 *      scaled to a total mass of 10;
 *   4. MuJoCo's sample mug.xml (an OBJ) as MuJoCo loads it by default, legacy inertia.
 * Body masses, inertia matrices and centers, and every geom's size, position and principal
 * axes match MuJoCo's to float precision (MuJoCo keeps mesh vertices as floats), but for
 * where fitaabb places a primitive (see fitted_aabb_pos). */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"
#include "moreau.h"
#include "mr_mj_fixture.h"
#include "mr_test.h"

#define TOL 1e-6

static char tmpdir[256];

static double rel(double a, double b) {
  double scale = fmax(fabs(a), fabs(b));
  return scale > 1e-300 ? fabs(a - b) / scale : 0;
}

/* The fixture with its compiler element replaced, written to the scratch directory. */
static void variant(const char *compiler, const char *name, char *path, size_t n) {
  char src[1024];
  fixture("mj_meshes.xml", src, sizeof src);
  char *text = mr_test_read_file(src);
  MR_REQUIRE(text != NULL);
  const char *old = "<compiler angle=\"radian\" meshdir=\"../mesh\" exactmeshinertia=\"true\"/>";
  char *at = strstr(text, old);
  MR_REQUIRE(at != NULL);
  snprintf(path, n, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "%.*s<compiler angle=\"radian\" meshdir=\"%s/tests/data/mesh\" %s/>%s", (int)(at - text),
          text, MOREAU_SOURCE_DIR, compiler, at + strlen(old));
  fclose(f);
  free(text);
}

/* Where Moreau puts a primitive fitted with fitaabb: at the center of the mesh's bounding
 * box in the mesh frame, the frame its companion mesh geom NAME_mesh carries. MuJoCo 2.2
 * puts it at the geom's own position plus that center, leaving out the mesh's offset from
 * its file's origin, so that the primitive does not cover the mesh (a documented
 * difference): positions are checked against the mesh frame instead, and the body holding
 * the fitted geoms (whose inertia follows their positions) is left out of the inertia
 * comparison. Returns 0 if g has no companion. */
static int fitted_aabb_pos(const mr_model *m, const mjModel *mj, int g, double pos[3]) {
  char name[128];
  snprintf(name, sizeof name, "%s_mesh", mj_id2name(mj, mjOBJ_GEOM, g));
  int c = mj_name2id(mj, mjOBJ_GEOM, name);
  if (c < 0 || m->geom_meshid[c] < 0) return 0;
  int k = m->geom_meshid[c];
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int v = 0; v < m->mesh_vertnum[k]; v++)
    for (int i = 0; i < 3; i++) {
      double x = m->mesh_vert[3 * (m->mesh_vertadr[k] + v) + i];
      lo[i] = fmin(lo[i], x), hi[i] = fmax(hi[i], x);
    }
  double cen[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}, R[9];
  mr_quat_to_mat(R, m->geom_quat + 4 * c);
  for (int i = 0; i < 3; i++)
    pos[i] = m->geom_pos[3 * c + i] + R[3 * i] * cen[0] + R[3 * i + 1] * cen[1] + R[3 * i + 2] * cen[2];
  return 1;
}

/* aabb: the model fits with fitaabb (see fitted_aabb_pos). */
static void compare(const char *tag, const char *path, int aabb, double total_mass) {
  char err[1024] = "";
  mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
  MR_CHECK_MSG(mj != NULL, "%s: MuJoCo cannot load %s: %s", tag, path, err);
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s: moreau cannot load %s: %s", tag, path, err);
  if (!mj || !m) {
    if (mj) mj_deleteModel(mj);
    mr_model_free(m);
    return;
  }
  MR_CHECK_MSG(m->nbody == mj->nbody && m->ngeom == mj->ngeom && m->nmesh == mj->nmesh &&
                   m->nq == mj->nq && m->nv == mj->nv,
               "%s: sizes nbody %d/%d ngeom %d/%d nmesh %d/%d", tag, m->nbody, mj->nbody, m->ngeom,
               mj->ngeom, m->nmesh, mj->nmesh);
  double worst_mass = 0, worst_inertia = 0, worst_ipos = 0, total = 0;
  int fits = mj_name2id(mj, mjOBJ_BODY, "fits");
  for (int b = 1; b < m->nbody && m->nbody == mj->nbody; b++) {
    total += m->body_mass[b];
    worst_mass = fmax(worst_mass, rel(m->body_mass[b], mj->body_mass[b]));
    MR_CHECK_MSG(rel(m->body_mass[b], mj->body_mass[b]) < TOL, "%s: body %d mass %.9g, MuJoCo %.9g",
                 tag, b, m->body_mass[b], mj->body_mass[b]);
    if (aabb && b == fits) continue;
    double A[9], B[9], scale = 0;
    mr_inertia_matrix(A, m->body_inertia + 3 * b, m->body_iquat + 4 * b);
    mr_inertia_matrix(B, mj->body_inertia + 3 * b, mj->body_iquat + 4 * b);
    for (int k = 0; k < 9; k++) scale = fmax(scale, fabs(B[k]));
    for (int k = 0; k < 9; k++) worst_inertia = fmax(worst_inertia, fabs(A[k] - B[k]) / scale);
    for (int k = 0; k < 3; k++)
      worst_ipos = fmax(worst_ipos, fabs(m->body_ipos[3 * b + k] - mj->body_ipos[3 * b + k]));
  }
  MR_CHECK_MSG(worst_inertia < TOL, "%s: body inertia differs by %g relative", tag, worst_inertia);
  MR_CHECK_MSG(worst_ipos < TOL, "%s: body_ipos differs by %g", tag, worst_ipos);
  if (total_mass > 0) MR_CHECK_NEAR(total, total_mass, 1e-12);
  double worst_geom = 0;
  for (int g = 0; g < m->ngeom && m->ngeom == mj->ngeom; g++) {
    MR_CHECK(m->geom_type[g] == mj->geom_type[g]);
    double e = 0;
    if (mj->geom_type[g] != mjGEOM_MESH && mj->geom_type[g] != mjGEOM_PLANE)
      for (int k = 0; k < 3; k++) e = fmax(e, rel(m->geom_size[3 * g + k], mj->geom_size[3 * g + k]));
    double expect[3] = {mj->geom_pos[3 * g], mj->geom_pos[3 * g + 1], mj->geom_pos[3 * g + 2]};
    if (aabb && mj->geom_type[g] != mjGEOM_MESH && mj->geom_type[g] != mjGEOM_PLANE)
      MR_CHECK_MSG(fitted_aabb_pos(m, mj, g, expect), "%s: geom %d has no mesh companion", tag, g);
    for (int k = 0; k < 3; k++) e = fmax(e, fabs(m->geom_pos[3 * g + k] - expect[k]));
    /* principal axes are defined up to their sign (and a sphere has none): the frames
     * agree when each axis is the other's or its opposite */
    double A[9], B[9];
    mr_quat_to_mat(A, m->geom_quat + 4 * g);
    mju_quat2Mat(B, mj->geom_quat + 4 * g);
    for (int k = 0; k < 3 && mj->geom_type[g] != mjGEOM_SPHERE; k++)
      e = fmax(e, 1 - fabs(A[k] * B[k] + A[3 + k] * B[3 + k] + A[6 + k] * B[6 + k]));
    MR_CHECK_MSG(e < TOL, "%s: geom %d (%s) size/pos/quat differ by %g: size %g %g %g vs %g %g %g", tag, g,
                 mj_id2name(mj, mjOBJ_GEOM, g), e, m->geom_size[3 * g], m->geom_size[3 * g + 1],
                 m->geom_size[3 * g + 2], mj->geom_size[3 * g], mj->geom_size[3 * g + 1],
                 mj->geom_size[3 * g + 2]);
    worst_geom = fmax(worst_geom, e);
  }
  printf("%s: mass %.2g, inertia %.2g, com %.2g, geoms %.2g from MuJoCo's; total mass %.9g\n", tag,
         worst_mass, worst_inertia, worst_ipos, worst_geom, total);
  mr_model_free(m);
  mj_deleteModel(mj);
}

/* MuJoCo's sample mug (an OBJ) as shipped, that is with MuJoCo 2.2's default legacy mesh
 * inertia, which Moreau gives when asked: the same masses, inertias and frames. */
static void compare_mug(void) {
  char src[1024], path[1024];
  snprintf(src, sizeof src, "%s/mug/mug.xml", MUJOCO_MODEL_DIR);
  char *text = mr_test_read_file(src);
  MR_REQUIRE(text != NULL);
  const char *root = "<mujoco model=\"mug\">";
  char *at = strstr(text, root);
  MR_REQUIRE(at != NULL);
  snprintf(path, sizeof path, "%s/mug.xml", tmpdir);
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "%s<compiler exactmeshinertia=\"false\" meshdir=\"%s/mug\" texturedir=\"%s/mug\"/>%s",
          root, MUJOCO_MODEL_DIR, MUJOCO_MODEL_DIR, at + strlen(root));
  fclose(f);
  free(text);
  compare("mug.xml, legacy inertia", path, 0, 0);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_mj_meshes");
  char path[1024];
  fixture("mj_meshes.xml", path, sizeof path);
  compare("exact", path, 0, 0);
  variant("exactmeshinertia=\"false\"", "legacy.xml", path, sizeof path);
  compare("legacy inertia", path, 0, 0);
  variant("exactmeshinertia=\"true\" fitaabb=\"true\" settotalmass=\"10\"", "aabb.xml", path, sizeof path);
  compare("fitaabb, settotalmass", path, 1, 10);
  compare_mug();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
