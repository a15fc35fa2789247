/* The narrow phase's view of one geom: its type, size and world pose, and for meshes the
 * convex hull. Every pair routine works on two of these, so it never indexes the model's
 * arrays itself, and the general path (libccd) gets one support function for every type.
 *
 * Frames: pos is the geom origin in the world; mat is row-major with the geom's local axes
 * as its columns (world = mat * local + pos). Planes: the normal is the local z axis. */
#ifndef MR_SHAPE_H
#define MR_SHAPE_H

#include "moreau.h"
#include "narrowphase.h"

typedef struct mr_shape {
  int type;          /* mr_geom_type */
  double size[3];    /* MuJoCo semantics */
  double pos[3];
  double mat[9];
  double rbound;     /* bounding sphere about pos (0 for planes) */
  const double *hullvert; /* meshes: hull vertices in the geom frame, nhull x3 */
  const int *hullface;   /* meshes: hull triangles, nhullface x3 */
  int nhull, nhullface;
  int hfield;             /* heightfields: the model's hfield id (-1 otherwise) */
} mr_shape;

void mr_shape_make(const mr_model *m, const mr_data *d, int g, mr_shape *s);

/* The point of s farthest along dir (world frame, any length). */
void mr_shape_support(const mr_shape *s, const double dir[3], double out[3]);

/* The support point along unit dir (world) and the Hessian of the support function there
 * (world, 3x3 row-major): the inverse curvature of the surface where its normal is dir, 0
 * for flat faces and edges. Newton's method on the penetration normal uses it. */
void mr_shape_support_hess(const mr_shape *s, const double dir[3], double out[3],
                           double hess[9]);

/* Shapes that are a point or a segment swept by a sphere (sphere, capsule): their core and
 * radius, so that the general path can work on the core exactly. Returns the number of core
 * points (1 or 2), or 0 for other types. */
int mr_shape_core(const mr_shape *s, double a[3], double b[3], double *radius);

void mr_shape_aabb(const mr_shape *s, double lo[3], double hi[3]);

/* Local <-> world helpers. */
static inline void mr_shape_to_world(const mr_shape *s, double w[3], const double l[3]) {
  for (int i = 0; i < 3; i++)
    w[i] = s->pos[i] + s->mat[3 * i] * l[0] + s->mat[3 * i + 1] * l[1] + s->mat[3 * i + 2] * l[2];
}
static inline void mr_shape_axis(const mr_shape *s, int k, double axis[3]) {
  axis[0] = s->mat[k]; axis[1] = s->mat[3 + k]; axis[2] = s->mat[6 + k];
}

/* One contact point from the point on a's surface nearest b (pa), the unit normal a->b and
 * the signed distance: the position is midway between the two surfaces. */
static inline void mr_point_set(mr_contact_point *c, const double pa[3], const double n[3],
                                double dist, int feature) {
  for (int i = 0; i < 3; i++) {
    c->pos[i] = pa[i] + 0.5 * dist * n[i];
    c->normal[i] = n[i];
  }
  c->dist = dist;
  c->feature = feature;
}

/* ------------------------------------------------------------------ pair routines
 * Each takes the shapes in the order of the dispatch table (lower type first) and writes
 * points with the normal from a to b. Returns the number of points (<= MR_MAX_MANIFOLD). */
typedef int (*mr_collide_fn)(const mr_shape *a, const mr_shape *b, double margin,
                             mr_contact_point *out);

