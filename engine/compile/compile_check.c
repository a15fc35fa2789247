/* What the compiler refuses: dangling references, non-finite numbers, impossible sizes,
 * masses and inertias, keyframes of the wrong length. Every message names FILE:LINE. */
#include <math.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"

#define MR_FAIL(src, ...) mr_errorf(c->err, c->errlen, (src), __VA_ARGS__)

static const char *mr_label(const char *name) { return name ? name : "(unnamed)"; }

static int mr_finite_f(const float *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Principal moments must be non-negative and satisfy the triangle inequality. */
static int mr_check_moments(mr_compiler *c, mr_source src, const char *name, const double d[3]) {
  for (int k = 0; k < 3; k++)
    if (!(d[k] >= 0)) return MR_FAIL(src, "body '%s' has negative or invalid inertia", name);
  const double tol = 1e-12 * (d[0] + d[1] + d[2]);
  for (int k = 0; k < 3; k++)
    if (d[(k + 1) % 3] + d[(k + 2) % 3] < d[k] - tol)
      return MR_FAIL(src,
                     "body '%s' inertia %g %g %g violates the triangle inequality "
                     "(A + B >= C)",
                     name, d[0], d[1], d[2]);
  return 0;
}

static int mr_check_bodies(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nbodies; i++) {
    const mr_spec_body *b = &s->bodies[i];
    const char *name = mr_label(b->name);
    if (i > 0 && (b->parent < 0 || b->parent >= i))
      return MR_FAIL(b->src, "body '%s' comes before its parent", name);
    if (!mr_all_finite(b->pos, 3) || !mr_all_finite(b->quat, 4) || !mr_all_finite(b->ipos, 3) ||
        !mr_all_finite(b->iquat, 4) || !mr_all_finite(b->inertia, 3) || !isfinite(b->mass))
      return MR_FAIL(b->src, "body '%s' has a non-finite number", name);
    if (!b->has_inertial) continue;
    if (b->mass < 0) return MR_FAIL(b->src, "body '%s' has negative mass %g", name, b->mass);
    if (mr_check_moments(c, b->src, name, b->inertia)) return -1;
  }
  return 0;
}

/* The local-frame angular velocity of a free or ball joint is only consistent when no
 * rotation follows it in the same body (MuJoCo refuses the same combinations). */
static int mr_joint_breaks_order(const mr_spec_joint *j, const mr_spec_joint *prev) {
  if (prev->type == MR_JOINT_FREE || j->type == MR_JOINT_FREE) return 1;
  return prev->type == MR_JOINT_BALL && j->type != MR_JOINT_SLIDE;
}

static int mr_check_joints(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->njoints; i++) {
    const mr_spec_joint *j = &s->joints[i];
    const char *name = mr_label(j->name);
    if (j->body < 1 || j->body >= s->nbodies)
      return MR_FAIL(j->src, "joint '%s' is not in a moving body", name);
    if (i > 0 && j->body < s->joints[i - 1].body)
      return MR_FAIL(j->src, "joint '%s' is out of body order", name);
    if (j->type < MR_JOINT_FREE || j->type > MR_JOINT_HINGE)
      return MR_FAIL(j->src, "joint '%s' has an unknown type %d", name, j->type);
    if (j->type == MR_JOINT_FREE && s->bodies[j->body].parent != 0)
      return MR_FAIL(j->src, "free joint '%s' is not in a top-level body", name);
    if (i > 0 && j->body == s->joints[i - 1].body && mr_joint_breaks_order(j, &s->joints[i - 1]))
      return MR_FAIL(j->src, "joint '%s' follows a %s joint in the same body (a free joint "
                     "must be alone; a ball joint may be followed only by slides)", name,
                     s->joints[i - 1].type == MR_JOINT_FREE ? "free" : "ball");
    const double scalars[] = {j->stiffness, j->springref, j->damping, j->armature,
                              j->frictionloss, j->margin, j->ref};
    if (!mr_all_finite(j->pos, 3) || !mr_all_finite(j->axis, 3) || !mr_all_finite(j->range, 2) ||
        !mr_all_finite(scalars, 7) || !mr_all_finite(j->solref_lim, 2) ||
        !mr_all_finite(j->solimp_lim, 5))
      return MR_FAIL(j->src, "joint '%s' has a non-finite number", name);
    if ((j->type == MR_JOINT_HINGE || j->type == MR_JOINT_SLIDE) &&
        sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]) <
            1e-12)
      return MR_FAIL(j->src, "joint '%s' has a zero axis", name);
    if (j->armature < 0 || j->damping < 0 || j->frictionloss < 0 || j->stiffness < 0)
      return MR_FAIL(j->src, "joint '%s' has a negative armature, damping, friction or "
                     "stiffness", name);
  }
  return 0;
}

