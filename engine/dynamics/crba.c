/* The joint-space mass matrix: composite rigid-body algorithm into the branch-sparse
 * lower triangle, its L^T D L factorization and solves (Featherstone 2005; papers/003
 * sec. 2.2; the factor itself is engine/core/tree_ldl.c, which Newton's matrix shares).
 *
 * Storage: row i of the lower triangle starts at dof_Madr[i] and holds
 * [M(i,i), M(i,parent(i)), M(i,parent(parent(i))), ...] along dof_parentid up to a root.
 * Off-tree entries are structurally zero, and because every ancestor of an ancestor of i
 * is an ancestor of i, the factorization M = L^T D L (L unit lower triangular, eliminated
 * from the last dof backwards) creates no fill-in: row k's tail past ancestor i is laid
 * out exactly like row i, so each update is one contiguous axpy.
 */
#include <string.h>

#include "dynamics.h"
#include "moreau.h"
#include "engine/core/mr_math.h"
#include "engine/core/spatial.h"
#include "engine/core/tree_ldl.h"

void mr_mass_matrix(const mr_model *m, mr_data *d) {
  const int nv = m->nv;
  double *crb = d->crb, *qM = d->qM;
  memcpy(crb, d->cinert, 10 * (size_t)m->nbody * sizeof(double));
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    if (p > 0) {
      double *cp = crb + 10 * p;
      const double *cb = crb + 10 * b;
      for (int k = 0; k < 10; k++) cp[k] += cb[k];
    }
  }
  /* M(i,j) = cdof_j . (crb_body(i) cdof_i) for j = i and its ancestors */
  for (int i = 0; i < nv; i++) {
    double force[6];
    mr_inert_mul(force, crb + 10 * m->dof_bodyid[i], d->cdof + 6 * i);
    for (int adr = m->dof_Madr[i], end = mr_tree_row_end(m, i); adr < end; adr++)
      qM[adr] = mr_dot6(d->cdof + 6 * m->M_colind[adr], force);
    qM[m->dof_Madr[i]] += m->dof_armature[i];
  }
}

void mr_factor_mass(const mr_model *m, mr_data *d, double dt_damping) {
  const int nv = m->nv;
  const int *Madr = m->dof_Madr;
  double *LD = d->qLD;
  memcpy(LD, d->qM, (size_t)m->nM * sizeof(double));
  if (dt_damping != 0)
    for (int i = 0; i < nv; i++) LD[Madr[i]] += dt_damping * m->dof_damping[i];
  for (int i = 0; i < nv; i++) d->qAdiag[i] = LD[Madr[i]];
  /* a singular M (massless chain without armature) would divide by zero: clamp */
  mr_tree_ldl(m, LD, d->qLDiagInv, 0, nv, 0);
}

/* x = A^-1 x with the factored mass matrix (tree_ldl.h). */
void mr_solve_mass_block(const mr_model *m, const mr_data *d, double *X, int n, int lo, int hi) {
  mr_tree_ldl_solve(m, d->qLD, d->qLDiagInv, X, n, lo, hi);
}

/* The body of mr_mass_inverse_norm2_n for one vector or a contact's three. */
MR_ALWAYS_INLINE void mr_norm2_walk(const mr_model *m, const mr_data *d, double *x, const int n,
                                    int lo, int hi, double *sum) {
  const int *Madr = m->dof_Madr, *col = m->M_colind;
  const double *LD = d->qLD;
  for (int c = 0; c < n; c++) sum[c] = 0;
  for (int i = hi - 1; i >= lo; i--) {
    const double *xi = x + (size_t)n * i;
    int nonzero = 0;
    for (int c = 0; c < n; c++) nonzero |= xi[c] != 0;
    if (!nonzero) continue;
    for (int adr = Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++)
      for (int c = 0; c < n; c++) x[(size_t)n * col[adr] + c] -= LD[adr] * xi[c];
    for (int c = 0; c < n; c++) sum[c] += xi[c] * xi[c] * d->qLDiagInv[i];
  }
}

/* The walk of three vectors whose nonzeros cols[0..nc) are one path from a root, each dof
 * the parent of the next (a body's chain: a free body's six dofs, a robot's contact with
 * the world): the ancestors of a path's dof are the dofs before it, so the walk runs over
 * the path alone, on local values instead of through memory, in the same order and to the
 * same sums. Inlined for a free body's six, where the loops unroll. */
