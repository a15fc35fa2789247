/* Spatial algebra for the dynamics (internal).
 *
 * Convention (MuJoCo's "com-based" frame): every spatial vector of a body is expressed in
 * WORLD orientation about one reference point per kinematic tree, the center of mass of
 * the whole tree (d->subtree_com[body_rootid]). Because the point sits inside the tree,
 * lever arms stay at the size of the robot rather than its distance from the world origin,
 * which keeps round-off at sensible magnitudes for robots far from the origin.
 *
 *   motion vector  (6): [angular(3), linear(3)]  linear = velocity of the point of the body
 *                                                 that coincides with the reference point
 *   force vector   (6): [torque(3), force(3)]    torque about the reference point
 *   inertia       (10): [Ixx, Iyy, Izz, Ixy, Ixz, Iyz, h(3), m] with I the rotational
 *                       inertia about the reference point and h = m * (com - reference)
 *
 * cdof (nv x 6) is the motion subspace of each dof in this frame; cinert the body inertia;
 * crb the composite inertia of the subtree. All functions allow no aliasing of res with
 * inputs unless stated.
 */
#ifndef MR_SPATIAL_H
#define MR_SPATIAL_H

#include "mr_math.h"

static inline double mr_dot6(const double a[6], const double b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* r += a * s */
static inline void mr_addscl6(double r[6], const double a[6], double s) {
  r[0] += a[0] * s; r[1] += a[1] * s; r[2] += a[2] * s;
  r[3] += a[3] * s; r[4] += a[4] * s; r[5] += a[5] * s;
}

static inline void mr_add6(double r[6], const double a[6], const double b[6]) {
  r[0] = a[0] + b[0]; r[1] = a[1] + b[1]; r[2] = a[2] + b[2];
  r[3] = a[3] + b[3]; r[4] = a[4] + b[4]; r[5] = a[5] + b[5];
}

/* Motion cross product r = v x m (the derivative of a motion vector m carried by a frame
 * moving with velocity v). */
static inline void mr_cross_motion(double r[6], const double v[6], const double m[6]) {
  r[0] = v[1] * m[2] - v[2] * m[1];
  r[1] = v[2] * m[0] - v[0] * m[2];
  r[2] = v[0] * m[1] - v[1] * m[0];
  r[3] = v[1] * m[5] - v[2] * m[4] + v[4] * m[2] - v[5] * m[1];
  r[4] = v[2] * m[3] - v[0] * m[5] + v[5] * m[0] - v[3] * m[2];
  r[5] = v[0] * m[4] - v[1] * m[3] + v[3] * m[1] - v[4] * m[0];
}

/* Linear velocity at point p of a rigid motion v = (w, v_o) whose linear part is that of
 * point o: v_o + w x (p - o). */
static inline void mr_motion_point_velocity(double r[3], const double v[6], const double p[3],
                                            const double o[3]) {
  double arm[3], turn[3];
  mr_sub3(arm, p, o);
  mr_cross3(turn, v, arm);
  mr_add3(r, v + 3, turn);
}

/* Force cross product r = v x* f (dual of the motion cross product). */
static inline void mr_cross_force(double r[6], const double v[6], const double f[6]) {
  r[0] = v[1] * f[2] - v[2] * f[1] + v[4] * f[5] - v[5] * f[4];
  r[1] = v[2] * f[0] - v[0] * f[2] + v[5] * f[3] - v[3] * f[5];
  r[2] = v[0] * f[1] - v[1] * f[0] + v[3] * f[4] - v[4] * f[3];
  r[3] = v[1] * f[5] - v[2] * f[4];
  r[4] = v[2] * f[3] - v[0] * f[5];
  r[5] = v[0] * f[4] - v[1] * f[3];
}

/* Momentum of a body with inertia I moving with v: r = I v. */
static inline void mr_inert_mul(double r[6], const double I[10], const double v[6]) {
  r[0] = I[0] * v[0] + I[3] * v[1] + I[4] * v[2] - I[8] * v[4] + I[7] * v[5];
  r[1] = I[3] * v[0] + I[1] * v[1] + I[5] * v[2] + I[8] * v[3] - I[6] * v[5];
  r[2] = I[4] * v[0] + I[5] * v[1] + I[2] * v[2] - I[7] * v[3] + I[6] * v[4];
  r[3] = I[8] * v[1] - I[7] * v[2] + I[9] * v[3];
  r[4] = I[6] * v[2] - I[8] * v[0] + I[9] * v[4];
  r[5] = I[7] * v[0] - I[6] * v[1] + I[9] * v[5];
}

/* Spatial inertia about the reference point of a body of mass `mass` whose principal
 * moments `inertia` are along the columns of R (row-major, world), with its com at
 * `offset` from the reference point (parallel axis theorem). */
static inline void mr_inert_com(double r[10], const double inertia[3], const double R[9],
                                const double offset[3], double mass) {
  const double a = inertia[0], b = inertia[1], c = inertia[2];
  const double x = offset[0], y = offset[1], z = offset[2];
  r[0] = a * R[0] * R[0] + b * R[1] * R[1] + c * R[2] * R[2] + mass * (y * y + z * z);
  r[1] = a * R[3] * R[3] + b * R[4] * R[4] + c * R[5] * R[5] + mass * (x * x + z * z);
  r[2] = a * R[6] * R[6] + b * R[7] * R[7] + c * R[8] * R[8] + mass * (x * x + y * y);
  r[3] = a * R[0] * R[3] + b * R[1] * R[4] + c * R[2] * R[5] - mass * x * y;
  r[4] = a * R[0] * R[6] + b * R[1] * R[7] + c * R[2] * R[8] - mass * x * z;
  r[5] = a * R[3] * R[6] + b * R[4] * R[7] + c * R[5] * R[8] - mass * y * z;
  r[6] = mass * x;
  r[7] = mass * y;
  r[8] = mass * z;
  r[9] = mass;
}

/* Motion subspace of a rotation about `axis` through a point at `offset` = reference
 * point - anchor: angular part axis, linear part axis x offset. */
static inline void mr_dof_rotation(double r[6], const double axis[3], const double offset[3]) {
  r[0] = axis[0];
  r[1] = axis[1];
  r[2] = axis[2];
  r[3] = axis[1] * offset[2] - axis[2] * offset[1];
  r[4] = axis[2] * offset[0] - axis[0] * offset[2];
  r[5] = axis[0] * offset[1] - axis[1] * offset[0];
}

/* Motion subspace of a translation along `axis`. */
static inline void mr_dof_translation(double r[6], const double axis[3]) {
  r[0] = r[1] = r[2] = 0;
  r[3] = axis[0];
  r[4] = axis[1];
  r[5] = axis[2];
}

/* v' = q v q^-1 for a unit quaternion, without forming the matrix. */
static inline void mr_quat_rotvec(double r[3], const double q[4], const double v[3]) {
  double t0 = 2 * (q[2] * v[2] - q[3] * v[1]);
  double t1 = 2 * (q[3] * v[0] - q[1] * v[2]);
  double t2 = 2 * (q[1] * v[1] - q[2] * v[0]);
  r[0] = v[0] + q[0] * t0 + q[2] * t2 - q[3] * t1;
  r[1] = v[1] + q[0] * t1 + q[3] * t0 - q[1] * t2;
  r[2] = v[2] + q[0] * t2 + q[1] * t1 - q[2] * t0;
}

/* Quaternion of the rotation vector w (axis * angle): exp(w / 2). */
static inline void mr_quat_exp(double q[4], const double w[3]) {
  double angle = mr_norm3(w);
  if (angle < MR_MINVAL) {
    mr_quat_identity(q);
    return;
  }
  double s = sin(0.5 * angle) / angle;
  q[0] = cos(0.5 * angle);
  q[1] = w[0] * s;
  q[2] = w[1] * s;
  q[3] = w[2] * s;
}

/* Rotation vector (axis * angle, angle in [-pi, pi]) of the unit quaternion q: the inverse
 * of mr_quat_exp, taking the short way round. */
static inline void mr_quat_log(double w[3], const double q[4]) {
  double axis[3] = {q[1], q[2], q[3]};
  double s = mr_normalize3(axis);
  if (s < MR_MINVAL) {
    mr_zero3(w);
    return;
  }
  double angle = 2 * atan2(s, q[0]);
  if (angle > MR_PI) angle -= 2 * MR_PI;
  mr_scale3(w, axis, angle);
}

/* Rotation vector taking quaternion b to a: b * exp(w) = a (MuJoCo's mju_subQuat). */
static inline void mr_quat_sub(double w[3], const double a[4], const double b[4]) {
  double bc[4], dq[4];
  mr_quat_conj(bc, b);
  mr_quat_mul(dq, bc, a);
  mr_quat_log(w, dq);
}

#endif
