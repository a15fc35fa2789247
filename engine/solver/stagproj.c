/* `stagproj`: staggered projections on the NCP (papers/002 Alg. 6, Kaufman et al. 2008,
 * Le Lidec et al. 2021), each projection solved to tolerance by ADMM as the method relies on.
 *
 * A fixed point between two convex QPs on the blocks of G (R added to the diagonal):
 *   normal QP    min 1/2 l_N^T G_NN l_N + (g_N + G_NT l_T)^T l_N   (the digest's fix of the
 *                printed g_T), over bilateral rows free, limit rows and contact normals >= 0;
 *   friction QP  min 1/2 l_T^T G_TT l_T + (g_T + G_TN l_N)^T l_T over the disks
 *                |l_T,k| <= mu_k l_N,k.
 * A fixed point satisfies Signorini (normal QP), the cone and maximum dissipation (friction
 * QP): it solves the NCP. There is no convergence guarantee (digest sec. 3.8); in practice
 * a few outer iterations, provided each QP is solved accurately: with capped projected
 * Gauss-Seidel as inner solver the outer iteration crawled on a stack of boxes (141 s of
 * wall time for 10 s at 1 ms, issue 17), because the normal QP of a stack is as
 * ill-conditioned as the stack is tall.
 *
 * Inner solvers. The normal QP has bounds only: projected Newton (stag_bound_qp_solve), exact
 * in a few iterations. The friction QP (disks) by ADMM as ContactBench's (papers/002
 * digest sec. 3.8), on the split x = z, z in the disks, with a proximal term eta (so a
 * rank-deficient block, four coplanar contacts, still factors):
 *   x <- (Q + (rho + eta) I)^-1 (rho z - y + eta x - b)     (dense Cholesky of the block)
 *   z <- P(x + y / rho)                                     (R+ / free, or the disks)
 *   y <- y + rho (x - z)
 * with the spectral penalty of admm.c (rho0 = sqrt(L eta) (L / eta)^0.4, L = lambda_max(Q)
 * by power iteration; rho times or over (L / eta)^0.1 when the ADMM residuals are 10x apart,
 * and a new factor). It starts from the current impulses with y = -(Q z + b), so a solved
 * QP is a fixed point at once. Both stop when the QP's natural-map residual in velocity
 * units, max over blocks of |z - P(z - s grad)| / s with s = 1 / max diag, is below
 * tol / 10, or after STAG_INNER iterations.
 *
 * Outer stopping measure: the NCP residual of the iterate (mr_ncp_residual, what the
 * metrics report). The outer iteration converges linearly where normal and friction
 * impulses are coupled (a box's corners while it slides and stops: 0.6 per iteration), as
 * the method's alternation implies. Iterations (out->iters): every inner iteration of both
 * QPs (a Newton step or an ADMM step), summed over the outer iterations (registry.c); an
 * outer iteration whose QPs were already solved counts as one. The history holds, for each,
 * the NCP residual of the outer iteration it belongs to. p->max_iter caps the outer
 * iterations.
 * Dual solver on G, g, mu and R.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "dense.h"
#include "ncp.h"
#include "solver.h"

#define STAG_INNER 500         /* ADMM iterations per QP solve at most */
#define STAG_ETA 1e-6          /* ADMM's proximal term */
#define STAG_PROX 1e-8         /* the normal QP's proximal weight, relative to max diag */
#define STAG_RATIO 10.0        /* ADMM residual ratio that changes rho */
#define STAG_INIT_EXPONENT 0.4
#define STAG_ADAPT_EXPONENT 0.1
#define STAG_POWER_ITERS 10

/* One of the two QPs: rows idx[0..n) of the problem, their block Q (+ R on its diagonal)
 * and its factor, and the ADMM state. Contact blocks: the normal QP's are scalar rows
 * (first `free` of them unbounded), the friction QP's are pairs (disk k of radius rad[k]). */
typedef struct stag_qp {
  int n, nfree, disks;  /* disks: 1 for the friction QP */
  int *idx;             /* n: row of the problem */
  int *set;             /* n: the free variables of a projected Newton step (normal QP) */
  double *Q, *L;        /* n x n */
  double *b;            /* n: the QP's linear term */
  double *x, *z, *y, *zprev, *rhs, *grad;
  double *rad;          /* n / 2: disk radii (friction QP) */
  double rho, kappa, lmax, smax;
} stag_qp;

static double stag_reg(const mr_problem *p, int i) { return p->R ? p->R[i] : 0.0; }

