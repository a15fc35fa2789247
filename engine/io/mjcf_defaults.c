/* MJCF default classes and the attribute readers shared by defaults and elements.
 *
 * Each reader below writes only the attributes present on the node, so the same function
 * serves a <default> entry (layered onto a copy of the parent class) and the element
 * itself (layered onto a copy of its class). Values stay in file units here; conversions
 * happen when an element is finished (mjcf_body.c and friends).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "engine/core/mr_math.h"
#include "xml.h"

static void mjcf_solref_default(double solref[2]) {
  solref[0] = 0.02;
  solref[1] = 1;
}

static void mjcf_solimp_default(double solimp[5]) {
  const double v[5] = {0.9, 0.95, 0.001, 0.5, 2};
  memcpy(solimp, v, sizeof v);
}

static void mjcf_gray(float rgba[4]) {
  rgba[0] = rgba[1] = rgba[2] = 0.5f;
  rgba[3] = 1;
}

/* MuJoCo's built-in values: what an element gets when no class says otherwise. */
void mjcf_class_init_main(mjcf_class *cls) {
  memset(cls, 0, sizeof *cls);
  cls->name = "main";

  mr_spec_geom *g = &cls->geom.g;
  g->type = MR_GEOM_SPHERE;
  mr_quat_identity(g->quat);
  g->contype = g->conaffinity = 1;
  g->condim = 3;
  g->friction[0] = 1;
  g->friction[1] = 0.005;
  g->friction[2] = 0.0001;
  g->solmix = 1;
  mjcf_solref_default(g->solref);
  mjcf_solimp_default(g->solimp);
  g->density = 1000;
  g->mass = -1;
  mjcf_gray(g->rgba);
  g->mesh = g->material = g->hfield = -1;
  g->fitscale = 1;

  mr_spec_joint *j = &cls->joint.j;
  j->type = MR_JOINT_HINGE;
  j->axis[2] = 1;
  mjcf_solref_default(j->solref_lim);
  mjcf_solimp_default(j->solimp_lim);
  cls->joint.limited = 2;

  mr_spec_site *s = &cls->site.s;
  s->type = MR_GEOM_SPHERE;
  mr_quat_identity(s->quat);
  s->size[0] = s->size[1] = s->size[2] = 0.005;
  mjcf_gray(s->rgba);

  mr_quat_identity(cls->camera.quat);
  cls->camera.fovy = 45;

  cls->light.dir[2] = -1;
  cls->light.diffuse[0] = cls->light.diffuse[1] = cls->light.diffuse[2] = 0.7f;

  cls->mesh.scale[0] = cls->mesh.scale[1] = cls->mesh.scale[2] = 1;

  mr_spec_material *m = &cls->material.m;
  m->rgba[0] = m->rgba[1] = m->rgba[2] = m->rgba[3] = 1;
  m->specular = m->shininess = 0.5f;
  m->texrepeat[0] = m->texrepeat[1] = 1;
  m->texture = -1;

  mjcf_actuator_def *a = &cls->actuator;
  a->gear[0] = 1;
  a->dynprm[0] = 1;
  a->gainprm[0] = 1;
  a->ctrllimited = a->forcelimited = a->actlimited = 2;

  mr_spec_tendon *t = &cls->tendon.t;
  t->material = -1;
  t->springlength = -1;
  t->width = 0.003;
  mjcf_solref_default(t->solref_lim);
  mjcf_solimp_default(t->solimp_lim);
  mjcf_gray(t->rgba);
  cls->tendon.limited = 2;

  cls->equality.active = 1;
  mjcf_solref_default(cls->equality.solref);
  mjcf_solimp_default(cls->equality.solimp);

  mr_spec_pair *p = &cls->pair;
  p->geom1 = p->geom2 = -1;
  p->condim = 3;
  const double fr[5] = {1, 1, 0.005, 0.0001, 0.0001};
  memcpy(p->friction, fr, sizeof fr);
  mjcf_solref_default(p->solref);
  mjcf_solimp_default(p->solimp);
}

/* ------------------------------------------------------------------ readers */

static const char *const mjcf_geom_types[] = {"plane", "hfield", "sphere",   "capsule", "ellipsoid",
                                              "cylinder", "box", "mesh", NULL};

static int mjcf_keyword(mjcf_ctx *c, const xmlNode *n, const char *name,
                        const char *const *words, int *out) {
  int k = mr_xml_keyword(n, name, words, mjcf_src(c, n), c->err, c->errlen);
  if (k == -2) return -1;
  if (k >= 0) *out = k;
  return 0;
}

