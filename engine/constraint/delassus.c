/* The Delassus operator G = J A^-1 J^T, the free constraint velocity g = J v_free + bias,
 * and the per-step solve around them (constraint.h).
 *
 * A is the matrix the integrator inverts for the velocity update, factored in d->qLD by
 * the caller: M (Euler without damping), M + dt D (Euler with joint damping, as the smooth
 * path), or the final midpoint factor M + dt/2 D + dt^2/4 K. Using the same A in G and in
 * v+ = v_free + A^-1 J^T lambda makes the constraint velocities the solver sees exactly the
 * ones the step produces.
 *
 * AJ = A^-1 J^T is always formed, one row at a time and only over the kinematic trees the
 * row touches (M is block diagonal over trees), so a pile of free bodies costs 6 dofs per
 * row, not nv. G is formed only for the solvers that ask for it (mr_solver_info.dense_G):
 * dense (nrow^2) and exactly symmetric, each entry once from the sparse row of J and
 * mirrored. It may be singular (redundant rows: a planar four-bar's out-of-plane row, four
 * coplanar box contacts); regularizing it is the business of the solvers that factor it.
 * PGS works from J and AJ directly (velocity form), O(nnz) per sweep instead of O(nrow^2),
 * unless the problem is small enough that G is cheaper (mr_dense_pays): then it gets G too.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "engine/core/arena.h"
#include "rows.h"
#include "engine/dynamics/dynamics.h"
#include "engine/solver/ncp.h"

/* G is formed for the solvers that can do without it when nrow^2 <= this times the
 * velocity form's per-sweep work (mr_dense_pays). 1 was the fastest of {1, 3, never} on
 * both bench models; "always" is 1.5x slower on humanoid100. */
#define MR_DENSE_G_FACTOR 1.0


void mr_tree_ranges(const mr_model *m, int *lo, int *hi) {
  const int nv = m->nv;
  for (int i = 0; i < nv;) {
    int root = m->body_rootid[m->dof_bodyid[i]], j = i;
    while (j < nv && m->body_rootid[m->dof_bodyid[j]] == root) j++;
    for (int k = i; k < j; k++) {
      lo[k] = i;
      hi[k] = j;
    }
    i = j;
  }
}

void mr_row_span(const mr_rows *r, int i, const int *lo, const int *hi, int span[4]) {
  span[0] = span[1] = span[2] = span[3] = 0;
  for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) {
    int k = r->nzind[t];
    if (span[1] > span[0] && k >= span[0] && k < span[1]) continue;
    if (span[1] == span[0]) {
      span[0] = lo[k];
      span[1] = hi[k];
    } else if (span[3] == span[2]) {
      span[2] = lo[k];
      span[3] = hi[k];
    } else if (!(k >= span[2] && k < span[3])) {
      span[2] = lo[k] < span[2] ? lo[k] : span[2];
      span[3] = hi[k] > span[3] ? hi[k] : span[3];
    }
  }
}

/* Where each row's AJ entries start in the packed AJ (the widths of its tree ranges);
 * returns their total. */
static int mr_AJ_layout(int nrow, const int *span, int *AJadr) {
  int total = 0;
  for (int j = 0; j < nrow; j++) {
    const int *s = span + 4 * j;
    AJadr[j] = total;
    total += (s[1] - s[0]) + (s[3] - s[2]);
  }
  return total;
}

/* Rows [j, k) of AJ over the dofs [lo, hi) (at offset `at` inside each row's packed
 * entries): their J entries there, transposed into the dof-major block X, solved together,
 * copied back. */
static void mr_delassus_block(const mr_model *m, mr_data *d, const mr_rows *r, int j, int k,
                              int lo, int hi, int at, double *X, double *AJ, const int *AJadr) {
  const int n = k - j;
  memset(X, 0, (size_t)n * (size_t)(hi - lo) * sizeof(double));
  for (int row = j; row < k; row++)
    for (int t = r->nzadr[row]; t < r->nzadr[row + 1]; t++) {
      int i = r->nzind[t];
      if (i >= lo && i < hi) X[(size_t)(i - lo) * n + (row - j)] = r->J[t];
    }
  mr_solve_mass_block(m, d, X, n, lo, hi);
  for (int row = j; row < k; row++) {
    double *a = AJ + AJadr[row] + at;
    for (int i = lo; i < hi; i++) a[i - lo] = X[(size_t)(i - lo) * n + (row - j)];
  }
}

