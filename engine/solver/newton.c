/* newton: the NCP solved by a Newton method in velocities, with the work growing with the
 * contacts.
 *
 * Unknown: the velocity v at the end of the step. Its impulses are read off per block by
 * the map projected Gauss-Seidel converges to, applied once to all of them:
 *
 *   lambda(v) = P_h(lambda_c - (J v + bias) / r),     F(v) = A (v - v_free) - J^T lambda(v),
 *
 * P_h the projection PGS uses (papers/002 Alg. 5): normal impulse max(0, y_N), friction
 * y_T scaled back into the disk of radius mu lambda_N; limits max(0, y), bilateral rows y.
 * F(v) = 0 with lambda = lambda_c is exactly the NCP (Signorini, Coulomb's cone, maximum
 * dissipation: no De Saxce correction is needed, as for PGS's fixed point). r_i = eps G_ii
 * is a proximal weight, the same for a contact's three rows; lambda_c is its centre, moved
 * to lambda whenever F is small next to that move (an inexact proximal point step), so that
 * r only shapes the path: a soft start (eps = 1, r of G's diagonal: a soft problem is a
 * monotone one) finds which contacts push, stick and slide in a few iterations, and eps
 * drops once they stay.
 * Where Coulomb's law leaves Newton's model good for short steps only (objects tumbling or
 * spinning on the floor), eps rises again.
 * A step whose contacts persist skips the soft start: its warm start is last step's
 * answer, the zones those impulses lie in are the likely zones of this step's, and in
 * fixed zones F is linear, so one Newton step at a small eps from that linearization lands
 * on the answer (mr_newton_guess; a resting robot or stack converges in that one
 * iteration). A contact that turned from sticking to sliding or back, or lifted, is
 * linearized again in its new zone; only when a block enters from the OFF zone (or the
 * warm steps are short) does the solve restart soft, and at once, without the guess, where
 * the warm start's velocities already close a block without impulse fast (an impact:
 * mr_newton_impact). Each later
 * proximal step is followed by the same kind of step, from the zones of the impulses the
 * centre moved to (mr_newton_recentred_step).
 *
 * Newton's matrix dF/dv = A + J^T D J, D = dP_h/dy / r per block, is symmetric but for one
 * rank-one term per sliding contact (friction follows the normal impulse: d lambda_T /
 * d y_N = mu e). Its symmetric part is sparse over the kinematic trees. An island of one
 * tree whose rows each move one path from the root (a robot touching the floor) keeps the
 * mass matrix's own pattern and is factored in its layout with no fill
 * (engine/core/tree_ldl.h; contacts across two branches, a hand on a thigh, are left out
 * of it and added with the rank-one terms, three columns each; from one iteration to the
 * next a robot's factor follows the few blocks whose D changed by rank-one updates
 * instead of a fresh factor, newton_matrix.c), and so is each tree of an
 * island that holds a robot, its contacts between trees (an object lying on the robot)
 * added in the same way; any other island by block
 * Cholesky over trees (tree_cholesky.h): a pile of boxes a block per box with fill only
 * where boxes touch. The low-rank terms are added by the Sherman-Morrison-Woodbury
 * formula (one solve per column, a small dense system; newton_matrix.c). Redundant
 * contact sets (a foot on four points, a box on its face) need no special care: A is
 * positive definite and redundant rows only add to it.
 * The step length comes from a backtracking search on the momentum error
 * m(v) = 1/2 F^T A^-1 F = 1/2 (v - v_lambda)^T A (v - v_lambda), v_lambda = v_free +
 * A^-1 J^T lambda(v), of which Newton's direction is a descent direction when its matrix is
 * the Jacobian on the side of every zone boundary the direction moves into: the search
 * stops at kinks, so a point often sits on one (mr_newton_direction).
 *
 * The problem splits into its islands (islands.h: the groups of trees its rows join), each
 * solved on its own to the tolerance: its own soft start or warm step, line search and
 * stopping test, over its own dofs and rows only. A pile spread over a floor converges
 * where one tumbling object would otherwise hold every resting one at the shared test.
 *
 * Every iterate is judged by the NCP measures of ncp.c with the velocities its impulses
 * produce, c = J v_lambda + bias: the numbers a user sees in the metrics, not a measure of
 * the method's own; the solver stops when the primal, dual and complementarity residuals
 * and the natural map are all at most p->tol (complementarity alone lets a light contact
 * separate: lambda_N = 0.01 and c_N = 1e-6 have a product of 1e-8, a natural map of 1e-6).
 * iters counts the iterations of the island that took most (the islands are independent,
 * as if solved side by side), Newton's and the pgs sweeps it handed the island to (sweeps
 * says how many of them), and the residual is the largest island's; the proximal steps in
 * between are not iterations.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "active_set.h"
#include "dense.h"
#include "engine/core/arena.h"
#include "engine/core/tree_ldl.h"
#include "islands.h"
#include "ncp.h"
#include "newton.h"
#include "solver.h"
#include "tree_cholesky.h"

/* r_i = eps max(G_ii, MR_NEWTON_FLOOR max_j G_jj). eps starts at MR_NEWTON_EPS; once the
 * zones hold from one proximal step to the next it drops tenfold (down to
 * MR_NEWTON_EPS_MIN), and tenfold when the proximal steps contract slowly (redundant,
 * ill-conditioned sets); it rises tenfold after a short Newton step
 * (mr_newton_soften_more). A soft start at r = G_ii weighs each contact's terms as much as
 * its bodies' inertia, where F is monotone and Newton converges from anywhere (softer or
 * stiffer starts cost more Newton work on the same states: the README's design section).
 * A warm start already within the tolerance takes one proximal step at
 * MR_NEWTON_EPS_REST, so that resting impulses keep converging from step to step. From
 * the warm point that step is a projected Jacobi step of length 1 / (eps G_ii): a small
 * eps overshoots where contacts are coupled (a stack's faces) and throws an answer that
 * met the tolerance back out of it, to be solved again; at 0.5 the step is damped and
 * mostly stays within it. A warm start at or below MR_NEWTON_REST_KEEP times the
 * tolerance skips that step and is the answer as it stands (a resting object or stack
 * whose impulses converged further than asked): the step would cost a second evaluation
 * of the island to improve what already stands ten times below the tolerance, and it
 * takes the impulses up again once they drift above that. */
