/* Mass properties of geoms and meshes, and of bodies made of several geoms. */
#include "inertia.h"

#include <math.h>
#include <string.h>

#include "moreau.h"
#include "mr_math.h"

double mr_geom_volume(int type, const double size[3]) {
  const double r = size[0];
  switch (type) {
    case MR_GEOM_SPHERE: return 4.0 / 3.0 * MR_PI * r * r * r;
    case MR_GEOM_CAPSULE: return MR_PI * r * r * 2 * size[1] + 4.0 / 3.0 * MR_PI * r * r * r;
    case MR_GEOM_ELLIPSOID: return 4.0 / 3.0 * MR_PI * size[0] * size[1] * size[2];
    case MR_GEOM_CYLINDER: return MR_PI * r * r * 2 * size[1];
    case MR_GEOM_BOX: return 8 * size[0] * size[1] * size[2];
    default: return 0;
  }
}

/* A capsule is a cylinder of length L = 2 size[1] plus two hemispheres whose flat faces sit
 * at +-L/2; each hemisphere's transverse moment about the capsule center is, by the
 * parallel-axis theorem from its own com (3r/8 from the face), m (2r^2/5 + L^2/4 + 3rL/8). */
static void mr_capsule_inertia(const double size[3], double mass, double inertia[3]) {
  const double r = size[0], L = 2 * size[1];
  const double vcyl = MR_PI * r * r * L, vsph = 4.0 / 3.0 * MR_PI * r * r * r;
  const double msph = mass * vsph / (vcyl + vsph), mcyl = mass - msph;
  const double across = mcyl * (3 * r * r + L * L) / 12 +
                        msph * (2 * r * r / 5 + L * L / 4 + 3 * r * L / 8);
  inertia[0] = inertia[1] = across;
  inertia[2] = mcyl * r * r / 2 + msph * 2 * r * r / 5;
}

void mr_geom_inertia(int type, const double size[3], double mass, double inertia[3]) {
  const double a = size[0], b = size[1], c = size[2];
  inertia[0] = inertia[1] = inertia[2] = 0;
  switch (type) {
    case MR_GEOM_SPHERE:
      inertia[0] = inertia[1] = inertia[2] = 0.4 * mass * a * a;
      break;
    case MR_GEOM_CAPSULE:
      mr_capsule_inertia(size, mass, inertia);
      break;
    case MR_GEOM_ELLIPSOID:
      inertia[0] = mass * (b * b + c * c) / 5;
      inertia[1] = mass * (a * a + c * c) / 5;
      inertia[2] = mass * (a * a + b * b) / 5;
      break;
    case MR_GEOM_CYLINDER:
      inertia[0] = inertia[1] = mass * (3 * a * a + 4 * b * b) / 12;
      inertia[2] = mass * a * a / 2;
      break;
    case MR_GEOM_BOX:
      inertia[0] = mass * (b * b + c * c) / 3;
      inertia[1] = mass * (a * a + c * c) / 3;
      inertia[2] = mass * (a * a + b * b) / 3;
      break;
    default:
      break;
  }
}

int mr_mesh_mass_properties(const double *vert, int nvert, const int *face, int nface,
                            double *volume, double com[3], double inertia[9]) {
  /* Tetrahedra are taken from the vertex mean rather than the file's origin so that a mesh
   * far from its origin keeps its digits. */
  double ref[3] = {0, 0, 0};
  for (int i = 0; i < nvert; i++) mr_addscl3(ref, vert + 3 * i, 1.0 / nvert);
  double det_sum = 0, first[3] = {0, 0, 0}, C[9] = {0};
  for (int f = 0; f < nface; f++) {
    double a[3], b[3], c[3], bc[3], s[3];
    mr_sub3(a, vert + 3 * face[3 * f], ref);
    mr_sub3(b, vert + 3 * face[3 * f + 1], ref);
    mr_sub3(c, vert + 3 * face[3 * f + 2], ref);
    mr_cross3(bc, b, c);
    double det = mr_dot3(a, bc); /* six times the signed volume */
    mr_add3(s, a, b);
    mr_add3(s, s, c);
    det_sum += det;
    mr_addscl3(first, s, det);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        C[3 * i + j] += det * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
  }
  *volume = det_sum / 6;
  if (!(*volume > 0)) return -1;
  double cm[3];
  mr_scale3(cm, first, 1.0 / (4 * det_sum));
  /* C holds 120 * integral of x x^T; move it to the com, then I = tr(C) E - C. */
  for (int k = 0; k < 9; k++) C[k] /= 120;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) C[3 * i + j] -= *volume * cm[i] * cm[j];
  double tr = C[0] + C[4] + C[8];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) inertia[3 * i + j] = (i == j ? tr : 0) - C[3 * i + j];
  mr_add3(com, cm, ref);
  return 0;
}

