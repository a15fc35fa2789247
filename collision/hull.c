/* Convex hulls through qhull's reentrant library: triangulated facets ("Qt"), each wound
 * counter-clockwise seen from outside so that face normals point out. */
#include "hull.h"

#include <libqhull_r/qhull_ra.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hull of a degenerate set is the set itself, without faces. */
static int mr_hull_fallback(const double *points, int n, mr_hull *out) {
  out->vert = malloc(sizeof(double) * 3 * (size_t)(n > 0 ? n : 1));
  if (!out->vert) return -1;
  if (n > 0) memcpy(out->vert, points, sizeof(double) * 3 * (size_t)n);
  out->nvert = n;
  return 1;
}

static void mr_hull_orient(const double *v, int *t, const double normal[3]) {
  const double *a = v + 3 * t[0], *b = v + 3 * t[1], *c = v + 3 * t[2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
  if (n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2] < 0) {
    int s = t[1];
    t[1] = t[2];
    t[2] = s;
  }
}

/* Copies qhull's vertices and triangles out of a finished run. */
static int mr_hull_extract(qhT *qh, int n, mr_hull *out) {
  int *map = malloc(sizeof(int) * (size_t)n);
  out->vert = malloc(sizeof(double) * 3 * (size_t)qh->num_vertices);
  out->face = malloc(sizeof(int) * 3 * (size_t)qh->num_facets);
  if (!map || !out->vert || !out->face) {
    free(map);
    return -1;
  }
  vertexT *vertex;
  FORALLvertices {
    int id = qh_pointid(qh, vertex->point);
    if (id < 0 || id >= n) continue;
    map[id] = out->nvert;
    memcpy(out->vert + 3 * out->nvert, vertex->point, 3 * sizeof(double));
    out->nvert++;
  }
  facetT *facet;
  FORALLfacets {
    if (facet->upperdelaunay || qh_setsize(qh, facet->vertices) != 3) continue;
    int *t = out->face + 3 * out->nface, k = 0;
    vertexT **vertexp;
    FOREACHvertex_(facet->vertices) t[k++] = map[qh_pointid(qh, vertex->point)];
    mr_hull_orient(out->vert, t, facet->normal);
    out->nface++;
  }
  free(map);
  return 0;
}

int mr_hull_compute(const double *points, int n, mr_hull *out) {
  memset(out, 0, sizeof *out);
  if (n < 4) return mr_hull_fallback(points, n, out);
  double *copy = malloc(sizeof(double) * 3 * (size_t)n); /* qhull wants non-const coordT */
  if (!copy) return -1;
  memcpy(copy, points, sizeof(double) * 3 * (size_t)n);
  FILE *devnull = fopen("/dev/null", "w"); /* qhull reports degeneracy on errfile */
  qhT qh_storage, *qh = &qh_storage;
  qh_zero(qh, devnull);
  char options[] = "qhull Qt";
  int code = qh_new_qhull(qh, 3, n, copy, False, options, NULL, devnull);
  int rc = code == 0 ? mr_hull_extract(qh, n, out) : 1;
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  if (devnull) fclose(devnull);
  free(copy);
  if (rc != 0) {
    mr_hull_free(out);
    if (rc < 0) return -1;
    return mr_hull_fallback(points, n, out);
  }
  return 0;
}

void mr_hull_free(mr_hull *h) {
  if (!h) return;
  free(h->vert);
  free(h->face);
  memset(h, 0, sizeof *h);
}
