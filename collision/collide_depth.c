/* Penetration depth and normal of two overlapping convex primitives, by Newton's method on
 * the support function instead of repeated MPR.
 *
 * For a unit direction n, the support gap f(n) = h_a(n) + h_b(-n) (h: support function) is
 * the distance b must move along n to clear a, so f(n) >= depth for every n and the depth is
 * the minimum of f over the unit sphere. Its gradient is the support point w = s_a(n) -
 * s_b(-n) of the Minkowski difference, its Hessian the sum of both shapes' support Hessians
 * (mr_shape_support_hess: the inverse curvature of the surface, zero on flat sides). On the
 * sphere the Newton system in a tangent basis (t1, t2) is
 *     (T^T H T - f I) u = -T^T w,     n <- normalize(n + T u),
 * quadratic where f is smooth (curved parts of both surfaces meet), so 4-6 steps reach
 * round-off.
 *
 * f is not smooth everywhere: a flat face makes a corner of f at its normal, an edge (a box
 * edge, a capsule or cylinder side line) a crease along the great circle of normals
 * perpendicular to it. The minimum is therefore one of
 *   - a corner: a face normal (box faces, cylinder caps) or the normal of two edges (their
 *     cross product): evaluated directly, as the separating-axis test does;
 *   - a point of a crease, where f is smooth along the circle: a 1D Newton on that circle;
 *   - a smooth point: the 2D Newton above.
 * Every candidate is an upper bound of the depth, so the smallest one is kept; for two boxes
 * the corners alone are the exact separating-axis answer. Meshes keep the MPR path
 * (collide_convex.c): their faces are too many to enumerate per call.
 *
 * The starting normal comes from the caller (a coarse MPR normal); Newton converges to the
 * local minimum nearest it, as the MPR refinement it replaces did. */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

#define MR_NEWTON_ITERS 40
#define MR_SLOW_STEPS 40 /* gradient steps in a row before a Newton search gives up */
#define MR_HALVINGS 10
#define MR_CONE_NEAR 0.9 /* cone minima are searched when the best normal is within ~25
                            degrees of a cap normal */ /* line search: a step shrunk by 1000 that still fails is given up */
#define MR_NEWTON_STEP_TOL 1e-11 /* radians: the gap is then exact to ~1e-22 x curvature */
/* The 2D Newton stops on the crease that holds it, so that crease passes through where it
 * stopped: on a shallow overlap (depth below MR_CREASE_SHALLOW of the smaller shape's
 * bounding radius) only the circles of edges nearly perpendicular to that normal (|n . e|
 * below MR_CREASE_NEAR, about 6 degrees) are searched. On shallow overlaps the circles of
 * the other edges cost many gap evaluations and did not find a smaller gap (README, design
 * section); on deep poses they sometimes hold the global minimum where the local one is
 * higher (tests/test_narrowphase.c's depth test counts those), so deep overlaps search
 * them all. */
#define MR_CREASE_NEAR 0.1
#define MR_CREASE_SHALLOW 0.05

typedef struct mr_depth_pair {
  const mr_shape *a, *b;
  double scale; /* length scale of the pair, for tolerances */
} mr_depth_pair;

/* f(n); the gradient w and Hessian H of f when w is given. */
static double mr_gap(const mr_depth_pair *p, const double n[3], double w[3], double H[9]) {
  double pa[3], pb[3], m[3] = {-n[0], -n[1], -n[2]};
  if (!w) {
    mr_shape_support(p->a, n, pa);
    mr_shape_support(p->b, m, pb);
    return mr_dot3(pa, n) - mr_dot3(pb, n);
  }
  double Hb[9];
  mr_shape_support_hess(p->a, n, pa, H);
  mr_shape_support_hess(p->b, m, pb, Hb);
  for (int i = 0; i < 9; i++) H[i] += Hb[i];
  mr_sub3(w, pa, pb);
  return mr_dot3(w, n);
}

static double mr_quad(const double H[9], const double x[3], const double y[3]) {
  double hy[3];
  mr_mulmat3(hy, H, y);
  return mr_dot3(x, hy);
}

