/* newton: the NCP solved by a primal Newton method, with the work growing with the contacts.
 *
 * The exact NCP (papers/000, 002: Signorini, Coulomb's cone, maximum dissipation, with the
 * De Saxce correction) is not the optimality condition of any convex problem, but it is
 * the limit of a sequence of convex ones. Given a proximal centre lambda_c and, per
 * contact, the De Saxce shift S = mu |c_T| frozen, the cone complementarity
 *
 *   K  ∋  lambda  ⊥  c + S + R (lambda - lambda_c)  ∈  K*,     c = J v + bias,
 *   A (v - v_free) = J^T lambda
 *
 * with a small regularization R (r_i = MR_NEWTON_EPS G_ii per row, the same for a contact's
 * three rows so that the projections stay Euclidean) is the optimality condition of the
 * strongly convex, piecewise quadratic primal problem (MuJoCo's and SAP's form)
 *
 *   min_v  1/2 (v - v_free)^T A (v - v_free) + sum_blocks r/2 |P_K(-u/r)|^2,
 *   u = J v + bias + S - R lambda_c,   lambda(v) = P_K(-u / r),
 *
 * whose Newton matrix H = A + J^T D J (D = dP_K / r per block) is sparse over the
 * kinematic trees (tree_cholesky.h): a robot lying on the floor is one dense block of its
 * dofs, a pile of boxes a block per box with fill only where boxes touch. When the primal
 * problem is solved (its velocity error small next to what the centre and the shift still
 * change), lambda_c <- lambda and S <- mu |c_T|: a proximal point step and a De Saxce
 * fixed-point step. With S = mu |c_T| and lambda = lambda_c the conditions above are the
 * exact NCP; the factor of H is reused as long as no contact changes between separated,
 * sticking and sliding, so these outer steps cost one solve each. Redundant contact sets
 * (a foot on four points, a box on its face) need no special care: A is positive definite
 * and redundant rows only add to H.
 *
 * Every iterate is judged by the NCP residual of mr_ncp_residual with the velocities its
 * impulses produce, c = J (v_free + A^-1 J^T lambda) + bias (one tree solve): the number a
 * user sees in the metrics, not a measure of the method's own. The solver stops when it
 * is at most p->tol. iters counts Newton iterations (each one factorization or one reuse
 * of it, then an exact line search); the outer steps in between are not iterations.
 */
#include <math.h>
#include <string.h>

#include "dense.h"
#include "engine/core/arena.h"
#include "ncp.h"
#include "solver.h"
#include "tree_cholesky.h"

/* r_i = eps max(G_ii, MR_NEWTON_FLOOR max_j G_jj), eps from MR_NEWTON_EPS down to
 * MR_NEWTON_EPS_MIN: a soft start lets Newton find which contacts push, stick and slide in
 * a few iterations (MuJoCo's and SAP's compliance is of this order), and the outer proximal
 * steps remove its effect; when they contract slowly (redundant, ill-conditioned sets),
 * eps drops tenfold. */
#define MR_NEWTON_EPS 1e-2
#define MR_NEWTON_EPS_MIN 1e-8
#define MR_NEWTON_SLOW 0.25
#define MR_NEWTON_FLOOR 1e-9

/* Sliding contacts whose De Saxce shifts take a joint Newton step (mr_newton_shifts), at
 * most; the rest iterate to their fixed point. */
#define MR_NEWTON_MAX_SLIDE 48
/* A shift's Newton step is taken when at most this many times the fixed-point step. */
#define MR_NEWTON_SHIFT_REACH 10.0

/* Iterations without a tenfold drop of the best residual after which the solve stops
 * (reported as not converged: the constraint stage then hands the best point to pgs). */
#define MR_NEWTON_STALL 12

/* The line search's root finding: iterations at most, and where it stops. */
#define MR_NEWTON_LS_ITERS 40
#define MR_NEWTON_LS_RTOL 1e-10

