/* The detection band: see band.h. */
#include "band.h"

#include "engine/core/arena.h"
#include "filter.h"

size_t mr_band_arena_size(int maxcon) { return 2 * (size_t)maxcon * sizeof(uint64_t) + 2 * 64; }

int mr_band_init(mr_band *b, const mr_model *m, mr_data *d) {
  b->m = m;
  b->n = 0;
  b->keys = d->ncon_prev > 0 ? mr_arena_alloc(d, (size_t)d->ncon_prev * sizeof(uint64_t)) : NULL;
  if (!b->keys) return d->ncon_prev > 0 ? -1 : 0;
  for (int i = 0; i < d->ncon_prev; i++)
    b->keys[i] = mr_filter_key(d->contact_prev[i].geom1, d->contact_prev[i].geom2);
  if (mr_sort_keys_arena(d, b->keys, d->ncon_prev)) return -1;
  for (int i = 0; i < d->ncon_prev; i++) /* unique pairs */
    if (b->n == 0 || b->keys[b->n - 1] != b->keys[i]) b->keys[b->n++] = b->keys[i];
  return 0;
}

static int band_continues(const mr_band *b, int g1, int g2) {
  uint64_t key = mr_filter_key(g1, g2);
  int k = mr_keys_lower_bound(b->keys, b->n, key);
  return k < b->n && b->keys[k] == key;
}

/* The smaller positive bounding radius of the two (planes and heightfields have none). */
static double band_scale(const mr_model *m, int g1, int g2) {
  double r1 = m->geom_rbound[g1], r2 = m->geom_rbound[g2];
  if (!(r1 > 0)) return r2 > 0 ? r2 : 0;
  return r2 > 0 && r2 < r1 ? r2 : r1;
}

double mr_band_margin(const mr_band *b, int g1, int g2, double margin) {
  double rel = band_continues(b, g1, g2) ? MR_BAND_REL : MR_TOUCH_REL;
  return margin + rel * band_scale(b->m, g1, g2);
}
