/* Contact filtering: see filter.h for the rules and where they come from. */
#include "filter.h"

#include <string.h>

#include "engine/core/arena.h"

/* ------------------------------------------------------------------ sorted keys */

/* One pass of the radix sort below: keys ordered by their byte at `shift`, stably, from
 * `from` into `to`. Returns 0 when every key has the same byte there (nothing moved). */
static int sort_pass(const uint64_t *from, uint64_t *to, int n, int shift) {
  int count[257] = {0};
  for (int i = 0; i < n; i++) count[((from[i] >> shift) & 0xff) + 1]++;
  if (count[((from[0] >> shift) & 0xff) + 1] == n) return 0;
  for (int b = 0; b < 256; b++) count[b + 1] += count[b];
  for (int i = 0; i < n; i++) to[count[(from[i] >> shift) & 0xff]++] = from[i];
  return 1;
}

/* Insertion sort below MR_SORT_SMALL keys, else a least-significant-digit radix sort, a
 * byte per pass over the bytes that differ: loops whose branches predict, where a
 * comparison sort's do not (the contacts' keys are sorted twice a step), and below that
 * size the passes' 256 buckets cost more than the keys. qsort may call malloc (glibc's
 * merge sort), which the step must never do. */
#define MR_SORT_SMALL 64

void mr_sort_keys(uint64_t *keys, uint64_t *scratch, int n) {
  if (n < MR_SORT_SMALL) {
    for (int i = 1; i < n; i++) {
      uint64_t k = keys[i];
      int j = i;
      for (; j > 0 && keys[j - 1] > k; j--) keys[j] = keys[j - 1];
      keys[j] = k;
    }
    return;
  }
  uint64_t *from = keys, *to = scratch;
  for (int shift = 0; shift < 64 && n > 1; shift += 8) {
    if (!sort_pass(from, to, n, shift)) continue;
    uint64_t *t = from;
    from = to;
    to = t;
  }
  if (from != keys) memcpy(keys, from, (size_t)n * sizeof(uint64_t));
}

int mr_sort_keys_arena(mr_data *d, uint64_t *keys, int n) {
  size_t mark = mr_arena_mark(d);
  uint64_t *scratch = mr_arena_alloc(d, (size_t)n * sizeof(uint64_t));
  if (!scratch) return -1;
  mr_sort_keys(keys, scratch, n);
  mr_arena_restore(d, mark);
  return 0;
}

int mr_keys_lower_bound(const uint64_t *keys, int n, uint64_t key) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int keys_contain(const uint64_t *keys, int n, uint64_t key) {
  int k = mr_keys_lower_bound(keys, n, key);
  return k < n && keys[k] == key;
}

static uint64_t *keys_build(mr_data *d, const int *a, const int *b, int n) {
  if (n == 0) return NULL;
  uint64_t *keys = mr_arena_alloc(d, (size_t)n * sizeof(uint64_t));
  if (!keys) return NULL;
  for (int i = 0; i < n; i++) keys[i] = mr_filter_key(a[i], b[i]);
  return mr_sort_keys_arena(d, keys, n) ? NULL : keys;
}

int mr_filter_init(mr_filter *f, const mr_model *m, mr_data *d) {
  f->m = m;
  f->npair = m->npair;
  f->nexclude = m->nexclude;
  f->pair_keys = keys_build(d, m->pair_geom1, m->pair_geom2, m->npair);
  f->exclude_keys = keys_build(d, m->exclude_body1, m->exclude_body2, m->nexclude);
  if ((m->npair && !f->pair_keys) || (m->nexclude && !f->exclude_keys)) return -1;
  return 0;
}

/* ------------------------------------------------------------------ rules */

int mr_filter_geom_collidable(const mr_model *m, int g) {
  return (m->geom_contype[g] | m->geom_conaffinity[g]) != 0;
}

/* The weld body of b's parent, or 0 (the world) for a root. */
static int filter_parent_weld(const mr_model *m, int weld) {
  return weld > 0 ? m->body_weldid[m->body_parentid[weld]] : 0;
}

int mr_filter_bodies(const mr_filter *f, int b1, int b2) {
  const mr_model *m = f->m;
  int weld1 = m->body_weldid[b1], weld2 = m->body_weldid[b2];
  if (weld1 == weld2) return 0;
  int parent1 = filter_parent_weld(m, weld1), parent2 = filter_parent_weld(m, weld2);
  if ((parent1 != 0 && parent1 == weld2) || (parent2 != 0 && parent2 == weld1)) return 0;
  if (f->nexclude && keys_contain(f->exclude_keys, f->nexclude, mr_filter_key(b1, b2))) return 0;
  return 1;
}

int mr_filter_geoms(const mr_filter *f, int g1, int g2) {
  const mr_model *m = f->m;
  if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) ||
        (m->geom_contype[g2] & m->geom_conaffinity[g1])))
    return 0;
  if (!mr_filter_bodies(f, m->geom_bodyid[g1], m->geom_bodyid[g2])) return 0;
  if (f->npair && keys_contain(f->pair_keys, f->npair, mr_filter_key(g1, g2))) return 0;
  return 1;
}
