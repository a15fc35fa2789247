/* Heightfield grid: samples, triangles, heights, cell ranges (hfield.h). */
#include "hfield.h"

#include <math.h>

void mr_hfield_get(const mr_model *m, int hfield, mr_hfield *h) {
  const double *size = m->hfield_size + 4 * hfield;
  h->data = m->hfield_data + m->hfield_adr[hfield];
  h->nrow = m->hfield_nrow[hfield];
  h->ncol = m->hfield_ncol[hfield];
  h->sx = size[0];
  h->sy = size[1];
  h->top = size[2];
  h->base = size[3];
  h->dx = 2 * h->sx / (h->ncol - 1);
  h->dy = 2 * h->sy / (h->nrow - 1);
}

static void mr_hfield_sample(const mr_hfield *h, int r, int c, double v[3]) {
  v[0] = c * h->dx - h->sx;
  v[1] = r * h->dy - h->sy;
  v[2] = h->top * h->data[(size_t)r * h->ncol + c];
}

void mr_hfield_triangle(const mr_hfield *h, int r, int c, int tri, double v[3][3]) {
  mr_hfield_sample(h, r, c, v[0]);
  if (tri == 0) {
    mr_hfield_sample(h, r, c + 1, v[1]);
    mr_hfield_sample(h, r + 1, c + 1, v[2]);
  } else {
    mr_hfield_sample(h, r + 1, c + 1, v[1]);
    mr_hfield_sample(h, r + 1, c, v[2]);
  }
}

double mr_hfield_height(const mr_hfield *h, double x, double y) {
  double fx = (x + h->sx) / h->dx, fy = (y + h->sy) / h->dy;
  fx = fmin(fmax(fx, 0), h->ncol - 1);
  fy = fmin(fmax(fy, 0), h->nrow - 1);
  int c = (int)fx, r = (int)fy;
  if (c > h->ncol - 2) c = h->ncol - 2;
  if (r > h->nrow - 2) r = h->nrow - 2;
  double u = fx - c, w = fy - r;
  const float *d = h->data + (size_t)r * h->ncol + c;
  double z00 = d[0], z10 = d[1], z01 = d[h->ncol], z11 = d[h->ncol + 1];
  /* barycentric on the triangle that holds (u, w) */
  double z = u >= w ? z00 + u * (z10 - z00) + w * (z11 - z10) : z00 + w * (z01 - z00) + u * (z11 - z01);
  return h->top * z;
}

void mr_hfield_cells(const mr_hfield *h, double x0, double x1, double y0, double y1, int *r0,
                     int *r1, int *c0, int *c1) {
  double fc0 = floor((x0 + h->sx) / h->dx), fc1 = ceil((x1 + h->sx) / h->dx);
  double fr0 = floor((y0 + h->sy) / h->dy), fr1 = ceil((y1 + h->sy) / h->dy);
  *c0 = (int)fmax(0, fmin(fc0, h->ncol - 1));
  *c1 = (int)fmax(0, fmin(fc1, h->ncol - 1));
  *r0 = (int)fmax(0, fmin(fr0, h->nrow - 1));
  *r1 = (int)fmax(0, fmin(fr1, h->nrow - 1));
  if (!(x1 >= -h->sx && x0 <= h->sx && y1 >= -h->sy && y0 <= h->sy)) *r1 = *r0, *c1 = *c0;
}