/* Unit t1, t2 with (t1, t2, n) orthonormal. */
static void mr_tangents(const double n[3], double t1[3], double t2[3]) {
  double a[3] = {0, 0, 0};
  a[fabs(n[0]) < 0.57 ? 0 : fabs(n[1]) < 0.57 ? 1 : 2] = 1;
  mr_cross3(t1, n, a);
  mr_normalize3(t1);
  mr_cross3(t2, n, t1);
}

/* Step length along a descent direction where f has no usable curvature: about the angle
 * that moves the support plane by |g| (one gradient step on the sphere), at most 0.2 rad. */
static double mr_gradient_step(const mr_depth_pair *p, double gnorm, double f) {
  return fmin(0.2, gnorm / fmax(fabs(f), 1e-3 * p->scale));
}

/* f rises along u from n within MR_KINK_PROBE rad: the direction leaves a corner or
 * crease of f (a face normal, an edge's circle) uphill, where Newton's model, blind to the
 * kink, proposed it. Probed once a full step has failed, so that a search from a kink gives
 * up after two gap evaluations instead of MR_HALVINGS; f rises by about (shape size) x
 * MR_KINK_PROBE there, far above round-off. */
#define MR_KINK_PROBE 1e-7
static int mr_uphill(const mr_depth_pair *p, const double n[3], double f, const double u[3]) {
  double len = mr_norm3(u), nn[3];
  if (len <= MR_KINK_PROBE) return 0;
  mr_copy3(nn, n);
  mr_addscl3(nn, u, MR_KINK_PROBE / len);
  mr_normalize3(nn);
  return mr_gap(p, nn, 0, 0) > f;
}

/* Tries n + u (u tangent at n), halving u until f decreases; a step below 1e-7 rad is
 * accepted as is (f then changes at round-off level, below any test). Returns 1 if taken. */
static int mr_line_search(const mr_depth_pair *p, double n[3], double *f, double u[3],
                          int newton) {
  for (int k = 0; k < MR_HALVINGS; k++) {
    double nn[3];
    mr_add3(nn, n, u);
    mr_normalize3(nn);
    double fn = mr_gap(p, nn, 0, 0);
    if (fn < *f || (newton && mr_norm3(u) < 1e-7 && fn <= *f + 1e-13 * p->scale)) {
      mr_copy3(n, nn);
      *f = fn;
      return 1;
    }
    if (k == 0 && mr_uphill(p, n, *f, u)) return 0;
    mr_scale3(u, u, 0.5);
  }
  return 0;
}

/* 2D Newton over the whole sphere from n; returns the gap reached (n updated). *smooth
 * tells whether it converged quadratically to a smooth minimum (not stalled on a crease). */
static double mr_newton_sphere(const mr_depth_pair *p, double n[3], double f, int *smooth) {
  *smooth = 0;
  int slow = 0; /* consecutive steps without usable curvature: linear progress at best */
  for (int it = 0; it < MR_NEWTON_ITERS && slow < MR_SLOW_STEPS; it++) {
    double w[3], H[9], t1[3], t2[3], u[3];
    f = mr_gap(p, n, w, H);
    mr_tangents(n, t1, t2);
    double g1 = mr_dot3(w, t1), g2 = mr_dot3(w, t2);
    double m11 = mr_quad(H, t1, t1) - f, m12 = mr_quad(H, t1, t2), m22 = mr_quad(H, t2, t2) - f;
    double det = m11 * m22 - m12 * m12, u1, u2;
    int newton = m11 > 0 && m22 > 0 && det > 1e-12 * m11 * m22;
    slow = newton ? 0 : slow + 1;
    if (newton) {
      u1 = -(m22 * g1 - m12 * g2) / det;
      u2 = -(m11 * g2 - m12 * g1) / det;
    } else { /* along the gradient, with Newton's length when f curves up that way */
      double gg = g1 * g1 + g2 * g2, g = sqrt(gg);
      if (g < MR_MINVAL) break;
      double c = (g1 * g1 * m11 + 2 * g1 * g2 * m12 + g2 * g2 * m22) / gg;
      double s = c > 0 ? 1.0 / c : mr_gradient_step(p, g, f) / g;
      u1 = -s * g1;
      u2 = -s * g2;
    }
    double len = sqrt(u1 * u1 + u2 * u2);
    if (len > 0.5) { u1 *= 0.5 / len; u2 *= 0.5 / len; }
    mr_zero3(u);
    mr_addscl3(u, t1, u1);
    mr_addscl3(u, t2, u2);
    if (mr_line_search(p, n, &f, u, newton)) {
      if (newton && len < MR_NEWTON_STEP_TOL) { *smooth = 1; break; }
      continue;
    }
    /* Newton failed: on a corner of f (a cylinder's cap normal) the curvature misleads;
     * one steepest-descent step leaves it, or nothing decreases f here */
    double g = sqrt(g1 * g1 + g2 * g2);
    if (!newton || g < MR_MINVAL) break;
    double s = mr_gradient_step(p, g, f) / g;
    mr_zero3(u);
    mr_addscl3(u, t1, -s * g1);
    mr_addscl3(u, t2, -s * g2);
    if (!mr_line_search(p, n, &f, u, 0)) break;
  }
  return mr_gap(p, n, 0, 0);
}

