/* Sphere-box in closed form: the sphere center in the box frame, clamped to the box. Box-box
 * and the other box pairs go through the general path and face clipping (manifold.c). */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

int mr_collide_sphere_box(const mr_shape *a, const mr_shape *b, double margin,
                          mr_contact_point *out) {
  double rel[3], c[3], q[3], n[3], nl[3], pa[3];
  double r = a->size[0];
  const double *h = b->size;
  mr_sub3(rel, a->pos, b->pos);
  mr_mulmatT3(c, b->mat, rel);
  int outside = 0;
  for (int i = 0; i < 3; i++) {
    q[i] = fmax(-h[i], fmin(h[i], c[i]));
    if (q[i] != c[i]) outside = 1;
  }
  double dist;
  if (outside) { /* normal from the sphere center to the closest box point */
    mr_sub3(nl, q, c);
    double len = mr_norm3(nl);
    dist = len - r;
    if (dist > margin) return 0;
    mr_scale3(nl, nl, 1.0 / len);
  } else { /* center inside: leave through the nearest face (lowest index on ties) */
    int k = 0;
    double slack = h[0] - fabs(c[0]);
    for (int i = 1; i < 3; i++)
      if (h[i] - fabs(c[i]) < slack) { slack = h[i] - fabs(c[i]); k = i; }
    dist = -slack - r;
    if (dist > margin) return 0;
    mr_zero3(nl);
    nl[k] = c[k] < 0 ? 1 : -1;
  }
  mr_mulmat3(n, b->mat, nl);
  mr_copy3(pa, a->pos);
  mr_addscl3(pa, n, r);
  mr_point_set(out, pa, n, dist, 0);
  return 1;
}
