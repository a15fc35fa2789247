/* URDF front end: reads a ROS URDF robot into the spec (see urdf.h for the three steps).
 *
 * Conventions chosen here (documented for users in the README):
 *  - Fixed base by default: the root link is a body welded to the world (it stays a body,
 *    so nbody = 1 (world) + links not merged by fixed joints); mr_load_options.floating gives
 *    it a free joint instead.
 *  - A link attached by a fixed joint is merged into its parent's body, as MuJoCo does.
 *  - Bodies come in depth-first order from the root, children in file order; a body's
 *    joints and geoms follow it. Joint coordinates therefore follow the tree, not the file.
 *  - Geoms never contribute inertia (URDF states it explicitly): collisions are group 0 and
 *    collide; visuals are group 1 and do not. The time step is MR_URDF_TIMESTEP (1 ms).
 *  - planar joints become two slides spanning the plane and a hinge about its normal
 *    (named NAME_t1, NAME_t2, NAME); floating joints become free joints; a floating joint
 *    hanging from the fixed-base root (the "world" link idiom) is attached to the world.
 *  - <mimic> becomes a joint equality q = offset + multiplier * q_mimicked; mimics that
 *    involve fixed joints are ignored with a warning.
 *  - Inertias that are no rigid body's are repaired and moving links bounded away from zero
 *    mass (urdf_inertia.c), with a warning (an error under --strict); a robot without links
 *    is an empty world, with a warning; <gazebo> and unknown elements are ignored.
 *  - Joint limits are required for revolute and prismatic joints (as ROS's parser does);
 *    the effort limit bounds the force of the joint's actuators; velocity limits are not
 *    used. <transmission> and <ros2_control> make actuators (urdf_actuator.c).
 */
#include "urdf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/mr_math.h"
#include "xml.h"

static const char *const mr_urdf_joint_types[] = {"revolute", "continuous", "prismatic",
                                                  "fixed",    "floating",   "planar", NULL};

/* ------------------------------------------------------------------ small helpers */

mr_source mr_urdf_src(const mr_urdf *u, const xmlNode *node) {
  return mr_xml_source(u->file, node);
}

const xmlNode *mr_urdf_child(const xmlNode *node, const char *name) {
  for (const xmlNode *c = node ? node->children : NULL; c; c = c->next)
    if (mr_xml_is(c, name)) return c;
  return NULL;
}

static int mr_urdf_oom(mr_urdf *u) {
  mr_source src = {u->file, 1};
  return mr_errorf(u->err, u->errlen, src, "out of memory");
}

/* ------------------------------------------------------------------ name tables */

static uint32_t mr_name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int mr_names_init(mr_urdf_names *t, int n) {
  int cap = 16;
  while (cap < 2 * n + 1) cap *= 2;
  t->key = calloc((size_t)cap, sizeof *t->key);
  t->value = calloc((size_t)cap, sizeof *t->value);
  t->cap = cap;
  return t->key && t->value ? 0 : -1;
}

static void mr_names_free(mr_urdf_names *t) {
  free(t->key);
  free(t->value);
}

static int mr_names_get(const mr_urdf_names *t, const char *name) {
  if (!name || !t->cap) return -1;
  for (uint32_t i = mr_name_hash(name) & (uint32_t)(t->cap - 1);; i = (i + 1) & (uint32_t)(t->cap - 1)) {
    if (!t->key[i]) return -1;
    if (strcmp(t->key[i], name) == 0) return t->value[i];
  }
}

/* Inserts name -> value; returns the index already stored under name, or -1. */
static int mr_names_put(mr_urdf_names *t, const char *name, int value) {
  for (uint32_t i = mr_name_hash(name) & (uint32_t)(t->cap - 1);; i = (i + 1) & (uint32_t)(t->cap - 1)) {
    if (!t->key[i]) {
      t->key[i] = name;
      t->value[i] = value;
      return -1;
    }
    if (strcmp(t->key[i], name) == 0) return t->value[i];
  }
}

int mr_urdf_find_link(const mr_urdf *u, const char *name) {
  return mr_names_get(&u->link_names, name);
}

int mr_urdf_find_joint(const mr_urdf *u, const char *name) {
  return mr_names_get(&u->joint_names, name);
}