/* 1D Newton on the circle of normals perpendicular to the unit edge direction e, from the
 * projection of n. Returns the gap reached (HUGE_VAL if n is along e). The search is
 * abandoned once a Newton step's predicted decrease g^2 / 2m is below
 * 1 / MR_CIRCLE_HOPELESS of the way down to bound (the smallest gap found elsewhere): near
 * a smooth minimum that is what is left to gain, so the circle's minimum lies above bound
 * and cannot be kept. */
#define MR_CIRCLE_HOPELESS 8
static double mr_newton_circle(const mr_depth_pair *p, const double e[3], double n[3],
                               double bound) {
  mr_addscl3(n, e, -mr_dot3(n, e));
  if (mr_normalize3(n) < 1e-6) return HUGE_VAL;
  double f = HUGE_VAL;
  int slow = 0;
  for (int it = 0; it < MR_NEWTON_ITERS && slow < MR_SLOW_STEPS; it++) {
    double w[3], H[9], t[3];
    f = mr_gap(p, n, w, H);
    mr_cross3(t, e, n);
    mr_normalize3(t);
    double g = mr_dot3(w, t), m = mr_quad(H, t, t) - f;
    int newton = m > 0;
    if (newton && MR_CIRCLE_HOPELESS * g * g / (2 * m) < f - bound) break;
    slow = newton ? 0 : slow + 1;
    double th = newton ? -g / m : -copysign(mr_gradient_step(p, fabs(g), f), g);
    if (!newton && fabs(g) < MR_MINVAL) break;
    th = fmax(-0.5, fmin(0.5, th));
    int taken = 0;
    for (int k = 0; k < MR_HALVINGS; k++) {
      double nn[3];
      mr_scale3(nn, n, cos(th));
      mr_addscl3(nn, t, sin(th));
      mr_addscl3(nn, e, -mr_dot3(nn, e)); /* stay on the circle despite round-off */
      mr_normalize3(nn);
      double fn = mr_gap(p, nn, 0, 0);
      if (fn < f || (newton && fabs(th) < 1e-7 && fn <= f + 1e-13 * p->scale)) {
        mr_copy3(n, nn);
        f = fn;
        taken = 1;
        break;
      }
      if (k == 0) { /* along the circle's tangent: off it by the probe squared, nothing */
        double u[3];
        mr_scale3(u, t, th);
        if (mr_uphill(p, n, f, u)) break;
      }
      th *= 0.5;
    }
    if (!taken || (newton && fabs(th) < MR_NEWTON_STEP_TOL)) break;
  }
  return f;
}

/* The minimum next to a cylinder's cap normal c. There f is a cone (the cap's rim: f grows
 * by r per radian in every direction) on top of the smooth rest of f, whose tangent gradient
 * G pulls away from c when |G| > r; the minimum then lies off c against G, where Newton on
 * the sphere, stalled by the cone's unbounded curvature, does not get. A 1D Newton on the
 * great circle through c along -G reaches it (the rim has no curvature along that circle),
 * and the 2D Newton polishes the direction. Searched only when bn is near the cap's normal.
 * Returns the gap (HUGE_VAL: none, or c itself is the local minimum). */
