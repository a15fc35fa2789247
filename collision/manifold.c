/* Multi-point contact manifolds for the general path, by face clipping.
 *
 * Given the general path's normal n (the minimum-translation normal for penetration, the
 * closest-points direction when separated), each shape contributes its support feature
 * toward the other: the set of its vertices within a small tolerance of its support plane
 * (boxes: corners; meshes: hull vertices, so coplanar hull triangles merge into one face),
 * a capsule's two ends when it lies across n, a cylinder's cap as 8 rim points when it
 * stands along n or its two side rim points when it lies across n; curved supports give one
 * point and keep the single contact. The feature with more vertices is the reference (of
 * two faces, the one lying across n: mr_feature_spread); the other (the incident feature)
 * is clipped by the reference's side planes (Sutherland-Hodgman; a reference segment clips
 * by its two end planes). Each clipped point's signed
 * distance is its height above the reference support plane; points within the margin are
 * kept and reduced to MR_FACE_MANIFOLD by area (mr_manifold_thin, MR_THIN_AREA).
 *
 * Feature ids: an incident vertex keeps its shape-local id (box corner, hull vertex, rim
 * point, capsule end); a point made by clipping is 0x10000 | ref vertex << 8 | inc vertex,
 * so the same geometric point gets the same id from step to step. */
#include <math.h>

#include "engine/core/mr_math.h"
#include "shape.h"

#define MR_FEAT_CAP 32  /* vertices of one support feature */
#define MR_CLIP_CAP MR_THIN_CAP /* vertices of a clipped polygon */

typedef struct mr_feature {
  double p[MR_FEAT_CAP][3];
  int id[MR_FEAT_CAP];
  int n;
} mr_feature;

/* Tolerance on the support plane: about 0.3 degrees of tilt across the shape. */
static double mr_feature_tol(const mr_shape *s) { return 5e-3 * fmax(s->rbound, 1e-6); }

static void mr_feature_add(mr_feature *f, const double p[3], int id) {
  if (f->n == MR_FEAT_CAP) return;
  mr_copy3(f->p[f->n], p);
  f->id[f->n++] = id;
}

/* Polytope: the vertices (local coordinates) within tolerance of the support plane. */
static void mr_feature_vertices(const mr_shape *s, const double d[3], mr_feature *f) {
  double dl[3], hmax = -HUGE_VAL, tol = mr_feature_tol(s);
  mr_mulmatT3(dl, s->mat, d);
  int nv = s->type == MR_GEOM_BOX ? 8 : s->nhull;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < nv; k++) {
      double l[3];
      if (s->type == MR_GEOM_BOX) {
        for (int i = 0; i < 3; i++) l[i] = (k >> i & 1) ? s->size[i] : -s->size[i];
      } else {
        for (int i = 0; i < 3; i++) l[i] = s->hullvert[3 * k + i];
      }
      double h = mr_dot3(l, dl);
      if (pass == 0) { hmax = fmax(hmax, h); continue; }
      if (h >= hmax - tol) {
        double w[3];
        mr_shape_to_world(s, w, l);
        mr_feature_add(f, w, k);
      }
    }
}

static void mr_feature_cylinder(const mr_shape *s, const double d[3], mr_feature *f) {
  double ax[3], ex[3], ey[3];
  mr_shape_axis(s, 2, ax);
  mr_shape_axis(s, 0, ex);
  mr_shape_axis(s, 1, ey);
  double c = mr_dot3(ax, d), r = s->size[0], h = s->size[1];
  if (fabs(c) > 1 - 1e-5) { /* standing: the cap as 8 rim points */
    for (int k = 0; k < 8; k++) {
      double ang = k * MR_PI / 4, p[3];
      mr_copy3(p, s->pos);
      mr_addscl3(p, ax, c > 0 ? h : -h);
      mr_addscl3(p, ex, r * cos(ang));
      mr_addscl3(p, ey, r * sin(ang));
      mr_feature_add(f, p, (c > 0 ? 8 : 0) + k);
    }
  } else if (fabs(c) < 5e-3) { /* lying: the side line */
    double u[3];
    mr_copy3(u, d);
    mr_addscl3(u, ax, -c);
    mr_normalize3(u);
    for (int e = 0; e < 2; e++) {
      double p[3];
      mr_copy3(p, s->pos);
      mr_addscl3(p, ax, e ? h : -h);
      mr_addscl3(p, u, r);
      mr_feature_add(f, p, 16 + e);
    }
  }
}