int mr_urdf_origin(mr_urdf *u, const xmlNode *node, double pos[3], double quat[4]) {
  mr_zero3(pos);
  mr_quat_identity(quat);
  const xmlNode *o = mr_urdf_child(node, "origin");
  if (!o) return 0;
  mr_source src = mr_urdf_src(u, o);
  double rpy[3] = {0, 0, 0};
  if (mr_xml_doubles(o, "xyz", pos, 3, 3, src, u->err, u->errlen) < 0) return -1;
  if (mr_xml_doubles(o, "rpy", rpy, 3, 3, src, u->err, u->errlen) < 0) return -1;
  mr_rpy_to_quat(quat, rpy[0], rpy[1], rpy[2]);
  return 0;
}

/* ------------------------------------------------------------------ step 1: collect */

static int mr_urdf_count(mr_urdf *u) {
  for (const xmlNode *c = u->robot->children; c; c = c->next) {
    if (mr_xml_is(c, "link")) u->nlink++;
    if (mr_xml_is(c, "joint")) u->njoint++;
  }
  /* At least one element each, so that an empty robot is not mistaken for out of memory. */
  u->links = calloc((size_t)u->nlink + 1, sizeof *u->links);
  u->joints = calloc((size_t)u->njoint + 1, sizeof *u->joints);
  u->order = calloc((size_t)u->nlink + 1, sizeof *u->order);
  if (!u->links || !u->joints || !u->order) return mr_urdf_oom(u);
  if (mr_names_init(&u->link_names, u->nlink) || mr_names_init(&u->joint_names, u->njoint))
    return mr_urdf_oom(u);
  return 0;
}

static int mr_urdf_collect_link(mr_urdf *u, const xmlNode *node, int i) {
  mr_urdf_link *l = &u->links[i];
  mr_source src = mr_urdf_src(u, node);
  l->node = node;
  l->line = src.line;
  l->name = mr_xml_attr(node, "name");
  l->parent_joint = -1;
  l->first_child = -1;
  l->next_in_body = -1;
  mr_quat_identity(l->quat);
  if (!l->name || !*l->name) return mr_errorf(u->err, u->errlen, src, "<link> without a name");
  int dup = mr_names_put(&u->link_names, l->name, i);
  if (dup >= 0)
    return mr_errorf(u->err, u->errlen, src, "duplicate link name '%s' (first at line %d)",
                     l->name, u->links[dup].line);
  return mr_urdf_link_inertial(u, i);
}

/* <parent link="..."/> or <child link="..."/> of a joint: the link index or -1 (err set). */
static int mr_urdf_joint_link(mr_urdf *u, const mr_urdf_joint *j, const char *which) {
  mr_source src = mr_urdf_src(u, j->node);
  const xmlNode *e = mr_urdf_child(j->node, which);
  const char *name = e ? mr_xml_attr(e, "link") : NULL;
  if (!name || !*name)
    return mr_errorf(u->err, u->errlen, src, "joint '%s': missing <%s link=\"...\"/>", j->name,
                     which);
  int l = mr_urdf_find_link(u, name);
  if (l < 0)
    return mr_errorf(u->err, u->errlen, src, "joint '%s': unknown %s link '%s'", j->name, which,
                     name);
  return l;
}

static int mr_urdf_joint_type(mr_urdf *u, mr_urdf_joint *j) {
  mr_source src = mr_urdf_src(u, j->node);
  const char *type = mr_xml_attr(j->node, "type");
  if (!type)
    return mr_errorf(u->err, u->errlen, src, "joint '%s': missing attribute 'type'", j->name);
  for (int t = 0; mr_urdf_joint_types[t]; t++)
    if (strcmp(type, mr_urdf_joint_types[t]) == 0) return j->type = t;
  return mr_errorf(u->err, u->errlen, src,
                   "joint '%s': unknown joint type '%.40s' (expected revolute, continuous, "
                   "prismatic, fixed, floating or planar)",
                   j->name, type);
}

