/* L^T D L factorization and solves of a symmetric matrix stored in the mass matrix's
 * branch-sparse layout (crba.c): row i at dof_Madr[i] holds [H(i,i), H(i,parent(i)), ...]
 * along dof_parentid to a root. Eliminated from the last dof backwards, such a matrix fills
 * in nothing, since every ancestor of an ancestor of i is an ancestor of i. The mass matrix
 * is one; so is Newton's matrix A + J^T D J of a contact problem whose rows each move the
 * dofs of one path from a root (a robot touching the floor), which the newton solver
 * factors here at the cost of the mass matrix's factor, not of a dense one. */
#include "tree_ldl.h"

#include <math.h>

#include "mr_math.h"

/* r += a * s along a row (rows never overlap). */
static inline void mr_axpy_short(double *restrict r, const double *restrict a, double s, int n) {
  for (int t = 0; t < n; t++) r[t] += a[t] * s;
}

int mr_tree_ldl(const mr_model *m, double *LD, double *Dinv, int lo, int hi, double floor) {
  const int *Madr = m->dof_Madr, *col = m->M_colind;
  int raised = 0;
  for (int k = hi - 1; k >= lo; k--) {
    int kk = Madr[k], end = mr_tree_row_end(m, k);
    double least = floor > 0 && floor * Dinv[k] > MR_MINVAL ? floor * Dinv[k] : MR_MINVAL;
    if (!(LD[kk] >= least)) {
      if (floor > 0 && !isfinite(LD[kk])) return -1;
      LD[kk] = least;
      raised++;
    }
    double inv = 1.0 / LD[kk];
    /* row k past entry ki is the layout of row col[ki]: that ancestor and its own */
    for (int ki = kk + 1; ki < end; ki++) {
      double scale = LD[ki] * inv;
      mr_axpy_short(LD + Madr[col[ki]], LD + ki, -scale, end - ki);
      LD[ki] = scale;
    }
  }
  for (int i = lo; i < hi; i++) Dinv[i] = 1.0 / LD[Madr[i]];
  return raised;
}

/* X <- L^-T X from the leaves up (each entry pushed into its ancestors), X <- D^-1 X, then
 * X <- L^-1 X from the roots down; over [lo, hi) only, which is exact when the range holds
 * whole trees (ancestors never leave it). n vectors at once, stored by dof: X[(i - lo) n
 * + r] is dof i of vector r. One vector's sweep is a chain of dependent multiply-adds along
 * the tree; over a block, every step of the chain is an axpy of length n that vectorizes,
 * which is most of the time of the Delassus rows on a deep tree such as the humanoid's. */
void mr_tree_ldl_solve(const mr_model *m, const double *LD, const double *Dinv, double *X, int n,
                       int lo, int hi) {
  const int *Madr = m->dof_Madr, *col = m->M_colind;
  for (int i = hi - 1; i >= lo; i--) {
    const double *restrict xi = X + (size_t)(i - lo) * n;
    if (mr_all_zero(xi, n)) continue; /* off the chains of the vectors' nonzeros */
    for (int adr = Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++) {
      double *restrict xj = X + (size_t)(col[adr] - lo) * n;
      const double l = LD[adr];
      for (int r = 0; r < n; r++) xj[r] -= l * xi[r];
    }
  }
  for (int i = lo; i < hi; i++) {
    double *xi = X + (size_t)(i - lo) * n;
    for (int r = 0; r < n; r++) xi[r] *= Dinv[i];
  }
  for (int i = lo; i < hi; i++) {
    double *restrict xi = X + (size_t)(i - lo) * n;
    for (int adr = Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++) {
      const double *restrict xj = X + (size_t)(col[adr] - lo) * n;
      const double l = LD[adr];
      for (int r = 0; r < n; r++) xi[r] -= l * xj[r];
    }
  }
}

/* x's entry at dof i pushed into its ancestors: one step of L^-T from the leaves up. */
static inline void mr_tree_ldl_push(const mr_model *m, const double *LD, double *x, int i) {
  const double xi = x[i];
  if (xi == 0) return;
  for (int adr = m->dof_Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++)
    x[m->M_colind[adr]] -= LD[adr] * xi;
}

void mr_tree_ldl_up1(const mr_model *m, const double *LD, double *x, int lo, int hi) {
  for (int i = hi - 1; i >= lo; i--) mr_tree_ldl_push(m, LD, x, i);
}

void mr_tree_ldl_up_cols(const mr_model *m, const double *LD, double *x, const int *cols, int n) {
  for (int t = n - 1; t >= 0; t--) mr_tree_ldl_push(m, LD, x, cols[t]);
}

void mr_tree_ldl_down1(const mr_model *m, const double *LD, const double *Dinv, double *x, int lo,
                       int hi) {
  const int *Madr = m->dof_Madr, *col = m->M_colind;
  for (int i = lo; i < hi; i++) x[i] *= Dinv[i];
  for (int i = lo; i < hi; i++) {
    /* two partial sums: the row's terms are a chain of dependent subtractions otherwise,
     * one add's latency each */
    double even = x[i], odd = 0;
    int adr = Madr[i] + 1;
    const int end = mr_tree_row_end(m, i);
    for (; adr + 1 < end; adr += 2) {
      even -= LD[adr] * x[col[adr]];
      odd -= LD[adr + 1] * x[col[adr + 1]];
    }
    if (adr < end) even -= LD[adr] * x[col[adr]];
    x[i] = even + odd;
  }
}

void mr_tree_ldl_solve1(const mr_model *m, const double *LD, const double *Dinv, double *x, int lo,
                        int hi) {
  mr_tree_ldl_up1(m, LD, x, lo, hi);
  mr_tree_ldl_down1(m, LD, Dinv, x, lo, hi);
}

/* The update of Gill, Golub, Murray and Saunders (1974, method C1) in the layout's order:
 * dofs are eliminated from the leaves up, so the columns of the textbook's L D L^T are the
 * rows here, taken from `top` towards the root, and a row's entries past its diagonal are
 * its ancestors, where w's remainder lands. A dof where w is zero leaves its row as it is,
 * so only the path is visited. */
int mr_tree_ldl_update(const mr_model *m, double *LD, double *Dinv, double *w, int top,
                       double alpha) {
  const int *Madr = m->dof_Madr, *col = m->M_colind;
  int ok = 1;
  for (int k = top; k >= 0; k = m->dof_parentid[k]) {
    const double p = w[k];
    w[k] = 0;
    if (p == 0 || !ok) continue;
    const int kk = Madr[k], end = mr_tree_row_end(m, k);
    const double d = LD[kk], dnew = d + alpha * p * p;
    /* a downdate that cancels the pivot to round-off is left to a fresh factor */
    if (!(dnew > MR_TREE_LDL_KEEP * d)) {
      ok = 0;
      continue;
    }
    const double beta = p * alpha / dnew;
    alpha *= d / dnew;
    LD[kk] = dnew;
    Dinv[k] = 1 / dnew;
    for (int ki = kk + 1; ki < end; ki++) {
      double *wj = w + col[ki];
      *wj -= p * LD[ki];
      LD[ki] += beta * *wj;
    }
  }
  return ok ? 0 : -1;
}