/* AJ row j = A^-1 J_j^T, solved only over the row's tree ranges; consecutive rows with the
 * same ranges (a contact's three, a foot's several contacts), up to MR_AJ_BLOCK of them,
 * are solved together. X: MR_AJ_BLOCK nv doubles of scratch. */
static void mr_delassus_AJ(const mr_model *m, mr_data *d, const mr_rows *r, const int *span,
                           const int *AJadr, double *X, double *AJ) {
  for (int j = 0; j < r->nrow;) {
    const int *s = span + 4 * j;
    int k = j + 1;
    while (k < r->nrow && k - j < MR_AJ_BLOCK && !memcmp(span + 4 * k, s, 4 * sizeof(int))) k++;
    mr_delassus_block(m, d, r, j, k, s[0], s[1], 0, X, AJ, AJadr);
    if (s[3] > s[2]) mr_delassus_block(m, d, r, j, k, s[2], s[3], s[1] - s[0], X, AJ, AJadr);
    j = k;
  }
}

/* G = J AJ^T, each entry once, mirrored: AJ_j is scattered into w (nv doubles, zero on
 * entry and on return) and dotted with the sparse rows J_i, i >= j. */
static void mr_delassus_dense(const mr_problem *p, double *w, double *G) {
  const int n = p->nrow;
  for (int j = 0; j < n; j++) {
    const int *s = p->span + 4 * j;
    const double *a = p->AJ + p->AJadr[j];
    for (int k = s[0]; k < s[1]; k++) w[k] = *a++;
    for (int k = s[2]; k < s[3]; k++) w[k] = *a++;
    for (int i = j; i < n; i++) G[(size_t)i * n + j] = G[(size_t)j * n + i] = mr_problem_row_dot(p, i, w);
    for (int k = s[0]; k < s[1]; k++) w[k] = 0;
    for (int k = s[2]; k < s[3]; k++) w[k] = 0;
  }
}

static void mr_problem_fill(const mr_model *m, const mr_data *d, const mr_rows *r,
                            const double *v_free, mr_problem *p) {
  memset(p, 0, sizeof *p);
  p->nv = m->nv;
  p->nrow = r->nrow;
  p->neq = r->neq;
  p->nlim = r->nlim;
  p->ncon = r->ncon;
  p->dt = r->dt;
  p->J = r->J;
  p->nzadr = r->nzadr;
  p->nzind = r->nzind;
  p->mu = r->mu;
  p->dist = r->dist;
  p->solref = r->solref;
  p->solimp = r->solimp;
  p->pos = r->pos;
  p->id = r->id;
  p->v_free = v_free;
  p->v0 = r->v0;
  p->m = m;
  p->d = d;
  p->tol = d->opt.tol > 0 ? d->opt.tol : 1e-8;
  int cap = d->opt.max_iter > 0 ? d->opt.max_iter : mr_solver_max_iter(mr_solver_index(d));
  p->max_iter = cap < 1 ? 1 : (cap > MR_MAX_ITER_CAP ? MR_MAX_ITER_CAP : cap);
  int pgs_cap = d->opt.max_iter > 0 ? p->max_iter : mr_solver_max_iter(mr_solver_find("pgs"));
  p->pgs_max_iter = pgs_cap < p->max_iter ? pgs_cap : p->max_iter;
}

/* Whether G pays for itself with a solver that can work without it. A sweep in the velocity
 * form costs about the row's tree span plus its nonzeros per row, one over G about nrow
 * per row, and forming G about nrow nnz / 2 per row once. Few rows on one deep tree (a
 * humanoid standing or lying: ~25 rows on 27 dofs) run faster over G, the more so as the
 * active-set refinement then reads its entries instead of computing them (the humanoid's
 * step took 14% less time); a pile of free bodies with hundreds of rows, each on 6 or 12 dofs,
 * runs far faster without. */
static int mr_dense_pays(const mr_rows *r, const int *span) {
  const int n = r->nrow;
  double sparse = 0;
  for (int i = 0; i < n; i++) {
    const int *s = span + 4 * i;
    sparse += (s[1] - s[0]) + (s[3] - s[2]) + (r->nzadr[i + 1] - r->nzadr[i]);
  }
  return (double)n * n <= MR_DENSE_G_FACTOR * sparse;
}

