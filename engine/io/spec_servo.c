/* Joint servos written into a spec: URDF transmissions and ros2_control interfaces
 * (urdf_actuator.c) and --hold make the same three kinds of actuator, MuJoCo's motor,
 * position and velocity: force = gain * ctrl + bias0 + bias1 * q + bias2 * qdot. A position
 * servo is MuJoCo 2.2's position actuator, force = kp (ctrl - q), plus joint damping kd. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "spec.h"

int mr_spec_add_servo(mr_spec *s, mr_source src, const char *name, int kind, int joint,
                      double kp, double kd, double effort) {
  int i = mr_spec_add_actuator(s, src);
  if (i < 0) return -1;
  mr_spec_actuator *a = &s->actuators[i];
  a->name = name ? mr_spec_strdup(s, name) : NULL;
  a->kind = kind;
  a->joint = joint;
  memset(a->gear, 0, sizeof a->gear);
  a->gear[0] = 1;
  a->gaintype = MR_GAIN_FIXED;
  a->biastype = kind == MR_ACT_MOTOR ? MR_BIAS_NONE : MR_BIAS_AFFINE;
  memset(a->gainprm, 0, sizeof a->gainprm);
  memset(a->biasprm, 0, sizeof a->biasprm);
  if (kind == MR_ACT_POSITION) {
    /* The servo's damping is the joint's: the integrators treat joint damping implicitly,
     * which keeps a servo stiff enough to carry a robot stable on a light link too. */
    a->gainprm[0] = kp;
    a->biasprm[1] = -kp;
    s->joints[joint].damping += kd;
    a->auto_gains = kp == 0 && kd == 0;
  } else if (kind == MR_ACT_VELOCITY) {
    a->gainprm[0] = kd;
    a->biasprm[2] = -kd;
    a->auto_gains = kd == 0;
  } else {
    a->gainprm[0] = 1;
  }
  if (effort > 0) {
    a->forcelimited = 1;
    a->forcerange[0] = -effort;
    a->forcerange[1] = effort;
    if (kind == MR_ACT_MOTOR) {
      a->ctrllimited = 1;
      a->ctrlrange[0] = -effort;
      a->ctrlrange[1] = effort;
    }
  }
  return i;
}

/* The largest force an actuator may put on joint j: the joint's effort limit, else the
 * force range of an actuator already on it (a motor's ctrl range times its gear), else 0. */
static double mr_spec_joint_effort(const mr_spec *s, int j) {
  if (s->joints[j].effort > 0) return s->joints[j].effort;
  for (int i = 0; i < s->nactuators; i++) {
    const mr_spec_actuator *a = &s->actuators[i];
    if (a->trntype != MR_TRN_JOINT || a->joint != j) continue;
    if (a->forcelimited) return fmax(fabs(a->forcerange[0]), fabs(a->forcerange[1]));
    if (a->kind == MR_ACT_MOTOR && a->ctrllimited)
      return fabs(a->gear[0]) * fmax(fabs(a->ctrlrange[0]), fabs(a->ctrlrange[1]));
  }
  return 0;
}

int mr_spec_hold(mr_spec *s, double kp, double kd, char *err, int errlen) {
  mr_source src = {s->file, 0};
  double *effort = malloc(sizeof(double) * (size_t)(s->njoints + 1));
  if (!effort) return mr_errorf(err, errlen, src, "out of memory");
  for (int j = 0; j < s->njoints; j++) effort[j] = mr_spec_joint_effort(s, j);
  s->nactuators = 0; /* the servos replace whatever drove the joints before */
  for (int k = 0; k < s->nkeys; k++) { /* keyframe controls were the old actuators' */
    s->keys[k].ctrl = NULL;
    s->keys[k].nctrl = 0;
  }
  for (int j = 0; j < s->njoints; j++) {
    const mr_spec_joint *sj = &s->joints[j];
    if (sj->type != MR_JOINT_HINGE && sj->type != MR_JOINT_SLIDE) continue;
    if (mr_spec_add_servo(s, sj->src, sj->name, MR_ACT_POSITION, j, kp, kd, effort[j]) < 0) {
      free(effort);
      return mr_errorf(err, errlen, src, "out of memory");
    }
  }
  free(effort);
  return 0;
}