/* collide_plane.c */
int mr_collide_plane_sphere(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_plane_capsule(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_plane_ellipsoid(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_plane_cylinder(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_plane_box(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_plane_mesh(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);

/* collide_sphere.c */
int mr_collide_sphere_sphere(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_sphere_capsule(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);

/* collide_capsule.c */
int mr_collide_capsule_capsule(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
/* Closest points of segments p + s e (s in [0,1]) and q + t f (t in [0,1]); robust to
 * zero-length and parallel segments (then s = 0 unless clamped). */
void mr_segments_closest(const double p[3], const double e[3], const double q[3],
                         const double f[3], double *s, double *t);

/* collide_hfield.c: a heightfield (a) against any convex geom (b), prism by prism. */
int mr_collide_hfield(const mr_model *m, const mr_shape *a, const mr_shape *b, double margin,
                      mr_contact_point *out);

/* collide_box.c */
int mr_collide_sphere_box(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
int mr_collide_box_box(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);

/* collide_convex.c: the general path for any two convex shapes (not planes). One point:
 * GJK distance when separated (exact on polytopes and on sphere/capsule cores), libccd's MPR
 * refined to the minimum-translation normal when penetrating. */
int mr_collide_convex_point(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
/* The general path plus a face-clipped manifold (manifold.c) for flat contact. */
int mr_collide_convex(const mr_shape *a, const mr_shape *b, double margin, mr_contact_point *out);
/* The same for geoms ga, gb of a stepping mr_data: a penetration is taken from the pair's
 * anchor in cache while its accuracy bound holds, else searched and anchored
 * (depth_cache.h). */
struct mr_depth_cache;
int mr_collide_convex_cached(const mr_shape *a, const mr_shape *b, double margin,
                             struct mr_depth_cache *cache, int ga, int gb, mr_contact_point *out);

/* The contact point of a penetration of the given depth along n (a to b): the witness of
 * the side whose support point is unique (curved), else the midpoint of both support points. */
void mr_penetration_point(const mr_shape *a, const mr_shape *b, const double n[3], double depth,
                          mr_contact_point *out);

/* collide_depth.c: penetration depth and normal (a to b) of two overlapping primitives
 * (not meshes) by Newton's method on the support gap, from the starting normal n0.
 * Returns 0, or -1 if a separating direction turns up. */
int mr_penetration_newton(const mr_shape *a, const mr_shape *b, const double n0[3],
                          double *depth, double n[3]);

/* collide_depth.c: the pair's normal n (unit, a to b) moved to where the support gap has a
 * kink, when that lies within the cone dot > cos_min about n and its gap is no larger than
 * n's: the nearest point of an edge's crease (the normals perpendicular to a box edge or
 * to a capsule's or cylinder's side), a face normal, or the normal of two edges. GJK's
 * distance is exact to round-off, but its normal, the direction between witness points,
 * only to first order, and across a kink the gap rises linearly: a capsule dipping across
 * a cylinder's rim got its manifold's points too deep along the normal GJK gave, and the
 * depth cache kept them so (README, design section). */
void mr_depth_snap(const mr_shape *a, const mr_shape *b, double n[3], double cos_min);

/* manifold.c: the contact points of a pair from the general path's single point (normal
 * a->b): the clipped contact polygon; for a penetration where one side's support is a
 * single point (a vertex, a rounded surface) and the other's a face or an edge, that
 * point; for two crossing edges, their closest points; otherwise the single point itself.
 * Returns their number (at least 1). */
int mr_manifold(const mr_shape *a, const mr_shape *b, const mr_contact_point *deepest,
                double margin, mr_contact_point *out);
/* manifold_thin.c: keeps at most budget of n points (n <= MR_THIN_CAP) of one contact, in
 * the order chosen: the deepest, then each time the one spreading the kept set most (the
 * farthest from it; MR_THIN_AREA: the one adding the most area to its polygon); ties go to
 * the point farther from the centroid, then the smaller feature id, so the choice holds
 * from step to step; scores within 1e-9 of scale (the shapes' size; its square for areas)
 * are ties of round-off (0: exact comparisons, equal scores kept by the earlier point: the plane-mesh path's
 * rule).
 * MR_THIN_CORNERS: the support polygon's corners before other points,
 * a planar patch keeps its corners only (even within the budget), and depths within 0.1%
 * of the deepest tie (a heightfield's points come from one convex solve per prism).
 * Returns the count.
 *
 * Clipped faces keep MR_FACE_MANIFOLD by area: four points are what a face resting on a
 * face needs (MuJoCo keeps four for a box on a box); every rigid support polygon is spanned
 * by its extreme points, and more points only add redundant rows whose sticking solution
 * is not unique. Up to eight clipped points of two yawed or slightly tilted boxes made the
 * soft and sap five-box stacks walk 5 mm. */
#define MR_THIN_CAP 96
enum { MR_THIN_SPREAD = 0, MR_THIN_AREA = 1, MR_THIN_CORNERS = 2 };
int mr_manifold_thin(mr_contact_point *pts, int n, int budget, int rule, double scale);

#endif
