/* SRDF <group_state>: a named configuration of some joints, as a keyframe of the same name.
 *
 * Joints the state does not name keep their qpos0. Values follow Pinocchio, whose SRDF
 * reader these files are written for: a hinge or slide takes one number (a continuous joint
 * also accepts Pinocchio's cos, sin pair); a planar joint x, y, angle; a free joint (the
 * floating base, "root_joint" in Pinocchio) x y z qx qy qz qw, which becomes MuJoCo's
 * x y z qw qx qy qz. A state of a floating robot that gives no base pose is marked to be
 * placed with its lowest collision geometry on the floor once the model is compiled (it
 * needs the robot's kinematics: engine/robot/). On a fixed-base robot a base pose is
 * ignored: the base stays where the URDF welds it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/mr_math.h"
#include "urdf.h"
#include "xml.h"

enum { MR_SRDF_MAX_VALUES = 7 };

static int mr_joint_nq_of(int type) {
  return type == MR_JOINT_FREE ? 7 : type == MR_JOINT_BALL ? 4 : 1;
}

/* qpos address of every spec joint, and qpos0 (URDF joints have no reference offset: hinges
 * and slides start at 0, a free joint at its body's pose). Returns nq. */
static int mr_srdf_qpos0(const mr_spec *s, int *adr, double *qpos0) {
  int nq = 0;
  for (int j = 0; j < s->njoints; j++) {
    const mr_spec_joint *sj = &s->joints[j];
    if (adr) adr[j] = nq;
    if (qpos0 && sj->type == MR_JOINT_FREE) {
      const mr_spec_body *b = &s->bodies[sj->body];
      mr_copy3(qpos0 + nq, b->pos);
      memcpy(qpos0 + nq + 3, b->quat, 4 * sizeof(double));
    } else if (qpos0 && sj->type == MR_JOINT_BALL) {
      mr_quat_identity(qpos0 + nq);
    } else if (qpos0) {
      qpos0[nq] = sj->ref;
    }
    nq += mr_joint_nq_of(sj->type);
  }
  return nq;
}

/* The spec joint a state's joint name means: the URDF joint's (the first of a planar's
 * three), or for Pinocchio's "root_joint" the floating base's free joint. -1 if none. */
static int mr_srdf_spec_joint(mr_urdf *u, const char *name, int *free_joint) {
  int j = mr_urdf_find_joint(u, name);
  *free_joint = 0;
  if (j >= 0) {
    const mr_urdf_joint *uj = &u->joints[j];
    if (uj->spec_joint < 0) return -1;
    *free_joint = u->s->joints[uj->spec_joint].type == MR_JOINT_FREE;
    return uj->type == MR_URDF_PLANAR ? uj->spec_joint - 2 : uj->spec_joint;
  }
  for (int k = 0; k < u->s->njoints; k++)
    if (u->s->joints[k].type == MR_JOINT_FREE &&
        (strcmp(name, MR_URDF_ROOT_JOINT) == 0 ||
         (u->s->joints[k].name && strcmp(u->s->joints[k].name, name) == 0))) {
      *free_joint = 1;
      return k;
    }
  return -1;
}

/* Writes a free joint's pose from Pinocchio's x y z qx qy qz qw. */
static int mr_srdf_base_pose(mr_urdf *u, const double *v, double *q, mr_source src) {
  double quat[4] = {v[6], v[3], v[4], v[5]};
  if (!(mr_quat_normalize(quat) > 1e-9))
    return mr_errorf(u->err, u->errlen, src, "group_state: the base quaternion is zero");
  mr_copy3(q, v);
  memcpy(q + 3, quat, sizeof quat);
  return 0;
}

/* One <joint name value> of a state into qpos. 1 if it set a free joint's pose. */
static int mr_srdf_joint_value(mr_urdf *u, const xmlNode *node, const char *file,
                               const int *adr, double *qpos) {
  mr_source src = mr_xml_source(file, node);
  const char *name = mr_xml_attr(node, "name");
  if (!name || !*name)
    return mr_errorf(u->err, u->errlen, src, "group_state: <joint> without a name");
  double v[MR_SRDF_MAX_VALUES];
  int n = mr_xml_doubles(node, "value", v, 1, MR_SRDF_MAX_VALUES, src, u->err, u->errlen);
  if (n < 0) return -1;
  if (n == 0) return mr_errorf(u->err, u->errlen, src, "group_state: joint '%s' without a value", name);
  int is_free, j = mr_srdf_spec_joint(u, name, &is_free);
  if (j < 0) {
    /* A fixed joint has nothing to set; the base pose of a fixed-base robot is the URDF's. */
    int uj = mr_urdf_find_joint(u, name);
    if (uj < 0 && strcmp(name, MR_URDF_ROOT_JOINT) != 0) mr_srdf_unknown(u, name, src);
    return 0;
  }
  int uj = mr_urdf_find_joint(u, name);
  int planar = uj >= 0 && u->joints[uj].type == MR_URDF_PLANAR;
  int continuous = uj >= 0 && u->joints[uj].type == MR_URDF_CONTINUOUS;
  int want = is_free ? 7 : planar ? 3 : 1;
  if (continuous && n == 2) { /* Pinocchio's continuous joints are (cos, sin) */
    v[0] = atan2(v[1], v[0]);
    n = 1;
  }
  if (n != want)
    return mr_errorf(u->err, u->errlen, src, "group_state: joint '%s' takes %d value%s, got %d",
                     name, want, want > 1 ? "s" : "", n);
  if (is_free) return mr_srdf_base_pose(u, v, qpos + adr[j], src) < 0 ? -1 : 1;
  for (int k = 0; k < want; k++) qpos[adr[j + k]] = v[k];
  return 0;
}

int mr_srdf_group_state(mr_urdf *u, const xmlNode *node, const char *file) {
  mr_spec *s = u->s;
  mr_source src = mr_xml_source(file, node);
  const char *name = mr_xml_attr(node, "name");
  if (!name || !*name) return mr_errorf(u->err, u->errlen, src, "<group_state> without a name");
  int nq = mr_srdf_qpos0(s, NULL, NULL);
  int *adr = malloc(sizeof(int) * (size_t)(s->njoints + 1));
  double *qpos = mr_spec_doubles(s, NULL, nq);
  if (!adr || (nq > 0 && !qpos)) {
    free(adr);
    return mr_errorf(u->err, u->errlen, src, "out of memory");
  }
  mr_srdf_qpos0(s, adr, qpos);
  int has_base = 0, rc = 0;
  for (const xmlNode *c = node->children; c && rc >= 0; c = c->next) {
    if (!mr_xml_is(c, "joint")) continue;
    rc = mr_srdf_joint_value(u, c, file, adr, qpos);
    if (rc == 1) has_base = 1;
  }
  free(adr);
  if (rc < 0) return -1;
  int k = mr_spec_add_key(s, src);
  if (k < 0) return mr_errorf(u->err, u->errlen, src, "out of memory");
  mr_spec_key *key = &s->keys[k];
  key->name = mr_spec_strdup(s, name);
  key->qpos = qpos;
  key->nqpos = nq;
  int floating = 0;
  for (int j = 0; j < s->njoints; j++) floating |= s->joints[j].type == MR_JOINT_FREE;
  key->drop_to_floor = floating && !has_base;
  return 0;
}
