/* Penetration results carried across steps: see depth_cache.h. */
#include "depth_cache.h"

#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/mr_math.h"
#include "filter.h"
#include "shape.h"

#define DEPTH_INDEX_BITS 22
#define DEPTH_GEOM_BITS 21

static uint64_t depth_pair_key(int ga, int gb) {
  return (uint64_t)(uint32_t)ga << DEPTH_GEOM_BITS | (uint32_t)gb;
}

size_t mr_depth_cache_arena_size(int maxcon) {
  return 2 * (size_t)maxcon * sizeof(uint64_t) + 2 * 64;
}

int mr_depth_cache_begin(mr_depth_cache *c, mr_data *d) {
  memset(c, 0, sizeof *c);
  int gen = d->depth_anchor_gen;
  c->cap = d->maxcon;
  c->prev = d->depth_anchor + (size_t)gen * d->maxcon;
  c->next = d->depth_anchor + (size_t)(1 - gen) * d->maxcon;
  int n = d->ndepth_anchor;
  if (n <= 0) return 0;
  c->sorted = mr_arena_alloc(d, (size_t)n * sizeof(uint64_t));
  if (!c->sorted) return -1;
  for (int i = 0; i < n; i++) c->sorted[i] = c->prev[i].key << DEPTH_INDEX_BITS | (uint64_t)i;
  if (mr_sort_keys_arena(d, c->sorted, n)) return -1;
  c->nprev = n;
  return 0;
}

void mr_depth_cache_end(const mr_depth_cache *c, mr_data *d) {
  d->depth_anchor_gen = 1 - d->depth_anchor_gen;
  d->ndepth_anchor = c->nnext;
  d->npair_anchored = c->reused;
}

static const mr_depth_anchor *depth_find(const mr_depth_cache *c, int ga, int gb) {
  uint64_t key = depth_pair_key(ga, gb);
  int k = mr_keys_lower_bound(c->sorted, c->nprev, key << DEPTH_INDEX_BITS);
  if (k == c->nprev || c->sorted[k] >> DEPTH_INDEX_BITS != key) return NULL;
  return c->prev + (c->sorted[k] & ((1u << DEPTH_INDEX_BITS) - 1));
}

/* How far any support plane of s may have moved since the anchor's pose k. */
static double depth_shape_drift(const mr_depth_anchor *an, int k, const mr_shape *s) {
  double dp[3], dr = 0;
  mr_sub3(dp, s->pos, an->pos[k]);
  for (int i = 0; i < 9; i++) dr += (s->mat[i] - an->mat[k][i]) * (s->mat[i] - an->mat[k][i]);
  return mr_norm3(dp) + s->rbound * sqrt(dr);
}

static double depth_scale(const mr_shape *a, const mr_shape *b) {
  return fmax(1e-3, fmin(a->rbound, b->rbound));
}

static void depth_append(mr_depth_cache *c, const mr_depth_anchor *an) {
  if (c->nnext < c->cap) c->next[c->nnext++] = *an;
}

int mr_depth_cache_reuse(mr_depth_cache *c, int ga, int gb, const mr_shape *a, const mr_shape *b,
                         double *gap, double n[3]) {
  const mr_depth_anchor *an = depth_find(c, ga, gb);
  if (!an) return 0;
  double drift = depth_shape_drift(an, 0, a) + depth_shape_drift(an, 1, b);
  if (!(2 * drift <= MR_DEPTH_DRIFT * depth_scale(a, b))) return 0; /* NaN poses: search */
  double pa[3], pb[3], m[3];
  mr_scale3(m, an->normal, -1);
  mr_shape_support(a, an->normal, pa);
  mr_shape_support(b, m, pb);
  *gap = mr_dot3(pa, an->normal) - mr_dot3(pb, an->normal);
  mr_copy3(n, an->normal);
  depth_append(c, an);
  c->reused++;
  return 1;
}

void mr_depth_cache_store(mr_depth_cache *c, int ga, int gb, const mr_shape *a, const mr_shape *b,
                          double gap, const double n[3]) {
  mr_depth_anchor an;
  an.key = depth_pair_key(ga, gb);
  an.gap = gap;
  mr_copy3(an.normal, n);
  mr_copy3(an.pos[0], a->pos);
  mr_copy3(an.pos[1], b->pos);
  memcpy(an.mat[0], a->mat, sizeof an.mat[0]);
  memcpy(an.mat[1], b->mat, sizeof an.mat[1]);
  depth_append(c, &an);
}
