/* The general path for two convex shapes: one contact point (distance, normal, position).
 *
 * Separated pairs: our own GJK distance on fixed-size simplices (libccd 2.1 has no distance
 * query). Spheres and capsules enter GJK as their core (point, segment) and their radius is
 * subtracted afterwards, so every pair involving them is exact as long as the cores do not
 * overlap, penetration included.
 *
 * Separated pairs stop as soon as a support plane proves the distance above the margin
 * (no contact possible), so far pairs cost a few GJK steps.
 *
 * Penetrating primitives: libccd's MPR to a loose tolerance gives a starting normal, then
 * Newton's method on the support gap (collide_depth.c) finds the minimum-translation normal
 * to round-off. Meshes keep the MPR iteration below.
 *
 * Penetrating meshes: libccd's MPR (ccdMPRPenetration), not its EPA. EPA (ccdGJKPenetration)
 * grows a polytope with malloc for every vertex, edge and face, which the step may not do;
 * MPR works on a fixed 4-point portal on the stack. MPR alone is not the minimum translation:
 * it returns the support plane where the ray from an interior point through the origin
 * leaves the Minkowski difference. We therefore iterate: the next interior point is placed
 * just behind the origin along the last normal, so the ray follows that normal; the fixed
 * point is the normal whose ray exits where the surface normal equals it, i.e. the minimum
 * translation. Flat faces converge in one step, curved surfaces by a factor depth/curvature
 * radius per step (a few steps for shallow contact). */
#include <ccd/ccd.h>
#include <math.h>

#include "engine/core/mr_math.h"
#include "depth_cache.h"
#include "shape.h"

#if !defined(CCD_DOUBLE)
#error "libccd must be built in double precision (CCD_DOUBLE)"
#endif

/* ------------------------------------------------------------------ GJK distance */

/* A convex set for GJK: a full shape, or the core (point or segment) of a sphere/capsule. */
typedef struct mr_gjk_set {
  const mr_shape *shape; /* NULL for a core */
  double p0[3], p1[3];   /* core end points */
} mr_gjk_set;

static void mr_gjk_support(const mr_gjk_set *s, const double d[3], double out[3]) {
  if (s->shape) { mr_shape_support(s->shape, d, out); return; }
  double e[3];
  mr_sub3(e, s->p1, s->p0);
  mr_copy3(out, mr_dot3(e, d) > 0 ? s->p1 : s->p0);
}

typedef struct mr_gjk_vert { double w[3], a[3], b[3]; } mr_gjk_vert;

/* Closest point to the origin on segment (p, q): weights (1 - t, t). */
static double mr_seg_closest(const double p[3], const double q[3], double *t) {
  double e[3];
  mr_sub3(e, q, p);
  double ee = mr_dot3(e, e);
  *t = ee > 0 ? fmax(0.0, fmin(1.0, -mr_dot3(p, e) / ee)) : 0;
  double c[3];
  mr_copy3(c, p);
  mr_addscl3(c, e, *t);
  return mr_dot3(c, c);
}

/* Closest point to the origin on triangle (a, b, c) by Voronoi regions; writes barycentric
 * weights. Returns the squared distance. */
static double mr_tri_closest(const double a[3], const double b[3], const double c[3],
                             double lam[3]) {
  double ab[3], ac[3];
  mr_sub3(ab, b, a);
  mr_sub3(ac, c, a);
  double d1 = -mr_dot3(ab, a), d2 = -mr_dot3(ac, a);
  double d3 = -mr_dot3(ab, b), d4 = -mr_dot3(ac, b);
  double d5 = -mr_dot3(ab, c), d6 = -mr_dot3(ac, c);
  double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  lam[0] = lam[1] = lam[2] = 0;
  if (d1 <= 0 && d2 <= 0) lam[0] = 1;
  else if (d3 >= 0 && d4 <= d3) lam[1] = 1;
  else if (d6 >= 0 && d5 <= d6) lam[2] = 1;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) { double t = d1 / (d1 - d3); lam[0] = 1 - t; lam[1] = t; }
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) { double t = d2 / (d2 - d6); lam[0] = 1 - t; lam[2] = t; }
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    double t = (d4 - d3) / ((d4 - d3) + (d5 - d6)); lam[1] = 1 - t; lam[2] = t;
  } else if (va + vb + vc > 1e-300) {
    double s = 1.0 / (va + vb + vc);
    lam[0] = va * s; lam[1] = vb * s; lam[2] = vc * s;
  } else { /* degenerate triangle: best of its edges */
    const double *p[3] = {a, b, c};
    double best = HUGE_VAL;
    for (int e = 0; e < 3; e++) {
      double t, dd = mr_seg_closest(p[e], p[(e + 1) % 3], &t);
      if (dd < best) {
        best = dd;
        lam[0] = lam[1] = lam[2] = 0;
        lam[e] = 1 - t;
        lam[(e + 1) % 3] = t;
      }
    }
  }
  double v[3] = {0, 0, 0};
  mr_addscl3(v, a, lam[0]); mr_addscl3(v, b, lam[1]); mr_addscl3(v, c, lam[2]);
  return mr_dot3(v, v);
}

