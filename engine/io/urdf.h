/* Internal to the URDF front end (engine/urdf*.c, engine/io/srdf.c).
 *
 * The parser works in three steps: collect every <link> and <joint> of the document into the
 * tables below, shape the tree (one root, no cycles, depth-first order, fixed joints merged
 * away), then emit spec bodies, joints, inertials and geoms body by body. A link merged by a
 * fixed joint keeps its frame relative to the body it merged into, so everything attached to
 * it (inertia, geoms, child joints) lands at the right place in that body.
 */
#ifndef MR_URDF_H
#define MR_URDF_H

#include <libxml/tree.h>

#include "spec.h"

/* The URDF default time step: robot models are usually stiff position-controlled arms and
 * legs, for which MuJoCo's 2 ms is on the edge; 1 ms is what ROS simulators use. */
#define MR_URDF_TIMESTEP 0.001

/* boundmass / boundinertia of moving links: a tenth of a gram and the inertia of that mass
 * at 1 cm, far below any real robot link (the lightest in example-robot-data, a finger
 * segment, has 1e-2 kg and moments of 1e-6 kg m^2), yet enough to keep M invertible. */
#define MR_URDF_BOUND_MASS 1e-4
#define MR_URDF_BOUND_INERTIA 1e-8

enum {
  MR_URDF_REVOLUTE = 0,
  MR_URDF_CONTINUOUS,
  MR_URDF_PRISMATIC,
  MR_URDF_FIXED,
  MR_URDF_FLOATING,
  MR_URDF_PLANAR,
  MR_URDF_NJOINTTYPES
};

typedef struct mr_urdf_link {
  const char *name; /* points into the document */
  const xmlNode *node;
  int line;
  int parent_joint; /* -1 at the root */
  int first_child;  /* first joint whose parent is this link (file order), -1 if none */
  int body;         /* spec body: merged links share the body they merged into */
  int next_in_body; /* next link merged into the same body (tree order), -1 at the end */
  double pos[3], quat[4]; /* link frame in its body's frame */
  /* <inertial>, in the link frame: mass, center of mass, full tensor about the com */
  double mass, com[3], inertia[9];
} mr_urdf_link;

typedef struct mr_urdf_joint {
  const char *name;
  const xmlNode *node;
  int line;
  int type;               /* MR_URDF_* */
  int parent, child;      /* link indices */
  int next_sibling;       /* next joint with the same parent link, -1 */
  double pos[3], quat[4]; /* <origin>: child link frame in the parent link frame */
  int spec_joint;         /* first spec joint made from it (the hinge of a planar), -1 */
} mr_urdf_joint;

/* Open-addressing name -> index table (names point into the document). */
typedef struct mr_urdf_names {
  const char **key;
  int *value;
  int cap; /* power of two */
} mr_urdf_names;

typedef struct mr_urdf {
  mr_spec *s;
  const mr_load_options *opt;
  const char *file; /* interned in the spec */
  xmlDoc *doc;
  const xmlNode *robot;
  mr_urdf_link *links;
  int nlink;
  mr_urdf_joint *joints;
  int njoint;
  mr_urdf_names link_names, joint_names;
  int *order; /* links, depth first from the root */
  char *err;
  int errlen;
  int srdf_unknown;            /* SRDF names of links or joints the URDF lacks */
  mr_source srdf_unknown_src;  /* the first of them */
  char srdf_unknown_names[256];
} mr_urdf;

/* urdf.c */
mr_source mr_urdf_src(const mr_urdf *u, const xmlNode *node);
const xmlNode *mr_urdf_child(const xmlNode *node, const char *name);
int mr_urdf_find_link(const mr_urdf *u, const char *name);
int mr_urdf_find_joint(const mr_urdf *u, const char *name);
/* <origin xyz rpy> child of node (identity when absent). 0 or -1 with err set. */
int mr_urdf_origin(mr_urdf *u, const xmlNode *node, double pos[3], double quat[4]);

/* urdf_inertia.c */
int mr_urdf_link_inertial(mr_urdf *u, int link);   /* reads <inertial> into the link */
/* Combines merged links; a moving body is bounded (MR_URDF_BOUND_*). 0, or -1 with err set
 * (--strict). */
int mr_urdf_body_inertial(mr_urdf *u, int head, int body, int moving);

/* urdf_geom.c */
int mr_urdf_materials(mr_urdf *u);                 /* robot-level <material> */
int mr_urdf_link_geoms(mr_urdf *u, int link, int body);

/* urdf_actuator.c: <transmission> and <ros2_control> as actuators. 0 or -1 (err set). */
int mr_urdf_actuators(mr_urdf *u);

/* urdf.c: a contact exclusion between two bodies (once per pair). 0, or -1 (out of memory). */
int mr_urdf_exclude(mr_urdf *u, int body1, int body2, mr_source src);

/* The name Pinocchio gives the free joint of a floating base, and that SRDF group states
 * use for the base pose; --floating names its free joint so. */
#define MR_URDF_ROOT_JOINT "root_joint"

/* urdf_mimic.c: -1 (err set) if mimic joints mimic each other around a loop. */
int mr_urdf_check_mimic_cycles(mr_urdf *u);

/* srdf.c: applies the robot's SRDF, if any: <disable_collisions> and <group_state>. */
int mr_srdf_apply(mr_urdf *u);
/* Notes an SRDF name the URDF lacks (reported once, with the others, at the end). */
void mr_srdf_unknown(mr_urdf *u, const char *name, mr_source src);

/* srdf_state.c: one <group_state> as a keyframe of the same name. 0 or -1 (err set). */
int mr_srdf_group_state(mr_urdf *u, const xmlNode *node, const char *file);

#endif