static int stag_qp_alloc(stag_qp *q, int n, mr_data *work) {
  size_t nn = (size_t)n * (size_t)n, m = (size_t)n + 1;
  q->n = n;
  q->idx = mr_arena_ints(work, m);
  q->set = mr_arena_ints(work, m);
  q->Q = mr_arena_doubles(work, nn + 1);
  q->L = mr_arena_doubles(work, nn + 1);
  double *v = mr_arena_doubles(work, 8 * m);
  if (!q->idx || !q->set || !q->Q || !q->L || !v) return 0;
  q->b = v, q->x = v + m, q->z = v + 2 * m, q->y = v + 3 * m;
  q->zprev = v + 4 * m, q->rhs = v + 5 * m, q->grad = v + 6 * m, q->rad = v + 7 * m;
  return 1;
}

/* Q = G (+ R) on the QP's rows, its largest eigenvalue, and the initial penalty. */
static void stag_qp_setup(const mr_problem *p, stag_qp *q, mr_data *work) {
  const int n = q->n, N = p->nrow;
  q->smax = 0;
  for (int a = 0; a < n; a++) {
    for (int c = 0; c < n; c++) q->Q[(size_t)a * n + c] = p->G[(size_t)q->idx[a] * N + q->idx[c]];
    q->Q[(size_t)a * n + a] += stag_reg(p, q->idx[a]);
    q->smax = fmax(q->smax, q->Q[(size_t)a * n + a]);
  }
  size_t mark = mr_arena_mark(work);
  double *pw = mr_arena_doubles(work, 2 * (size_t)n + 2);
  q->lmax = pw ? mr_dense_power_max(q->Q, n, pw, STAG_POWER_ITERS, 1e-8) : q->smax;
  mr_arena_restore(work, mark);
  q->lmax = fmax(q->lmax, fmax(q->smax, STAG_ETA));
  q->kappa = fmax(q->lmax / STAG_ETA, 1.0 + 1e-3);
  q->rho = sqrt(q->lmax * STAG_ETA) * pow(q->kappa, STAG_INIT_EXPONENT);
}

static int stag_qp_factor(stag_qp *q) {
  double shift = q->rho + STAG_ETA;
  return mr_dense_cholesky(q->L, q->Q, NULL, shift, q->n, 0.5 * shift) >= 0;
}

/* z <- P(z): the normal QP's bounds, or the friction QP's disks. */
static void stag_qp_project(const stag_qp *q, double *z) {
  if (!q->disks) {
    for (int a = q->nfree; a < q->n; a++) z[a] = fmax(z[a], 0.0);
    return;
  }
  for (int k = 0; k < q->n / 2; k++) {
    double *t = z + 2 * k, s = mr_len2(t[0], t[1]), r = q->rad[k];
    if (s > r) {
      double sc = s > 0 ? r / s : 0;
      t[0] *= sc, t[1] *= sc;
    }
  }
}

/* grad = Q z + b. */
static void stag_qp_gradient(const stag_qp *q, const double *z, double *grad) {
  mr_dense_matvec(q->Q, q->n, z, grad);
  for (int a = 0; a < q->n; a++) grad[a] += q->b[a];
}

/* The QP's natural-map residual at z in velocity units (grad must be Q z + b). */
static double stag_qp_residual(const stag_qp *q, const double *z, const double *grad) {
  if (!(q->smax > 0)) return 0;
  double s = 1 / q->smax, r = 0;
  for (int a = 0; a < q->n; a++) q->rhs[a] = z[a] - s * grad[a];
  stag_qp_project(q, q->rhs);
  for (int a = 0; a < q->n; a++) r = mr_maxd(r, fabs(z[a] - q->rhs[a]) / s);
  return r;
}

/* ADMM on the QP from z = the current impulses; returns the iterations done (-1: the
 * factorization failed) and leaves the feasible solution in z. */
static int stag_qp_solve(stag_qp *q, double tol) {
  const int n = q->n;
  if (n == 0) return 0;
  stag_qp_project(q, q->z);
  stag_qp_gradient(q, q->z, q->grad);
  if (stag_qp_residual(q, q->z, q->grad) <= tol) return 0;
  for (int a = 0; a < n; a++) q->y[a] = -q->grad[a], q->x[a] = q->z[a];
  if (!stag_qp_factor(q)) return -1;
  int it = 0;
  while (it < STAG_INNER) {
    it++;
    for (int a = 0; a < n; a++) {
      q->rhs[a] = q->rho * q->z[a] - q->y[a] + STAG_ETA * q->x[a] - q->b[a];
      q->zprev[a] = q->z[a];
    }
    mr_dense_cholesky_solve(q->L, n, q->rhs);
    memcpy(q->x, q->rhs, (size_t)n * sizeof(double));
    for (int a = 0; a < n; a++) q->z[a] = q->x[a] + q->y[a] / q->rho;
    stag_qp_project(q, q->z);
    double rp = 0, rd = 0;
    for (int a = 0; a < n; a++) {
      q->y[a] += q->rho * (q->x[a] - q->z[a]);
      rp = mr_maxd(rp, fabs(q->x[a] - q->z[a]));
      rd = mr_maxd(rd, q->rho * fabs(q->z[a] - q->zprev[a]));
    }
    stag_qp_gradient(q, q->z, q->grad);
    if (stag_qp_residual(q, q->z, q->grad) <= tol) break;
    double factor = pow(q->kappa, STAG_ADAPT_EXPONENT), rho = q->rho;
    if (rp > STAG_RATIO * rd) rho = fmin(rho * factor, 1e12);
    else if (rd > STAG_RATIO * rp) rho = fmax(rho / factor, 1e-12);
    if (rho != q->rho) {
      q->rho = rho;
      if (!stag_qp_factor(q)) return -1;
    }
  }
  return it;
}

