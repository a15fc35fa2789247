/* <equality> (connect, weld, joint, tendon), <contact> (exclude, pair) and <keyframe>.
 *
 * Equality data follow MuJoCo 2.2.2's eq_data layout: connect: anchor (3) in body1; weld:
 * anchor (3), relpose (7: pos, quat of body2 relative to body1; an all-zero quat means
 * "take it from the reference configuration", as in MuJoCo), torquescale; joint, tendon:
 * polycoef (5).
 */
#include <stdio.h>
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

/* Body named by attr; world (0) when absent and optional. -1 (err set) on failure. */
static int mjcf_body_ref(mjcf_ctx *c, const xmlNode *n, const char *attr, int required) {
  const char *name = mr_xml_attr(n, attr);
  if (!name) {
    if (required) return mjcf_fail(c, n, "<%s> needs a %s attribute", (const char *)n->name, attr);
    return 0;
  }
  int id = mr_spec_find_body(c->s, name);
  if (id < 0) return mjcf_fail(c, n, "unknown body '%.80s'", name);
  return id;
}

static int mjcf_equality(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_equality_def d = c->classes[k].equality;
  if (mjcf_equality_apply(c, &d, n) < 0) return -1;
  double data[11] = {0};
  int type, obj1, obj2;
  if (mr_xml_is(n, "joint") || mr_xml_is(n, "tendon")) {
    int joint = mr_xml_is(n, "joint");
    const char *what = joint ? "joint" : "tendon";
    int (*find)(const mr_spec *, const char *) = joint ? mr_spec_find_joint : mr_spec_find_tendon;
    type = joint ? MR_EQ_JOINT : MR_EQ_TENDON;
    const char *o1 = mr_xml_attr(n, joint ? "joint1" : "tendon1");
    const char *o2 = mr_xml_attr(n, joint ? "joint2" : "tendon2");
    if (!o1) return mjcf_fail(c, n, "<%s> equality needs a %s1 attribute", what, what);
    obj1 = find(c->s, o1);
    if (obj1 < 0) return mjcf_fail(c, n, "unknown %s '%.80s'", what, o1);
    obj2 = -1;
    if (o2 && (obj2 = find(c->s, o2)) < 0) return mjcf_fail(c, n, "unknown %s '%.80s'", what, o2);
    data[1] = 1; /* polycoef "0 1 0 0 0": x1 = x2 */
    if (mjcf_doubles(c, n, "polycoef", data, 5, 5) < 0) return -1;
  } else {
    int weld = mr_xml_is(n, "weld");
    type = weld ? MR_EQ_WELD : MR_EQ_CONNECT;
    if ((obj1 = mjcf_body_ref(c, n, "body1", 1)) < 0) return -1;
    if ((obj2 = mjcf_body_ref(c, n, "body2", 0)) < 0) return -1;
    if (!weld && !mr_xml_attr(n, "anchor"))
      return mjcf_fail(c, n, "<connect> needs an anchor attribute");
    if (mjcf_doubles(c, n, "anchor", data, 3, 3) < 0) return -1;
    if (weld) {
      data[4] = 1; /* relpose "0 1 0 0 0 0 0": zero quat, computed by the compiler */
      data[10] = 1;
      if (mjcf_doubles(c, n, "relpose", data + 3, 7, 7) < 0) return -1;
      if (mjcf_doubles(c, n, "torquescale", data + 10, 1, 1) < 0) return -1;
    }
  }
  int id = mr_spec_add_equality(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_equality *e = &c->s->equalities[id];
  e->name = mjcf_name(c, n, "name");
  e->type = type;
  e->obj1 = obj1;
  e->obj2 = obj2;
  e->active = d.active;
  memcpy(e->data, data, sizeof data);
  memcpy(e->solref, d.solref, sizeof d.solref);
  memcpy(e->solimp, d.solimp, sizeof d.solimp);
  return 0;
}

int mjcf_parse_equality(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    if (mr_xml_is(ch, "connect") || mr_xml_is(ch, "weld") || mr_xml_is(ch, "joint") ||
        mr_xml_is(ch, "tendon")) {
      if (mjcf_equality(c, ch) < 0) return -1;
    } else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ contact */

static int mjcf_geom_ref(mjcf_ctx *c, const xmlNode *n, const char *attr) {
  const char *name = mr_xml_attr(n, attr);
  if (!name) return mjcf_fail(c, n, "<pair> needs a %s attribute", attr);
  int id = mr_spec_find_geom(c->s, name);
  if (id < 0) return mjcf_fail(c, n, "unknown geom '%.80s'", name);
  return id;
}

static int mjcf_pair(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mr_spec_pair d = c->classes[k].pair;
  if (mjcf_pair_apply(c, &d, n) < 0) return -1;
  if ((d.geom1 = mjcf_geom_ref(c, n, "geom1")) < 0) return -1;
  if ((d.geom2 = mjcf_geom_ref(c, n, "geom2")) < 0) return -1;
  int id = mr_spec_add_pair(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  d.src = mjcf_src(c, n);
  c->s->pairs[id] = d;
  return 0;
}

static int mjcf_exclude(mjcf_ctx *c, const xmlNode *n) {
  int b1 = mjcf_body_ref(c, n, "body1", 1);
  if (b1 < 0) return -1;
  int b2 = mjcf_body_ref(c, n, "body2", 1);
  if (b2 < 0) return -1;
  int id = mr_spec_add_exclude(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  c->s->excludes[id].body1 = b1;
  c->s->excludes[id].body2 = b2;
  return 0;
}

int mjcf_parse_contact(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int rc = 0;
    if (mr_xml_is(ch, "pair"))
      rc = mjcf_pair(c, ch);
    else if (mr_xml_is(ch, "exclude"))
      rc = mjcf_exclude(c, ch);
    else
      mjcf_warn_once(c, ch, (const char *)ch->name);
    if (rc < 0) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ keyframes */

static int mjcf_key(mjcf_ctx *c, const xmlNode *n) {
  int id = mr_spec_add_key(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_key *key = &c->s->keys[id];
  key->name = mjcf_name(c, n, "name");
  if (mjcf_doubles(c, n, "time", &key->time, 1, 1) < 0) return -1;
  if (mjcf_vector(c, n, "qpos", &key->qpos, &key->nqpos) < 0) return -1;
  if (mjcf_vector(c, n, "qvel", &key->qvel, &key->nqvel) < 0) return -1;
  if (mjcf_vector(c, n, "ctrl", &key->ctrl, &key->nctrl) < 0) return -1;
  if (mjcf_vector(c, n, "act", &key->act, &key->nact) < 0) return -1;
  if (key->ctrl && key->nctrl == c->nact && c->nact > 0) {
    /* drop the controls of actuators that were skipped */
    int m = 0;
    for (int i = 0; i < c->nact; i++)
      if (c->act_kept[i]) key->ctrl[m++] = key->ctrl[i];
    key->nctrl = m;
  }
  return 0;
}

int mjcf_parse_keyframe(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    if (mr_xml_is(ch, "key")) {
      if (mjcf_key(c, ch) < 0) return -1;
    } else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
    }
  }
  return 0;
}