#define MR_NEWTON_EPS 1.0
#define MR_NEWTON_EPS_REST 0.5
#define MR_NEWTON_REST_KEEP 0.1
#define MR_NEWTON_EPS_MIN 1e-8
#define MR_NEWTON_SLOW 0.25
#define MR_NEWTON_FLOOR 1e-9
/* A step on the warm path shorter than this restarts the solve soft (mr_newton_guess). */
#define MR_NEWTON_WARM_STEP 0.5
/* Columns of the low-rank terms added to the factor's solves by Sherman-Morrison-Woodbury
 * (newton_matrix.c), at most: one per sliding contact, three per contact across two
 * branches of a tree factored in the mass layout; beyond them the direction is a
 * quasi-Newton one. */
#define MR_NEWTON_MAX_COLS 48

/* A Newton step shorter than this (or a search that found no decrease) raises eps
 * tenfold, up to MR_NEWTON_EPS_MAX (mr_newton_soften_more). */
#define MR_NEWTON_SHORT_STEP 0.1
#define MR_NEWTON_EPS_MAX 1.0

/* Iterations without a tenfold drop of the best residual, and without a proximal step,
 * after which an island's Newton solve stops and the island goes to pgs
 * (mr_newton_island_pgs): a point where even the softened model gives no descent, which
 * PGS's per-contact projections do not have. Newton starts again from the point pgs
 * reaches in MR_NEWTON_PGS_SWEEPS sweeps: they sort out which contacts push, stick and
 * slide, which is all the warm path needs to land on the answer. */
#define MR_NEWTON_STALL 12
#define MR_NEWTON_STALL_LONG 192
#define MR_NEWTON_PGS_SWEEPS 10

/* pgs first: where the warm path misses (a block enters, an impact, a short step) on an
 * island of at most MR_NEWTON_PGS_FIRST_ROWS rows, the MR_NEWTON_PGS_SWEEPS sweeps come
 * before any soft restart, and Newton's warm path from their point lands where the soft
 * restart took eight to twelve iterations down its eps schedule (README: design). The
 * island's G costs its rows squared times their chains (the half solves, islands.c), so
 * larger islands keep the soft restart. */
#define MR_NEWTON_PGS_FIRST_ROWS 128

/* A heap: an island of more rows than MR_NEWTON_PGS_ROWS (a few hundred objects touching,
 * models/pile72.xml once it lands). pgs on the island's own dual form
 * (mr_newton_island_pgs) takes a dense Delassus matrix of nrow^2, for which the arena is
 * sized up to this many rows; a heap where Newton stops short goes to the stage's pgs
 * (velocity form) instead. A robot on the floor or a stack of boxes has tens of rows; the
 * forty objects in a bin of models/clutter.xml join into one island of about 350. A heap's
 * Newton iteration factors hundreds of bodies with fill, so its runs are bounded where
 * they would be long and likely to fail anyway: a step with an impact (mr_newton_impact:
 * an object landing on the heap, most steps while it falls) gets
 * MR_NEWTON_HEAP_IMPACT_ITERS iterations, and any run stops after
 * MR_NEWTON_HEAP_STALL_LONG iterations without a tenfold gain. Within those it restarts
 * soft as any island does. A heap used to take the warm path only and go to pgs whenever
 * that missed: pgs's unconverged answers became the next step's warm start, and a heap
 * with an object still rolling in it never met the tolerance again (README: design). */
#define MR_NEWTON_PGS_ROWS 400
#define MR_NEWTON_HEAP_IMPACT_ITERS 12
#define MR_NEWTON_HEAP_STALL_LONG 48

/* Backtracking: trial steps at most (the Armijo fraction: newton.h). */
#define MR_NEWTON_LS_TRIES 24

/* Directions computed again with the zones they move into, at most, and how far along
 * the direction (a fraction of the full step) those zones are read (mr_newton_direction). */
#define MR_NEWTON_SIDES 2
#define MR_NEWTON_HAIR 1e-6

/* ------------------------------------------------------------------ products */

/* y = A x over the island's dofs, with A = qM off the diagonal and Adiag on it. */
static void mr_newton_Amul(const mr_newton *s, const double *x, double *y) {
  const mr_model *m = s->m;
  const double *qM = s->d->qM;
  for (int a = 0; a < s->ndof; a++) y[s->dof[a]] = s->p->Adiag[s->dof[a]] * x[s->dof[a]];
  for (int a = 0; a < s->ndof; a++) {
    /* y[i] in a register while its ancestors' entries are updated: nothing else adds to
     * it until the dofs below it come (later in this loop) */
    int i = s->dof[a];
    double yi = y[i];
    const double xi = x[i];
    for (int adr = m->dof_Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++) {
      int j = m->M_colind[adr];
      yi += qM[adr] * x[j];
      y[j] += qM[adr] * xi;
    }
    y[i] = yi;
  }
}

/* A contact's three rows share one column list and lie one after the other in J
 * (mr_contact_rows_fill): the products below read each column once for all three, each
 * row's terms still summed in its own order, so the results are those of row-by-row
 * loops. */

static void mr_newton_Jmul(const mr_newton *s, const double *x, double *y) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->nbase; a++) y[s->brow[a]] = mr_problem_row_dot(p, s->brow[a], x);
  for (int a = 0; a < s->ncon; a++) {
    const int i = s->base + 3 * s->con[a], t0 = p->nzadr[i], len = p->nzadr[i + 1] - t0;
    const double *J = p->J + t0;
    const int *col = p->nzind + t0;
    double y0 = 0, y1 = 0, y2 = 0;
    for (int c = 0; c < len; c++) {
      double xc = x[col[c]];
      y0 += J[c] * xc;
      y1 += J[len + c] * xc;
      y2 += J[2 * len + c] * xc;
    }
    y[i] = y0;
    y[i + 1] = y1;
    y[i + 2] = y2;
  }
}

