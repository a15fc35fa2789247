/* Position stage: body poses from qpos, poses of attached geoms/sites/cameras, subtree
 * centers of mass, the com-based quantities of spatial.h (cinert, cdof), and the tendons
 * (tendon.c), so that wherever poses are current the tendons' lengths and paths are too.
 *
 * Semantics are MuJoCo's: a body's frame is its parent's frame times (body_pos, body_quat),
 * then each of its joints is applied in order (hinge: rotation by q - qpos0 about the axis
 * through the anchor; slide: translation by q - qpos0; ball: rotation by the quaternion
 * about the anchor); a free joint sets the pose directly. Everything is O(nbody + nv).
 *
 * Ball and free angular velocities are in the body frame, so their cdof axes are the
 * columns of the body's final xmat. That is only consistent when no rotation follows a
 * ball joint in the same body, which MuJoCo's compiler rejects ("ball followed by
 * rotation") and ours should too.
 */
#include <string.h>

#include "engine/core/arena.h"
#include "moreau.h"
#include "engine/core/spatial.h"

/* Applies the joints of body b (not free) to the pose (pos, quat) of its joint-less frame. */
static void mr_apply_joints(const mr_model *m, mr_data *d, int b, double pos[3], double quat[4]) {
  const double *qpos = d->qpos;
  int jbeg = m->body_jntadr[b], jend = jbeg + m->body_jntnum[b];
  for (int j = jbeg; j < jend; j++) {
    const double *jpos = m->jnt_pos + 3 * j;
    double *anchor = d->xanchor + 3 * j, *axis = d->xaxis + 3 * j;
    int qa = m->jnt_qposadr[j];
    int has_offset = jpos[0] != 0 || jpos[1] != 0 || jpos[2] != 0;
    mr_quat_rotvec(axis, quat, m->jnt_axis + 3 * j);
    if (has_offset) {
      mr_quat_rotvec(anchor, quat, jpos);
      mr_add3(anchor, anchor, pos);
    } else {
      mr_copy3(anchor, pos);
    }
    double qloc[4], rotated[4];
    switch (m->jnt_type[j]) {
      case MR_JOINT_SLIDE:
        mr_addscl3(pos, axis, qpos[qa] - m->qpos0[qa]);
        continue;
      case MR_JOINT_HINGE: {
        double angle = 0.5 * (qpos[qa] - m->qpos0[qa]), s = sin(angle);
        const double *a = m->jnt_axis + 3 * j;
        qloc[0] = cos(angle);
        qloc[1] = a[0] * s;
        qloc[2] = a[1] * s;
        qloc[3] = a[2] * s;
        break;
      }
      case MR_JOINT_BALL:
        memcpy(qloc, qpos + qa, sizeof qloc);
        mr_quat_normalize(qloc);
        break;
      default: /* a free joint that is not alone in its body: the compiler forbids it */
        continue;
    }
    mr_quat_mul(rotated, quat, qloc);
    memcpy(quat, rotated, sizeof rotated);
    /* the rotation is about the anchor, not the body origin */
    if (has_offset) {
      double arm[3];
      mr_quat_rotvec(arm, quat, jpos);
      mr_sub3(pos, anchor, arm);
    }
  }
}

static void mr_body_poses(const mr_model *m, mr_data *d) {
  for (int b = 1; b < m->nbody; b++) {
    double pos[3], quat[4];
    int j0 = m->body_jntadr[b];
    if (m->body_jntnum[b] == 1 && m->jnt_type[j0] == MR_JOINT_FREE) {
      const double *q = d->qpos + m->jnt_qposadr[j0];
      mr_copy3(pos, q);
      memcpy(quat, q + 3, sizeof quat);
      mr_copy3(d->xanchor + 3 * j0, pos);
      mr_copy3(d->xaxis + 3 * j0, m->jnt_axis + 3 * j0);
    } else {
      int p = m->body_parentid[b];
      const double *bpos = m->body_pos + 3 * b, *bquat = m->body_quat + 4 * b;
      if (p > 0) {
        mr_mulmat3(pos, d->xmat + 9 * p, bpos);
        mr_add3(pos, pos, d->xpos + 3 * p);
        mr_quat_mul(quat, d->xquat + 4 * p, bquat);
      } else {
        mr_copy3(pos, bpos);
        memcpy(quat, bquat, sizeof quat);
      }
      mr_apply_joints(m, d, b, pos, quat);
    }
    mr_quat_normalize(quat);
    memcpy(d->xquat + 4 * b, quat, sizeof quat);
    mr_copy3(d->xpos + 3 * b, pos);
    mr_quat_to_mat(d->xmat + 9 * b, quat);

    /* inertial frame */
    double iquat[4];
    mr_mulmat3(d->xipos + 3 * b, d->xmat + 9 * b, m->body_ipos + 3 * b);
    mr_add3(d->xipos + 3 * b, d->xipos + 3 * b, pos);
    mr_quat_mul(iquat, quat, m->body_iquat + 4 * b);
    mr_quat_to_mat(d->ximat + 9 * b, iquat);
  }
}

