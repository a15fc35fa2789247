/* A symmetric positive definite matrix over the dofs whose supernodes are the kinematic
 * trees, and its block Cholesky factor (internal to the primal solvers).
 *
 * The Newton matrix of a primal contact solver is H = A + J^T D J. A couples the dofs of
 * one tree only (the mass matrix is block diagonal over the trees below the world), and a
 * constraint row couples the trees it touches (two at most: a contact, a connect or weld
 * between two bodies). So H is block sparse over trees: one dense block per tree, one per
 * pair of trees some row joins. It is factored H = L L^T blockwise, the trees eliminated
 * in a minimum-degree order of the graph of joined trees, so that a pile of free bodies
 * fills in little and a robot on the floor (one tree) is one dense Cholesky.
 *
 * Use: mr_tree_chol_init (trees), mr_tree_chol_join for every pair of trees a row joins,
 * mr_tree_chol_analyze (order, fill, block layout), then per matrix: mr_tree_chol_zero,
 * mr_tree_chol_add_*, mr_tree_chol_factor, and any number of mr_tree_chol_solve.
 * Everything comes from the data's arena.
 */
#ifndef MR_TREE_CHOLESKY_H
#define MR_TREE_CHOLESKY_H

#include <stddef.h>

#include "moreau.h"

/* A free body's dofs: a pile's every tree. Its blocks take kernels of that constant size
 * (tree_cholesky.c); a tree of more is articulated, a robot (newton_matrix.c). */
#define MR_FREE_DOFS 6

typedef struct mr_tree_chol {
  int nv, ntree;
  int *tree_adr;     /* ntree + 1: tree t holds the dofs [tree_adr[t], tree_adr[t + 1]) */
  int *tree_of;      /* nv: the tree of each dof */
  unsigned char *adj; /* ntree x ntree: joined pairs (symbolic phase only), */
  int *degree;        /*   and each tree's count of them (the analysis's fill adds to it) */
  int *order;        /* ntree: trees in elimination order */
  int *pos;          /* ntree: a tree's place in that order */
  int *nbadr;        /* ntree + 1: tree t's neighbours eliminated after it, fill included, */
  int *nb;           /*   are nb[nbadr[t] .. nbadr[t + 1]) */
  size_t *blkadr;    /* parallel to nb: block (s, t) of L, n_s x n_t row-major, at val + blkadr */
  size_t *diagadr;   /* ntree: tree t's diagonal block, n_t x n_t row-major (lower triangle) */
  int ncomp;         /* connected groups of joined trees: blocks never cross them */
  int *comp;         /* ntree: a tree's group */
  int *corder;       /* ntree: trees grouped, each group in elimination order, */
  int *compadr;      /*   group c at corder[compadr[c] .. compadr[c + 1]) */
  double *val;
  size_t nval;
  double *inv_diag;  /* nv: 1 / L_ii of the factor, by dof */
  int *rows, *rowadr; /* nv, ntree + 1: the factor's scratch, a tree's neighbours' nonzero
                         rows */
} mr_tree_chol;

/* Arena bytes one matrix takes at most for a model (the worst case: every tree joined to
 * every other). */
size_t mr_tree_chol_bytes(const mr_model *m);

/* The trees of m, no pair joined yet. Returns 0, -1 on arena exhaustion. */
int mr_tree_chol_init(mr_tree_chol *h, const mr_model *m, mr_data *work);

/* Marks the trees of dofs i and j as joined (nothing when they are in the same tree). */
void mr_tree_chol_join(mr_tree_chol *h, int i, int j);

/* Elimination order, fill and the block layout. Returns 0, -1 on arena exhaustion. */
int mr_tree_chol_analyze(mr_tree_chol *h, mr_data *work);

void mr_tree_chol_zero(mr_tree_chol *h);

/* The blocks of group c (h->comp) alone: an island of a contact problem is such a group,
 * and a solver that works island by island zeroes, factors and solves one at a time. */
void mr_tree_chol_zero_group(mr_tree_chol *h, int c);

/* H(i, j) += v for dofs i >= j of one tree (the diagonal block's lower triangle). */
static inline void mr_tree_chol_add_diag(mr_tree_chol *h, int i, int j, double v) {
  int t = h->tree_of[i], lo = h->tree_adr[t], n = h->tree_adr[t + 1] - lo;
  h->val[h->diagadr[t] + (size_t)(i - lo) * (size_t)n + (size_t)(j - lo)] += v;
}

/* H[cols, cols] += W for the ascending dofs cols[0..n) and the symmetric n x n W
 * (row-major; only its lower triangle is read). */
void mr_tree_chol_add_block(mr_tree_chol *h, const int *cols, int n, const double *W);

/* L L^T = H in place. Pivots that round-off drove below `floor` times their diagonal are
 * raised to it (H is positive definite in exact arithmetic). Returns the number raised, or
 * -1 for a non-finite entry. */
int mr_tree_chol_factor(mr_tree_chol *h, double floor);

/* The factor of group c's blocks (as mr_tree_chol_factor, for that group only). */
int mr_tree_chol_factor_group(mr_tree_chol *h, int c, double floor);

/* x = H^-1 x with the factor. */
void mr_tree_chol_solve(const mr_tree_chol *h, double *x);

/* x = H^-1 x for an x that is zero outside the group of trees joined to dof i's tree: the
 * solve touches that group only (a contact's column in a pile of bodies). */
void mr_tree_chol_solve_local(const mr_tree_chol *h, double *x, int i);

/* x = H^-1 x over group c's dofs (x elsewhere untouched). */
void mr_tree_chol_solve_group(const mr_tree_chol *h, double *x, int c);

#endif