/* Reduces the simplex to the vertices supporting its closest point to the origin; writes
 * that point's weights. Returns 1 if the origin is inside a tetrahedron. */
static int mr_simplex_reduce(mr_gjk_vert *s, int *n, double lam[4]) {
  if (*n == 1) { lam[0] = 1; return 0; }
  if (*n == 2) {
    double t;
    mr_seg_closest(s[0].w, s[1].w, &t);
    lam[0] = 1 - t; lam[1] = t;
  } else if (*n == 3) {
    mr_tri_closest(s[0].w, s[1].w, s[2].w, lam);
  } else {
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    int inside = 1;
    double best = HUGE_VAL, bl[3] = {0, 0, 0};
    int bf = 0;
    for (int f = 0; f < 4; f++) {
      const int *F = faces[f];
      double e1[3], e2[3], nrm[3], dv[3];
      mr_sub3(e1, s[F[1]].w, s[F[0]].w);
      mr_sub3(e2, s[F[2]].w, s[F[0]].w);
      mr_cross3(nrm, e1, e2);
      mr_sub3(dv, s[F[3]].w, s[F[0]].w);
      double side_opp = mr_dot3(nrm, dv), side_org = -mr_dot3(nrm, s[F[0]].w);
      if (side_opp * side_org < 0 || side_opp == 0) inside = 0;
      double l3[3], dd = mr_tri_closest(s[F[0]].w, s[F[1]].w, s[F[2]].w, l3);
      if (dd < best) { best = dd; bf = f; memcpy(bl, l3, sizeof bl); }
    }
    if (inside) return 1;
    mr_gjk_vert t[3] = {s[faces[bf][0]], s[faces[bf][1]], s[faces[bf][2]]};
    s[0] = t[0]; s[1] = t[1]; s[2] = t[2];
    *n = 3;
    lam[0] = bl[0]; lam[1] = bl[1]; lam[2] = bl[2];
  }
  int k = 0; /* drop the vertices with zero weight */
  for (int i = 0; i < *n; i++)
    if (lam[i] > 0) { s[k] = s[i]; lam[k] = lam[i]; k++; }
  if (k == 0) { k = 1; lam[0] = 1; }
  *n = k;
  return 0;
}

/* Distance between two convex sets; witness points pa, pb (pb - pa is the separation).
 * Returns the distance, or 0 when they overlap (pa, pb then meaningless). Once a support
 * plane proves the distance above cutoff, returns that lower bound instead (no contact is
 * possible, so the exact value is not needed). */
