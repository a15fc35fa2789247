/* Capsule-capsule in closed form: the closest points of the two axis segments, then the
 * sphere-sphere contact there. Parallel overlapping capsules (lying side by side) give two
 * points, at the ends of the overlap (features 0 and 1), so they do not roll on one point. */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

void mr_segments_closest(const double p[3], const double e[3], const double q[3],
                         const double f[3], double *s, double *t) {
  double r[3];
  mr_sub3(r, p, q);
  double a = mr_dot3(e, e), c = mr_dot3(f, f), g = mr_dot3(f, r);
  const double eps = 1e-24;
  if (a <= eps && c <= eps) { *s = *t = 0; return; }
  if (a <= eps) { *s = 0; *t = fmax(0.0, fmin(1.0, g / c)); return; }
  double cc = mr_dot3(e, r);
  if (c <= eps) { *t = 0; *s = fmax(0.0, fmin(1.0, -cc / a)); return; }
  double b = mr_dot3(e, f), den = a * c - b * b;
  double ss = den > 1e-14 * a * c ? fmax(0.0, fmin(1.0, (b * g - cc * c) / den)) : 0;
  double tt = (b * ss + g) / c;
  if (tt < 0) { tt = 0; ss = fmax(0.0, fmin(1.0, -cc / a)); }
  else if (tt > 1) { tt = 1; ss = fmax(0.0, fmin(1.0, (b - cc) / a)); }
  *s = ss;
  *t = tt;
}

/* The contact of spheres at pa (radius ra) and pb (radius rb); the normal falls back on
 * fallback when the centers coincide. */
static int mr_capsule_spheres(const double pa[3], double ra, const double pb[3], double rb,
                              const double fallback[3], double margin, int feature,
                              mr_contact_point *out) {
  double n[3], s[3];
  mr_sub3(n, pb, pa);
  double len = mr_norm3(n), dist = len - ra - rb;
  if (dist > margin) return 0;
  if (len > 1e-12) mr_scale3(n, n, 1.0 / len);
  else mr_copy3(n, fallback);
  mr_copy3(s, pa);
  mr_addscl3(s, n, ra);
  mr_point_set(out, s, n, dist, feature);
  return 1;
}

/* Normal for coincident axis points: perpendicular to both axes, toward b's center. */
static void mr_capsule_fallback(const mr_shape *a, const mr_shape *b, const double e[3],
                                const double f[3], double n[3]) {
  double c[3];
  mr_cross3(n, e, f);
  if (mr_normalize3(n) < 1e-12) { /* parallel: any direction perpendicular to the axis */
    double ax[3];
    mr_shape_axis(a, 0, ax);
    mr_copy3(n, ax);
  }
  mr_sub3(c, b->pos, a->pos);
  if (mr_dot3(n, c) < 0) mr_scale3(n, n, -1);
}

int mr_collide_capsule_capsule(const mr_shape *a, const mr_shape *b, double margin,
                               mr_contact_point *out) {
  double ea[3], eb[3], p[3], q[3], e[3], f[3], fb[3];
  mr_shape_axis(a, 2, ea);
  mr_shape_axis(b, 2, eb);
  mr_copy3(p, a->pos); mr_addscl3(p, ea, -a->size[1]);
  mr_copy3(q, b->pos); mr_addscl3(q, eb, -b->size[1]);
  mr_scale3(e, ea, 2 * a->size[1]);
  mr_scale3(f, eb, 2 * b->size[1]);
  mr_capsule_fallback(a, b, ea, eb, fb);
  double ra = a->size[0], rb = b->size[0];
  double cr[3];
  mr_cross3(cr, ea, eb);
  if (mr_dot3(cr, cr) < 1e-12 && a->size[1] > 0 && b->size[1] > 0) {
    /* parallel: the overlap of b's end points projected on a's axis */
    double u = 1.0 / mr_dot3(e, e), t0, t1, r0[3], r1[3];
    mr_sub3(r0, q, p);
    mr_add3(r1, q, f);
    mr_sub3(r1, r1, p);
    t0 = mr_dot3(r0, e) * u;
    t1 = mr_dot3(r1, e) * u;
    double lo = fmax(0.0, fmin(t0, t1)), hi = fmin(1.0, fmax(t0, t1));
    if (hi > lo + 1e-9) {
      int cnt = 0;
      for (int k = 0; k < 2; k++) {
        double s = k ? hi : lo, pa[3], pb[3], w[3];
        mr_copy3(pa, p); mr_addscl3(pa, e, s);
        mr_sub3(w, pa, q);
        double t = fmax(0.0, fmin(1.0, mr_dot3(w, f) / mr_dot3(f, f)));
        mr_copy3(pb, q); mr_addscl3(pb, f, t);
        cnt += mr_capsule_spheres(pa, ra, pb, rb, fb, margin, k, out + cnt);
      }
      return cnt;
    }
  }
  double s, t, pa[3], pb[3];
  mr_segments_closest(p, e, q, f, &s, &t);
  mr_copy3(pa, p); mr_addscl3(pa, e, s);
  mr_copy3(pb, q); mr_addscl3(pb, f, t);
  return mr_capsule_spheres(pa, ra, pb, rb, fb, margin, 0, out);
}
