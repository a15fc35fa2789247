/* MJCF front end: reads a MuJoCo XML file (the MuJoCo 2.2.2 subset Moreau simulates) into
 * a spec. This file holds the entry point, the top-level sections (<compiler>, <option>)
 * and the small readers every other mjcf_*.c file uses.
 *
 * Sections are visited in MuJoCo's fixed order (compiler, option, default, asset,
 * worldbody, contact, tendon, equality, actuator, sensor, keyframe) whatever their order in
 * the file, so that angle units are known before any angle is read, assets before geoms use
 * them and tendons before equalities, actuators and sensors name them.
 */
#include "mjcf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/mr_math.h"
#include "xml.h"

/* ------------------------------------------------------------------ helpers */

mr_source mjcf_src(const mjcf_ctx *c, const xmlNode *node) {
  /* Nodes spliced in from an <include> carry their own file in _private. */
  const char *file = node && node->_private ? (const char *)node->_private : c->file;
  return mr_xml_source(file, node);
}

int mjcf_fail(mjcf_ctx *c, const xmlNode *node, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return mr_errorf(c->err, c->errlen, mjcf_src(c, node), "%s", msg);
}

void mjcf_warn_once(mjcf_ctx *c, const xmlNode *node, const char *what) {
  for (int i = 0; i < c->nwarned; i++)
    if (strcmp(c->warned[i], what) == 0) return;
  if (c->nwarned == c->capwarned) {
    int cap = c->capwarned ? 2 * c->capwarned : 16;
    char **w = realloc(c->warned, (size_t)cap * sizeof *w);
    if (!w) return;
    c->warned = w;
    c->capwarned = cap;
  }
  char *copy = strdup(what);
  if (!copy) return;
  c->warned[c->nwarned++] = copy;
  mr_warnf(c->s->quiet, mjcf_src(c, node), "<%s> is outside the supported MJCF subset; skipped",
           what);
}

int mjcf_elem(const xmlNode *n) { return n && n->type == XML_ELEMENT_NODE; }

int mjcf_doubles(mjcf_ctx *c, const xmlNode *n, const char *name, double *out, int min,
                 int max) {
  return mr_xml_doubles(n, name, out, min, max, mjcf_src(c, n), c->err, c->errlen);
}

int mjcf_floats(mjcf_ctx *c, const xmlNode *n, const char *name, float *out, int min, int max) {
  double v[16];
  int k = mjcf_doubles(c, n, name, v, min, max < 16 ? max : 16);
  for (int i = 0; i < k; i++) out[i] = (float)v[i];
  return k;
}

int mjcf_int(mjcf_ctx *c, const xmlNode *n, const char *name, int *out) {
  return mr_xml_int(n, name, out, mjcf_src(c, n), c->err, c->errlen);
}

int mjcf_bool(mjcf_ctx *c, const xmlNode *n, const char *name, int *out) {
  return mr_xml_bool(n, name, out, mjcf_src(c, n), c->err, c->errlen);
}

int mjcf_tristate(mjcf_ctx *c, const xmlNode *n, const char *name, int *out) {
  static const char *const words[] = {"false", "true", "auto", NULL};
  int k = mr_xml_keyword(n, name, words, mjcf_src(c, n), c->err, c->errlen);
  if (k == -1) return 0;
  if (k < 0) return -1;
  *out = k;
  return 1;
}

static int mjcf_count_numbers(const char *text) {
  int count = 0, in = 0;
  for (const char *p = text; *p; p++) {
    int sep = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',';
    if (!sep && !in) count++;
    in = !sep;
  }
  return count;
}

int mjcf_vector(mjcf_ctx *c, const xmlNode *n, const char *name, double **out, int *count) {
  const char *text = mr_xml_attr(n, name);
  *out = NULL;
  *count = 0;
  if (!text) return 0;
  int k = mjcf_count_numbers(text);
  if (k == 0) return 0;
  double *v = mr_spec_doubles(c->s, NULL, k);
  if (!v) return mjcf_fail(c, n, "out of memory");
  char what[64];
  snprintf(what, sizeof what, "attribute '%s'", name);
  if (mr_parse_doubles(text, v, k, k, what, mjcf_src(c, n), c->err, c->errlen) < 0) return -1;
  *out = v;
  *count = k;
  return 0;
}