static int mr_urdf_collect_joint(mr_urdf *u, const xmlNode *node, int i) {
  mr_urdf_joint *j = &u->joints[i];
  mr_source src = mr_urdf_src(u, node);
  j->node = node;
  j->line = src.line;
  j->name = mr_xml_attr(node, "name");
  j->spec_joint = -1;
  j->next_sibling = -1;
  if (!j->name || !*j->name) return mr_errorf(u->err, u->errlen, src, "<joint> without a name");
  int dup = mr_names_put(&u->joint_names, j->name, i);
  if (dup >= 0)
    return mr_errorf(u->err, u->errlen, src, "duplicate joint name '%s' (first at line %d)",
                     j->name, u->joints[dup].line);
  if (mr_urdf_joint_type(u, j) < 0) return -1;
  if ((j->parent = mr_urdf_joint_link(u, j, "parent")) < 0) return -1;
  if ((j->child = mr_urdf_joint_link(u, j, "child")) < 0) return -1;
  mr_urdf_link *child = &u->links[j->child];
  if (j->parent == j->child)
    return mr_errorf(u->err, u->errlen, src, "joint cycle: link '%s' is its own parent (joint '%s')",
                     child->name, j->name);
  if (child->parent_joint >= 0)
    return mr_errorf(u->err, u->errlen, src,
                     "joint cycle: link '%s' is the child of two joints ('%s' and '%s')",
                     child->name, u->joints[child->parent_joint].name, j->name);
  child->parent_joint = i;
  return mr_urdf_origin(u, node, j->pos, j->quat);
}

static int mr_urdf_collect(mr_urdf *u) {
  if (mr_urdf_count(u) < 0) return -1;
  int nl = 0, nj = 0;
  for (const xmlNode *c = u->robot->children; c; c = c->next)
    if (mr_xml_is(c, "link") && mr_urdf_collect_link(u, c, nl++) < 0) return -1;
  for (const xmlNode *c = u->robot->children; c; c = c->next)
    if (mr_xml_is(c, "joint") && mr_urdf_collect_joint(u, c, nj++) < 0) return -1;
  /* Children lists in file order: prepend while walking the joints backwards. */
  for (int j = u->njoint - 1; j >= 0; j--) {
    mr_urdf_link *p = &u->links[u->joints[j].parent];
    u->joints[j].next_sibling = p->first_child;
    p->first_child = j;
  }
  return 0;
}

/* ------------------------------------------------------------------ step 2: the tree */

/* Every link has at most one parent here, so following parents from a link not reachable
 * from the root must enter a cycle within nlink steps; the link reached then lies on it. */
static int mr_urdf_cycle_error(mr_urdf *u, int start) {
  int l = start;
  for (int k = 0; k < u->nlink && u->links[l].parent_joint >= 0; k++)
    l = u->joints[u->links[l].parent_joint].parent;
  const mr_urdf_link *link = &u->links[l];
  mr_source src = {u->file, link->line};
  return mr_errorf(u->err, u->errlen, src, "joint cycle through link '%s'", link->name);
}

static int mr_urdf_find_root(mr_urdf *u) {
  int root = -1, second = -1, nroot = 0;
  for (int l = 0; l < u->nlink; l++) {
    if (u->links[l].parent_joint >= 0) continue;
    if (nroot == 0) root = l;
    if (nroot == 1) second = l;
    nroot++;
  }
  if (nroot == 0) return mr_urdf_cycle_error(u, 0);
  if (nroot > 1) {
    mr_source src = {u->file, u->links[second].line};
    if (nroot == 2)
      return mr_errorf(u->err, u->errlen, src, "two root links: '%s' and '%s'",
                       u->links[root].name, u->links[second].name);
    return mr_errorf(u->err, u->errlen, src, "%d root links: '%s', '%s', ...", nroot,
                     u->links[root].name, u->links[second].name);
  }
  return root;
}

/* Depth-first order from the root, children in file order, with an explicit stack so that
 * a deep chain in a hostile file cannot overflow the C stack. */
static int mr_urdf_order(mr_urdf *u, int root) {
  int *stack = malloc((size_t)u->nlink * sizeof *stack);
  int *next = malloc((size_t)u->nlink * sizeof *next);
  if (!stack || !next) {
    free(stack);
    free(next);
    return mr_urdf_oom(u);
  }
  int n = 0, sp = 0;
  u->order[n++] = root;
  stack[sp++] = root;
  next[root] = u->links[root].first_child;
  while (sp > 0) {
    int l = stack[sp - 1];
    int j = next[l];
    if (j < 0) {
      sp--;
      continue;
    }
    next[l] = u->joints[j].next_sibling;
    int c = u->joints[j].child;
    u->order[n++] = c;
    stack[sp++] = c;
    next[c] = u->links[c].first_child;
  }
  free(stack);
  free(next);
  if (n == u->nlink) return 0;
  char *seen = calloc((size_t)u->nlink, 1);
  if (!seen) return mr_urdf_oom(u);
  for (int k = 0; k < n; k++) seen[u->order[k]] = 1;
  int start = 0;
  while (seen[start]) start++;
  free(seen);
  return mr_urdf_cycle_error(u, start);
}