/* g = J v_free + bias, and R = 0. */
static void mr_free_velocity(const mr_rows *r, const double *v_free, double *g, double *R) {
  for (int i = 0; i < r->nrow; i++) {
    double s = r->bias[i];
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) s += r->J[t] * v_free[r->nzind[t]];
    g[i] = s;
    R[i] = 0;
  }
}

/* A contact's three rows share one column list (mr_contact_rows_fill), hence their trees
 * and one walk of the tree for their diagonal entries: the rows that walk together from
 * row j. */
#define MR_NORM2_BLOCK 3

static int mr_rows_sharing_columns(const mr_rows *r, int j) { return j >= r->neq + r->nlim ? 3 : 1; }

/* Each row's tree ranges, computed once per contact. */
static void mr_row_spans(const mr_rows *r, const int *lo, const int *hi, int *span) {
  for (int i = 0; i < r->nrow;) {
    mr_row_span(r, i, lo, hi, span + 4 * i);
    int n = mr_rows_sharing_columns(r, i);
    for (int c = 1; c < n; c++) memcpy(span + 4 * (i + c), span + 4 * i, 4 * sizeof(int));
    i += n;
  }
}

/* The half solves a primal solver gets (mr_problem.Y): values, the dofs of the equality
 * and limit rows' (a contact's are its columns), and each row's range. */
typedef struct mr_half {
  double *Y;
  int *Yind, *Yrange;
} mr_half;

/* Row j's range of h at *at, n entries, and *at past it. */
static void mr_half_range(mr_half *h, int j, int n, int *at) {
  h->Yrange[2 * j] = *at;
  h->Yrange[2 * j + 1] = *at + n;
  *at += n;
}

/* The n half solves in w (interleaved by dof) into rows j..j+n-1 of h: a contact's three
 * over its columns, an equality's or a limit's over the dofs of its tree ranges s where it
 * is nonzero. */
static void mr_half_store(const mr_rows *r, mr_half *h, const double *w, int n, int j,
                          const int *s, int *at) {
  if (j >= r->neq + r->nlim) {
    const int *cols = r->nzind + r->nzadr[j], nc = r->nzadr[j + 1] - r->nzadr[j];
    for (int c = 0; c < n; c++) {
      for (int t = 0; t < nc; t++) h->Y[*at + t] = w[n * cols[t] + c];
      mr_half_range(h, j + c, nc, at);
    }
    return;
  }
  int len = 0;
  for (int range = 0; range < 2; range++)
    for (int k = s[2 * range]; k < s[2 * range + 1]; k++)
      if (w[k] != 0) {
        h->Yind[*at + len] = k;
        h->Y[*at + len++] = w[k];
      }
  mr_half_range(h, j, len, at);
}

/* How many of a row's columns cols[0..nc) (ascending) lie in its first tree range, which
 * ends at `end`. */
static int mr_row_first_range(const int *cols, int nc, int end) {
  int split = 0;
  while (split < nc && cols[split] < end) split++;
  return split;
}

/* A contact's three rows whose columns in each tree range form one path from a root (a
 * body's chain: most contacts): their half solves are made in place in h's storage, from a
 * copy of J's rows, with G's diagonal. Returns 0 for any other contact, nothing done. */
static int mr_half_contact(const mr_model *m, const mr_data *d, const mr_rows *r, int j,
                           const int *s, double *Gdiag, mr_half *h, int *at) {
  const int *cols = r->nzind + r->nzadr[j], nc = r->nzadr[j + 1] - r->nzadr[j];
  const int split = mr_row_first_range(cols, nc, s[1]);
  double *Y = h->Y + *at, sum[3], second[3] = {0, 0, 0};
  memcpy(Y, r->J + r->nzadr[j], 3 * (size_t)nc * sizeof(double));
  if (!mr_mass_half_path3(m, d, Y, nc, cols, split, sum) ||
      (split < nc && !mr_mass_half_path3(m, d, Y + split, nc, cols + split, nc - split, second)))
    return 0;
  for (int c = 0; c < 3; c++) {
    Gdiag[j + c] = sum[c] + second[c];
    mr_half_range(h, j + c, nc, at);
  }
  return 1;
}

/* G's diagonal through half solves (mr_mass_inverse_norm2_n), each over the row's trees,
 * and the half solves themselves into h when given; w: MR_NORM2_BLOCK nv doubles, zero on
 * entry and on return. */
