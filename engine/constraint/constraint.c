/* Constraint rows at the start of the step: equality constraints, joint limits, contacts
 * (see constraint.h for the order, the signs and the stabilization rule).
 *
 * Jacobians come from the com-frame motion subspaces d->cdof (spatial.h): every spatial
 * vector of a tree is about the tree's reference point ref = subtree_com[root], with the
 * linear part the velocity of the body point at ref, so the world velocity of a point p of
 * body b is sum over the dofs i supporting b of (cdof_lin_i + cdof_ang_i x (p - ref)) v_i.
 *
 * Equality constraints, phi = 0 on the constraint manifold:
 *   connect  phi = p1 - p2 (3, world): the anchor on body1 and its image on body2, the
 *            image being where the anchor sits in body2's frame at qpos0 (the constraint
 *            holds in the configuration the model is defined in, as in MuJoCo)
 *   weld     phi = (p2 - p2*, log(R2 R*^T)) (6, world): body2's pose against its target
 *            pose T1 relpose (relpose from qpos0 when its quaternion is all zero); the
 *            anchor (eq_data[0..2]) is the point of body2 whose position is constrained.
 *            The orientation rows are exact: d log(E)/dt = Jl^-1(phi) (w2 - E w1).
 *   joint    phi = (q1 - q1_0) - poly(q2 - q2_0) (1), MuJoCo's polycoef; no joint2: q2 = q2_0
 * Ball-joint limits are not rows (MuJoCo's cone limit): skipped.
 * Contacts of condim 1 get mu = 0: still 3 rows, the cone of aperture 0 forces the
 * tangential impulse to 0. condim 4 and 6 are solved as condim 3 (no torsional or rolling
 * friction yet).
 */
#include "constraint.h"

#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/contact_point.h"
#include "collision/collide.h"
#include "engine/core/spatial.h"



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

/* The deepest dof that moves body b, or -1 for a body welded to the world. */
static int mr_body_last_dof(const mr_model *m, int b) {
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  return b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1;
}

