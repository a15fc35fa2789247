/* Persistent contact ids and frames: see persist.h. */
#include "persist.h"

#include <stdint.h>
#include <string.h>

#include "engine/core/arena.h"
#include "contact.h"
#include "filter.h"
#include "engine/core/mr_math.h"

#define PERSIST_INDEX_BITS 22
#define PERSIST_GEOM_BITS 21

size_t mr_contact_persist_arena_size(int maxcon) {
  return (size_t)maxcon * (2 * sizeof(uint64_t) + sizeof(int)) + 3 * 64;
}

static uint64_t persist_pair_key(int g1, int g2) {
  return ((uint64_t)(uint32_t)g1 << (PERSIST_GEOM_BITS + PERSIST_INDEX_BITS)) |
         ((uint64_t)(uint32_t)g2 << PERSIST_INDEX_BITS);
}

static int persist_index(uint64_t key) { return (int)(key & ((1u << PERSIST_INDEX_BITS) - 1)); }

typedef struct persist_ctx {
  const mr_model *m;
  mr_data *d;
  uint64_t *keys; /* last step's contacts by (pair, index), sorted */
  int *used;      /* last step's contact j already continues a new one */
  int nprev;
} persist_ctx;

/* First position in keys of the pair's group (or nprev). */
static int persist_group_start(const persist_ctx *p, uint64_t pair) {
  return mr_keys_lower_bound(p->keys, p->nprev, pair);
}

static int persist_in_group(const persist_ctx *p, int k, uint64_t pair) {
  return k < p->nprev && (p->keys[k] >> PERSIST_INDEX_BITS) == (pair >> PERSIST_INDEX_BITS);
}

static double persist_tolerance(const mr_model *m, int g1, int g2) {
  double r1 = m->geom_rbound[g1], r2 = m->geom_rbound[g2];
  double r = r1 > 0 && (r2 <= 0 || r1 < r2) ? r1 : r2;
  return r > 0 ? 0.1 * r : 1e-3;
}

/* Last step's contact that continues new contact i, or -1. */
static int persist_find(const persist_ctx *p, int i, int by_feature) {
  const mr_contact *c = &p->d->contact[i];
  uint64_t pair = persist_pair_key(c->geom1, c->geom2);
  double tol = persist_tolerance(p->m, c->geom1, c->geom2);
  double best = tol * tol;
  int found = -1;
  for (int k = persist_group_start(p, pair); persist_in_group(p, k, pair); k++) {
    int j = persist_index(p->keys[k]);
    if (p->used[j]) continue;
    if (by_feature) {
      if (c->feature >= 0 && p->d->contact_prev[j].feature == c->feature) return j;
      continue;
    }
    double delta[3];
    mr_sub3(delta, c->pos, p->d->contact_prev[j].pos);
    double d2 = mr_dot3(delta, delta);
    if (d2 <= best) best = d2, found = j;
  }
  return found;
}

static void persist_continue(mr_contact *c, const mr_contact *prev) {
  c->id = prev->id;
  c->age = prev->age + 1;
  memcpy(c->impulse, prev->impulse, sizeof c->impulse);
  /* An unchanged normal keeps the frame bit for bit (re-projecting would drift by ulps). */
  if (memcmp(c->frame, prev->frame, 3 * sizeof(double)) == 0) {
    memcpy(c->frame, prev->frame, sizeof c->frame);
    return;
  }
  double normal[3];
  mr_copy3(normal, c->frame);
  mr_contact_frame_from_hint(normal, prev->frame + 3, c->frame);
}

static void persist_start(mr_data *d, mr_contact *c) {
  double normal[3];
  mr_copy3(normal, c->frame);
  mr_contact_frame_default(normal, c->frame);
  c->id = d->next_contact_id++;
  c->age = 0;
  memset(c->impulse, 0, sizeof c->impulse);
}

/* Two passes, so that a feature match is never stolen by a nearer position match. */
static void persist_match(persist_ctx *p, int *matched) {
  mr_data *d = p->d;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < d->ncon; i++) {
      if (matched[i] >= 0) continue;
      int j = persist_find(p, i, pass == 0);
      if (j < 0) continue;
      matched[i] = j;
      p->used[j] = 1;
    }
}

int mr_contact_persist(const mr_model *m, mr_data *d) {
  size_t mark = mr_arena_mark(d);
  persist_ctx p = {m, d, NULL, NULL, d->ncon_prev};
  p.keys = mr_arena_alloc(d, (size_t)p.nprev * sizeof(uint64_t));
  uint64_t *scratch = mr_arena_alloc(d, (size_t)p.nprev * sizeof(uint64_t));
  p.used = mr_arena_ints(d, (size_t)p.nprev);
  int *matched = mr_arena_ints(d, (size_t)d->ncon);
  int ok = (p.keys && scratch && p.used && matched) || (p.nprev == 0 && d->ncon == 0);
  if (!ok) p.nprev = 0;
  for (int j = 0; j < p.nprev; j++) {
    const mr_contact *c = &d->contact_prev[j];
    p.keys[j] = persist_pair_key(c->geom1, c->geom2) | (uint64_t)j;
    p.used[j] = 0;
  }
  mr_sort_keys(p.keys, scratch, p.nprev);
  for (int i = 0; i < d->ncon && matched; i++) matched[i] = -1;
  if (matched) persist_match(&p, matched);
  for (int i = 0; i < d->ncon; i++) {
    int j = matched ? matched[i] : -1;
    if (j >= 0) persist_continue(&d->contact[i], &d->contact_prev[j]);
    else persist_start(d, &d->contact[i]);
  }
  mr_arena_restore(d, mark);
  return ok ? 0 : -1;
}
