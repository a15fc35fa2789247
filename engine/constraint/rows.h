/* What the files of the constraint stage share (internal to engine/constraint/).
 *
 * Rows are written in compressed form by appending, in row order: mr_rows_begin opens a
 * row, mr_rows_add appends one nonzero to it (columns ascending), mr_rows_end closes J.
 */
#ifndef MR_CONSTRAINT_ROWS_H
#define MR_CONSTRAINT_ROWS_H

#include "constraint.h"

static inline void mr_rows_begin(mr_rows *r, int row) { r->nzadr[row] = r->nnz; }
static inline void mr_rows_add(mr_rows *r, int col, double value) {
  r->nzind[r->nnz] = col;
  r->J[r->nnz] = value;
  r->nnz++;
}
static inline void mr_rows_end(mr_rows *r) { r->nzadr[r->nrow] = r->nnz; }

/* Row i's soft-constraint parameters (mr_rows: solref, solimp, pos). */
static inline void mr_rows_soft(mr_rows *r, int i, double pos, const double solref[2],
                                const double solimp[5]) {
  for (int k = 0; k < 2; k++) r->solref[2 * i + k] = solref[k];
  for (int k = 0; k < 5; k++) r->solimp[5 * i + k] = solimp[k];
  r->pos[i] = pos;
}


/* The bias of a unilateral row with gap phi (constraint.h): the gap to close when open, 0
 * when penetrating (the position pass recovers depth). */
double mr_unilateral_bias(double phi, double dt);

/* Which sides of a limit are rows: bit 0 (lower) when x - range[0] is below the margin or
 * would be within MR_LIMIT_LOOKAHEAD steps of dt at the speed v, bit 1 likewise for
 * range[1] - x (constraint.c; joints and tendons). */
int mr_range_sides(double x, double v, const double range[2], double margin, double dt);
static inline int mr_side_count(int sides) { return (sides & 1) + (sides >> 1); }

/* ------------------------------------------------------------------ tendon_rows.c */

/* Tendon-limit rows active now (in the limit block after the joints'), their nonzeros,
 * and the most rows and nonzeros they can have. */
int mr_tendon_limit_count(const mr_model *m, const mr_data *d);
int mr_tendon_limit_nonzeros(const mr_model *m, const mr_data *d);
int mr_tendon_limit_capacity(const mr_model *m, int *max_nonzeros);
/* Appends the tendon-limit rows from row `row` on; their ids are negative
 * (-1 - (2 t + side)). */
void mr_tendon_limit_rows(const mr_model *m, const mr_data *d, mr_rows *r, int row);
/* Where the impulse of the tendon-limit row with id `id` is kept between steps. */
double *mr_tendon_limit_slot(mr_data *d, int id);
/* phi and, unless J is NULL, the dense Jacobian row (added into J, nv) of tendon
 * equality e. */
void mr_eq_tendon(const mr_model *m, const mr_data *d, int e, double *phi, double *J);

/* ------------------------------------------------------------------ delassus.c */

/* Dof range [lo, hi) of the kinematic tree of each dof: M is block diagonal over the trees
 * below the world, and a tree's dofs are contiguous (depth-first order), so A^-1 J^T of a
 * row is nonzero only inside the ranges of the trees the row touches. */
void mr_tree_ranges(const mr_model *m, int *lo, int *hi);

/* The (at most two) tree ranges row i touches, from its nonzero columns: [span[0],
 * span[1]) and [span[2], span[3]) (an empty second range has equal ends). A row touching
 * three trees cannot occur (a contact, a connect or weld, and a joint coupling each join
 * two objects); should one appear, the second range grows to cover the rest. */
void mr_row_span(const mr_rows *r, int i, const int *lo, const int *hi, int span[4]);

/* ------------------------------------------------------------------ degenerate.c */

/* Drops the contacts whose normal the mechanism cannot move (degenerate.c says why) from
 * r, compacting its rows, spans (4 per row), G's diagonal and the half solves' ranges (2
 * per row, NULL when there are none) in place. Returns how many. */
int mr_rows_drop_degenerate(mr_rows *r, int *span, double *Gdiag, int *Yrange);

/* ------------------------------------------------------------------ equality.c */

/* Rows of equality constraint e (0 when inactive). */
int mr_equality_size(const mr_model *m, int e);

/* phi and (if J) the dense Jacobian rows (mr_equality_rows x nv, zeroed here) of every
 * active equality. scratch: 6 nv doubles. */
void mr_equality_eval(const mr_model *m, const mr_data *d, double *phi, double *J, double *scratch);

/* The equality rows [0, r->neq) from their dense Jacobian (mr_equality_eval's), bias and
 * ids; r->phi must already hold their values. */
void mr_equality_rows_fill(const mr_model *m, mr_rows *r, const double *dense);

/* Nonzeros of the dense equality Jacobian. */
int mr_equality_nonzeros(const mr_rows *r, const double *dense);

/* ------------------------------------------------------------------ contact_rows.c */

/* Marks in keep[] the contacts that become rows (all candidates, or the `cap` deepest);
 * returns how many. scratch: d->ncon doubles. */
int mr_contact_select(const mr_model *m, mr_data *d, int cap, int *keep, double *scratch,
                      int *ncand);

/* The dofs that move a contact's bodies, ascending, without repeats (their count); dofs
 * needs room for nv ints. */
int mr_contact_dofs(const mr_model *m, const mr_contact *c, int *dofs);

/* Nonzeros the kept contacts' rows will have at most: 3 per dof of each of the two chains,
 * a dof they share counted twice (never more than nv per row), read off the chains'
 * lengths without walking them. */
int mr_contact_nonzeros(const mr_model *m, const mr_data *d, const int *keep);

/* The contact rows after the equality and limit rows. jp: 3 nv doubles of scratch, then
 * 3 nv ints (1.5 nv doubles) for the dof lists. */
void mr_contact_rows_fill(const mr_model *m, mr_data *d, mr_rows *r, const int *keep, double *jp);

#endif