static void mr_delassus_diagonal(const mr_model *m, const mr_data *d, const mr_rows *r,
                                 const int *span, double *w, double *Gdiag, mr_half *h) {
  int at = 0;
  for (int j = 0; j < r->nrow;) {
    const int *s = span + 4 * j, n = mr_rows_sharing_columns(r, j);
    if (h && n == 3 && mr_half_contact(m, d, r, j, s, Gdiag, h, &at)) {
      j += 3;
      continue;
    }
    for (int c = 0; c < n; c++)
      for (int t = r->nzadr[j + c]; t < r->nzadr[j + c + 1]; t++) w[n * r->nzind[t] + c] = r->J[t];
    /* the row's columns in its first tree range, then in its second */
    const int *cols = r->nzind + r->nzadr[j], nc = r->nzadr[j + 1] - r->nzadr[j];
    const int split = mr_row_first_range(cols, nc, s[1]);
    double second[MR_NORM2_BLOCK];
    int on_cols = mr_mass_inverse_norm2_n(m, d, w, n, s[0], s[1], Gdiag + j, cols, split);
    if (s[3] > s[2]) {
      on_cols &= mr_mass_inverse_norm2_n(m, d, w, n, s[2], s[3], second, cols + split, nc - split);
      for (int c = 0; c < n; c++) Gdiag[j + c] += second[c];
    }
    if (h) mr_half_store(r, h, w, n, j, s, &at);
    if (on_cols) {
      for (int t = 0; t < nc; t++)
        for (int c = 0; c < n; c++) w[n * cols[t] + c] = 0;
    } else {
      for (int k = n * s[0]; k < n * s[1]; k++) w[k] = 0;
      for (int k = n * s[2]; k < n * s[3]; k++) w[k] = 0;
    }
    j += n;
  }
}

/* AJ = A^-1 J^T over each row's trees, and G when the solver needs it or it pays
 * (mr_dense_pays). */
static int mr_delassus_dual(const mr_model *m, mr_data *d, const mr_rows *r, int dense,
                            mr_problem *p) {
  const int nv = m->nv, n = r->nrow;
  int *AJadr = mr_arena_ints(d, (size_t)n);
  double *X = mr_arena_doubles(d, (size_t)MR_AJ_BLOCK * nv);
  if (!AJadr || !X) return -1;
  double *AJ = mr_arena_doubles(d, (size_t)mr_AJ_layout(n, p->span, AJadr) + 1);
  if (!AJ) return -1;
  mr_delassus_AJ(m, d, r, p->span, AJadr, X, AJ);
  p->AJ = AJ;
  p->AJadr = AJadr;
  if (!dense && !mr_dense_pays(r, p->span)) return 0;
  double *G = mr_arena_doubles(d, (size_t)n * n);
  if (!G) return -1;
  memset(X, 0, (size_t)nv * sizeof(double));
  mr_delassus_dense(p, X, G);
  p->G = G;
  return 0;
}

/* The half solves' storage: a contact row's over its columns (its bodies' chains, which hold
 * every ancestor of each: L^-T keeps it there), another row's over its tree ranges at most.
 * Returns -1 on arena exhaustion. */
static int mr_half_alloc(mr_data *d, const mr_rows *r, const int *span, mr_half *h) {
  const int base = r->neq + r->nlim;
  size_t first = 1; /* the equality and limit rows', whose dofs are kept too */
  for (int i = 0; i < base; i++) first += (size_t)(span[4 * i + 1] - span[4 * i]) + (size_t)(span[4 * i + 3] - span[4 * i + 2]);
  h->Y = mr_arena_doubles(d, first + (size_t)(r->nzadr[r->nrow] - r->nzadr[base]));
  h->Yind = mr_arena_ints(d, first);
  h->Yrange = mr_arena_ints(d, 2 * (size_t)r->nrow + 1);
  return h->Y && h->Yind && h->Yrange ? 0 : -1;
}

/* The problem for `solver`: each row's trees and G's diagonal (by half solves, kept for a
 * primal solver), the rows of degenerate contacts dropped (degenerate.c), g and R; then
 * AJ, and G where needed, unless the solver is primal. */
