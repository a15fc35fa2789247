/* Narrow phase: the contact points between two geoms at their current poses.
 *
 * Every routine returns the points whose signed distance is at most the margin, with the
 * normal pointing from the first geom to the second, at most MR_MAX_MANIFOLD of them. Flat
 * contact gives several points (box on plane: 4; capsule lying: 2; cylinder standing: its
 * rim), so solvers see the support polygon, not a single point that rocks from step to step.
 * Two faces clipped against each other (box on box, box on mesh) give at most
 * MR_FACE_MANIFOLD points: the deepest and those spanning the largest area (manifold.c).
 *
 * dist == margin is a contact (dist <= margin, not dist < margin): bodies built exactly
 * touching (a stack, dist 0 at margin 0) must push on each other from the first step. With a
 * strict test they got no contact until they had fallen into each other: a five-box stack
 * at dt = 10 ms started 9 mm deep. A touching contact is inert for every solver (a rigid
 * row's bias is its gap / dt, a soft row's violation is 0) until something pushes on it.
 */
#ifndef MR_NARROWPHASE_H
#define MR_NARROWPHASE_H

#include "moreau.h"

#define MR_MAX_MANIFOLD 8
#define MR_FACE_MANIFOLD 4

typedef struct mr_contact_point {
  double pos[3];    /* midway between the surfaces */
  double normal[3]; /* unit, from geom1 to geom2 */
  double dist;      /* signed distance, < 0 penetrating */
  int feature;      /* identifies the point within the pair (e.g. a box vertex index) so that
                       persistence can match it next step; -1 if none */
} mr_contact_point;

/* The contact points of geoms g1 and g2 (any type order; the normal always points from g1
 * to g2). Returns their number (0 .. MR_MAX_MANIFOLD). */
int mr_narrowphase(const mr_model *m, const mr_data *d, int g1, int g2, double margin,
                   mr_contact_point out[MR_MAX_MANIFOLD]);

/* Whether a pair of these geom types goes through the general path (collide_convex.c),
 * whose results the depth cache keeps, rather than a closed-form routine. */
int mr_narrowphase_is_general(int t1, int t2);

/* The same within a step of the pipeline: penetrations of the general path are taken from
 * their anchors in cache while the accuracy bound holds (depth_cache.h). */
struct mr_depth_cache;
int mr_narrowphase_cached(const mr_model *m, const mr_data *d, int g1, int g2, double margin,
                          struct mr_depth_cache *cache, mr_contact_point out[MR_MAX_MANIFOLD]);

/* World-frame axis-aligned bounding box of geom g (planes: infinite in their plane's
 * directions, +-HUGE_VAL). */
void mr_geom_aabb(const mr_model *m, const mr_data *d, int g, double lo[3], double hi[3]);

/* 1 if the world boxes of geoms g1 and g2 come within margin of each other. */
int mr_geom_aabbs_near(const mr_model *m, const mr_data *d, int g1, int g2, double margin);

#endif
