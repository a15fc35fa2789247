/* URDF actuators: <transmission> (ROS 1) and <ros2_control> (ROS 2) say which joints a
 * controller commands and through which interface. Each commanded joint becomes one
 * actuator named after the joint, acting on it with gear 1 (the command is the joint's, as
 * ros_control's joint interfaces give it; a mechanical reduction is the motor side's):
 *   effort   -> a motor (ctrl is the joint force or torque),
 *   position -> a position servo (ctrl is the target position),
 *   velocity -> a velocity servo (ctrl is the target velocity),
 * with the joint's <limit effort> as the force range (and a motor's ctrl range). Servo gains
 * are not in URDF: they are chosen from the mass matrix once the model is compiled
 * (engine/robot/servo.c). Every transmission type is read this way (TALOS's differential
 * transmissions list a joint interface per joint); a joint listing several interfaces gets
 * the first; a joint commanded twice keeps its first actuator; fixed joints have nothing to
 * drive and are skipped.
 */
#include <ctype.h>
#include <string.h>

#include "engine/core/error.h"
#include "urdf.h"
#include "xml.h"

/* The actuator kind an interface name means ("hardware_interface/EffortJointInterface",
 * "PositionJointInterface", ros2_control's "position"...), or -1. */
static int mr_urdf_interface_kind(const char *text) {
  if (!text) return -1;
  char low[128];
  size_t n = 0;
  for (; text[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)text[n]);
  low[n] = 0;
  if (strstr(low, "effort")) return MR_ACT_MOTOR;
  if (strstr(low, "velocity") && !strstr(low, "posvel")) return MR_ACT_VELOCITY;
  if (strstr(low, "position") || strstr(low, "posvel")) return MR_ACT_POSITION;
  return -1;
}

/* The text of an element (its first text child), or NULL. */
static const char *mr_urdf_text(const xmlNode *node) {
  for (const xmlNode *c = node ? node->children : NULL; c; c = c->next)
    if (c->type == XML_TEXT_NODE && c->content) {
      const char *t = (const char *)c->content;
      while (isspace((unsigned char)*t)) t++;
      if (*t) return t;
    }
  return NULL;
}

/* The first <hardwareInterface> child of node with a known kind, or -1. */
static int mr_urdf_hw_kind(const xmlNode *node) {
  for (const xmlNode *c = node ? node->children : NULL; c; c = c->next)
    if (mr_xml_is(c, "hardwareInterface")) {
      int kind = mr_urdf_interface_kind(mr_urdf_text(c));
      if (kind >= 0) return kind;
    }
  return -1;
}

/* One actuator on the URDF joint named name; joints already driven, fixed or unknown, or
 * with several dofs (planar, floating) are skipped. */
static int mr_urdf_drive(mr_urdf *u, const char *name, int kind, const xmlNode *where) {
  if (!name || kind < 0) return 0;
  int j = mr_urdf_find_joint(u, name);
  if (j < 0) {
    mr_warnf(u->s->quiet, mr_urdf_src(u, where), "actuator on unknown joint '%s'; skipped", name);
    return 0;
  }
  int sj = u->joints[j].spec_joint;
  if (sj < 0) return 0;
  const mr_spec_joint *joint = &u->s->joints[sj];
  if (joint->type != MR_JOINT_HINGE && joint->type != MR_JOINT_SLIDE) return 0;
  if (u->joints[j].type == MR_URDF_PLANAR) return 0;
  for (int i = 0; i < u->s->nactuators; i++)
    if (u->s->actuators[i].joint == sj) return 0;
  if (mr_spec_add_servo(u->s, mr_urdf_src(u, where), joint->name, kind, sj, 0, 0,
                        joint->effort) < 0) {
    mr_source src = {u->file, 0};
    return mr_errorf(u->err, u->errlen, src, "out of memory");
  }
  return 0;
}

/* <transmission>: each <joint> with its own interface, or (old style) the <actuator>'s. */
static int mr_urdf_transmission(mr_urdf *u, const xmlNode *t) {
  int fallback = -1;
  for (const xmlNode *c = t->children; c && fallback < 0; c = c->next)
    if (mr_xml_is(c, "actuator")) fallback = mr_urdf_hw_kind(c);
  for (const xmlNode *c = t->children; c; c = c->next) {
    if (!mr_xml_is(c, "joint")) continue;
    int kind = mr_urdf_hw_kind(c);
    if (mr_urdf_drive(u, mr_xml_attr(c, "name"), kind >= 0 ? kind : fallback, c) < 0) return -1;
  }
  return 0;
}

/* <ros2_control>: each <joint> by its first <command_interface name>. */
static int mr_urdf_ros2_control(mr_urdf *u, const xmlNode *r) {
  for (const xmlNode *c = r->children; c; c = c->next) {
    if (!mr_xml_is(c, "joint")) continue;
    int kind = -1;
    for (const xmlNode *i = c->children; i && kind < 0; i = i->next)
      if (mr_xml_is(i, "command_interface"))
        kind = mr_urdf_interface_kind(mr_xml_attr(i, "name"));
    if (mr_urdf_drive(u, mr_xml_attr(c, "name"), kind, c) < 0) return -1;
  }
  return 0;
}

int mr_urdf_actuators(mr_urdf *u) {
  for (const xmlNode *c = u->robot->children; c; c = c->next) {
    int rc = mr_xml_is(c, "transmission")   ? mr_urdf_transmission(u, c)
             : mr_xml_is(c, "ros2_control") ? mr_urdf_ros2_control(u, c)
                                            : 0;
    if (rc < 0) return -1;
  }
  return 0;
}
