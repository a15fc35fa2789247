/* <tendon>: fixed tendons (a linear combination of joint positions) and spatial tendons (a
 * path through sites, around sphere and cylinder geoms, in branches started by pulleys).
 *
 * Names are resolved here, so a tendon through a missing site or around a missing geom is
 * reported at the line of the path element; what needs the compiled tree (the geom's type,
 * the shape of a branch) is checked by the compiler, also at the element's line.
 */
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

/* The name in attribute `attr` of a path element, looked up with find; -1 (err set) if the
 * attribute is missing or names nothing. */
static int mjcf_path_ref(mjcf_ctx *c, const xmlNode *n, const char *attr, const char *what,
                         int (*find)(const mr_spec *, const char *)) {
  const char *name = mr_xml_attr(n, attr);
  if (!name)
    return mjcf_fail(c, n, "<%s> in a tendon needs a %s attribute", (const char *)n->name, attr);
  int id = find(c->s, name);
  if (id < 0) return mjcf_fail(c, n, "tendon refers to unknown %s '%.80s'", what, name);
  return id;
}

static int mjcf_wrap(mjcf_ctx *c, const xmlNode *n, int tendon, int type, int obj) {
  int w = mr_spec_add_wrap(c->s, tendon, type, obj, mjcf_src(c, n));
  if (w < 0) return mjcf_fail(c, n, "out of memory");
  return w;
}

static int mjcf_spatial_element(mjcf_ctx *c, const xmlNode *n, int tendon) {
  if (mr_xml_is(n, "site")) {
    int site = mjcf_path_ref(c, n, "site", "site", mr_spec_find_site);
    return site < 0 ? -1 : mjcf_wrap(c, n, tendon, MR_WRAP_SITE, site);
  }
  if (mr_xml_is(n, "geom")) {
    int geom = mjcf_path_ref(c, n, "geom", "geom", mr_spec_find_geom);
    if (geom < 0) return -1;
    int side = -1;
    if (mr_xml_attr(n, "sidesite") &&
        (side = mjcf_path_ref(c, n, "sidesite", "site", mr_spec_find_site)) < 0)
      return -1;
    int w = mjcf_wrap(c, n, tendon, MR_WRAP_SPHERE, geom);
    if (w >= 0) c->s->wraps[w].side = side;
    return w;
  }
  if (mr_xml_is(n, "pulley")) {
    double divisor = 0;
    if (!mr_xml_attr(n, "divisor")) return mjcf_fail(c, n, "<pulley> needs a divisor attribute");
    if (mjcf_doubles(c, n, "divisor", &divisor, 1, 1) < 0) return -1;
    if (!(divisor > 0)) return mjcf_fail(c, n, "pulley divisor must be positive");
    int w = mjcf_wrap(c, n, tendon, MR_WRAP_PULLEY, -1);
    if (w >= 0) c->s->wraps[w].prm = divisor;
    return w;
  }
  return mjcf_fail(c, n, "<%s> cannot be part of a spatial tendon (site, geom or pulley)",
                   (const char *)n->name);
}

static int mjcf_fixed_element(mjcf_ctx *c, const xmlNode *n, int tendon) {
  if (!mr_xml_is(n, "joint"))
    return mjcf_fail(c, n, "<%s> cannot be part of a fixed tendon (joint only)",
                     (const char *)n->name);
  int joint = mjcf_path_ref(c, n, "joint", "joint", mr_spec_find_joint);
  if (joint < 0) return -1;
  if (!mr_xml_attr(n, "coef")) return mjcf_fail(c, n, "<joint> in a fixed tendon needs a coef");
  double coef = 0;
  if (mjcf_doubles(c, n, "coef", &coef, 1, 1) < 0) return -1;
  int w = mjcf_wrap(c, n, tendon, MR_WRAP_JOINT, joint);
  if (w >= 0) c->s->wraps[w].prm = coef;
  return w;
}

static int mjcf_tendon(mjcf_ctx *c, const xmlNode *n, int spatial) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_tendon_def d = c->classes[k].tendon;
  if (mjcf_tendon_apply(c, &d, n) < 0) return -1;
  int limited = mjcf_resolve_limited(c, n, d.limited, d.t.range, "tendon");
  if (limited < 0) return -1;
  int material = -1;
  if (d.material && (material = mr_spec_find_material(c->s, d.material)) < 0)
    return mjcf_fail(c, n, "unknown material '%.80s'", d.material);
  int id = mr_spec_add_tendon(c->s, spatial, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_tendon *t = &c->s->tendons[id];
  d.t.src = t->src;
  d.t.spatial = spatial;
  d.t.wrapadr = t->wrapadr;
  d.t.nwrap = 0;
  *t = d.t;
  t->name = mjcf_name(c, n, "name");
  t->limited = limited;
  t->material = material;
  for (const xmlNode *ch = n->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int rc = spatial ? mjcf_spatial_element(c, ch, id) : mjcf_fixed_element(c, ch, id);
    if (rc < 0) return -1;
  }
  if (c->s->tendons[id].nwrap == 0)
    return mjcf_fail(c, n, "tendon '%.80s' has an empty path", t->name ? t->name : "");
  return 0;
}

int mjcf_parse_tendon(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int rc = 0;
    if (mr_xml_is(ch, "spatial"))
      rc = mjcf_tendon(c, ch, 1);
    else if (mr_xml_is(ch, "fixed"))
      rc = mjcf_tendon(c, ch, 0);
    else
      mjcf_warn_once(c, ch, (const char *)ch->name);
    if (rc < 0) return -1;
  }
  return 0;
}