/* A body that moves: it or an ancestor has a joint. */
static int mr_body_moves(const mr_spec *s, int b) {
  for (; b > 0; b = s->bodies[b].parent)
    for (int j = 0; j < s->njoints; j++)
      if (s->joints[j].body == b) return 1;
  return 0;
}

/* Sizes that define the volume of a primitive must be positive. */
static int mr_check_geom_size(mr_compiler *c, const mr_spec_geom *g, const char *name) {
  int needed = 0;
  switch (g->type) {
    case MR_GEOM_SPHERE: needed = 1; break;
    case MR_GEOM_CAPSULE: case MR_GEOM_CYLINDER: needed = 2; break;
    case MR_GEOM_ELLIPSOID: case MR_GEOM_BOX: needed = 3; break;
    default: break;
  }
  for (int k = 0; k < needed; k++)
    if (!(g->size[k] > 0))
      return MR_FAIL(g->src, "geom '%s' has size[%d] = %g (must be positive)", name, k,
                     g->size[k]);
  if (g->type == MR_GEOM_CAPSULE && !(g->size[1] >= 0))
    return MR_FAIL(g->src, "geom '%s' has a negative half-length", name);
  return 0;
}

static int mr_check_geoms(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->ngeoms; i++) {
    const mr_spec_geom *g = &s->geoms[i];
    const char *name = mr_label(g->name);
    if (g->body < 0 || g->body >= s->nbodies)
      return MR_FAIL(g->src, "geom '%s' belongs to no body", name);
    if (g->type < 0 || g->type >= MR_GEOM_NTYPES)
      return MR_FAIL(g->src, "geom '%s' has an unsupported type %d", name, g->type);
    if (g->type == MR_GEOM_HFIELD && (g->hfield < 0 || g->hfield >= s->nhfields))
      return MR_FAIL(g->src, "geom '%s' is a heightfield geom without a heightfield", name);
    if ((g->type == MR_GEOM_HFIELD || g->type == MR_GEOM_PLANE) && mr_body_moves(s, g->body))
      return MR_FAIL(g->src, "geom '%s': planes and heightfields must be on the world or a body "
                     "fixed to it", name);
    if (g->mesh >= s->nmeshes) return MR_FAIL(g->src, "geom '%s' refers to a missing mesh", name);
    if (g->mesh >= 0 && g->type != MR_GEOM_MESH && g->type != MR_GEOM_SPHERE &&
        g->type != MR_GEOM_CAPSULE && g->type != MR_GEOM_CYLINDER &&
        g->type != MR_GEOM_ELLIPSOID && g->type != MR_GEOM_BOX)
      return MR_FAIL(g->src, "geom '%s': a %s cannot be fitted to a mesh", name,
                     g->type == MR_GEOM_PLANE ? "plane" : "heightfield");
    const double scalars[] = {g->margin, g->gap, g->solmix, g->density, g->mass, g->fitscale};
    if (!mr_all_finite(g->size, 3) || !mr_all_finite(g->pos, 3) || !mr_all_finite(g->quat, 4) ||
        !mr_all_finite(g->friction, 3) || !mr_all_finite(g->solref, 2) ||
        !mr_all_finite(g->solimp, 5) || !mr_all_finite(scalars, 6) || !mr_finite_f(g->rgba, 4))
      return MR_FAIL(g->src, "geom '%s' has a non-finite number", name);
    if (g->density < 0) return MR_FAIL(g->src, "geom '%s' has negative density", name);
    if (g->type == MR_GEOM_MESH && (g->mesh < 0 || g->mesh >= s->nmeshes))
      return MR_FAIL(g->src, "geom '%s' is a mesh geom without a mesh", name);
    if (g->type != MR_GEOM_MESH && g->mesh < 0 && mr_check_geom_size(c, g, name)) return -1;
    if (!(g->fitscale > 0)) return MR_FAIL(g->src, "geom '%s' has a non-positive fitscale", name);
    if (g->material < -1 || g->material >= s->nmaterials)
      return MR_FAIL(g->src, "geom '%s' refers to a missing material", name);
    if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6)
      return MR_FAIL(g->src, "geom '%s' has condim %d (1, 3, 4 or 6)", name, g->condim);
  }
  return 0;
}

