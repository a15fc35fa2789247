/* The model specification: string pool, growable element arrays, adders with MuJoCo's
 * defaults, and name lookups. Parsers fill it; engine/compile/compile.c turns it into mr_model. */
#include "spec.h"

#include <stdlib.h>
#include <string.h>

#include "engine/core/mr_math.h"

/* Every interned string and copied array is one block on this list, freed with the spec. */
typedef struct mr_spec_pool {
  void **blocks;
  int nblocks, cap;
} mr_spec_pool;

static void *mr_pool_alloc(mr_spec *s, size_t bytes) {
  mr_spec_pool *p = s->pool;
  if (p->nblocks == p->cap) {
    int cap = p->cap ? 2 * p->cap : 64;
    void **b = realloc(p->blocks, (size_t)cap * sizeof *b);
    if (!b) return NULL;
    p->blocks = b;
    p->cap = cap;
  }
  void *mem = malloc(bytes ? bytes : 1);
  if (mem) p->blocks[p->nblocks++] = mem;
  return mem;
}

const char *mr_spec_strdup(mr_spec *s, const char *str) {
  if (!str) return NULL;
  size_t n = strlen(str) + 1;
  char *c = mr_pool_alloc(s, n);
  if (c) memcpy(c, str, n);
  return c;
}

/* n elements of elem bytes in the pool: a copy of v, or zeros when v is NULL. */
static void *mr_pool_copy(mr_spec *s, const void *v, int n, size_t elem) {
  if (n < 0) return NULL;
  void *d = mr_pool_alloc(s, (size_t)n * elem);
  if (d && n > 0) {
    if (v)
      memcpy(d, v, (size_t)n * elem);
    else
      memset(d, 0, (size_t)n * elem);
  }
  return d;
}

double *mr_spec_doubles(mr_spec *s, const double *v, int n) { return mr_pool_copy(s, v, n, sizeof(double)); }

int *mr_spec_ints(mr_spec *s, const int *v, int n) { return mr_pool_copy(s, v, n, sizeof(int)); }

mr_spec *mr_spec_create(const char *file) {
  mr_spec *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->pool = calloc(1, sizeof *s->pool);
  if (!s->pool) {
    free(s);
    return NULL;
  }
  s->file = mr_spec_strdup(s, file ? file : "(spec)");
  s->opt.timestep = 0.002;
  s->opt.gravity[2] = -9.81;
  s->opt.integrator = MR_INT_EULER;
  s->opt.disable = 0;
  s->opt.solver = -1;
  s->opt.tol = 1e-8;
  s->opt.max_iter = 0; /* the solver's own cap */
  s->inertiafromgeom = 2;
  /* MuJoCo 2.2's <compiler><lengthrange> defaults */
  s->lengthrange.mode = 1;
  s->lengthrange.useexisting = 1;
  s->lengthrange.accel = 20;
  s->lengthrange.timeconst = 1;
  s->lengthrange.timestep = 0.01;
  s->lengthrange.inttotal = 10;
  s->lengthrange.interval = 2;
  s->lengthrange.tolrange = 0.05;
  s->exactmeshinertia = 1;
  s->settotalmass = -1;
  s->opt.magnetic[1] = -0.5;
  mr_source src = {s->file, 0};
  if (mr_spec_add_body(s, -1, src) != 0) {
    mr_spec_free(s);
    return NULL;
  }
  s->bodies[0].name = mr_spec_strdup(s, "world");
  return s;
}

void mr_spec_free(mr_spec *s) {
  if (!s) return;
  if (s->pool) {
    for (int i = 0; i < s->pool->nblocks; i++) free(s->pool->blocks[i]);
    free(s->pool->blocks);
    free(s->pool);
  }
  free(s->bodies);
  free(s->joints);
  free(s->geoms);
  free(s->sites);
  free(s->cameras);
  free(s->lights);
  free(s->meshes);
  free(s->materials);
  free(s->textures);
  free(s->actuators);
  free(s->equalities);
  free(s->pairs);
  free(s->excludes);
  free(s->keys);
  free(s->tendons);
  free(s->wraps);
  free(s->sensors);
  free(s->hfields);
  mr_spec_names_free(s);
  free(s);
}

