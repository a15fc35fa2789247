/* Meshes for the model: loaded once per mesh asset, moved to their com and principal axes
 * (as MuJoCo does, so geom frames match MuJoCo's), and given a convex hull. */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"
#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"

/* Turns the mesh inside out (for files wound clockwise or mirrored by a negative scale). */
static void mr_mesh_flip(mr_mesh_data *d) {
  for (int f = 0; f < d->nface; f++) {
    int t = d->face[3 * f + 1];
    d->face[3 * f + 1] = d->face[3 * f + 2];
    d->face[3 * f + 2] = t;
  }
}

/* Moves vertices and normals into the frame (com, principal axes R): v' = R^T (v - com). */
static void mr_mesh_to_frame(mr_mesh_data *d, const double com[3], const double R[9]) {
  for (int v = 0; v < d->nvert; v++) {
    double p[3], q[3], n[3] = {d->normal[3 * v], d->normal[3 * v + 1], d->normal[3 * v + 2]};
    mr_sub3(p, d->vert + 3 * v, com);
    mr_mulmatT3(q, R, p);
    mr_copy3(d->vert + 3 * v, q);
    mr_mulmatT3(q, R, n);
    for (int r = 0; r < 3; r++) d->normal[3 * v + r] = (float)q[r];
  }
}

static int mr_mesh_frame(mr_compiler *c, int k) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_compiled_mesh *cm = &c->meshes[k];
  double volume, com[3], I[9];
  mr_zero3(cm->pos);
  mr_quat_identity(cm->quat);
  int rc = mr_mesh_mass_properties(cm->data.vert, cm->data.nvert, cm->data.face,
                                   cm->data.nface, &volume, com, I);
  if (rc != 0 && volume < 0) { /* wound inside out: flip, and it is a fine closed mesh */
    mr_mesh_flip(&cm->data);
    rc = mr_mesh_mass_properties(cm->data.vert, cm->data.nvert, cm->data.face, cm->data.nface,
                                 &volume, com, I);
  }
  if (rc != 0) {
    mr_warnf(c->s->quiet, sm->src, "mesh '%s' encloses no volume; it has no mass",
             sm->name ? sm->name : sm->path);
    cm->volume = 0;
    mr_zero3(cm->inertia);
    return 0;
  }
  double R[9];
  mr_sym3_eigen(I, cm->inertia, R);
  cm->volume = volume;
  mr_copy3(cm->pos, com);
  mr_mat_to_quat(cm->quat, R);
  mr_quat_to_mat(R, cm->quat); /* use exactly the rotation the geom frame will carry */
  mr_mesh_to_frame(&cm->data, com, R);
  return 0;
}

static int mr_mesh_compile_one(mr_compiler *c, int k, mr_mesh_budget *budget) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_compiled_mesh *cm = &c->meshes[k];
  const char *label = sm->name ? sm->name : sm->path;
  char msg[1024];
  if (mr_mesh_load_budget(sm->path, sm->scale, budget, &cm->data, msg, sizeof msg))
    return mr_errorf(c->err, c->errlen, sm->src, "%s", msg);
  if (cm->data.nface == 0)
    return mr_errorf(c->err, c->errlen, sm->src, "mesh '%s' (%s) has no triangles", label,
                     sm->path);
  if (!mr_all_finite(cm->data.vert, 3 * cm->data.nvert))
    return mr_errorf(c->err, c->errlen, sm->src, "mesh '%s' has a non-finite vertex", label);
  mr_mesh_frame(c, k);
  int rc = mr_hull_compute(cm->data.vert, cm->data.nvert, &cm->hull);
  if (rc < 0) return mr_errorf(c->err, c->errlen, sm->src, "out of memory computing a hull");
  if (rc == 1)
    mr_warnf(c->s->quiet, sm->src, "mesh '%s' is flat; its hull is its vertex set", label);
  return 0;
}

int mr_compile_meshes(mr_compiler *c) {
  if (c->s->nmeshes == 0) return 0;
  c->meshes = calloc((size_t)c->s->nmeshes, sizeof *c->meshes);
  if (!c->meshes) {
    mr_source src = {c->s->file, 1};
    return mr_errorf(c->err, c->errlen, src, "out of memory loading meshes");
  }
  /* one budget for all of the model's mesh files: a thousand assets naming one large file
   * cost what a thousand files would */
  mr_mesh_budget budget;
  mr_mesh_budget_init(&budget);
  for (int k = 0; k < c->s->nmeshes; k++)
    if (mr_mesh_compile_one(c, k, &budget)) return -1;
  return 0;
}

void mr_compile_meshes_free(mr_compiler *c) {
  if (!c->meshes) return;
  for (int k = 0; k < c->s->nmeshes; k++) {
    mr_mesh_data_free(&c->meshes[k].data);
    mr_hull_free(&c->meshes[k].hull);
  }
  free(c->meshes);
  c->meshes = NULL;
}