#define MR_NORM2_PATH 64

/* x's entry of path dof p, vector c: by dof and interleaved (the walks' layout), or by
 * path position with one vector per stride (a contact's rows over its columns). */
MR_ALWAYS_INLINE double *mr_path_entry(double *x, const int *cols, int p, int c, int stride) {
  return stride ? x + (size_t)c * stride + p : x + 3 * cols[p] + c;
}

MR_ALWAYS_INLINE void mr_norm2_path_walk(const mr_model *m, const mr_data *d, double *x,
                                         const int *cols, const int nc, int stride,
                                         double sum[3]) {
  double v[MR_NORM2_PATH][3];
  for (int p = 0; p < nc; p++)
    for (int c = 0; c < 3; c++) v[p][c] = *mr_path_entry(x, cols, p, c, stride);
  for (int c = 0; c < 3; c++) sum[c] = 0;
  for (int i = nc - 1; i >= 0; i--) {
    if (v[i][0] == 0 && v[i][1] == 0 && v[i][2] == 0) continue;
    const double *L = d->qLD + m->dof_Madr[cols[i]] + 1; /* L[k]: ancestor i - 1 - k */
    for (int k = 0; k < i; k++)
      for (int c = 0; c < 3; c++) v[i - 1 - k][c] -= L[k] * v[i][c];
    for (int c = 0; c < 3; c++) sum[c] += v[i][c] * v[i][c] * d->qLDiagInv[cols[i]];
  }
  for (int p = 0; p < nc; p++) /* the half solve, as the general walk leaves it */
    for (int c = 0; c < 3; c++) *mr_path_entry(x, cols, p, c, stride) = v[p][c];
}

static int mr_is_root_path(const mr_model *m, const int *cols, int nc) {
  if (nc > MR_NORM2_PATH || nc == 0 || m->dof_parentid[cols[0]] != -1) return 0;
  for (int p = 1; p < nc; p++)
    if (m->dof_parentid[cols[p]] != cols[p - 1]) return 0;
  return 1;
}

int mr_mass_half_path3(const mr_model *m, const mr_data *d, double *x, int stride, const int *cols,
                       int nc, double sum[3]) {
  if (!mr_is_root_path(m, cols, nc)) return 0;
  if (nc == 6) mr_norm2_path_walk(m, d, x, cols, 6, stride, sum);
  else mr_norm2_path_walk(m, d, x, cols, nc, stride, sum);
  return 1;
}

static int mr_norm2_path(const mr_model *m, const mr_data *d, double *x, const int *cols,
                         int nc, double sum[3]) {
  if (!mr_is_root_path(m, cols, nc)) return 0;
  if (nc == 6) mr_norm2_path_walk(m, d, x, cols, 6, 0, sum);
  else mr_norm2_path_walk(m, d, x, cols, nc, 0, sum);
  return 1;
}

int mr_mass_inverse_norm2_n(const mr_model *m, const mr_data *d, double *x, int n, int lo,
                            int hi, double *sum, const int *cols, int nc) {
  if (n == 3 && cols && mr_norm2_path(m, d, x, cols, nc, sum)) return 1;
  if (n == 3) mr_norm2_walk(m, d, x, 3, lo, hi, sum);
  else mr_norm2_walk(m, d, x, 1, lo, hi, sum);
  return 0;
}

/* One vector, indexed by dof. */
void mr_solve_mass_span(const mr_model *m, const mr_data *d, double *x, int lo, int hi) {
  mr_tree_ldl_solve1(m, d->qLD, d->qLDiagInv, x, lo, hi);
}

void mr_solve_mass(const mr_model *m, const mr_data *d, double *x, const double *b, int n) {
  const int nv = m->nv;
  if (x != b) memcpy(x, b, (size_t)nv * (size_t)n * sizeof(double));
  for (int c = 0; c < n; c++, x += nv) mr_solve_mass_span(m, d, x, 0, nv);
}

void mr_dense_mass(const mr_model *m, const mr_data *d, double *dense) {
  const int nv = m->nv;
  memset(dense, 0, (size_t)nv * (size_t)nv * sizeof(double));
  for (int i = 0; i < nv; i++) {
    int adr = m->dof_Madr[i];
    for (int j = i; j >= 0; j = m->dof_parentid[j], adr++) {
      dense[(size_t)i * nv + j] = d->qM[adr];
      dense[(size_t)j * nv + i] = d->qM[adr];
    }
  }
}
