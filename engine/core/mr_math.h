/* Small dense math on 3-vectors, 3x3 row-major matrices and (w, x, y, z) quaternions.
 * Header-only so the hot loops of kinematics and dynamics inline it. */
#ifndef MR_MATH_H
#define MR_MATH_H

#include <math.h>
#include <string.h>

#define MR_PI 3.14159265358979323846
#define MR_MINVAL 1e-15

/* For a kernel's body that its callers inline with constant sizes, so that its loops
 * unroll (a contact's three rows, a free body's six dofs). */
#define MR_ALWAYS_INLINE static inline __attribute__((always_inline))

static inline void mr_copy3(double r[3], const double a[3]) { memcpy(r, a, 3 * sizeof(double)); }
static inline void mr_zero3(double r[3]) { r[0] = r[1] = r[2] = 0; }
static inline void mr_add3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
}
static inline void mr_sub3(double r[3], const double a[3], const double b[3]) {
  r[0] = a[0] - b[0]; r[1] = a[1] - b[1]; r[2] = a[2] - b[2];
}
static inline void mr_scale3(double r[3], const double a[3], double s) {
  r[0] = a[0] * s; r[1] = a[1] * s; r[2] = a[2] * s;
}
/* r += a * s */
static inline void mr_addscl3(double r[3], const double a[3], double s) {
  r[0] += a[0] * s; r[1] += a[1] * s; r[2] += a[2] * s;
}
static inline double mr_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double mr_norm3(const double a[3]) { return sqrt(mr_dot3(a, a)); }

/* Whether x[0..n) are all zero (the sparse solves skip what a right-hand side leaves zero). */
static inline int mr_all_zero(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] != 0) return 0;
  return 1;
}
/* a . b over n entries in four partial sums: a single sum is a chain of dependent
 * multiply-adds, one per adder latency; four chains keep the adders busy (the compiler may
 * not reorder a floating-point sum itself). The dense factor and solves of tree_cholesky.c
 * are made of these. */
static inline double mr_dot(const double *a, const double *b, int n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; k++) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}
static inline void mr_cross3(double r[3], const double a[3], const double b[3]) {
  double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  mr_copy3(r, t);
}
/* Normalizes in place; returns the old norm (vector untouched if ~0). */
static inline double mr_normalize3(double a[3]) {
  double n = mr_norm3(a);
  if (n > MR_MINVAL) mr_scale3(a, a, 1.0 / n);
  return n;
}

/* r = M a, M row-major 3x3 */
static inline void mr_mulmat3(double r[3], const double M[9], const double a[3]) {
  double t[3] = {M[0] * a[0] + M[1] * a[1] + M[2] * a[2], M[3] * a[0] + M[4] * a[1] + M[5] * a[2],
                 M[6] * a[0] + M[7] * a[1] + M[8] * a[2]};
  mr_copy3(r, t);
}
/* r = M^T a */
static inline void mr_mulmatT3(double r[3], const double M[9], const double a[3]) {
  double t[3] = {M[0] * a[0] + M[3] * a[1] + M[6] * a[2], M[1] * a[0] + M[4] * a[1] + M[7] * a[2],
                 M[2] * a[0] + M[5] * a[1] + M[8] * a[2]};
  mr_copy3(r, t);
}
/* R = A B */
static inline void mr_matmul3(double R[9], const double A[9], const double B[9]) {
  double t[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      t[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
  memcpy(R, t, sizeof t);
}

static inline void mr_quat_identity(double q[4]) { q[0] = 1; q[1] = q[2] = q[3] = 0; }
static inline double mr_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < MR_MINVAL) {
    mr_quat_identity(q);
    return 0;
  }
  for (int i = 0; i < 4; i++) q[i] /= n;
  return n;
}
/* r = a * b (Hamilton product) */
static inline void mr_quat_mul(double r[4], const double a[4], const double b[4]) {
  double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  memcpy(r, t, sizeof t);
}
static inline void mr_quat_conj(double r[4], const double q[4]) {
  r[0] = q[0]; r[1] = -q[1]; r[2] = -q[2]; r[3] = -q[3];
}
/* Row-major rotation matrix of a unit quaternion. */
static inline void mr_quat_to_mat(double R[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
/* r = q v q^-1 */
static inline void mr_quat_rotate(double r[3], const double q[4], const double v[3]) {
  double R[9];
  mr_quat_to_mat(R, q);
  mr_mulmat3(r, R, v);
}
/* Unit quaternion of a rotation matrix (Shepperd's method: stable for every rotation). */
static inline void mr_mat_to_quat(double q[4], const double R[9]) {
  double tr = R[0] + R[4] + R[8];
  if (tr > 0) {
    double s = sqrt(tr + 1.0) * 2;
    q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
  } else if (R[0] > R[4] && R[0] > R[8]) {
    double s = sqrt(1.0 + R[0] - R[4] - R[8]) * 2;
    q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
  } else if (R[4] > R[8]) {
    double s = sqrt(1.0 + R[4] - R[0] - R[8]) * 2;
    q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
  } else {
    double s = sqrt(1.0 + R[8] - R[0] - R[4]) * 2;
    q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
  }
  if (q[0] < 0)
    for (int i = 0; i < 4; i++) q[i] = -q[i];
  mr_quat_normalize(q);
}
/* Quaternion of a rotation by angle about a (not necessarily unit) axis. */
static inline void mr_axis_angle_to_quat(double q[4], const double axis[3], double angle) {
  double a[3] = {axis[0], axis[1], axis[2]};
  if (mr_normalize3(a) < MR_MINVAL) {
    mr_quat_identity(q);
    return;
  }
  double s = sin(angle / 2);
  q[0] = cos(angle / 2); q[1] = a[0] * s; q[2] = a[1] * s; q[3] = a[2] * s;
}
/* URDF roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (fixed axes x, y, z). */
static inline void mr_rpy_to_quat(double q[4], double roll, double pitch, double yaw) {
  double qx[4], qy[4], qz[4], t[4];
  const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
  mr_axis_angle_to_quat(qx, ex, roll);
  mr_axis_angle_to_quat(qy, ey, pitch);
  mr_axis_angle_to_quat(qz, ez, yaw);
  mr_quat_mul(t, qz, qy);
  mr_quat_mul(q, t, qx);
}
/* Frame composition: (pos, quat) = (p1, q1) * (p2, q2). */
static inline void mr_frame_mul(double pos[3], double quat[4], const double p1[3],
                                const double q1[4], const double p2[3], const double q2[4]) {
  double r[3], q[4];
  mr_quat_rotate(r, q1, p2);
  mr_quat_mul(q, q1, q2);
  mr_add3(pos, p1, r);
  memcpy(quat, q, sizeof q);
}

#endif
