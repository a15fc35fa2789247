/* <actuator>: general actuators and MuJoCo's shortcuts (motor, position, velocity, muscle,
 * cylinder, damper, intvelocity) on joints, tendons, sites and slider-cranks. Adhesion
 * (forces at a body's contacts) is outside the subset: skipped with a warning, and the
 * record of which of MuJoCo's actuators were kept lets keyframe ctrl vectors drop theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

static int mjcf_note_actuator(mjcf_ctx *c, const xmlNode *n, int kept) {
  if (c->nact == c->capact) {
    int cap = c->capact ? 2 * c->capact : 32;
    unsigned char *k = realloc(c->act_kept, (size_t)cap);
    if (!k) return mjcf_fail(c, n, "out of memory");
    c->act_kept = k;
    c->capact = cap;
  }
  c->act_kept[c->nact++] = (unsigned char)kept;
  return 0;
}

/* Actuators outside the subset (adhesion through a body's contacts): one warning for all of
 * them, at the end. */
static void mjcf_skip_transmission(mjcf_ctx *c, const xmlNode *n) {
  const char *name = mr_xml_attr(n, "name");
  if (c->nskipped_act++ == 0) c->skipped_act_src = mjcf_src(c, n);
  size_t len = strlen(c->skipped_act);
  size_t room = sizeof c->skipped_act - len;
  if (room > 8) {
    if (len) {
      strncat(c->skipped_act, ", ", room - 1);
      len += 2;
      room -= 2;
    }
    if (name && name[0])
      strncat(c->skipped_act, name, room - 1);
    else
      strncat(c->skipped_act, (const char *)n->name, room - 1);
  }
}

/* limited="auto": with autolimits, limited iff a range was given; without, a range alone
 * is an error (MuJoCo 2.2.2 asks the modeller to say which). */
int mjcf_resolve_limited(mjcf_ctx *c, const xmlNode *n, int limited, const double r[2],
                         const char *what) {
  int has_range = r[0] != 0 || r[1] != 0;
  if (limited == 2) {
    if (!c->autolimits && has_range)
      return mjcf_fail(c, n,
                       "%s has range but not limited: set compiler autolimits=\"true\" or "
                       "limited explicitly",
                       what);
    limited = c->autolimits && has_range;
  }
  if (limited && r[0] >= r[1])
    return mjcf_fail(c, n, "%s range: the lower bound must be smaller than the upper", what);
  return limited;
}

static int mjcf_site_ref(mjcf_ctx *c, const xmlNode *n, const char *name) {
  int id = mr_spec_find_site(c->s, name);
  if (id < 0) return mjcf_fail(c, n, "unknown site '%.80s'", name);
  return id;
}

/* The one transmission attribute an actuator names: its type and target, or -1. */
static int mjcf_transmission(mjcf_ctx *c, const xmlNode *n, mr_spec_actuator *a) {
  static const char *const attrs[] = {"joint", "jointinparent", "tendon", "site", "cranksite", NULL};
  static const int types[] = {MR_TRN_JOINT, MR_TRN_JOINTINPARENT, MR_TRN_TENDON, MR_TRN_SITE,
                              MR_TRN_SLIDERCRANK};
  int found = -1;
  for (int i = 0; attrs[i]; i++) {
    if (!mr_xml_attr(n, attrs[i])) continue;
    if (found >= 0)
      return mjcf_fail(c, n, "actuator has both %s and %s: give one transmission", attrs[found],
                       attrs[i]);
    found = i;
  }
  if (found < 0) return mjcf_fail(c, n, "actuator needs a joint, tendon, site or cranksite");
  const char *name = mr_xml_attr(n, attrs[found]);
  a->trntype = types[found];
  switch (a->trntype) {
    case MR_TRN_JOINT:
    case MR_TRN_JOINTINPARENT:
      if ((a->joint = mr_spec_find_joint(c->s, name)) < 0)
        return mjcf_fail(c, n, "unknown joint '%.80s'", name);
      return 0;
    case MR_TRN_TENDON:
      if ((a->joint = mr_spec_find_tendon(c->s, name)) < 0)
        return mjcf_fail(c, n, "unknown tendon '%.80s'", name);
      return 0;
    case MR_TRN_SITE:
      return (a->joint = mjcf_site_ref(c, n, name)) < 0 ? -1 : 0;
    default: {
      const char *slider = mr_xml_attr(n, "slidersite");
      if (!slider) return mjcf_fail(c, n, "a slider-crank actuator needs a slidersite");
      if ((a->joint = mjcf_site_ref(c, n, name)) < 0) return -1;
      return (a->trnid2 = mjcf_site_ref(c, n, slider)) < 0 ? -1 : 0;
    }
  }
}