static int mr_delassus_form(const mr_model *m, mr_data *d, mr_rows *r, const double *v_free,
                            const mr_solver_info *solver, mr_problem *p) {
  const int nv = m->nv;
  int n = r->nrow;
  int *span = mr_arena_ints(d, 4 * (size_t)n);
  int *lo = mr_arena_ints(d, (size_t)nv + 1), *hi = mr_arena_ints(d, (size_t)nv + 1);
  double *Gdiag = mr_arena_doubles(d, (size_t)n);
  double *w = mr_arena_doubles(d, (size_t)MR_NORM2_BLOCK * nv + 1);
  double *g = mr_arena_doubles(d, (size_t)n), *R = mr_arena_doubles(d, (size_t)n);
  if (!span || !lo || !hi || !Gdiag || !w || !g || !R) return -1;
  mr_tree_ranges(m, lo, hi);
  mr_row_spans(r, lo, hi, span);
  mr_half half = {0};
  if (solver->primal && mr_half_alloc(d, r, span, &half)) return -1;
  memset(w, 0, (size_t)MR_NORM2_BLOCK * nv * sizeof(double));
  mr_delassus_diagonal(m, d, r, span, w, Gdiag, solver->primal ? &half : NULL);
  d->ncon_degenerate = mr_rows_drop_degenerate(r, span, Gdiag, half.Yrange);
  mr_free_velocity(r, v_free, g, R);
  mr_problem_fill(m, d, r, v_free, p);
  p->g = g;
  p->R = R;
  p->Adiag = d->qAdiag;
  p->span = span;
  p->Gdiag = Gdiag;
  p->Y = half.Y;
  p->Yind = half.Yind;
  p->Yrange = half.Yrange;
  return solver->primal ? 0 : mr_delassus_dual(m, d, r, solver->dense_G, p);
}

int mr_delassus_build(const mr_model *m, mr_data *d, mr_rows *r, const double *v_free,
                      mr_problem *p) {
  static const mr_solver_info dense = {.name = "dense", .dense_G = 1};
  return mr_delassus_form(m, d, r, v_free, &dense, p);
}

void mr_problem_solve_mass(const mr_problem *p, double *x, const double *b, int n) {
  mr_solve_mass(p->m, p->d, x, b, n);
}

void mr_problem_solve_mass_span(const mr_problem *p, double *x, int lo, int hi) {
  mr_solve_mass_span(p->m, p->d, x, lo, hi);
}

/* ------------------------------------------------------------------ the solve */

static double mr_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mr_solver_index(const mr_data *d) {
  int s = d->opt.solver;
  return s >= 0 && s < mr_solver_count() ? s : mr_solver_default();
}

/* Which side of its joint a limit row holds: its one Jacobian entry is +1 for the lower
 * side, -1 for the upper (constraint.c). */
static int mr_limit_side(const mr_rows *r, int row) { return r->J[r->nzadr[row]] > 0 ? 0 : 1; }

/* Where a limit row's impulse is kept between steps: by joint side, or by tendon side for
 * the tendon-limit rows (negative ids, tendon_rows.c). */
static double *mr_limit_slot(mr_data *d, const mr_rows *r, int row) {
  if (r->id[row] < 0) return mr_tendon_limit_slot(d, r->id[row]);
  return d->limit_impulse + 2 * r->id[row] + mr_limit_side(r, row);
}

/* Warm start: contacts from their persistent impulse, limits from last step's impulse of
 * the same joint side, equalities from zero (their impulses are not kept). */
static void mr_warm_start(mr_data *d, const mr_rows *r, double *lambda) {
  int base = r->neq + r->nlim;
  memset(lambda, 0, (size_t)r->neq * sizeof(double));
  for (int i = r->neq; i < base; i++) lambda[i] = *mr_limit_slot(d, r, i);
  for (int k = 0; k < r->ncon; k++)
    memcpy(lambda + base + 3 * k, d->contact[r->id[base + 3 * k]].impulse, 3 * sizeof(double));
}

/* The solution into the contacts, for collision to carry forward, and into the limit
 * sides; contacts and sides that are not rows this step had no impulse. */