static void mr_feature_capsule(const mr_shape *s, const double d[3], mr_feature *f) {
  double ax[3];
  mr_shape_axis(s, 2, ax);
  if (fabs(mr_dot3(ax, d)) >= 5e-3) return;
  for (int e = 0; e < 2; e++) {
    double p[3];
    mr_copy3(p, s->pos);
    mr_addscl3(p, ax, e ? s->size[1] : -s->size[1]);
    mr_addscl3(p, d, s->size[0]);
    mr_feature_add(f, p, e);
  }
}

/* The support feature of s along unit d; f->n < 2 means a single point. */
static void mr_feature_get(const mr_shape *s, const double d[3], mr_feature *f) {
  f->n = 0;
  switch (s->type) {
    case MR_GEOM_BOX:
    case MR_GEOM_MESH: mr_feature_vertices(s, d, f); break;
    case MR_GEOM_CYLINDER: mr_feature_cylinder(s, d, f); break;
    case MR_GEOM_CAPSULE: mr_feature_capsule(s, d, f); break;
    default: break;
  }
}

/* The spread of the feature's heights along n. Two faces: the reference is the one lying
 * across n (spread ~0), the face the normal belongs to, so that each clipped point's depth is
 * its height above that face's own plane. The other face, tilted by a few tenths of a degree
 * (within mr_feature_tol), has its support plane through its highest vertex: measured from
 * there, every point of a face lying across n got the same depth, the deepest, and a tilting
 * box on a box felt no restoring torque (soft's five-box stack leaned over 6 mm in 10 s). */
static double mr_feature_spread(const mr_feature *f, const double n[3]) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (int i = 0; i < f->n; i++) {
    double h = mr_dot3(f->p[i], n);
    lo = fmin(lo, h);
    hi = fmax(hi, h);
  }
  return hi - lo;
}

/* A strictly increasing function of atan2(y, x) on (-2, 2]: sorting by it orders as the
 * angle does, without the transcendental call (it was a third of the clipping's time). */
static double mr_pseudo_angle(double y, double x) {
  double l1 = fabs(x) + fabs(y);
  if (l1 == 0) return 0;
  return y < 0 ? x / l1 - 1 : 1 - x / l1;
}

/* Orders the feature's vertices counter-clockwise about n (by angle about the centroid). */
static void mr_feature_sort(mr_feature *f, const double n[3]) {
  if (f->n < 3) return;
  double c[3] = {0, 0, 0}, t1[3], t2[3], ang[MR_FEAT_CAP];
  for (int i = 0; i < f->n; i++) mr_addscl3(c, f->p[i], 1.0 / f->n);
  double a[3] = {1, 0, 0};
  if (fabs(n[0]) > 0.6) { a[0] = 0; a[1] = 1; }
  mr_cross3(t1, n, a);
  mr_normalize3(t1);
  mr_cross3(t2, n, t1);
  for (int i = 0; i < f->n; i++) {
    double r[3];
    mr_sub3(r, f->p[i], c);
    ang[i] = mr_pseudo_angle(mr_dot3(r, t2), mr_dot3(r, t1));
  }
  for (int i = 1; i < f->n; i++) /* insertion sort: few vertices */
    for (int j = i; j > 0 && ang[j] < ang[j - 1]; j--) {
      double ta = ang[j]; ang[j] = ang[j - 1]; ang[j - 1] = ta;
      double tp[3]; mr_copy3(tp, f->p[j]); mr_copy3(f->p[j], f->p[j - 1]); mr_copy3(f->p[j - 1], tp);
      int ti = f->id[j]; f->id[j] = f->id[j - 1]; f->id[j - 1] = ti;
    }
}

typedef struct mr_clip_poly {
  double p[MR_CLIP_CAP][3];
  int id[MR_CLIP_CAP];
  int n;
} mr_clip_poly;