int mjcf_geom_apply(mjcf_ctx *c, mjcf_geom_def *d, const xmlNode *n) {
  mr_spec_geom *g = &d->g;
  if (mjcf_keyword(c, n, "type", mjcf_geom_types, &g->type) < 0) return -1;
  if (mjcf_doubles(c, n, "size", g->size, 1, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "pos", g->pos, 3, 3) < 0) return -1;
  if (mjcf_orientation(c, n, g->quat) < 0) return -1;
  int k = mjcf_doubles(c, n, "fromto", d->fromto, 6, 6);
  if (k < 0) return -1;
  if (k) d->has_fromto = 1;
  if (mjcf_int(c, n, "contype", &g->contype) < 0) return -1;
  if (mjcf_int(c, n, "conaffinity", &g->conaffinity) < 0) return -1;
  if (mjcf_int(c, n, "condim", &g->condim) < 0) return -1;
  if (mjcf_int(c, n, "group", &g->group) < 0) return -1;
  if (mjcf_doubles(c, n, "friction", g->friction, 1, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "margin", &g->margin, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "gap", &g->gap, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "solref", g->solref, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "solimp", g->solimp, 3, 5) < 0) return -1;
  if (mjcf_doubles(c, n, "solmix", &g->solmix, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "density", &g->density, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "mass", &g->mass, 1, 1) < 0) return -1;
  if ((k = mjcf_floats(c, n, "rgba", g->rgba, 4, 4)) < 0) return -1;
  if (k) d->has_rgba = 1;
  if (mjcf_doubles(c, n, "fitscale", &g->fitscale, 1, 1) < 0) return -1;
  if (mr_xml_attr(n, "mesh")) d->mesh = mr_xml_attr(n, "mesh");
  if (mr_xml_attr(n, "hfield")) d->hfield = mr_xml_attr(n, "hfield");
  if (mr_xml_attr(n, "material")) d->material = mr_xml_attr(n, "material");
  if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6)
    return mjcf_fail(c, n, "condim must be 1, 3, 4 or 6 (got %d)", g->condim);
  return 0;
}

int mjcf_joint_apply(mjcf_ctx *c, mjcf_joint_def *d, const xmlNode *n) {
  static const char *const types[] = {"free", "ball", "slide", "hinge", NULL};
  mr_spec_joint *j = &d->j;
  if (mjcf_keyword(c, n, "type", types, &j->type) < 0) return -1;
  if (mjcf_doubles(c, n, "pos", j->pos, 3, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "axis", j->axis, 3, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "range", j->range, 2, 2) < 0) return -1;
  if (mjcf_tristate(c, n, "limited", &d->limited) < 0) return -1;
  if (mjcf_doubles(c, n, "stiffness", &j->stiffness, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "springref", &j->springref, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "damping", &j->damping, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "armature", &j->armature, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "frictionloss", &j->frictionloss, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "margin", &j->margin, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "ref", &j->ref, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "solreflimit", j->solref_lim, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "solimplimit", j->solimp_lim, 3, 5) < 0) return -1;
  return 0;
}

int mjcf_site_apply(mjcf_ctx *c, mjcf_site_def *d, const xmlNode *n) {
  mr_spec_site *s = &d->s;
  if (mjcf_keyword(c, n, "type", mjcf_geom_types, &s->type) < 0) return -1;
  if (mjcf_doubles(c, n, "size", s->size, 1, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "pos", s->pos, 3, 3) < 0) return -1;
  if (mjcf_orientation(c, n, s->quat) < 0) return -1;
  int k = mjcf_doubles(c, n, "fromto", d->fromto, 6, 6);
  if (k < 0) return -1;
  if (k) d->has_fromto = 1;
  if (mjcf_floats(c, n, "rgba", s->rgba, 4, 4) < 0) return -1;
  return 0;
}

int mjcf_camera_apply(mjcf_ctx *c, mr_spec_camera *d, const xmlNode *n) {
  if (mjcf_doubles(c, n, "pos", d->pos, 3, 3) < 0) return -1;
  if (mjcf_orientation(c, n, d->quat) < 0) return -1;
  if (mjcf_doubles(c, n, "fovy", &d->fovy, 1, 1) < 0) return -1;
  return 0;
}

