/* <sensor>: every sensor type of MuJoCo 2.2 but user sensors (they need a callback),
 * resolved to the spec's objects by name. Noise is read and kept but never applied;
 * cutoff is checked here as MuJoCo checks it (non-negative, none on axes and quaternions).
 *
 * Sensors on an actuator that was skipped for being outside the supported subset are
 * skipped too, with a warning naming them.
 */
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

/* What a sensor element attaches to. */
typedef enum sensor_target {
  TARGET_SITE,
  TARGET_JOINT,
  TARGET_TENDON,
  TARGET_ACTUATOR,
  TARGET_FRAME,   /* objtype + objname, optional reftype + refname */
  TARGET_SUBTREE, /* body */
  TARGET_NONE
} sensor_target;

/* What each sensor type attaches to, by mr_sensor_type. */
static sensor_target mjcf_sensor_target_of(int type) {
  switch (type) {
    case MR_SENS_TOUCH: case MR_SENS_ACCELEROMETER: case MR_SENS_VELOCIMETER: case MR_SENS_GYRO:
    case MR_SENS_FORCE: case MR_SENS_TORQUE: case MR_SENS_MAGNETOMETER: case MR_SENS_RANGEFINDER:
      return TARGET_SITE;
    case MR_SENS_JOINTPOS: case MR_SENS_JOINTVEL: case MR_SENS_BALLQUAT: case MR_SENS_BALLANGVEL:
    case MR_SENS_JOINTLIMITPOS: case MR_SENS_JOINTLIMITVEL: case MR_SENS_JOINTLIMITFRC:
      return TARGET_JOINT;
    case MR_SENS_TENDONPOS: case MR_SENS_TENDONVEL: case MR_SENS_TENDONLIMITPOS:
    case MR_SENS_TENDONLIMITVEL: case MR_SENS_TENDONLIMITFRC:
      return TARGET_TENDON;
    case MR_SENS_ACTUATORPOS: case MR_SENS_ACTUATORVEL: case MR_SENS_ACTUATORFRC:
      return TARGET_ACTUATOR;
    case MR_SENS_SUBTREECOM: case MR_SENS_SUBTREELINVEL: case MR_SENS_SUBTREEANGMOM:
      return TARGET_SUBTREE;
    case MR_SENS_CLOCK: return TARGET_NONE;
    default: return TARGET_FRAME;
  }
}

/* 1 if some <actuator> section holds an element of this name: the actuator exists in the
 * file but was skipped (the spec has every actuator that was kept). */
static int mjcf_actuator_in_file(const mjcf_ctx *c, const char *name) {
  const xmlNode *root = xmlDocGetRootElement(c->doc);
  for (const xmlNode *sec = root ? root->children : NULL; sec; sec = sec->next) {
    if (!mr_xml_is(sec, "actuator")) continue;
    for (const xmlNode *a = sec->children; a; a = a->next) {
      const char *n = mjcf_elem(a) ? mr_xml_attr(a, "name") : NULL;
      if (n && strcmp(n, name) == 0) return 1;
    }
  }
  return 0;
}

/* A required name attribute; NULL (and err set) when absent. */
static const char *mjcf_sensor_ref(mjcf_ctx *c, const xmlNode *n, const char *attr) {
  const char *v = mr_xml_attr(n, attr);
  if (!v || !v[0]) mjcf_fail(c, n, "<%s> needs a %s attribute", (const char *)n->name, attr);
  return v && v[0] ? v : NULL;
}

/* objtype keywords of frame sensors, as mr_obj_type. */
static int mjcf_frame_objtype(mjcf_ctx *c, const xmlNode *n, const char *attr, int required) {
  static const char *const words[] = {"body", "xbody", "geom", "site", "camera", NULL};
  static const int types[] = {MR_OBJ_BODY, MR_OBJ_XBODY, MR_OBJ_GEOM, MR_OBJ_SITE, MR_OBJ_CAMERA};
  int k = mr_xml_keyword(n, attr, words, mjcf_src(c, n), c->err, c->errlen);
  if (k == -2) return -2;
  if (k == -1) {
    if (required) return mjcf_fail(c, n, "<%s> needs an %s attribute", (const char *)n->name, attr), -2;
    return -1;
  }
  return types[k];
}

static int mjcf_frame_find(const mjcf_ctx *c, int type, const char *name) {
  switch (type) {
    case MR_OBJ_BODY:
    case MR_OBJ_XBODY: return mr_spec_find_body(c->s, name);
    case MR_OBJ_GEOM: return mr_spec_find_geom(c->s, name);
    case MR_OBJ_SITE: return mr_spec_find_site(c->s, name);
    case MR_OBJ_CAMERA: return mr_spec_find_camera(c->s, name);
    default: return -1;
  }
}