static void mr_newton_JTmul(const mr_newton *s, const double *lam, double *y) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->ndof; a++) y[s->dof[a]] = 0;
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    double l = lam[i];
    if (l == 0) continue;
    for (int t = p->nzadr[i]; t < p->nzadr[i + 1]; t++) y[p->nzind[t]] += l * p->J[t];
  }
  for (int a = 0; a < s->ncon; a++) {
    const int i = s->base + 3 * s->con[a], t0 = p->nzadr[i], len = p->nzadr[i + 1] - t0;
    const double l0 = lam[i], l1 = lam[i + 1], l2 = lam[i + 2], *J = p->J + t0;
    const int *col = p->nzind + t0;
    if (l0 == 0 && l1 == 0 && l2 == 0) continue;
    for (int c = 0; c < len; c++) { /* a zero impulse's row adds nothing, as when skipped */
      double yc = y[col[c]];
      if (l0 != 0) yc += l0 * J[c];
      if (l1 != 0) yc += l1 * J[len + c];
      if (l2 != 0) yc += l2 * J[2 * len + c];
      y[col[c]] = yc;
    }
  }
}

/* ------------------------------------------------------------------ setup */

/* r per row from G's diagonal (a contact's three rows share the mean of theirs) at the
 * current eps; the factor is stale afterwards. */
void mr_newton_regularization(mr_newton *s) {
  const mr_problem *p = s->p;
  double wmax = 0;
  for (int a = 0; a < s->nrow; a++) wmax = mr_maxd(wmax, p->Gdiag[s->row[a]]);
  double floor = MR_NEWTON_FLOOR * wmax + 1e-300;
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    s->r[i] = s->eps * mr_maxd(p->Gdiag[i], floor);
  }
  for (int a = 0; a < s->ncon; a++) {
    int i = s->base + 3 * s->con[a];
    double w = (p->Gdiag[i] + p->Gdiag[i + 1] + p->Gdiag[i + 2]) / 3;
    s->r[i] = s->r[i + 1] = s->r[i + 2] = s->eps * mr_maxd(w, floor);
  }
  s->factored = 0;
}

/* Rows that join two trees join them in H's pattern too. */
static void mr_newton_join(mr_newton *s) {
  const mr_problem *p = s->p;
  for (int i = 0; i < p->nrow; i++) {
    int a = p->nzadr[i], b = p->nzadr[i + 1];
    if (b > a) mr_tree_chol_join(&s->H, p->nzind[a], p->nzind[b - 1]);
  }
}

/* Columns a block's rows span at most (W is that squared). */
static size_t mr_newton_block_cols(size_t maxrow, size_t nv) { return 3 * maxrow < nv ? 3 * maxrow : nv; }

static size_t mr_newton_max_cols(size_t ncon) { return 3 * ncon < MR_NEWTON_MAX_COLS ? 3 * ncon : MR_NEWTON_MAX_COLS; }

size_t mr_newton_scratch_bytes(const mr_model *m, size_t nrow, size_t maxrow) {
  size_t nv = (size_t)m->nv, mc = mr_newton_block_cols(maxrow, nv) + 1;
  size_t ms = mr_newton_max_cols(nrow / 3), ncon = nrow / 3 + 1;
  size_t doubles = 12 * (nv + 1) + 9 * (nrow + 1) + 9 * ncon + 2 * ncon + mc * mc +
                   ms * (nv + ms + 4) + 2 * (nrow + 1) + 4 + (size_t)m->nM + nv + 2 + ncon;
  doubles += nrow + 9 * ncon + nv + 1; /* the factor's D and the update's vector */
  /* the warm start's copy and the islands' results (16 bytes each, one island per tree at
   * most) */
  doubles += 2 * (nrow + 1) + 2 * (nv + 2);
  /* an island handed to pgs: its dense problem and pgs's refinement */
  size_t ni = nrow < MR_NEWTON_PGS_ROWS ? nrow : MR_NEWTON_PGS_ROWS;
  doubles += ni * ni + 7 * ni + 2 * nv + mr_active_set_scratch(ni, nv) + 16;
  return doubles * sizeof(double) + (mc + 2 * ms + 2) * sizeof(int) + 4 * (nrow + 1) +
         mr_tree_chol_bytes(m) + mr_islands_bytes(nv, nrow) + 40 * MR_ALIGN;
}

