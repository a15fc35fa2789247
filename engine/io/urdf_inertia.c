/* URDF <inertial>: reading a link's mass properties and combining the links merged into
 * one body by fixed joints.
 *
 * URDF gives the full inertia tensor about the com, in the frame of <inertial><origin>
 * (rotated by its rpy); the spec wants principal moments plus the principal frame in the
 * body frame. We carry full tensors in body coordinates until the very end and diagonalize
 * once per body, so merging is a plain sum (parallel-axis theorem about the combined com).
 */
#include <stdarg.h>
#include <stdio.h>
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

static int mr_urdf_read_tensor(mr_urdf *u, const xmlNode *in, double I[9]) {
  static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  static const int slot[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  mr_source src = mr_urdf_src(u, in);
  memset(I, 0, 9 * sizeof(double));
  for (int k = 0; k < 6; k++) {
    double v = 0;
    if (mr_xml_doubles(in, names[k], &v, 1, 1, src, u->err, u->errlen) < 0) return -1;
    I[3 * slot[k][0] + slot[k][1]] = I[3 * slot[k][1] + slot[k][0]] = v;
  }
  return 0;
}

/* A repair of what the file says is a warning, or with --strict an error. */
static int mr_urdf_repaired(mr_urdf *u, mr_source src, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int mr_urdf_repaired(mr_urdf *u, mr_source src, const char *fmt, ...) {
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (u->opt->strict) return mr_errorf(u->err, u->errlen, src, "%s (refused: --strict)", what);
  mr_warnf(u->s->quiet, src, "%s", what);
  return 0;
}

/* The tensor as a rigid body's (mr_inertia_repair): round-off silently, anything else with
 * one warning naming the link (an error under --strict). */
static int mr_urdf_valid_tensor(mr_urdf *u, const mr_urdf_link *l, const xmlNode *in,
                                double I[9]) {
  double d[3], V[9], before[3];
  mr_sym3_eigen(I, d, V);
  mr_copy3(before, d);
  int done = mr_inertia_repair(d);
  if (!done) return 0;
  double R[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      R[3 * i + j] = V[3 * i] * d[0] * V[3 * j] + V[3 * i + 1] * d[1] * V[3 * j + 1] +
                     V[3 * i + 2] * d[2] * V[3 * j + 2];
  memcpy(I, R, sizeof R);
  if (!(done & (MR_INERTIA_NEGATIVE | MR_INERTIA_TRIANGLE))) return 0;
  return mr_urdf_repaired(u, mr_urdf_src(u, in),
                          "link '%s': principal moments of inertia %g %g %g are no rigid body's "
                          "(%s); replaced by %g %g %g",
                          l->name, before[0], before[1], before[2],
                          done & MR_INERTIA_NEGATIVE ? "a negative moment"
                                                     : "A + B < C, the triangle inequality",
                          d[0], d[1], d[2]);
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
  if (mr_urdf_read_tensor(u, in, I) < 0) return -1;
  if (mr_urdf_valid_tensor(u, l, in, I) < 0) return -1;
  mr_rotate_tensor(l->inertia, quat, I);
  return 0;
}

/* The links of one body (head, then those merged into it) as one rigid body: com by the
 * mass-weighted mean, tensor by the parallel-axis theorem about that com. A moving body
 * (one with a joint) gets at least MR_URDF_BOUND_MASS and MR_URDF_BOUND_INERTIA, as MuJoCo's
 * boundmass and boundinertia give: a massless link inside a chain is common in robot files
 * (a frame between two joints), and Pinocchio loads it. */
int mr_urdf_body_inertial(mr_urdf *u, int head, int body, int moving) {
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
  mr_inertia_repair(eig); /* each link's tensor is valid: only the sum's round-off is left */
  mr_spec_body *sb = &u->s->bodies[body];
  sb->has_inertial = 1;
  mr_copy3(sb->ipos, com);
  mr_copy3(sb->inertia, eig);
  mr_mat_to_quat(sb->iquat, V);
  double before_mass = mass, before[3];
  mr_copy3(before, eig);
  if (moving && mr_inertia_bound(&mass, sb->inertia, MR_URDF_BOUND_MASS, MR_URDF_BOUND_INERTIA)) {
    const mr_urdf_link *l = &u->links[head];
    mr_source src = {u->file, l->line};
    sb->mass = mass;
    return mr_urdf_repaired(u, src,
                            "link '%s' moves but has mass %g kg and principal moments %g %g %g; "
                            "bounded to at least %g kg and %g kg m^2",
                            l->name, before_mass, before[0], before[1], before[2],
                            MR_URDF_BOUND_MASS, MR_URDF_BOUND_INERTIA);
  }
  sb->mass = mass;
  return 0;
}