/* A root link named "world" is the world itself (body 0), as in Gazebo, Drake and
 * Pinocchio, rather than a second body of that name welded to it. */
static int mr_urdf_root_is_world(const mr_urdf *u) {
  return u->nlink > 0 && strcmp(u->links[u->order[0]].name, "world") == 0;
}

/* 1 if the link heads a body of its own: the root, a link below a moving joint, and a link
 * fixed to the world link (it stays a body welded to the world, as a fixed-base root does,
 * so that --floating can give it the free joint). */
static int mr_urdf_heads_body(const mr_urdf *u, int link) {
  const mr_urdf_link *l = &u->links[link];
  if (l->parent_joint < 0) return 1;
  const mr_urdf_joint *j = &u->joints[l->parent_joint];
  return j->type != MR_URDF_FIXED || (mr_urdf_root_is_world(u) && j->parent == u->order[0]);
}

/* Assigns every link its body: a new one, or its parent's when the joint is fixed. Bodies
 * are numbered in the order their first link is met, which keeps parents before children. */
static void mr_urdf_assign_bodies(mr_urdf *u, int *tail) {
  int next_body = u->s->nbodies;
  for (int k = 0; k < u->nlink; k++) {
    mr_urdf_link *l = &u->links[u->order[k]];
    const mr_urdf_joint *j = l->parent_joint >= 0 ? &u->joints[l->parent_joint] : NULL;
    if (k == 0 && mr_urdf_root_is_world(u)) {
      l->body = 0;
      mr_zero3(l->pos);
      mr_quat_identity(l->quat);
    } else if (j && !mr_urdf_heads_body(u, u->order[k])) {
      const mr_urdf_link *p = &u->links[j->parent];
      l->body = p->body;
      mr_frame_mul(l->pos, l->quat, p->pos, p->quat, j->pos, j->quat);
      u->links[tail[l->body]].next_in_body = u->order[k];
    } else {
      l->body = next_body++;
      mr_zero3(l->pos);
      mr_quat_identity(l->quat);
    }
    tail[l->body] = u->order[k];
  }
}

/* ------------------------------------------------------------------ step 3: emit */

static int mr_urdf_add_joint(mr_urdf *u, int body, const mr_urdf_joint *j, int type,
                             const char *suffix) {
  mr_source src = {u->file, j ? j->line : u->links[u->order[0]].line};
  int i = mr_spec_add_joint(u->s, body, src);
  if (i < 0) return mr_urdf_oom(u);
  mr_spec_joint *sj = &u->s->joints[i];
  sj->type = type;
  if (j && suffix) {
    char name[512];
    snprintf(name, sizeof name, "%s%s", j->name, suffix);
    sj->name = mr_spec_strdup(u->s, name);
  } else if (j) {
    sj->name = mr_spec_strdup(u->s, j->name);
  } else {
    sj->name = mr_spec_strdup(u->s, MR_URDF_ROOT_JOINT);
  }
  return i;
}

