/* The NCP measures of a candidate solution lambda of a contact problem, given its
 * constraint velocities c = G lambda + g (ncp.c defines each term). */
#ifndef MR_NCP_H
#define MR_NCP_H

#include "solver.h"

typedef struct mr_ncp_errors {
  double primal, dual, compl, natural, signorini, dissipation;
} mr_ncp_errors;

/* Every row's errors, max-reduced over rows and blocks. */
void mr_ncp_errors_compute(const mr_problem *p, const double *lambda, const double *c,
                           mr_ncp_errors *out);

/* The largest of the primal, dual and complementarity residuals and the natural map over a
 * part of the problem: the equality and limit rows rows[0..nrows) and the contacts
 * contacts[0..ncontacts) (what newton stops on, island by island). */
double mr_ncp_stop_subset(const mr_problem *p, const int *rows, int nrows, const int *contacts,
                          int ncontacts, const double *lambda, const double *c);

/* The NCP stopping measure solvers share: max over rows of the primal, dual and
 * complementarity residuals (De Saxce-corrected), L-infinity. */
double mr_ncp_residual(const mr_problem *p, const double *lambda, const double *c);

#endif
