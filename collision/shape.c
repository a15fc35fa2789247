/* Per-geom shape view, support functions and bounding boxes. */
#include "shape.h"

#include <math.h>

#include "engine/core/mr_math.h"

void mr_shape_make(const mr_model *m, const mr_data *d, int g, mr_shape *s) {
  s->type = m->geom_type[g];
  mr_copy3(s->size, m->geom_size + 3 * g);
  mr_copy3(s->pos, d->geom_xpos + 3 * g);
  memcpy(s->mat, d->geom_xmat + 9 * g, sizeof s->mat);
  s->rbound = m->geom_rbound[g];
  s->hullvert = 0;
  s->hullface = 0;
  s->nhull = s->nhullface = 0;
  s->hfield = s->type == MR_GEOM_HFIELD ? m->geom_hfieldid[g] : -1;
  int mesh = m->geom_meshid[g];
  if (s->type == MR_GEOM_MESH && mesh >= 0) {
    s->hullvert = m->mesh_hullvert + 3 * m->mesh_hullvertadr[mesh];
    s->nhull = m->mesh_hullvertnum[mesh];
    s->hullface = m->mesh_hullface + 3 * m->mesh_hullfaceadr[mesh];
    s->nhullface = m->mesh_hullfacenum[mesh];
    if (s->nhull == 0) { /* no hull (should not happen): fall back on the raw vertices */
      s->hullvert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
      s->nhull = m->mesh_vertnum[mesh];
      s->nhullface = 0;
    }
  }
}

/* Sign that never returns 0, so supports of flat sides pick a vertex deterministically. */
static inline double mr_sgn(double x) { return x < 0 ? -1.0 : 1.0; }

static void mr_support_local(const mr_shape *s, const double d[3], double p[3]) {
  const double *z = s->size;
  switch (s->type) {
    case MR_GEOM_SPHERE:
    case MR_GEOM_CAPSULE: {
      double n = mr_norm3(d), r = z[0];
      if (n > MR_MINVAL) mr_scale3(p, d, r / n);
      else { p[0] = p[1] = 0; p[2] = r; }
      if (s->type == MR_GEOM_CAPSULE) p[2] += mr_sgn(d[2]) * z[1];
      return;
    }
    case MR_GEOM_ELLIPSOID: {
      double q[3] = {z[0] * z[0] * d[0], z[1] * z[1] * d[1], z[2] * z[2] * d[2]};
      double n = sqrt(mr_dot3(q, d));
      if (n > MR_MINVAL) mr_scale3(p, q, 1.0 / n);
      else { p[0] = p[1] = 0; p[2] = z[2]; }
      return;
    }
    case MR_GEOM_CYLINDER: {
      double n = sqrt(d[0] * d[0] + d[1] * d[1]);
      if (n > MR_MINVAL) { p[0] = z[0] * d[0] / n; p[1] = z[0] * d[1] / n; }
      else { p[0] = z[0]; p[1] = 0; } /* a rim point, so that MPR sees a vertex */
      p[2] = mr_sgn(d[2]) * z[1];
      return;
    }
    case MR_GEOM_BOX:
      for (int i = 0; i < 3; i++) p[i] = mr_sgn(d[i]) * z[i];
      return;
    case MR_GEOM_MESH: {
      int best = 0;
      double bestdot = -HUGE_VAL;
      const double *v = s->hullvert;
      for (int k = 0; k < s->nhull; k++) {
        double t = d[0] * v[3 * k] + d[1] * v[3 * k + 1] + d[2] * v[3 * k + 2];
        if (t > bestdot) { bestdot = t; best = k; }
      }
      if (s->nhull == 0) { mr_zero3(p); return; }
      for (int i = 0; i < 3; i++) p[i] = v[3 * best + i];
      return;
    }
    default: mr_zero3(p); return;
  }
}

void mr_shape_support(const mr_shape *s, const double dir[3], double out[3]) {
  double dl[3], pl[3];
  mr_mulmatT3(dl, s->mat, dir);
  mr_support_local(s, dl, pl);
  mr_shape_to_world(s, out, pl);
}