const char *mjcf_name(mjcf_ctx *c, const xmlNode *n, const char *name) {
  const char *v = mr_xml_attr(n, name);
  return v ? mr_spec_strdup(c->s, v) : NULL;
}

void mjcf_join_path(char *out, size_t n, const char *dir, const char *sub, const char *file) {
  if (file[0] == '/') {
    snprintf(out, n, "%s", file);
    return;
  }
  if (sub && sub[0] == '/') {
    size_t len = strlen(sub);
    snprintf(out, n, "%s%s%s", sub, len && sub[len - 1] != '/' ? "/" : "", file);
    return;
  }
  if (sub && sub[0]) {
    size_t len = strlen(sub);
    snprintf(out, n, "%s%s%s%s", dir, sub, sub[len - 1] != '/' ? "/" : "", file);
    return;
  }
  snprintf(out, n, "%s%s", dir, file);
}

void mjcf_z_to_quat(double quat[4], const double vec[3]) {
  const double z[3] = {0, 0, 1};
  double axis[3];
  mr_cross3(axis, z, vec);
  double s = mr_norm3(axis);
  if (s < 1e-10) {
    axis[0] = 1;
    axis[1] = axis[2] = 0;
  } else {
    mr_scale3(axis, axis, 1 / s);
  }
  double angle = atan2(s, vec[2]);
  quat[0] = cos(angle / 2);
  for (int i = 0; i < 3; i++) quat[i + 1] = axis[i] * sin(angle / 2);
}

static double mjcf_angle(const mjcf_ctx *c, double a) { return c->degree ? a * MR_PI / 180 : a; }

static int mjcf_euler_to_quat(mjcf_ctx *c, const xmlNode *n, const double e[3], double q[4]) {
  mr_quat_identity(q);
  for (int i = 0; i < 3; i++) {
    char ax = c->eulerseq[i];
    double axis[3] = {0, 0, 0}, rot[4];
    switch (ax) {
      case 'x': case 'X': axis[0] = 1; break;
      case 'y': case 'Y': axis[1] = 1; break;
      case 'z': case 'Z': axis[2] = 1; break;
      default: return mjcf_fail(c, n, "compiler eulerseq '%s' is not made of x, y, z", c->eulerseq);
    }
    mr_axis_angle_to_quat(rot, axis, mjcf_angle(c, e[i]));
    /* lowercase: axes move with the frame (post-multiply); uppercase: fixed axes */
    if (ax >= 'a')
      mr_quat_mul(q, q, rot);
    else
      mr_quat_mul(q, rot, q);
  }
  return 0;
}

static void mjcf_xyaxes_to_quat(const double v[6], double q[4]) {
  double x[3] = {v[0], v[1], v[2]}, y[3] = {v[3], v[4], v[5]}, z[3];
  mr_normalize3(x);
  mr_addscl3(y, x, -mr_dot3(x, y)); /* Gram-Schmidt: y orthogonal to x */
  mr_normalize3(y);
  mr_cross3(z, x, y);
  mr_normalize3(z);
  double R[9] = {x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]};
  mr_mat_to_quat(q, R);
}

int mjcf_orientation(mjcf_ctx *c, const xmlNode *n, double quat[4]) {
  double v[6];
  int found = 0, k;
  if ((k = mjcf_doubles(c, n, "quat", v, 4, 4)) < 0) return -1;
  if (k) {
    memcpy(quat, v, 4 * sizeof(double));
    if (mr_quat_normalize(quat) == 0) return mjcf_fail(c, n, "attribute 'quat' is zero");
    found = 1;
  }
  /* MuJoCo lets an alternative form win over quat when both are given. */
  if ((k = mjcf_doubles(c, n, "axisangle", v, 4, 4)) < 0) return -1;
  if (k) {
    if (mr_norm3(v) < MR_MINVAL) return mjcf_fail(c, n, "attribute 'axisangle': zero axis");
    mr_axis_angle_to_quat(quat, v, mjcf_angle(c, v[3]));
    found = 1;
  }
  if ((k = mjcf_doubles(c, n, "xyaxes", v, 6, 6)) < 0) return -1;
  if (k) {
    double cr[3];
    mr_cross3(cr, v, v + 3);
    if (mr_norm3(v) < MR_MINVAL || mr_norm3(cr) < MR_MINVAL)
      return mjcf_fail(c, n, "attribute 'xyaxes': axes are zero or parallel");
    mjcf_xyaxes_to_quat(v, quat);
    found = 1;
  }
  if ((k = mjcf_doubles(c, n, "zaxis", v, 3, 3)) < 0) return -1;
  if (k) {
    if (mr_norm3(v) < MR_MINVAL) return mjcf_fail(c, n, "attribute 'zaxis' is zero");
    mr_normalize3(v);
    mjcf_z_to_quat(quat, v);
    found = 1;
  }
  if ((k = mjcf_doubles(c, n, "euler", v, 3, 3)) < 0) return -1;
  if (k) {
    if (mjcf_euler_to_quat(c, n, v, quat) < 0) return -1;
    found = 1;
  }
  return found;
}