/* Axis, limits and dynamics shared by the 1-dof joints. */
static int mr_urdf_joint_params(mr_urdf *u, const mr_urdf_joint *j, double axis[3],
                                mr_spec_joint *sj) {
  const xmlNode *a = mr_urdf_child(j->node, "axis");
  axis[0] = 1;
  axis[1] = axis[2] = 0;
  if (a && mr_xml_doubles(a, "xyz", axis, 3, 3, mr_urdf_src(u, a), u->err, u->errlen) < 0)
    return -1;
  if (mr_normalize3(axis) < 1e-12)
    return mr_errorf(u->err, u->errlen, mr_urdf_src(u, a), "joint '%s': zero axis", j->name);
  const xmlNode *d = mr_urdf_child(j->node, "dynamics");
  mr_source dsrc = mr_urdf_src(u, d);
  if (d && (mr_xml_doubles(d, "damping", &sj->damping, 1, 1, dsrc, u->err, u->errlen) < 0 ||
            mr_xml_doubles(d, "friction", &sj->frictionloss, 1, 1, dsrc, u->err, u->errlen) < 0))
    return -1;
  const xmlNode *lim = mr_urdf_child(j->node, "limit");
  if (lim && mr_xml_doubles(lim, "effort", &sj->effort, 1, 1, mr_urdf_src(u, lim), u->err,
                            u->errlen) < 0)
    return -1;
  if (sj->effort < 0) sj->effort = 0;
  if (j->type != MR_URDF_REVOLUTE && j->type != MR_URDF_PRISMATIC) return 0;
  if (!lim)
    return mr_errorf(u->err, u->errlen, mr_urdf_src(u, j->node),
                     "joint '%s': a %s joint needs <limit lower upper>", j->name,
                     mr_urdf_joint_types[j->type]);
  mr_source lsrc = mr_urdf_src(u, lim);
  sj->limited = 1;
  if (mr_xml_doubles(lim, "lower", &sj->range[0], 1, 1, lsrc, u->err, u->errlen) < 0 ||
      mr_xml_doubles(lim, "upper", &sj->range[1], 1, 1, lsrc, u->err, u->errlen) < 0)
    return -1;
  return 0;
}

static int mr_urdf_one_dof(mr_urdf *u, int body, mr_urdf_joint *j, int type) {
  int i = mr_urdf_add_joint(u, body, j, type, NULL);
  if (i < 0) return -1;
  double axis[3];
  if (mr_urdf_joint_params(u, j, axis, &u->s->joints[i]) < 0) return -1;
  mr_copy3(u->s->joints[i].axis, axis);
  j->spec_joint = i;
  return 0;
}

/* planar: slides along two directions spanning the plane whose normal is <axis>, then a
 * hinge about the normal. The hinge carries the joint's own name (and its mimic, if any). */
static int mr_urdf_planar(mr_urdf *u, int body, mr_urdf_joint *j) {
  mr_spec_joint params = {0};
  double n[3], t1[3], t2[3];
  if (mr_urdf_joint_params(u, j, n, &params) < 0) return -1;
  /* t1: x projected on the plane (y if the normal is near x), so that a z normal gives the
   * familiar x, y slides; t2 completes a right-handed (t1, t2, n). */
  double e[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.9) e[0] = 0, e[1] = 1;
  mr_copy3(t1, e);
  mr_addscl3(t1, n, -mr_dot3(e, n));
  mr_normalize3(t1);
  mr_cross3(t2, n, t1);
  const double *axes[3] = {t1, t2, n};
  const char *suffix[3] = {"_t1", "_t2", NULL};
  for (int k = 0; k < 3; k++) {
    int i = mr_urdf_add_joint(u, body, j, k < 2 ? MR_JOINT_SLIDE : MR_JOINT_HINGE, suffix[k]);
    if (i < 0) return -1;
    mr_spec_joint *sj = &u->s->joints[i];
    mr_copy3(sj->axis, axes[k]);
    sj->damping = params.damping;
    sj->frictionloss = params.frictionloss;
    j->spec_joint = i;
  }
  return 0;
}

static int mr_urdf_body_joints(mr_urdf *u, int link, int body) {
  const mr_urdf_link *l = &u->links[link];
  mr_urdf_joint *j = l->parent_joint >= 0 ? &u->joints[l->parent_joint] : NULL;
  if (!j || j->type == MR_URDF_FIXED) { /* the root, or a link fixed to the world link */
    if (!u->opt->floating) return 0;
    int i = mr_urdf_add_joint(u, body, j, MR_JOINT_FREE, NULL);
    if (j) j->spec_joint = i;
    return i < 0 ? -1 : 0;
  }
  switch (j->type) {
    case MR_URDF_REVOLUTE:
    case MR_URDF_CONTINUOUS:
      return mr_urdf_one_dof(u, body, j, MR_JOINT_HINGE);
    case MR_URDF_PRISMATIC:
      return mr_urdf_one_dof(u, body, j, MR_JOINT_SLIDE);
    case MR_URDF_FLOATING:
      j->spec_joint = mr_urdf_add_joint(u, body, j, MR_JOINT_FREE, NULL);
      return j->spec_joint < 0 ? -1 : 0;
    case MR_URDF_PLANAR:
      return mr_urdf_planar(u, body, j);
    default:
      return 0;
  }
}