typedef struct mr_newton {
  const mr_problem *p;
  const mr_model *m;
  const mr_data *d;
  int nv, n, base;
  double *r;        /* nrow: regularization */
  double *bias;     /* nrow: g - J v_free */
  double *center;   /* nrow: lambda_c */
  double *S;        /* ncon: De Saxce shift */
  double *v, *dir, *grad, *vlam, *tmp; /* nv */
  double *Jv, *Jdir, *u, *lam, *c, *ua; /* nrow */
  double *D;        /* per block: 1 for the first base rows, 9 per contact */
  unsigned char *zone, *zone_factored, *zone_before; /* per block */
  int factored;     /* H holds the factor for zone_factored, all blocks constant there */
  double eps;       /* the regularization's scale now */
  double last_prox;  /* the proximal error at the last outer step (0: none yet) */
  unsigned char *zone_outer; /* the zones at the last outer step */
  int maxslide;      /* sliding contacts whose shifts take Newton steps, at most */
  int *slide, *piv;  /* the shifts' Newton step: its contacts, pivots, */
  double *X, *jac, *rhs, *Snext; /* H^-1 J^T D e_N per contact, its Jacobian, step, next S */
  mr_tree_chol H;
  int *cols;        /* assembly: a block's columns */
  double *W, *Jk;
} mr_newton;

static int mr_newton_factor(mr_newton *s);
static int mr_newton_factor_valid(const mr_newton *s);

static int mr_newton_nblock(const mr_problem *p) { return p->neq + p->nlim + p->ncon; }
static double *mr_newton_Dc(const mr_newton *s, int k) { return s->D + s->base + 9 * k; }

/* ------------------------------------------------------------------ products */

/* y = A x, with A = qM off the diagonal and Adiag on it. */
static void mr_newton_Amul(const mr_newton *s, const double *x, double *y) {
  const mr_model *m = s->m;
  const double *qM = s->d->qM;
  for (int i = 0; i < s->nv; i++) y[i] = s->p->Adiag[i] * x[i];
  for (int i = 0; i < s->nv; i++) {
    int adr = m->dof_Madr[i] + 1;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j], adr++) {
      y[i] += qM[adr] * x[j];
      y[j] += qM[adr] * x[i];
    }
  }
}

static void mr_newton_Jmul(const mr_problem *p, const double *x, double *y) {
  for (int i = 0; i < p->nrow; i++) y[i] = mr_problem_row_dot(p, i, x);
}

static void mr_newton_JTmul(const mr_problem *p, const double *lam, double *y) {
  memset(y, 0, (size_t)p->nv * sizeof(double));
  for (int i = 0; i < p->nrow; i++) {
    double l = lam[i];
    if (l == 0) continue;
    for (int t = p->nzadr[i]; t < p->nzadr[i + 1]; t++) y[p->nzind[t]] += l * p->J[t];
  }
}

static double mr_newton_dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* ------------------------------------------------------------------ projections */

/* lambda = P_K(-u/r) per block; with D and zone when given. */
static void mr_newton_project(const mr_newton *s, const double *u, double *lam, double *D,
                              unsigned char *zone) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->base; i++) {
    double y = -u[i] / s->r[i];
    int on = i < p->neq || y > 0;
    lam[i] = on ? y : 0;
    if (D) D[i] = on ? 1 / s->r[i] : 0;
    if (zone) zone[i] = (unsigned char)on;
  }
  for (int k = 0; k < p->ncon; k++) {
    int i = s->base + 3 * k;
    double r = s->r[i], y[3] = {-u[i] / r, -u[i + 1] / r, -u[i + 2] / r}, dP[9];
    int z = mr_cone_project_jacobian(y, p->mu[k], lam + i, dP);
    if (zone) zone[s->base + k] = (unsigned char)z;
    if (D) {
      double *Dk = D + s->base + 9 * k;
      for (int a = 0; a < 9; a++) Dk[a] = dP[a] / r;
    }
  }
}

/* ------------------------------------------------------------------ setup */

/* r per row from G's diagonal (a contact's three rows share the mean of theirs) at the
 * current eps; the factor is stale afterwards. */
