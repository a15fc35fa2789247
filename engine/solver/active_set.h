/* Active-set refinement for the projected Gauss-Seidel solvers (internal).
 *
 * PGS finds which contacts push, stick or slide within a few sweeps, then spends most of
 * its sweeps converging linearly on values that one linear solve would give. Once the set
 * is guessed, mr_active_set_refine solves the equations that set implies (the "subspace
 * minimization" of Silcowitz, Niebe and Erleben, 2010), in a few Newton rounds that re-read
 * the set and linearize sliding friction, and keeps the best point only if it lowers the
 * NCP residual; PGS then goes on from whichever point is better. A wrong guess therefore
 * costs a few solves and never makes the answer worse.
 */
#ifndef MR_ACTIVE_SET_H
#define MR_ACTIVE_SET_H

#include "solver.h"

/* Largest active set solved (unknowns). Beyond it the refinement is skipped: the dense
 * factorization grows as its cube, and on humanoid100's pile a solve of 160 unknowns cost
 * more sweeps than it saved. */
#define MR_ACTIVE_SET_MAX 64

/* Rounds of guess-and-solve per refinement: each re-reads the set from the last solution. */
#define MR_ACTIVE_SET_ROUNDS 8

/* Halvings of a round's step that does not lower the residual, before the round gives up
 * (and the refinement ends at its best point). */
#define MR_ACTIVE_SET_HALVINGS 4

/* Refines lambda (feasible: inside its cones and bounds) on its active set. c (nrow) holds
 * G lambda + g on entry and on return; dv (nv, velocity form: A^-1 J^T lambda) is kept in
 * step when given, and must be NULL when p->G is used. *residual holds mr_ncp_residual of
 * (lambda, c) on entry and on return. A row whose G_ii <= floor (a redundant row with a zero
 * Jacobian, which PGS skips too) is never an unknown. Returns 1 when the refined point was
 * kept, 0 when it was no better (lambda, c, dv unchanged), -1 on arena exhaustion. */
/* Arena doubles one refinement takes at most (alignment included). */
size_t mr_active_set_scratch(size_t nrow, size_t nv);

int mr_active_set_refine(const mr_problem *p, double *lambda, double *c, double *dv,
                         double *residual, double floor, mr_data *work);

/* The same, adding to *rounds the Newton rounds that solved a linear system (pgs counts
 * each as an iteration, so that iteration counts compare across solvers). */
int mr_active_set_refine_counted(const mr_problem *p, double *lambda, double *c, double *dv,
                                 double *residual, double floor, mr_data *work, int *rounds);

#endif
