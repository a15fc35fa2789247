/* Ray casting (ray.h): closed forms in each shape's own frame, triangles for meshes and
 * heightfields. */
#include "ray.h"

#include <math.h>

#include "engine/core/mr_math.h"
#include "hfield.h"

/* The nearer of two candidate distances (-1 meaning none). */
static double mr_ray_min(double a, double b) {
  if (a < 0) return b;
  if (b < 0) return a;
  return a < b ? a : b;
}

/* Smallest x >= 0 with a x^2 + 2 b x + c = 0, or -1. */
static double mr_ray_quadratic(double a, double b, double c) {
  if (a < MR_MINVAL) return -1;
  double det = b * b - a * c;
  if (det < 0) return -1;
  double s = sqrt(det), x0 = (-b - s) / a, x1 = (-b + s) / a;
  return x0 >= 0 ? x0 : x1 >= 0 ? x1 : -1;
}

static double mr_ray_sphere(double r, const double p[3], const double v[3]) {
  return mr_ray_quadratic(mr_dot3(v, v), mr_dot3(p, v), mr_dot3(p, p) - r * r);
}

/* The outer half of a capsule's end sphere (e = +1 top, -1 bottom): both crossings of the
 * sphere are tried, since the nearer may lie on its inner half, inside the capsule. */
static double mr_ray_cap(double r, double h, int e, const double p[3], const double v[3]) {
  double q[3] = {p[0], p[1], p[2] - e * h};
  double a = mr_dot3(v, v), b = mr_dot3(q, v), c = mr_dot3(q, q) - r * r, det = b * b - a * c;
  if (a < MR_MINVAL || det < 0) return -1;
  double s = sqrt(det), best = -1;
  for (int k = 0; k < 2; k++) {
    double x = (-b + (k ? s : -s)) / a;
    if (x >= 0 && e * (q[2] + x * v[2]) >= 0) best = mr_ray_min(best, x);
  }
  return best;
}

/* The side of a z-axis cylinder of radius r between z = -h and h (no caps). */
static double mr_ray_tube(double r, double h, const double p[3], const double v[3]) {
  double a = v[0] * v[0] + v[1] * v[1], b = p[0] * v[0] + p[1] * v[1];
  double c = p[0] * p[0] + p[1] * p[1] - r * r, det = b * b - a * c;
  if (a < MR_MINVAL || det < 0) return -1;
  double s = sqrt(det), best = -1;
  for (int k = 0; k < 2; k++) {
    double x = (-b + (k ? s : -s)) / a;
    if (x >= 0 && fabs(p[2] + x * v[2]) <= h) best = mr_ray_min(best, x);
  }
  return best;
}

/* The face of a box (or a cylinder's cap) at coordinate `at` of `axis`, within the
 * half-extents of the other two axes (disk of radius disk when disk > 0). */
static double mr_ray_face(const double p[3], const double v[3], int axis, double at,
                          const double half[3], double disk) {
  if (fabs(v[axis]) < MR_MINVAL) return -1;
  double x = (at - p[axis]) / v[axis];
  if (x < 0) return -1;
  double q[3];
  for (int i = 0; i < 3; i++) q[i] = p[i] + x * v[i];
  if (disk > 0) return q[0] * q[0] + q[1] * q[1] <= disk * disk ? x : -1;
  for (int i = 0; i < 3; i++)
    if (i != axis && fabs(q[i]) > half[i]) return -1;
  return x;
}