int mjcf_light_apply(mjcf_ctx *c, mr_spec_light *d, const xmlNode *n) {
  if (mjcf_doubles(c, n, "pos", d->pos, 3, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "dir", d->dir, 3, 3) < 0) return -1;
  if (mjcf_bool(c, n, "directional", &d->directional) < 0) return -1;
  if (mjcf_floats(c, n, "diffuse", d->diffuse, 3, 3) < 0) return -1;
  return 0;
}

int mjcf_mesh_apply(mjcf_ctx *c, mjcf_mesh_def *d, const xmlNode *n) {
  return mjcf_doubles(c, n, "scale", d->scale, 3, 3) < 0 ? -1 : 0;
}

int mjcf_material_apply(mjcf_ctx *c, mjcf_material_def *d, const xmlNode *n) {
  mr_spec_material *m = &d->m;
  if (mjcf_floats(c, n, "rgba", m->rgba, 4, 4) < 0) return -1;
  if (mjcf_floats(c, n, "texrepeat", m->texrepeat, 2, 2) < 0) return -1;
  if (mjcf_floats(c, n, "emission", &m->emission, 1, 1) < 0) return -1;
  if (mjcf_floats(c, n, "specular", &m->specular, 1, 1) < 0) return -1;
  if (mjcf_floats(c, n, "shininess", &m->shininess, 1, 1) < 0) return -1;
  if (mjcf_floats(c, n, "reflectance", &m->reflectance, 1, 1) < 0) return -1;
  if (mr_xml_attr(n, "texture")) d->texture = mr_xml_attr(n, "texture");
  return 0;
}

int mjcf_is_actuator(const xmlNode *n) {
  static const char *const kinds[] = {"motor",  "position", "velocity", "general",
                                      "muscle", "cylinder", "damper",   "intvelocity", NULL};
  for (int i = 0; kinds[i]; i++)
    if (mr_xml_is(n, kinds[i])) return 1;
  return 0;
}

static int mjcf_general_types(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n) {
  static const char *const gains[] = {"fixed", "affine", "muscle", "user", NULL};
  static const char *const biases[] = {"none", "affine", "muscle", "user", NULL};
  static const char *const dyns[] = {"none", "integrator", "filter", "muscle", "user", NULL};
  if (mjcf_keyword(c, n, "gaintype", gains, &d->gaintype) < 0) return -1;
  if (mjcf_keyword(c, n, "biastype", biases, &d->biastype) < 0) return -1;
  if (mjcf_keyword(c, n, "dyntype", dyns, &d->dyntype) < 0) return -1;
  if (mjcf_doubles(c, n, "dynprm", d->dynprm, 1, MR_NDYN) < 0) return -1;
  if (mjcf_doubles(c, n, "gainprm", d->gainprm, 1, MR_NGAIN) < 0) return -1;
  if (mjcf_doubles(c, n, "biasprm", d->biasprm, 1, MR_NBIAS) < 0) return -1;
  return 0;
}

/* <muscle>: MuJoCo 2.2's muscle parameters replace the values that are still the general
 * actuator's built-in ones, then the attributes are read; the bias shares the gain's
 * parameters. gainprm = (range[2], force, scale, lmin, lmax, vmax, fpmax, fvmax). */
static int mjcf_muscle(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n) {
  static const double muscle[9] = {0.75, 1.05, -1, 200, 0.5, 1.6, 1.5, 1.3, 1.2};
  static const double general[9] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  static const char *const names[9] = {NULL, NULL, "force", "scale", "lmin",
                                       "lmax", "vmax", "fpmax", "fvmax"};
  d->dyntype = MR_DYN_MUSCLE;
  d->gaintype = MR_GAIN_MUSCLE;
  d->biastype = MR_BIAS_MUSCLE;
  if (d->dynprm[0] == 1) d->dynprm[0] = 0.01;
  if (d->dynprm[1] == 0) d->dynprm[1] = 0.04;
  for (int i = 0; i < 9; i++)
    if (d->gainprm[i] == general[i]) d->gainprm[i] = muscle[i];
  if (mjcf_doubles(c, n, "timeconst", d->dynprm, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "range", d->gainprm, 2, 2) < 0) return -1;
  for (int i = 2; i < 9; i++)
    if (mjcf_doubles(c, n, names[i], d->gainprm + i, 1, 1) < 0) return -1;
  memcpy(d->biasprm, d->gainprm, 9 * sizeof(double));
  return 0;
}

