/* URDF <inertial>: reading a link's mass properties and combining the links merged into
 * one body by fixed joints.
 *
 * URDF gives the full inertia tensor about the com, in the frame of <inertial><origin>
 * (rotated by its rpy); the spec wants principal moments plus the principal frame in the
 * body frame. We carry full tensors in body coordinates until the very end and diagonalize
 * once per body, so merging is a plain sum (parallel-axis theorem about the combined com).
 */
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"
#include "urdf.h"
#include "xml.h"

/* R A R^T for a symmetric A. */
static void mr_rotate_tensor(double out[9], const double quat[4], const double A[9]) {
  double R[9], RA[9], Rt[9];
  mr_quat_to_mat(R, quat);
  mr_matmul3(RA, R, A);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) Rt[3 * i + k] = R[3 * k + i];
  mr_matmul3(out, RA, Rt);
}

static int mr_urdf_read_tensor(mr_urdf *u, const mr_urdf_link *l, const xmlNode *in,
                               double I[9]) {
  static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  static const int slot[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  mr_source src = mr_urdf_src(u, in);
  memset(I, 0, 9 * sizeof(double));
  for (int k = 0; k < 6; k++) {
    double v = 0;
    if (mr_xml_doubles(in, names[k], &v, 1, 1, src, u->err, u->errlen) < 0) return -1;
    I[3 * slot[k][0] + slot[k][1]] = I[3 * slot[k][1] + slot[k][0]] = v;
  }
  if (I[0] < 0 || I[4] < 0 || I[8] < 0)
    return mr_errorf(u->err, u->errlen, src, "link '%s': negative inertia (%g, %g, %g)",
                     l->name, I[0], I[4], I[8]);
  /* A tensor with a negative principal moment is no rigid body's; tiny negatives are the
   * round-off of files written with a few digits, and are tolerated. */
  double eig[3], V[9];
  mr_sym3_eigen(I, eig, V);
  double scale = I[0] + I[4] + I[8];
  for (int k = 0; k < 3; k++)
    if (eig[k] < -1e-9 * scale)
      return mr_errorf(u->err, u->errlen, src,
                       "link '%s': negative inertia (principal moment %g)", l->name, eig[k]);
  return 0;
}

int mr_urdf_link_inertial(mr_urdf *u, int link) {
  mr_urdf_link *l = &u->links[link];
  const xmlNode *inertial = mr_urdf_child(l->node, "inertial");
  l->mass = 0;
  mr_zero3(l->com);
  memset(l->inertia, 0, sizeof l->inertia);
  if (!inertial) return 0;
  double quat[4], I[9];
  if (mr_urdf_origin(u, inertial, l->com, quat) < 0) return -1;
  const xmlNode *m = mr_urdf_child(inertial, "mass");
  if (m) {
    mr_source src = mr_urdf_src(u, m);
    if (mr_xml_doubles(m, "value", &l->mass, 1, 1, src, u->err, u->errlen) < 0) return -1;
    if (l->mass < 0)
      return mr_errorf(u->err, u->errlen, src, "link '%s': negative mass %g", l->name, l->mass);
  }
  const xmlNode *in = mr_urdf_child(inertial, "inertia");
  if (!in) return 0;
  if (mr_urdf_read_tensor(u, l, in, I) < 0) return -1;
  mr_rotate_tensor(l->inertia, quat, I);
  return 0;
}

/* Principal moments that violate the triangle inequality (A + B >= C) belong to no rigid
 * body, yet such URDFs are common (the Allegro hand of example-robot-data has them). Rather
 * than refuse the robot we do what MuJoCo's balanceinertia does, replace the three moments
 * by their mean, and say so. */
static void mr_urdf_balance_inertia(mr_urdf *u, const mr_urdf_link *head, double d[3]) {
  double sum = d[0] + d[1] + d[2], tol = 1e-12 * sum;
  int bad = 0;
  for (int k = 0; k < 3; k++) bad |= d[(k + 1) % 3] + d[(k + 2) % 3] < d[k] - tol;
  if (!bad) return;
  mr_source src = {u->file, head->line};
  mr_warnf(u->s->quiet, src,
           "link '%s': inertia %g %g %g violates the triangle inequality; replaced by their "
           "mean",
           head->name, d[0], d[1], d[2]);
  d[0] = d[1] = d[2] = sum / 3;
}

/* The links of one body (head, then those merged into it) as one rigid body: com by the
 * mass-weighted mean, tensor by the parallel-axis theorem about that com. */
void mr_urdf_body_inertial(mr_urdf *u, int head, int body) {
  double mass = 0, com[3] = {0, 0, 0}, I[9] = {0};
  for (int k = head; k >= 0; k = u->links[k].next_in_body) {
    const mr_urdf_link *l = &u->links[k];
    double c[3];
    mr_quat_rotate(c, l->quat, l->com);
    mr_add3(c, c, l->pos);
    mass += l->mass;
    mr_addscl3(com, c, l->mass);
  }
  if (mass > 0) mr_scale3(com, com, 1.0 / mass);
  for (int k = head; k >= 0; k = u->links[k].next_in_body) {
    const mr_urdf_link *l = &u->links[k];
    double c[3], d[3], Ib[9];
    mr_quat_rotate(c, l->quat, l->com);
    mr_add3(c, c, l->pos);
    mr_sub3(d, c, com);
    mr_rotate_tensor(Ib, l->quat, l->inertia);
    double dd = mr_dot3(d, d);
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++)
        I[3 * a + b] += Ib[3 * a + b] + l->mass * ((a == b ? dd : 0) - d[a] * d[b]);
  }
  double eig[3], V[9];
  mr_sym3_eigen(I, eig, V);
  mr_spec_body *sb = &u->s->bodies[body];
  sb->has_inertial = 1;
  sb->mass = mass;
  mr_copy3(sb->ipos, com);
  for (int k = 0; k < 3; k++) sb->inertia[k] = eig[k] > 0 ? eig[k] : 0;
  mr_mat_to_quat(sb->iquat, V);
  mr_urdf_balance_inertia(u, &u->links[head], sb->inertia);
}