int mjcf_class_of(mjcf_ctx *c, const xmlNode *n, int inherited) {
  const char *name = mr_xml_attr(n, "class");
  if (!name) return inherited;
  int k = mjcf_find_class(c, name);
  if (k < 0) return mjcf_fail(c, n, "unknown default class '%.80s'", name), -2;
  return k;
}

/* ------------------------------------------------------------------ sections */

/* <compiler><lengthrange>: the options of the muscles' length-range computation. */
static int mjcf_parse_lengthrange(mjcf_ctx *c, const xmlNode *n) {
  static const char *const modes[] = {"none", "muscle", "muscleuser", "all", NULL};
  mr_source src = mjcf_src(c, n);
  int k = mr_xml_keyword(n, "mode", modes, src, c->err, c->errlen);
  if (k == -2) return -1;
  if (k >= 0) c->s->lengthrange.mode = k;
  if (mjcf_bool(c, n, "useexisting", &c->s->lengthrange.useexisting) < 0) return -1;
  if (mjcf_bool(c, n, "uselimit", &c->s->lengthrange.uselimit) < 0) return -1;
  static const char *const names[] = {"accel", "maxforce", "timeconst", "timestep",
                                      "inttotal", "interval", "tolrange"};
  double *values[] = {&c->s->lengthrange.accel,     &c->s->lengthrange.maxforce,
                      &c->s->lengthrange.timeconst, &c->s->lengthrange.timestep,
                      &c->s->lengthrange.inttotal,  &c->s->lengthrange.interval,
                      &c->s->lengthrange.tolrange};
  for (int i = 0; i < 7; i++) {
    if (mjcf_doubles(c, n, names[i], values[i], 1, 1) < 0) return -1;
    if (!(*values[i] >= 0)) return mjcf_fail(c, n, "lengthrange %s must not be negative", names[i]);
  }
  return 0;
}

static int mjcf_parse_compiler(mjcf_ctx *c, const xmlNode *n) {
  static const char *const angles[] = {"radian", "degree", NULL};
  static const char *const coords[] = {"local", "global", NULL};
  static const char *const ifg[] = {"false", "true", "auto", NULL};
  mr_source src = mjcf_src(c, n);
  int k = mr_xml_keyword(n, "angle", angles, src, c->err, c->errlen);
  if (k == -2) return -1;
  if (k >= 0) c->degree = k;
  k = mr_xml_keyword(n, "coordinate", coords, src, c->err, c->errlen);
  if (k == -2) return -1;
  if (k == 1)
    return mjcf_fail(c, n, "compiler coordinate=\"global\" is not supported (only \"local\")");
  k = mr_xml_keyword(n, "inertiafromgeom", ifg, src, c->err, c->errlen);
  if (k == -2) return -1;
  if (k >= 0) c->s->inertiafromgeom = k;
  if (mjcf_bool(c, n, "autolimits", &c->autolimits) < 0) return -1;
  /* meshes: primitives fitted to their bounding box, MuJoCo 2.2's legacy inertia */
  if (mjcf_bool(c, n, "fitaabb", &c->s->fitaabb) < 0) return -1;
  if (mjcf_bool(c, n, "exactmeshinertia", &c->s->exactmeshinertia) < 0) return -1;
  double total;
  if ((k = mjcf_doubles(c, n, "settotalmass", &total, 1, 1)) < 0) return -1;
  if (k) c->s->settotalmass = total; /* <= 0: off, as in MuJoCo */
  const char *seq = mr_xml_attr(n, "eulerseq");
  if (seq) {
    if (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3)
      return mjcf_fail(c, n, "compiler eulerseq '%.20s' must be 3 of x, y, z, X, Y, Z", seq);
    memcpy(c->eulerseq, seq, 4);
  }
  if (mr_xml_attr(n, "meshdir")) c->meshdir = mjcf_name(c, n, "meshdir");
  if (mr_xml_attr(n, "texturedir")) c->texturedir = mjcf_name(c, n, "texturedir");
  for (const xmlNode *ch = n->children; ch; ch = ch->next)
    if (mr_xml_is(ch, "lengthrange") && mjcf_parse_lengthrange(c, ch) < 0) return -1;
  return 0;
}

