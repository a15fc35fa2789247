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

/* The errors of block b alone (blocks: the neq bilateral rows, the nlim limit rows, then
 * the contacts), for solvers that judge a part of the problem (newton's islands). */
void mr_ncp_block_errors(const mr_problem *p, int b, const double *lambda, const double *c,
                         mr_ncp_errors *e);

/* acc = the elementwise max of acc and e. */
void mr_ncp_errors_max(mr_ncp_errors *acc, const mr_ncp_errors *e);

/* The NCP stopping measure solvers share: max over rows of the primal, dual and
 * complementarity residuals (De Saxce-corrected), L-infinity. */
double mr_ncp_residual(const mr_problem *p, const double *lambda, const double *c);

#endif