/* Hessian of the local support function h(d) = max_x x.d at unit d (the curvature of the
 * surface's normal map): zero for flat sides and edges, so polytopes give 0. */
static void mr_support_hess_local(const mr_shape *s, const double d[3], double H[9]) {
  const double *z = s->size;
  memset(H, 0, 9 * sizeof(double));
  switch (s->type) {
    case MR_GEOM_SPHERE:
    case MR_GEOM_CAPSULE: /* r (I - d d^T); a capsule's segment adds nothing */
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) H[3 * i + j] = z[0] * ((i == j) - d[i] * d[j]);
      return;
    case MR_GEOM_ELLIPSOID: { /* h = sqrt(d^T Q d): Q/h - (Qd)(Qd)^T / h^3 */
      double q[3] = {z[0] * z[0] * d[0], z[1] * z[1] * d[1], z[2] * z[2] * d[2]};
      double h = sqrt(mr_dot3(q, d));
      if (h < MR_MINVAL) return;
      double ih = 1.0 / h, ih3 = ih * ih * ih;
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) H[3 * i + j] = -q[i] * q[j] * ih3;
        H[4 * i] += z[i] * z[i] * ih;
      }
      return;
    }
    case MR_GEOM_CYLINDER: { /* the caps' disks: r (P - p p^T / rho^2) / rho, p = P d */
      double rho = sqrt(d[0] * d[0] + d[1] * d[1]);
      /* at the cap's normal h has a corner (unbounded curvature): a finite value lets
       * Newton leave it toward the rim; its line search absorbs the overshoot */
      if (rho < 1e-9) rho = 1e-9;
      double k = z[0] / rho, u0 = d[0] / rho, u1 = d[1] / rho;
      H[0] = k * (1 - u0 * u0);
      H[1] = H[3] = -k * u0 * u1;
      H[4] = k * (1 - u1 * u1);
      return;
    }
    default: return; /* box, mesh: flat */
  }
}