/* One spec body for the link that heads it, with its joints, inertial and geoms. */
static int mr_urdf_emit_body(mr_urdf *u, int head) {
  const mr_urdf_link *l = &u->links[head];
  mr_source src = {u->file, l->line};
  int parent = 0;
  double pos[3] = {0, 0, 0}, quat[4] = {1, 0, 0, 0};
  if (l->parent_joint >= 0) {
    const mr_urdf_joint *j = &u->joints[l->parent_joint];
    const mr_urdf_link *p = &u->links[j->parent];
    parent = p->body;
    mr_frame_mul(pos, quat, p->pos, p->quat, j->pos, j->quat);
    /* The usual "world" link -> floating joint -> base: a free joint must hang from the
     * world, and the fixed-base root sits at the world origin, so moving the body up is
     * exact. */
    if (j->type == MR_URDF_FLOATING && !u->opt->floating && parent == u->links[u->order[0]].body)
      parent = 0;
  }
  int b = mr_spec_add_body(u->s, parent, src);
  if (b < 0) return mr_urdf_oom(u);
  if (b != l->body)
    return mr_errorf(u->err, u->errlen, src, "internal error: body order mismatch");
  mr_spec_body *sb = &u->s->bodies[b];
  sb->name = mr_spec_strdup(u->s, l->name);
  mr_copy3(sb->pos, pos);
  memcpy(sb->quat, quat, sizeof quat);
  int njoint = u->s->njoints;
  if (mr_urdf_body_joints(u, head, b) < 0) return -1;
  if (mr_urdf_body_inertial(u, head, b, u->s->njoints > njoint) < 0) return -1;
  for (int k = head; k >= 0; k = u->links[k].next_in_body)
    if (mr_urdf_link_geoms(u, k, b) < 0) return -1;
  return 0;
}

/* The world link and the links merged into it: their geoms belong to the world body; their
 * mass, if any, moves nothing and is dropped. */
static int mr_urdf_world_link(mr_urdf *u, int head) {
  for (int k = head; k >= 0; k = u->links[k].next_in_body)
    if (mr_urdf_link_geoms(u, k, 0) < 0) return -1;
  return 0;
}

int mr_urdf_exclude(mr_urdf *u, int body1, int body2, mr_source src) {
  int lo = body1 < body2 ? body1 : body2, hi = body1 < body2 ? body2 : body1;
  for (int i = 0; i < u->s->nexcludes; i++)
    if (u->s->excludes[i].body1 == lo && u->s->excludes[i].body2 == hi) return 0;
  int e = mr_spec_add_exclude(u->s, src);
  if (e < 0) return mr_urdf_oom(u);
  u->s->excludes[e].body1 = lo;
  u->s->excludes[e].body2 = hi;
  return 0;
}

