/* Internal entry points of the dynamics stage that the public API (moreau.h) does not
 * expose: solves with the factored mass matrix restricted to a range of dofs, for the
 * constraint stage's Delassus operator. */
#ifndef MR_DYNAMICS_H
#define MR_DYNAMICS_H

#include "moreau.h"

/* x = A^-1 x over the dofs [lo, hi) only, which must be whole kinematic trees (crba.c). */
void mr_solve_mass_span(const mr_model *m, const mr_data *d, double *x, int lo, int hi);
/* The same for n vectors at once, stored by dof: X[(i - lo) n + r] is dof i of vector r. */
void mr_solve_mass_block(const mr_model *m, const mr_data *d, double *X, int n, int lo, int hi);

/* x^T A^-1 x for x nonzero only inside the dofs [lo, hi), which must be whole kinematic
 * trees: half of the solve (L^-T from the leaves up, where x is overwritten), then the sum
 * of its squares over D. The Delassus diagonal J_i A^-1 J_i^T without A^-1 J_i^T. */
double mr_mass_inverse_norm2(const mr_model *m, const mr_data *d, double *x, int lo, int hi);

#endif