/* Area, unit normal and centroid of a triangle. */
static double mr_triangle_props(const double *a, const double *b, const double *c, double n[3],
                                double cen[3]) {
  double ab[3], ac[3];
  mr_sub3(ab, b, a);
  mr_sub3(ac, c, a);
  mr_cross3(n, ab, ac);
  double area = 0.5 * mr_normalize3(n);
  for (int i = 0; i < 3; i++) cen[i] = (a[i] + b[i] + c[i]) / 3;
  return area;
}

int mr_mesh_mass_properties_legacy(const double *vert, int nvert, const int *face, int nface,
                                   double *volume, double com[3], double inertia[9]) {
  (void)nvert;
  double n[3], cen[3], surf[3] = {0, 0, 0}, area = 0;
  for (int f = 0; f < nface; f++) {
    const int *t = face + 3 * f;
    double a = mr_triangle_props(vert + 3 * t[0], vert + 3 * t[1], vert + 3 * t[2], n, cen);
    mr_addscl3(surf, cen, a);
    area += a;
  }
  if (!(area > MR_MINVAL)) return -1;
  mr_scale3(surf, surf, 1 / area);
  /* pyramids from the surface centroid, every one counted positive */
  double vol = 0, c[3] = {0, 0, 0};
  for (int f = 0; f < nface; f++) {
    const int *t = face + 3 * f;
    double a = mr_triangle_props(vert + 3 * t[0], vert + 3 * t[1], vert + 3 * t[2], n, cen), arm[3];
    mr_sub3(arm, cen, surf);
    double v = fabs(mr_dot3(arm, n) * a / 3);
    vol += v;
    for (int i = 0; i < 3; i++) c[i] += v * (0.75 * cen[i] + 0.25 * surf[i]);
  }
  if (!(vol > MR_MINVAL)) return -1;
  mr_scale3(c, c, 1 / vol);
  /* second moments of the pyramids from the com, again counted positive */
  double P[3][3] = {{0}};
  vol = 0;
  for (int f = 0; f < nface; f++) {
    const int *t = face + 3 * f;
    double D[3], E[3], F[3];
    mr_sub3(D, vert + 3 * t[0], c);
    mr_sub3(E, vert + 3 * t[1], c);
    mr_sub3(F, vert + 3 * t[2], c);
    double a = mr_triangle_props(D, E, F, n, cen); /* before n and cen are read */
    double v = fabs(mr_dot3(cen, n) * a / 3);
    vol += v;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        P[i][j] += v / 20 * (2 * (D[i] * D[j] + E[i] * E[j] + F[i] * F[j]) + D[i] * E[j] +
                             D[j] * E[i] + D[i] * F[j] + D[j] * F[i] + E[i] * F[j] + E[j] * F[i]);
  }
  double tr = P[0][0] + P[1][1] + P[2][2];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) inertia[3 * i + j] = (i == j ? tr : 0) - P[i][j];
  *volume = vol;
  mr_copy3(com, c);
  return 0;
}

/* One Jacobi rotation zeroing A[p][q]; V accumulates the rotations. */
static void mr_jacobi_rotate(double A[9], double V[9], int p, int q) {
  double apq = A[3 * p + q];
  if (apq == 0) return;
  double theta = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
  double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
  double c = 1 / sqrt(t * t + 1), s = t * c;
  for (int k = 0; k < 3; k++) { /* A = A G */
    double akp = A[3 * k + p], akq = A[3 * k + q];
    A[3 * k + p] = c * akp - s * akq;
    A[3 * k + q] = s * akp + c * akq;
  }
  for (int k = 0; k < 3; k++) { /* A = G^T A */
    double apk = A[3 * p + k], aqk = A[3 * q + k];
    A[3 * p + k] = c * apk - s * aqk;
    A[3 * q + k] = s * apk + c * aqk;
  }
  A[3 * p + q] = A[3 * q + p] = 0;
  for (int k = 0; k < 3; k++) {
    double vkp = V[3 * k + p], vkq = V[3 * k + q];
    V[3 * k + p] = c * vkp - s * vkq;
    V[3 * k + q] = s * vkp + c * vkq;
  }
}

