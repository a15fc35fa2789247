/* Self-collision by the reference poses, as MoveIt's setup assistant decides "default" pairs
 * (and Drake's collision filter groups are usually written): two links whose collision
 * geometry overlaps or touches (within MR_SELF_TOUCH) at qpos0 or at any SRDF state are
 * modelled as meeting there by design (a cover over a motor, a hull over a joint), and
 * contact between them would only fight the joints. They never collide; one warning lists
 * them. Pairs the tree rules (same body, parent and child) or the SRDF already exclude are
 * not looked at. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/filter.h"
#include "collision/narrowphase.h"
#include "engine/core/arena.h"
#include "engine/core/error.h"
#include "engine/core/model.h"
#include "robot.h"

typedef struct pair_list {
  int *body; /* 2 per pair, lower first */
  int n, cap;
} pair_list;

static int pair_add(pair_list *p, int b1, int b2) {
  int lo = b1 < b2 ? b1 : b2, hi = b1 < b2 ? b2 : b1;
  for (int i = 0; i < p->n; i++)
    if (p->body[2 * i] == lo && p->body[2 * i + 1] == hi) return 0;
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 32;
    int *grown = realloc(p->body, sizeof(int) * 2 * (size_t)cap);
    if (!grown) return -1;
    p->body = grown;
    p->cap = cap;
  }
  p->body[2 * p->n] = lo;
  p->body[2 * p->n + 1] = hi;
  p->n++;
  return 0;
}

static int robot_geom(const mr_model *m, int g) {
  return (m->geom_contype[g] | m->geom_conaffinity[g]) != 0 && m->geom_bodyid[g] != 0 &&
         m->geom_type[g] != MR_GEOM_PLANE;
}

/* The body pairs touching at qpos, added to p. */
static int pairs_at(const mr_model *m, mr_data *d, const double *qpos, pair_list *p) {
  memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
  mr_kinematics(m, d);
  size_t mark = mr_arena_mark(d);
  mr_filter f;
  int rc = mr_filter_init(&f, m, d);
  for (int g1 = 0; g1 < m->ngeom && rc == 0; g1++) {
    if (!robot_geom(m, g1)) continue;
    for (int g2 = g1 + 1; g2 < m->ngeom && rc == 0; g2++) {
      if (!robot_geom(m, g2) || !mr_filter_geoms(&f, g1, g2) ||
          !mr_geom_aabbs_near(m, d, g1, g2, MR_SELF_TOUCH))
        continue;
      mr_contact_point pts[MR_MAX_MANIFOLD];
      int n = mr_narrowphase(m, d, g1, g2, MR_SELF_TOUCH, pts);
      int touch = 0;
      for (int i = 0; i < n; i++) touch |= pts[i].dist < MR_SELF_TOUCH;
      if (touch) rc = pair_add(p, m->geom_bodyid[g1], m->geom_bodyid[g2]);
    }
  }
  mr_arena_restore(d, mark);
  return rc;
}

/* "a-b, c-d, ..." within len bytes. */
static void pairs_text(const mr_model *m, const pair_list *p, char *text, size_t len) {
  size_t used = 0;
  text[0] = 0;
  for (int i = 0; i < p->n && used + 8 < len; i++) {
    int n = snprintf(text + used, len - used, "%s%s-%s", i ? ", " : "",
                     mr_id2name(m, MR_OBJ_BODY, p->body[2 * i]),
                     mr_id2name(m, MR_OBJ_BODY, p->body[2 * i + 1]));
    if (n < 0 || (size_t)n >= len - used) {
      snprintf(text + used, len - used, ", ...");
      break;
    }
    used += (size_t)n;
  }
}

static mr_model *with_excludes(mr_model *m, const pair_list *p) {
  mr_model sizes = *m;
  sizes.nexclude = m->nexclude + p->n;
  mr_model *r = mr_model_resize(m, &sizes);
  if (!r) return NULL;
  for (int i = 0; i < p->n; i++) {
    r->exclude_body1[m->nexclude + i] = p->body[2 * i];
    r->exclude_body2[m->nexclude + i] = p->body[2 * i + 1];
  }
  return r;
}

mr_model *mr_robot_self_collision(const mr_spec *s, mr_model *m, int quiet, char *err,
                                  int errlen) {
  mr_source src = {s->file, 0};
  pair_list pairs = {0};
  mr_data *d = mr_data_create(m);
  int rc = d ? pairs_at(m, d, m->qpos0, &pairs) : -1;
  for (int k = 0; k < m->nkey && rc == 0; k++)
    rc = pairs_at(m, d, m->key_qpos + (size_t)k * m->nq, &pairs);
  mr_data_free(d);
  mr_model *out = m;
  if (rc == 0 && pairs.n > 0) {
    char text[2048];
    pairs_text(m, &pairs, text, sizeof text);
    mr_warnf(quiet, src,
             "%d link pair%s overlap or touch at the reference pose%s (qpos0%s) and will not "
             "collide: %s (--self-collision on keeps them)",
             pairs.n, pairs.n > 1 ? "s" : "", m->nkey ? "s" : "", m->nkey ? " and the SRDF states" : "",
             text);
    out = with_excludes(m, &pairs);
    if (!out) rc = -1;
    mr_model_free(m);
  }
  free(pairs.body);
  if (rc != 0) {
    if (out == m) mr_model_free(m);
    mr_errorf(err, errlen, src, "out of memory finding self-collisions");
    return NULL;
  }
  return out;
}
