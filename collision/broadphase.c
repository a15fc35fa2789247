/* Sweep-and-prune broadphase: see broadphase.h. */
#include "broadphase.h"

#include <math.h>

#include "engine/core/arena.h"
#include "band.h"
#include "filter.h"
#include "narrowphase.h"

typedef struct bp_box {
  double lo[3], hi[3];
  int geom;
} bp_box;

/* Boxes of the collidable non-plane geoms, and the list of collidable planes. */
typedef struct bp_scene {
  bp_box *box;
  int nbox;
  int *plane;
  int nplane;
} bp_scene;

size_t mr_broadphase_arena_size(const mr_model *m) {
  size_t n = (size_t)m->ngeom;
  return 2 * n * sizeof(bp_box) + n * sizeof(int) + 4 * 64;
}

/* ------------------------------------------------------------------ boxes */

static void bp_box_make(const mr_model *m, const mr_data *d, const double *reach, int g, bp_box *b) {
  mr_geom_aabb(m, d, g, b->lo, b->hi);
  /* grown by the detection band too (band.h), so a continuing pair lifting within it is
   * still reported, and by the geom's reach within the step (sweep.h) */
  double margin = m->geom_margin[g] + MR_BAND_REL * m->geom_rbound[g] + (reach ? reach[g] : 0);
  for (int k = 0; k < 3; k++) {
    b->lo[k] -= margin;
    b->hi[k] += margin;
  }
  b->geom = g;
}

static int bp_scene_build(const mr_model *m, mr_data *d, const double *reach, bp_scene *s) {
  int n = m->ngeom;
  s->box = mr_arena_alloc(d, (size_t)n * sizeof(bp_box));
  s->plane = mr_arena_ints(d, (size_t)n);
  if (n && (!s->box || !s->plane)) return -1;
  s->nbox = s->nplane = 0;
  for (int g = 0; g < n; g++) {
    if (!mr_filter_geom_collidable(m, g)) continue;
    if (m->geom_type[g] == MR_GEOM_PLANE) s->plane[s->nplane++] = g;
    else bp_box_make(m, d, reach, g, &s->box[s->nbox++]);
  }
  return 0;
}

/* The axis along which the box centres spread most. */
static int bp_sweep_axis(const bp_box *box, int n) {
  double sum[3] = {0, 0, 0}, sum2[3] = {0, 0, 0};
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++) {
      double c = 0.5 * (box[i].lo[k] + box[i].hi[k]);
      sum[k] += c;
      sum2[k] += c * c;
    }
  int axis = 0;
  double best = -1;
  for (int k = 0; k < 3; k++) {
    double var = sum2[k] - sum[k] * sum[k] / (n > 0 ? n : 1);
    if (var > best) best = var, axis = k;
  }
  return axis;
}

/* ------------------------------------------------------------------ sort */

/* Ties broken by geom id so that the pair order never depends on the sort's history. */
static int bp_before(const bp_box *a, const bp_box *b, int axis) {
  if (a->lo[axis] != b->lo[axis]) return a->lo[axis] < b->lo[axis];
  return a->geom < b->geom;
}

/* Bottom-up merge sort of box[0..n) on lo[axis], with tmp[0..n) as scratch. */
static void bp_sort(bp_box *box, bp_box *tmp, int n, int axis) {
  bp_box *src = box, *dst = tmp;
  for (int width = 1; width < n; width *= 2) {
    for (int start = 0; start < n; start += 2 * width) {
      int mid = start + width < n ? start + width : n;
      int end = start + 2 * width < n ? start + 2 * width : n;
      int i = start, j = mid, k = start;
      while (i < mid && j < end) dst[k++] = bp_before(&src[j], &src[i], axis) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < end) dst[k++] = src[j++];
    }
    bp_box *t = src;
    src = dst;
    dst = t;
  }
  if (src != box)
    for (int i = 0; i < n; i++) box[i] = src[i];
}

/* ------------------------------------------------------------------ pairs */

static void bp_report(mr_broadphase_fn fn, void *ctx, int a, int b) {
  if (a < b) fn(ctx, a, b);
  else fn(ctx, b, a);
}

static int bp_overlap(const bp_box *a, const bp_box *b) {
  for (int k = 0; k < 3; k++)
    if (a->lo[k] > b->hi[k] || b->lo[k] > a->hi[k]) return 0;
  return 1;
}

static void bp_sweep(const bp_box *box, int n, int axis, mr_broadphase_fn fn, void *ctx) {
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n && box[j].lo[axis] <= box[i].hi[axis]; j++)
      if (bp_overlap(&box[i], &box[j])) bp_report(fn, ctx, box[i].geom, box[j].geom);
}

/* Signed distance from the plane to the nearest point of the box (margins included). */
static double bp_plane_box_distance(const mr_model *m, const mr_data *d, int plane, const bp_box *b) {
  const double *p = d->geom_xpos + 3 * plane, *R = d->geom_xmat + 9 * plane;
  double normal[3] = {R[2], R[5], R[8]};
  double dist = 0, reach = 0;
  for (int k = 0; k < 3; k++) {
    double centre = 0.5 * (b->lo[k] + b->hi[k]), half = 0.5 * (b->hi[k] - b->lo[k]);
    dist += normal[k] * (centre - p[k]);
    reach += fabs(normal[k]) * half;
  }
  return dist - reach - m->geom_margin[plane];
}

static void bp_planes(const mr_model *m, const mr_data *d, const bp_scene *s, mr_broadphase_fn fn,
                      void *ctx) {
  for (int i = 0; i < s->nplane; i++)
    for (int j = 0; j < s->nbox; j++)
      if (bp_plane_box_distance(m, d, s->plane[i], &s->box[j]) <= 0)
        bp_report(fn, ctx, s->plane[i], s->box[j].geom);
}

int mr_broadphase(const mr_model *m, mr_data *d, const double *reach, mr_broadphase_fn fn, void *ctx) {
  size_t mark = mr_arena_mark(d);
  bp_scene s;
  if (bp_scene_build(m, d, reach, &s)) {
    mr_arena_restore(d, mark);
    return -1;
  }
  bp_box *tmp = mr_arena_alloc(d, (size_t)s.nbox * sizeof(bp_box));
  if (s.nbox && !tmp) {
    mr_arena_restore(d, mark);
    return -1;
  }
  int axis = bp_sweep_axis(s.box, s.nbox);
  bp_sort(s.box, tmp, s.nbox, axis);
  bp_planes(m, d, &s, fn, ctx);
  bp_sweep(s.box, s.nbox, axis, fn, ctx);
  mr_arena_restore(d, mark);
  return 0;
}