/* <mimic joint multiplier offset>: q_this = offset + multiplier * q_other. */
static int mr_urdf_mimics(mr_urdf *u) {
  if (mr_urdf_check_mimic_cycles(u) < 0) return -1;
  int nfixed = 0;
  mr_source first_fixed = {u->file, 0};
  const char *first_name = "";
  for (int i = 0; i < u->njoint; i++) {
    const mr_urdf_joint *j = &u->joints[i];
    const xmlNode *m = mr_urdf_child(j->node, "mimic");
    if (!m) continue;
    mr_source src = mr_urdf_src(u, m);
    const char *other = mr_xml_attr(m, "joint");
    if (!other || !*other)
      return mr_errorf(u->err, u->errlen, src, "joint '%s': <mimic> without 'joint'", j->name);
    int o = mr_urdf_find_joint(u, other);
    if (o < 0)
      return mr_errorf(u->err, u->errlen, src, "joint '%s': mimics unknown joint '%s'", j->name,
                       other);
    if (o == i)
      return mr_errorf(u->err, u->errlen, src, "joint '%s' mimics itself", j->name);
    const mr_urdf_joint *oj = &u->joints[o];
    if (j->type == MR_URDF_FIXED || oj->type == MR_URDF_FIXED) {
      /* A fixed joint has no coordinate to couple: the reduced TALOS models fix the gripper
       * joints and keep their mimics. One warning for all of them. */
      if (nfixed++ == 0) first_fixed = src, first_name = j->name;
      continue;
    }
    int one_dof = (1 << MR_URDF_REVOLUTE) | (1 << MR_URDF_CONTINUOUS) | (1 << MR_URDF_PRISMATIC);
    if (!(one_dof >> j->type & 1) || !(one_dof >> oj->type & 1))
      return mr_errorf(u->err, u->errlen, src,
                       "joint '%s': mimic is supported between 1-dof joints only ('%s' is %s)",
                       j->name, (one_dof >> j->type & 1) ? oj->name : j->name,
                       mr_urdf_joint_types[(one_dof >> j->type & 1) ? oj->type : j->type]);
    double mult = 1, offset = 0;
    if (mr_xml_doubles(m, "multiplier", &mult, 1, 1, src, u->err, u->errlen) < 0 ||
        mr_xml_doubles(m, "offset", &offset, 1, 1, src, u->err, u->errlen) < 0)
      return -1;
    int e = mr_spec_add_equality(u->s, src);
    if (e < 0) return mr_urdf_oom(u);
    mr_spec_equality *eq = &u->s->equalities[e];
    eq->type = MR_EQ_JOINT;
    eq->obj1 = j->spec_joint;
    eq->obj2 = oj->spec_joint;
    eq->data[0] = offset;
    eq->data[1] = mult;
  }
  if (nfixed)
    mr_warnf(u->s->quiet, first_fixed, "%d mimic%s involving a fixed joint ignored (joint '%s'%s)",
             nfixed, nfixed > 1 ? "s" : "", first_name, nfixed > 1 ? " and others" : "");
  return 0;
}

static int mr_urdf_build(mr_urdf *u) {
  if (mr_urdf_collect(u) < 0) return -1;
  if (u->nlink == 0) {
    /* ur3.urdf of example-robot-data is such a file: an empty world, not an error. */
    mr_warnf(u->s->quiet, mr_urdf_src(u, u->robot), "robot has no <link>: empty model");
    return 0;
  }
  int root = mr_urdf_find_root(u);
  if (root < 0) return -1;
  if (mr_urdf_order(u, root) < 0) return -1;
  int first_body = u->s->nbodies;
  int *tail = malloc((size_t)(first_body + u->nlink) * sizeof *tail);
  if (!tail) return mr_urdf_oom(u);
  mr_urdf_assign_bodies(u, tail);
  free(tail);
  if (mr_urdf_materials(u) < 0) return -1;
  for (int k = 0; k < u->nlink; k++) {
    int l = u->order[k];
    if (k == 0 && mr_urdf_root_is_world(u)) {
      if (mr_urdf_world_link(u, l) < 0) return -1;
    } else if (mr_urdf_heads_body(u, l) && mr_urdf_emit_body(u, l) < 0) {
      return -1;
    }
  }
  if (mr_urdf_mimics(u) < 0) return -1;
  if (mr_urdf_actuators(u) < 0) return -1;
  return mr_srdf_apply(u);
}

int mr_urdf_parse(mr_spec *s, const char *path, const mr_load_options *opt, char *err,
                  int errlen) {
  static const mr_load_options defaults = {0};
  mr_urdf u = {0};
  u.s = s;
  u.opt = opt ? opt : &defaults;
  u.err = err;
  u.errlen = errlen;
  u.file = mr_spec_strdup(s, path);
  if (!u.file) return mr_urdf_oom(&u);
  s->is_urdf = 1;
  s->inertiafromgeom = 0;
  s->opt.timestep = MR_URDF_TIMESTEP;
  u.doc = mr_xml_read(path, err, errlen);
  if (!u.doc) return -1;
  int rc = -1;
  u.robot = xmlDocGetRootElement(u.doc);
  if (!mr_xml_is(u.robot, "robot")) {
    mr_errorf(err, errlen, mr_urdf_src(&u, u.robot), "root element is <%s>, expected <robot>",
              (const char *)u.robot->name);
  } else {
    const char *name = mr_xml_attr(u.robot, "name");
    if (name) s->model_name = mr_spec_strdup(s, name);
    rc = mr_urdf_build(&u);
  }
  mr_names_free(&u.link_names);
  mr_names_free(&u.joint_names);
  free(u.links);
  free(u.joints);
  free(u.order);
  xmlFreeDoc(u.doc);
  return rc;
}
