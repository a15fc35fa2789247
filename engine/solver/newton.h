/* The newton solver's state, shared by its files (internal to engine/solver): newton.c
 * (the method, islands, line search), newton_warm.c (the warm path's linearized steps) and
 * newton_matrix.c (Newton's matrix: assembly, factor, solves). newton.c's header comment
 * describes the method. */
#ifndef MR_NEWTON_H
#define MR_NEWTON_H

#include "islands.h"
#include "solver.h"
#include "tree_cholesky.h"

/* Zones of a block: no impulse, inside (sticking / active limit / bilateral), sliding. */
enum { MR_ZONE_OFF = 0, MR_ZONE_IN = 1, MR_ZONE_SLIDE = 2 };

typedef struct mr_newton {
  const mr_problem *p;
  const mr_model *m;
  const mr_data *d;
  mr_data *work;    /* the arena */
  int nv, base;
  /* the island being solved: its group in H (-1: rows that move no dof), dofs, rows (all,
   * then the equality and limit rows alone) and contacts */
  int island, group, ndof, nrow, nbase, ncon;
  const int *dof, *row, *brow, *con;
  double *r;        /* nrow: proximal weights */
  double *bias;     /* nrow: g - J v_free */
  double *center;   /* nrow: lambda_c */
  /* nv: z = L^-T A (v - v_free) in the half space of A's factor (newton.c: the judge), at
   * the point and at the line's start, and L^-T A dir; yhat = L^-T J^T lambda and D^-1 yhat,
   * and yhat_answer, yhat of the island's answer (newton.c: mr_newton_finish) */
  double *z, *z0, *zdir, *yhat, *ydinv, *yhat_answer;
  double *dir, *tmp; /* nv */
  double *negF;     /* nv: -F at the point a direction is computed from */
  double *Av, *Av0, *Adir; /* nv: A (v - v_free) at v and at v0, A dir: along a line these
                              are combined, not multiplied again */
  int Av_stale;     /* Av not yet formed at a start point (newton.c: mr_newton_Av_form) */
  double *Jv, *Jdir, *Jv0, *lam, *c, *y; /* nrow */
  double *D;        /* symmetric part of D per block: 1 for the first base rows, 9 per contact */
  double *slip;     /* 2 per contact: mu e of a sliding one */
  unsigned char *zone, *zone_factored, *zone_outer, *zone_side; /* per block */
  int factored;     /* H holds the factor for zone_factored, every block constant there */
  double eps, last_prox;
  double merit;     /* m(v) at the current point */
  double alpha;     /* the last line search's step, */
  int descended;    /* and whether it met the Armijo test */
  mr_tree_chol H;
  /* an island whose every row but a few contacts' moves the dofs of one path from a root
   * (a robot touching only the floor, or with an object lying on it): Newton's matrix
   * keeps the mass matrix's pattern and is factored in its layout, tree by tree
   * (engine/core/tree_ldl.h); the other contacts (cross) join the low-rank terms */
  int chain;
  int articulated;    /* a tree of the island has more dofs than a free body */
  double *Hm, *Hdinv; /* nM, nv */
  /* the D blocks the mass-layout factor holds (as s->D), so that the next factor can be
   * reached by rank-one updates where only a few blocks changed (mr_newton_factor); none
   * while a pivot of the last fresh factor was raised */
  double *Dfact, *wup; /* as s->D; nv, zero between updates */
  int raised;
  unsigned char *cross; /* per contact, with chain: its rows leave one path (a self-contact
                           across branches, or a contact between two trees), so its
                           J^T D J enters by the low-rank solve */
  mr_islands isl;
  int *cols;        /* assembly: a block's columns' row lengths in the mass layout */
  double *W;
  int maxcols;      /* the Woodbury correction: its columns at most, */
  int *qrow, *piv;  /* each column's row of J (Q's column), pivots, */
  double *pcoef;    /* 3 per column: P's column is J^T of these over its contact's rows */
  double *Y, *jac, *rhs; /* Hs^-1 P, I + Q^T Y, and the small solve (with the mass-layout
                            factor Y holds L^-T P and L^-T Q: newton_matrix.c) */
  double *kinks;    /* one per row: step lengths in (0, 1) where a block changes zone */
  int nkink;
  int pgs_first;    /* the warm path's misses go to pgs before any soft restart (newton.c) */
} mr_newton;

