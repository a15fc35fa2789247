/* Closed-form pairs with a plane (the half-space below the geom's local z = 0): exact for
 * every primitive, and a plane is where most contacts of a robot happen.
 *
 * Sphere, capsule (its two end spheres: features 0 and 1), ellipsoid (its support point),
 * box (its corners below the margin: features = corner index), cylinder (rim points, see
 * below) and convex mesh (the hull vertices below the margin, reduced). */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

/* Signed height of p above the plane. */
static inline double mr_plane_height(const mr_shape *pl, const double n[3], const double p[3]) {
  double r[3];
  mr_sub3(r, p, pl->pos);
  return mr_dot3(r, n);
}

/* Adds the contact of point p (on b's surface) at height h if below the margin. The point
 * on the plane is p - h n; the normal points from the plane to b. */
static int mr_plane_point(const double n[3], const double p[3], double h, double margin,
                          int feature, mr_contact_point *out) {
  if (h > margin) return 0;
  double pa[3];
  mr_copy3(pa, p);
  mr_addscl3(pa, n, -h);
  mr_point_set(out, pa, n, h, feature);
  return 1;
}

int mr_collide_plane_sphere(const mr_shape *a, const mr_shape *b, double margin,
                            mr_contact_point *out) {
  double n[3], p[3];
  mr_shape_axis(a, 2, n);
  mr_copy3(p, b->pos);
  mr_addscl3(p, n, -b->size[0]);
  return mr_plane_point(n, p, mr_plane_height(a, n, p), margin, 0, out);
}

int mr_collide_plane_capsule(const mr_shape *a, const mr_shape *b, double margin,
                             mr_contact_point *out) {
  double n[3], ax[3];
  mr_shape_axis(a, 2, n);
  mr_shape_axis(b, 2, ax);
  int cnt = 0;
  for (int e = 0; e < 2; e++) {
    double p[3];
    mr_copy3(p, b->pos);
    mr_addscl3(p, ax, e ? b->size[1] : -b->size[1]);
    mr_addscl3(p, n, -b->size[0]);
    cnt += mr_plane_point(n, p, mr_plane_height(a, n, p), margin, e, out + cnt);
  }
  return cnt;
}

int mr_collide_plane_ellipsoid(const mr_shape *a, const mr_shape *b, double margin,
                               mr_contact_point *out) {
  double n[3], m[3], p[3];
  mr_shape_axis(a, 2, n);
  mr_scale3(m, n, -1);
  mr_shape_support(b, m, p);
  return mr_plane_point(n, p, mr_plane_height(a, n, p), margin, 0, out);
}

int mr_collide_plane_box(const mr_shape *a, const mr_shape *b, double margin,
                         mr_contact_point *out) {
  double n[3];
  mr_shape_axis(a, 2, n);
  /* Early out: the lowest corner is above the margin. */
  double reach = 0, hc = mr_plane_height(a, n, b->pos);
  for (int k = 0; k < 3; k++) {
    double ax[3];
    mr_shape_axis(b, k, ax);
    reach += fabs(mr_dot3(ax, n)) * b->size[k];
  }
  if (hc - reach > margin) return 0;
  int cnt = 0;
  for (int c = 0; c < 8; c++) {
    double l[3] = {(c & 1) ? b->size[0] : -b->size[0], (c & 2) ? b->size[1] : -b->size[1],
                   (c & 4) ? b->size[2] : -b->size[2]}, p[3];
    mr_shape_to_world(b, p, l);
    cnt += mr_plane_point(n, p, mr_plane_height(a, n, p), margin, c, out + cnt);
  }
  return cnt;
}

/* Cylinder: on each cap, the deepest rim point and the rim points at 90, 180 and 270
 * degrees from it (features cap * 4 + k). Tilted on its edge this gives the one deepest
 * point; lying, the two deepest points of the caps (a line); standing, the square of 4 rim
 * points of the lower cap. When the cylinder stands (no deepest direction) the square starts
 * at the cylinder's local x axis, so the points are deterministic and turn with the body. */
int mr_collide_plane_cylinder(const mr_shape *a, const mr_shape *b, double margin,
                              mr_contact_point *out) {
  double n[3], ax[3], u[3], v[3];
  mr_shape_axis(a, 2, n);
  mr_shape_axis(b, 2, ax);
  double r = b->size[0], h = b->size[1], an = mr_dot3(ax, n);
  if (mr_plane_height(a, n, b->pos) - fabs(an) * h - r * sqrt(fmax(0.0, 1 - an * an)) > margin)
    return 0;
  /* u: the in-cap direction pointing most down the plane normal */
  mr_copy3(u, n);
  mr_addscl3(u, ax, -an);
  mr_scale3(u, u, -1);
  if (mr_norm3(u) < 1e-9) mr_shape_axis(b, 0, u);
  mr_normalize3(u);
  mr_cross3(v, ax, u);
  int cnt = 0;
  for (int cap = 0; cap < 2; cap++) {
    double c[3];
    mr_copy3(c, b->pos);
    mr_addscl3(c, ax, cap ? h : -h);
    for (int k = 0; k < 4; k++) {
      static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
      double p[3];
      mr_copy3(p, c);
      mr_addscl3(p, u, r * cs[k][0]);
      mr_addscl3(p, v, r * cs[k][1]);
      cnt += mr_plane_point(n, p, mr_plane_height(a, n, p), margin, cap * 4 + k, out + cnt);
    }
  }
  return cnt;
}

/* Mesh: every hull vertex below the margin (the touching face, or an edge or a vertex), at
 * most MR_MAX_MANIFOLD of them kept (deepest first, then the widest spread). */
int mr_collide_plane_mesh(const mr_shape *a, const mr_shape *b, double margin,
                          mr_contact_point *out) {
  double n[3];
  mr_shape_axis(a, 2, n);
  if (mr_plane_height(a, n, b->pos) - b->rbound > margin) return 0;
  enum { CAP = 64 };
  mr_contact_point buf[CAP];
  int cnt = 0;
  for (int k = 0; k < b->nhull; k++) {
    double l[3] = {b->hullvert[3 * k], b->hullvert[3 * k + 1], b->hullvert[3 * k + 2]}, p[3];
    mr_shape_to_world(b, p, l);
    double hgt = mr_plane_height(a, n, p);
    if (hgt > margin) continue;
    if (cnt == CAP) cnt = mr_manifold_thin(buf, cnt, MR_MAX_MANIFOLD, MR_THIN_SPREAD, 0);
    cnt += mr_plane_point(n, p, hgt, margin, k, buf + cnt);
  }
  cnt = mr_manifold_thin(buf, cnt, MR_MAX_MANIFOLD, MR_THIN_SPREAD, 0);
  for (int i = 0; i < cnt; i++) out[i] = buf[i];
  return cnt;
}