/* Sites, cameras, lights: a body and finite poses. */
static int mr_check_attached(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nsites; i++) {
    const mr_spec_site *t = &s->sites[i];
    if (t->body < 0 || t->body >= s->nbodies)
      return MR_FAIL(t->src, "site '%s' belongs to no body", mr_label(t->name));
    if (!mr_all_finite(t->pos, 3) || !mr_all_finite(t->quat, 4) || !mr_all_finite(t->size, 3) ||
        !mr_finite_f(t->rgba, 4))
      return MR_FAIL(t->src, "site '%s' has a non-finite number", mr_label(t->name));
  }
  for (int i = 0; i < s->ncameras; i++) {
    const mr_spec_camera *k = &s->cameras[i];
    if (k->body < 0 || k->body >= s->nbodies)
      return MR_FAIL(k->src, "camera '%s' belongs to no body", mr_label(k->name));
    if (!mr_all_finite(k->pos, 3) || !mr_all_finite(k->quat, 4) || !isfinite(k->fovy))
      return MR_FAIL(k->src, "camera '%s' has a non-finite number", mr_label(k->name));
  }
  for (int i = 0; i < s->nlights; i++) {
    const mr_spec_light *l = &s->lights[i];
    if (l->body < 0 || l->body >= s->nbodies)
      return MR_FAIL(l->src, "light '%s' belongs to no body", mr_label(l->name));
    if (!mr_all_finite(l->pos, 3) || !mr_all_finite(l->dir, 3) || !mr_finite_f(l->diffuse, 3))
      return MR_FAIL(l->src, "light '%s' has a non-finite number", mr_label(l->name));
  }
  return 0;
}

static int mr_check_assets(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nmeshes; i++) {
    const mr_spec_mesh *e = &s->meshes[i];
    if ((!e->path || !*e->path) && !e->vert)
      return MR_FAIL(e->src, "mesh '%s' has neither a file nor vertex data", mr_label(e->name));
    if (!mr_all_finite(e->scale, 3))
      return MR_FAIL(e->src, "mesh '%s' has a non-finite scale", mr_label(e->name));
  }
  for (int i = 0; i < s->nmaterials; i++) {
    const mr_spec_material *e = &s->materials[i];
    if (e->texture < -1 || e->texture >= s->ntextures)
      return MR_FAIL(e->src, "material '%s' refers to a missing texture", mr_label(e->name));
    const float f[] = {e->emission, e->specular, e->shininess, e->reflectance,
                       e->texrepeat[0], e->texrepeat[1]};
    if (!mr_finite_f(e->rgba, 4) || !mr_finite_f(f, 6))
      return MR_FAIL(e->src, "material '%s' has a non-finite number", mr_label(e->name));
  }
  return 0;
}

static int mr_check_equalities(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nequalities; i++) {
    const mr_spec_equality *e = &s->equalities[i];
    const char *name = mr_label(e->name);
    if (e->type == MR_EQ_CONNECT || e->type == MR_EQ_WELD) {
      if (e->obj1 < 0 || e->obj1 >= s->nbodies || e->obj2 < -1 || e->obj2 >= s->nbodies)
        return MR_FAIL(e->src, "equality '%s' refers to a missing body", name);
    } else if (e->type == MR_EQ_JOINT) {
      if (e->obj1 < 0 || e->obj1 >= s->njoints || e->obj2 < -1 || e->obj2 >= s->njoints)
        return MR_FAIL(e->src, "equality '%s' refers to a missing joint", name);
    } else if (e->type == MR_EQ_TENDON) {
      if (e->obj1 < 0 || e->obj1 >= s->ntendons || e->obj2 < -1 || e->obj2 >= s->ntendons)
        return MR_FAIL(e->src, "equality '%s' refers to a missing tendon", name);
    } else {
      return MR_FAIL(e->src, "equality '%s' has an unknown type %d", name, e->type);
    }
    if (!mr_all_finite(e->data, 11) || !mr_all_finite(e->solref, 2) || !mr_all_finite(e->solimp, 5))
      return MR_FAIL(e->src, "equality '%s' has a non-finite number", name);
  }
  return 0;
}

