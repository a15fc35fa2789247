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
#include "constraint.h"
#include "engine/dynamics/dynamics.h"

/* G is formed for the solvers that can do without it when nrow^2 <= this times the
 * velocity form's per-sweep work (mr_dense_pays). 1 was the fastest of {1, 3, never} on
 * both bench models; "always" is 1.5x slower on humanoid100. */
#define MR_DENSE_G_FACTOR 1.0

/* Rows solved together for AJ (mr_delassus_AJ): enough for a humanoid's contact set, and
 * a bounded scratch (MR_AJ_BLOCK nv doubles) however many rows a pile has. */
#define MR_AJ_BLOCK 32

/* Dof range [lo, hi) of the kinematic tree of each dof: M is block diagonal over the trees
 * below the world, and a tree's dofs are contiguous (depth-first order), so A^-1 J^T of a
 * row is nonzero only inside the ranges of the trees the row touches. */
static void mr_tree_ranges(const mr_model *m, int *lo, int *hi) {
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

/* The (at most two) tree ranges row i touches, from its nonzero columns. A row touching
 * three trees cannot occur (a contact, a connect or weld, and a joint coupling each join
 * two objects); should one appear, the second range grows to cover the rest. */
static void mr_row_span(const mr_rows *r, int i, const int *lo, const int *hi, int span[4]) {
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

/* Rows [j, k) of AJ over the dofs [lo, hi): their J entries there, transposed into the
 * dof-major block X, solved together, copied back. */
static void mr_delassus_block(const mr_model *m, mr_data *d, const mr_rows *r, int j, int k,
                              int lo, int hi, double *X, double *AJ) {
  const int nv = m->nv, n = k - j;
  memset(X, 0, (size_t)n * (size_t)(hi - lo) * sizeof(double));
  for (int row = j; row < k; row++)
    for (int t = r->nzadr[row]; t < r->nzadr[row + 1]; t++) {
      int i = r->nzind[t];
      if (i >= lo && i < hi) X[(size_t)(i - lo) * n + (row - j)] = r->J[(size_t)row * nv + i];
    }
  mr_solve_mass_block(m, d, X, n, lo, hi);
  for (int row = j; row < k; row++)
    for (int i = lo; i < hi; i++) AJ[(size_t)row * nv + i] = X[(size_t)(i - lo) * n + (row - j)];
}

/* AJ row j = A^-1 J_j^T, solved only over the row's tree ranges; consecutive rows with the
 * same ranges (a contact's three, a foot's several contacts), up to MR_AJ_BLOCK of them,
 * are solved together. X: MR_AJ_BLOCK nv doubles of scratch. */
static void mr_delassus_AJ(const mr_model *m, mr_data *d, const mr_rows *r, const int *span,
                           double *X, double *AJ) {
  memset(AJ, 0, (size_t)r->nrow * (size_t)m->nv * sizeof(double));
  for (int j = 0; j < r->nrow;) {
    const int *s = span + 4 * j;
    int k = j + 1;
    while (k < r->nrow && k - j < MR_AJ_BLOCK && !memcmp(span + 4 * k, s, 4 * sizeof(int))) k++;
    mr_delassus_block(m, d, r, j, k, s[0], s[1], X, AJ);
    if (s[3] > s[2]) mr_delassus_block(m, d, r, j, k, s[2], s[3], X, AJ);
    j = k;
  }
}

/* G = J AJ^T, each entry once from the sparse row of J, mirrored. */
static void mr_delassus_dense(const mr_rows *r, const double *AJ, double *G) {
  const int n = r->nrow, nv = r->nv;
  for (int i = 0; i < n; i++) {
    const double *Ji = r->J + (size_t)i * nv;
    const int *nz = r->nzind + r->nzadr[i], nnz = r->nzadr[i + 1] - r->nzadr[i];
    for (int j = i; j < n; j++) {
      const double *Aj = AJ + (size_t)j * nv;
      double s = 0;
      for (int t = 0; t < nnz; t++) s += Ji[nz[t]] * Aj[nz[t]];
      G[(size_t)i * n + j] = G[(size_t)j * n + i] = s;
    }
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
  p->v_free = v_free;
  p->m = m;
  p->d = d;
  p->tol = d->opt.tol > 0 ? d->opt.tol : 1e-8;
  int cap = d->opt.max_iter;
  p->max_iter = cap < 1 ? 1 : (cap > MR_MAX_ITER_CAP ? MR_MAX_ITER_CAP : cap);
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

static int mr_delassus_form(const mr_model *m, mr_data *d, const mr_rows *r, const double *v_free,
                            int dense, mr_problem *p) {
  const int nv = m->nv, n = r->nrow;
  double *AJ = mr_arena_doubles(d, (size_t)n * nv);
  double *g = mr_arena_doubles(d, (size_t)n);
  double *R = mr_arena_doubles(d, (size_t)n);
  int *span = mr_arena_ints(d, 4 * (size_t)n);
  int *lo = mr_arena_ints(d, (size_t)nv + 1), *hi = mr_arena_ints(d, (size_t)nv + 1);
  double *X = mr_arena_doubles(d, (size_t)MR_AJ_BLOCK * nv);
  if (!AJ || !g || !R || !span || !lo || !hi || !X) return -1;

  mr_tree_ranges(m, lo, hi);
  for (int i = 0; i < n; i++) mr_row_span(r, i, lo, hi, span + 4 * i);
  dense = dense || mr_dense_pays(r, span);
  double *G = dense ? mr_arena_doubles(d, (size_t)n * n) : NULL;
  if (dense && !G) return -1;
  mr_delassus_AJ(m, d, r, span, X, AJ);
  if (dense) mr_delassus_dense(r, AJ, G);
  for (int i = 0; i < n; i++) {
    const double *Ji = r->J + (size_t)i * nv;
    double s = r->bias[i];
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) s += Ji[r->nzind[t]] * v_free[r->nzind[t]];
    g[i] = s;
    R[i] = 0;
  }
  mr_problem_fill(m, d, r, v_free, p);
  p->G = G;
  p->g = g;
  p->R = R;
  p->AJ = AJ;
  p->span = span;
  return 0;
}

int mr_delassus_build(const mr_model *m, mr_data *d, const mr_rows *r, const double *v_free,
                      mr_problem *p, double **AinvJT) {
  if (mr_delassus_form(m, d, r, v_free, 1, p)) return -1;
  *AinvJT = (double *)p->AJ;
  return 0;
}

void mr_problem_solve_mass(const mr_problem *p, double *x, const double *b, int n) {
  mr_solve_mass(p->m, p->d, x, b, n);
}

/* ------------------------------------------------------------------ the solve */

static double mr_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mr_solver_index(const mr_data *d) {
  int s = d->opt.solver;
  return s >= 0 && s < mr_solver_count() ? s : mr_solver_default();
}

/* Which side of joint r->id[row] a limit row holds: its Jacobian is +1 on the joint's dof
 * for the lower side, -1 for the upper (constraint.c). */
static int mr_limit_side(const mr_model *m, const mr_rows *r, int row) {
  int j = r->id[row];
  return r->J[(size_t)row * r->nv + m->jnt_dofadr[j]] > 0 ? 0 : 1;
}

/* Where a limit row's impulse is kept between steps: by joint side, or by tendon side for
 * the tendon-limit rows (negative ids, tendon_rows.c). */
static double *mr_limit_slot(const mr_model *m, mr_data *d, const mr_rows *r, int row) {
  if (r->id[row] < 0) return mr_tendon_limit_slot(d, r->id[row]);
  return d->limit_impulse + 2 * r->id[row] + mr_limit_side(m, r, row);
}

/* Warm start: contacts from their persistent impulse, limits from last step's impulse of
 * the same joint side, equalities from zero (their impulses are not kept). */
static void mr_warm_start(const mr_model *m, mr_data *d, const mr_rows *r, double *lambda) {
  int base = r->neq + r->nlim;
  memset(lambda, 0, (size_t)r->neq * sizeof(double));
  for (int i = r->neq; i < base; i++) lambda[i] = *mr_limit_slot(m, d, r, i);
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
  for (int i = r->neq; i < base; i++) *mr_limit_slot(m, d, r, i) = lambda[i];
}

static int mr_all_finite(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * 0;
  return s == 0;
}

static void mr_solve_failed(const mr_model *m, mr_data *d, double *dv) {
  d->solver_iters = 0;
  d->solver_status = MR_SOLVER_FAILED;
  d->solver_residual = INFINITY;
  memset(dv, 0, (size_t)m->nv * sizeof(double));
  memset(d->qfrc_constraint, 0, (size_t)m->nv * sizeof(double));
}

int mr_constraint_solve(const mr_model *m, mr_data *d, const mr_rows *r, const double *v_free,
                        double *dv) {
  const int nv = m->nv, n = r->nrow;
  size_t mark = mr_arena_mark(d);
  mr_problem p;
  double *lambda = mr_arena_doubles(d, (size_t)n), *c = mr_arena_doubles(d, (size_t)n);
  const mr_solver_info *solver = mr_solver_get(mr_solver_index(d));
  if (!lambda || !c || mr_delassus_form(m, d, r, v_free, solver->dense_G, &p)) {
    mr_solve_failed(m, d, dv);
    mr_arena_restore(d, mark);
    return -1;
  }
  mr_warm_start(m, d, r, lambda);
  mr_solver_out out = {.lambda = lambda, .c = c, .history = d->solver_history};
  double start = mr_seconds();
  solver->solve(&p, &out, d);
  d->metrics.solver_time = mr_seconds() - start;

  if (!mr_all_finite(lambda, n)) {
    memset(lambda, 0, (size_t)n * sizeof(double));
    out.status = MR_SOLVER_FAILED;
    out.residual = INFINITY;
  }
  d->solver_iters = out.iters;
  d->solver_status = out.status;
  d->solver_residual = out.residual;
  d->nefc = n;
  mr_write_impulses(m, d, r, lambda);

  /* dv = A^-1 J^T lambda, qfrc_constraint = J^T lambda / dt */
  memset(dv, 0, (size_t)nv * sizeof(double));
  memset(d->qfrc_constraint, 0, (size_t)nv * sizeof(double));
  for (int j = 0; j < n; j++) {
    double l = lambda[j];
    if (l == 0) continue;
    const double *Jj = r->J + (size_t)j * nv;
    mr_problem_add_impulse(&p, dv, j, l);
    for (int t = r->nzadr[j]; t < r->nzadr[j + 1]; t++) {
      int i = r->nzind[t];
      d->qfrc_constraint[i] += l * Jj[i] / r->dt;
    }
  }
  mr_metrics_compute_dv(&p, r, lambda, dv, c, &d->metrics);
  mr_arena_restore(d, mark);
  return 0;
}