static void mr_newton_regularization(mr_newton *s) {
  const mr_problem *p = s->p;
  double wmax = 0;
  for (int i = 0; i < p->nrow; i++) wmax = mr_maxd(wmax, p->Gdiag[i]);
  double floor = MR_NEWTON_FLOOR * wmax + 1e-300;
  for (int i = 0; i < s->base; i++) s->r[i] = s->eps * mr_maxd(p->Gdiag[i], floor);
  for (int k = 0; k < p->ncon; k++) {
    int i = s->base + 3 * k;
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

size_t mr_newton_scratch_bytes(const mr_model *m, size_t nrow, size_t maxrow) {
  size_t nv = (size_t)m->nv, mc = mr_newton_block_cols(maxrow, nv) + 1;
  size_t ms = MR_NEWTON_MAX_SLIDE < nrow / 3 ? MR_NEWTON_MAX_SLIDE : nrow / 3;
  size_t doubles = 5 * (nv + 1) + 9 * (nrow + 1) + 5 * nrow + 3 + mc * mc + 3 * mc +
                   ms * (nv + ms + 1) + 3;
  return doubles * sizeof(double) + (mc + 2 * ms + 2) * sizeof(int) + 4 * (nrow + 1) +
         mr_tree_chol_bytes(m) + 32 * MR_ALIGN;
}

static int mr_newton_alloc(mr_newton *s, const mr_problem *p, mr_data *work) {
  const size_t nv = (size_t)p->nv, n = (size_t)p->nrow, nb = (size_t)mr_newton_nblock(p);
  int maxcols = 0;
  for (int i = 0; i < p->nrow; i++)
    if (p->nzadr[i + 1] - p->nzadr[i] > maxcols) maxcols = p->nzadr[i + 1] - p->nzadr[i];
  size_t mc = mr_newton_block_cols((size_t)maxcols, nv) + 1;
  *s = (mr_newton){.p = p, .m = p->m, .d = p->d, .nv = p->nv, .n = p->nrow,
                   .base = p->neq + p->nlim};
  double **vecs_nv[] = {&s->v, &s->dir, &s->grad, &s->vlam, &s->tmp};
  double **vecs_n[] = {&s->r, &s->bias, &s->center, &s->Jv, &s->Jdir, &s->u, &s->lam, &s->c, &s->ua};
  for (size_t a = 0; a < sizeof vecs_nv / sizeof *vecs_nv; a++)
    if (!(*vecs_nv[a] = mr_arena_doubles(work, nv + 1))) return -1;
  for (size_t a = 0; a < sizeof vecs_n / sizeof *vecs_n; a++)
    if (!(*vecs_n[a] = mr_arena_doubles(work, n + 1))) return -1;
  s->S = mr_arena_doubles(work, (size_t)p->ncon + 1);
  s->D = mr_arena_doubles(work, (size_t)s->base + 9 * (size_t)p->ncon + 1);
  s->zone = mr_arena_alloc(work, nb + 1);
  s->zone_factored = mr_arena_alloc(work, nb + 1);
  s->zone_before = mr_arena_alloc(work, nb + 1);
  s->cols = mr_arena_ints(work, mc);
  s->W = mr_arena_doubles(work, mc * mc);
  s->Jk = mr_arena_doubles(work, 3 * mc);
  s->maxslide = p->ncon < MR_NEWTON_MAX_SLIDE ? p->ncon : MR_NEWTON_MAX_SLIDE;
  size_t ms = (size_t)s->maxslide;
  s->slide = mr_arena_ints(work, ms + 1);
  s->piv = mr_arena_ints(work, ms + 1);
  s->X = mr_arena_doubles(work, ms * nv + 1);
  s->jac = mr_arena_doubles(work, ms * ms + 1);
  s->rhs = mr_arena_doubles(work, ms + 1);
  s->Snext = mr_arena_doubles(work, (size_t)p->ncon + 1);
  s->zone_outer = mr_arena_alloc(work, nb + 1);
  if (!s->S || !s->D || !s->zone || !s->zone_factored || !s->zone_before || !s->cols || !s->W || !s->Jk ||
      !s->slide || !s->piv || !s->X || !s->jac || !s->rhs || !s->Snext || !s->zone_outer)
    return -1;
  if (mr_tree_chol_init(&s->H, p->m, work)) return -1;
  mr_newton_join(s);
  return mr_tree_chol_analyze(&s->H, work);
}

/* ------------------------------------------------------------------ Newton matrix */

/* The columns of rows [i0, i0 + nr) (ascending, merged) into s->cols and their dense
 * Jacobian (nr x ncols) into s->Jk; returns ncols. */
static int mr_newton_block_rows(mr_newton *s, int i0, int nr) {
  const mr_problem *p = s->p;
  int n = 0, at[3];
  for (int a = 0; a < nr; a++) at[a] = p->nzadr[i0 + a];
  for (;;) {
    int next = -1;
    for (int a = 0; a < nr; a++)
      if (at[a] < p->nzadr[i0 + a + 1] && (next < 0 || p->nzind[at[a]] < next)) next = p->nzind[at[a]];
    if (next < 0) break;
    s->cols[n] = next;
    for (int a = 0; a < nr; a++) {
      int hit = at[a] < p->nzadr[i0 + a + 1] && p->nzind[at[a]] == next;
      s->Jk[3 * n + a] = hit ? p->J[at[a]++] : 0;
    }
    n++;
  }
  return n;
}

/* H += J_b^T D_b J_b for one block of nr rows with its nr x nr D. */
static void mr_newton_add_block(mr_newton *s, int i0, int nr, const double *Db) {
  int nc = mr_newton_block_rows(s, i0, nr);
  for (int a = 0; a < nc; a++) {
    double dj[3] = {0, 0, 0};
    for (int x = 0; x < nr; x++)
      for (int y = 0; y < nr; y++) dj[x] += Db[x * nr + y] * s->Jk[3 * a + y];
    for (int b = 0; b <= a; b++) {
      double w = 0;
      for (int x = 0; x < nr; x++) w += s->Jk[3 * b + x] * dj[x];
      s->W[(size_t)a * nc + b] = w;
    }
  }
  mr_tree_chol_add_block(&s->H, s->cols, nc, s->W);
}

static int mr_newton_factor(mr_newton *s) {
  const mr_model *m = s->m;
  const double *qM = s->d->qM;
  mr_tree_chol_zero(&s->H);
  for (int i = 0; i < s->nv; i++) {
    mr_tree_chol_add_diag(&s->H, i, i, s->p->Adiag[i]);
    int adr = m->dof_Madr[i] + 1;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j], adr++)
      mr_tree_chol_add_diag(&s->H, i, j, qM[adr]);
  }
  for (int i = 0; i < s->base; i++)
    if (s->D[i] != 0) mr_newton_add_block(s, i, 1, s->D + i);
  for (int k = 0; k < s->p->ncon; k++)
    if (s->zone[s->base + k] != 0) mr_newton_add_block(s, s->base + 3 * k, 3, mr_newton_Dc(s, k));
  if (mr_tree_chol_factor(&s->H, 1e-14) < 0) return -1;
  memcpy(s->zone_factored, s->zone, (size_t)mr_newton_nblock(s->p));
  s->factored = 1;
  return 0;
}

