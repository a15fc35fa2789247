/* Constraint rows at the start of the step: equality constraints, joint limits, contacts
 * (see constraint.h for the order, the signs and the stabilization rule).
 *
 * Jacobians come from the com-frame motion subspaces d->cdof (spatial.h): every spatial
 * vector of a tree is about the tree's reference point ref = subtree_com[root], with the
 * linear part the velocity of the body point at ref, so the world velocity of a point p of
 * body b is sum over the dofs i supporting b of (cdof_lin_i + cdof_ang_i x (p - ref)) v_i.
 *
 * The rows of each kind are built in their own file: equalities in equality.c (with the
 * position projection), contacts in contact_rows.c; joint limits here. Ball-joint limits
 * are not rows (MuJoCo's cone limit): skipped.
 */
#include <math.h>
#include <string.h>

#include "collision/collide.h"
#include "engine/core/arena.h"
#include "engine/core/spatial.h"
#include "engine/dynamics/dynamics.h"
#include "rows.h"

/* ------------------------------------------------------------------ header */

void mr_constraint_begin(mr_data *d) {
  mr_rows *r = mr_arena_alloc(d, sizeof *r);
  if (r) memset(r, 0, sizeof *r);
}

mr_rows *mr_constraint_rows(mr_data *d) {
  if (!d->arena || d->parena < sizeof(mr_rows)) return NULL;
  mr_rows *r = (mr_rows *)d->arena;
  return r->magic == MR_ROWS_MAGIC && r->nstep == d->nstep ? r : NULL;
}

/* ------------------------------------------------------------------ Jacobians */

void mr_jac_point_add(const mr_model *m, const mr_data *d, int b, const double p[3], double scale,
                      double *jacp, double *jacr) {
  const int nv = m->nv;
  if (b <= 0) return;
  double arm[3];
  mr_sub3(arm, p, d->subtree_com + 3 * m->body_rootid[b]);
  for (int i = mr_chain_last_dof(m, b); i >= 0; i = m->dof_parentid[i]) {
    const double *cd = d->cdof + 6 * i;
    if (jacp) {
      double lin[3];
      mr_cross3(lin, cd, arm);
      for (int k = 0; k < 3; k++) jacp[k * nv + i] += scale * (lin[k] + cd[3 + k]);
    }
    if (jacr)
      for (int k = 0; k < 3; k++) jacr[k * nv + i] += scale * cd[k];
  }
}

void mr_body_pose0(const mr_model *m, int b, double pos[3], double quat[4]) {
  if (b <= 0) {
    mr_zero3(pos);
    mr_quat_identity(quat);
    return;
  }
  int j0 = m->body_jntadr[b];
  if (m->body_jntnum[b] == 1 && m->jnt_type[j0] == MR_JOINT_FREE) {
    const double *q = m->qpos0 + m->jnt_qposadr[j0];
    mr_copy3(pos, q);
    memcpy(quat, q + 3, 4 * sizeof(double));
    mr_quat_normalize(quat);
    return;
  }
  double ppos[3], pquat[4], off[3];
  mr_body_pose0(m, m->body_parentid[b], ppos, pquat);
  mr_quat_rotvec(off, pquat, m->body_pos + 3 * b);
  mr_add3(pos, ppos, off);
  mr_quat_mul(quat, pquat, m->body_quat + 4 * b);
  /* hinges and slides sit at their reference at qpos0; a ball turns by its qpos0 */
  for (int j = j0; j < j0 + m->body_jntnum[b]; j++) {
    if (m->jnt_type[j] != MR_JOINT_BALL) continue;
    double anchor[3], arm[3], qb[4], rotated[4];
    mr_quat_rotvec(arm, quat, m->jnt_pos + 3 * j);
    mr_add3(anchor, pos, arm);
    memcpy(qb, m->qpos0 + m->jnt_qposadr[j], sizeof qb);
    mr_quat_normalize(qb);
    mr_quat_mul(rotated, quat, qb);
    memcpy(quat, rotated, sizeof rotated);
    mr_quat_rotvec(arm, quat, m->jnt_pos + 3 * j);
    mr_sub3(pos, anchor, arm);
  }
  mr_quat_normalize(quat);
}

/* ------------------------------------------------------------------ limits */

int mr_range_sides(double x, double v, const double range[2], double margin, double dt) {
  double reach = MR_LIMIT_LOOKAHEAD * dt;
  int sides = 0;
  if (x - range[0] < margin + reach * fmax(0, -v)) sides |= 1;
  if (range[1] - x < margin + reach * fmax(0, v)) sides |= 2;
  return sides;
}

/* Active sides of the limit of joint j: bit 0 lower, bit 1 upper. */
static int mr_limit_sides(const mr_model *m, const mr_data *d, int j) {
  int type = m->jnt_type[j];
  if (!m->jnt_limited[j] || (type != MR_JOINT_HINGE && type != MR_JOINT_SLIDE)) return 0;
  return mr_range_sides(d->qpos[m->jnt_qposadr[j]], d->qvel[m->jnt_dofadr[j]],
                        m->jnt_range + 2 * j, m->jnt_margin[j], d->opt.timestep);
}

