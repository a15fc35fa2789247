/* Closed-form pairs with a sphere: sphere-sphere and sphere-capsule (exact and cheaper than
 * the general path). */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

/* The contact of two spheres (centers ca, cb, radii ra, rb). Coincident centers get the
 * deterministic normal +z so that the output is always finite. */
static int mr_spheres(const double ca[3], double ra, const double cb[3], double rb,
                      double margin, int feature, mr_contact_point *out) {
  double n[3], pa[3];
  mr_sub3(n, cb, ca);
  double len = mr_norm3(n);
  double dist = len - ra - rb;
  if (dist > margin) return 0;
  if (len > MR_MINVAL) mr_scale3(n, n, 1.0 / len);
  else { n[0] = n[1] = 0; n[2] = 1; }
  mr_copy3(pa, ca);
  mr_addscl3(pa, n, ra);
  mr_point_set(out, pa, n, dist, feature);
  return 1;
}

int mr_collide_sphere_sphere(const mr_shape *a, const mr_shape *b, double margin,
                             mr_contact_point *out) {
  return mr_spheres(a->pos, a->size[0], b->pos, b->size[0], margin, 0, out);
}

int mr_collide_sphere_capsule(const mr_shape *a, const mr_shape *b, double margin,
                              mr_contact_point *out) {
  double ax[3], rel[3], q[3];
  mr_shape_axis(b, 2, ax);
  mr_sub3(rel, a->pos, b->pos);
  double h = b->size[1];
  double t = fmax(-h, fmin(h, mr_dot3(rel, ax)));
  mr_copy3(q, b->pos);
  mr_addscl3(q, ax, t);
  return mr_spheres(a->pos, a->size[0], q, b->size[0], margin, 0, out);
}