static double mr_gjk_distance(const mr_gjk_set *A, const mr_gjk_set *B, const double dir0[3],
                              double cutoff, double pa[3], double pb[3]) {
  mr_gjk_vert s[4];
  int n = 1;
  double lam[4] = {1, 0, 0, 0}, v[3], d[3];
  mr_copy3(d, dir0);
  if (mr_dot3(d, d) < MR_MINVAL) { d[0] = 1; d[1] = d[2] = 0; }
  mr_gjk_support(A, d, s[0].a);
  mr_scale3(d, d, -1);
  mr_gjk_support(B, d, s[0].b);
  mr_sub3(s[0].w, s[0].a, s[0].b);
  mr_copy3(v, s[0].w);
  mr_copy3(pa, s[0].a);
  mr_copy3(pb, s[0].b);
  double vv = mr_dot3(v, v), scale = vv;
  for (int iter = 0; iter < 128; iter++) {
    if (vv <= 1e-24 * fmax(scale, 1e-12)) return 0;
    mr_gjk_vert w;
    mr_scale3(d, v, -1);
    mr_gjk_support(A, d, w.a);
    mr_gjk_support(B, v, w.b);
    mr_sub3(w.w, w.a, w.b);
    double vw = mr_dot3(v, w.w);
    if (vw > 0 && vw * vw > cutoff * cutoff * vv) return vw / sqrt(vv); /* separated */
    if (vv - vw <= 1e-13 * vv) break; /* no further progress toward the origin */
    s[n++] = w;
    if (mr_simplex_reduce(s, &n, lam)) return 0;
    double nv[3] = {0, 0, 0}, na[3] = {0, 0, 0}, nb[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
      mr_addscl3(nv, s[i].w, lam[i]);
      mr_addscl3(na, s[i].a, lam[i]);
      mr_addscl3(nb, s[i].b, lam[i]);
    }
    double nvv = mr_dot3(nv, nv);
    if (nvv >= vv) break; /* round-off: keep the previous (better) point */
    mr_copy3(v, nv);
    mr_copy3(pa, na);
    mr_copy3(pb, nb);
    vv = nvv;
  }
  /* keep the witnesses consistent with v exactly: pb = pa - v */
  mr_sub3(pb, pa, v);
  return sqrt(vv);
}

/* ------------------------------------------------------------------ MPR penetration */

/* libccd's MPR portal refinement has no iteration cap, and round-off can make it cycle. The
 * support budget bounds it: once spent, the first shape's support jumps far behind the
 * search direction, which ends both MPR loops at once (portal refinement reports no
 * overlap, penetration search accepts its current portal). */
#define MR_MPR_BUDGET 400

typedef struct mr_ccd_obj {
  const mr_shape *shape;
  double center[3];
  int *budget; /* support calls left; NULL for the second shape */
} mr_ccd_obj;

static void mr_ccd_support(const void *obj, const ccd_vec3_t *dir, ccd_vec3_t *out) {
  const mr_ccd_obj *o = obj;
  double d[3] = {dir->v[0], dir->v[1], dir->v[2]}, p[3];
  if (o->budget && --*o->budget < 0) {
    double len = mr_norm3(d);
    mr_copy3(p, o->shape->pos);
    if (len > 0) mr_addscl3(p, d, -1e6 * (1 + o->shape->rbound) / len);
  } else {
    mr_shape_support(o->shape, d, p);
  }
  out->v[0] = p[0]; out->v[1] = p[1]; out->v[2] = p[2];
}

static void mr_ccd_center(const void *obj, ccd_vec3_t *c) {
  const mr_ccd_obj *o = obj;
  c->v[0] = o->center[0]; c->v[1] = o->center[1]; c->v[2] = o->center[2];
}

/* Support-plane distance of the Minkowski difference a - b along unit n: an upper bound on
 * the penetration depth, equal to it at the minimum-translation normal. */
static double mr_support_gap(const mr_shape *a, const mr_shape *b, const double n[3]) {
  double pa[3], pb[3], m[3];
  mr_scale3(m, n, -1);
  mr_shape_support(a, n, pa);
  mr_shape_support(b, m, pb);
  return mr_dot3(pa, n) - mr_dot3(pb, n);
}

/* Tries n (any length) as a penetration normal; keeps it if its gap is the smallest yet. */
static void mr_try_normal(const mr_shape *a, const mr_shape *b, const double n[3],
                          double *best, double bn[3]) {
  double u[3];
  mr_copy3(u, n);
  if (mr_normalize3(u) < 1e-9) return;
  double g = mr_support_gap(a, b, u);
  if (g < *best) { *best = g; mr_copy3(bn, u); }
}

/* A starting normal for Newton (collide_depth.c): MPR's ray normal to a loose tolerance,
 * which lands near the minimum it would refine to. Two boxes need none (their candidate
 * normals are complete), nor does MPR failing (the centers' direction then). */
static void mr_mpr_coarse_normal(const mr_shape *a, const mr_shape *b, double n0[3]) {
  mr_sub3(n0, b->pos, a->pos);
  if (a->type == MR_GEOM_BOX && b->type == MR_GEOM_BOX) return;
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = mr_ccd_support;
  ccd.center1 = ccd.center2 = mr_ccd_center;
  ccd.max_iterations = 200;
  ccd.mpr_tolerance = 1e-4 * fmax(1e-3, fmin(a->rbound, b->rbound));
  int budget = MR_MPR_BUDGET;
  mr_ccd_obj oa = {a, {a->pos[0], a->pos[1], a->pos[2]}, &budget};
  mr_ccd_obj ob = {b, {b->pos[0], b->pos[1], b->pos[2]}, 0};
  ccd_real_t dep;
  ccd_vec3_t dir, pos;
  if (ccdMPRPenetration(&oa, &ob, &ccd, &dep, &dir, &pos) == 0)
    for (int i = 0; i < 3; i++) n0[i] = dir.v[i];
}

