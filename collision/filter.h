/* Which geom pairs may collide (MuJoCo 2.2's rules, checked against the oracle).
 *
 * Automatic pairs (found by the broadphase) must pass every test:
 *   - contype/conaffinity: (contype1 & conaffinity2) || (contype2 & conaffinity1);
 *   - not the same weld body: geoms of one body, or of bodies welded together (same
 *     body_weldid, which also covers two bodies welded to the world), never collide;
 *   - not parent and child: the weld body of one is the weld body of the other's parent,
 *     unless that parent weld body is the world (a link hinged to the world still hits the
 *     floor). Only the direct parent is filtered, not grandparents;
 *   - the body pair is not excluded (MJCF <exclude>, SRDF disable_collisions: both land in
 *     m->exclude_body1/2);
 *   - the geom pair is not also an explicit <pair>: MuJoCo then reports only the explicit
 *     one, with the pair's own parameters (in either geom order).
 * Explicit pairs bypass every filter: they are always checked.
 *
 * The exclude and pair lists are sorted once per call of mr_filter_init (scratch from the
 * arena), so each test is a binary search. */
#ifndef MR_FILTER_H
#define MR_FILTER_H

#include <stdint.h>

#include "moreau.h"

typedef struct mr_filter {
  const mr_model *m;
  const uint64_t *pair_keys;    /* sorted geom pairs of the explicit <pair>s */
  const uint64_t *exclude_keys; /* sorted excluded body pairs */
  int npair, nexclude;
} mr_filter;

/* Builds the sorted lists in d's arena. Returns -1 if the arena is exhausted. */
int mr_filter_init(mr_filter *f, const mr_model *m, mr_data *d);

/* 1 if geom g takes part in automatic collisions at all (contype or conaffinity set). */
int mr_filter_geom_collidable(const mr_model *m, int g);

/* 1 if bodies b1 and b2 may touch (weld, parent and exclude rules). */
int mr_filter_bodies(const mr_filter *f, int b1, int b2);

/* 1 if the automatic pair (g1, g2) is to be checked by the narrowphase. */
int mr_filter_geoms(const mr_filter *f, int g1, int g2);

/* The unordered key of a pair of ids, as used by the sorted lists. */
static inline uint64_t mr_filter_key(int a, int b) {
  uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
  return ((uint64_t)lo << 32) | hi;
}

/* Sorts n keys ascending in place (radix sort: O(n) per byte that differs), with scratch
 * room for n keys. */
void mr_sort_keys(uint64_t *keys, uint64_t *scratch, int n);

/* mr_sort_keys with its scratch taken from d's arena and given back. Returns -1 if the arena
 * is exhausted (the keys are then left unsorted). */
int mr_sort_keys_arena(mr_data *d, uint64_t *keys, int n);

/* The first position in the ascending keys[0..n) holding a key >= key (n if none). */
int mr_keys_lower_bound(const uint64_t *keys, int n, uint64_t key);

#endif