static double mr_ray_local(int type, const double *size, const double p[3], const double v[3]) {
  switch (type) {
    case MR_GEOM_PLANE: {
      if (v[2] > -MR_MINVAL) return -1; /* one-sided: only from above */
      double x = -p[2] / v[2];
      if (x < 0) return -1;
      for (int i = 0; i < 2; i++)
        if (size[i] > 0 && fabs(p[i] + x * v[i]) > size[i]) return -1;
      return x;
    }
    case MR_GEOM_SPHERE: return mr_ray_sphere(size[0], p, v);
    case MR_GEOM_CAPSULE: {
      double best = mr_ray_tube(size[0], size[1], p, v);
      for (int e = -1; e <= 1; e += 2) best = mr_ray_min(best, mr_ray_cap(size[0], size[1], e, p, v));
      return best;
    }
    case MR_GEOM_ELLIPSOID: {
      double q[3], w[3];
      for (int i = 0; i < 3; i++) q[i] = p[i] / size[i], w[i] = v[i] / size[i];
      return mr_ray_sphere(1, q, w);
    }
    case MR_GEOM_CYLINDER: {
      double best = mr_ray_tube(size[0], size[1], p, v);
      for (int e = -1; e <= 1; e += 2) best = mr_ray_min(best, mr_ray_face(p, v, 2, e * size[1], size, size[0]));
      return best;
    }
    case MR_GEOM_BOX: {
      double best = -1;
      for (int i = 0; i < 3; i++)
        for (int e = -1; e <= 1; e += 2) best = mr_ray_min(best, mr_ray_face(p, v, i, e * size[i], size, 0));
      return best;
    }
    default: return -1;
  }
}

/* Ray point and direction in a frame at pos with axes mat. */
static void mr_ray_to_local(const double pos[3], const double mat[9], const double p[3],
                            const double v[3], double lp[3], double lv[3]) {
  double d[3];
  mr_sub3(d, p, pos);
  mr_mulmatT3(lp, mat, d);
  mr_mulmatT3(lv, mat, v);
}

double mr_ray_primitive(int type, const double size[3], const double pos[3], const double mat[9],
                        const double p[3], const double v[3]) {
  double lp[3], lv[3];
  mr_ray_to_local(pos, mat, p, v, lp, lv);
  return mr_ray_local(type, size, lp, lv);
}

/* Two-sided ray-triangle intersection (Moller-Trumbore). */
static double mr_ray_triangle(const double a[3], const double b[3], const double c[3],
                              const double p[3], const double v[3]) {
  double e1[3], e2[3], h[3], s[3], q[3];
  mr_sub3(e1, b, a);
  mr_sub3(e2, c, a);
  mr_cross3(h, v, e2);
  double det = mr_dot3(e1, h);
  if (fabs(det) < 1e-300) return -1;
  double inv = 1 / det;
  mr_sub3(s, p, a);
  double u = inv * mr_dot3(s, h);
  if (u < 0 || u > 1) return -1;
  mr_cross3(q, s, e1);
  double w = inv * mr_dot3(v, q);
  if (w < 0 || u + w > 1) return -1;
  double x = inv * mr_dot3(e2, q);
  return x >= 0 ? x : -1;
}

static double mr_ray_mesh(const mr_model *m, int mesh, const double p[3], const double v[3]) {
  const double *vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
  const int *face = m->mesh_face + 3 * m->mesh_faceadr[mesh];
  double best = -1;
  for (int f = 0; f < m->mesh_facenum[mesh]; f++) {
    const int *t = face + 3 * f;
    best = mr_ray_min(best, mr_ray_triangle(vert + 3 * t[0], vert + 3 * t[1], vert + 3 * t[2], p, v));
  }
  return best;
}

/* The heightfield as MuJoCo casts rays at it: the nearest crossing of any of its parts,
 * the base box (z from -base to 0), the surface triangles and the four sides of the box
 * above the base (z from 0 to top) where they lie under the surface's border. A ray that
 * starts inside the solid thus meets the base's top face or the surface, whichever comes
 * first. Only the cells under the ray's stretch inside the upper box are tried. */
