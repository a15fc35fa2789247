/* Meshes for the model: read once per mesh asset (a file, or the inline vertex and face
 * data of the MJCF), moved to their com and principal axes (as MuJoCo does, so geom frames
 * match MuJoCo's), and given a convex hull when a geom collides with them. A mesh given
 * without faces is its convex hull. Only what the load is for is read
 * (mr_load_options.meshes): a mesh that is only drawn is skipped unless the viewer loads,
 * and nothing is hulled for `info`. Compiled mesh files come from and go to the disk cache
 * (mesh_cache.h) in the default exact mode.
 *
 * Mass properties are exact by default (the divergence theorem over the closed triangle
 * mesh, MuJoCo's exactmeshinertia="true"); exactmeshinertia="false" asks for MuJoCo 2.2's
 * legacy estimate, pyramids counted positive from the surface centroid, with a geom's mass
 * taken from the volume of the equivalent inertia box as MuJoCo 2.2 takes it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"
#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"
#include "mesh_cache.h"

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

static int mr_mesh_props(const mr_compiler *c, const mr_mesh_data *d, double *volume,
                         double com[3], double I[9]) {
  if (c->s->exactmeshinertia)
    return mr_mesh_mass_properties(d->vert, d->nvert, d->face, d->nface, volume, com, I);
  return mr_mesh_mass_properties_legacy(d->vert, d->nvert, d->face, d->nface, volume, com, I);
}

/* Half sizes of the box of this volume with these principal moments (per unit density). */
static void mr_inertia_box(const double inertia[3], double volume, double box[3]) {
  for (int k = 0; k < 3; k++) {
    double e = inertia[(k + 1) % 3] + inertia[(k + 2) % 3] - inertia[k];
    box[k] = sqrt(fmax(0, 6 * e / volume)) / 2;
  }
}

/* Moves the mesh to its com and principal axes; MR_MESH_NO_VOLUME if it encloses none. */
static int mr_mesh_frame(mr_compiler *c, int k) {
  mr_compiled_mesh *cm = &c->meshes[k];
  double volume, com[3], I[9];
  mr_zero3(cm->pos);
  mr_quat_identity(cm->quat);
  int rc = mr_mesh_props(c, &cm->data, &volume, com, I);
  if (rc != 0 && c->s->exactmeshinertia && volume < 0) { /* wound inside out: flip it */
    mr_mesh_flip(&cm->data);
    rc = mr_mesh_props(c, &cm->data, &volume, com, I);
  }
  if (rc != 0) {
    cm->volume = 0;
    mr_zero3(cm->inertia);
    mr_zero3(cm->box);
    return MR_MESH_NO_VOLUME;
  }
  double R[9];
  mr_sym3_eigen(I, cm->inertia, R);
  mr_inertia_box(cm->inertia, volume, cm->box);
  if (!c->s->exactmeshinertia) { /* MuJoCo 2.2 weighs the legacy mesh by its inertia box */
    double box_volume = 8 * cm->box[0] * cm->box[1] * cm->box[2];
    for (int i = 0; i < 3; i++) {
      double b = cm->box[(i + 1) % 3], e = cm->box[(i + 2) % 3];
      cm->inertia[i] = box_volume * (b * b + e * e) / 3;
    }
    volume = box_volume;
  }
  cm->volume = volume;
  mr_copy3(cm->pos, com);
  mr_mat_to_quat(cm->quat, R);
  mr_quat_to_mat(R, cm->quat); /* use exactly the rotation the geom frame will carry */
  mr_mesh_to_frame(&cm->data, com, R);
  return 0;
}