static int mjcf_parse_flags(mjcf_ctx *c, const xmlNode *flag) {
  /* The flags that map onto Moreau's disable bits are honoured; the rest are warned about. */
  static const struct { const char *name; int bit; } known[] = {
      {"contact", MR_DISABLE_CONTACT},   {"constraint", MR_DISABLE_CONSTRAINT},
      {"gravity", MR_DISABLE_GRAVITY},   {"passive", MR_DISABLE_PASSIVE},
      {"actuation", MR_DISABLE_ACTUATION}, {"clampctrl", MR_DISABLE_CLAMPCTRL}};
  static const char *const onoff[] = {"disable", "enable", NULL};
  for (const xmlAttr *a = flag->properties; a; a = a->next) {
    const char *name = (const char *)a->name;
    int bit = -1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
      if (strcmp(known[i].name, name) == 0) bit = known[i].bit;
    if (bit < 0) {
      char what[96];
      snprintf(what, sizeof what, "flag %s", name);
      mjcf_warn_once(c, flag, what);
      continue;
    }
    int k = mr_xml_keyword(flag, name, onoff, mjcf_src(c, flag), c->err, c->errlen);
    if (k == -2) return -1;
    if (k == 0) c->s->opt.disable |= bit;
    if (k == 1) c->s->opt.disable &= ~bit;
  }
  return 0;
}

static int mjcf_parse_option(mjcf_ctx *c, const xmlNode *n) {
  mr_option *o = &c->s->opt;
  double dt = o->timestep;
  if (mjcf_doubles(c, n, "timestep", &dt, 1, 1) < 0) return -1;
  if (!(dt >= MR_MIN_TIMESTEP))
    return mjcf_fail(c, n, "option timestep %g is below the smallest step, %g s", dt, MR_MIN_TIMESTEP);
  o->timestep = dt;
  if (mjcf_doubles(c, n, "gravity", o->gravity, 3, 3) < 0) return -1;
  if (mjcf_doubles(c, n, "magnetic", o->magnetic, 3, 3) < 0) return -1;
  const char *integ = mr_xml_attr(n, "integrator");
  if (integ) {
    if (strcmp(integ, "Euler") == 0) {
      o->integrator = MR_INT_EULER;
    } else if (strcmp(integ, "midpoint") == 0) {
      o->integrator = MR_INT_MIDPOINT;
    } else if (strcmp(integ, "RK4") == 0 || strcmp(integ, "implicit") == 0 ||
               strcmp(integ, "implicitfast") == 0) {
      /* MuJoCo's other integrators: a valid file, stepped with Euler */
      o->integrator = MR_INT_EULER;
      mr_warnf(c->s->quiet, mjcf_src(c, n), "integrator \"%s\" is not supported; using Euler",
               integ);
    } else {
      return mjcf_fail(c, n, "option integrator: unknown value '%.40s' (expected Euler, RK4, "
                       "implicit, implicitfast or midpoint)", integ);
    }
  }
  for (const xmlNode *ch = n->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    if (mr_xml_is(ch, "flag")) {
      if (mjcf_parse_flags(c, ch) < 0) return -1;
    } else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
    }
  }
  return 0;
}

typedef int (*mjcf_section_fn)(mjcf_ctx *c, const xmlNode *n);

static int mjcf_parse_default_section(mjcf_ctx *c, const xmlNode *n) {
  return mjcf_parse_defaults(c, n, -1);
}