/* Appends one zeroed element to a growable array; returns its index or -1. */
static int mr_array_grow(void **data, int *count, int *cap, size_t elem) {
  if (*count == *cap) {
    int ncap = *cap ? 2 * *cap : 16;
    void *d = realloc(*data, (size_t)ncap * elem);
    if (!d) return -1;
    *data = d;
    *cap = ncap;
  }
  memset((char *)*data + (size_t)*count * elem, 0, elem);
  return (*count)++;
}

#define MR_SPEC_APPEND(s, arr) \
  mr_array_grow((void **)&(s)->arr, &(s)->n##arr, &(s)->cap_##arr, sizeof *(s)->arr)

static void mr_set_solref(double solref[2]) {
  solref[0] = 0.02;
  solref[1] = 1;
}

static void mr_set_solimp(double solimp[5]) {
  solimp[0] = 0.9;
  solimp[1] = 0.95;
  solimp[2] = 0.001;
  solimp[3] = 0.5;
  solimp[4] = 2;
}

static void mr_set_rgba(float rgba[4], float r, float g, float b, float a) {
  rgba[0] = r;
  rgba[1] = g;
  rgba[2] = b;
  rgba[3] = a;
}

int mr_spec_add_body(mr_spec *s, int parent, mr_source src) {
  int i = MR_SPEC_APPEND(s, bodies);
  if (i < 0) return -1;
  mr_spec_body *b = &s->bodies[i];
  b->src = src;
  b->parent = parent;
  mr_quat_identity(b->quat);
  mr_quat_identity(b->iquat);
  return i;
}

int mr_spec_add_joint(mr_spec *s, int body, mr_source src) {
  int i = MR_SPEC_APPEND(s, joints);
  if (i < 0) return -1;
  mr_spec_joint *j = &s->joints[i];
  j->src = src;
  j->body = body;
  j->type = MR_JOINT_HINGE; /* MuJoCo's default joint type */
  j->axis[2] = 1;
  mr_set_solref(j->solref_lim);
  mr_set_solimp(j->solimp_lim);
  return i;
}

int mr_spec_add_geom(mr_spec *s, int body, mr_source src) {
  int i = MR_SPEC_APPEND(s, geoms);
  if (i < 0) return -1;
  mr_spec_geom *g = &s->geoms[i];
  g->src = src;
  g->body = body;
  g->type = MR_GEOM_SPHERE; /* MuJoCo's default geom type */
  mr_quat_identity(g->quat);
  g->contype = 1;
  g->conaffinity = 1;
  g->condim = 3;
  g->friction[0] = 1;
  g->friction[1] = 0.005;
  g->friction[2] = 0.0001;
  g->solmix = 1;
  mr_set_solref(g->solref);
  mr_set_solimp(g->solimp);
  g->density = 1000;
  g->mass = -1;
  mr_set_rgba(g->rgba, 1, 1, 1, 1);
  g->mesh = -1;
  g->hfield = -1;
  g->material = -1;
  g->fitscale = 1;
  return i;
}

int mr_spec_add_site(mr_spec *s, int body, mr_source src) {
  int i = MR_SPEC_APPEND(s, sites);
  if (i < 0) return -1;
  mr_spec_site *t = &s->sites[i];
  t->src = src;
  t->body = body;
  t->type = MR_GEOM_SPHERE;
  mr_quat_identity(t->quat);
  t->size[0] = t->size[1] = t->size[2] = 0.005; /* MuJoCo's default site size */
  mr_set_rgba(t->rgba, 1, 1, 1, 1);
  return i;
}

int mr_spec_add_camera(mr_spec *s, int body, mr_source src) {
  int i = MR_SPEC_APPEND(s, cameras);
  if (i < 0) return -1;
  mr_spec_camera *c = &s->cameras[i];
  c->src = src;
  c->body = body;
  mr_quat_identity(c->quat);
  c->fovy = 45;
  return i;
}

int mr_spec_add_light(mr_spec *s, int body, mr_source src) {
  int i = MR_SPEC_APPEND(s, lights);
  if (i < 0) return -1;
  mr_spec_light *l = &s->lights[i];
  l->src = src;
  l->body = body;
  l->dir[2] = -1;
  l->diffuse[0] = l->diffuse[1] = l->diffuse[2] = 0.7f;
  return i;
}

int mr_spec_add_mesh(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, meshes);
  if (i < 0) return -1;
  mr_spec_mesh *m = &s->meshes[i];
  m->src = src;
  m->scale[0] = m->scale[1] = m->scale[2] = 1;
  return i;
}

