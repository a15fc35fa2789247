/* The general path's results carried across steps (temporal coherence), with a proof of
 * accuracy.
 *
 * For unit n the support gap f(n) = h_a(n) + h_b(-n) is how far b must move along n to
 * clear a, and the signed distance of the pair is -min f over all n, apart or overlapping
 * (collide_depth.c searches that minimum for a penetration; GJK's closest points give it
 * when apart). A shape's support function changes with its pose by at most |dp| + r ||dR||
 * for every unit n (r: its bounding radius about its origin, so none of its points moves
 * farther). Let the full search, at some step (the anchor), have found min f = F0 along n0,
 * and let the poses have drifted since by delta = sum over both shapes of
 * |dp| + r ||dR||_F. Then min f now lies in [F0 - delta, F0 + delta] and so does f_now(n0):
 * reporting f_now(n0) along n0 errs on the distance by at most 2 delta. While that stays
 * below MR_DEPTH_DRIFT of the pair's size, a pair is answered from its anchor with two
 * support calls instead of the full search (GJK; for a penetration corner candidates,
 * Newton on the sphere and crease circles, or MPR for meshes). A pile at rest moves its
 * bodies by about 1e-10 m a step, so its pairs re-anchor every few dozen steps; anything
 * moving re-anchors every step, as before.
 *
 * The drift is measured from the anchor's poses, not summed step by step, so the bound
 * holds however many steps (or mr_forward calls on the same state) lie between. Anchors
 * live in mr_data (two generations of at most maxcon, zeroed by mr_data_reset); the pair's
 * lookup is a binary search over last step's keys sorted in arena scratch. */
#ifndef MR_DEPTH_CACHE_H
#define MR_DEPTH_CACHE_H

#include <stdint.h>

#include "moreau.h"

struct mr_shape;

/* The bound on the reported distance's error, relative to the pair's size (the smaller
 * bounding radius, at least 1 mm): 4 nm for 4 cm objects. */
#define MR_DEPTH_DRIFT 1e-7

typedef struct mr_depth_anchor {
  uint64_t key;   /* the geom pair in narrowphase order (a, b) */
  double gap;     /* F0: minus the signed distance */
  double normal[3];
  double pos[2][3], mat[2][9]; /* a's and b's poses when the full search ran */
} mr_depth_anchor;

typedef struct mr_depth_cache {
  const mr_depth_anchor *prev; /* last step's anchors */
  uint64_t *sorted;            /* their keys << 22 | index, ascending */
  int nprev;
  mr_depth_anchor *next; /* this step's */
  int nnext, cap;
  int reused; /* pairs answered from an anchor this step */
} mr_depth_cache;

/* Arena bytes mr_depth_cache_begin needs for maxcon anchors. */
size_t mr_depth_cache_arena_size(int maxcon);

/* Opens this step's generation. Returns -1 if the arena is exhausted (the cache then holds
 * nothing and every pair takes the full search). */
int mr_depth_cache_begin(mr_depth_cache *c, mr_data *d);

/* Makes this step's anchors the next step's last ones. */
void mr_depth_cache_end(const mr_depth_cache *c, mr_data *d);

/* The pair's gap (minus its signed distance) and normal from its anchor, if the drift
 * bound allows: returns 1 and writes them (and carries the anchor on to this step), else
 * 0. */
int mr_depth_cache_reuse(mr_depth_cache *c, int ga, int gb, const struct mr_shape *a,
                         const struct mr_shape *b, double *gap, double n[3]);

/* Records a full search's result (gap = minus the signed distance, normal a to b) as the
 * pair's anchor. */
void mr_depth_cache_store(mr_depth_cache *c, int ga, int gb, const struct mr_shape *a,
                          const struct mr_shape *b, double gap, const double n[3]);

#endif