/* Penetration depth and normal (a to b). Returns 0, or -1 if MPR finds no overlap.
 * The ray-based MPR normal is one candidate; the local axes of both shapes and their cross
 * products are the others (the separating-axis candidates of boxes, and the exact normal of
 * crossed capsules or a sphere deep in a box). The smallest support gap wins and is then
 * refined by following the normal with MPR, which settles curved surfaces. */
static int mr_mpr_depth(const mr_shape *a, const mr_shape *b, double *depth, double n[3]) {
  if (a->type != MR_GEOM_MESH && b->type != MR_GEOM_MESH) {
    double n0[3];
    mr_mpr_coarse_normal(a, b, n0);
    return mr_penetration_newton(a, b, n0, depth, n);
  }
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd.support2 = mr_ccd_support;
  ccd.center1 = ccd.center2 = mr_ccd_center;
  ccd.max_iterations = 200;
  double scale = fmax(1e-3, fmin(a->rbound, b->rbound));
  ccd.mpr_tolerance = 1e-11 * scale;
  int budget = MR_MPR_BUDGET;
  mr_ccd_obj oa = {a, {a->pos[0], a->pos[1], a->pos[2]}, &budget};
  mr_ccd_obj ob = {b, {b->pos[0], b->pos[1], b->pos[2]}, 0};
  ccd_real_t dep;
  ccd_vec3_t dir, pos;
  int touching = ccdMPRPenetration(&oa, &ob, &ccd, &dep, &dir, &pos) != 0;
  double best = HUGE_VAL, bn[3] = {0, 0, 1};
  double d0[3] = {dir.v[0], dir.v[1], dir.v[2]};
  if (touching) mr_sub3(d0, b->pos, a->pos); /* GJK saw contact, MPR none: on the boundary */
  mr_try_normal(a, b, d0, &best, bn);
  for (int i = 0; i < 3; i++) {
    double ea[3], eb[3], c[3];
    mr_shape_axis(a, i, ea);
    mr_shape_axis(b, i, eb);
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      double u[3];
      mr_scale3(u, ea, sgn); mr_try_normal(a, b, u, &best, bn);
      mr_scale3(u, eb, sgn); mr_try_normal(a, b, u, &best, bn);
      for (int j = 0; j < 3; j++) {
        mr_shape_axis(b, j, eb);
        mr_cross3(c, ea, eb);
        mr_scale3(c, c, sgn);
        mr_try_normal(a, b, c, &best, bn);
      }
      mr_shape_axis(b, i, eb);
    }
  }
  if (best == HUGE_VAL) { /* touching at a point: any direction along the centers */
    mr_sub3(bn, b->pos, a->pos);
    if (mr_normalize3(bn) < MR_MINVAL) { bn[0] = bn[1] = 0; bn[2] = 1; }
    best = 0;
  }
  if (touching && best < -1e-9 * scale) return -1;
  /* Follow the normal: interior point at -s n (libccd's v0 = c1 - c2), s below the depth. */
  for (int it = 0; it < 16 && best > 0 && !touching; it++) {
    mr_zero3(ob.center);
    mr_scale3(oa.center, bn, -0.25 * best);
    budget = MR_MPR_BUDGET;
    if (ccdMPRPenetration(&oa, &ob, &ccd, &dep, &dir, &pos) != 0) break;
    double nn[3] = {dir.v[0], dir.v[1], dir.v[2]};
    if (mr_normalize3(nn) < 0.5) break;
    double g = mr_support_gap(a, b, nn);
    if (!(g < best)) break;
    double change = 1 - mr_dot3(nn, bn);
    best = g;
    mr_copy3(bn, nn);
    if (change < 1e-20) break;
  }
  *depth = fmax(best, 0.0);
  mr_copy3(n, bn);
  return 0;
}

/* ------------------------------------------------------------------ the pair */

