/* The narrow phase: a table over (type, type) pairs, lower type first. Closed-form routines
 * where they are exact and cheaper than the general path; every other convex pair goes
 * through libccd (collide_convex.c) with a face-clipped manifold (manifold.c), and
 * heightfields through their prisms (collide_hfield.c). The caller's order is restored by
 * flipping the normals, so they always point from g1 to g2. */
#include <math.h>

#include "engine/core/mr_math.h"
#include "narrowphase.h"
#include "shape.h"

#define P MR_GEOM_PLANE
#define S MR_GEOM_SPHERE
#define C MR_GEOM_CAPSULE
#define E MR_GEOM_ELLIPSOID
#define Y MR_GEOM_CYLINDER
#define B MR_GEOM_BOX
#define M MR_GEOM_MESH

static const mr_collide_fn mr_collide_table[MR_GEOM_NTYPES][MR_GEOM_NTYPES] = {
  [P] = {[S] = mr_collide_plane_sphere, [C] = mr_collide_plane_capsule,
         [E] = mr_collide_plane_ellipsoid, [Y] = mr_collide_plane_cylinder,
         [B] = mr_collide_plane_box, [M] = mr_collide_plane_mesh},
  [S] = {[S] = mr_collide_sphere_sphere, [C] = mr_collide_sphere_capsule,
         [E] = mr_collide_convex, [Y] = mr_collide_convex, [B] = mr_collide_sphere_box,
         [M] = mr_collide_convex},
  [C] = {[C] = mr_collide_capsule_capsule, [E] = mr_collide_convex, [Y] = mr_collide_convex,
         [B] = mr_collide_convex, [M] = mr_collide_convex},
  [E] = {[E] = mr_collide_convex, [Y] = mr_collide_convex, [B] = mr_collide_convex,
         [M] = mr_collide_convex},
  [Y] = {[Y] = mr_collide_convex, [B] = mr_collide_convex, [M] = mr_collide_convex},
  [B] = {[B] = mr_collide_box_box, [M] = mr_collide_convex},
  [M] = {[M] = mr_collide_convex},
};

#undef P
#undef S
#undef C
#undef E
#undef Y
#undef B
#undef M

int mr_narrowphase_is_general(int t1, int t2) {
  if (t1 < 0 || t2 < 0 || t1 >= MR_GEOM_NTYPES || t2 >= MR_GEOM_NTYPES) return 0;
  return (t1 <= t2 ? mr_collide_table[t1][t2] : mr_collide_table[t2][t1]) == mr_collide_convex;
}

/* Bounding spheres apart by more than the margin: no contact (planes have none). */
static int mr_bounds_apart(const mr_shape *a, const mr_shape *b, double margin) {
  if (a->type == MR_GEOM_PLANE || b->type == MR_GEOM_PLANE) return 0;
  double r[3];
  mr_sub3(r, a->pos, b->pos);
  double reach = a->rbound + b->rbound + margin;
  return mr_dot3(r, r) > reach * reach;
}

/* A heightfield (type 1, lower than every convex type) against a convex geom; nothing
 * against planes and other heightfields, which are all static. */
static int mr_narrowphase_hfield(const mr_model *m, const mr_data *d, int g1, int g2, double margin,
                                 mr_contact_point *out) {
  int swap = m->geom_type[g2] == MR_GEOM_HFIELD;
  int other = m->geom_type[swap ? g1 : g2];
  if (other == MR_GEOM_PLANE || other == MR_GEOM_HFIELD) return 0;
  mr_shape a, b;
  mr_shape_make(m, d, swap ? g2 : g1, &a);
  mr_shape_make(m, d, swap ? g1 : g2, &b);
  int n = mr_collide_hfield(m, &a, &b, margin, out);
  if (swap)
    for (int i = 0; i < n; i++) mr_scale3(out[i].normal, out[i].normal, -1);
  return n;
}

int mr_narrowphase_cached(const mr_model *m, const mr_data *d, int g1, int g2, double margin,
                          struct mr_depth_cache *cache, mr_contact_point out[MR_MAX_MANIFOLD]) {
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (t1 < 0 || t2 < 0 || t1 >= MR_GEOM_NTYPES || t2 >= MR_GEOM_NTYPES) return 0;
  if (t1 == MR_GEOM_HFIELD || t2 == MR_GEOM_HFIELD) return mr_narrowphase_hfield(m, d, g1, g2, margin, out);
  int swap = t1 > t2;
  mr_collide_fn fn = swap ? mr_collide_table[t2][t1] : mr_collide_table[t1][t2];
  if (!fn) return 0;
  int ga = swap ? g2 : g1, gb = swap ? g1 : g2;
  mr_shape a, b;
  mr_shape_make(m, d, ga, &a);
  mr_shape_make(m, d, gb, &b);
  if (mr_bounds_apart(&a, &b, margin)) return 0;
  int n = fn == mr_collide_convex && cache
              ? mr_collide_convex_cached(&a, &b, margin, cache, ga, gb, out)
              : fn(&a, &b, margin, out);
  if (swap)
    for (int i = 0; i < n; i++) mr_scale3(out[i].normal, out[i].normal, -1);
  return n;
}

int mr_narrowphase(const mr_model *m, const mr_data *d, int g1, int g2, double margin,
                   mr_contact_point out[MR_MAX_MANIFOLD]) {
  return mr_narrowphase_cached(m, d, g1, g2, margin, NULL, out);
}