static double mr_ray_hfield(const mr_model *m, int hfield, const double p[3], const double v[3]) {
  mr_hfield h;
  mr_hfield_get(m, hfield, &h);
  double half[3] = {h.sx, h.sy, 0.5 * h.base}, q[3];
  mr_copy3(q, p);
  q[2] += 0.5 * h.base;
  double best = h.base > 0 ? mr_ray_local(MR_GEOM_BOX, half, q, v) : -1;
  /* the ray's stretch inside the upper box, [x0, x1] */
  double x0 = 0, x1 = HUGE_VAL, lo[3] = {-h.sx, -h.sy, 0}, hi[3] = {h.sx, h.sy, h.top};
  for (int i = 0; i < 3; i++) {
    if (fabs(v[i]) < MR_MINVAL) {
      if (p[i] < lo[i] || p[i] > hi[i]) return best;
      continue;
    }
    double a = (lo[i] - p[i]) / v[i], b = (hi[i] - p[i]) / v[i];
    x0 = fmax(x0, fmin(a, b));
    x1 = fmin(x1, fmax(a, b));
  }
  if (x0 > x1) return best;
  int r0, r1, c0, c1;
  double xa = p[0] + x0 * v[0], xb = p[0] + x1 * v[0], ya = p[1] + x0 * v[1], yb = p[1] + x1 * v[1];
  mr_hfield_cells(&h, fmin(xa, xb), fmax(xa, xb), fmin(ya, yb), fmax(ya, yb), &r0, &r1, &c0, &c1);
  for (int r = r0; r < r1; r++)
    for (int c = c0; c < c1; c++)
      for (int t = 0; t < 2; t++) {
        double tri[3][3];
        mr_hfield_triangle(&h, r, c, t, tri);
        best = mr_ray_min(best, mr_ray_triangle(tri[0], tri[1], tri[2], p, v));
      }
  double box[3] = {h.sx, h.sy, HUGE_VAL};
  for (int i = 0; i < 2; i++)
    for (int e = -1; e <= 1; e += 2) {
      double x = mr_ray_face(p, v, i, e * half[i], box, 0);
      if (x < 0) continue;
      double z = p[2] + x * v[2];
      if (z >= 0 && z <= h.top && z < mr_hfield_height(&h, p[0] + x * v[0], p[1] + x * v[1]))
        best = mr_ray_min(best, x);
    }
  return best;
}

double mr_ray_geom(const mr_model *m, const mr_data *d, int g, const double p[3], const double v[3]) {
  double lp[3], lv[3];
  mr_ray_to_local(d->geom_xpos + 3 * g, d->geom_xmat + 9 * g, p, v, lp, lv);
  switch (m->geom_type[g]) {
    case MR_GEOM_MESH: return m->geom_meshid[g] >= 0 ? mr_ray_mesh(m, m->geom_meshid[g], lp, lv) : -1;
    case MR_GEOM_HFIELD: return m->geom_hfieldid[g] >= 0 ? mr_ray_hfield(m, m->geom_hfieldid[g], lp, lv) : -1;
    default: return mr_ray_local(m->geom_type[g], m->geom_size + 3 * g, lp, lv);
  }
}

/* Invisible geoms (alpha 0, their own or their material's) are not seen by rays. */
static int mr_ray_visible(const mr_model *m, int g) {
  int mat = m->geom_matid[g];
  return mat >= 0 ? m->mat_rgba[4 * mat + 3] != 0 : m->geom_rgba[4 * g + 3] != 0;
}

/* Bounding-sphere test (planes and heightfields have none). */
static int mr_ray_may_hit(const mr_model *m, const mr_data *d, int g, const double p[3],
                          const double v[3]) {
  int type = m->geom_type[g];
  if (type == MR_GEOM_PLANE || type == MR_GEOM_HFIELD) return 1;
  double q[3];
  mr_sub3(q, p, d->geom_xpos + 3 * g);
  return mr_ray_sphere(m->geom_rbound[g], q, v) >= 0;
}

double mr_ray(const mr_model *m, const mr_data *d, const double p[3], const double v[3],
              int bodyexclude, int *geomid) {
  double best = -1;
  int hit = -1;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == bodyexclude || !mr_ray_visible(m, g)) continue;
    if (!mr_ray_may_hit(m, d, g, p, v)) continue;
    double x = mr_ray_geom(m, d, g, p, v);
    if (x >= 0 && (best < 0 || x < best)) best = x, hit = g;
  }
  if (geomid) *geomid = hit;
  return best;
}
