/* Thinning a contact's points to a budget: one greedy choice for every path that finds
 * more points than a contact keeps (plane-mesh, clipped faces, heightfields).
 *
 * The first point is the deepest. Points equally deep to round-off (a face lying flat)
 * tie, and the one farthest from the points' centroid wins, a corner of the support
 * polygon: started from round-off's choice, the kept points would change from step to
 * step, each change a contact without warm start. Every later point is the one that
 * spreads the kept set most: the farthest from the points already kept, or, under
 * MR_THIN_AREA, the one adding the most area to their polygon (the second point, which
 * adds no area to a single point, is the farthest from the first). Ties (within a
 * round-off tolerance relative to the caller's length scale) go to the point farther from
 * the centroid, then to the smaller feature id, so that a symmetric polygon's choice does
 * not swap from step to step: two nearly aligned squares clip to an octagon whose extra
 * points sit anywhere along the nearly parallel edges, and started from one of those the
 * chosen corners swapped, each swap a contact without warm start.
 *
 * Under MR_THIN_CORNERS the corners of the support polygon (the convex hull of the points
 * seen along their mean normal) come before any other point, and a planar patch (every
 * normal the same) keeps its corners only, as a plane would give them: points inside add
 * nothing a rigid contact needs, and to a compliant one they make the side with more of
 * them stiffer, so that a body rests tilted. Its depths tie within 0.1% of the deepest:
 * they are a heightfield's, each prism's from its own convex solve. */
#include <math.h>

#include "contact.h"
#include "engine/core/mr_math.h"
#include "shape.h"

typedef struct mr_thin_set {
  mr_contact_point *pts;
  int n;
  double xy[MR_THIN_CAP][2];  /* positions seen along the mean normal */
  double radius[MR_THIN_CAP]; /* distance from the centroid */
  double nearest[MR_THIN_CAP]; /* squared distance to the nearest point kept */
  double score[MR_THIN_CAP];
  unsigned char corner[MR_THIN_CAP];
  double scale;   /* the contact's size, for the tie tolerances */
  double deepest; /* the smallest distance */
} mr_thin_set;

static void mr_thin_swap(mr_thin_set *s, int i, int j) {
  mr_contact_point t = s->pts[i];
  s->pts[i] = s->pts[j];
  s->pts[j] = t;
  for (int c = 0; c < 2; c++) {
    double x = s->xy[i][c];
    s->xy[i][c] = s->xy[j][c];
    s->xy[j][c] = x;
  }
  double r = s->radius[i];
  s->radius[i] = s->radius[j];
  s->radius[j] = r;
  r = s->nearest[i];
  s->nearest[i] = s->nearest[j];
  s->nearest[j] = r;
  unsigned char k = s->corner[i];
  s->corner[i] = s->corner[j];
  s->corner[j] = k;
}

/* Projects the points on the plane across their mean normal. */
static void mr_thin_project(mr_thin_set *s) {
  double nm[3] = {0, 0, 0}, frame[9];
  for (int i = 0; i < s->n; i++) mr_add3(nm, nm, s->pts[i].normal);
  if (mr_normalize3(nm) < 1e-12) nm[2] = 1;
  mr_contact_frame_default(nm, frame);
  for (int i = 0; i < s->n; i++) {
    s->xy[i][0] = mr_dot3(s->pts[i].pos, frame + 3);
    s->xy[i][1] = mr_dot3(s->pts[i].pos, frame + 6);
  }
}

/* Twice the signed area of the triangle (a, b, c) in the projection plane. */
static double mr_thin_cross(const double a[2], const double b[2], const double c[2]) {
  return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

/* The convex hull of the first n points of xy (Andrew's monotone chain), counter-clockwise
 * and closed on its start, into chain (room for 2n); returns its length. Points on an edge,
 * to round-off relative to its length, are not corners. */
static int mr_thin_hull(double (*xy)[2], int n, int *chain) {
  int order[MR_THIN_CAP];
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = 1; i < n; i++) /* insertion sort by x, then y (n is small) */
    for (int j = i; j > 0; j--) {
      const double *a = xy[order[j - 1]], *b = xy[order[j]];
      if (a[0] < b[0] || (a[0] == b[0] && a[1] <= b[1])) break;
      int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
    }
  int k = 0;
  for (int pass = 0; pass < 2; pass++) {
    int start = k;
    for (int q = 0; q < n; q++) {
      int i = order[pass ? n - 1 - q : q];
      while (k >= start + 2) {
        const double *a = xy[chain[k - 2]], *b = xy[chain[k - 1]];
        double cross = mr_thin_cross(a, b, xy[i]);
        if (cross > 1e-9 * (hypot(b[0] - a[0], b[1] - a[1]) * hypot(xy[i][0] - a[0], xy[i][1] - a[1])) + 1e-300)
          break;
        k--;
      }
      chain[k++] = i;
    }
  }
  return k;
}

static void mr_thin_mark_corners(mr_thin_set *s) {
  int chain[2 * MR_THIN_CAP];
  for (int i = 0; i < s->n; i++) s->corner[i] = 0;
  int k = mr_thin_hull(s->xy, s->n, chain);
  for (int i = 0; i < k; i++) s->corner[chain[i]] = 1;
}