static int mr_newton_alloc(mr_newton *s, const mr_problem *p, mr_data *work) {
  const size_t nv = (size_t)p->nv, n = (size_t)p->nrow;
  const size_t nb = (size_t)(p->neq + p->nlim + p->ncon);
  int maxcols = 0;
  for (int i = 0; i < p->nrow; i++)
    if (p->nzadr[i + 1] - p->nzadr[i] > maxcols) maxcols = p->nzadr[i + 1] - p->nzadr[i];
  size_t mc = mr_newton_block_cols((size_t)maxcols, nv) + 1, ncon = (size_t)p->ncon + 1;
  *s = (mr_newton){.p = p, .m = p->m, .d = p->d, .work = work, .nv = p->nv, .base = p->neq + p->nlim};
  double **vecs_nv[] = {&s->z,    &s->dir, &s->yhat, &s->tmp,  &s->z0,    &s->zdir,
                        &s->Av,   &s->Av0, &s->Adir, &s->negF, &s->ydinv, &s->yhat_answer};
  double **vecs_n[] = {&s->r, &s->bias, &s->center, &s->Jv, &s->Jdir, &s->Jv0, &s->lam, &s->c, &s->y};
  for (size_t a = 0; a < sizeof vecs_nv / sizeof *vecs_nv; a++)
    if (!(*vecs_nv[a] = mr_arena_doubles(work, nv + 1))) return -1;
  for (size_t a = 0; a < sizeof vecs_n / sizeof *vecs_n; a++)
    if (!(*vecs_n[a] = mr_arena_doubles(work, n + 1))) return -1;
  s->D = mr_arena_doubles(work, (size_t)s->base + 9 * ncon);
  s->slip = mr_arena_doubles(work, 2 * ncon);
  s->zone = mr_arena_alloc(work, nb + 1);
  s->zone_factored = mr_arena_alloc(work, nb + 1);
  s->zone_outer = mr_arena_alloc(work, nb + 1);
  s->zone_side = mr_arena_alloc(work, nb + 1);
  s->cols = mr_arena_ints(work, mc);
  s->W = mr_arena_doubles(work, mc * mc);
  s->maxcols = (int)mr_newton_max_cols((size_t)p->ncon);
  size_t ms = (size_t)s->maxcols;
  s->qrow = mr_arena_ints(work, ms + 1);
  s->pcoef = mr_arena_doubles(work, 3 * ms + 1);
  s->cross = mr_arena_alloc(work, ncon);
  s->piv = mr_arena_ints(work, ms + 1);
  s->Y = mr_arena_doubles(work, ms * nv + 1);
  s->jac = mr_arena_doubles(work, ms * ms + 1);
  s->rhs = mr_arena_doubles(work, ms + 1);
  /* a limit's zero is one kink, a contact's normal zero and two rim crossings three: one
   * per row */
  s->kinks = mr_arena_doubles(work, n + 1);
  s->Hm = mr_arena_doubles(work, (size_t)p->m->nM + 1);
  s->Hdinv = mr_arena_doubles(work, nv + 1);
  s->Dfact = mr_arena_doubles(work, (size_t)s->base + 9 * ncon);
  s->wup = mr_arena_doubles(work, nv + 1);
  if (s->wup) memset(s->wup, 0, (nv + 1) * sizeof(double));
  if (!s->kinks || !s->Hm || !s->Hdinv || !s->Dfact || !s->wup || !s->D || !s->slip || !s->zone ||
      !s->zone_factored || !s->zone_outer || !s->zone_side || !s->cols || !s->W || !s->qrow ||
      !s->pcoef || !s->cross || !s->piv || !s->Y || !s->jac || !s->rhs)
    return -1;
  if (mr_tree_chol_init(&s->H, p->m, work)) return -1;
  mr_newton_join(s);
  if (mr_tree_chol_analyze(&s->H, work)) return -1;
  return mr_islands_build(&s->isl, p, &s->H, work);
}

/* The solver's view to island i. */
static void mr_newton_island(mr_newton *s, int i) {
  const mr_islands *isl = &s->isl;
  s->island = i;
  s->group = isl->group[i];
  s->dof = isl->dof + isl->dofadr[i];
  s->ndof = isl->dofadr[i + 1] - isl->dofadr[i];
  s->row = isl->row + isl->rowadr[i];
  s->nrow = isl->rowadr[i + 1] - isl->rowadr[i];
  s->brow = isl->base + isl->baseadr[i];
  s->nbase = isl->baseadr[i + 1] - isl->baseadr[i];
  s->con = isl->con + isl->conadr[i];
  s->ncon = isl->conadr[i + 1] - isl->conadr[i];
  s->factored = 0;
  s->last_prox = 0;
  mr_newton_chain_setup(s);
}

/* ------------------------------------------------------------------ iteration */

/* The velocity error of the current point's rows (how far it is from F = 0) and what
 * moving the centre would change (*prox): the proximal step is due when the first is no
 * more than MR_NEWTON_INEXACT times the second. An inexact proximal method: the centre
 * moves as soon as the point has settled to the scale of the move, not once F is nearly
 * zero: solving each proximal problem far below that scale costs a Newton step per
 * proximal step that changes the impulses by a fraction of what the next move does.
 * Larger values save a few percent of Newton's iterations on the same states, and at 10
 * or more let eps fall and rise in a cycle on a heap until the cap (the README's design
 * section, solver constants judged on the same problems). */
#define MR_NEWTON_INEXACT 3.0

static int mr_newton_outer_due(const mr_newton *s, double *prox) {
  double inner = 0;
  *prox = 0;
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    inner = mr_maxd(inner, fabs(s->Jv[i] + s->bias[i] - s->c[i]));
    *prox = mr_maxd(*prox, fabs(s->r[i] * (s->lam[i] - s->center[i])));
  }
  return inner <= MR_NEWTON_INEXACT * *prox || inner <= 0.1 * s->p->tol;
}

/* Whether eps may fall tenfold here: the point's velocity error over r is the impulse
 * change it would ask of each row, and a tenfold smaller r asks ten times as much. Where
 * that would move an impulse by more than MR_NEWTON_DROP_SWING of the island's largest,
 * the drop would throw the point far from its zones, and on a heap whose residual has
 * flattened the next steps raise eps again: eps cycles between the extremes until the cap
 * (the README's design section). eps stays until the point has settled further. */
#define MR_NEWTON_DROP_SWING 0.1

static int mr_newton_drop_calm(const mr_newton *s) {
  double swing = 0, largest = 0;
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    swing = mr_maxd(swing, fabs(s->Jv[i] + s->bias[i] - s->c[i]) / s->r[i]);
    largest = mr_maxd(largest, fabs(s->lam[i]));
  }
  return 10 * swing <= MR_NEWTON_DROP_SWING * largest;
}

/* A start point's A (v - v_free) = J^T lambda_c, its centre's impulses, formed when first
 * needed (a Newton step, or a proximal step about to move the centre): a warm start kept
 * as it stands, most islands of a resting scene, never needs it. */
static void mr_newton_Av_form(mr_newton *s) {
  if (!s->Av_stale) return;
  mr_newton_JTmul(s, s->center, s->Av);
  s->Av_stale = 0;
}

/* The centre to the current impulses; eps down tenfold once the zones hold from one
 * proximal step to the next (Newton no longer needs as much softness to find them), or
 * when the proximal steps contract slowly. Tenfold, not more: the point's velocity error,
 * divided by a much smaller r, would turn the zones over, and Newton would walk them back
 * one by one. */
