/* Broadphase: the geom pairs whose world boxes overlap, by sweep-and-prune.
 *
 * Every geom with contype or conaffinity set gets its world AABB (mr_geom_aabb), grown by
 * its margin. The boxes are sorted on the axis along which their centres spread most
 * (largest variance), so the sweep sees few false overlaps; the sort is a merge sort in
 * arena scratch, O(n log n), and the sweep is O(n + number of overlapping pairs).
 *
 * Why sweep-and-prune rather than a dynamic AABB tree: Moreau rebuilds its contact set
 * from scratch each step with no per-step allocation and no state carried between steps,
 * and scenes are a few hundred geoms; one sort and one sweep over flat arrays is simpler
 * and as fast there as maintaining a tree, and it has no incremental state to go stale.
 *
 * Planes are infinite, so they stay out of the sort: each plane is tested against every
 * other box by the box's signed distance to the plane (support of the box along the plane
 * normal), which is exact for the box. Plane-plane pairs are never reported.
 *
 * Pairs are handed to a callback as (g1, g2) with g1 < g2, in a deterministic order. */
#ifndef MR_BROADPHASE_H
#define MR_BROADPHASE_H

#include "moreau.h"

typedef void (*mr_broadphase_fn)(void *ctx, int g1, int g2);

/* Calls fn(ctx, g1, g2) for every overlapping pair of collidable geoms, each box grown by
 * reach[g] too when reach is given (sweep.h: how far the geom moves within the step).
 * Scratch comes from d's arena (released before returning). Returns -1 if the arena is
 * exhausted. */
int mr_broadphase(const mr_model *m, mr_data *d, const double *reach, mr_broadphase_fn fn, void *ctx);

/* Arena bytes mr_broadphase needs at most for model m. */
size_t mr_broadphase_arena_size(const mr_model *m);

#endif
