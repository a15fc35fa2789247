/* Equality constraints: their values phi, their Jacobian rows, and the position-level
 * projection that holds them to round-off after each step.
 *
 *   connect  phi = p1 - p2 (3, world): the anchor on body1 and its image on body2, the
 *            image being where the anchor sits in body2's frame at qpos0 (the constraint
 *            holds in the configuration the model is defined in, as in MuJoCo)
 *   weld     phi = (p2 - p2*, log(R2 R*^T)) (6, world): body2's pose against its target
 *            pose T1 relpose (relpose from qpos0 when its quaternion is all zero); the
 *            anchor (eq_data[0..2]) is the point of body2 whose position is constrained.
 *            The orientation rows are exact: d log(E)/dt = Jl^-1(phi) (w2 - E w1).
 *   joint    phi = (q1 - q1_0) - poly(q2 - q2_0) (1), MuJoCo's polycoef; no joint2: q2 = q2_0
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/spatial.h"
#include "rows.h"

/* ------------------------------------------------------------------ equalities */

int mr_equality_size(const mr_model *m, int e) {
  if (!m->eq_active[e]) return 0;
  switch (m->eq_type[e]) {
    case MR_EQ_CONNECT: return 3;
    case MR_EQ_WELD: return 6;
    case MR_EQ_JOINT: return 1;
    case MR_EQ_TENDON: return 1;
    default: return 0;
  }
}

int mr_equality_rows(const mr_model *m) {
  int n = 0;
  for (int e = 0; e < m->neq; e++) n += mr_equality_size(m, e);
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

void mr_equality_eval(const mr_model *m, const mr_data *d, double *phi, double *J,
                             double *scratch) {
  const int nv = m->nv;
  int row = 0;
  for (int e = 0; e < m->neq; e++) {
    int n = mr_equality_size(m, e);
    if (!n) continue;
    double *Je = J ? J + (size_t)row * nv : NULL;
    if (Je) memset(Je, 0, (size_t)n * nv * sizeof(double));
    switch (m->eq_type[e]) {
      case MR_EQ_CONNECT: mr_eq_connect(m, d, e, phi + row, Je); break;
      case MR_EQ_WELD: mr_eq_weld(m, d, e, phi + row, Je, scratch); break;
      case MR_EQ_JOINT: mr_eq_joint(m, d, e, phi + row, Je); break;
      case MR_EQ_TENDON: mr_eq_tendon(m, d, e, phi + row, Je); break;
    }
    row += n;
  }
}

void mr_equality_residual(const mr_model *m, const mr_data *d, double *phi) {
  mr_equality_eval(m, d, phi, NULL, NULL);
}

/* ------------------------------------------------------------------ rows */

int mr_equality_nonzeros(const mr_rows *r, const double *dense) {
  int n = 0;
  for (size_t t = 0; t < (size_t)r->neq * (size_t)r->nv; t++) n += dense[t] != 0;
  return n;
}

void mr_equality_rows_fill(const mr_model *m, mr_rows *r, const double *dense) {
  int row = 0;
  for (int e = 0; e < m->neq; e++)
    for (int n = mr_equality_size(m, e); n > 0; n--, row++) {
      const double *Jr = dense + (size_t)row * (size_t)r->nv;
      mr_rows_begin(r, row);
      for (int i = 0; i < r->nv; i++)
        if (Jr[i] != 0) mr_rows_add(r, i, Jr[i]);
      r->bias[row] = MR_ERP_EQUALITY * r->phi[row] / r->dt;
      r->id[row] = e;
      mr_rows_soft(r, row, r->phi[row], m->eq_solref + 2 * e, m->eq_solimp + 5 * e);
    }
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
 * loop closures hold to round-off instead of the O(dt^2) drift Baumgarte leaves. Not for a
 * solver without the position pass (soft): its equalities are soft constraints. */
void mr_constraint_project(const mr_model *m, mr_data *d) {
  const int nv = m->nv, n = mr_equality_rows(m);
  if (n == 0 || (d->opt.disable & MR_DISABLE_CONSTRAINT)) return;
  /* a solver whose model holds its rows itself (soft: MuJoCo's equalities sag under load
   * and recover by their solref) is only measured */
  int soft = !mr_solver_get(mr_solver_index(d))->depenetrate;
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
    if (it == 0) d->metrics.loop_closure = err; /* what the step left, before repair */
    if (!(err > MR_PROJECT_TOL) || soft) break;
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