/* Whether the factor is H at the current point: every block in the zone it was factored
 * in, and none sliding (a sliding contact's D turns with its slip). */
static int mr_newton_factor_valid(const mr_newton *s) {
  if (!s->factored) return 0;
  const int nb = mr_newton_nblock(s->p);
  for (int b = 0; b < nb; b++)
    if (s->zone[b] != s->zone_factored[b] || (b >= s->base && s->zone[b] == 2)) return 0;
  return 1;
}

/* ------------------------------------------------------------------ line search */

/* dPhi(v + alpha dir)/dalpha, and its derivative. */
static double mr_newton_slope(mr_newton *s, double alpha, double a0, double a1, double *curv) {
  for (int i = 0; i < s->n; i++) s->ua[i] = s->u[i] + alpha * s->Jdir[i];
  double slope = a0 + alpha * a1, c = a1;
  const mr_problem *p = s->p;
  for (int i = 0; i < s->base; i++) {
    double y = -s->ua[i] / s->r[i];
    if (i < p->neq || y > 0) {
      slope -= s->Jdir[i] * y;
      c += s->Jdir[i] * s->Jdir[i] / s->r[i];
    }
  }
  for (int k = 0; k < p->ncon; k++) {
    int i = s->base + 3 * k;
    double r = s->r[i], y[3] = {-s->ua[i] / r, -s->ua[i + 1] / r, -s->ua[i + 2] / r}, l[3], dP[9];
    mr_cone_project_jacobian(y, p->mu[k], l, dP);
    const double *dj = s->Jdir + i;
    for (int a = 0; a < 3; a++) {
      slope -= dj[a] * l[a];
      c += dj[a] * (dP[3 * a] * dj[0] + dP[3 * a + 1] * dj[1] + dP[3 * a + 2] * dj[2]) / r;
    }
  }
  *curv = c;
  return slope;
}

/* The minimizer of the convex Phi(v + alpha dir) over alpha >= 0: the root of its slope,
 * bracketed from alpha = 1 and found by Newton steps safeguarded by bisection. */