static const char *mjcf_objtype_word(int type) {
  switch (type) {
    case MR_OBJ_BODY: return "body";
    case MR_OBJ_XBODY: return "xbody";
    case MR_OBJ_GEOM: return "geom";
    case MR_OBJ_SITE: return "site";
    case MR_OBJ_CAMERA: return "camera";
    default: return "object";
  }
}

/* objtype/objname (prefix "obj") or reftype/refname (prefix "ref"). */
static int mjcf_sensor_frame(mjcf_ctx *c, const xmlNode *n, int is_ref, int *type, int *id) {
  const char *type_attr = is_ref ? "reftype" : "objtype";
  const char *name_attr = is_ref ? "refname" : "objname";
  int t = mjcf_frame_objtype(c, n, type_attr, !is_ref);
  if (t == -2) return -1;
  const char *name = mr_xml_attr(n, name_attr);
  if (t == -1) {
    if (name) return mjcf_fail(c, n, "<%s> has refname but no reftype", (const char *)n->name);
    return 0; /* no reference frame: the world */
  }
  if (!name || !name[0]) return mjcf_fail(c, n, "<%s> needs a %s attribute", (const char *)n->name, name_attr);
  *id = mjcf_frame_find(c, t, name);
  if (*id < 0) return mjcf_fail(c, n, "sensor refers to an unknown %s '%.80s'", mjcf_objtype_word(t), name);
  *type = t;
  return 0;
}

/* A sensor on a named site, joint, body or actuator: -1 (err set) if the name is missing or
 * unknown. */
static int mjcf_sensor_named(mjcf_ctx *c, const xmlNode *n, const char *attr, int objtype,
                             int (*find)(const mr_spec *, const char *), mr_spec_sensor *e) {
  const char *name = mjcf_sensor_ref(c, n, attr);
  if (!name) return -1;
  e->objtype = objtype;
  e->obj = find(c->s, name);
  if (e->obj < 0) return mjcf_fail(c, n, "sensor refers to an unknown %s '%.80s'", attr, name);
  return 0;
}

/* Resolves what the sensor senses into e. Returns 0, 1 to skip the sensor (warned), -1 on
 * error. */
static int mjcf_sensor_target(mjcf_ctx *c, const xmlNode *n, sensor_target target,
                              mr_spec_sensor *e) {
  switch (target) {
    case TARGET_SITE: return mjcf_sensor_named(c, n, "site", MR_OBJ_SITE, mr_spec_find_site, e);
    case TARGET_JOINT: return mjcf_sensor_named(c, n, "joint", MR_OBJ_JOINT, mr_spec_find_joint, e);
    case TARGET_SUBTREE: return mjcf_sensor_named(c, n, "body", MR_OBJ_BODY, mr_spec_find_body, e);
    case TARGET_TENDON: return mjcf_sensor_named(c, n, "tendon", MR_OBJ_TENDON, mr_spec_find_tendon, e);
    case TARGET_ACTUATOR: {
      const char *name = mr_xml_attr(n, "actuator");
      if (name && mr_spec_find_actuator(c->s, name) < 0 && mjcf_actuator_in_file(c, name)) {
        mjcf_warn_once(c, n, "sensors on skipped actuators");
        return 1;
      }
      return mjcf_sensor_named(c, n, "actuator", MR_OBJ_ACTUATOR, mr_spec_find_actuator, e);
    }
    case TARGET_FRAME:
      if (mjcf_sensor_frame(c, n, 0, &e->objtype, &e->obj)) return -1;
      return mjcf_sensor_frame(c, n, 1, &e->reftype, &e->ref);
    default: return 0;
  }
}

static int mjcf_sensor(mjcf_ctx *c, const xmlNode *n, int type) {
  mr_spec_sensor e;
  memset(&e, 0, sizeof e);
  e.type = type;
  e.objtype = e.obj = e.reftype = e.ref = -1;
  if (mjcf_doubles(c, n, "cutoff", &e.cutoff, 1, 1) < 0) return -1;
  if (mjcf_doubles(c, n, "noise", &e.noise, 1, 1) < 0) return -1;
  int rc = mjcf_sensor_target(c, n, mjcf_sensor_target_of(type), &e);
  if (rc) return rc < 0 ? -1 : 0;
  int id = mr_spec_add_sensor(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  e.src = mjcf_src(c, n);
  e.name = mjcf_name(c, n, "name");
  c->s->sensors[id] = e;
  return 0;
}

int mjcf_parse_sensor(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int type = -1;
    for (int t = 0; t < MR_SENS_NTYPES; t++)
      if (mr_xml_is(ch, mr_sensor_type_name(t))) type = t;
    if (type < 0) {
      mjcf_warn_once(c, ch, (const char *)ch->name); /* user sensors, plugins */
      continue;
    }
    if (mjcf_sensor(c, ch, type) < 0) return -1;
  }
  return 0;
}