static double mr_newton_cone(const mr_depth_pair *p, int cyl_is_a, const double bn[3],
                             double n[3]) {
  const mr_shape *cyl = cyl_is_a ? p->a : p->b, *other = cyl_is_a ? p->b : p->a;
  double ax[3], c[3], cap[3], po[3], m[3], G[3];
  double side = cyl_is_a ? 1 : -1; /* the cylinder's outward direction is side * n */
  mr_shape_axis(cyl, 2, ax);
  if (fabs(mr_dot3(ax, bn)) < MR_CONE_NEAR) return HUGE_VAL;
  double s = mr_dot3(ax, bn) * side >= 0 ? 1 : -1;
  mr_scale3(c, ax, s * side);
  mr_copy3(cap, cyl->pos);
  mr_addscl3(cap, ax, s * cyl->size[1]);
  mr_scale3(m, c, -side);
  mr_shape_support(other, m, po);
  if (cyl_is_a) mr_sub3(G, cap, po);
  else mr_sub3(G, po, cap);
  mr_addscl3(G, c, -mr_dot3(G, c));
  double gl = mr_norm3(G);
  if (gl <= cyl->size[0] * (1 + 1e-12)) return HUGE_VAL;
  double e[3], dir[3];
  mr_scale3(dir, G, -1.0 / gl);
  mr_cross3(e, c, dir);
  mr_normalize3(e);
  mr_copy3(n, c);
  mr_addscl3(n, dir, 1e-6);
  mr_normalize3(n);
  double f = mr_newton_circle(p, e, n, HUGE_VAL);
  if (f == HUGE_VAL) return f;
  int smooth;
  return mr_newton_sphere(p, n, f, &smooth);
}

/* Keeps n (any length) if its gap is the smallest yet. */
static void mr_try(const mr_depth_pair *p, const double n[3], double *best, double bn[3]) {
  double u[3];
  mr_copy3(u, n);
  if (mr_normalize3(u) < 1e-9) return;
  double g = mr_gap(p, u, 0, 0);
  if (g < *best) { *best = g; mr_copy3(bn, u); }
}

/* The edge directions of s (where f creases) and whether it has faces (corners of f). */
static int mr_edges(const mr_shape *s, double e[3][3], int *faces) {
  *faces = 0;
  switch (s->type) {
    case MR_GEOM_BOX:
      *faces = 3;
      for (int k = 0; k < 3; k++) mr_shape_axis(s, k, e[k]);
      return 3;
    case MR_GEOM_CYLINDER:
      *faces = 1;
      mr_shape_axis(s, 2, e[0]);
      return 1;
    case MR_GEOM_CAPSULE:
      mr_shape_axis(s, 2, e[0]);
      return 1;
    default: return 0;
  }
}

/* A candidate u (any length) within the cone about n joins the list. */
static void mr_near(const double n[3], const double u[3], double cos_min, double cand[][3], int *nc) {
  double v[3];
  mr_copy3(v, u);
  if (mr_normalize3(v) >= 1e-9 && mr_dot3(v, n) > cos_min) mr_copy3(cand[(*nc)++], v);
}

void mr_depth_snap(const mr_shape *a, const mr_shape *b, double n[3], double cos_min) {
  double ea[3][3], eb[3][3], cand[36][3]; /* 6 creases, 12 face normals, 18 edge pairs */
  int fa, fb, na = mr_edges(a, ea, &fa), nb = mr_edges(b, eb, &fb), nc = 0;
  for (int k = 0; k < na + nb; k++) { /* the nearest point of each edge's crease circle */
    const double *e = k < na ? ea[k] : eb[k - na];
    double u[3];
    mr_copy3(u, n);
    mr_addscl3(u, e, -mr_dot3(n, e));
    mr_near(n, u, cos_min, cand, &nc);
  }
  for (int sg = -1; sg <= 1; sg += 2) {
    for (int i = 0; i < fa + fb; i++) {
      double u[3];
      mr_scale3(u, i < fa ? ea[i] : eb[i - fa], sg);
      mr_near(n, u, cos_min, cand, &nc);
    }
    for (int i = 0; i < na; i++)
      for (int j = 0; j < nb; j++) {
        double c[3];
        mr_cross3(c, ea[i], eb[j]);
        mr_scale3(c, c, sg);
        mr_near(n, c, cos_min, cand, &nc);
      }
  }
  if (nc == 0) return; /* no kink near: the gap is smooth about n, GJK's error second-order */
  mr_depth_pair p = {a, b, fmax(1e-3, fmin(a->rbound, b->rbound))};
  double best = mr_gap(&p, n, 0, 0), bn[3];
  mr_copy3(bn, n);
  for (int k = 0; k < nc; k++) mr_try(&p, cand[k], &best, bn);
  mr_copy3(n, bn);
}