static double mr_newton_line_search(mr_newton *s) {
  mr_newton_Amul(s, s->dir, s->tmp);
  double a1 = mr_newton_dot(s->dir, s->tmp, s->nv);
  for (int i = 0; i < s->nv; i++) s->grad[i] = s->v[i] - s->p->v_free[i];
  double a0 = mr_newton_dot(s->grad, s->tmp, s->nv), curv;
  double d0 = mr_newton_slope(s, 0, a0, a1, &curv);
  if (!(d0 < 0)) return 0;
  double lo = 0, hi = 1, d = mr_newton_slope(s, 1, a0, a1, &curv);
  if (fabs(d) <= MR_NEWTON_LS_RTOL * fabs(d0)) return 1;
  while (d < 0 && hi < 1e6) { /* still descending: extend */
    lo = hi;
    hi *= 2;
    d = mr_newton_slope(s, hi, a0, a1, &curv);
  }
  double alpha = hi;
  for (int it = 0; it < MR_NEWTON_LS_ITERS; it++) {
    double step = curv > 0 ? alpha - d / curv : 0.5 * (lo + hi);
    alpha = step > lo && step < hi ? step : 0.5 * (lo + hi);
    d = mr_newton_slope(s, alpha, a0, a1, &curv);
    if (fabs(d) <= MR_NEWTON_LS_RTOL * fabs(d0)) break;
    if (d < 0) lo = alpha;
    else hi = alpha;
  }
  return alpha;
}

/* ------------------------------------------------------------------ iteration */

/* u = J v + bias + S - R lambda_c, then lambda(u), D, zones. */
static void mr_newton_evaluate(mr_newton *s) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->n; i++) s->u[i] = s->Jv[i] + s->bias[i] - s->r[i] * s->center[i];
  for (int k = 0; k < p->ncon; k++) s->u[s->base + 3 * k] += s->S[k];
  mr_newton_project(s, s->u, s->lam, s->D, s->zone);
}

/* The velocities lambda produces: vlam = v_free + A^-1 J^T lambda, c = J vlam + bias.
 * Returns the NCP residual there. */
static double mr_newton_judge(mr_newton *s) {
  const mr_problem *p = s->p;
  mr_newton_JTmul(p, s->lam, s->tmp);
  mr_problem_solve_mass(p, s->vlam, s->tmp, 1);
  for (int i = 0; i < s->nv; i++) s->vlam[i] += p->v_free[i];
  mr_newton_Jmul(p, s->vlam, s->c);
  for (int i = 0; i < s->n; i++) s->c[i] += s->bias[i];
  return mr_ncp_residual(p, s->lam, s->c);
}

/* How far the current point is from solving the primal problem (the velocity error of
 * its rows), and how far that problem still is from the NCP: what moving the centre
 * (*prox) and the shifts (*shift) would change. The outer step is due when the first is
 * small next to the others. */
static int mr_newton_outer_due(const mr_newton *s, double *prox, double *shift) {
  const mr_problem *p = s->p;
  double inner = 0;
  *prox = *shift = 0;
  for (int i = 0; i < s->n; i++) {
    inner = mr_maxd(inner, fabs(s->Jv[i] + s->bias[i] - s->c[i]));
    *prox = mr_maxd(*prox, fabs(s->r[i] * (s->lam[i] - s->center[i])));
  }
  for (int k = 0; k < p->ncon; k++) {
    const double *c = s->c + s->base + 3 * k;
    *shift = mr_maxd(*shift, fabs(s->S[k] - p->mu[k] * mr_len2(c[1], c[2])));
  }
  return inner <= 1e-3 * mr_maxd(*prox, *shift) || inner <= 0.1 * p->tol;
}

/* The De Saxce shifts S = mu |c_T| of the contacts that slide while pushing are a fixed
 * point of the inner problem's solution, one that simple iteration approaches only by a
 * factor of about mu^2 G_TT / G_NN per step (0.7 on a humanoid's foot, and none beyond
 * mu ~ 1.2). So they take a Newton step: F_j(S) = S_j - mu_j |c_T,j(v*(S))| with
 * dv/dS_k = -H^-1 J_k^T D_k e_N (the inner problem's sensitivity, one solve with its
 * factor per sliding contact), and a small dense solve. Every other contact takes the
 * fixed-point value; so do all when the Newton system is singular. */