static int mr_check_filters(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->npairs; i++) {
    const mr_spec_pair *p = &s->pairs[i];
    if (p->geom1 < 0 || p->geom1 >= s->ngeoms || p->geom2 < 0 || p->geom2 >= s->ngeoms)
      return MR_FAIL(p->src, "contact pair refers to a missing geom");
    if (!mr_all_finite(p->friction, 5) || !isfinite(p->margin) || !mr_all_finite(p->solref, 2) ||
        !mr_all_finite(p->solimp, 5))
      return MR_FAIL(p->src, "contact pair has a non-finite number");
  }
  for (int i = 0; i < s->nexcludes; i++) {
    const mr_spec_exclude *e = &s->excludes[i];
    if (e->body1 < 0 || e->body1 >= s->nbodies || e->body2 < 0 || e->body2 >= s->nbodies)
      return MR_FAIL(e->src, "contact exclude refers to a missing body");
  }
  for (int i = 0; i < s->nkeys; i++) {
    const mr_spec_key *k = &s->keys[i];
    if (!isfinite(k->time) || (k->qpos && !mr_all_finite(k->qpos, k->nqpos)) ||
        (k->qvel && !mr_all_finite(k->qvel, k->nqvel)) ||
        (k->ctrl && !mr_all_finite(k->ctrl, k->nctrl)) ||
        (k->act && !mr_all_finite(k->act, k->nact)))
      return MR_FAIL(k->src, "keyframe '%s' has a non-finite number", mr_label(k->name));
  }
  return 0;
}

static int mr_check_options(mr_compiler *c) {
  const mr_option *o = &c->s->opt;
  mr_source src = {c->s->file, 1};
  if (!isfinite(o->timestep) || !(o->timestep >= MR_MIN_TIMESTEP))
    return MR_FAIL(src, "timestep must be at least %g s, got %g", MR_MIN_TIMESTEP, o->timestep);
  if (!mr_all_finite(o->gravity, 3) || !isfinite(o->tol))
    return MR_FAIL(src, "option has a non-finite number");
  return 0;
}

int mr_compile_check_spec(mr_compiler *c) {
  if (c->s->nbodies < 1) {
    mr_source src = {c->s->file, 1};
    return MR_FAIL(src, "model has no world body");
  }
  if (mr_check_options(c) || mr_check_bodies(c) || mr_check_joints(c) || mr_check_geoms(c) ||
      mr_check_attached(c) || mr_check_assets(c) || mr_check_equalities(c) ||
      mr_check_filters(c))
    return -1;
  return 0;
}

static int mr_check_keys(mr_compiler *c, const mr_model *m) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nkeys; i++) {
    const mr_spec_key *k = &s->keys[i];
    const char *name = mr_label(k->name);
    if (k->qpos && k->nqpos != m->nq)
      return MR_FAIL(k->src, "keyframe '%s' has %d qpos values, the model has nq = %d", name,
                     k->nqpos, m->nq);
    if (k->qvel && k->nqvel != m->nv)
      return MR_FAIL(k->src, "keyframe '%s' has %d qvel values, the model has nv = %d", name,
                     k->nqvel, m->nv);
    if (k->ctrl && k->nctrl != m->nu)
      return MR_FAIL(k->src, "keyframe '%s' has %d ctrl values, the model has nu = %d", name,
                     k->nctrl, m->nu);
    if (k->act && k->nact != m->na)
      return MR_FAIL(k->src, "keyframe '%s' has %d act values, the model has na = %d", name,
                     k->nact, m->na);
  }
  return 0;
}

int mr_compile_check_model(mr_compiler *c, mr_model *m) {
  const mr_spec *s = c->s;
  for (int b = 1; b < m->nbody; b++) {
    const mr_spec_body *sb = &s->bodies[b];
    const char *name = mr_label(sb->name);
    if (!isfinite(m->body_mass[b]) || !mr_all_finite(m->body_inertia + 3 * b, 3))
      return MR_FAIL(sb->src, "body '%s' has a non-finite mass or inertia", name);
    if (mr_check_moments(c, sb->src, name, m->body_inertia + 3 * b)) return -1;
    if (m->body_dofnum[b] > 0 && !(m->body_subtreemass[b] > 0))
      return sb->skipped ? MR_FAIL(sb->src,
                                   "body '%s' has joints but no mass (its <%s> is outside the "
                                   "supported MJCF subset and was skipped)",
                                   name, sb->skipped)
                         : MR_FAIL(sb->src, "body '%s' has joints but no mass", name);
  }
  return mr_check_keys(c, m);
}