static int mr_limit_count(const mr_model *m, const mr_data *d) {
  int n = 0;
  for (int j = 0; j < m->njnt; j++) n += mr_side_count(mr_limit_sides(m, d, j));
  return n;
}

static void mr_limit_rows(const mr_model *m, const mr_data *d, mr_rows *r) {
  int row = r->neq;
  for (int j = 0; j < m->njnt; j++) {
    int sides = mr_limit_sides(m, d, j);
    for (int side = 0; side < 2; side++) {
      if (!(sides >> side & 1)) continue;
      double q = d->qpos[m->jnt_qposadr[j]], sign = side == 0 ? 1 : -1;
      double phi = side == 0 ? q - m->jnt_range[2 * j] : m->jnt_range[2 * j + 1] - q;
      mr_rows_begin(r, row);
      mr_rows_add(r, m->jnt_dofadr[j], sign);
      r->phi[row] = phi;
      r->bias[row] = mr_unilateral_bias(phi + MR_CONTACT_SLOP, r->dt);
      r->id[row] = j;
      mr_rows_soft(r, row, phi - m->jnt_margin[j], m->jnt_solref + 2 * j, m->jnt_solimp + 5 * j);
      row++;
    }
  }
}

/* ------------------------------------------------------------------ build */

double mr_unilateral_bias(double phi, double dt) { return phi > 0 ? phi / dt : 0; }

static int mr_rows_alloc(mr_data *d, mr_rows *r) {
  size_t n = (size_t)r->nrow, nc = (size_t)r->ncon;
  r->nzadr = mr_arena_ints(d, n + 1);
  r->phi = mr_arena_doubles(d, n);
  r->bias = mr_arena_doubles(d, n);
  r->id = mr_arena_ints(d, n);
  r->v0 = mr_arena_doubles(d, (size_t)r->nv);
  r->mu = mr_arena_doubles(d, nc);
  r->dist = mr_arena_doubles(d, nc);
  r->fresh = mr_arena_ints(d, nc);
  r->solref = mr_arena_doubles(d, 2 * n);
  r->solimp = mr_arena_doubles(d, 5 * n);
  r->pos = mr_arena_doubles(d, n);
  if (r->v0) memcpy(r->v0, d->qvel, (size_t)r->nv * sizeof(double));
  return r->nzadr && r->phi && r->bias && r->id && r->v0 && r->mu && r->dist && r->fresh &&
                 r->solref && r->solimp && r->pos
             ? 0 : -1;
}

static int mr_rows_alloc_nonzeros(mr_data *d, mr_rows *r, int nnz) {
  r->nzind = mr_arena_ints(d, (size_t)nnz + 1);
  r->J = mr_arena_doubles(d, (size_t)nnz + 1);
  r->nnz = 0;
  return r->nzind && r->J ? 0 : -1;
}

/* The row cap of this step: every equality and limit, and as many contacts as the rows
 * left under MR_MAX_ROWS hold (or under MR_DENSE_MAX_ROWS for a solver that forms G). */
static int mr_contact_cap(const mr_data *d, const mr_rows *r) {
  const mr_solver_info *solver = mr_solver_get(mr_solver_index(d));
  int maxrows = solver->dense_G ? MR_DENSE_MAX_ROWS : MR_MAX_ROWS;
  int cap = (maxrows - r->neq - r->nlim) / 3;
  return cap < 0 ? 0 : cap;
}

static int mr_constraint_fill(const mr_model *m, mr_data *d, mr_rows *r) {
  const size_t nv = (size_t)m->nv;
  r->neq = mr_equality_rows(m);
  int joint_limits = mr_limit_count(m, d);
  r->nlim = joint_limits + mr_tendon_limit_count(m, d);
  /* scratch: the contact selection's (ncon), or 3 nv for a contact's point Jacobian then
   * 3 nv ints (in 1.5 nv doubles) for its dof lists; 6 nv for the weld rows */
  int *keep = mr_arena_ints(d, (size_t)d->ncon + 1);
  double *scratch = mr_arena_doubles(d, (size_t)d->ncon + 6 * nv + 1);
  if (!keep || !scratch) return -1;
  r->ncon = mr_contact_select(m, d, mr_contact_cap(d, r), keep, scratch, &r->ncon_candidates);
  r->nrow = r->neq + r->nlim + 3 * r->ncon;
  if (r->nrow == 0) return 0;
  /* everything stays allocated for the step: the rows sit above the scratch */
  double *dense_eq = mr_arena_doubles(d, (size_t)r->neq * nv + 1);
  if (!dense_eq || mr_rows_alloc(d, r)) return -1;
  mr_equality_eval(m, d, r->phi, dense_eq, scratch);
  int nnz = mr_equality_nonzeros(r, dense_eq) + joint_limits + mr_tendon_limit_nonzeros(m, d) +
            mr_contact_nonzeros(m, d, keep);
  if (mr_rows_alloc_nonzeros(d, r, nnz)) return -1;
  mr_equality_rows_fill(m, r, dense_eq);
  mr_limit_rows(m, d, r);
  mr_tendon_limit_rows(m, d, r, r->neq + joint_limits);
  mr_contact_rows_fill(m, d, r, keep, scratch);
  mr_rows_end(r);
  return 0;
}

