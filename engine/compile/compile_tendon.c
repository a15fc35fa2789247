/* Tendons and actuator transmissions in the compiled model: the tendon paths (wrap_*), the
 * checks their shape needs, and the sparsity patterns of the tendon Jacobians and actuator
 * moments.
 *
 * A pattern lists, ascending, every dof a row may touch: the joints of a fixed tendon; for a
 * spatial tendon, the dofs on the chains (to the root) of every body its sites and wrapped
 * geoms belong to; for an actuator, its joint's dof, its tendon's pattern, or the chains of
 * its sites. The patterns are fixed at compile time, so the per-step data (d->ten_J,
 * d->actuator_moment) are flat arrays of known size and nothing is allocated in a step.
 */
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"

#define MR_FAIL(src, ...) mr_errorf(c->err, c->errlen, (src), __VA_ARGS__)

static const char *mr_label(const char *name) { return name && *name ? name : "(unnamed)"; }

/* ------------------------------------------------------------------ checks */

/* A branch of a spatial tendon: a site, then sites and geoms with a site on each side of
 * every geom; branches are separated by pulleys. */
static int mr_check_spatial_path(mr_compiler *c, const mr_spec_tendon *t) {
  const mr_spec *s = c->s;
  const mr_spec_wrap *w = s->wraps + t->wrapadr;
  for (int i = 0; i < t->nwrap; i++) {
    int first = i == 0 || w[i - 1].type == MR_WRAP_PULLEY;
    int last = i == t->nwrap - 1 || w[i + 1].type == MR_WRAP_PULLEY;
    switch (w[i].type) {
      case MR_WRAP_PULLEY:
        if (i == 0 || w[i - 1].type == MR_WRAP_PULLEY)
          return MR_FAIL(w[i].src, "tendon '%s': a pulley must follow a branch of sites",
                         mr_label(t->name));
        break;
      case MR_WRAP_SITE:
        if (w[i].obj < 0 || w[i].obj >= s->nsites)
          return MR_FAIL(w[i].src, "tendon '%s' passes a missing site", mr_label(t->name));
        if (first && last)
          return MR_FAIL(w[i].src, "tendon '%s': a branch needs at least two sites",
                         mr_label(t->name));
        break;
      default: {
        if (w[i].obj < 0 || w[i].obj >= s->ngeoms)
          return MR_FAIL(w[i].src, "tendon '%s' wraps a missing geom", mr_label(t->name));
        int type = s->geoms[w[i].obj].type;
        if (type != MR_GEOM_SPHERE && type != MR_GEOM_CYLINDER)
          return MR_FAIL(w[i].src, "tendon '%s' wraps geom '%s': only sphere and cylinder geoms "
                         "can be wrapped", mr_label(t->name), mr_label(s->geoms[w[i].obj].name));
        if (first || last || w[i - 1].type != MR_WRAP_SITE || w[i + 1].type != MR_WRAP_SITE)
          return MR_FAIL(w[i].src, "tendon '%s': a wrapped geom must lie between two sites",
                         mr_label(t->name));
        if (w[i].side < -1 || w[i].side >= s->nsites)
          return MR_FAIL(w[i].src, "tendon '%s' has a missing side site", mr_label(t->name));
      }
    }
  }
  return 0;
}

static int mr_check_fixed_path(mr_compiler *c, const mr_spec_tendon *t) {
  const mr_spec *s = c->s;
  for (int i = 0; i < t->nwrap; i++) {
    const mr_spec_wrap *w = s->wraps + t->wrapadr + i;
    if (w->type != MR_WRAP_JOINT || w->obj < 0 || w->obj >= s->njoints)
      return MR_FAIL(w->src, "fixed tendon '%s' refers to a missing joint", mr_label(t->name));
    int type = s->joints[w->obj].type;
    if (type != MR_JOINT_HINGE && type != MR_JOINT_SLIDE)
      return MR_FAIL(w->src, "fixed tendon '%s' uses joint '%s': only hinge and slide joints "
                     "can be", mr_label(t->name), mr_label(s->joints[w->obj].name));
    if (!mr_all_finite(&w->prm, 1))
      return MR_FAIL(w->src, "fixed tendon '%s' has a non-finite coef", mr_label(t->name));
  }
  return 0;
}