/* The normal QP, a convex QP with bounds, by projected Newton (Bertsekas) on the proximal
 * objective f(z) + eps/2 |z - z0|^2, z0 the QP's starting point (last outer iteration's
 * impulses) and eps = STAG_PROX times the largest diagonal. The proximal term does for this
 * solver what ADMM's does: a singular block (a box's four coplanar normals) has a line of
 * minimizers, and the one nearest the start is taken, so the load does not jump between
 * contacts from one outer iteration to the next; without it the friction QP's disks
 * (mu l_N per contact) changed every time and the outer iteration stalled on a sliding
 * box. It shifts the minimizer by eps |z - z0|, far below the tolerance. Each iteration
 * holds the variables at or within a projected-gradient step of their bound that the
 * gradient pushes onto it (the epsilon-active set) and moves them by that gradient step
 * (Bertsekas's diagonal scaling), takes the Newton step of the others, cut along the
 * projected arc until the objective falls by Armijo's fraction. The
 * stop is the plain QP's natural-map residual. Returns the iterations done, -1 if a
 * factor failed. */
static int stag_bound_qp_solve(stag_qp *q, double tol) {
  const int n = q->n;
  const double eps = STAG_PROX * (q->smax > 0 ? q->smax : 1), s = q->smax > 0 ? 1 / q->smax : 0;
  double *z0 = q->y, *grad = q->rhs; /* rhs: the proximal gradient, then the step */
  stag_qp_project(q, q->z);
  memcpy(z0, q->z, (size_t)n * sizeof(double));
  for (int it = 0; it < STAG_INNER; it++) {
    stag_qp_gradient(q, q->z, q->grad);
    if (stag_qp_residual(q, q->z, q->grad) <= tol) return it;
    for (int a = 0; a < n; a++) grad[a] = q->grad[a] + eps * (q->z[a] - z0[a]);
    int m = 0;
    for (int a = 0; a < n; a++)
      if (a < q->nfree || grad[a] <= 0 || q->z[a] > s * grad[a]) q->set[m++] = a;
    for (int r = 0; r < m; r++)
      for (int c = 0; c < m; c++) q->L[(size_t)r * m + c] = q->Q[(size_t)q->set[r] * n + q->set[c]];
    if (mr_dense_cholesky(q->L, q->L, NULL, eps, m, eps) < 0) return -1;
    double *step = q->zprev;
    for (int r = 0; r < m; r++) step[r] = -grad[q->set[r]];
    mr_dense_cholesky_solve(q->L, m, step);
    /* the held variables take the scaled gradient step that puts them on their bound */
    for (int a = 0; a < n; a++) q->x[a] = -s * grad[a];
    for (int r = 0; r < m; r++) q->x[q->set[r]] = step[r];
    double alpha = 1;
    int moved = 0;
    for (int cut = 0; cut < 40 && !moved; cut++, alpha *= 0.5) {
      double slope = 0, curve = 0;
      for (int a = 0; a < n; a++) step[a] = q->z[a] + alpha * q->x[a];
      stag_qp_project(q, step);
      for (int a = 0; a < n; a++) {
        step[a] -= q->z[a];
        slope += grad[a] * step[a];
      }
      for (int a = 0; a < n; a++)
        curve += step[a] * (mr_dense_row_dot(q->Q, n, a, step) + eps * step[a]);
      /* the exact change of the quadratic objective, free of cancellation near the minimum */
      moved = slope < 0 && slope + 0.5 * curve <= 1e-4 * slope;
    }
    if (!moved) return it + 1; /* no descent left: the round-off floor */
    for (int a = 0; a < n; a++) q->z[a] += step[a];
    stag_qp_project(q, q->z);
  }
  return STAG_INNER;
}

