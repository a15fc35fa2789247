/* <worldbody> and the kinematic tree: bodies, inertials, joints, geoms, sites, cameras,
 * lights. Bodies are added depth-first in document order; a body's own elements are added
 * right after it and before its child bodies, so that elements come grouped by body in
 * body order, as in MuJoCo's compiled model.
 */
#include <math.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/inertia.h"
#include "mjcf.h"
#include "engine/core/mr_math.h"
#include "xml.h"

static int mjcf_body_tree(mjcf_ctx *c, const xmlNode *node, int body, int childclass);

/* ------------------------------------------------------------------ inertial */

/* Principal moments (largest first, as MuJoCo orders them) and the frame they act in. */
static void mjcf_diagonalize(const double full[6], double inertia[3], double quat[4]) {
  const double A[9] = {full[0], full[3], full[4], full[3], full[1], full[5],
                       full[4], full[5], full[2]};
  double V[9];
  mr_sym3_eigen(A, inertia, V);
  mr_mat_to_quat(quat, V);
}

static int mjcf_inertial(mjcf_ctx *c, const xmlNode *n, int body) {
  mr_spec_body *b = &c->s->bodies[body];
  if (!mr_xml_attr(n, "pos")) return mjcf_fail(c, n, "<inertial> needs a pos attribute");
  if (!mr_xml_attr(n, "mass")) return mjcf_fail(c, n, "<inertial> needs a mass attribute");
  if (mjcf_doubles(c, n, "pos", b->ipos, 3, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "mass", &b->mass, 1, 1) < 0) return -1;
  mr_quat_identity(b->iquat);
  if (mjcf_orientation(c, n, b->iquat) < 0) return -1;
  double full[6];
  int kd = mjcf_doubles(c, n, "diaginertia", b->inertia, 3, 3);
  if (kd < 0) return -1;
  int kf = mjcf_doubles(c, n, "fullinertia", full, 6, 6);
  if (kf < 0) return -1;
  if (!kd && !kf)
    return mjcf_fail(c, n, "<inertial> needs diaginertia or fullinertia");
  if (kf) {
    double q[4], local[4];
    mjcf_diagonalize(full, b->inertia, local);
    mr_quat_mul(q, b->iquat, local);
    memcpy(b->iquat, q, sizeof q);
  }
  b->has_inertial = 1;
  return 0;
}

/* ------------------------------------------------------------------ joints */