static void mr_write_impulses(const mr_model *m, mr_data *d, const mr_rows *r, const double *lambda) {
  int base = r->neq + r->nlim;
  for (int k = 0; k < d->ncon; k++) memset(d->contact[k].impulse, 0, 3 * sizeof(double));
  for (int k = 0; k < r->ncon; k++)
    memcpy(d->contact[r->id[base + 3 * k]].impulse, lambda + base + 3 * k, 3 * sizeof(double));
  memset(d->limit_impulse, 0, 2 * (size_t)m->njnt * sizeof(double));
  memset(d->ten_limit_impulse, 0, 2 * (size_t)m->ntendon * sizeof(double));
  for (int i = r->neq; i < base; i++) *mr_limit_slot(d, r, i) = lambda[i];
}

static int mr_all_finite(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * 0;
  return s == 0;
}

static void mr_solve_failed(const mr_model *m, mr_data *d, double *dv) {
  d->solver_iters = d->solver_sweeps = 0;
  d->solver_status = MR_SOLVER_FAILED;
  d->solver_residual = INFINITY;
  memset(dv, 0, (size_t)m->nv * sizeof(double));
  memset(d->qfrc_constraint, 0, (size_t)m->nv * sizeof(double));
}

/* dv = A^-1 J^T lambda through AJ, for solvers that do not return it. */
static void mr_velocity_change(const mr_problem *p, const double *lambda, double *dv) {
  memset(dv, 0, (size_t)p->nv * sizeof(double));
  for (int j = 0; j < p->nrow; j++)
    if (lambda[j] != 0) mr_problem_add_impulse(p, dv, j, lambda[j]);
}

/* qfrc_constraint = J^T lambda / dt */
static void mr_constraint_force(const mr_rows *r, const double *lambda, double *qfrc) {
  memset(qfrc, 0, (size_t)r->nv * sizeof(double));
  for (int j = 0; j < r->nrow; j++) {
    double l = lambda[j] / r->dt;
    if (l == 0) continue;
    for (int t = r->nzadr[j]; t < r->nzadr[j + 1]; t++) qfrc[r->nzind[t]] += l * r->J[t];
  }
}

/* The measure newton stops on, max of the primal, dual and complementarity residuals and
 * the natural map, of impulses lambda in the dual form; their velocities into c (dv:
 * scratch). */
static double mr_point_error(const mr_problem *p, const double *lambda, double *dv, double *c) {
  mr_velocity_change(p, lambda, dv);
  for (int i = 0; i < p->nrow; i++) c[i] = mr_problem_row_velocity(p, dv, i);
  mr_ncp_errors e;
  mr_ncp_errors_compute(p, lambda, c, &e);
  return fmax(fmax(e.primal, e.dual), fmax(e.compl, e.natural));
}

/* A primal solver that stopped short hands the step to pgs, which gets the dual form (AJ,
 * and G where it pays), the iterations left, and the warm start again: PGS's per-contact
 * projections settle sliding contacts that Newton's model fits for short steps only, and
 * a point Newton left half-way (impulses rearranged across a redundant set) is a worse
 * start for them than last step's impulses (a moving pile of 20 bodies: 68% of steps
 * unconverged from Newton's best point, 11% from the warm start). Its velocities then
 * come from AJ (out->dv = NULL). PGS may end worse than where it started or than
 * Newton's best point: the stage keeps the best of the three by one measure
 * (mr_point_error; PGS stops on its own, which leaves out the natural map). Returns -1 on
 * arena exhaustion. */
static int mr_solver_fallback(const mr_model *m, mr_data *d, const mr_rows *r, mr_problem *p,
                              const double *warm, mr_solver_out *out) {
  if (mr_delassus_dual(m, d, r, 0, p)) return -1;
  const size_t n = (size_t)p->nrow;
  double *best = mr_arena_doubles(d, n + 1), *cbest = mr_arena_doubles(d, n + 1);
  double *cwarm = mr_arena_doubles(d, n + 1), *dv = mr_arena_doubles(d, (size_t)m->nv + 1);
  if (!best || !cbest || !cwarm || !dv) return -1;
  memcpy(best, out->lambda, n * sizeof(double));
  double best_err = out->residual < INFINITY ? mr_point_error(p, best, dv, cbest) : INFINITY;
  double warm_err = mr_point_error(p, warm, dv, cwarm);
  if (!(best_err <= warm_err)) {
    memcpy(best, warm, n * sizeof(double));
    memcpy(cbest, cwarm, n * sizeof(double));
    best_err = warm_err;
  }
  const mr_solver_info *pgs = mr_solver_get(mr_solver_find("pgs"));
  memcpy(out->lambda, warm, n * sizeof(double));
  mr_problem q = *p;
  q.max_iter = p->max_iter > out->iters ? p->max_iter - out->iters : 1;
  if (p->pgs_max_iter > 0 && q.max_iter > p->pgs_max_iter) q.max_iter = p->pgs_max_iter;
  mr_solver_out fb = {.lambda = out->lambda, .c = out->c,
                      .history = out->history ? out->history + out->iters : NULL};
  pgs->solve(&q, &fb, d);
  out->iters += fb.iters;
  out->sweeps += fb.iters;
  out->status = fb.status;
  out->residual = fb.residual;
  out->dv = NULL;
  if (best_err < mr_point_error(p, out->lambda, dv, out->c)) {
    memcpy(out->lambda, best, n * sizeof(double));
    memcpy(out->c, cbest, n * sizeof(double));
    out->residual = best_err;
    out->status = best_err <= p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
  }
  return 0;
}

