/* mr_spec_compile: the specification becomes one flat, immutable mr_model.
 *
 * Order: check the spec, group geoms by body, load meshes, count every size, allocate the
 * model in one block, then fill the tree, the geoms and body masses, check what needs the
 * compiled values (masses, inertias, keyframe lengths), copy the rest and lay out names. */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"

/* Geoms are stored grouped by body in body order (a stable sort of the spec's order), so
 * body_geomadr/num can describe them. */
static int mr_order_geoms(mr_compiler *c) {
  const mr_spec *s = c->s;
  size_t n = (size_t)(s->ngeoms > 0 ? s->ngeoms : 1);
  c->geom_order = malloc(n * sizeof(int));
  c->geom_new = malloc(n * sizeof(int));
  int *start = calloc((size_t)s->nbodies + 1, sizeof(int));
  if (!c->geom_order || !c->geom_new || !start) {
    free(start);
    return -1;
  }
  for (int i = 0; i < s->ngeoms; i++) start[s->geoms[i].body + 1]++;
  for (int b = 0; b < s->nbodies; b++) start[b + 1] += start[b];
  for (int i = 0; i < s->ngeoms; i++) {
    int slot = start[s->geoms[i].body]++;
    c->geom_order[slot] = i;
    c->geom_new[i] = slot;
  }
  free(start);
  return 0;
}

/* nM: each dof's row holds itself and every dof above it on its branch. */
static int mr_count_nM(const mr_spec *s, int *nv_out) {
  int *above = calloc((size_t)s->nbodies, sizeof(int)); /* dofs of ancestors-or-self */
  int *own = calloc((size_t)s->nbodies, sizeof(int));
  if (!above || !own) {
    free(above);
    free(own);
    return -1;
  }
  for (int j = 0; j < s->njoints; j++) own[s->joints[j].body] += mr_joint_nv(s->joints[j].type);
  int nM = 0, nv = 0;
  for (int b = 1; b < s->nbodies; b++) {
    int base = above[s->bodies[b].parent];
    for (int k = 0; k < own[b]; k++) nM += base + k + 1;
    above[b] = base + own[b];
    nv += own[b];
  }
  free(above);
  free(own);
  *nv_out = nv;
  return nM;
}

static size_t mr_name_bytes(const char *name) { return name ? strlen(name) + 1 : 0; }