static int mjcf_actuator_kind(const xmlNode *n) {
  static const struct { const char *name; int kind; } kinds[] = {
      {"motor", MR_ACT_MOTOR},       {"position", MR_ACT_POSITION}, {"velocity", MR_ACT_VELOCITY},
      {"muscle", MR_ACT_MUSCLE},     {"cylinder", MR_ACT_CYLINDER}, {"damper", MR_ACT_DAMPER},
      {"intvelocity", MR_ACT_INTVELOCITY}};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (mr_xml_is(n, kinds[i].name)) return kinds[i].kind;
  return MR_ACT_GENERAL;
}

/* What the shortcuts require of their attributes (MuJoCo 2.2.2's parser checks). */
static int mjcf_actuator_require(mjcf_ctx *c, const xmlNode *n, const mjcf_actuator_def *d) {
  if (d->gaintype > MR_GAIN_MUSCLE || d->biastype > MR_BIAS_MUSCLE || d->dyntype > MR_DYN_MUSCLE)
    return mjcf_fail(c, n, "user-defined actuator gain, bias or dynamics (callbacks) are not "
                     "supported");
  if (mr_xml_is(n, "damper")) {
    if (!mr_xml_attr(n, "ctrlrange")) return mjcf_fail(c, n, "<damper> needs a ctrlrange");
    if (d->ctrlrange[0] < 0 || d->ctrlrange[1] < 0)
      return mjcf_fail(c, n, "damper ctrlrange must not be negative");
  }
  if (d->actlimited == 1 && !(d->actrange[0] < d->actrange[1]))
    return mjcf_fail(c, n, "actuator actrange: the lower bound must be smaller than the upper");
  return 0;
}

static int mjcf_actuator(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_actuator_def d = c->classes[k].actuator;
  if (mjcf_actuator_apply(c, &d, n) < 0) return -1;
  if (mr_xml_attr(n, "body")) { /* adhesion: forces at a body's contacts */
    mjcf_skip_transmission(c, n);
    return mjcf_note_actuator(c, n, 0);
  }
  if (mjcf_actuator_require(c, n, &d) < 0) return -1;
  int ctrllimited = mjcf_resolve_limited(c, n, d.ctrllimited, d.ctrlrange, "actuator ctrl");
  if (ctrllimited < 0) return -1;
  int forcelimited = mjcf_resolve_limited(c, n, d.forcelimited, d.forcerange, "actuator force");
  if (forcelimited < 0) return -1;
  int actlimited = mjcf_resolve_limited(c, n, d.actlimited, d.actrange, "actuator act");
  if (actlimited < 0) return -1;

  int id = mr_spec_add_actuator(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_actuator *a = &c->s->actuators[id];
  if (mjcf_transmission(c, n, a) < 0) return -1;
  a->name = mjcf_name(c, n, "name");
  a->kind = mjcf_actuator_kind(n);
  a->dyntype = d.dyntype;
  a->gaintype = d.gaintype;
  a->biastype = d.biastype;
  a->group = d.group;
  a->cranklength = d.cranklength;
  memcpy(a->gear, d.gear, sizeof a->gear);
  a->ctrllimited = ctrllimited;
  a->forcelimited = forcelimited;
  a->actlimited = actlimited;
  memcpy(a->ctrlrange, d.ctrlrange, sizeof a->ctrlrange);
  memcpy(a->forcerange, d.forcerange, sizeof a->forcerange);
  memcpy(a->actrange, d.actrange, sizeof a->actrange);
  memcpy(a->lengthrange, d.lengthrange, sizeof a->lengthrange);
  memcpy(a->dynprm, d.dynprm, sizeof a->dynprm);
  memcpy(a->gainprm, d.gainprm, sizeof a->gainprm);
  memcpy(a->biasprm, d.biasprm, sizeof a->biasprm);
  return mjcf_note_actuator(c, n, 1);
}

int mjcf_parse_actuator(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    if (mjcf_is_actuator(ch)) {
      if (mjcf_actuator(c, ch) < 0) return -1;
    } else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
      if (mjcf_note_actuator(c, ch, 0) < 0) return -1;
    }
  }
  return 0;
}
