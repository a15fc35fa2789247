/* Islands of a contact problem: the groups of kinematic trees its rows join, each with its
 * dofs, rows and blocks (internal to the primal solvers).
 *
 * Rows of different islands share no dof, so the NCP splits into one independent problem
 * per island: A is block diagonal over the trees, and G = J A^-1 J^T has no entry between
 * islands. A solver that converges island by island does the work each island needs: a
 * hundred objects resting apart on a floor are a hundred problems of a few rows, of which
 * one sliding or tumbling object no longer holds the other ninety-nine at a shared
 * stopping test. The groups are those of the tree factor (tree_cholesky.h), which joins
 * the trees every row touches.
 */
#ifndef MR_ISLANDS_H
#define MR_ISLANDS_H

#include <stddef.h>

#include "solver.h"
#include "tree_cholesky.h"

typedef struct mr_islands {
  int n;                 /* islands: groups with at least one row */
  int *group;            /* n: the island's group in the factor (-1: rows that move no dof) */
  int *dofadr, *dof;     /* island i's dofs dof[dofadr[i] .. dofadr[i + 1]), tree by tree */
  int *rowadr, *row;     /* its rows: equality and limit rows ascending, then each contact's three */
  int *baseadr, *base;   /* its equality and limit rows alone (one block each) */
  int *conadr, *con;     /* its contacts, ascending */
} mr_islands;

/* Arena bytes mr_islands_build takes at most. */
size_t mr_islands_bytes(size_t nv, size_t nrow);

/* The islands of p under h's groups (h analyzed, with every row's trees joined). Returns 0,
 * -1 on arena exhaustion. */
int mr_islands_build(mr_islands *isl, const mr_problem *p, const mr_tree_chol *h, mr_data *work);

/* x = A^-1 x in place over the dofs dof[0..ndof) of an island (x elsewhere untouched). */
void mr_island_solve_mass(const mr_problem *p, const int *dof, int ndof, double *x);

/* Island i of p as a problem of its own in the dual form: its rows renumbered in the order
 * of isl->row (equalities, limits, contacts), with its dense Delassus matrix G = J A^-1 J^T
 * (one mass solve per row over the island's trees), g, its diagonal and the friction
 * coefficients; no J, no primal data. The small problem a solver that works in the dual
 * form can finish where a primal method stalled. Returns 0, -1 on arena exhaustion. */
int mr_island_dual(const mr_islands *isl, int i, const mr_problem *p, mr_problem *q, mr_data *work);

#endif