static void mr_newton_outer(mr_newton *s, double prox) {
  mr_newton_Av_form(s);
  int settled = s->last_prox > 0 && mr_newton_zones_equal(s, s->zone, s->zone_outer);
  int slow = s->last_prox > 0 && prox > MR_NEWTON_SLOW * s->last_prox;
  s->last_prox = prox;
  mr_newton_zones_copy(s, s->zone_outer, s->zone);
  if ((settled || slow) && s->eps > MR_NEWTON_EPS_MIN && mr_newton_drop_calm(s)) {
    s->eps = mr_maxd(0.1 * s->eps, MR_NEWTON_EPS_MIN);
    mr_newton_regularization(s);
  }
  mr_newton_copy_rows(s, s->center, s->lam);
  mr_newton_project(s, s->Jv, s->lam, s->D);
}

/* z0 + alpha dir: impulses, then the merit. */
static void mr_newton_try(mr_newton *s, double alpha) {
  for (int a = 0; a < s->ndof; a++) {
    int i = s->dof[a];
    s->z[i] = s->z0[i] + alpha * s->zdir[i];
    s->Av[i] = s->Av0[i] + alpha * s->Adir[i];
  }
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    s->Jv[i] = s->Jv0[i] + alpha * s->Jdir[i];
  }
  mr_newton_project(s, s->Jv, s->lam, NULL);
  mr_newton_merit(s);
}

/* Step lengths in (0, 1) where y(alpha) = y0 + alpha dy, dy = -J dir / r, crosses a zone
 * boundary: a limit's or a normal's zero, a contact's rim |y_T| = mu y_N (a quadratic in
 * alpha), into s->kinks, descending. */
static int mr_newton_kink_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

static void mr_newton_kink(mr_newton *s, double alpha) {
  if (alpha > 0 && alpha < 1) s->kinks[s->nkink++] = alpha;
}

/* y at the line's start, from Jv0 (s->y holds the last trial's) */
static double mr_newton_y0(const mr_newton *s, int i) {
  return s->center[i] - (s->Jv0[i] + s->bias[i]) / s->r[i];
}

static void mr_newton_kinks(mr_newton *s) {
  const mr_problem *p = s->p;
  s->nkink = 0;
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    double dy = -s->Jdir[i] / s->r[i];
    if (i >= p->neq && dy != 0) mr_newton_kink(s, -mr_newton_y0(s, i) / dy);
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a], i = s->base + 3 * k;
    double y[3], dy[3], mu = p->mu[k];
    for (int b = 0; b < 3; b++) {
      y[b] = mr_newton_y0(s, i + b);
      dy[b] = -s->Jdir[i + b] / s->r[i];
    }
    if (dy[0] != 0) mr_newton_kink(s, -y[0] / dy[0]);
    double qa = dy[1] * dy[1] + dy[2] * dy[2] - mu * mu * dy[0] * dy[0];
    double qb = 2 * (y[1] * dy[1] + y[2] * dy[2] - mu * mu * y[0] * dy[0]);
    double qc = y[1] * y[1] + y[2] * y[2] - mu * mu * y[0] * y[0], disc = qb * qb - 4 * qa * qc;
    if (qa == 0 || disc < 0) continue;
    for (int sign = -1; sign <= 1; sign += 2) {
      double t = (-qb + sign * sqrt(disc)) / (2 * qa);
      if (y[0] + t * dy[0] > 0) mr_newton_kink(s, t);
    }
  }
  qsort(s->kinks, (size_t)s->nkink, sizeof(double), mr_newton_kink_desc);
}

/* The next trial step after alpha failed: the largest kink in [alpha / 2, alpha) if any,
 * else alpha / 2. Along the line the merit is smooth between kinks; a sliding contact that
 * Newton's model sends through its stick zone (its slip reversed at full friction) wants
 * the step that ends at its rim, where halving alone would take a dozen iterations to
 * shed its slip. */
static double mr_newton_next_trial(const mr_newton *s, double alpha, int *at) {
  while (*at < s->nkink && s->kinks[*at] >= alpha) (*at)++;
  if (*at < s->nkink && s->kinks[*at] >= 0.5 * alpha) return s->kinks[(*at)++];
  return 0.5 * alpha;
}

/* dir = H^-1 (-F) and J dir, with H the Jacobian of the zones the direction moves into.
 * A point the line search left on a zone boundary (it stops at kinks: a contact on its
 * friction rim, a normal impulse at zero) has one Jacobian per side, and round-off picks
 * one. When the direction leaves into the other side, the model is wrong from the first
 * step on: the merit rises along it, the next search stops at the same kink, and Newton
 * cycles between the two sides until the stall test hands the island to pgs. So the zones
 * are read again a hair along the direction, and where any differs the direction is
 * computed again with that side's Jacobian (MR_NEWTON_SIDES times at most). A linearized
 * point (mr_newton_linearize_centre: D from the centre's zones, its merit infinite) keeps
 * the zones it was given. Returns -1 on a failed factorization. */
static int mr_newton_direction(mr_newton *s) {
  for (int pass = 0;; pass++) {
    mr_newton_copy_dofs(s, s->dir, s->negF);
    mr_newton_solve(s);
    mr_newton_Jmul(s, s->dir, s->Jdir);
    if (pass == MR_NEWTON_SIDES || s->merit == INFINITY) return 0;
    for (int a = 0; a < s->nrow; a++) { /* Jv0 is scratch until the line search sets it */
      int i = s->row[a];
      s->Jv0[i] = s->Jv[i] + MR_NEWTON_HAIR * s->Jdir[i];
    }
    mr_newton_zones_copy(s, s->zone_side, s->zone);
    mr_newton_project(s, s->Jv0, s->lam, s->D);
    if (mr_newton_zones_equal(s, s->zone, s->zone_side)) return 0;
    if (mr_newton_factor(s)) return -1;
  }
}

/* One Newton iteration from the evaluated point: direction, a backtracking search on the
 * merit through the kinks, move, and D and zones at the new point. Returns the residual
 * there (NaN on a failed factorization). */