static int mr_check_tendon(mr_compiler *c, const mr_spec_tendon *t) {
  const double scalars[] = {t->range[0], t->range[1], t->margin, t->stiffness, t->damping,
                            t->frictionloss, t->springlength, t->width};
  if (!mr_all_finite(scalars, 8) || !mr_all_finite(t->solref_lim, 2) ||
      !mr_all_finite(t->solimp_lim, 5))
    return MR_FAIL(t->src, "tendon '%s' has a non-finite number", mr_label(t->name));
  if (t->stiffness < 0 || t->damping < 0 || t->frictionloss < 0)
    return MR_FAIL(t->src, "tendon '%s' has a negative stiffness, damping or frictionloss",
                   mr_label(t->name));
  if (t->limited && !(t->range[0] < t->range[1]))
    return MR_FAIL(t->src, "tendon '%s' range: the lower bound must be smaller than the upper",
                   mr_label(t->name));
  if (t->nwrap < 1 || t->wrapadr < 0 || t->wrapadr + t->nwrap > c->s->nwraps)
    return MR_FAIL(t->src, "tendon '%s' has an empty path", mr_label(t->name));
  return t->spatial ? mr_check_spatial_path(c, t) : mr_check_fixed_path(c, t);
}

/* What a transmission needs of its target. */
static int mr_check_transmission(mr_compiler *c, const mr_spec_actuator *a) {
  const mr_spec *s = c->s;
  const char *name = mr_label(a->name);
  switch (a->trntype) {
    case MR_TRN_JOINT:
    case MR_TRN_JOINTINPARENT:
      if (a->joint < 0 || a->joint >= s->njoints)
        return MR_FAIL(a->src, "actuator '%s' acts on a missing joint", name);
      return 0;
    case MR_TRN_TENDON:
      if (a->joint < 0 || a->joint >= s->ntendons)
        return MR_FAIL(a->src, "actuator '%s' acts on a missing tendon", name);
      return 0;
    case MR_TRN_SITE:
      if (a->joint < 0 || a->joint >= s->nsites)
        return MR_FAIL(a->src, "actuator '%s' acts on a missing site", name);
      return 0;
    case MR_TRN_SLIDERCRANK:
      if (a->joint < 0 || a->joint >= s->nsites || a->trnid2 < 0 || a->trnid2 >= s->nsites)
        return MR_FAIL(a->src, "actuator '%s' has a missing crank or slider site", name);
      if (!(a->cranklength > 0))
        return MR_FAIL(a->src, "slider-crank actuator '%s' needs a positive cranklength", name);
      return 0;
    default:
      return MR_FAIL(a->src, "actuator '%s' has an unknown transmission %d", name, a->trntype);
  }
}

static int mr_check_actuator(mr_compiler *c, const mr_spec_actuator *a, int stateful_seen) {
  const char *name = mr_label(a->name);
  if (mr_check_transmission(c, a)) return -1;
  if (a->dyntype < MR_DYN_NONE || a->dyntype > MR_DYN_MUSCLE || a->gaintype < MR_GAIN_FIXED ||
      a->gaintype > MR_GAIN_MUSCLE || a->biastype < MR_BIAS_NONE || a->biastype > MR_BIAS_MUSCLE)
    return MR_FAIL(a->src, "actuator '%s' has an unknown dynamics, gain or bias type", name);
  /* activations are indexed from the end (act[u - (nu - na)]), as in MuJoCo 2.2 */
  if (stateful_seen && a->dyntype == MR_DYN_NONE)
    return MR_FAIL(a->src, "actuator '%s' has no activation but follows one that has: "
                   "stateless actuators must come before stateful actuators", name);
  const double scalars[] = {a->cranklength, a->ctrlrange[0], a->ctrlrange[1], a->forcerange[0],
                            a->forcerange[1], a->actrange[0],  a->actrange[1],
                            a->lengthrange[0], a->lengthrange[1]};
  if (!mr_all_finite(a->gear, 6) || !mr_all_finite(scalars, 9) ||
      !mr_all_finite(a->dynprm, MR_NDYN) || !mr_all_finite(a->gainprm, MR_NGAIN) ||
      !mr_all_finite(a->biasprm, MR_NBIAS))
    return MR_FAIL(a->src, "actuator '%s' has a non-finite number", name);
  /* the muscle curves divide by range[1] - range[0] and map [lmin, lmax] around 1 */
  const double *prm = a->gaintype == MR_GAIN_MUSCLE ? a->gainprm : a->biasprm;
  if ((a->gaintype == MR_GAIN_MUSCLE || a->biastype == MR_BIAS_MUSCLE) &&
      (!(prm[0] < prm[1]) || !(prm[4] < 1) || !(prm[5] > 1)))
    return MR_FAIL(a->src, "muscle '%s' needs range[0] < range[1] and lmin < 1 < lmax (got "
                   "range %g %g, lmin %g, lmax %g)", name, prm[0], prm[1], prm[4], prm[5]);
  return 0;
}