/* <cylinder>: a filtered pneumatic or hydraulic actuator, gain = area. */
static int mjcf_cylinder(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n) {
  d->dyntype = MR_DYN_FILTER;
  d->gaintype = MR_GAIN_FIXED;
  d->biastype = MR_BIAS_AFFINE;
  if (mjcf_doubles(c, n, "timeconst", d->dynprm, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "area", d->gainprm, 1, 1) < 0) return -1;
  double diameter;
  int k = mjcf_doubles(c, n, "diameter", &diameter, 1, 1);
  if (k < 0) return -1;
  if (k) d->gainprm[0] = MR_PI / 4 * diameter * diameter;
  return mjcf_doubles(c, n, "bias", d->biasprm, 3, 3) < 0 ? -1 : 0;
}

/* The servos set the gain and bias their kind implies (MuJoCo 2.2.2); a gain left out keeps
 * the class's value. */
static int mjcf_servo(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n) {
  d->dyntype = MR_DYN_NONE;
  d->gaintype = MR_GAIN_FIXED;
  if (mr_xml_is(n, "motor")) {
    d->gainprm[0] = 1;
    d->biastype = MR_BIAS_NONE;
    return 0;
  }
  if (mr_xml_is(n, "damper")) {
    /* force = -kv velocity ctrl: an affine gain on the velocity */
    double kv = d->gainprm[2] < 0 ? -d->gainprm[2] : 1;
    if (mjcf_doubles(c, n, "kv", &kv, 1, 1) < 0) return -1;
    if (kv < 0) return mjcf_fail(c, n, "damper kv must not be negative");
    memset(d->gainprm, 0, sizeof d->gainprm);
    d->gainprm[2] = -kv;
    d->gaintype = MR_GAIN_AFFINE;
    d->biastype = MR_BIAS_NONE;
    d->ctrllimited = 1;
    return 0;
  }
  int integrated = mr_xml_is(n, "intvelocity");
  int position = integrated || mr_xml_is(n, "position");
  memset(d->biasprm, 0, sizeof d->biasprm);
  if (mjcf_doubles(c, n, position ? "kp" : "kv", d->gainprm, 1, 1) < 0) return -1;
  d->biasprm[position ? 1 : 2] = -d->gainprm[0];
  d->biastype = MR_BIAS_AFFINE;
  if (integrated) {
    d->dyntype = MR_DYN_INTEGRATOR;
    d->actlimited = 1;
  }
  return 0;
}

int mjcf_actuator_apply(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n) {
  if (mjcf_tristate(c, n, "ctrllimited", &d->ctrllimited) < 0) return -1;
  if (mjcf_tristate(c, n, "forcelimited", &d->forcelimited) < 0) return -1;
  if (mjcf_tristate(c, n, "actlimited", &d->actlimited) < 0) return -1;
  if (mjcf_doubles(c, n, "ctrlrange", d->ctrlrange, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "forcerange", d->forcerange, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "actrange", d->actrange, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "lengthrange", d->lengthrange, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "cranklength", &d->cranklength, 1, 1) < 0) return -1;
  if (mjcf_int(c, n, "group", &d->group) < 0) return -1;
  double gear[6];
  int k = mjcf_doubles(c, n, "gear", gear, 1, 6);
  if (k < 0) return -1;
  if (k) {
    memset(d->gear, 0, sizeof d->gear);
    memcpy(d->gear, gear, (size_t)k * sizeof(double));
  }
  if (mr_xml_is(n, "general")) return mjcf_general_types(c, d, n);
  if (mr_xml_is(n, "muscle")) return mjcf_muscle(c, d, n);
  if (mr_xml_is(n, "cylinder")) return mjcf_cylinder(c, d, n);
  return mjcf_servo(c, d, n);
}

int mjcf_tendon_apply(mjcf_ctx *c, mjcf_tendon_def *d, const xmlNode *n) {
  mr_spec_tendon *t = &d->t;
  if (mjcf_tristate(c, n, "limited", &d->limited) < 0) return -1;
  if (mjcf_doubles(c, n, "range", t->range, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "margin", &t->margin, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "stiffness", &t->stiffness, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "damping", &t->damping, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "frictionloss", &t->frictionloss, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "springlength", &t->springlength, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "width", &t->width, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "solreflimit", t->solref_lim, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "solimplimit", t->solimp_lim, 3, 5) < 0) return -1;
  if (mjcf_floats(c, n, "rgba", t->rgba, 4, 4) < 0) return -1;
  if (mjcf_int(c, n, "group", &t->group) < 0) return -1;
  if (mr_xml_attr(n, "material")) d->material = mr_xml_attr(n, "material");
  return 0;
}