/* World pose of an object at (lpos, lquat) in body b. */
static void mr_attached_pose(const mr_data *d, int b, const double lpos[3], const double lquat[4],
                             double xpos[3], double xmat[9]) {
  double q[4];
  mr_mulmat3(xpos, d->xmat + 9 * b, lpos);
  mr_add3(xpos, xpos, d->xpos + 3 * b);
  mr_quat_mul(q, d->xquat + 4 * b, lquat);
  mr_quat_to_mat(xmat, q);
}

static void mr_attached_poses(const mr_model *m, mr_data *d) {
  for (int g = 0; g < m->ngeom; g++)
    mr_attached_pose(d, m->geom_bodyid[g], m->geom_pos + 3 * g, m->geom_quat + 4 * g,
                     d->geom_xpos + 3 * g, d->geom_xmat + 9 * g);
  for (int s = 0; s < m->nsite; s++)
    mr_attached_pose(d, m->site_bodyid[s], m->site_pos + 3 * s, m->site_quat + 4 * s,
                     d->site_xpos + 3 * s, d->site_xmat + 9 * s);
  for (int c = 0; c < m->ncam; c++)
    mr_attached_pose(d, m->cam_bodyid[c], m->cam_pos + 3 * c, m->cam_quat + 4 * c,
                     d->cam_xpos + 3 * c, d->cam_xmat + 9 * c);
}

/* subtree_com: mass-weighted mean of xipos over each subtree (bodies are numbered parents
 * first, so one backward sweep accumulates children into parents). The masses are summed
 * here too, so the result does not depend on the compiler's body_subtreemass. */
static void mr_subtree_com(const mr_model *m, mr_data *d, double *mass) {
  double *com = d->subtree_com;
  for (int b = 0; b < m->nbody; b++) {
    mass[b] = m->body_mass[b];
    mr_scale3(com + 3 * b, d->xipos + 3 * b, mass[b]);
  }
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    mass[p] += mass[b];
    mr_add3(com + 3 * p, com + 3 * p, com + 3 * b);
  }
  for (int b = 0; b < m->nbody; b++) {
    if (mass[b] < MR_MINVAL)
      mr_copy3(com + 3 * b, d->xipos + 3 * b);
    else
      mr_scale3(com + 3 * b, com + 3 * b, 1.0 / mass[b]);
  }
}

/* cinert and cdof about the subtree com of each tree's root. */
static void mr_com_frames(const mr_model *m, mr_data *d) {
  memset(d->cinert, 0, 10 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    double offset[3];
    mr_sub3(offset, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
    mr_inert_com(d->cinert + 10 * b, m->body_inertia + 3 * b, d->ximat + 9 * b, offset,
                 m->body_mass[b]);
  }
  for (int j = 0; j < m->njnt; j++) {
    int b = m->jnt_bodyid[j], da = m->jnt_dofadr[j];
    double offset[3], *cdof = d->cdof + 6 * da;
    const double *R = d->xmat + 9 * b;
    mr_sub3(offset, d->subtree_com + 3 * m->body_rootid[b], d->xanchor + 3 * j);
    switch (m->jnt_type[j]) {
      case MR_JOINT_FREE:
        memset(cdof, 0, 18 * sizeof(double));
        cdof[3] = cdof[10] = cdof[17] = 1;
        cdof += 18;
        /* the rotation is a ball about the body origin */
        /* fall through */
      case MR_JOINT_BALL:
        /* angular velocity in the body frame: the axes are the columns of xmat */
        for (int k = 0; k < 3; k++) {
          double axis[3] = {R[k], R[3 + k], R[6 + k]};
          mr_dof_rotation(cdof + 6 * k, axis, offset);
        }
        break;
      case MR_JOINT_SLIDE:
        mr_dof_translation(cdof, d->xaxis + 3 * j);
        break;
      case MR_JOINT_HINGE:
        mr_dof_rotation(cdof, d->xaxis + 3 * j, offset);
        break;
    }
  }
}

void mr_kinematics(const mr_model *m, mr_data *d) {
  double mass_stack[256];
  double *mass = mass_stack;
  /* the subtree masses need nbody doubles: the stack for small models, else the arena
   * (restored at once, so the caller's arena level is unchanged) */
  size_t mark = mr_arena_mark(d);
  if (m->nbody > 256) {
    mass = mr_arena_doubles(d, (size_t)m->nbody);
    if (!mass) return;
  }
  mr_body_poses(m, d);
  mr_attached_poses(m, d);
  mr_subtree_com(m, d, mass);
  mr_com_frames(m, d);
  mr_arena_restore(d, mark);
  mr_tendon(m, d);
}