/* The two QPs' rows: bilateral rows first (free), then limits and contact normals; the
 * contacts' tangent pairs. */
static void stag_partition(const mr_problem *p, stag_qp *nq, stag_qp *tq) {
  int base = p->neq + p->nlim, a = 0;
  for (int i = 0; i < base; i++) nq->idx[a++] = i;
  for (int k = 0; k < p->ncon; k++) nq->idx[a++] = base + 3 * k;
  for (int k = 0; k < p->ncon; k++) {
    tq->idx[2 * k] = base + 3 * k + 1;
    tq->idx[2 * k + 1] = base + 3 * k + 2;
  }
  nq->nfree = p->neq, nq->disks = 0;
  tq->nfree = 0, tq->disks = 1;
}

/* b = g + (G + R) l over the QP's rows minus the QP's own part: the other block's pull. */
static void stag_linear_term(const mr_problem *p, const double *l, stag_qp *q) {
  for (int a = 0; a < q->n; a++) {
    int i = q->idx[a];
    double s = mr_dense_row_dot(p->G, p->nrow, i, l) + p->g[i] + stag_reg(p, i) * l[i];
    for (int c = 0; c < q->n; c++) s -= q->Q[(size_t)a * q->n + c] * l[q->idx[c]];
    q->b[a] = s;
    q->z[a] = l[i];
  }
}

static void stag_store(const stag_qp *q, double *l) {
  for (int a = 0; a < q->n; a++) l[q->idx[a]] = q->z[a];
}

/* c = (G + R) l + g and the NCP residual of l. */
static double stag_outer_residual(const mr_problem *p, const double *l, double *c) {
  for (int i = 0; i < p->nrow; i++)
    c[i] = mr_dense_row_dot(p->G, p->nrow, i, l) + p->g[i] + stag_reg(p, i) * l[i];
  return mr_ncp_residual(p, l, c);
}

/* Counts n inner iterations, each with the outer residual res in the history. */
static void stag_count(mr_solver_out *out, int cap, int n, double res) {
  for (int k = 0; k < n; k++, out->iters++)
    if (out->history && out->iters < cap) out->history[out->iters] = res;
}

void mr_solve_stagproj(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  out->iters = 0;
  if (!mr_problem_input_ok(p)) {
    mr_solver_fail(p, out);
    return;
  }
  int n = p->nrow, base = p->neq + p->nlim, cap = out->history_cap > 0 ? out->history_cap : p->max_iter;
  double *l = out->lambda, *c = out->c;
  if (!mr_dense_is_finite(l, n)) memset(l, 0, sizeof(double) * (size_t)n);
  mr_project_bounds(p, l);
  size_t mark = mr_arena_mark(work);
  stag_qp nq, tq;
  memset(&nq, 0, sizeof nq);
  memset(&tq, 0, sizeof tq);
  if (!stag_qp_alloc(&nq, base + p->ncon, work) || !stag_qp_alloc(&tq, 2 * p->ncon, work)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  stag_partition(p, &nq, &tq);
  stag_qp_setup(p, &nq, work);
  stag_qp_setup(p, &tq, work);
  double res = stag_outer_residual(p, l, c), inner_tol = 0.1 * p->tol;
  out->status = res <= p->tol ? MR_SOLVER_CONVERGED : MR_SOLVER_MAX_ITER;
  for (int outer = 0; outer < p->max_iter && out->status == MR_SOLVER_MAX_ITER; outer++) {
    stag_linear_term(p, l, &nq);
    int itn = stag_bound_qp_solve(&nq, inner_tol);
    if (itn >= 0) stag_store(&nq, l);
    for (int k = 0; k < p->ncon; k++) tq.rad[k] = p->mu[k] * fmax(l[base + 3 * k], 0.0);
    stag_linear_term(p, l, &tq);
    int itt = itn >= 0 ? stag_qp_solve(&tq, inner_tol) : -1;
    if (itt >= 0) stag_store(&tq, l);
    res = stag_outer_residual(p, l, c);
    /* an outer iteration whose QPs were already solved still counts as one */
    stag_count(out, cap, itn + itt > 0 ? itn + itt : 1, res);
    if (itn < 0 || itt < 0 || !isfinite(res)) {
      out->status = MR_SOLVER_FAILED;
      break;
    }
    if (res <= p->tol) out->status = MR_SOLVER_CONVERGED;
  }
  mr_arena_restore(work, mark);
  if (out->status == MR_SOLVER_FAILED || !mr_dense_is_finite(l, n)) {
    mr_solver_fail(p, out);
    return;
  }
  out->residual = res;
  mr_dense_matvec(p->G, n, l, c);
  for (int i = 0; i < n; i++) c[i] += p->g[i];
}