static int mr_newton_shifts(mr_newton *s) {
  const mr_problem *p = s->p;
  int ns = 0;
  for (int k = 0; k < p->ncon && ns < s->maxslide; k++)
    if (s->zone[s->base + k] == 2 && s->lam[s->base + 3 * k] > 0) s->slide[ns++] = k;
  double *next = s->Snext;
  for (int k = 0; k < p->ncon; k++) {
    const double *c = s->c + s->base + 3 * k;
    next[k] = p->mu[k] * mr_len2(c[1], c[2]);
  }
  if (ns > 0 && !mr_newton_factor_valid(s) && mr_newton_factor(s)) return -1;
  for (int b = 0; b < ns; b++) {
    int k = s->slide[b], i = s->base + 3 * k;
    const double *Dk = mr_newton_Dc(s, k); /* D e_N: its first column */
    double *x = s->X + (size_t)b * s->nv;
    memset(x, 0, (size_t)s->nv * sizeof(double));
    for (int a = 0; a < 3; a++)
      for (int t = p->nzadr[i + a]; t < p->nzadr[i + a + 1]; t++) x[p->nzind[t]] += p->J[t] * Dk[3 * a];
    mr_tree_chol_solve(&s->H, x);
  }
  for (int a = 0; a < ns; a++) {
    int j = s->slide[a], i = s->base + 3 * j;
    double sT = mr_len2(s->c[i + 1], s->c[i + 2]);
    double t[2] = {sT > 0 ? s->c[i + 1] / sT : 0, sT > 0 ? s->c[i + 2] / sT : 0};
    s->rhs[a] = next[j] - s->S[j];
    for (int b = 0; b < ns; b++) {
      const double *x = s->X + (size_t)b * s->nv;
      double dc1 = mr_problem_row_dot(p, i + 1, x), dc2 = mr_problem_row_dot(p, i + 2, x);
      s->jac[(size_t)a * ns + b] = (a == b) + p->mu[j] * (t[0] * dc1 + t[1] * dc2);
    }
  }
  /* the fixed-point step bounds the Newton step: near 1 - dPhi/dS = 0 (the contraction
   * factor close to one) Newton's step is long and jumps between sets of contacts */
  double fixed = 0, step = 0;
  for (int a = 0; a < ns; a++) fixed = mr_maxd(fixed, fabs(s->rhs[a]));
  int newton = ns > 0 && mr_dense_lu_solve(s->jac, ns, s->piv, s->rhs) == 0;
  for (int a = 0; a < ns && newton; a++) step = mr_maxd(step, fabs(s->rhs[a]));
  if (newton && step <= MR_NEWTON_SHIFT_REACH * fixed)
    for (int a = 0; a < ns; a++) next[s->slide[a]] = mr_maxd(0, s->S[s->slide[a]] + s->rhs[a]);
  memcpy(s->S, next, (size_t)p->ncon * sizeof(double));
  return 0;
}

/* Centre and shifts to the current point; eps down tenfold when the last proximal steps
 * contracted slowly (the shifts do not count: they take Newton steps). */
static int mr_newton_outer(mr_newton *s, double prox) {
  const mr_problem *p = s->p;
  const int nb = mr_newton_nblock(p);
  /* once the active set holds from one outer step to the next, Newton no longer needs
   * softness to find it: eps drops a thousandfold, and the next steps land almost on the
   * NCP. It drops tenfold when the proximal steps contract slowly (redundant sets). */
  int settled = s->last_prox > 0 && memcmp(s->zone, s->zone_outer, (size_t)nb) == 0;
  int slow = s->last_prox > 0 && prox > MR_NEWTON_SLOW * s->last_prox;
  int stiffen = (settled || slow) && s->eps > MR_NEWTON_EPS_MIN;
  s->last_prox = prox;
  memcpy(s->zone_outer, s->zone, (size_t)nb);
  if (stiffen) {
    s->eps = mr_maxd((settled ? 1e-3 : 0.1) * s->eps, MR_NEWTON_EPS_MIN);
    mr_newton_regularization(s);
  }
  if (mr_newton_shifts(s)) return -1;
  memcpy(s->center, s->lam, (size_t)s->n * sizeof(double));
  mr_newton_evaluate(s);
  return 0;
}

/* One Newton iteration from the evaluated point: direction, line search, move. Returns 1
 * when a block changed zone (the active set moved: the new point is no solution yet), 0
 * when none did, -1 on failure. */