/* For a solver whose contacts the position pass recovers (mr_solver_info.depenetrate), the
 * contact distances it sees are clipped at the resting band: a solver that reads them (sap's
 * v_hat) would otherwise recover the depth again, through the velocity, and launch what the
 * pass lifts (a ball found 4 mm deep left at 3 m/s). The rows keep the true distances.
 * Returns -1 on arena exhaustion. */
static int mr_problem_clip_depth(mr_data *d, const mr_rows *r, const mr_solver_info *solver,
                                 mr_problem *p) {
  if (!solver->depenetrate || r->ncon == 0) return 0;
  double *dist = mr_arena_doubles(d, (size_t)r->ncon);
  if (!dist) return -1;
  for (int k = 0; k < r->ncon; k++) dist[k] = fmax(r->dist[k], -MR_CONTACT_BAND);
  p->dist = dist;
  return 0;
}

int mr_constraint_solve(const mr_model *m, mr_data *d, mr_rows *r, const double *v_free,
                        double *dv) {
  size_t mark = mr_arena_mark(d);
  mr_problem p;
  double *lambda = mr_arena_doubles(d, (size_t)r->nrow), *c = mr_arena_doubles(d, (size_t)r->nrow);
  const mr_solver_info *solver = mr_solver_get(mr_solver_index(d));
  if (!lambda || !c || mr_delassus_form(m, d, r, v_free, solver, &p)) {
    mr_solve_failed(m, d, dv);
    mr_arena_restore(d, mark);
    return -1;
  }
  const int n = r->nrow; /* after the degenerate contacts left */
  if (mr_problem_clip_depth(d, r, solver, &p)) {
    mr_solve_failed(m, d, dv);
    mr_arena_restore(d, mark);
    return -1;
  }
  mr_warm_start(d, r, lambda);
  double *warm = mr_arena_doubles(d, (size_t)n);
  if (!warm) {
    mr_solve_failed(m, d, dv);
    mr_arena_restore(d, mark);
    return -1;
  }
  memcpy(warm, lambda, (size_t)n * sizeof(double));
  mr_solver_out out = {.lambda = lambda, .c = c, .dv = solver->primal ? dv : NULL,
                       .history = d->solver_history, .history_cap = MR_MAX_ITER_CAP};
  double start = mr_seconds();
  solver->solve(&p, &out, d);
  if (solver->primal && out.status == MR_SOLVER_MAX_ITER && !out.pgs_done &&
      mr_solver_fallback(m, d, r, &p, warm, &out))
    out.status = MR_SOLVER_FAILED;
  d->metrics.solver_time = mr_seconds() - start;

  if (!mr_all_finite(lambda, n) || (out.dv && !mr_all_finite(dv, m->nv))) {
    memset(lambda, 0, (size_t)n * sizeof(double));
    memset(dv, 0, (size_t)m->nv * sizeof(double));
    out.status = MR_SOLVER_FAILED;
    out.residual = INFINITY;
  } else if (!out.dv) {
    mr_velocity_change(&p, lambda, dv);
  }
  d->solver_iters = out.iters;
  d->solver_sweeps = out.sweeps;
  d->solver_status = out.status;
  d->solver_residual = out.residual;
  d->nefc = n;
  mr_write_impulses(m, d, r, lambda);
  mr_constraint_force(r, lambda, d->qfrc_constraint);
  mr_metrics_compute_dv(&p, r, lambda, dv, c, &d->metrics);
  mr_arena_restore(d, mark);
  return 0;
}