/* The inline vertices and faces of the MJCF, scaled. */
static int mr_mesh_inline(const mr_spec_mesh *sm, mr_mesh_data *d) {
  memset(d, 0, sizeof *d);
  d->vert = malloc(sizeof(double) * 3 * (size_t)sm->nvert);
  d->normal = calloc(3 * (size_t)sm->nvert, sizeof(float));
  d->face = malloc(sizeof(int) * 3 * (size_t)(sm->nface > 0 ? sm->nface : 1));
  if (!d->vert || !d->normal || !d->face) {
    mr_mesh_data_free(d);
    return -1;
  }
  for (int i = 0; i < 3 * sm->nvert; i++) d->vert[i] = sm->vert[i] * sm->scale[i % 3];
  if (sm->nface) memcpy(d->face, sm->face, sizeof(int) * 3 * (size_t)sm->nface);
  d->nvert = sm->nvert;
  d->nface = sm->nface;
  return 0;
}

/* A mesh without faces becomes its convex hull, vertices and triangles. */
static int mr_mesh_use_hull(mr_compiler *c, int k) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_mesh_data *d = &c->meshes[k].data;
  mr_hull h;
  int rc = mr_hull_compute(d->vert, d->nvert, &h);
  if (rc < 0) return mr_errorf(c->err, c->errlen, sm->src, "out of memory computing a hull");
  if (rc == 1 || h.nface == 0) {
    mr_hull_free(&h);
    return mr_errorf(c->err, c->errlen, sm->src, "mesh '%s' has no faces and its vertices are flat",
                     sm->name ? sm->name : sm->path);
  }
  float *normal = calloc(3 * (size_t)h.nvert, sizeof(float));
  if (!normal) {
    mr_hull_free(&h);
    return mr_errorf(c->err, c->errlen, sm->src, "out of memory computing a hull");
  }
  mr_mesh_data_free(d);
  d->vert = h.vert;
  d->face = h.face;
  d->normal = normal;
  d->nvert = h.nvert;
  d->nface = h.nface;
  return 0;
}

/* What mesh k is needed for: MR_MESH_USE_HULL (a geom that collides uses it, through its
 * contype/conaffinity or an explicit pair), MR_MESH_USE_DATA (a geom that collides or adds
 * mass, or any geom when everything is drawn), 0 (only drawn, and nothing is). */
enum { MR_MESH_USE_DATA = 1, MR_MESH_USE_HULL = 2 };

static int mr_mesh_use(const mr_compiler *c, int k) {
  const mr_spec *s = c->s;
  int use = s->mesh_mode == MR_MESHES_ALL ? MR_MESH_USE_DATA : 0;
  for (int i = 0; i < s->ngeoms; i++) {
    const mr_spec_geom *g = &s->geoms[i];
    if (g->type != MR_GEOM_MESH || g->mesh != k) continue;
    int collides = (g->contype | g->conaffinity) != 0;
    for (int p = 0; p < s->npairs && !collides; p++)
      collides = s->pairs[p].geom1 == i || s->pairs[p].geom2 == i;
    const mr_spec_body *b = &s->bodies[g->body];
    int from_geoms = s->inertiafromgeom == 1 || (s->inertiafromgeom == 2 && !b->has_inertial);
    int weighs = g->body > 0 && from_geoms && (g->mass > 0 || (g->mass < 0 && g->density > 0));
    if (collides || weighs) use |= MR_MESH_USE_DATA;
    if (collides && s->mesh_mode != MR_MESHES_INSPECT) use |= MR_MESH_USE_HULL;
  }
  return use;
}

/* Reads the mesh (its file or inline data): vertices moved to the mesh's frame. Returns the
 * MR_MESH_* flags, or -1 with err set. */
