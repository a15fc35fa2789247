/* mr_collide: the collision stage of the pipeline.
 *
 *   1. last step's contacts move to contact_prev (for persistence and warm start);
 *   2. explicit <pair>s are checked with their own margin and parameters;
 *   3. the broadphase reports overlapping boxes of collidable geoms; the filters
 *      (filter.h) drop the pairs that may not collide; the narrowphase turns the rest into
 *      points within the pair's margin plus its detection band (band.h: wider for a pair
 *      that was in contact last step);
 *   4. each point becomes an mr_contact (contact.h); past the capacity the shallowest
 *      contact gives way to a deeper one, and d->ncon_dropped counts what was lost;
 *   5. persistence (persist.h) gives continuing contacts their id, frame and impulse.
 *
 * Every call is one step for persistence (ids, ages): a caller that runs the pipeline twice
 * on one state (mr_forward, then mr_step) ages the contacts twice, with the same ids.
 *
 * No allocation: scratch comes from the data's arena and is released before returning. */
#include "collide.h"

#include <string.h>

#include "engine/core/arena.h"
#include "band.h"
#include "broadphase.h"
#include "contact.h"
#include "depth_cache.h"
#include "filter.h"
#include "narrowphase.h"
#include "persist.h"
#include "sweep.h"

typedef struct collide_ctx {
  const mr_model *m;
  mr_data *d;
  mr_filter filter;
  mr_band band;
  mr_sweep sweep;
  mr_depth_cache depth;
} collide_ctx;

int mr_contact_capacity(const mr_model *m) {
  long n = 0;
  for (int g = 0; g < m->ngeom; g++)
    if ((m->geom_contype[g] | m->geom_conaffinity[g]) != 0) n++;
  long cap = 8 * n + (long)MR_MAX_MANIFOLD * m->npair + 32;
  long limit = 1L << 22; /* persist.h: the sort keys hold contact indices in 22 bits */
  return (int)(cap < limit ? cap : limit);
}

size_t mr_collide_arena_size(const mr_model *m) {
  size_t keys = 2 * (size_t)(m->npair + m->nexclude) * 8 + 4 * 64; /* and a sort's scratch */
  int maxcon = mr_contact_capacity(m);
  return keys + mr_broadphase_arena_size(m) + mr_contact_persist_arena_size(maxcon) +
         mr_band_arena_size(maxcon) + mr_sweep_arena_size(m) + mr_depth_cache_arena_size(maxcon);
}

/* ------------------------------------------------------------------ storing contacts */

/* The slot for a new contact of distance dist, or -1 when it is shallower than every
 * stored one and the store is full. */
static int collide_slot(mr_data *d, double dist) {
  if (d->ncon < d->maxcon) return d->ncon++;
  d->ncon_dropped++;
  int shallow = -1;
  for (int i = 0; i < d->ncon; i++)
    if (shallow < 0 || d->contact[i].dist > d->contact[shallow].dist) shallow = i;
  return shallow >= 0 && dist < d->contact[shallow].dist ? shallow : -1;
}

static void collide_store(collide_ctx *c, int g1, int g2, const mr_contact *params,
                          const mr_contact_point *pts, int n) {
  mr_data *d = c->d;
  for (int i = 0; i < n; i++) {
    int slot = collide_slot(d, pts[i].dist);
    if (slot < 0) continue;
    mr_contact *con = &d->contact[slot];
    *con = *params;
    mr_contact_set_point(c->m, g1, g2, &pts[i], con);
    con->feature = pts[i].feature;
  }
}

/* ------------------------------------------------------------------ pairs */

static void collide_auto_pair(void *ctx, int g1, int g2) {
  collide_ctx *c = ctx;
  const mr_model *m = c->m;
  if (!mr_filter_geoms(&c->filter, g1, g2)) return;
  mr_contact_point pts[MR_MAX_MANIFOLD];
  double margin = mr_band_margin(&c->band, g1, g2, mr_contact_margin_auto(m, g1, g2));
  double widened = margin + mr_sweep_margin(&c->sweep, g1, g2);
  int n = mr_narrowphase_cached(m, c->d, g1, g2, widened, &c->depth, pts);
  if (n > 0) n = mr_sweep_keep(&c->sweep, c->d, g1, g2, margin, pts, n);
  if (n <= 0) return;
  mr_contact params;
  memset(&params, 0, sizeof params);
  mr_contact_params_auto(m, g1, g2, &params);
  collide_store(c, g1, g2, &params, pts, n > MR_MAX_MANIFOLD ? MR_MAX_MANIFOLD : n);
}

/* Explicit pairs bypass every filter (MuJoCo's rule). */
static void collide_explicit_pairs(collide_ctx *c) {
  const mr_model *m = c->m;
  for (int p = 0; p < m->npair; p++) {
    int g1 = m->pair_geom1[p], g2 = m->pair_geom2[p];
    double margin = mr_band_margin(&c->band, g1, g2, m->pair_margin[p]);
    double widened = margin + mr_sweep_margin(&c->sweep, g1, g2);
    if (!mr_geom_aabbs_near(m, c->d, g1, g2, widened)) continue;
    mr_contact_point pts[MR_MAX_MANIFOLD];
    int n = mr_narrowphase_cached(m, c->d, g1, g2, widened, &c->depth, pts);
    if (n > 0) n = mr_sweep_keep(&c->sweep, c->d, g1, g2, margin, pts, n);
    if (n <= 0) continue;
    mr_contact params;
    memset(&params, 0, sizeof params);
    mr_contact_params_pair(m, p, &params);
    collide_store(c, g1, g2, &params, pts, n > MR_MAX_MANIFOLD ? MR_MAX_MANIFOLD : n);
  }
}

/* ------------------------------------------------------------------ the stage */

/* This step's contacts become last step's. */
static void collide_roll(mr_data *d) {
  int n = d->ncon < 0 ? 0 : d->ncon > d->maxcon ? d->maxcon : d->ncon;
  memcpy(d->contact_prev, d->contact, (size_t)n * sizeof(mr_contact));
  d->ncon_prev = n;
  d->ncon = 0;
  d->ncon_dropped = 0;
  d->npair_anchored = 0;
}

void mr_collide(const mr_model *m, mr_data *d) {
  collide_ctx c = {.m = m, .d = d};
  collide_roll(d);
  if (d->maxcon <= 0) return;
  size_t mark = mr_arena_mark(d);
  if (mr_band_init(&c.band, m, d)) d->warning_count++;
  if (mr_sweep_init(&c.sweep, m, d)) d->warning_count++;
  if (mr_depth_cache_begin(&c.depth, d)) d->warning_count++;
  /* An exhausted arena is a sizing bug (mr_collide_arena_size): count it, never crash. */
  if (mr_filter_init(&c.filter, m, d) == 0) {
    collide_explicit_pairs(&c);
    if (mr_broadphase(m, d, c.sweep.reach, collide_auto_pair, &c)) d->warning_count++;
  } else {
    d->warning_count++;
  }
  mr_depth_cache_end(&c.depth, d);
  if (mr_contact_persist(m, d)) d->warning_count++;
  mr_arena_restore(d, mark);
}