int mr_constraint_build(const mr_model *m, mr_data *d) {
  mr_rows *r = d->arena ? (mr_rows *)d->arena : NULL;
  d->nefc = 0;
  if (!r || d->parena < sizeof *r) return -1;
  memset(r, 0, sizeof *r);
  r->magic = MR_ROWS_MAGIC;
  r->nstep = d->nstep;
  r->nv = m->nv;
  r->dt = d->opt.timestep;
  if (d->opt.disable & MR_DISABLE_CONSTRAINT) return 0;
  if (mr_constraint_fill(m, d, r)) {
    /* an arena sizing bug: no rows this step, reported as a failed solve */
    r->nrow = r->neq = r->nlim = r->ncon = 0;
    d->solver_status = MR_SOLVER_FAILED;
    d->warning_count++;
    return -1;
  }
  d->nefc = r->nrow;
  return r->nrow;
}

/* ------------------------------------------------------------------ sizes */

/* Largest number of dofs on one body's chain to the root, and in one kinematic tree. */
static void mr_chain_sizes(const mr_model *m, int *maxchain, int *maxtree) {
  *maxchain = *maxtree = 0;
  for (int b = 1; b < m->nbody; b++) {
    int n = 0;
    for (int a = b; a > 0; a = m->body_parentid[a]) n += m->body_dofnum[a];
    if (n > *maxchain) *maxchain = n;
  }
  for (int i = 0; i < m->nv;) {
    int root = m->body_rootid[m->dof_bodyid[i]], j = i;
    while (j < m->nv && m->body_rootid[m->dof_bodyid[j]] == root) j++;
    if (j - i > *maxtree) *maxtree = j - i;
    i = j;
  }
}

static size_t mr_min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Every block the constraint stage takes in one step, at the largest row count, with J,
 * AJ and G as large as they can be: J by nonzeros (a contact row spans at most two
 * chains), AJ over at most two trees per row, G only up to the rows that get it (a solver
 * that forms it: MR_DENSE_MAX_ROWS; pgs when it pays: no more rows than the velocity form
 * touches per row), and the solvers' scratch; plus alignment padding for 96 blocks. */
size_t mr_constraint_arena_size(const mr_model *m) {
  size_t nv = (size_t)m->nv, neq = (size_t)mr_equality_rows(m), nlim = 0;
  size_t maxcon = (size_t)mr_contact_capacity(m);
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_limited[j] && (m->jnt_type[j] == MR_JOINT_HINGE || m->jnt_type[j] == MR_JOINT_SLIDE))
      nlim += 2;
  int tendon_nnz;
  size_t tendon_rows = (size_t)mr_tendon_limit_capacity(m, &tendon_nnz);
  nlim += tendon_rows;
  size_t ncrow = mr_min_size(3 * maxcon, MR_MAX_ROWS), nrow = neq + nlim + ncrow;
  if (nrow == 0) return 0;
  int maxchain, maxtree;
  mr_chain_sizes(m, &maxchain, &maxtree);
  size_t pair = mr_min_size(nv, 2 * (size_t)maxchain), trees = mr_min_size(nv, 2 * (size_t)maxtree);
  size_t nnz = neq * nv + (nlim - tendon_rows) + (size_t)tendon_nnz + ncrow * pair;
  size_t ndense = mr_min_size(nrow, MR_DENSE_MAX_ROWS);
  size_t npays = mr_min_size(nrow, trees + pair);
  size_t gsize = ndense * ndense > npays * npays ? ndense * ndense : npays * npays;
  size_t rows = maxcon + 7 * nv + neq * nv + 12 * nrow + 8 * maxcon + nnz; /* 12: phi, bias, pos, solref, solimp, id */
  /* AJ, then G, or for a primal solver the half solves (a contact's over its columns,
   * another row's over its tree ranges: delassus.c) and the G its hand-over to pgs forms
   * where it pays */
  size_t base_half = (neq + nlim) * trees + 1, half = ncrow * pair + base_half;
  size_t problem = 6 * nrow + 6 * nv + MR_AJ_BLOCK * nv + nrow * trees +
                   (gsize > half + npays * npays ? gsize : half + npays * npays);
  size_t scratch = MR_SOLVER_SCRATCH(ndense, nv);
  size_t sparse = mr_solver_sparse_scratch(m, nrow, neq > 0 ? nv : pair) / sizeof(double) + 1;
  if (sparse > scratch) scratch = sparse;
  size_t project = 2 * neq * nv + neq * neq + 2 * neq + 8 * nv;
  size_t doubles = rows + problem + scratch + project;
  size_t ints = 2 * maxcon + 2 * nrow + nnz + 6 * nrow + 4 * nv + 8 /* + depenetrate.c */ +
                base_half + 2 * nrow + 1;                             /* the half solves */
  return sizeof(mr_rows) + doubles * sizeof(double) + ints * sizeof(int) + 96 * 64;
}