static int mjcf_joint_finish(mjcf_ctx *c, const xmlNode *n, int body, mjcf_joint_def *d) {
  mr_spec_joint *j = &d->j;
  int has_range = j->range[0] != 0 || j->range[1] != 0;
  int limited = d->limited;
  if (limited == 2) {
    if (!c->autolimits && has_range)
      return mjcf_fail(c, n,
                       "joint has range but not limited: set compiler autolimits=\"true\" or "
                       "limited=\"true\"/\"false\"");
    limited = c->autolimits && has_range;
  }
  if (j->type == MR_JOINT_FREE) limited = 0;
  if (limited && j->range[0] >= j->range[1] && j->type != MR_JOINT_BALL)
    return mjcf_fail(c, n, "joint range: range[0] must be smaller than range[1]");
  /* MuJoCo converts a range only when it is used */
  if (limited && c->degree && (j->type == MR_JOINT_HINGE || j->type == MR_JOINT_BALL)) {
    j->range[0] *= MR_PI / 180;
    j->range[1] *= MR_PI / 180;
  }
  if (c->degree && j->type == MR_JOINT_HINGE) {
    j->ref *= MR_PI / 180;
    j->springref *= MR_PI / 180;
  }
  if (j->type != MR_JOINT_FREE && mr_norm3(j->axis) < MR_MINVAL)
    return mjcf_fail(c, n, "joint axis is zero");
  int id = mr_spec_add_joint(c->s, body, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_joint *out = &c->s->joints[id];
  *out = *j;
  out->src = mjcf_src(c, n);
  out->body = body;
  out->limited = limited;
  out->name = mjcf_name(c, n, "name");
  return 0;
}

static int mjcf_joint(mjcf_ctx *c, const xmlNode *n, int body, int childclass) {
  if (body == 0) return mjcf_fail(c, n, "the world body cannot have joints");
  int k = mjcf_class_of(c, n, childclass);
  if (k < 0) return -1;
  mjcf_joint_def d = c->classes[k].joint;
  if (mr_xml_is(n, "freejoint")) {
    /* MuJoCo builds a free joint from built-in values, ignoring every class */
    memset(&d, 0, sizeof d);
    d.j.type = MR_JOINT_FREE;
    d.j.axis[2] = 1;
  } else if (mjcf_joint_apply(c, &d, n) < 0) {
    return -1;
  }
  return mjcf_joint_finish(c, n, body, &d);
}

/* ------------------------------------------------------------------ geoms */

/* fromto: the frame sits at the midpoint with +z pointing from "to" to "from" (MuJoCo's
 * convention), and the half-length goes where the type keeps its length. */
static int mjcf_fromto(mjcf_ctx *c, const xmlNode *n, int type, const double fromto[6],
                       double pos[3], double quat[4], double size[3]) {
  if (type != MR_GEOM_CAPSULE && type != MR_GEOM_CYLINDER && type != MR_GEOM_BOX &&
      type != MR_GEOM_ELLIPSOID)
    return mjcf_fail(c, n, "fromto requires capsule, cylinder, box or ellipsoid");
  const double *from = fromto, *to = fromto + 3;
  double vec[3];
  mr_sub3(vec, from, to);
  double len = mr_norm3(vec);
  if (len < MR_MINVAL) return mjcf_fail(c, n, "fromto: the two points coincide");
  for (int i = 0; i < 3; i++) pos[i] = 0.5 * (from[i] + to[i]);
  mr_scale3(vec, vec, 1 / len);
  mjcf_z_to_quat(quat, vec);
  if (type == MR_GEOM_CAPSULE || type == MR_GEOM_CYLINDER) {
    size[1] = len / 2;
  } else {
    size[1] = size[0];
    size[2] = len / 2;
  }
  return 0;
}

static int mjcf_geom(mjcf_ctx *c, const xmlNode *n, int body, int childclass) {
  int k = mjcf_class_of(c, n, childclass);
  if (k < 0) return -1;
  mjcf_geom_def d = c->classes[k].geom;
  if (mjcf_geom_apply(c, &d, n) < 0) return -1;
  mr_spec_geom *g = &d.g;
  g->mesh = g->hfield = -1;
  /* a primitive type with a mesh is fitted to it by the compiler */
  if (d.mesh && g->type != MR_GEOM_HFIELD && g->type != MR_GEOM_PLANE) {
    g->mesh = mr_spec_find_mesh(c->s, d.mesh);
    if (g->mesh < 0) return mjcf_fail(c, n, "unknown mesh '%.80s'", d.mesh);
  }
  if (g->type == MR_GEOM_MESH && g->mesh < 0)
    return mjcf_fail(c, n, "geom of type mesh needs a mesh attribute");
  if (g->type == MR_GEOM_HFIELD) {
    if (!d.hfield) return mjcf_fail(c, n, "geom of type hfield needs an hfield attribute");
    g->hfield = mr_spec_find_hfield(c->s, d.hfield);
    if (g->hfield < 0) return mjcf_fail(c, n, "unknown hfield '%.80s'", d.hfield);
  }
  g->material = -1;
  if (d.material) {
    g->material = mr_spec_find_material(c->s, d.material);
    if (g->material < 0) return mjcf_fail(c, n, "unknown material '%.80s'", d.material);
    /* MuJoCo's renderer shows the material's color unless the geom has its own */
    if (!d.has_rgba) memcpy(g->rgba, c->s->materials[g->material].rgba, sizeof g->rgba);
  }
  if (d.has_fromto && mjcf_fromto(c, n, g->type, d.fromto, g->pos, g->quat, g->size) < 0)
    return -1;
  int id = mr_spec_add_geom(c->s, body, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_geom *out = &c->s->geoms[id];
  *out = *g;
  out->src = mjcf_src(c, n);
  out->body = body;
  out->name = mjcf_name(c, n, "name");
  return 0;
}

/* ------------------------------------------------------------------ sites, cameras, lights */

static int mjcf_site(mjcf_ctx *c, const xmlNode *n, int body, int childclass) {
  int k = mjcf_class_of(c, n, childclass);
  if (k < 0) return -1;
  mjcf_site_def d = c->classes[k].site;
  if (mjcf_site_apply(c, &d, n) < 0) return -1;
  if (d.has_fromto && mjcf_fromto(c, n, d.s.type, d.fromto, d.s.pos, d.s.quat, d.s.size) < 0)
    return -1;
  int id = mr_spec_add_site(c->s, body, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  c->s->sites[id] = d.s;
  c->s->sites[id].src = mjcf_src(c, n);
  c->s->sites[id].body = body;
  c->s->sites[id].name = mjcf_name(c, n, "name");
  return 0;
}

static int mjcf_camera(mjcf_ctx *c, const xmlNode *n, int body, int childclass) {
  int k = mjcf_class_of(c, n, childclass);
  if (k < 0) return -1;
  mr_spec_camera d = c->classes[k].camera;
  if (mjcf_camera_apply(c, &d, n) < 0) return -1;
  int id = mr_spec_add_camera(c->s, body, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  d.src = mjcf_src(c, n);
  d.body = body;
  d.name = mjcf_name(c, n, "name");
  c->s->cameras[id] = d;
  return 0;
}

static int mjcf_light(mjcf_ctx *c, const xmlNode *n, int body, int childclass) {
  int k = mjcf_class_of(c, n, childclass);
  if (k < 0) return -1;
  mr_spec_light d = c->classes[k].light;
  if (mjcf_light_apply(c, &d, n) < 0) return -1;
  int id = mr_spec_add_light(c->s, body, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  d.src = mjcf_src(c, n);
  d.body = body;
  d.name = mjcf_name(c, n, "name");
  c->s->lights[id] = d;
  return 0;
}

/* ------------------------------------------------------------------ bodies */

/* A body's own elements (everything but child bodies), in document order. */
static int mjcf_body_contents(mjcf_ctx *c, const xmlNode *node, int body, int childclass) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch) || mr_xml_is(ch, "body")) continue;
    int rc = 0;
    if (mr_xml_is(ch, "inertial"))
      rc = body == 0 ? mjcf_fail(c, ch, "the world body cannot have <inertial>")
                     : mjcf_inertial(c, ch, body);
    else if (mr_xml_is(ch, "joint") || mr_xml_is(ch, "freejoint"))
      rc = mjcf_joint(c, ch, body, childclass);
    else if (mr_xml_is(ch, "geom"))
      rc = mjcf_geom(c, ch, body, childclass);
    else if (mr_xml_is(ch, "site"))
      rc = mjcf_site(c, ch, body, childclass);
    else if (mr_xml_is(ch, "camera"))
      rc = mjcf_camera(c, ch, body, childclass);
    else if (mr_xml_is(ch, "light"))
      rc = mjcf_light(c, ch, body, childclass);
    else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
      if (body > 0 && !c->s->bodies[body].skipped)
        c->s->bodies[body].skipped = mr_spec_strdup(c->s, (const char *)ch->name);
    }
    if (rc < 0) return -1;
  }
  return 0;
}