void mr_shape_support_hess(const mr_shape *s, const double dir[3], double out[3],
                           double hess[9]) {
  double dl[3], pl[3], Hl[9];
  mr_mulmatT3(dl, s->mat, dir);
  mr_support_local(s, dl, pl);
  mr_shape_to_world(s, out, pl);
  if (s->type == MR_GEOM_BOX || s->type == MR_GEOM_MESH) {
    memset(hess, 0, 9 * sizeof(double));
    return;
  }
  mr_support_hess_local(s, dl, Hl);
  double RH[9]; /* hess = R Hl R^T */
  const double *R = s->mat;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      RH[3 * i + j] = R[3 * i] * Hl[j] + R[3 * i + 1] * Hl[3 + j] + R[3 * i + 2] * Hl[6 + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      hess[3 * i + j] = RH[3 * i] * R[3 * j] + RH[3 * i + 1] * R[3 * j + 1] + RH[3 * i + 2] * R[3 * j + 2];
}

int mr_shape_core(const mr_shape *s, double a[3], double b[3], double *radius) {
  if (s->type == MR_GEOM_SPHERE) {
    mr_copy3(a, s->pos);
    mr_copy3(b, s->pos);
    *radius = s->size[0];
    return 1;
  }
  if (s->type == MR_GEOM_CAPSULE) {
    double ax[3];
    mr_shape_axis(s, 2, ax);
    mr_copy3(a, s->pos);
    mr_addscl3(a, ax, -s->size[1]);
    mr_copy3(b, s->pos);
    mr_addscl3(b, ax, s->size[1]);
    *radius = s->size[0];
    return 2;
  }
  return 0;
}

static void mr_aabb_plane(const mr_shape *s, double lo[3], double hi[3]) {
  /* A plane is the half-space below it: bounded only along an axis-aligned normal. */
  for (int i = 0; i < 3; i++) { lo[i] = -HUGE_VAL; hi[i] = HUGE_VAL; }
  double n[3];
  mr_shape_axis(s, 2, n);
  for (int i = 0; i < 3; i++) {
    if (n[i] == 1.0) hi[i] = s->pos[i];
    if (n[i] == -1.0) lo[i] = s->pos[i];
  }
}

void mr_shape_aabb(const mr_shape *s, double lo[3], double hi[3]) {
  const double *R = s->mat, *z = s->size;
  double h[3] = {0, 0, 0};
  switch (s->type) {
    case MR_GEOM_PLANE: mr_aabb_plane(s, lo, hi); return;
    case MR_GEOM_SPHERE: h[0] = h[1] = h[2] = z[0]; break;
    case MR_GEOM_CAPSULE:
      for (int i = 0; i < 3; i++) h[i] = fabs(R[3 * i + 2]) * z[1] + z[0];
      break;
    case MR_GEOM_CYLINDER:
      for (int i = 0; i < 3; i++) {
        double a = R[3 * i + 2];
        h[i] = fabs(a) * z[1] + z[0] * sqrt(fmax(0.0, 1 - a * a));
      }
      break;
    case MR_GEOM_ELLIPSOID:
      for (int i = 0; i < 3; i++) {
        double x = R[3 * i] * z[0], y = R[3 * i + 1] * z[1], w = R[3 * i + 2] * z[2];
        h[i] = sqrt(x * x + y * y + w * w);
      }
      break;
    case MR_GEOM_BOX:
      for (int i = 0; i < 3; i++)
        h[i] = fabs(R[3 * i]) * z[0] + fabs(R[3 * i + 1]) * z[1] + fabs(R[3 * i + 2]) * z[2];
      break;
    case MR_GEOM_MESH: {
      for (int i = 0; i < 3; i++) { lo[i] = HUGE_VAL; hi[i] = -HUGE_VAL; }
      for (int k = 0; k < s->nhull; k++) {
        double l[3] = {s->hullvert[3 * k], s->hullvert[3 * k + 1], s->hullvert[3 * k + 2]}, w[3];
        mr_shape_to_world(s, w, l);
        for (int i = 0; i < 3; i++) { lo[i] = fmin(lo[i], w[i]); hi[i] = fmax(hi[i], w[i]); }
      }
      if (s->nhull == 0) { mr_copy3(lo, s->pos); mr_copy3(hi, s->pos); }
      return;
    }
    default: h[0] = h[1] = h[2] = s->rbound; break;
  }
  for (int i = 0; i < 3; i++) { lo[i] = s->pos[i] - h[i]; hi[i] = s->pos[i] + h[i]; }
}

/* A heightfield's box: x and y half extents, from the base up to the top height. */
static void mr_aabb_hfield(const mr_model *m, const mr_shape *s, double lo[3], double hi[3]) {
  const double *hs = m->hfield_size + 4 * s->hfield;
  double c[3] = {0, 0, 0.5 * (hs[2] - hs[3])}, half[3] = {hs[0], hs[1], 0.5 * (hs[2] + hs[3])}, wc[3];
  mr_shape_to_world(s, wc, c);
  for (int i = 0; i < 3; i++) {
    double h = 0;
    for (int j = 0; j < 3; j++) h += fabs(s->mat[3 * i + j]) * half[j];
    lo[i] = wc[i] - h;
    hi[i] = wc[i] + h;
  }
}

void mr_geom_aabb(const mr_model *m, const mr_data *d, int g, double lo[3], double hi[3]) {
  mr_shape s;
  mr_shape_make(m, d, g, &s);
  if (s.type == MR_GEOM_HFIELD && s.hfield >= 0) mr_aabb_hfield(m, &s, lo, hi);
  else mr_shape_aabb(&s, lo, hi);
}

int mr_geom_aabbs_near(const mr_model *m, const mr_data *d, int g1, int g2, double margin) {
  double lo1[3], hi1[3], lo2[3], hi2[3];
  mr_geom_aabb(m, d, g1, lo1, hi1);
  mr_geom_aabb(m, d, g2, lo2, hi2);
  for (int k = 0; k < 3; k++)
    if (lo1[k] > hi2[k] + margin || lo2[k] > hi1[k] + margin) return 0;
  return 1;
}