static void mr_gjk_set_make(const mr_shape *s, mr_gjk_set *g, double *radius) {
  *radius = 0;
  g->shape = s;
  if (mr_shape_core(s, g->p0, g->p1, radius)) g->shape = 0;
}

void mr_penetration_point(const mr_shape *a, const mr_shape *b, const double n[3], double depth,
                          mr_contact_point *out) {
  double pa[3], pb[3], m[3];
  mr_scale3(m, n, -1);
  mr_shape_support(a, n, pa);
  mr_shape_support(b, m, pb);
  int curved_a = a->type == MR_GEOM_SPHERE || a->type == MR_GEOM_ELLIPSOID;
  int curved_b = b->type == MR_GEOM_SPHERE || b->type == MR_GEOM_ELLIPSOID;
  double p[3];
  if (curved_a && !curved_b) mr_copy3(p, pa);
  else if (curved_b && !curved_a) { mr_copy3(p, pb); mr_addscl3(p, n, depth); }
  else { mr_add3(p, pa, pb); mr_scale3(p, p, 0.5); mr_addscl3(p, n, 0.5 * depth); }
  mr_point_set(out, p, n, -depth, 0);
}

/* GJK's normal is moved to a kink of the support gap within this cone (mr_depth_snap):
 * about 1.4e-4 rad, far above GJK's first-order error, and moved only where the gap there
 * is no larger. */
#define MR_KINK_COS (1 - 1e-8)

/* The general path's point while the pair's cores are apart (GJK, exact): returns 1 with
 * the point, 0 if the pair lies beyond the margin, -1 if they overlap (a penetration
 * search is needed). */
static int mr_convex_apart(const mr_shape *a, const mr_shape *b, double margin,
                           mr_contact_point *out) {
  mr_gjk_set ga, gb;
  double ra, rb, pa[3], pb[3], d0[3];
  mr_gjk_set_make(a, &ga, &ra);
  mr_gjk_set_make(b, &gb, &rb);
  mr_sub3(d0, b->pos, a->pos);
  double dist = mr_gjk_distance(&ga, &gb, d0, margin + ra + rb, pa, pb);
  double tiny = 1e-10 * fmax(1e-3, a->rbound + b->rbound);
  if (!(dist > tiny)) return -1;
  double n[3];
  mr_sub3(n, pb, pa);
  mr_scale3(n, n, 1.0 / dist);
  double sd = dist - ra - rb;
  if (sd > margin) return 0;
  mr_depth_snap(a, b, n, MR_KINK_COS);
  mr_addscl3(pa, n, ra);
  mr_point_set(out, pa, n, sd, 0);
  return 1;
}

/* The general path's single point; anchors its search in cache (when given) and answers
 * from the anchor while its bound holds (depth_cache.h). */
static int mr_convex_point_cached(const mr_shape *a, const mr_shape *b, double margin,
                                  mr_depth_cache *cache, int ga, int gb, mr_contact_point *out) {
  double gap, n[3];
  if (!cache || !mr_depth_cache_reuse(cache, ga, gb, a, b, &gap, n)) {
    int apart = mr_convex_apart(a, b, margin, out);
    if (apart > 0 && cache) mr_depth_cache_store(cache, ga, gb, a, b, -out->dist, out->normal);
    if (apart >= 0) return apart;
    if (mr_mpr_depth(a, b, &gap, n) != 0) return 0;
    if (cache) mr_depth_cache_store(cache, ga, gb, a, b, gap, n);
  }
  if (-gap > margin) return 0;
  mr_penetration_point(a, b, n, gap, out);
  return 1;
}

int mr_collide_convex_point(const mr_shape *a, const mr_shape *b, double margin,
                            mr_contact_point *out) {
  return mr_convex_point_cached(a, b, margin, NULL, -1, -1, out);
}

int mr_collide_convex(const mr_shape *a, const mr_shape *b, double margin,
                      mr_contact_point *out) {
  return mr_collide_convex_cached(a, b, margin, NULL, -1, -1, out);
}

int mr_collide_convex_cached(const mr_shape *a, const mr_shape *b, double margin,
                             mr_depth_cache *cache, int ga, int gb, mr_contact_point *out) {
  mr_contact_point deepest;
  if (!mr_convex_point_cached(a, b, margin, cache, ga, gb, &deepest)) return 0;
  return mr_manifold(a, b, &deepest, margin, out);
}