static int mjcf_body(mjcf_ctx *c, const xmlNode *n, int parent, int childclass) {
  int id = mr_spec_add_body(c->s, parent, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_body *b = &c->s->bodies[id];
  b->name = mjcf_name(c, n, "name");
  if (mjcf_doubles(c, n, "pos", b->pos, 3, 3) < 0) return -1;
  if (mjcf_orientation(c, n, b->quat) < 0) return -1;
  return mjcf_body_tree(c, n, id, childclass);
}

static int mjcf_body_tree(mjcf_ctx *c, const xmlNode *node, int body, int childclass) {
  const char *cc = mr_xml_attr(node, "childclass");
  if (cc) {
    childclass = mjcf_find_class(c, cc);
    if (childclass < 0) return mjcf_fail(c, node, "unknown default class '%.80s'", cc);
  }
  if (mjcf_body_contents(c, node, body, childclass) < 0) return -1;
  for (const xmlNode *ch = node->children; ch; ch = ch->next)
    if (mr_xml_is(ch, "body") && mjcf_body(c, ch, body, childclass) < 0) return -1;
  return 0;
}

/* Several <worldbody> sections (e.g. one from an include) make one world: its own
 * elements from all of them first, then the bodies, so that the world's geoms come
 * first as in MuJoCo. */
int mjcf_parse_worldbody(mjcf_ctx *c, const xmlNode *root) {
  for (const xmlNode *wb = root->children; wb; wb = wb->next)
    if (mr_xml_is(wb, "worldbody") && mjcf_body_contents(c, wb, 0, 0) < 0) return -1;
  for (const xmlNode *wb = root->children; wb; wb = wb->next) {
    if (!mr_xml_is(wb, "worldbody")) continue;
    for (const xmlNode *ch = wb->children; ch; ch = ch->next)
      if (mr_xml_is(ch, "body") && mjcf_body(c, ch, 0, 0) < 0) return -1;
  }
  return 0;
}
