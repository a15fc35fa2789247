/* The kinematic tree: bodies, joints, dof addresses and the branch sparsity of M. */
#include <string.h>

#include "compile.h"
#include "engine/core/mr_math.h"

static void mr_tree_bodies(const mr_spec *s, mr_model *m) {
  for (int b = 0; b < m->nbody; b++) {
    const mr_spec_body *sb = &s->bodies[b];
    int parent = b == 0 ? 0 : sb->parent;
    m->body_parentid[b] = parent;
    m->body_rootid[b] = b == 0 ? 0 : parent == 0 ? b : m->body_rootid[parent];
    mr_copy3(m->body_pos + 3 * b, sb->pos);
    memcpy(m->body_quat + 4 * b, sb->quat, 4 * sizeof(double));
    mr_quat_normalize(m->body_quat + 4 * b);
    m->body_jntadr[b] = -1;
    m->body_dofadr[b] = -1;
    m->body_geomadr[b] = -1;
  }
  if (m->nbody > 0) mr_zero3(m->body_pos), mr_quat_identity(m->body_quat);
}

static void mr_tree_joints(const mr_spec *s, mr_model *m) {
  int qadr = 0, dadr = 0;
  for (int j = 0; j < m->njnt; j++) {
    const mr_spec_joint *sj = &s->joints[j];
    int b = sj->body;
    m->jnt_type[j] = sj->type;
    m->jnt_bodyid[j] = b;
    m->jnt_qposadr[j] = qadr;
    m->jnt_dofadr[j] = dadr;
    m->jnt_limited[j] = sj->limited;
    mr_copy3(m->jnt_pos + 3 * j, sj->pos);
    mr_copy3(m->jnt_axis + 3 * j, sj->axis);
    mr_normalize3(m->jnt_axis + 3 * j);
    m->jnt_range[2 * j] = sj->range[0];
    m->jnt_range[2 * j + 1] = sj->range[1];
    m->jnt_stiffness[j] = sj->stiffness;
    m->jnt_margin[j] = sj->margin;
    memcpy(m->jnt_solref + 2 * j, sj->solref_lim, 2 * sizeof(double));
    memcpy(m->jnt_solimp + 5 * j, sj->solimp_lim, 5 * sizeof(double));
    if (m->body_jntnum[b]++ == 0) m->body_jntadr[b] = j;
    int nv = mr_joint_nv(sj->type);
    if (m->body_dofnum[b] == 0) m->body_dofadr[b] = dadr;
    m->body_dofnum[b] += nv;
    for (int k = 0; k < nv; k++, dadr++) {
      m->dof_bodyid[dadr] = b;
      m->dof_jntid[dadr] = j;
      m->dof_armature[dadr] = sj->armature;
      m->dof_damping[dadr] = sj->damping;
      m->dof_frictionloss[dadr] = sj->frictionloss;
    }
    qadr += mr_joint_nq(sj->type);
  }
}

/* qpos0 (and the spring reference) of one joint, as MuJoCo sets them: a free joint starts
 * at its body's pose in the parent (world) frame, a ball at the identity. */
static void mr_tree_qpos0(const mr_spec *s, mr_model *m, int j) {
  const mr_spec_joint *sj = &s->joints[j];
  double *q0 = m->qpos0 + m->jnt_qposadr[j], *qs = m->qpos_spring + m->jnt_qposadr[j];
  int b = sj->body;
  switch (sj->type) {
    case MR_JOINT_FREE:
      mr_copy3(q0, m->body_pos + 3 * b);
      memcpy(q0 + 3, m->body_quat + 4 * b, 4 * sizeof(double));
      memcpy(qs, q0, 7 * sizeof(double));
      break;
    case MR_JOINT_BALL:
      mr_quat_identity(q0);
      mr_quat_identity(qs);
      break;
    default:
      q0[0] = sj->ref;
      qs[0] = sj->springref;
      break;
  }
}

/* dof_parentid and the sparse row layout of M: row i holds its diagonal, then one entry per
 * ancestor dof, nearest first. M_colind names each entry's dof, so that the kernels walking
 * a row (tree_ldl.h) read independent indices instead of chasing dof_parentid, a chain of
 * dependent loads as long as the branch. */
static void mr_tree_dofs(mr_model *m) {
  int *last = m->body_weldid; /* borrowed scratch: last dof of the nearest ancestor-or-self */
  last[0] = -1;
  for (int b = 1; b < m->nbody; b++) {
    int prev = last[m->body_parentid[b]];
    for (int k = 0; k < m->body_dofnum[b]; k++) {
      int d = m->body_dofadr[b] + k;
      m->dof_parentid[d] = prev;
      prev = d;
    }
    last[b] = prev;
  }
  int adr = 0;
  for (int d = 0; d < m->nv; d++) {
    m->dof_Madr[d] = adr;
    for (int p = d; p >= 0; p = m->dof_parentid[p]) m->M_colind[adr++] = p;
  }
  for (int b = 0; b < m->nbody; b++)
    m->body_weldid[b] = b == 0 || m->body_jntnum[b] > 0 ? b : m->body_weldid[m->body_parentid[b]];
}

void mr_compile_tree(mr_compiler *c, mr_model *m) {
  const mr_spec *s = c->s;
  mr_tree_bodies(s, m);
  mr_tree_joints(s, m);
  for (int j = 0; j < m->njnt; j++) mr_tree_qpos0(s, m, j);
  mr_tree_dofs(m);
}