/* Keeps the part of poly with dot(p - o, w) <= 0 (Sutherland-Hodgman, one plane). */
static void mr_clip_plane(const mr_clip_poly *in, mr_clip_poly *out, const double o[3],
                          const double w[3], int refid) {
  out->n = 0;
  for (int i = 0; i < in->n && out->n < MR_CLIP_CAP - 1; i++) {
    const double *p = in->p[i], *q = in->p[(i + 1) % in->n];
    double r[3];
    mr_sub3(r, p, o);
    double dp = mr_dot3(r, w);
    mr_sub3(r, q, o);
    double dq = mr_dot3(r, w);
    if (dp <= 0) {
      mr_copy3(out->p[out->n], p);
      out->id[out->n++] = in->id[i];
    }
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
      double t = dp / (dp - dq), x[3];
      mr_sub3(x, q, p);
      mr_copy3(out->p[out->n], p);
      mr_addscl3(out->p[out->n], x, t);
      out->id[out->n++] = 0x10000 | (refid & 0xff) << 8 | (in->id[i] & 0xff);
    }
  }
}

/* Clips the incident feature by the side planes of the reference feature, which is ordered
 * counter-clockwise about n: the outward side normal of edge (p, q) is (q - p) x n. */
static void mr_clip_features(const mr_feature *ref, const mr_feature *inc, const double n[3],
                             mr_clip_poly *res) {
  mr_clip_poly buf[2];
  buf[0].n = inc->n;
  for (int i = 0; i < inc->n; i++) { mr_copy3(buf[0].p[i], inc->p[i]); buf[0].id[i] = inc->id[i]; }
  int cur = 0;
  if (ref->n == 2) { /* a segment: its two end planes */
    double e[3];
    mr_sub3(e, ref->p[1], ref->p[0]);
    mr_clip_plane(&buf[cur], &buf[1 - cur], ref->p[1], e, ref->id[1]);
    cur = 1 - cur;
    mr_scale3(e, e, -1);
    mr_clip_plane(&buf[cur], &buf[1 - cur], ref->p[0], e, ref->id[0]);
    cur = 1 - cur;
  } else {
    for (int i = 0; i < ref->n && buf[cur].n > 0; i++) {
      const double *p = ref->p[i], *q = ref->p[(i + 1) % ref->n];
      double e[3], w[3];
      mr_sub3(e, q, p);
      mr_cross3(w, e, n);
      mr_clip_plane(&buf[cur], &buf[1 - cur], p, w, ref->id[i]);
      cur = 1 - cur;
    }
  }
  *res = buf[cur];
}

/* Clipping a 2-vertex loop (a segment) visits each edge twice: drop repeated points. */
static int mr_clip_dedupe(mr_clip_poly *c, double tol) {
  int k = 0;
  for (int i = 0; i < c->n; i++) {
    int dup = 0;
    for (int j = 0; j < k && !dup; j++) {
      double r[3];
      mr_sub3(r, c->p[i], c->p[j]);
      dup = mr_dot3(r, r) <= tol * tol;
    }
    if (dup) continue;
    mr_copy3(c->p[k], c->p[i]);
    c->id[k++] = c->id[i];
  }
  return k;
}

/* A penetration where one side's support is a single point (a polytope's vertex, a rounded
 * surface's point: a feature of fewer than two vertices) and the other's a face or an edge.
 * The general path's penetration point is the midpoint of both sides' support points, and a
 * face's or an edge's support point is whichever vertex round-off picks: a box's corner
 * poking into another box's face got a contact halfway to one of that face's corners, and a
 * torque about the wrong point. The contact is at the single point. Separated pairs keep
 * GJK's witnesses, which are the closest points. */
static int mr_manifold_point(const mr_shape *a, const mr_shape *b, const mr_feature *fa,
                             const mr_feature *fb, const mr_contact_point *deepest,
                             mr_contact_point *out) {
  int single_a = fa->n < 2, single_b = fb->n < 2;
  if (deepest->dist > 0 || single_a == single_b) return 0;
  const double *n = deepest->normal;
  double pa[3];
  if (single_a) {
    mr_shape_support(a, n, pa);
  } else { /* b's point, moved back to a's surface along the normal */
    double m[3];
    mr_scale3(m, n, -1);
    mr_shape_support(b, m, pa);
    mr_addscl3(pa, n, -deepest->dist);
  }
  mr_point_set(out, pa, n, deepest->dist, deepest->feature);
  return 1;
}

