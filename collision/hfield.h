/* Heightfield geometry shared by collision, ray casting and drawing (MuJoCo's layout).
 *
 * In the geom frame, sample (r, c) sits at x = c dx - sx, y = r dy - sy (dx = 2 sx / (ncol - 1),
 * dy = 2 sy / (nrow - 1)) at height z = size[2] * data[r ncol + c]; the solid below the
 * surface reaches down to z = -size[3]. Each cell [c, c+1] x [r, r+1] is split along its
 * (c, r)-(c+1, r+1) diagonal into two triangles, MuJoCo's triangulation:
 *   triangle 0: (c, r), (c+1, r), (c+1, r+1)      below the diagonal (x - x_c > y - y_r)
 *   triangle 1: (c, r), (c+1, r+1), (c, r+1)      above it
 * and a triangle with the base under it is a prism, the convex piece collisions use. */
#ifndef MR_HFIELD_H
#define MR_HFIELD_H

#include "moreau.h"

typedef struct mr_hfield {
  const float *data;
  int nrow, ncol;
  double sx, sy, top, base; /* hfield_size */
  double dx, dy;            /* grid steps */
} mr_hfield;

void mr_hfield_get(const mr_model *m, int hfield, mr_hfield *h);

/* The top vertices of triangle tri (0 or 1) of cell (r, c), counter-clockwise seen from
 * above, in the geom frame. */
void mr_hfield_triangle(const mr_hfield *h, int r, int c, int tri, double v[3][3]);

/* Surface height at (x, y) in the geom frame, clamped to the grid. */
double mr_hfield_height(const mr_hfield *h, double x, double y);

/* Cells overlapping the local box [x0, x1] x [y0, y1]: rows [*r0, *r1), columns [*c0, *c1),
 * empty (r0 >= r1 or c0 >= c1) when the box misses the grid. */
void mr_hfield_cells(const mr_hfield *h, double x0, double x1, double y0, double y1, int *r0,
                     int *r1, int *c0, int *c1);

#endif
