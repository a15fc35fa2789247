/* Box pairs in closed form where that is exact and cheaper than the general path.
 *
 * Sphere-box: the sphere center in the box frame, clamped to the box.
 *
 * Box-box: the separating-axis test in the first box's frame. For two boxes the support gap
 * over all directions is smallest at one of 15 axes (3 faces of each, 9 edge-edge cross
 * products), so evaluating those 15 is the exact penetration depth and normal the general
 * path finds through MPR and Newton's corner search, at a fraction of the cost: in a frame
 * where one box is axis-aligned each candidate is a few dozen flops, not two world-frame
 * support calls. A positive gap on every axis means overlap (the general path's penetration
 * point and face clipping follow); a negative one proves a separation, which beyond the
 * margin ends the pair and within it goes to GJK, since an axis's separation is only a
 * lower bound of the distance when edges or vertices are closest. Other box pairs go
 * through the general path. */
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

/* The 15 candidate axes in a's frame (R's columns are b's axes, t is b's center, both in
 * a's frame), each with its projected half-extent r = h_a(u) + h_b(u) and the centers'
 * offset t.u: the support gap along +u is r - t.u, along -u r + t.u. Nearly parallel edges
 * give a cross product too short to normalize reliably; it is left out, as the faces then
 * cover that direction. Returns the number of axes. */
static int mr_box_axes(const mr_shape *a, const mr_shape *b, const double R[9], const double t[3],
                       double axis[15][3], double r[15], double tu[15]) {
  int n = 0;
  for (int k = 0; k < 15; k++) {
    double *u = axis[n];
    mr_zero3(u);
    if (k < 3) {
      u[k] = 1;
    } else if (k < 6) {
      for (int i = 0; i < 3; i++) u[i] = R[3 * i + k - 3];
    } else {
      int i = (k - 6) / 3, j = (k - 6) % 3;
      double e[3] = {0, 0, 0}, bj[3] = {R[j], R[3 + j], R[6 + j]};
      e[i] = 1;
      mr_cross3(u, e, bj);
      if (mr_normalize3(u) < 1e-9) continue;
    }
    r[n] = 0;
    for (int i = 0; i < 3; i++) {
      double ub = u[0] * R[i] + u[1] * R[3 + i] + u[2] * R[6 + i];
      r[n] += a->size[i] * fabs(u[i]) + b->size[i] * fabs(ub);
    }
    tu[n] = mr_dot3(t, u);
    n++;
  }
  return n;
}

/* The smallest support gap over the 15 axes and its world normal (a to b). The candidates
 * are taken in the general path's order (every axis with its minus sign first, then every
 * axis with its plus sign), so that ties of exact arithmetic go the same way. */
static double mr_box_box_gap(const mr_shape *a, const mr_shape *b, double n[3]) {
  double R[9], rel[3], t[3], axis[15][3], r[15], tu[15];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = a->mat[i] * b->mat[j] + a->mat[3 + i] * b->mat[3 + j] + a->mat[6 + i] * b->mat[6 + j];
  mr_sub3(rel, b->pos, a->pos);
  mr_mulmatT3(t, a->mat, rel);
  int naxis = mr_box_axes(a, b, R, t, axis, r, tu);
  double best = HUGE_VAL, bu[3] = {0, 0, 1};
  for (int sg = -1; sg <= 1; sg += 2)
    for (int k = 0; k < naxis; k++) {
      double g = r[k] - sg * tu[k];
      if (g < best) { best = g; mr_scale3(bu, axis[k], sg); }
    }
  mr_mulmat3(n, a->mat, bu);
  return best;
}

int mr_collide_box_box(const mr_shape *a, const mr_shape *b, double margin,
                       mr_contact_point *out) {
  double n[3], gap = mr_box_box_gap(a, b, n);
  if (-gap > margin) return 0;
  if (gap < 0) return mr_collide_convex(a, b, margin, out);
  mr_contact_point deepest;
  mr_penetration_point(a, b, n, gap, &deepest);
  return mr_manifold(a, b, &deepest, margin, out);
}
