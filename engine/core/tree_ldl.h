/* L^T D L of symmetric matrices in the mass matrix's branch-sparse layout (tree_ldl.c). */
#ifndef MR_TREE_LDL_H
#define MR_TREE_LDL_H

#include "moreau.h"

/* One past the last entry of row i of the layout. */
static inline int mr_tree_row_end(const mr_model *m, int i) {
  return i + 1 < m->nv ? m->dof_Madr[i + 1] : m->nM;
}

/* Entries in row i of the layout: the dof and its ancestors. */
static inline int mr_tree_row_length(const mr_model *m, int i) {
  return mr_tree_row_end(m, i) - m->dof_Madr[i];
}

/* The factor in place over the dofs [lo, hi) (whole trees), and 1 / D into Dinv[lo..hi).
 * With floor > 0, Dinv holds each dof's original diagonal on entry, and a pivot that
 * round-off drove below floor times it is raised to that; with floor = 0 pivots are kept
 * at least MR_MINVAL (a massless chain without armature). Returns the pivots raised, -1
 * for a non-finite one (floor > 0 only). */
int mr_tree_ldl(const mr_model *m, double *LD, double *Dinv, int lo, int hi, double floor);

/* X = (L^T D L)^-1 X over [lo, hi) (whole trees) for n vectors stored by dof: X[(i - lo) n
 * + r] is dof i of vector r. */
void mr_tree_ldl_solve(const mr_model *m, const double *LD, const double *Dinv, double *X, int n,
                       int lo, int hi);

/* x = (L^T D L)^-1 x for one vector indexed by dof, over [lo, hi): the block solve's
 * loops without their inner loops of length 1. */
void mr_tree_ldl_solve1(const mr_model *m, const double *LD, const double *Dinv, double *x, int lo,
                        int hi);

/* Its two halves: x = L^-T x from the leaves up, and x = L^-1 D^-1 x from the roots down.
 * (L^T D L)^-1 = L^-1 D^-1 L^-T, so u^T (L^T D L)^-1 w is (L^-T u)^T D^-1 (L^-T w), and a
 * vector nonzero on a path from a root keeps its L^-T on that path. */
void mr_tree_ldl_up1(const mr_model *m, const double *LD, double *x, int lo, int hi);
void mr_tree_ldl_down1(const mr_model *m, const double *LD, const double *Dinv, double *x, int lo,
                       int hi);

/* x = L^-T x for a vector nonzero only on cols[0..n) (ascending), a set of dofs that holds
 * every ancestor of each of its dofs (a contact's chains to its roots): the sweep visits
 * those dofs alone. */
void mr_tree_ldl_up_cols(const mr_model *m, const double *LD, double *x, const int *cols, int n);

/* LD, Dinv <- the factor of L^T D L + alpha w w^T, w nonzero on the path from dof `top`
 * to its root only (a row of a contact or limit on that path); w is left zero. A
 * downdate (alpha < 0) that would leave a pivot below MR_TREE_LDL_KEEP of what it was
 * stops there and returns -1: the factor is then partly updated, and the caller
 * factors afresh. Costs the path's rows, not the tree's. */
#define MR_TREE_LDL_KEEP 1e-4
int mr_tree_ldl_update(const mr_model *m, double *LD, double *Dinv, double *w, int top,
                       double alpha);

#endif