int mr_spec_add_material(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, materials);
  if (i < 0) return -1;
  mr_spec_material *m = &s->materials[i];
  m->src = src;
  mr_set_rgba(m->rgba, 1, 1, 1, 1);
  m->specular = 0.5f;
  m->shininess = 0.5f;
  m->texrepeat[0] = m->texrepeat[1] = 1;
  m->texture = -1;
  return i;
}

int mr_spec_add_texture(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, textures);
  if (i < 0) return -1;
  mr_spec_texture *t = &s->textures[i];
  t->src = src;
  t->rgb1[0] = t->rgb1[1] = t->rgb1[2] = 0.8f;
  t->rgb2[0] = t->rgb2[1] = t->rgb2[2] = 0.5f;
  return i;
}

int mr_spec_add_actuator(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, actuators);
  if (i < 0) return -1;
  mr_spec_actuator *a = &s->actuators[i];
  a->src = src;
  a->kind = MR_ACT_MOTOR;
  a->trntype = MR_TRN_JOINT;
  a->joint = -1;
  a->trnid2 = -1;
  a->gear[0] = 1;
  a->dynprm[0] = 1;
  a->gainprm[0] = 1;
  return i;
}

int mr_spec_add_equality(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, equalities);
  if (i < 0) return -1;
  mr_spec_equality *e = &s->equalities[i];
  e->src = src;
  e->obj1 = -1;
  e->obj2 = -1;
  e->active = 1;
  mr_set_solref(e->solref);
  mr_set_solimp(e->solimp);
  return i;
}

int mr_spec_add_pair(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, pairs);
  if (i < 0) return -1;
  mr_spec_pair *p = &s->pairs[i];
  p->src = src;
  p->geom1 = p->geom2 = -1;
  p->condim = 3;
  p->friction[0] = p->friction[1] = 1;
  p->friction[2] = 0.005;
  p->friction[3] = p->friction[4] = 0.0001;
  mr_set_solref(p->solref);
  mr_set_solimp(p->solimp);
  return i;
}

int mr_spec_add_exclude(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, excludes);
  if (i < 0) return -1;
  s->excludes[i].src = src;
  s->excludes[i].body1 = s->excludes[i].body2 = -1;
  return i;
}

int mr_spec_add_key(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, keys);
  if (i < 0) return -1;
  s->keys[i].src = src;
  return i;
}

int mr_spec_add_tendon(mr_spec *s, int spatial, mr_source src) {
  int i = MR_SPEC_APPEND(s, tendons);
  if (i < 0) return -1;
  mr_spec_tendon *t = &s->tendons[i];
  t->src = src;
  t->spatial = spatial;
  t->wrapadr = s->nwraps;
  t->material = -1;
  t->springlength = -1;
  t->width = 0.003;
  mr_set_solref(t->solref_lim);
  mr_set_solimp(t->solimp_lim);
  mr_set_rgba(t->rgba, 0.5f, 0.5f, 0.5f, 1);
  return i;
}

int mr_spec_add_wrap(mr_spec *s, int tendon, int type, int obj, mr_source src) {
  int i = MR_SPEC_APPEND(s, wraps);
  if (i < 0) return -1;
  mr_spec_wrap *w = &s->wraps[i];
  w->src = src;
  w->type = type;
  w->obj = obj;
  w->side = -1;
  s->tendons[tendon].nwrap++;
  return i;
}

int mr_spec_add_sensor(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, sensors);
  if (i < 0) return -1;
  mr_spec_sensor *e = &s->sensors[i];
  e->src = src;
  e->objtype = e->obj = e->reftype = e->ref = -1;
  return i;
}

int mr_spec_add_hfield(mr_spec *s, mr_source src) {
  int i = MR_SPEC_APPEND(s, hfields);
  if (i < 0) return -1;
  s->hfields[i].src = src;
  return i;
}
