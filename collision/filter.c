/* Contact filtering: see filter.h for the rules and where they come from. */
#include "filter.h"

#include "engine/core/arena.h"

/* ------------------------------------------------------------------ sorted keys */

static void sort_sift_down(uint64_t *a, int root, int n) {
  for (;;) {
    int child = 2 * root + 1;
    if (child >= n) return;
    if (child + 1 < n && a[child + 1] > a[child]) child++;
    if (a[root] >= a[child]) return;
    uint64_t t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

/* Heapsort: qsort may call malloc (glibc's merge sort), which the step must never do. */
void mr_sort_keys(uint64_t *a, int n) {
  for (int i = n / 2 - 1; i >= 0; i--) sort_sift_down(a, i, n);
  for (int end = n - 1; end > 0; end--) {
    uint64_t t = a[0];
    a[0] = a[end];
    a[end] = t;
    sort_sift_down(a, 0, end);
  }
}

static int keys_contain(const uint64_t *keys, int n, uint64_t key) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    if (keys[mid] == key) return 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

static uint64_t *keys_build(mr_data *d, const int *a, const int *b, int n) {
  if (n == 0) return NULL;
  uint64_t *keys = mr_arena_alloc(d, (size_t)n * sizeof(uint64_t));
  if (!keys) return NULL;
  for (int i = 0; i < n; i++) keys[i] = mr_filter_key(a[i], b[i]);
  mr_sort_keys(keys, n);
  return keys;
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