int mr_compile_check_tendons(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->ntendons; i++)
    if (mr_check_tendon(c, &s->tendons[i])) return -1;
  int stateful = 0;
  for (int i = 0; i < s->nactuators; i++) {
    if (mr_check_actuator(c, &s->actuators[i], stateful)) return -1;
    stateful |= s->actuators[i].dyntype != MR_DYN_NONE;
  }
  return 0;
}

/* ------------------------------------------------------------------ patterns */

typedef struct mr_pattern_work {
  const mr_spec *s;
  int *adr, *num; /* nbodies: dof range of each body */
  int *jdof;      /* njoints: first dof of each joint */
  int *mark;      /* nv: stamp of the row that last took the dof */
  int nv, stamp;
} mr_pattern_work;

/* Dofs of the spec's bodies and joints as the tree compiler numbers them: joints come in
 * body order, so a body's dofs are contiguous. Returns nv. */
static int mr_body_dofs(mr_pattern_work *w) {
  const mr_spec *s = w->s;
  for (int b = 0; b < s->nbodies; b++) w->adr[b] = w->num[b] = 0;
  int dof = 0;
  for (int j = 0; j < s->njoints; j++) {
    int b = s->joints[j].body, n = mr_joint_nv(s->joints[j].type);
    if (w->num[b] == 0) w->adr[b] = dof;
    w->num[b] += n;
    w->jdof[j] = dof;
    dof += n;
  }
  return dof;
}

static void mr_mark_chain(mr_pattern_work *w, int b) {
  for (; b > 0; b = w->s->bodies[b].parent)
    for (int i = w->adr[b]; i < w->adr[b] + w->num[b]; i++) w->mark[i] = w->stamp;
}

/* The dofs stamped for the current row, ascending, into out (NULL: count only). */
static int mr_gather(const mr_pattern_work *w, int *out) {
  int n = 0;
  for (int i = 0; i < w->nv; i++)
    if (w->mark[i] == w->stamp) {
      if (out) out[n] = i;
      n++;
    }
  return n;
}

static void mr_mark_tendon(mr_pattern_work *w, const mr_spec_tendon *t) {
  const mr_spec *s = w->s;
  for (int i = t->wrapadr; i < t->wrapadr + t->nwrap; i++) {
    const mr_spec_wrap *wr = &s->wraps[i];
    if (wr->type == MR_WRAP_JOINT)
      w->mark[w->jdof[wr->obj]] = w->stamp;
    else if (wr->type == MR_WRAP_SITE) {
      mr_mark_chain(w, s->sites[wr->obj].body);
    } else if (wr->type != MR_WRAP_PULLEY) {
      mr_mark_chain(w, s->geoms[wr->obj].body);
    }
  }
}

static void mr_mark_actuator(mr_pattern_work *w, const mr_spec_actuator *a) {
  const mr_spec *s = w->s;
  switch (a->trntype) {
    case MR_TRN_TENDON:
      mr_mark_tendon(w, &s->tendons[a->joint]);
      break;
    case MR_TRN_SITE:
      mr_mark_chain(w, s->sites[a->joint].body);
      break;
    case MR_TRN_SLIDERCRANK:
      mr_mark_chain(w, s->sites[a->joint].body);
      mr_mark_chain(w, s->sites[a->trnid2].body);
      break;
    default: /* a joint: its dofs (1 for hinge and slide, 3 for ball, 6 for free) */
      for (int k = 0; k < mr_joint_nv(s->joints[a->joint].type); k++)
        w->mark[w->jdof[a->joint] + k] = w->stamp;
  }
}

/* Fills the pattern of every row: rowadr, rownnz and the dofs (colind NULL: count only);
 * returns the total. */
static int mr_patterns(mr_pattern_work *w, int tendons, int *rowadr, int *rownnz, int *colind) {
  const mr_spec *s = w->s;
  int n = tendons ? s->ntendons : s->nactuators, total = 0;
  for (int r = 0; r < n; r++) {
    w->stamp++;
    if (tendons)
      mr_mark_tendon(w, &s->tendons[r]);
    else
      mr_mark_actuator(w, &s->actuators[r]);
    int k = mr_gather(w, colind ? colind + total : NULL);
    if (rowadr) rowadr[r] = total, rownnz[r] = k;
    total += k;
  }
  return total;
}