void mr_jac_point_add(const mr_model *m, const mr_data *d, int b, const double p[3], double scale,
                      double *jacp, double *jacr) {
  const int nv = m->nv;
  if (b <= 0) return;
  double arm[3];
  mr_sub3(arm, p, d->subtree_com + 3 * m->body_rootid[b]);
  for (int i = mr_body_last_dof(m, b); i >= 0; i = m->dof_parentid[i]) {
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

/* ------------------------------------------------------------------ equalities */

static int mr_eq_size(const mr_model *m, int e) {
  if (!m->eq_active[e]) return 0;
  switch (m->eq_type[e]) {
    case MR_EQ_CONNECT: return 3;
    case MR_EQ_WELD: return 6;
    case MR_EQ_JOINT: return 1;
    default: return 0;
  }
}

int mr_equality_rows(const mr_model *m) {
  int n = 0;
  for (int e = 0; e < m->neq; e++) n += mr_eq_size(m, e);
  return n;
}

static int mr_eq_body(int id) { return id < 0 ? 0 : id; }

/* World point of the body-frame point a of body b at the current kinematics. */
static void mr_body_point(const mr_data *d, int b, const double a[3], double p[3]) {
  mr_quat_rotvec(p, d->xquat + 4 * b, a);
  mr_add3(p, p, d->xpos + 3 * b);
}

static void mr_eq_connect(const mr_model *m, const mr_data *d, int e, double *phi, double *J) {
  const double *a1 = m->eq_data + 11 * e;
  int b1 = mr_eq_body(m->eq_obj1id[e]), b2 = mr_eq_body(m->eq_obj2id[e]);
  double x1[3], q1[4], x2[3], q2[4], w0[3], a2[3], qc[4], p1[3], p2[3];
  mr_body_pose0(m, b1, x1, q1);
  mr_body_pose0(m, b2, x2, q2);
  mr_quat_rotvec(w0, q1, a1);
  mr_add3(w0, w0, x1);
  mr_sub3(w0, w0, x2);
  mr_quat_conj(qc, q2);
  mr_quat_rotvec(a2, qc, w0);
  mr_body_point(d, b1, a1, p1);
  mr_body_point(d, b2, a2, p2);
  mr_sub3(phi, p1, p2);
  if (!J) return;
  mr_jac_point_add(m, d, b1, p1, 1, J, NULL);
  mr_jac_point_add(m, d, b2, p2, -1, J, NULL);
}

/* Jl^-1(w) x for the rotation vector w (the inverse left Jacobian of SO(3)). */
static void mr_so3_jlinv(double r[3], const double w[3], const double x[3]) {
  double th = mr_norm3(w), c;
  if (th < 1e-4) c = 1.0 / 12 + th * th / 720;
  else c = 1 / (th * th) - (1 + cos(th)) / (2 * th * sin(th));
  double wx[3], wwx[3];
  mr_cross3(wx, w, x);
  mr_cross3(wwx, w, wx);
  for (int k = 0; k < 3; k++) r[k] = x[k] - 0.5 * wx[k] + c * wwx[k];
}

/* scratch: 6 nv doubles. */
static void mr_eq_weld(const mr_model *m, const mr_data *d, int e, double *phi, double *J,
                       double *scratch) {
  const int nv = m->nv;
  const double *data = m->eq_data + 11 * e;
  int b1 = mr_eq_body(m->eq_obj1id[e]), b2 = mr_eq_body(m->eq_obj2id[e]);
  double relpos[3], relq[4];
  mr_copy3(relpos, data + 3);
  memcpy(relq, data + 6, sizeof relq);
  if (relq[0] == 0 && relq[1] == 0 && relq[2] == 0 && relq[3] == 0) {
    double x1[3], q1[4], x2[3], q2[4], q1c[4], dx[3];
    mr_body_pose0(m, b1, x1, q1);
    mr_body_pose0(m, b2, x2, q2);
    mr_quat_conj(q1c, q1);
    mr_quat_mul(relq, q1c, q2);
    mr_sub3(dx, x2, x1);
    mr_quat_rotvec(relpos, q1c, dx);
  }
  mr_quat_normalize(relq);
  /* position: body2's anchor against its target, a point fixed in body1 */
  double p2[3], local[3], pt[3];
  mr_body_point(d, b2, data, p2);
  mr_quat_rotvec(local, relq, data);
  mr_add3(local, local, relpos);
  mr_body_point(d, b1, local, pt);
  mr_sub3(phi, p2, pt);
  /* orientation: E = R2 R*^T with R* = R1 Rrel */
  double qt[4], qtc[4], qe[4];
  mr_quat_mul(qt, d->xquat + 4 * b1, relq);
  mr_quat_conj(qtc, qt);
  mr_quat_mul(qe, d->xquat + 4 * b2, qtc);
  mr_quat_normalize(qe);
  mr_quat_log(phi + 3, qe);
  if (!J) return;
  mr_jac_point_add(m, d, b2, p2, 1, J, NULL);
  mr_jac_point_add(m, d, b1, pt, -1, J, NULL);
  double *jr1 = scratch, *jr2 = scratch + 3 * nv;
  memset(scratch, 0, 6 * (size_t)nv * sizeof(double));
  mr_jac_point_add(m, d, b1, pt, 1, NULL, jr1);
  mr_jac_point_add(m, d, b2, p2, 1, NULL, jr2);
  for (int i = 0; i < nv; i++) {
    double w1[3] = {jr1[i], jr1[nv + i], jr1[2 * nv + i]}, ew1[3], dw[3], col[3];
    if (w1[0] == 0 && w1[1] == 0 && w1[2] == 0 && jr2[i] == 0 && jr2[nv + i] == 0 &&
        jr2[2 * nv + i] == 0)
      continue;
    mr_quat_rotvec(ew1, qe, w1);
    for (int k = 0; k < 3; k++) dw[k] = jr2[k * nv + i] - ew1[k];
    mr_so3_jlinv(col, phi + 3, dw);
    for (int k = 0; k < 3; k++) J[(3 + k) * nv + i] = col[k];
  }
}

static void mr_eq_joint(const mr_model *m, const mr_data *d, int e, double *phi, double *J) {
  const double *a = m->eq_data + 11 * e;
  int j1 = m->eq_obj1id[e], j2 = m->eq_obj2id[e];
  int qa1 = m->jnt_qposadr[j1];
  double y = d->qpos[qa1] - m->qpos0[qa1], x = 0;
  if (j2 >= 0) x = d->qpos[m->jnt_qposadr[j2]] - m->qpos0[m->jnt_qposadr[j2]];
  double poly = a[0] + x * (a[1] + x * (a[2] + x * (a[3] + x * a[4])));
  double dpoly = a[1] + x * (2 * a[2] + x * (3 * a[3] + x * 4 * a[4]));
  phi[0] = y - poly;
  if (!J) return;
  J[m->jnt_dofadr[j1]] += 1;
  if (j2 >= 0) J[m->jnt_dofadr[j2]] -= dpoly;
}

/* phi and (if J) the zeroed-then-filled Jacobian rows of every active equality. */
static void mr_equality_eval(const mr_model *m, const mr_data *d, double *phi, double *J,
                             double *scratch) {
  const int nv = m->nv;
  int row = 0;
  for (int e = 0; e < m->neq; e++) {
    int n = mr_eq_size(m, e);
    if (!n) continue;
    double *Je = J ? J + (size_t)row * nv : NULL;
    if (Je) memset(Je, 0, (size_t)n * nv * sizeof(double));
    switch (m->eq_type[e]) {
      case MR_EQ_CONNECT: mr_eq_connect(m, d, e, phi + row, Je); break;
      case MR_EQ_WELD: mr_eq_weld(m, d, e, phi + row, Je, scratch); break;
      case MR_EQ_JOINT: mr_eq_joint(m, d, e, phi + row, Je); break;
    }
    row += n;
  }
}

void mr_equality_residual(const mr_model *m, const mr_data *d, double *phi) {
  mr_equality_eval(m, d, phi, NULL, NULL);
}

/* ------------------------------------------------------------------ limits */

/* Active sides of the limit of joint j: bit 0 lower, bit 1 upper. */
static int mr_limit_sides(const mr_model *m, const mr_data *d, int j) {
  int type = m->jnt_type[j];
  if (!m->jnt_limited[j] || (type != MR_JOINT_HINGE && type != MR_JOINT_SLIDE)) return 0;
  double q = d->qpos[m->jnt_qposadr[j]], v = d->qvel[m->jnt_dofadr[j]];
  double reach = MR_LIMIT_LOOKAHEAD * d->opt.timestep, margin = m->jnt_margin[j];
  const double *range = m->jnt_range + 2 * j;
  int sides = 0;
  if (q - range[0] < margin + reach * fmax(0, -v)) sides |= 1;
  if (range[1] - q < margin + reach * fmax(0, v)) sides |= 2;
  return sides;
}

static int mr_limit_count(const mr_model *m, const mr_data *d) {
  int n = 0;
  for (int j = 0; j < m->njnt; j++) {
    int s = mr_limit_sides(m, d, j);
    n += (s & 1) + (s >> 1);
  }
  return n;
}

/* ------------------------------------------------------------------ contacts */

/* A contact is a row below margin - gap (MuJoCo's activation rule). */
static int mr_contact_is_row(const mr_model *m, const mr_contact *c) {
  (void)m;
  return c->dist < c->margin - c->gap;
}

/* The k-th smallest (0-based) of x[0..n) by quickselect; x is reordered. */
static double mr_select(double *x, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = x[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) {
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return x[k];
  }
  return x[k];
}

/* Marks in keep[] the contacts that become rows: all candidates, or the `cap` deepest
 * when there are more (the rest are counted as dropped and their impulses zeroed). */
static int mr_contact_select(const mr_model *m, mr_data *d, int cap, int *keep, double *scratch, int *ncand) {
  int n = 0;
  for (int k = 0; k < d->ncon; k++) {
    keep[k] = mr_contact_is_row(m, &d->contact[k]);
    if (keep[k]) scratch[n++] = d->contact[k].dist;
  }
  *ncand = n;
  if (n <= cap) return n;
  double thr = cap > 0 ? mr_select(scratch, n, cap - 1) : -INFINITY;
  int kept = 0;
  for (int k = 0; k < d->ncon; k++) {
    if (!keep[k]) continue;
    keep[k] = d->contact[k].dist < thr;
    kept += keep[k];
  }
  for (int k = 0; k < d->ncon && kept < cap; k++)
    if (mr_contact_is_row(m, &d->contact[k]) && !keep[k] && d->contact[k].dist == thr) {
      keep[k] = 1;
      kept++;
    }
  for (int k = 0; k < d->ncon; k++)
    if (mr_contact_is_row(m, &d->contact[k]) && !keep[k]) memset(d->contact[k].impulse, 0, 3 * sizeof(double));
  d->ncon_dropped += n - kept;
  d->warning_count++;
  return kept;
}

/* The bias of a unilateral row with gap phi (see constraint.h); deep violations recover
 * only when `separable`. */
static double mr_unilateral_bias(double phi, double erp, double dt, int separable) {
  if (phi > 0) return phi / dt;
  return phi > -MR_RECOVERY_DEPTH || separable ? erp * phi / dt : 0;
}

/* Whether a contact's bodies can be pulled apart without fighting a joint: they lie in
 * different trees (the world is a tree of its own). */
static int mr_contact_separable(const mr_model *m, const mr_contact *c) {
  return m->body_rootid[c->body1] != m->body_rootid[c->body2];
}

/* The point whose relative velocity a contact's rows measure: on the surface of one of the
 * two geoms (the world's when one of them is static, else geom1's), not at the midpoint
 * between the surfaces where the contact is reported. It matters for redundant sets. A
 * foot resting on four points gets twelve rows for six dofs; their targets (no slip, and
 * the normal stabilization, linear in each point's depth) agree only if the points are
 * fixed in one plane of one body. Midpoints sit depth/2 below the floor, each at its own
 * height, so a foot that tilts to recover its penetration slips by omega x (depth
 * difference)/2 at some points and not at others: the rows contradict each other by
 * ~1e-5 m/s, the problem has no exact solution with all points sticking, and PGS crawled
 * through 100 sweeps on half of the humanoid's steps. On the floor's surface the points
 * are coplanar and the same steps converge in 2 sweeps plus one active-set solve. */
void mr_contact_anchor(const mr_model *m, const mr_contact *c, double at[3]) {
  mr_contact_surface_point(m, c, at);
}

/* The dofs that move a contact's bodies (both chains to their roots), ascending and
 * without repeats; returns their count. Every other column of its rows is zero. */
static int mr_contact_dofs(const mr_model *m, const mr_contact *c, int *dofs) {
  int n1 = 0, n = 0;
  for (int i = c->body1 > 0 ? mr_body_last_dof(m, c->body1) : -1; i >= 0; i = m->dof_parentid[i])
    dofs[n1++] = i;
  int *chain2 = dofs + n1;
  int n2 = 0;
  for (int i = c->body2 > 0 ? mr_body_last_dof(m, c->body2) : -1; i >= 0; i = m->dof_parentid[i])
    chain2[n2++] = i;
  /* both chains descend; merge them into ascending order from their tails */
  int a = n1 - 1, b = n2 - 1, total = n1 + n2;
  int *merged = dofs + total;
  while (a >= 0 || b >= 0) {
    int next = b < 0 || (a >= 0 && dofs[a] < chain2[b]) ? dofs[a--] : chain2[b--];
    if (n == 0 || merged[n - 1] != next) merged[n++] = next;
  }
  memmove(dofs, merged, (size_t)n * sizeof(int));
  return n;
}

static void mr_contact_rows(const mr_model *m, mr_data *d, mr_rows *r, const int *keep,
                            double *jp) {
  const int nv = m->nv;
  const double dt = r->dt;
  int k = 0, *dofs = (int *)(jp + 3 * (size_t)nv);
  /* jp is zero between contacts: only the dofs a contact's Jacobian touches are written and
   * cleared, which on a pile of free bodies is 12 of hundreds */
  memset(jp, 0, 3 * (size_t)nv * sizeof(double));
  for (int ci = 0; ci < d->ncon; ci++) {
    if (!keep[ci]) continue;
    const mr_contact *c = &d->contact[ci];
    int row = r->neq + r->nlim + 3 * k;
    int ndof = mr_contact_dofs(m, c, dofs);
    double at[3];
    mr_contact_anchor(m, c, at);
    mr_jac_point_add(m, d, c->body2, at, 1, jp, NULL);
    mr_jac_point_add(m, d, c->body1, at, -1, jp, NULL);
    for (int a = 0; a < 3; a++) {
      double *Jr = r->J + (size_t)(row + a) * nv;
      const double *axis = c->frame + 3 * a;
      memset(Jr, 0, (size_t)nv * sizeof(double));
      for (int t = 0; t < ndof; t++) {
        int i = dofs[t];
        Jr[i] = axis[0] * jp[i] + axis[1] * jp[nv + i] + axis[2] * jp[2 * nv + i];
      }
      r->phi[row + a] = a == 0 ? c->dist : 0;
      r->bias[row + a] = 0;
      r->id[row + a] = ci;
    }
    for (int t = 0; t < ndof; t++) jp[dofs[t]] = jp[nv + dofs[t]] = jp[2 * nv + dofs[t]] = 0;
    double bias = mr_unilateral_bias(c->dist + MR_CONTACT_SLOP, MR_ERP_CONTACT, dt,
                                     mr_contact_separable(m, c));
    double e = d->opt.restitution;
    if (e > 0 && c->age == 0) {
      double vn = 0;
      for (int i = 0; i < nv; i++) vn += r->J[(size_t)row * nv + i] * d->qvel[i];
      /* The bounce replaces the penetration recovery instead of adding to it: recovery
       * (ERP * depth / dt, about ERP * vn at impact) would otherwise raise e by ~0.2. */
      if (vn < 0) bias = fmin(bias, e * vn);
    }
    r->bias[row] = bias;
    r->mu[k] = c->dim == 1 ? 0 : c->friction[0];
    r->dist[k] = c->dist;
    memcpy(r->solref + 2 * k, c->solref, 2 * sizeof(double));
    memcpy(r->solimp + 5 * k, c->solimp, 5 * sizeof(double));
    k++;
  }
}

/* ------------------------------------------------------------------ build */

static void mr_limit_rows(const mr_model *m, const mr_data *d, mr_rows *r) {
  const int nv = m->nv;
  int row = r->neq;
  for (int j = 0; j < m->njnt; j++) {
    int sides = mr_limit_sides(m, d, j);
    for (int side = 0; side < 2; side++) {
      if (!(sides >> side & 1)) continue;
      double q = d->qpos[m->jnt_qposadr[j]], sign = side == 0 ? 1 : -1;
      double phi = side == 0 ? q - m->jnt_range[2 * j] : m->jnt_range[2 * j + 1] - q;
      double *Jr = r->J + (size_t)row * nv;
      memset(Jr, 0, (size_t)nv * sizeof(double));
      Jr[m->jnt_dofadr[j]] = sign;
      r->phi[row] = phi;
      r->bias[row] = mr_unilateral_bias(phi, MR_ERP_LIMIT, r->dt, 0);
      r->id[row] = j;
      row++;
    }
  }
}

static void mr_equality_rows_fill(const mr_model *m, const mr_data *d, mr_rows *r, double *scratch) {
  mr_equality_eval(m, d, r->phi, r->J, scratch);
  int row = 0;
  for (int e = 0; e < m->neq; e++)
    for (int n = mr_eq_size(m, e); n > 0; n--, row++) {
      r->bias[row] = MR_ERP_EQUALITY * r->phi[row] / r->dt;
      r->id[row] = e;
    }
}

/* Nonzero columns of every row, into r->nzadr and nzind (nzind NULL: count only); returns
 * their total. Equality and limit rows are scanned; a contact's rows are read over its
 * bodies' dofs only, listed once for its three rows (a scan of every row cost a quarter of
 * humanoid100's step). dofs: 3 nv ints of scratch. */
static int mr_rows_nonzeros(const mr_model *m, const mr_data *d, mr_rows *r, int *dofs,
                            int *nzind) {
  const int base = r->neq + r->nlim;
  int nnz = 0, ncol = 0;
  for (int i = 0; i < r->nrow; i++) {
    const double *Jr = r->J + (size_t)i * (size_t)r->nv;
    if (i >= base && (i - base) % 3 == 0) ncol = mr_contact_dofs(m, &d->contact[r->id[i]], dofs);
    int n = i < base ? r->nv : ncol;
    if (nzind) r->nzadr[i] = nnz;
    for (int t = 0; t < n; t++) {
      int k = i < base ? t : dofs[t];
      if (Jr[k] == 0) continue;
      if (nzind) nzind[nnz] = k;
      nnz++;
    }
  }
  if (nzind) r->nzadr[r->nrow] = nnz;
  return nnz;
}

static int mr_rows_sparsity(const mr_model *m, mr_data *d, mr_rows *r, int *dofs) {
  r->nzadr = mr_arena_ints(d, (size_t)r->nrow + 1);
  if (!r->nzadr) return -1;
  r->nzind = mr_arena_ints(d, (size_t)mr_rows_nonzeros(m, d, r, dofs, NULL) + 1);
  if (!r->nzind) return -1;
  mr_rows_nonzeros(m, d, r, dofs, r->nzind);
  return 0;
}

static int mr_rows_alloc(mr_data *d, mr_rows *r) {
  size_t n = (size_t)r->nrow, nc = (size_t)r->ncon;
  r->J = mr_arena_doubles(d, n * (size_t)r->nv);
  r->phi = mr_arena_doubles(d, n);
  r->bias = mr_arena_doubles(d, n);
  r->id = mr_arena_ints(d, n);
  r->mu = mr_arena_doubles(d, nc);
  r->dist = mr_arena_doubles(d, nc);
  r->solref = mr_arena_doubles(d, 2 * nc);
  r->solimp = mr_arena_doubles(d, 5 * nc);
  return r->J && r->phi && r->bias && r->id && r->mu && r->dist && r->solref && r->solimp ? 0 : -1;
}

static int mr_constraint_fill(const mr_model *m, mr_data *d, mr_rows *r) {
  r->neq = mr_equality_rows(m);
  r->nlim = mr_limit_count(m, d);
  int cap = (MR_MAX_ROWS - r->neq - r->nlim) / 3;
  if (cap < 0) cap = 0;
  size_t mark = mr_arena_mark(d);
  int *keep = mr_arena_ints(d, (size_t)d->ncon + 1);
  /* scratch: the contact selection's (ncon), or 3 nv for a contact's point Jacobian then
   * 3 nv ints (in 1.5 nv doubles) for its dof lists */
  double *scratch = mr_arena_doubles(d, (size_t)d->ncon + 6 * (size_t)m->nv + 1);
  if (!keep || !scratch) return -1;
  r->ncon = mr_contact_select(m, d, cap, keep, scratch, &r->ncon_candidates);
  r->nrow = r->neq + r->nlim + 3 * r->ncon;
  if (r->nrow == 0) {
    mr_arena_restore(d, mark);
    return 0;
  }
  /* keep[] and the scratch sit below the rows and stay allocated for this step: freeing
   * them would free the rows too */
  if (mr_rows_alloc(d, r)) return -1;
  mr_equality_rows_fill(m, d, r, scratch);
  mr_limit_rows(m, d, r);
  mr_contact_rows(m, d, r, keep, scratch);
  return mr_rows_sparsity(m, d, r, (int *)(scratch + 3 * (size_t)m->nv));
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

/* ------------------------------------------------------------------ projection */

/* Solves (G + eps I) y = b in place for the small dense SPD-or-singular G (n x n) by
 * L D L^T; pivots below the floor belong to redundant rows and get y = 0 there. */
static void mr_dense_ldl_solve(double *G, double *b, int n) {
  double maxdiag = 0;
  for (int i = 0; i < n; i++) maxdiag = fmax(maxdiag, G[i * n + i]);
  double eps = 1e-12 * (1 + maxdiag);
  for (int i = 0; i < n; i++) G[i * n + i] += eps;
  for (int k = 0; k < n; k++) {
    double dk = G[k * n + k];
    for (int t = 0; t < k; t++) dk -= G[k * n + t] * G[k * n + t] * G[t * n + t];
    G[k * n + k] = dk;
    for (int i = k + 1; i < n; i++) {
      double s = G[i * n + k];
      for (int t = 0; t < k; t++) s -= G[i * n + t] * G[k * n + t] * G[t * n + t];
      G[i * n + k] = dk > 10 * eps ? s / dk : 0;
    }
  }
  for (int i = 0; i < n; i++)
    for (int t = 0; t < i; t++) b[i] -= G[i * n + t] * b[t];
  for (int i = 0; i < n; i++) b[i] = G[i * n + i] > 10 * eps ? b[i] / G[i * n + i] : 0;
  for (int i = n - 1; i >= 0; i--)
    for (int t = i + 1; t < n; t++) b[i] -= G[t * n + i] * b[t];
}

/* Post-stabilization (Cline and Pai): Newton steps on phi(q) = 0 in the metric of A, so
 * loop closures hold to round-off instead of the O(dt^2) drift Baumgarte leaves. */
void mr_constraint_project(const mr_model *m, mr_data *d) {
  const int nv = m->nv, n = mr_equality_rows(m);
  if (n == 0 || (d->opt.disable & MR_DISABLE_CONSTRAINT)) return;
  size_t mark = mr_arena_mark(d);
  double *J = mr_arena_doubles(d, (size_t)n * nv), *AJ = mr_arena_doubles(d, (size_t)n * nv);
  double *G = mr_arena_doubles(d, (size_t)n * n), *phi = mr_arena_doubles(d, (size_t)n);
  double *dq = mr_arena_doubles(d, (size_t)nv), *scratch = mr_arena_doubles(d, 6 * (size_t)nv);
  if (!J || !AJ || !G || !phi || !dq || !scratch) {
    mr_arena_restore(d, mark);
    return;
  }
  for (int it = 0; it < MR_PROJECT_MAX_ITER; it++) {
    mr_kinematics(m, d);
    mr_equality_eval(m, d, phi, J, scratch);
    double err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(phi[i]));
    if (!(err > MR_PROJECT_TOL)) break;
    memcpy(AJ, J, (size_t)n * nv * sizeof(double));
    mr_solve_mass(m, d, AJ, AJ, n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int k = 0; k < nv; k++) s += J[(size_t)i * nv + k] * AJ[(size_t)j * nv + k];
        G[i * n + j] = s;
      }
    mr_dense_ldl_solve(G, phi, n);
    memset(dq, 0, (size_t)nv * sizeof(double));
    for (int j = 0; j < n; j++)
      for (int k = 0; k < nv; k++) dq[k] -= phi[j] * AJ[(size_t)j * nv + k];
    mr_integrate_pos(m, d->qpos, dq, 1.0);
  }
  mr_arena_restore(d, mark);
}

/* ------------------------------------------------------------------ sizes */

/* Every block the constraint stage takes in one step, at the largest row count: the rows
 * (header, selection scratch, J, its sparsity, per-row and per-contact arrays), the
 * problem (G, A^-1 J^T, g, R, lambda, c, v_free, dv), the solver's scratch, the metrics
 * and the equality projection; plus alignment padding for up to 96 blocks. */
size_t mr_constraint_arena_size(const mr_model *m) {
  size_t nv = (size_t)m->nv, neq = (size_t)mr_equality_rows(m), nlim = 0;
  size_t maxcon = (size_t)mr_contact_capacity(m);
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_limited[j] && (m->jnt_type[j] == MR_JOINT_HINGE || m->jnt_type[j] == MR_JOINT_SLIDE))
      nlim += 2;
  size_t ncrow = 3 * maxcon < MR_MAX_ROWS ? 3 * maxcon : MR_MAX_ROWS;
  size_t nrow = neq + nlim + ncrow;
  if (nrow == 0) return 0;
  size_t doubles = 2 * nrow * nv + nrow * nrow + 16 * nrow + 16 * nv + 16 * maxcon +
                   MR_SOLVER_SCRATCH(nrow, nv) + 2 * neq * nv + neq * neq + 4 * neq;
  size_t ints = maxcon + nrow * (nv + 3) + 8;
  return sizeof(mr_rows) + doubles * sizeof(double) + ints * sizeof(int) + 96 * 64;
}