static size_t mr_count_names(const mr_spec *s) {
  size_t n = 1 + mr_name_bytes(s->model_name) + mr_name_bytes(s->file);
#define MR_NAMES_OF(arr) \
  for (int i = 0; i < s->n##arr; i++) n += mr_name_bytes(s->arr[i].name);
  MR_NAMES_OF(bodies) MR_NAMES_OF(joints) MR_NAMES_OF(geoms) MR_NAMES_OF(sites)
  MR_NAMES_OF(cameras) MR_NAMES_OF(lights) MR_NAMES_OF(meshes) MR_NAMES_OF(materials)
  MR_NAMES_OF(textures) MR_NAMES_OF(actuators) MR_NAMES_OF(equalities) MR_NAMES_OF(keys)
  MR_NAMES_OF(tendons)
  MR_NAMES_OF(sensors) MR_NAMES_OF(hfields)
#undef MR_NAMES_OF
  for (int i = 0; i < s->nmeshes; i++) n += mr_name_bytes(s->meshes[i].path);
  for (int i = 0; i < s->ntextures; i++) n += mr_name_bytes(s->textures[i].path);
  return n;
}

static int mr_count_sizes(mr_compiler *c, mr_model *z) {
  const mr_spec *s = c->s;
  memset(z, 0, sizeof *z);
  z->nbody = s->nbodies;
  z->njnt = s->njoints;
  for (int j = 0; j < s->njoints; j++) z->nq += mr_joint_nq(s->joints[j].type);
  z->nM = mr_count_nM(s, &z->nv);
  if (z->nM < 0) return -1;
  z->ngeom = s->ngeoms;
  z->nsite = s->nsites;
  z->ncam = s->ncameras;
  z->nlight = s->nlights;
  z->nmesh = s->nmeshes;
  z->nmat = s->nmaterials;
  z->ntex = s->ntextures;
  z->nu = s->nactuators;
  z->neq = s->nequalities;
  z->nexclude = s->nexcludes;
  z->npair = s->npairs;
  z->nkey = s->nkeys;
  z->nsensor = s->nsensors;
  z->nhfield = s->nhfields;
  for (int k = 0; k < s->nhfields; k++) z->nhfielddata += c->hfields[k].nrow * c->hfields[k].ncol;
  z->nsensordata = mr_compile_sensor_data_size(s);
  for (int k = 0; k < s->nmeshes; k++) {
    z->nmeshvert += c->meshes[k].data.nvert;
    z->nmeshface += c->meshes[k].data.nface;
    z->nhullvert += c->meshes[k].hull.nvert;
    z->nhullface += c->meshes[k].hull.nface;
  }
  z->nnames = (int)mr_count_names(s);
  return mr_compile_tendon_sizes(c, z);
}

/* Appends name (or nothing, for the shared empty string at 0) and returns its offset. */
static int mr_put_name(mr_model *m, int *used, const char *name) {
  if (!name || !*name) return 0;
  int adr = *used;
  size_t n = strlen(name) + 1;
  memcpy(m->names + adr, name, n);
  *used += (int)n;
  return adr;
}

static void mr_fill_names(const mr_compiler *c, mr_model *m) {
  const mr_spec *s = c->s;
  int used = 1; /* names[0] is the empty string every unnamed object points to */
#define MR_NAMES_TO(arr, type)    \
  for (int i = 0; i < s->n##arr; i++) m->name_adr[type][i] = mr_put_name(m, &used, s->arr[i].name);
  MR_NAMES_TO(bodies, MR_OBJ_BODY)
  MR_NAMES_TO(joints, MR_OBJ_JOINT)
  MR_NAMES_TO(sites, MR_OBJ_SITE)
  MR_NAMES_TO(cameras, MR_OBJ_CAMERA)
  MR_NAMES_TO(lights, MR_OBJ_LIGHT)
  MR_NAMES_TO(meshes, MR_OBJ_MESH)
  MR_NAMES_TO(materials, MR_OBJ_MATERIAL)
  MR_NAMES_TO(textures, MR_OBJ_TEXTURE)
  MR_NAMES_TO(actuators, MR_OBJ_ACTUATOR)
  MR_NAMES_TO(equalities, MR_OBJ_EQUALITY)
  MR_NAMES_TO(keys, MR_OBJ_KEY)
  MR_NAMES_TO(tendons, MR_OBJ_TENDON)
  MR_NAMES_TO(sensors, MR_OBJ_SENSOR)
  MR_NAMES_TO(hfields, MR_OBJ_HFIELD)
#undef MR_NAMES_TO
  for (int i = 0; i < s->ngeoms; i++)
    m->name_adr[MR_OBJ_GEOM][i] = mr_put_name(m, &used, s->geoms[c->geom_order[i]].name);
  for (int i = 0; i < s->nmeshes; i++) m->mesh_pathadr[i] = mr_put_name(m, &used, s->meshes[i].path);
  for (int i = 0; i < s->ntextures; i++)
    m->tex_pathadr[i] = s->textures[i].path ? mr_put_name(m, &used, s->textures[i].path) : -1;
  m->model_name = m->names + mr_put_name(m, &used, s->model_name);
  m->source_path = m->names + mr_put_name(m, &used, s->file);
}

static void mr_compiler_free(mr_compiler *c) {
  mr_compile_meshes_free(c);
  mr_compile_hfields_free(c);
  free(c->geom_order);
  free(c->geom_new);
}

static mr_model *mr_out_of_memory(mr_compiler *c, mr_model *m) {
  mr_source src = {c->s->file, 1};
  mr_errorf(c->err, c->errlen, src, "out of memory while compiling the model");
  mr_model_free(m);
  return NULL;
}

mr_model *mr_spec_compile(mr_spec *s, char *err, int errlen) {
  if (err && errlen > 0) err[0] = 0;
  mr_compiler c = {s, err, errlen, NULL, NULL, NULL, NULL};
  mr_model sizes, *m = NULL;
  if (mr_compile_check_spec(&c) || mr_compile_check_limits(&c) || mr_compile_check_tendons(&c) || mr_compile_check_sensors(&c) ||
      mr_compile_meshes(&c) || mr_compile_hfields(&c))
    goto fail;
  if (mr_order_geoms(&c) || mr_count_sizes(&c, &sizes)) {
    m = mr_out_of_memory(&c, NULL);
    goto fail;
  }
  sizes.opt = s->opt;
  sizes.is_urdf = s->is_urdf;
  m = mr_model_alloc(&sizes);
  if (!m) {
    mr_out_of_memory(&c, NULL);
    goto fail;
  }
  mr_compile_tree(&c, m);
  mr_compile_hfields_fill(&c, m);
  if (mr_compile_geoms(&c, m)) {
    m = mr_out_of_memory(&c, m);
    goto fail;
  }
  if (mr_compile_check_model(&c, m)) goto fail;
  mr_compile_copy(&c, m);
  if (mr_compile_tendons(&c, m)) {
    m = mr_out_of_memory(&c, m);
    goto fail;
  }
  mr_compile_sensors(&c, m);
  mr_fill_names(&c, m);
  mr_compiler_free(&c);
  return m;
fail:
  mr_model_free(m);
  mr_compiler_free(&c);
  return NULL;
}