double mr_newton_step(mr_newton *s) {
  if (!mr_newton_factor_valid(s) && mr_newton_factor(s)) return NAN;
  mr_newton_Av_form(s);
  /* -F = J^T lambda - A (v - v_free) */
  mr_newton_JTmul(s, s->lam, s->tmp);
  for (int a = 0; a < s->ndof; a++) s->negF[s->dof[a]] = s->tmp[s->dof[a]] - s->Av[s->dof[a]];
  if (mr_newton_direction(s)) return NAN;
  mr_newton_Amul(s, s->dir, s->Adir);
  mr_newton_copy_dofs(s, s->zdir, s->Adir);
  mr_newton_mass_up(s, s->zdir);
  mr_newton_copy_dofs(s, s->z0, s->z);
  mr_newton_copy_dofs(s, s->Av0, s->Av);
  mr_newton_copy_rows(s, s->Jv0, s->Jv);
  double m0 = s->merit, alpha = 1;
  s->descended = 0;
  for (int t = 0, at = 0; t < MR_NEWTON_LS_TRIES; t++, alpha = mr_newton_next_trial(s, alpha, &at)) {
    mr_newton_try(s, alpha);
    if ((s->descended = s->merit <= (1 - 2 * MR_NEWTON_ARMIJO * alpha) * m0)) break;
    if (t == 0) mr_newton_kinks(s); /* needed only once the full step failed */
  }
  s->alpha = alpha;
  double res = mr_newton_measures(s);
  mr_newton_project(s, s->Jv, s->lam, s->D);
  return res;
}

/* After a short step: eps up tenfold, the point kept, its impulses, D and merit read again
 * at the new r. Coulomb's law makes F nonmonotone: its Jacobian's nonsymmetric part, the
 * sliding contacts' friction following their normal impulse, and the kinks where a contact
 * lifts or reaches its rim, can leave Newton's direction a descent direction for tiny
 * steps only (objects spinning or tumbling on the floor, where friction turns within the
 * step), or for none at all: two contacts each at y_N = 0 whose Newton direction on either
 * side leaves into the other. A larger r shrinks the contact terms J^T D J next to A, and
 * once they are small F is strongly monotone and Newton converges from anywhere; the
 * proximal steps then carry the centre to the answer, and eps drops again as the zones
 * hold (mr_newton_outer). MR_NEWTON_EPS_MAX is r of the order of G's diagonal, where a
 * contact's terms weigh as much as its bodies' inertia. */
static double mr_newton_soften_more(mr_newton *s, double res) {
  if (!isfinite(res) || s->eps >= MR_NEWTON_EPS_MAX ||
      (s->descended && s->alpha >= MR_NEWTON_SHORT_STEP))
    return res;
  s->eps = fmin(10 * s->eps, MR_NEWTON_EPS_MAX);
  mr_newton_regularization(s);
  mr_newton_project(s, s->Jv, s->lam, s->D);
  s->last_prox = 0; /* the next proximal step is the first at this eps */
  return mr_newton_judge(s);
}

/* The warm impulses of the island's rows, limits and normal impulses >= 0 and friction
 * scaled into its disk (mr_project_bounds, block by block). */
static void mr_newton_warm_impulses(mr_newton *s, const double *lambda) {
  const mr_problem *p = s->p;
  mr_newton_copy_rows(s, s->lam, lambda);
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    if (i >= p->neq) s->lam[i] = mr_maxd(s->lam[i], 0);
  }
  for (int a = 0; a < s->ncon; a++)
    mr_project_contact_bounds(s->lam + s->base + 3 * s->con[a], p->mu[s->con[a]]);
}

/* The warm-start impulses and the velocities they produce, v = v_free + A^-1 J^T lambda,
 * the centre there. Returns the impulses' residual (the warm start's, judged as every
 * iterate): a step at rest whose warm start already meets the tolerance ends here. */
static double mr_newton_start_point(mr_newton *s, const double *lambda) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    s->bias[i] = p->g[i] - mr_problem_row_dot(p, i, p->v_free);
  }
  mr_newton_warm_impulses(s, lambda);
  /* v = v_lambda: A (v - v_free) = J^T lambda, z = yhat, J v = c - bias */
  mr_newton_merit(s);
  mr_newton_copy_dofs(s, s->z, s->yhat);
  s->merit = 0;
  double res = mr_newton_measures(s);
  s->Av_stale = 1; /* J^T lambda (mr_newton_Av_form) */
  for (int a = 0; a < s->nrow; a++) s->Jv[s->row[a]] = s->c[s->row[a]] - s->bias[s->row[a]];
  mr_newton_copy_rows(s, s->center, s->lam);
  return res;
}

/* The soft start at the warm point: eps as given, the impulses projected there. Returns
 * their residual. */
static double mr_newton_soften(mr_newton *s, double eps) {
  s->eps = eps;
  mr_newton_regularization(s);
  mr_newton_project(s, s->Jv, s->lam, s->D);
  mr_newton_zones_copy(s, s->zone_outer, s->zone);
  return mr_newton_judge(s);
}

/* The soft start from the warm-start impulses (the restart when the warm path fails). */
static double mr_newton_start(mr_newton *s, const double *lambda) {
  mr_newton_start_point(s, lambda);
  return mr_newton_soften(s, MR_NEWTON_EPS);
}

/* The island's current point into out (its best so far), and its yhat for the velocity
 * change: every point handed here was judged last (a line search ends on its accepted
 * trial, every other point on mr_newton_judge), so s->yhat is that of s->lam. */
static void mr_newton_finish(mr_newton *s, mr_solver_out *out) {
  mr_newton_copy_rows(s, out->lambda, s->lam);
  mr_newton_copy_rows(s, out->c, s->c);
  mr_newton_copy_dofs(s, s->yhat_answer, s->yhat);
}

/* How one island's solve ended. */
typedef struct mr_newton_result {
  int iters, sweeps, status; /* sweeps: of iters, pgs's */
  double residual;
  int pgs_done; /* the island went through pgs (mr_newton_island_pgs) */
} mr_newton_result;

/* The island's residual after iteration `iter` (1-based) into the history, which holds the
 * largest over the islands solved so far (*filled entries of it are set). */
static void mr_newton_history(mr_solver_out *out, int iter, double res, int *filled) {
  int cap = out->history_cap > 0 ? out->history_cap : iter;
  if (!out->history || iter < 1 || iter > cap) return;
  double *h = out->history + iter - 1;
  *h = iter > *filled ? res : mr_maxd(*h, res);
  if (iter > *filled) *filled = iter;
}