static inline double *mr_newton_Dc(const mr_newton *s, int k) { return s->D + s->base + 9 * k; }

/* The island's trees one by one, as dof ranges [lo, hi): *a walks its dof list, which holds
 * whole trees (islands.h). 0 past the last. */
static inline int mr_newton_next_tree(const mr_newton *s, int *a, int *lo, int *hi) {
  if (*a >= s->ndof) return 0;
  int t = s->H.tree_of[s->dof[*a]];
  *lo = s->H.tree_adr[t];
  *hi = s->H.tree_adr[t + 1];
  *a += *hi - *lo;
  return 1;
}

/* The island's blocks: its equality and limit rows, then its contacts. */
static inline int mr_newton_nblock(const mr_newton *s) { return s->nbase + s->ncon; }
static inline int mr_newton_block(const mr_newton *s, int a) {
  return a < s->nbase ? s->brow[a] : s->base + s->con[a - s->nbase];
}

static inline void mr_newton_zones_copy(const mr_newton *s, unsigned char *to, const unsigned char *from) {
  for (int a = 0; a < mr_newton_nblock(s); a++) to[mr_newton_block(s, a)] = from[mr_newton_block(s, a)];
}

static inline int mr_newton_zones_equal(const mr_newton *s, const unsigned char *x, const unsigned char *y) {
  for (int a = 0; a < mr_newton_nblock(s); a++)
    if (x[mr_newton_block(s, a)] != y[mr_newton_block(s, a)]) return 0;
  return 1;
}

/* to = from over the island's dofs (rows: mr_newton_copy_rows). */
static inline void mr_newton_copy_dofs(const mr_newton *s, double *to, const double *from) {
  for (int a = 0; a < s->ndof; a++) to[s->dof[a]] = from[s->dof[a]];
}

static inline void mr_newton_copy_rows(const mr_newton *s, double *to, const double *from) {
  for (int a = 0; a < s->nrow; a++) to[s->row[a]] = from[s->row[a]];
}

/* The Armijo fraction of the predicted decrease a step must reach (newton.c's line search,
 * newton_warm.c's recentred step). */
#define MR_NEWTON_ARMIJO 1e-4

/* newton.c: r per row from the current eps (the factor is stale after); one Newton
 * iteration from the evaluated point (direction, line search, move), returning the
 * residual there (NaN on a failed factorization). */
void mr_newton_regularization(mr_newton *s);
double mr_newton_step(mr_newton *s);

/* newton_point.c: y, impulses and, when D is given, D, slip and zones at Jv; x = L^-T x
 * over the island's trees (A's factor: the half space the point is judged in); the judge
 * of the current point, its merit alone into s->merit (a line search's trial needs no
 * more until accepted), then its c and NCP measures (returned), or both; the island's
 * velocity change dv = A^-1 J^T lambda for its answer's impulses, from s->yhat_answer. */
void mr_newton_project(mr_newton *s, const double *Jv, double *lam, double *D);
void mr_newton_mass_up(const mr_newton *s, double *x);
void mr_newton_merit(mr_newton *s);
double mr_newton_measures(mr_newton *s);
double mr_newton_judge(mr_newton *s);
void mr_newton_velocity_change(const mr_newton *s, double *dv);

/* newton_warm.c: the warm path's first iterations (their count into *iters; NaN: restart
 * soft), whether the warm start meets an impact (the soft restart is then taken at once),
 * and the iteration after a proximal step. */
double mr_newton_warm_path(mr_newton *s, int *iters);
int mr_newton_impact(const mr_newton *s);
double mr_newton_recentred_step(mr_newton *s);

/* newton_matrix.c: the symmetric part of Newton's matrix over the island, assembled and
 * factored (0, -1 on a failed factorization); whether the factor is the current point's;
 * dir = H^-1 dir with the low-rank terms (sliding contacts' friction, contacts across
 * branches of a mass-layout factor). */
int mr_newton_factor(mr_newton *s);
/* s->chain and cross for the island just set (its dofs, rows and contacts). */
void mr_newton_chain_setup(mr_newton *s);
int mr_newton_factor_valid(const mr_newton *s);
void mr_newton_solve(mr_newton *s);

#endif