int mjcf_equality_apply(mjcf_ctx *c, mjcf_equality_def *d, const xmlNode *n) {
  if (mjcf_bool(c, n, "active", &d->active) < 0) return -1;
  if (mjcf_doubles(c, n, "solref", d->solref, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "solimp", d->solimp, 3, 5) < 0) return -1;
  return 0;
}

int mjcf_pair_apply(mjcf_ctx *c, mr_spec_pair *d, const xmlNode *n) {
  if (mjcf_int(c, n, "condim", &d->condim) < 0) return -1;
  if (mjcf_doubles(c, n, "friction", d->friction, 1, 5) < 0) return -1;
  if (mjcf_doubles(c, n, "margin", &d->margin, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "solref", d->solref, 2, 2) < 0) return -1;
  if (mjcf_doubles(c, n, "solimp", d->solimp, 3, 5) < 0) return -1;
  if (d->condim != 1 && d->condim != 3 && d->condim != 4 && d->condim != 6)
    return mjcf_fail(c, n, "condim must be 1, 3, 4 or 6 (got %d)", d->condim);
  return 0;
}

/* ------------------------------------------------------------------ classes */

int mjcf_find_class(const mjcf_ctx *c, const char *name) {
  for (int i = 0; i < c->nclasses; i++)
    if (strcmp(c->classes[i].name, name) == 0) return i;
  return -1;
}

static int mjcf_new_class(mjcf_ctx *c, const xmlNode *n, const char *name, int parent) {
  if (mjcf_find_class(c, name) >= 0)
    return mjcf_fail(c, n, "repeated default class name '%.80s'", name), -1;
  if (c->nclasses == c->capclasses) {
    int cap = 2 * c->capclasses;
    mjcf_class *cl = realloc(c->classes, (size_t)cap * sizeof *cl);
    if (!cl) return mjcf_fail(c, n, "out of memory"), -1;
    c->classes = cl;
    c->capclasses = cap;
  }
  c->classes[c->nclasses] = c->classes[parent];
  c->classes[c->nclasses].name = name;
  return c->nclasses++;
}

static int mjcf_default_entry(mjcf_ctx *c, mjcf_class *cls, const xmlNode *n) {
  if (mr_xml_is(n, "geom")) return mjcf_geom_apply(c, &cls->geom, n);
  if (mr_xml_is(n, "joint")) return mjcf_joint_apply(c, &cls->joint, n);
  if (mr_xml_is(n, "site")) return mjcf_site_apply(c, &cls->site, n);
  if (mr_xml_is(n, "camera")) return mjcf_camera_apply(c, &cls->camera, n);
  if (mr_xml_is(n, "light")) return mjcf_light_apply(c, &cls->light, n);
  if (mr_xml_is(n, "mesh")) return mjcf_mesh_apply(c, &cls->mesh, n);
  if (mr_xml_is(n, "material")) return mjcf_material_apply(c, &cls->material, n);
  if (mr_xml_is(n, "equality")) return mjcf_equality_apply(c, &cls->equality, n);
  if (mr_xml_is(n, "pair")) return mjcf_pair_apply(c, &cls->pair, n);
  if (mr_xml_is(n, "tendon")) return mjcf_tendon_apply(c, &cls->tendon, n);
  if (mjcf_is_actuator(n)) return mjcf_actuator_apply(c, &cls->actuator, n);
  mjcf_warn_once(c, n, (const char *)n->name);
  return 0;
}

int mjcf_parse_defaults(mjcf_ctx *c, const xmlNode *node, int parent) {
  const char *name = mr_xml_attr(node, "class");
  int id = 0;
  if (parent >= 0) {
    if (!name || !name[0]) return mjcf_fail(c, node, "nested <default> needs a class attribute");
    id = mjcf_new_class(c, node, name, parent);
    if (id < 0) return -1;
  } else if (name && strcmp(name, "main") != 0) {
    return mjcf_fail(c, node, "the top-level <default> is class \"main\", not '%.80s'", name);
  }
  /* a class's own entries first, then its children: children copy the finished class */
  for (const xmlNode *ch = node->children; ch; ch = ch->next)
    if (mjcf_elem(ch) && !mr_xml_is(ch, "default") &&
        mjcf_default_entry(c, &c->classes[id], ch) < 0)
      return -1;
  for (const xmlNode *ch = node->children; ch; ch = ch->next)
    if (mr_xml_is(ch, "default") && mjcf_parse_defaults(c, ch, id) < 0) return -1;
  return 0;
}