/* An island Newton could not finish, to pgs in its own dual form (mr_island_dual), from the
 * warm start. A stall is a point where Newton's matrix, nonsymmetric through the sliding
 * contacts' friction, leaves no descent for the merit while F is not zero: objects spinning
 * or rolling on the floor, whose friction turns direction within the step. Projected
 * Gauss-Seidel has no such points, and on an island of a few rows its sweeps cost little.
 * Its answer is judged as Newton's iterates are and kept when better; s->lam is left at
 * its last point. At most `budget` sweeps, and no more than the cap leaves; a budget of
 * MR_NEWTON_PGS_SWEEPS or fewer, a start for Newton, sweeps only (pgs's active-set
 * refinement would take the Newton rounds the warm path from its point does better).
 * Returns -1 on arena exhaustion. */
static int mr_newton_island_pgs(mr_newton *s, const double *warm, mr_solver_out *out,
                                mr_newton_result *r, int budget) {
  mr_data *work = s->work;
  size_t mark = mr_arena_mark(work);
  mr_problem q;
  double *lam = mr_arena_doubles(work, (size_t)s->nrow + 1), *c = mr_arena_doubles(work, (size_t)s->nrow + 1);
  if (!lam || !c || mr_island_dual(&s->isl, s->island, s->p, &q, work)) {
    mr_arena_restore(work, mark);
    return -1;
  }
  for (int a = 0; a < s->nrow; a++) lam[a] = warm[s->row[a]];
  q.pgs_plain = budget <= MR_NEWTON_PGS_SWEEPS;
  const mr_solver_info *pgs = mr_solver_get(mr_solver_find("pgs"));
  double res = INFINITY;
  /* pgs stops on its own measure, which leaves out the natural map: while that is what
   * stands above the tolerance, it goes on from where it stopped, to a tenth of where its
   * own measure ended */
  const int cap = budget < s->p->max_iter - r->iters ? r->iters + budget : s->p->max_iter;
  for (int round = 0; round < 3 && r->iters < cap; round++) {
    q.max_iter = cap - r->iters;
    mr_solver_out o = {.lambda = lam, .c = c};
    pgs->solve(&q, &o, work);
    q.tol = 0.1 * o.residual;
    r->iters += o.iters;
    r->sweeps += o.iters;
    for (int a = 0; a < s->nrow; a++) s->lam[s->row[a]] = lam[a];
    res = mr_newton_judge(s);
    if (res <= s->p->tol || o.status != MR_SOLVER_CONVERGED) break;
  }
  if (res < r->residual) {
    r->residual = res;
    r->status = res <= s->p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
    mr_newton_finish(s, out);
  }
  mr_arena_restore(work, mark);
  return 0;
}

/* A heap: an island too large for pgs on its own, whose Newton runs are bounded
 * (MR_NEWTON_PGS_ROWS). */
static int mr_newton_heap(const mr_newton *s) { return s->nrow > MR_NEWTON_PGS_ROWS; }

/* Newton's iterations on the current island from the impulses `from` (the warm start, or
 * pgs's point), counted on from r->iters, until the tolerance, the cap or a stall; its best
 * point into out and r. A soft restart starts from the impulses `soft`. Returns the
 * residual of `from` itself. */
static double mr_newton_run(mr_newton *s, const double *from, const double *soft,
                            mr_solver_out *out, mr_newton_result *r, int *filled) {
  const mr_problem *p = s->p;
  const int first = r->iters; /* the stall test's windows count from here */
  /* a start within the tolerance but above MR_NEWTON_REST_KEEP of it is projected once
   * more at MR_NEWTON_EPS_REST: a proximal step, so that the impulses of a body at rest
   * keep converging from step to step instead of staying wherever they first met the
   * tolerance */
  double res = mr_newton_start_point(s, from), checkpoint = INFINITY, long_checkpoint = INFINITY;
  if (res <= p->tol && res > MR_NEWTON_REST_KEEP * p->tol)
    res = mr_newton_soften(s, MR_NEWTON_EPS_REST);
  double res_from = res;
  int warm_path = 0; /* on the warm step's small eps, no soft restart yet */
  int proximal = 0;  /* a proximal step since the last stall check */
  int impact = 0;    /* an impact (mr_newton_impact) goes to the soft restart at once */
  if (res > p->tol && r->iters < p->max_iter) {
    impact = mr_newton_impact(s);
    double guess = impact ? NAN : mr_newton_warm_path(s, &r->iters);
    warm_path = !isnan(guess);
    if (!warm_path && s->pgs_first) return res_from; /* pgs first: mr_newton_solve_island */
    res = warm_path ? guess : mr_newton_start(s, soft);
  }
  const int stall_long = mr_newton_heap(s) ? MR_NEWTON_HEAP_STALL_LONG : MR_NEWTON_STALL_LONG;
  for (;;) {
    mr_newton_history(out, r->iters, res, filled);
    if (!isfinite(res)) {
      if (r->residual == INFINITY) r->status = MR_SOLVER_FAILED;
      break;
    }
    if (res < r->residual) {
      r->residual = res;
      mr_newton_finish(s, out);
    }
    if (res <= p->tol) {
      r->status = MR_SOLVER_CONVERGED;
      break;
    }
    if (r->iters >= p->max_iter) break;
    if (impact && mr_newton_heap(s) && r->iters - first >= MR_NEWTON_HEAP_IMPACT_ITERS) break;
    /* stalled: MR_NEWTON_STALL iterations without a tenfold gain. A window with a
     * proximal step is progress whatever the residual did: the residual is judged at the
     * answer's impulses, which a soft problem's point nears only as its centre moves. But
     * not for ever: MR_NEWTON_STALL_LONG iterations without a tenfold gain (a heap's
     * MR_NEWTON_HEAP_STALL_LONG) is a stall whatever happened in them (proximal steps and
     * short Newton steps taking turns at one residual, a contact's friction turning). */
    if ((r->iters - first) % MR_NEWTON_STALL == 0) {
      if (r->iters > first && r->residual > 0.1 * checkpoint && !proximal) break;
      checkpoint = r->residual;
      proximal = 0;
    }
    if ((r->iters - first) % stall_long == 0) {
      if (r->iters > first && r->residual > 0.1 * long_checkpoint) break;
      long_checkpoint = r->residual;
    }
    double prox;
    if (warm_path && s->alpha < MR_NEWTON_WARM_STEP) {
      if (s->pgs_first) break;
      warm_path = 0; /* see mr_newton_guess */
      res = mr_newton_start(s, soft);
      continue;
    }
    if (mr_newton_outer_due(s, &prox)) {
      mr_newton_outer(s, prox);
      mr_newton_merit(s); /* the step's reference; its own measures replace this point's */
      res = mr_newton_recentred_step(s);
      proximal = 1;
    } else {
      res = mr_newton_soften_more(s, mr_newton_step(s));
    }
    r->iters++;
  }
  return res_from;
}

