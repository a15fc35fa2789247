/* Wrapping a tendon segment around a sphere or an (infinite) cylinder geom: the shortest
 * path from x0 to x1 that does not cross the geom, as MuJoCo 2.2 defines it.
 *
 * Both shapes reduce to a circle of the geom's radius in a plane: for a sphere, the plane
 * through its center and the two points (a great circle); for a cylinder, the plane normal
 * to its axis, the height then following the unrolled surface, a helix. In the plane the
 * path is x0 -> tangent point t0 -> arc -> t1 -> x1. From an outside point at distance L
 * the tangent points sit at +-alpha from its direction, cos(alpha) = r / L; travelling
 * counterclockwise around the circle, the path leaves x0's tangent line at phi0 + alpha0
 * and joins x1's at phi1 - alpha1 (clockwise: the signs flip).
 *
 * MuJoCo's rules decide whether and which way to wrap, and they are what makes two
 * simulators agree, so they are kept exactly:
 *   - no wrap if either point is inside the circle, or the straight segment misses the
 *     circle (and no side site asks for the other side of it);
 *   - of the two ways around, the one whose chord midpoint (t0 + t1) points closer to the
 *     side site, or without a side site the one with the shorter chord |t0 - t1|; a way
 *     whose straight parts x0-t0 and x1-t1 cross each other is never chosen, and if the
 *     chosen one crosses, there is no wrap; on a tie the counterclockwise way;
 *   - a side site inside the circle (in the plane) means the path passes through the geom
 *     touching its surface at one point, where the two straight parts make equal angles
 *     with the normal (a reflection), found by Newton's method on the angle equation.
 */
#include <math.h>
#include <string.h>

#include "dynamics.h"
#include "engine/core/mr_math.h"

#define MR_WRAP_EPS 1e-15 /* MuJoCo's mjMINVAL: the smallest denominator */

/* ------------------------------------------------------------------ 2-D helpers */

static double mr_cross2(const double a[2], const double b[2]) { return a[0] * b[1] - a[1] * b[0]; }

/* Whether the segments p0-p1 and q0-q1 intersect (parallel segments do not). */
static int mr_segments_cross(const double p0[2], const double p1[2], const double q0[2],
                             const double q1[2]) {
  double u[2] = {p1[0] - p0[0], p1[1] - p0[1]}, v[2] = {q1[0] - q0[0], q1[1] - q0[1]};
  double w[2] = {q0[0] - p0[0], q0[1] - p0[1]};
  double den = mr_cross2(u, v);
  if (fabs(den) < MR_WRAP_EPS) return 0;
  double s = mr_cross2(w, v) / den, t = mr_cross2(w, u) / den;
  return s >= 0 && s <= 1 && t >= 0 && t <= 1;
}

/* The tangent point of the circle seen from p at angle dir * alpha off p's direction. */
static void mr_tangent_point(double t[2], const double p[2], double r, int dir) {
  double len2 = p[0] * p[0] + p[1] * p[1], c = r * r / len2;
  double s = dir * r * sqrt(len2 - r * r) / len2;
  t[0] = c * p[0] - s * p[1];
  t[1] = c * p[1] + s * p[0];
}

/* Angle swept from a to b turning in direction dir (+1 counterclockwise), in [0, 2 pi). */
static double mr_sweep(const double a[2], const double b[2], int dir) {
  double angle = dir * atan2(mr_cross2(a, b), a[0] * b[0] + a[1] * b[1]);
  return angle < 0 ? angle + 2 * MR_PI : angle;
}

/* ------------------------------------------------------------------ circle wrap */

/* The path around the circle: tangent points into t (4) and the arc length, or -1 when the
 * straight segment stands. side: the side point in the plane, NULL without. */