static int mr_mesh_read(mr_compiler *c, int k, mr_mesh_budget *budget) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_compiled_mesh *cm = &c->meshes[k];
  const char *label = sm->name ? sm->name : sm->path;
  char msg[1024];
  if (sm->path) {
    if (mr_mesh_load_budget(sm->path, sm->scale, budget, &cm->data, msg, sizeof msg))
      return mr_errorf(c->err, c->errlen, sm->src, "%s", msg);
  } else if (mr_mesh_inline(sm, &cm->data)) {
    return mr_errorf(c->err, c->errlen, sm->src, "out of memory reading mesh '%s'", label);
  }
  if (!mr_all_finite(cm->data.vert, 3 * cm->data.nvert))
    return mr_errorf(c->err, c->errlen, sm->src, "mesh '%s' has a non-finite vertex", label);
  if (cm->data.nface == 0) {
    if (sm->path && cm->data.nvert < 4)
      return mr_errorf(c->err, c->errlen, sm->src, "mesh '%s' (%s) has no triangles", label, sm->path);
    if (mr_mesh_use_hull(c, k)) return -1;
    mr_mesh_data_normals(&cm->data, 1);
  } else if (!sm->path) {
    mr_mesh_data_normals(&cm->data, 1);
  }
  /* a mirroring scale turns the winding inside out (MuJoCo flips it back) */
  if (sm->scale[0] * sm->scale[1] * sm->scale[2] < 0) mr_mesh_flip(&cm->data);
  return mr_mesh_frame(c, k);
}

/* Adds the convex hull to cm: the flags with MR_MESH_HAS_HULL (and MR_MESH_FLAT), or -1. */
static int mr_mesh_hull(mr_compiler *c, int k, int flags) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_compiled_mesh *cm = &c->meshes[k];
  mr_hull_free(&cm->hull);
  int rc = mr_hull_compute(cm->data.vert, cm->data.nvert, &cm->hull);
  if (rc < 0) return mr_errorf(c->err, c->errlen, sm->src, "out of memory computing a hull");
  return flags | MR_MESH_HAS_HULL | (rc == 1 ? MR_MESH_FLAT : 0);
}

/* From the cache when it holds the mesh (adding the hull it lacks), else from the file and
 * into the cache. Inline meshes and legacy inertia (exactmeshinertia="false") bypass it.
 * Files read count against the model's budget; a cached mesh was bounded when it was read. */
static int mr_mesh_compile_one(mr_compiler *c, int k, const char *cache, mr_mesh_budget *budget) {
  const mr_spec_mesh *sm = &c->s->meshes[k];
  mr_compiled_mesh *cm = &c->meshes[k];
  int use = mr_mesh_use(c, k);
  if (!use) return 0;
  mr_mesh_key key;
  int keyed = cache && sm->path && c->s->exactmeshinertia &&
              mr_mesh_key_make(sm->path, sm->scale, &key) == 0;
  int flags = 0, store = 0;
  if (keyed && mr_mesh_cache_load(cache, &key, cm, &flags)) {
    if (cm->volume > 0) mr_inertia_box(cm->inertia, cm->volume, cm->box);
  } else {
    if ((flags = mr_mesh_read(c, k, budget)) < 0) return -1;
    store = keyed;
  }
  if ((use & MR_MESH_USE_HULL) && !(flags & MR_MESH_HAS_HULL)) {
    if ((flags = mr_mesh_hull(c, k, flags)) < 0) return -1;
    store = keyed;
  }
  if (store) mr_mesh_cache_store(cache, &key, cm, flags); /* a failure only costs speed */
  const char *label = sm->name ? sm->name : sm->path;
  if (flags & MR_MESH_NO_VOLUME)
    mr_warnf(c->s->quiet, sm->src, "mesh '%s' encloses no volume; it has no mass", label);
  if ((use & MR_MESH_USE_HULL) && (flags & MR_MESH_FLAT))
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
  char dir[4096];
  const char *cache = mr_mesh_cache_dir(dir, (int)sizeof dir) ? dir : NULL;
  /* one budget for all of the model's mesh files: a thousand assets naming one large file
   * cost what a thousand files would */
  mr_mesh_budget budget;
  mr_mesh_budget_init(&budget);
  for (int k = 0; k < c->s->nmeshes; k++)
    if (mr_mesh_compile_one(c, k, cache, &budget)) return -1;
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