/* Two crossing edges in penetration: the contact is midway between their closest points
 * (the general path's midpoint of support vertices could sit at either end of each edge). */
static int mr_manifold_crossing(const mr_feature *fa, const mr_feature *fb,
                                const mr_contact_point *deepest, mr_contact_point *out) {
  if (deepest->dist > 0) return 0;
  double e[3], f[3], s, t, p[3], q[3];
  mr_sub3(e, fa->p[1], fa->p[0]);
  mr_sub3(f, fb->p[1], fb->p[0]);
  mr_segments_closest(fa->p[0], e, fb->p[0], f, &s, &t);
  mr_copy3(p, fa->p[0]);
  mr_addscl3(p, e, s);
  mr_copy3(q, fb->p[0]);
  mr_addscl3(q, f, t);
  *out = *deepest;
  mr_add3(out->pos, p, q);
  mr_scale3(out->pos, out->pos, 0.5);
  return 1;
}

/* The clipped polygon's points, the single or crossing point's contact, or 0 to keep the
 * general path's point. */
static int mr_manifold_clip(const mr_shape *a, const mr_shape *b, const mr_contact_point *deepest,
                            double margin, mr_contact_point *out) {
  const double *n = deepest->normal;
  double m[3];
  mr_scale3(m, n, -1);
  mr_feature fa, fb;
  mr_feature_get(a, n, &fa);
  mr_feature_get(b, m, &fb);
  if (fa.n < 2 || fb.n < 2) return mr_manifold_point(a, b, &fa, &fb, deepest, out);
  if (fa.n == 2 && fb.n == 2) { /* two segments: clipped only when parallel */
    double ea[3], eb[3], c[3];
    mr_sub3(ea, fa.p[1], fa.p[0]);
    mr_sub3(eb, fb.p[1], fb.p[0]);
    mr_cross3(c, ea, eb);
    if (mr_norm3(c) > 5e-3 * mr_norm3(ea) * mr_norm3(eb))
      return mr_manifold_crossing(&fa, &fb, deepest, out);
  }
  int ref_is_a = fa.n >= fb.n;
  if (fa.n >= 3 && fb.n >= 3) ref_is_a = mr_feature_spread(&fa, n) <= mr_feature_spread(&fb, n);
  mr_feature *ref = ref_is_a ? &fa : &fb, *inc = ref_is_a ? &fb : &fa;
  const mr_shape *rs = ref_is_a ? a : b;
  double nref[3];
  mr_copy3(nref, ref_is_a ? n : m);
  /* sort both about the same axis so that the side normals point outward */
  mr_feature_sort(ref, n);
  mr_feature_sort(inc, n);
  mr_clip_poly res;
  mr_clip_features(ref, inc, n, &res);
  res.n = mr_clip_dedupe(&res, 1e-10 * fmax(rs->rbound, 1e-6));
  double sp[3];
  mr_shape_support(rs, nref, sp);
  double href = mr_dot3(sp, nref);
  mr_contact_point pts[MR_CLIP_CAP];
  int cnt = 0;
  for (int i = 0; i < res.n; i++) {
    double dist = mr_dot3(res.p[i], nref) - href;
    if (dist > margin) continue;
    double pa[3];
    mr_copy3(pa, res.p[i]);
    if (ref_is_a) mr_addscl3(pa, n, -dist); /* incident point is on b: a's point is below */
    mr_point_set(pts + cnt, pa, n, dist, res.id[i] | (ref_is_a ? 0 : 0x100000));
    cnt++;
  }
  cnt = mr_manifold_thin(pts, cnt, MR_FACE_MANIFOLD, MR_THIN_AREA, fmax(rs->rbound, 1e-6));
  for (int i = 0; i < cnt; i++) out[i] = pts[i];
  return cnt;
}

int mr_manifold(const mr_shape *a, const mr_shape *b, const mr_contact_point *deepest,
                double margin, mr_contact_point *out) {
  int n = mr_manifold_clip(a, b, deepest, margin, out);
  if (n > 0) return n;
  out[0] = *deepest;
  return 1;
}