static double mr_wrap_circle(double t[4], const double d[4], const double *side, double r) {
  const double *p0 = d, *p1 = d + 2;
  double len0 = p0[0] * p0[0] + p0[1] * p0[1], len1 = p1[0] * p1[0] + p1[1] * p1[1];
  if (len0 < r * r || len1 < r * r || r < MR_WRAP_EPS) return -1;
  double dif[2] = {p1[0] - p0[0], p1[1] - p0[1]}, dd = dif[0] * dif[0] + dif[1] * dif[1];
  if (dd < MR_WRAP_EPS) return -1;
  /* the segment's point closest to the center */
  double a = -(dif[0] * p0[0] + dif[1] * p0[1]) / dd;
  a = a < 0 ? 0 : a > 1 ? 1 : a;
  double near[2] = {p0[0] + a * dif[0], p0[1] + a * dif[1]};
  if (near[0] * near[0] + near[1] * near[1] > r * r &&
      (!side || side[0] * near[0] + side[1] * near[1] >= 0))
    return -1;

  /* way 0 clockwise, way 1 counterclockwise */
  double cand[2][4], good[2];
  for (int way = 0; way < 2; way++) {
    int dir = way ? 1 : -1;
    double *c = cand[way];
    mr_tangent_point(c, p0, r, dir);
    mr_tangent_point(c + 2, p1, r, -dir);
    if (side) {
      double mid[2] = {c[0] + c[2], c[1] + c[3]}, n = sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
      good[way] = n > MR_WRAP_EPS ? (mid[0] * side[0] + mid[1] * side[1]) / n : 0;
    } else {
      good[way] = -((c[0] - c[2]) * (c[0] - c[2]) + (c[1] - c[3]) * (c[1] - c[3]));
    }
    if (mr_segments_cross(p0, c, p1, c + 2)) good[way] = -10000;
  }
  int way = good[0] > good[1] ? 0 : 1;
  memcpy(t, cand[way], 4 * sizeof(double));
  if (mr_segments_cross(p0, t, p1, t + 2)) return -1;
  return r * mr_sweep(t, t + 2, way ? 1 : -1);
}

/* ------------------------------------------------------------------ inside wrap */

/* The angle equation of the touching point: with A = r/|p0|, B = r/|p1|, G the angle
 * between p0 and p1 and z the sine of the angle of incidence, the angles from p0 and p1 to
 * the point, asin(z) - asin(A z) and asin(z) - asin(B z), add up to G. */
static double mr_inside_f(double z, double A, double B, double G) {
  return asin(A * z) + asin(B * z) - 2 * asin(z) + G;
}

/* The path through the circle touching it at one point (t[0..1] = t[2..3]); returns 0, or
 * -1 when the straight segment stands (it crosses the circle, or a point is inside). */
static double mr_wrap_inside(double t[4], const double d[4], double r) {
  const double *p0 = d, *p1 = d + 2;
  double len0 = sqrt(p0[0] * p0[0] + p0[1] * p0[1]), len1 = sqrt(p1[0] * p1[0] + p1[1] * p1[1]);
  if (len0 <= r || len1 <= r || r < MR_WRAP_EPS) return -1;
  double dif[2] = {p1[0] - p0[0], p1[1] - p0[1]}, dd = dif[0] * dif[0] + dif[1] * dif[1];
  if (dd > MR_WRAP_EPS) {
    double a = -(dif[0] * p0[0] + dif[1] * p0[1]) / dd;
    double near[2] = {p0[0] + a * dif[0], p0[1] + a * dif[1]};
    if (a > 0 && a < 1 && sqrt(near[0] * near[0] + near[1] * near[1]) <= r) return -1;
  }
  /* when the angle equation has no usable root: the direction halfway between the points */
  double mid[2] = {p0[0] + p1[0], p0[1] + p1[1]}, nm = sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
  t[0] = t[2] = nm > 0 ? r * mid[0] / nm : r;
  t[1] = t[3] = nm > 0 ? r * mid[1] / nm : 0;
  double A = r / len0, B = r / len1;
  double cosG = (len0 * len0 + len1 * len1 - dd) / (2 * len0 * len1);
  if (cosG < -1 + MR_WRAP_EPS) return -1;
  if (cosG > 1 - MR_WRAP_EPS) return 0;
  double G = acos(cosG), z = 1 - 1e-7, f = mr_inside_f(z, A, B, G);
  if (f > 0) return 0;
  /* f falls from f(0) = G > 0 and is concave on (0, 1), so Newton from the right of its
   * root converges monotonically */
  for (int iter = 0; iter < 50 && fabs(f) > 1e-15; iter++) {
    double df = A / sqrt(fmax(MR_WRAP_EPS, 1 - z * z * A * A)) +
                B / sqrt(fmax(MR_WRAP_EPS, 1 - z * z * B * B)) -
                2 / sqrt(fmax(MR_WRAP_EPS, 1 - z * z));
    if (!(df < -MR_WRAP_EPS)) break;
    double next = z - f / df;
    if (!(next < z) || next <= 0) break;
    z = next;
    f = mr_inside_f(z, A, B, G);
  }
  /* rotate counterclockwise from whichever point lies clockwise of the other */
  const double *from = mr_cross2(p0, p1) > 0 ? p0 : p1;
  double ang = asin(z) - asin((from == p0 ? A : B) * z), len = from == p0 ? len0 : len1;
  double c = cos(ang), s = sin(ang);
  t[0] = t[2] = r * (c * from[0] - s * from[1]) / len;
  t[1] = t[3] = r * (s * from[0] + c * from[1]) / len;
  return 0;
}