/* Every normal the same, to a tilt of a resting body (1.4 mrad). */
static int mr_thin_planar(const mr_thin_set *s) {
  for (int i = 1; i < s->n; i++)
    if (mr_dot3(s->pts[i].normal, s->pts[0].normal) < 1 - 1e-6) return 0;
  return 1;
}

static void mr_thin_keep_corners(mr_thin_set *s) {
  int k = 0;
  for (int i = 0; i < s->n; i++)
    if (s->corner[i]) {
      s->pts[k] = s->pts[i];
      s->xy[k][0] = s->xy[i][0], s->xy[k][1] = s->xy[i][1];
      s->corner[k++] = 1;
    }
  s->n = k;
}

/* Each point's distance from the centroid, and the deepest distance. */
static void mr_thin_radii(mr_thin_set *s) {
  double c[3] = {0, 0, 0};
  for (int i = 0; i < s->n; i++) mr_addscl3(c, s->pts[i].pos, 1.0 / s->n);
  s->deepest = HUGE_VAL;
  for (int i = 0; i < s->n; i++) {
    s->deepest = fmin(s->deepest, s->pts[i].dist);
    double r[3];
    mr_sub3(r, s->pts[i].pos, c);
    s->radius[i] = mr_norm3(r);
  }
}

/* Each remaining point's score for slot `kept` (larger wins) into s->score; returns the
 * tolerance within which two scores tie (negative: two squared distances tie when their
 * roots do within -tol). */
static double mr_thin_scores(mr_thin_set *s, int kept, int rule) {
  const mr_contact_point *p = s->pts;
  if (kept == 0) {
    for (int k = 0; k < s->n; k++) s->score[k] = -p[k].dist;
    return 1e-9 * s->scale + ((rule & MR_THIN_CORNERS) ? 1e-3 * fabs(s->deepest) : 0);
  }
  if ((rule & MR_THIN_AREA) && kept >= 2) {
    /* outside the kept polygon (counter-clockwise), a point adds the triangles it makes
     * with the edges it sees, those it lies to the right of */
    int chain[2 * MR_THIN_CAP];
    int h = mr_thin_hull(s->xy, kept, chain) - 1; /* edges of the closed chain */
    for (int k = kept; k < s->n; k++) {
      double add = 0;
      for (int e = 0; e < h; e++)
        add += fmax(0.0, -mr_thin_cross(s->xy[chain[e]], s->xy[chain[e + 1]], s->xy[k]));
      s->score[k] = add;
    }
    return 1e-9 * s->scale * s->scale;
  }
  for (int k = kept; k < s->n; k++) { /* the squared distance to the nearest kept point */
    double r[3];
    mr_sub3(r, p[k].pos, p[kept - 1].pos);
    s->nearest[k] = kept == 1 ? mr_dot3(r, r) : fmin(s->nearest[k], mr_dot3(r, r));
    s->score[k] = s->nearest[k];
  }
  return -1e-9 * s->scale; /* on the distances: see mr_thin_better */
}

/* Is point k a better choice than point best for the slot? */
static int mr_thin_better(const mr_thin_set *s, int slot, int k, int best, double tol, int rule) {
  if ((rule & MR_THIN_CORNERS) && slot > 0 && s->corner[k] != s->corner[best])
    return s->corner[k] > s->corner[best];
  double v = s->score[k], vb = s->score[best];
  if (tol < 0) tol = -tol * (sqrt(v) + sqrt(vb)); /* a^2 - b^2 = (a - b)(a + b) */
  if (v > vb + tol) return 1;
  if (v < vb - tol) return 0;
  if (s->scale == 0) return 0; /* equal scores: the earlier point, the plane-mesh path's rule */
  double rtol = 1e-9 * s->scale;
  if (s->radius[k] > s->radius[best] + rtol) return 1;
  if (s->radius[k] < s->radius[best] - rtol) return 0;
  return s->pts[k].feature < s->pts[best].feature;
}

int mr_manifold_thin(mr_contact_point *pts, int n, int budget, int rule, double scale) {
  if (n > MR_THIN_CAP) n = MR_THIN_CAP;
  if (n <= 1 || (n <= budget && !(rule & MR_THIN_CORNERS))) return n;
  mr_thin_set s = {.pts = pts, .n = n, .scale = scale};
  mr_thin_project(&s);
  if (rule & MR_THIN_CORNERS) {
    mr_thin_mark_corners(&s);
    if (mr_thin_planar(&s)) mr_thin_keep_corners(&s);
    if (s.n <= budget) return s.n;
  }
  mr_thin_radii(&s);
  for (int slot = 0; slot < budget; slot++) {
    double tol = mr_thin_scores(&s, slot, rule);
    int best = slot;
    for (int k = slot + 1; k < s.n; k++)
      if (mr_thin_better(&s, slot, k, best, tol, rule)) best = k;
    mr_thin_swap(&s, slot, best);
  }
  return budget;
}