/* Solves the current island to the tolerance from the warm start, its best point into out
 * (or the warm start, when that is better). Where Newton stops short, or its warm path
 * misses on an island of pgs first (MR_NEWTON_PGS_FIRST_ROWS), pgs takes
 * MR_NEWTON_PGS_SWEEPS sweeps from the warm start and Newton starts again from its point,
 * linearized in that point's zones as from a warm start (restarting soft if that misses
 * too); what is left of the cap then goes to pgs, at most p->pgs_max_iter sweeps. */
static mr_newton_result mr_newton_solve_island(mr_newton *s, const double *warm, double *restart,
                                               mr_solver_out *out, int *filled) {
  const mr_problem *p = s->p;
  mr_newton_result r = {0, 0, MR_SOLVER_MAX_ITER, INFINITY, 0};
  const int island_pgs = !mr_newton_heap(s);
  s->pgs_first = island_pgs && s->nrow <= MR_NEWTON_PGS_FIRST_ROWS;
  const int pgs_first = s->pgs_first;
  double res_warm = mr_newton_run(s, warm, warm, out, &r, filled);
  s->pgs_first = 0;
  if (island_pgs && r.status == MR_SOLVER_MAX_ITER && r.iters < p->max_iter) {
    if (mr_newton_island_pgs(s, warm, out, &r, MR_NEWTON_PGS_SWEEPS) < 0) r.status = MR_SOLVER_FAILED;
    else if (r.status == MR_SOLVER_MAX_ITER && r.iters < p->max_iter) {
      mr_newton_copy_rows(s, restart, s->lam);
      /* after pgs first, a soft restart is the one the warm start would have had; where that
       * stops short too, the soft restart from pgs's point follows, as after any stall */
      mr_newton_run(s, restart, pgs_first ? warm : restart, out, &r, filled);
      if (pgs_first && r.status == MR_SOLVER_MAX_ITER && r.iters < p->max_iter)
        mr_newton_run(s, restart, restart, out, &r, filled);
    }
  }
  if (island_pgs && r.status != MR_SOLVER_CONVERGED && r.iters < p->max_iter) {
    int sweeps = p->pgs_max_iter > 0 ? p->pgs_max_iter : p->max_iter;
    if (mr_newton_island_pgs(s, warm, out, &r, sweeps) < 0) r.status = MR_SOLVER_FAILED;
    else r.pgs_done = 1;
  }
  mr_newton_history(out, r.iters, r.residual, filled);
  /* stopped short: pgs takes the step from here, and from the warm start where Newton
   * left an island worse than it found it */
  if (r.status != MR_SOLVER_CONVERGED && !(r.residual <= res_warm)) {
    r.residual = mr_newton_start_point(s, warm);
    mr_newton_finish(s, out);
  }
  return r;
}

/* Islands that finished in fewer iterations than the step's count keep their final
 * residual in the history's later entries. */
static void mr_newton_history_tail(mr_solver_out *out, const mr_newton_result *res, int n, int filled) {
  if (!out->history) return;
  for (int i = 0; i < n; i++)
    for (int it = res[i].iters + 1; it <= filled; it++)
      out->history[it - 1] = mr_maxd(out->history[it - 1], res[i].residual);
}

void mr_solve_newton(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = out->sweeps = 0;
  if (!p->J || !p->m || !p->d || !p->Adiag || !p->Gdiag || !p->v_free || !p->Y) {
    mr_solver_fail(p, out);
    return;
  }
  size_t mark = mr_arena_mark(work);
  mr_newton s;
  mr_newton_result *res = NULL;
  double *warm = NULL, *restart = NULL;
  if (mr_newton_alloc(&s, p, work) ||
      !(res = mr_arena_alloc(work, ((size_t)s.isl.n + 1) * sizeof *res)) ||
      !(warm = mr_arena_doubles(work, (size_t)p->nrow + 1)) ||
      !(restart = mr_arena_doubles(work, (size_t)p->nrow + 1))) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  memcpy(warm, out->lambda, (size_t)p->nrow * sizeof(double));
  if (out->dv) memset(out->dv, 0, (size_t)p->nv * sizeof(double));
  out->status = MR_SOLVER_CONVERGED;
  out->residual = 0;
  out->pgs_done = 1;
  int filled = 0;
  for (int i = 0; i < s.isl.n; i++) {
    mr_newton_island(&s, i);
    res[i] = mr_newton_solve_island(&s, warm, restart, out, &filled);
    if (out->dv) mr_newton_velocity_change(&s, out->dv);
    if (res[i].iters > out->iters) {
      out->iters = res[i].iters;
      out->sweeps = res[i].sweeps;
    }
    out->residual = mr_maxd(out->residual, res[i].residual);
    /* an island that failed leaves its rows to pgs, as one stopped short does */
    int status = res[i].status == MR_SOLVER_FAILED ? MR_SOLVER_MAX_ITER : res[i].status;
    if (status > out->status) out->status = status;
    if (res[i].status != MR_SOLVER_CONVERGED && !res[i].pgs_done) out->pgs_done = 0;
  }
  mr_newton_history_tail(out, res, s.isl.n, filled);
  mr_arena_restore(work, mark);
}