static int mr_newton_step(mr_newton *s) {
  if (!mr_newton_factor_valid(s) && mr_newton_factor(s)) return -1;
  const int nb = mr_newton_nblock(s->p);
  memcpy(s->zone_before, s->zone, (size_t)nb);
  mr_newton_JTmul(s->p, s->lam, s->tmp);
  for (int i = 0; i < s->nv; i++) s->dir[i] = s->v[i] - s->p->v_free[i];
  mr_newton_Amul(s, s->dir, s->grad);
  for (int i = 0; i < s->nv; i++) s->dir[i] = s->tmp[i] - s->grad[i]; /* -gradient */
  mr_tree_chol_solve(&s->H, s->dir);
  mr_newton_Jmul(s->p, s->dir, s->Jdir);
  double alpha = mr_newton_line_search(s);
  for (int i = 0; i < s->nv; i++) s->v[i] += alpha * s->dir[i];
  for (int i = 0; i < s->n; i++) s->Jv[i] += alpha * s->Jdir[i];
  mr_newton_evaluate(s);
  return memcmp(s->zone_before, s->zone, (size_t)nb) != 0;
}

/* Start from the warm-start impulses: v = v_free + A^-1 J^T lambda, centred there, with
 * their slips as the shifts. Returns the warm start's residual. */
static double mr_newton_start(mr_newton *s, const double *lambda) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->n; i++) s->bias[i] = p->g[i] - mr_problem_row_dot(p, i, p->v_free);
  memcpy(s->lam, lambda, (size_t)s->n * sizeof(double));
  mr_project_bounds(p, s->lam);
  double res = mr_newton_judge(s);
  s->eps = MR_NEWTON_EPS;
  mr_newton_regularization(s);
  memcpy(s->v, s->vlam, (size_t)s->nv * sizeof(double));
  mr_newton_Jmul(p, s->v, s->Jv);
  memcpy(s->center, s->lam, (size_t)s->n * sizeof(double));
  for (int k = 0; k < p->ncon; k++) {
    const double *c = s->c + s->base + 3 * k;
    s->S[k] = p->mu[k] * mr_len2(c[1], c[2]);
  }
  mr_newton_evaluate(s);
  return res;
}

/* The current point into out (the best so far). */
static void mr_newton_finish(const mr_newton *s, mr_solver_out *out) {
  const mr_problem *p = s->p;
  memcpy(out->lambda, s->lam, (size_t)s->n * sizeof(double));
  memcpy(out->c, s->c, (size_t)s->n * sizeof(double));
  if (out->dv)
    for (int i = 0; i < s->nv; i++) out->dv[i] = s->vlam[i] - p->v_free[i];
}

void mr_solve_newton(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  if (!p->J || !p->m || !p->d || !p->Adiag || !p->Gdiag || !p->v_free) {
    mr_solver_fail(p, out);
    return;
  }
  size_t mark = mr_arena_mark(work);
  mr_newton s;
  if (mr_newton_alloc(&s, p, work)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  /* the point's residual is judged (one tree solve) only after steps that left every
   * block in its zone: after one that moved the active set, it is no solution yet */
  double res = mr_newton_start(&s, out->lambda), checkpoint = INFINITY;
  int judged = 1;
  out->status = MR_SOLVER_MAX_ITER;
  out->residual = INFINITY;
  for (;;) {
    if (judged) {
      if (out->history && out->iters > 0) out->history[out->iters - 1] = res;
      if (!isfinite(res)) {
        out->status = out->residual < INFINITY ? MR_SOLVER_MAX_ITER : MR_SOLVER_FAILED;
        break;
      }
      if (res < out->residual) {
        out->residual = res;
        mr_newton_finish(&s, out);
      }
      if (res <= p->tol) {
        out->status = MR_SOLVER_CONVERGED;
        break;
      }
    }
    if (out->iters >= p->max_iter) break;
    /* stalled: MR_NEWTON_STALL iterations without a tenfold gain */
    if (out->iters % MR_NEWTON_STALL == 0) {
      if (out->iters > 0 && out->residual > 0.1 * checkpoint) break;
      checkpoint = out->residual;
    }
    double prox = 0, shift = 0;
    if (judged && mr_newton_outer_due(&s, &prox, &shift) && mr_newton_outer(&s, prox)) {
      out->status = MR_SOLVER_FAILED;
      break;
    }
    int moved = mr_newton_step(&s);
    if (moved < 0) {
      out->status = MR_SOLVER_FAILED;
      break;
    }
    out->iters++;
    judged = !moved || out->iters >= p->max_iter;
    if (judged) res = mr_newton_judge(&s);
    else if (out->history) out->history[out->iters - 1] = NAN;
  }
  mr_arena_restore(work, mark);
}