/* ------------------------------------------------------------------ 3-D */

/* The plane of a sphere wrap: axes a0 (towards p0) and a1, spanning p0 and p1. Collinear
 * points (no unique plane) take MuJoCo's choice, so a symmetric model wraps the same way. */
static void mr_sphere_plane(const double p0[3], const double p1[3], double a0[3], double a1[3]) {
  double normal[3];
  mr_copy3(a0, p0);
  mr_normalize3(a0);
  mr_cross3(normal, p0, p1);
  if (mr_normalize3(normal) < MR_WRAP_EPS) {
    int big = 0;
    if (fabs(a0[1]) > fabs(a0[0]) && fabs(a0[1]) > fabs(a0[2])) big = 1;
    if (fabs(a0[2]) > fabs(a0[0]) && fabs(a0[2]) > fabs(a0[1])) big = 2;
    double other[3] = {1, 1, 1};
    other[big] = 0;
    mr_cross3(normal, a0, other);
    mr_normalize3(normal);
  }
  mr_cross3(a1, normal, a0);
  mr_normalize3(a1);
}

double mr_wrap(int type, const double x0[3], const double x1[3], const double pos[3],
               const double mat[9], double radius, const double *side, double out[6]) {
  double p[2][3], tmp[3];
  mr_sub3(tmp, x0, pos);
  mr_mulmatT3(p[0], mat, tmp);
  mr_sub3(tmp, x1, pos);
  mr_mulmatT3(p[1], mat, tmp);
  if (mr_norm3(p[0]) < MR_WRAP_EPS || mr_norm3(p[1]) < MR_WRAP_EPS) return -1;

  double a0[3] = {1, 0, 0}, a1[3] = {0, 1, 0};
  if (type == MR_WRAP_SPHERE) mr_sphere_plane(p[0], p[1], a0, a1);
  double d[4] = {mr_dot3(p[0], a0), mr_dot3(p[0], a1), mr_dot3(p[1], a0), mr_dot3(p[1], a1)};
  double sd[2], t[4], wlen;
  int inside = 0;
  if (side) {
    double s[3];
    mr_sub3(tmp, side, pos);
    mr_mulmatT3(s, mat, tmp);
    sd[0] = mr_dot3(s, a0);
    sd[1] = mr_dot3(s, a1);
    inside = sqrt(sd[0] * sd[0] + sd[1] * sd[1]) < radius;
  }
  wlen = inside ? mr_wrap_inside(t, d, radius) : mr_wrap_circle(t, d, side ? sd : NULL, radius);
  if (wlen < 0) return -1;

  double res[2][3];
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++) res[i][k] = a0[k] * t[2 * i] + a1[k] * t[2 * i + 1];
  if (type == MR_WRAP_CYLINDER) {
    /* unrolled, the surface path is straight: heights in proportion to the planar lengths */
    double L0 = hypot(p[0][0] - res[0][0], p[0][1] - res[0][1]);
    double L1 = hypot(p[1][0] - res[1][0], p[1][1] - res[1][1]);
    double dz = p[1][2] - p[0][2], total = L0 + wlen + L1;
    res[0][2] = p[0][2] + dz * L0 / total;
    res[1][2] = p[0][2] + dz * (L0 + wlen) / total;
    double h = res[1][2] - res[0][2];
    wlen = sqrt(wlen * wlen + h * h);
  }
  for (int i = 0; i < 2; i++) {
    mr_mulmat3(out + 3 * i, mat, res[i]);
    mr_add3(out + 3 * i, out + 3 * i, pos);
  }
  return wlen;
}