void mr_sym3_eigen(const double Ain[9], double eigval[3], double V[9]) {
  double A[9];
  memcpy(A, Ain, sizeof A);
  A[1] = A[3] = 0.5 * (Ain[1] + Ain[3]);
  A[2] = A[6] = 0.5 * (Ain[2] + Ain[6]);
  A[5] = A[7] = 0.5 * (Ain[5] + Ain[7]);
  static const double eye[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  memcpy(V, eye, sizeof eye);
  for (int sweep = 0; sweep < 50; sweep++) {
    double off = fabs(A[1]) + fabs(A[2]) + fabs(A[5]);
    double diag = fabs(A[0]) + fabs(A[4]) + fabs(A[8]);
    if (off == 0 || off <= 1e-300 || off < 1e-18 * diag) break;
    mr_jacobi_rotate(A, V, 0, 1);
    mr_jacobi_rotate(A, V, 0, 2);
    mr_jacobi_rotate(A, V, 1, 2);
  }
  eigval[0] = A[0];
  eigval[1] = A[4];
  eigval[2] = A[8];
  /* Largest moment first, as MuJoCo orders principal axes. */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (eigval[j] < eigval[j + 1]) {
        double t = eigval[j];
        eigval[j] = eigval[j + 1];
        eigval[j + 1] = t;
        for (int k = 0; k < 3; k++) {
          t = V[3 * k + j];
          V[3 * k + j] = V[3 * k + j + 1];
          V[3 * k + j + 1] = t;
        }
      }
  double c0[3] = {V[0], V[3], V[6]}, c1[3] = {V[1], V[4], V[7]}, c2[3] = {V[2], V[5], V[8]};
  double x[3];
  mr_cross3(x, c0, c1);
  if (mr_dot3(x, c2) < 0)
    for (int k = 0; k < 3; k++) V[3 * k + 2] = -V[3 * k + 2];
}

void mr_inertia_matrix(double I[9], const double d[3], const double quat[4]) {
  double R[9];
  mr_quat_to_mat(R, quat);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      I[3 * i + j] = R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                     R[3 * i + 2] * d[2] * R[3 * j + 2];
}

void mr_mass_combine(int n, const double *m, const double *c, const double *quat,
                     const double *d, double *mass, double com[3], double inertia[3],
                     double iquat[4]) {
  double total = 0, mc[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    total += m[i];
    mr_addscl3(mc, c + 3 * i, m[i]);
  }
  *mass = total;
  mr_zero3(com);
  mr_zero3(inertia);
  mr_quat_identity(iquat);
  if (!(total > 0)) return;
  mr_scale3(com, mc, 1.0 / total);
  double I[9] = {0};
  for (int i = 0; i < n; i++) {
    double Ii[9], r[3];
    mr_inertia_matrix(Ii, d + 3 * i, quat + 4 * i);
    mr_sub3(r, c + 3 * i, com);
    double rr = mr_dot3(r, r);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        I[3 * a + b] += Ii[3 * a + b] + m[i] * ((a == b ? rr : 0) - r[a] * r[b]);
  }
  double V[9];
  mr_sym3_eigen(I, inertia, V);
  mr_mat_to_quat(iquat, V);
}

/* Indices of d sorted by value, largest first. */
static void mr_moments_order(const double d[3], int idx[3]) {
  idx[0] = 0, idx[1] = 1, idx[2] = 2;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2 - i; j++)
      if (d[idx[j]] < d[idx[j + 1]]) {
        int t = idx[j];
        idx[j] = idx[j + 1];
        idx[j + 1] = t;
      }
}

int mr_inertia_repair(double d[3]) {
  double scale = fabs(d[0]) + fabs(d[1]) + fabs(d[2]);
  double tol = MR_INERTIA_ROUNDOFF_TOL * scale;
  int done = 0;
  for (int k = 0; k < 3; k++) {
    if (d[k] >= 0) continue;
    done |= d[k] >= -tol ? MR_INERTIA_ROUNDOFF : MR_INERTIA_NEGATIVE;
    d[k] = 0;
  }
  int idx[3];
  mr_moments_order(d, idx);
  double excess = d[idx[0]] - d[idx[1]] - d[idx[2]];
  if (excess > tol) {
    double mean = (d[0] + d[1] + d[2]) / 3;
    d[0] = d[1] = d[2] = mean;
    done |= MR_INERTIA_TRIANGLE;
  } else if (excess > 0) {
    d[idx[0]] = d[idx[1]] + d[idx[2]];
    done |= MR_INERTIA_ROUNDOFF;
  }
  return done;
}

int mr_inertia_bound(double *mass, double d[3], double min_mass, double min_inertia) {
  int changed = 0;
  if (!(*mass >= min_mass)) {
    *mass = min_mass;
    changed = 1;
  }
  if (!(d[0] >= min_inertia) && !(d[1] >= min_inertia) && !(d[2] >= min_inertia)) {
    for (int k = 0; k < 3; k++)
      if (!(d[k] >= min_inertia)) d[k] = min_inertia;
    changed = 1;
  }
  return changed;
}