static int mr_curved(const mr_shape *s) { return s->type != MR_GEOM_BOX && s->type != MR_GEOM_MESH; }

int mr_penetration_newton(const mr_shape *a, const mr_shape *b, const double n0[3],
                          double *depth, double n[3]) {
  mr_depth_pair p = {a, b, fmax(1e-3, fmin(a->rbound, b->rbound))};
  double ea[3][3], eb[3][3], best = HUGE_VAL, bn[3] = {0, 0, 1};
  int fa, fb, na = mr_edges(a, ea, &fa), nb = mr_edges(b, eb, &fb);
  mr_try(&p, n0, &best, bn);
  /* corners: face normals (the edge directions of boxes and cylinders are their face
   * normals), then normals of two edges */
  for (int sg = -1; sg <= 1; sg += 2) {
    for (int i = 0; i < fa; i++) { double u[3]; mr_scale3(u, ea[i], sg); mr_try(&p, u, &best, bn); }
    for (int j = 0; j < fb; j++) { double u[3]; mr_scale3(u, eb[j], sg); mr_try(&p, u, &best, bn); }
    for (int i = 0; i < na; i++)
      for (int j = 0; j < nb; j++) {
        double c[3];
        mr_cross3(c, ea[i], eb[j]);
        mr_scale3(c, c, sg);
        mr_try(&p, c, &best, bn);
      }
  }
  if (best == HUGE_VAL) { bn[0] = bn[1] = 0; bn[2] = 1; best = mr_gap(&p, bn, 0, 0); }
  if (mr_curved(a) || mr_curved(b)) {
    /* from the best corner and from the caller's normal (when it is not that corner) */
    double starts[2][3], u0[3];
    int nstart = 1;
    mr_copy3(starts[0], bn);
    mr_copy3(u0, n0);
    if (mr_normalize3(u0) > 1e-9 && mr_dot3(u0, bn) < 1 - 1e-6) mr_copy3(starts[nstart++], u0);
    int smooth_all = 1;
    for (int s = 0; s < nstart; s++) {
      double cand[3];
      int smooth;
      mr_copy3(cand, starts[s]);
      double f = mr_newton_sphere(&p, cand, mr_gap(&p, cand, 0, 0), &smooth);
      if (f < best) { best = f; mr_copy3(bn, cand); }
      smooth_all &= smooth;
      if (smooth) continue; /* a smooth minimum near this start: no crease to search */
      double stalled[3];
      mr_copy3(stalled, cand);
      int shallow = best < MR_CREASE_SHALLOW * p.scale;
      for (int k = 0; k < na + nb; k++) {
        const double *e = k < na ? ea[k] : eb[k - na];
        if (shallow && fabs(mr_dot3(stalled, e)) > MR_CREASE_NEAR) continue;
        mr_copy3(cand, starts[s]);
        f = mr_newton_circle(&p, e, cand, best);
        if (f < best) { best = f; mr_copy3(bn, cand); }
      }
    }
    for (int k = 0; k < 2 && !smooth_all; k++) {
      if ((k ? b : a)->type != MR_GEOM_CYLINDER) continue;
      double cand[3];
      double f = mr_newton_cone(&p, !k, bn, cand);
      if (f < best) { best = f; mr_copy3(bn, cand); }
    }
  }
  if (best < -1e-9 * p.scale) return -1; /* a separating direction: not overlapping */
  *depth = fmax(best, 0.0);
  mr_copy3(n, bn);
  return 0;
}
