/* <actuator>: motor, position, velocity and general actuators on joints. Other kinds and
 * other transmissions are outside the subset: they are skipped with a warning, and the
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

/* Actuators driving a tendon, site, body...: one warning for all of them, at the end. */
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
static int mjcf_resolve_limited(mjcf_ctx *c, const xmlNode *n, int limited, const double r[2],
                                const char *what) {
  int has_range = r[0] != 0 || r[1] != 0;
  if (limited == 2) {
    if (!c->autolimits && has_range)
      return mjcf_fail(c, n,
                       "actuator has %srange but not %slimited: set compiler "
                       "autolimits=\"true\" or %slimited explicitly",
                       what, what, what);
    limited = c->autolimits && has_range;
  }
  if (limited && r[0] >= r[1])
    return mjcf_fail(c, n, "actuator %srange: the lower bound must be smaller than the upper",
                     what);
  return limited;
}

static int mjcf_actuator(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_actuator_def d = c->classes[k].actuator;
  if (mjcf_actuator_apply(c, &d, n) < 0) return -1;
  static const char *const others[] = {"tendon",       "site", "cranksite", "slidersite",
                                       "jointinparent", "body", NULL};
  const char *joint = mr_xml_attr(n, "joint");
  int other = 0;
  for (int i = 0; others[i]; i++)
    if (mr_xml_attr(n, others[i])) other = 1;
  if (other) {
    mjcf_skip_transmission(c, n);
    return mjcf_note_actuator(c, n, 0);
  }
  if (!joint) return mjcf_fail(c, n, "actuator needs a joint attribute");
  if (d.gaintype != 0 || d.biastype > 1 || d.dyntype != 0) {
    mjcf_warn_once(c, n, "general actuator with gaintype/biastype/dyntype other than fixed/affine/none");
    return mjcf_note_actuator(c, n, 0);
  }
  int jid = mr_spec_find_joint(c->s, joint);
  if (jid < 0) return mjcf_fail(c, n, "unknown joint '%.80s'", joint);
  int ctrllimited = mjcf_resolve_limited(c, n, d.ctrllimited, d.ctrlrange, "ctrl");
  if (ctrllimited < 0) return -1;
  int forcelimited = mjcf_resolve_limited(c, n, d.forcelimited, d.forcerange, "force");
  if (forcelimited < 0) return -1;

  int id = mr_spec_add_actuator(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_actuator *a = &c->s->actuators[id];
  a->name = mjcf_name(c, n, "name");
  a->kind = mr_xml_is(n, "motor")      ? MR_ACT_MOTOR
            : mr_xml_is(n, "position") ? MR_ACT_POSITION
            : mr_xml_is(n, "velocity") ? MR_ACT_VELOCITY
                                       : MR_ACT_GENERAL;
  a->joint = jid;
  a->gear = d.gear[0];
  a->ctrllimited = ctrllimited;
  a->forcelimited = forcelimited;
  memcpy(a->ctrlrange, d.ctrlrange, sizeof a->ctrlrange);
  memcpy(a->forcerange, d.forcerange, sizeof a->forcerange);
  memcpy(a->gainprm, d.gainprm, sizeof a->gainprm);
  /* biastype none: MuJoCo keeps biasprm but never uses it; the spec has no biastype */
  if (d.biastype == 1)
    memcpy(a->biasprm, d.biasprm, sizeof a->biasprm);
  else
    memset(a->biasprm, 0, sizeof a->biasprm);
  return mjcf_note_actuator(c, n, 1);
}

int mjcf_parse_actuator(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    if (mr_xml_is(ch, "motor") || mr_xml_is(ch, "position") || mr_xml_is(ch, "velocity") ||
        mr_xml_is(ch, "general")) {
      if (mjcf_actuator(c, ch) < 0) return -1;
    } else {
      mjcf_warn_once(c, ch, (const char *)ch->name);
      if (mjcf_note_actuator(c, ch, 0) < 0) return -1;
    }
  }
  return 0;
}