/* MuJoCo's order of sections; NULL handler: silently ignored (no physics meaning). */
static const struct {
  const char *name;
  mjcf_section_fn fn;
} mjcf_sections[] = {
    {"compiler", mjcf_parse_compiler},
    {"option", mjcf_parse_option},
    {"size", NULL},
    {"visual", NULL},
    {"statistic", NULL},
    {"default", mjcf_parse_default_section},
    {"asset", mjcf_parse_asset},
    {"worldbody", mjcf_parse_worldbody},
    {"contact", mjcf_parse_contact},
    {"tendon", mjcf_parse_tendon}, /* before equality: <equality><tendon> names them */
    {"equality", mjcf_parse_equality},
    {"actuator", mjcf_parse_actuator},
    {"sensor", mjcf_parse_sensor},
    {"keyframe", mjcf_parse_keyframe},
};
#define MJCF_NSECTIONS ((int)(sizeof mjcf_sections / sizeof mjcf_sections[0]))

static int mjcf_parse_root(mjcf_ctx *c, const xmlNode *root) {
  if (!mr_xml_is(root, "mujoco"))
    return mjcf_fail(c, root, "root element is <%s>, expected <mujoco>", (const char *)root->name);
  const char *model = mr_xml_attr(root, "model");
  if (model) c->s->model_name = mr_spec_strdup(c->s, model);
  for (const xmlNode *ch = root->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int known = 0;
    for (int i = 0; i < MJCF_NSECTIONS; i++)
      if (mr_xml_is(ch, mjcf_sections[i].name)) known = 1;
    if (!known) mjcf_warn_once(c, ch, (const char *)ch->name);
  }
  for (int i = 0; i < MJCF_NSECTIONS; i++) {
    if (!mjcf_sections[i].fn) continue;
    if (mjcf_sections[i].fn == mjcf_parse_worldbody) { /* all sections at once */
      if (mjcf_parse_worldbody(c, root) < 0) return -1;
      continue;
    }
    for (const xmlNode *ch = root->children; ch; ch = ch->next)
      if (mr_xml_is(ch, mjcf_sections[i].name) && mjcf_sections[i].fn(c, ch) < 0) return -1;
  }
  if (c->nskipped_act)
    mr_warnf(c->s->quiet, c->skipped_act_src,
             "%d adhesion actuator(s) (body= transmission) skipped (outside the supported "
             "subset): %s",
             c->nskipped_act, c->skipped_act);
  return 0;
}

static void mjcf_ctx_free(mjcf_ctx *c) {
  for (int i = 0; i < c->nwarned; i++) free(c->warned[i]);
  free(c->warned);
  free(c->classes);
  free(c->act_kept);
  if (c->doc) xmlFreeDoc(c->doc);
}

int mr_mjcf_parse(mr_spec *s, const char *path, char *err, int errlen) {
  mjcf_ctx c;
  memset(&c, 0, sizeof c);
  c.s = s;
  c.err = err;
  c.errlen = errlen;
  c.file = mr_spec_strdup(s, path);
  c.degree = 1;
  memcpy(c.eulerseq, "xyz", 4);
  if (!c.file) return mr_errorf(err, errlen, (mr_source){path, 1}, "out of memory");
  const char *slash = strrchr(path, '/');
  if (slash) {
    size_t n = (size_t)(slash - path) + 1;
    if (n >= sizeof c.dir) return mr_errorf(err, errlen, (mr_source){path, 1}, "path too long");
    memcpy(c.dir, path, n);
    c.dir[n] = 0;
  }
  c.doc = mr_xml_read(path, err, errlen);
  if (!c.doc) return -1;

  /* class 0 is "main", the top default, holding MuJoCo's built-in values */
  c.classes = calloc(1, sizeof *c.classes);
  if (!c.classes) {
    mjcf_ctx_free(&c);
    return mr_errorf(err, errlen, (mr_source){path, 1}, "out of memory");
  }
  c.nclasses = c.capclasses = 1;
  mjcf_class_init_main(&c.classes[0]);

  int rc = mjcf_expand_includes(&c);
  if (rc == 0) rc = mjcf_parse_root(&c, xmlDocGetRootElement(c.doc));
  if (rc == 0) rc = mr_spec_check_unique_names(s, err, errlen);
  mjcf_ctx_free(&c);
  return rc;
}