/* Runs mr_patterns with the work arrays it needs; -1 on out of memory. */
static int mr_with_patterns(const mr_spec *s, int tendons, int *rowadr, int *rownnz, int *colind) {
  mr_pattern_work w = {s, NULL, NULL, NULL, NULL, 0, 0};
  size_t nb = (size_t)s->nbodies + 1;
  w.adr = malloc(nb * sizeof(int));
  w.num = malloc(nb * sizeof(int));
  w.jdof = malloc(((size_t)s->njoints + 1) * sizeof(int));
  int total = -1;
  if (w.adr && w.num && w.jdof) {
    w.nv = mr_body_dofs(&w);
    w.mark = calloc((size_t)w.nv + 1, sizeof(int));
    if (w.mark) total = mr_patterns(&w, tendons, rowadr, rownnz, colind);
  }
  free(w.adr);
  free(w.num);
  free(w.jdof);
  free(w.mark);
  return total;
}

int mr_compile_tendon_sizes(mr_compiler *c, mr_model *z) {
  const mr_spec *s = c->s;
  z->ntendon = s->ntendons;
  z->nwrap = s->nwraps;
  z->na = 0;
  for (int i = 0; i < s->nactuators; i++) z->na += s->actuators[i].dyntype != MR_DYN_NONE;
  z->nJten = mr_with_patterns(s, 1, NULL, NULL, NULL);
  z->nJmom = mr_with_patterns(s, 0, NULL, NULL, NULL);
  return z->nJten < 0 || z->nJmom < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ copy */

static void mr_copy_tendon(const mr_compiler *c, mr_model *m, int i) {
  const mr_spec_tendon *t = &c->s->tendons[i];
  m->tendon_adr[i] = t->wrapadr;
  m->tendon_num[i] = t->nwrap;
  m->tendon_limited[i] = t->limited;
  m->tendon_group[i] = t->group;
  m->tendon_matid[i] = t->material;
  memcpy(m->tendon_range + 2 * i, t->range, 2 * sizeof(double));
  m->tendon_margin[i] = t->margin;
  m->tendon_stiffness[i] = t->stiffness;
  m->tendon_damping[i] = t->damping;
  m->tendon_frictionloss[i] = t->frictionloss;
  m->tendon_lengthspring[i] = t->springlength; /* < 0: set at qpos_spring after compiling */
  m->tendon_width[i] = t->width;
  memcpy(m->tendon_solref_lim + 2 * i, t->solref_lim, 2 * sizeof(double));
  memcpy(m->tendon_solimp_lim + 5 * i, t->solimp_lim, 5 * sizeof(double));
  memcpy(m->tendon_rgba + 4 * i, t->rgba, 4 * sizeof(float));
}

static void mr_copy_wrap(const mr_compiler *c, mr_model *m, int i) {
  const mr_spec_wrap *w = &c->s->wraps[i];
  m->wrap_type[i] = w->type;
  m->wrap_objid[i] = w->obj;
  m->wrap_prm[i] = w->prm;
  if (w->type == MR_WRAP_SPHERE || w->type == MR_WRAP_CYLINDER) {
    /* the model's geoms are grouped by body: renumber, and read the shape */
    m->wrap_objid[i] = c->geom_new[w->obj];
    m->wrap_type[i] = c->s->geoms[w->obj].type == MR_GEOM_CYLINDER ? MR_WRAP_CYLINDER
                                                                   : MR_WRAP_SPHERE;
    m->wrap_prm[i] = w->side;
  }
}

int mr_compile_tendons(mr_compiler *c, mr_model *m) {
  for (int i = 0; i < m->ntendon; i++) mr_copy_tendon(c, m, i);
  for (int i = 0; i < m->nwrap; i++) mr_copy_wrap(c, m, i);
  if (mr_with_patterns(c->s, 1, m->tendon_Jrowadr, m->tendon_Jrownnz, m->tendon_Jcolind) < 0 ||
      mr_with_patterns(c->s, 0, m->actuator_Jrowadr, m->actuator_Jrownnz, m->actuator_Jcolind) < 0)
    return -1;
  return 0;
}
