/* Convex hulls of point sets (qhull, reentrant API). */
#ifndef MR_HULL_H
#define MR_HULL_H

typedef struct mr_hull {
  double *vert; /* nvert x3 */
  int *face;    /* nface x3: triangles, indices into vert, counter-clockwise seen from outside */
  int nvert, nface;
} mr_hull;

/* Computes the hull of n points (x3). Returns 0; 1 when the points are degenerate (flat,
 * collinear or fewer than 4): then the hull is the input point set with no faces; -1 when
 * out of memory. */
int mr_hull_compute(const double *points, int n, mr_hull *out);
void mr_hull_free(mr_hull *h);

#endif
