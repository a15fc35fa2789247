/* pgs: the NCP projected Gauss-Seidel of papers/002 Alg. 5 (papers/000 Alg. 3 with the
 * disk projection), with successive over-relaxation.
 *
 * One sweep visits the rows in the problem's order and updates each against the current
 * velocity c = G lambda + g, which is kept up to date after every change (c += G_i delta,
 * G symmetric), so a sweep costs O(nrow^2):
 *   bilateral row i:  lambda_i -= omega c_i / G_ii                (unprojected GS)
 *   limit row i:      lambda_i = max(0, lambda_i - omega c_i / G_ii)
 *   contact k:        lambda_N = max(0, lambda_N - omega c_N / G_NN), then, against the
 *                     updated c, lambda_T -= omega c_T / lambda_max(G_TT) (the paper's
 *                     1/min(G_T1T1, G_T2T2) diverges on anisotropic blocks) and lambda_T
 *                     is scaled back into the disk ||lambda_T|| <= mu lambda_N.
 * The disk ("horizontal") projection keeps lambda_N from the normal step, which is what
 * makes the fixed point the true NCP (Signorini, Coulomb and maximum dissipation) rather
 * than the CCP's cone projection. Rows whose G_ii vanishes (a redundant row with a zero
 * Jacobian) are skipped. After each sweep the shared NCP residual (metrics.c) decides
 * convergence.
 *
 * Two forms of the same iteration. With G (small problems: the pipeline forms G when it
 * costs less than the velocity form, delassus.c; hand-built problems) c is kept up to
 * date through G's rows, O(nrow^2) per sweep. Without G (the registry says dense_G = 0,
 * and big scenes do not get it): the velocity change dv = A^-1 J^T lambda is kept instead,
 * a row's velocity is c_i = g_i + J_i dv over J_i's nonzeros, and a change of lambda_i
 * adds delta A^-1 J_i^T over the row's kinematic trees -- O(nnz) per sweep, which is what
 * makes a pile of hundreds of contacts affordable (ODE and Bullet iterate this way). Only
 * G's diagonal blocks are needed, computed once per solve. Scratch (nv + 2 nrow doubles)
 * comes from the arena.
 *
 * Both forms interleave the sweeps with the active-set refinement of active_set.h: a few
 * sweeps find which contacts push, stick and slide, a few Newton rounds on that set give
 * the impulses (kept only if the residual drops), and the sweeps go on from there. An
 * iteration is a sweep or a Newton round (each is one pass over the problem or one linear
 * solve), so iteration counts compare with the other solvers'. Plain
 * Gauss-Seidel converges linearly, and slowest exactly where robots stand: on redundant
 * contact sets (a foot on four points) it spends its sweeps shifting load between rows
 * that the solve settles at once. On the humanoid the mean sweeps per step fell from 84 to
 * 6 and the largest complementarity residual from 4.9e-2 to 6.8e-5 (README, bench).
 */
#include <math.h>
#include <string.h>

#include "active_set.h"
#include "engine/core/arena.h"
#include "ncp.h"
#include "solver.h"

/* Over-relaxation factor: 1 is plain Gauss-Seidel (papers/000: omega in (0, 2], no value
 * generalizes, and > 1 can diverge on the hyperstatic problems contact produces). */
#define MR_PGS_OMEGA 1.0

/* Active-set refinement (active_set.h): first after MR_PGS_REFINE_FIRST sweeps (a warm
 * start usually has the right set by then), then every MR_PGS_REFINE_GAP sweeps while it
 * helps; each refinement that does not lower the residual quadruples the gap, so a problem
 * whose set keeps changing (an impact) spends its time sweeping. */
#define MR_PGS_REFINE_FIRST 2
#define MR_PGS_REFINE_GAP 8

typedef struct mr_pgs_schedule {
  int next, gap;
} mr_pgs_schedule;

/* After sweep `sweeps`: refine when due, and reschedule; the Newton rounds solved are added
 * to *rounds. Returns -1 on arena exhaustion. */
static int mr_pgs_refine(mr_pgs_schedule *s, int sweeps, const mr_problem *p, double *lambda,
                         double *c, double *dv, double *residual, double floor, mr_data *work,
                         int *rounds) {
  if (!work || p->pgs_plain || sweeps != s->next || *residual <= p->tol) return 0;
  int kept = mr_active_set_refine_counted(p, lambda, c, dv, residual, floor, work, rounds);
  s->gap = kept == 1 ? MR_PGS_REFINE_GAP : 4 * s->gap;
  s->next = sweeps + s->gap;
  return kept < 0 ? -1 : 0;
}

/* c += G_i delta (row i of the symmetric G is its column). */
static void mr_pgs_update(const mr_problem *p, double *c, int i, double delta) {
  if (delta == 0) return;
  const int n = p->nrow;
  const double *Gi = p->G + (size_t)i * n;
  for (int k = 0; k < n; k++) c[k] += Gi[k] * delta;
}

static int mr_pgs_usable(double gii, double floor) { return gii > floor; }

/* n iterations ended at residual res (a sweep, or a refinement's Newton rounds, whose own
 * residuals are not kept: they all get the refined one), up to the cap. */
static void mr_pgs_count(const mr_problem *p, mr_solver_out *out, double res, int n) {
  for (int k = 0; k < n && out->iters < p->max_iter; k++) {
    if (out->history) out->history[out->iters] = res;
    out->iters++;
  }
}

static void mr_pgs_contact(const mr_problem *p, double *lambda, double *c, int i, double floor) {
  const int n = p->nrow;
  const double *G = p->G;
  double mu = p->mu[(i - p->neq - p->nlim) / 3];
  double gnn = G[(size_t)i * n + i];
  if (mr_pgs_usable(gnn, floor)) {
    double ln = mr_maxd(0, lambda[i] - MR_PGS_OMEGA * c[i] / gnn);
    mr_pgs_update(p, c, i, ln - lambda[i]);
    lambda[i] = ln;
  }
  /* one common step for both tangential rows, so that at the fixed point c_T is parallel
   * to -lambda_T (maximum dissipation); a 2x2 block solve would tilt it by G_TT^-1. The
   * step is 1/lambda_max(G_TT), not the paper's 1/min(G_T1T1, G_T2T2): the latter
   * overshoots, and diverges, when the block is anisotropic (a fingertip contact's
   * eigenvalues differ 100x); this one never does. */
  double a = G[(size_t)(i + 1) * n + i + 1], b = G[(size_t)(i + 1) * n + i + 2];
  double e = G[(size_t)(i + 2) * n + i + 2];
  double gmax = 0.5 * (a + e) + mr_len2(0.5 * (a - e), b);
  double t1 = lambda[i + 1], t2 = lambda[i + 2];
  if (mr_pgs_usable(gmax, floor)) {
    t1 -= MR_PGS_OMEGA * c[i + 1] / gmax;
    t2 -= MR_PGS_OMEGA * c[i + 2] / gmax;
  }
  double s = mr_len2(t1, t2), radius = mu * lambda[i];
  if (s > radius) {
    double scale = s > 0 ? radius / s : 0;
    t1 *= scale;
    t2 *= scale;
  }
  mr_pgs_update(p, c, i + 1, t1 - lambda[i + 1]);
  mr_pgs_update(p, c, i + 2, t2 - lambda[i + 2]);
  lambda[i + 1] = t1;
  lambda[i + 2] = t2;
}

static void mr_pgs_sweep(const mr_problem *p, double *lambda, double *c, double floor) {
  const int n = p->nrow, base = p->neq + p->nlim;
  for (int i = 0; i < base; i++) {
    double gii = p->G[(size_t)i * n + i];
    if (!mr_pgs_usable(gii, floor)) continue;
    double l = lambda[i] - MR_PGS_OMEGA * c[i] / gii;
    if (i >= p->neq) l = mr_maxd(0, l);
    mr_pgs_update(p, c, i, l - lambda[i]);
    lambda[i] = l;
  }
  for (int i = base; i < n; i += 3) mr_pgs_contact(p, lambda, c, i, floor);
}

/* c = G lambda + g */
static void mr_pgs_velocity(const mr_problem *p, const double *lambda, double *c) {
  const int n = p->nrow;
  for (int i = 0; i < n; i++) {
    const double *Gi = p->G + (size_t)i * n;
    double s = p->g[i];
    for (int j = 0; j < n; j++) s += Gi[j] * lambda[j];
    c[i] = s;
  }
}

static void mr_pgs_dense(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  const int n = p->nrow;
  double *lambda = out->lambda, *c = out->c, maxdiag = 0;
  for (int i = 0; i < n; i++) maxdiag = mr_maxd(maxdiag, p->G[(size_t)i * n + i]);
  double floor = 1e-13 * maxdiag;
  mr_project_bounds(p, lambda);
  mr_pgs_velocity(p, lambda, c);
  out->iters = 0;
  out->status = MR_SOLVER_MAX_ITER;
  out->residual = mr_ncp_residual(p, lambda, c);
  if (out->residual <= p->tol) {
    out->status = MR_SOLVER_CONVERGED;
    return;
  }
  mr_pgs_schedule plan = {MR_PGS_REFINE_FIRST, MR_PGS_REFINE_GAP};
  for (int sweeps = 1; out->iters < p->max_iter; sweeps++) {
    mr_pgs_sweep(p, lambda, c, floor);
    double res = mr_ncp_residual(p, lambda, c);
    int rounds = 0;
    mr_pgs_count(p, out, res, 1);
    if (mr_pgs_refine(&plan, sweeps, p, lambda, c, NULL, &res, floor, work, &rounds) < 0) {
      out->status = MR_SOLVER_FAILED;
      break;
    }
    mr_pgs_count(p, out, res, rounds);
    out->residual = res;
    if (!isfinite(res)) {
      out->status = MR_SOLVER_FAILED;
      break;
    }
    if (res <= p->tol) {
      out->status = MR_SOLVER_CONVERGED;
      break;
    }
  }
  mr_pgs_velocity(p, lambda, c);
}

/* ------------------------------------------------------------------ velocity form */

typedef struct mr_pgs_sparse {
  const mr_problem *p;
  double *dv;   /* nv: A^-1 J^T lambda */
  double *diag; /* nrow: G_ii for non-contact rows and normals; lambda_max(G_TT) on t1 */
  double floor;
} mr_pgs_sparse;

static void mr_pgs_diagonal(mr_pgs_sparse *s) {
  const mr_problem *p = s->p;
  const int base = p->neq + p->nlim;
  double maxdiag = 0;
  for (int i = 0; i < base; i++) s->diag[i] = mr_problem_entry(p, i, i);
  for (int i = base; i < p->nrow; i += 3) {
    double a = mr_problem_entry(p, i + 1, i + 1), b = mr_problem_entry(p, i + 1, i + 2);
    double e = mr_problem_entry(p, i + 2, i + 2);
    s->diag[i] = mr_problem_entry(p, i, i);
    s->diag[i + 1] = 0.5 * (a + e) + mr_len2(0.5 * (a - e), b);
    s->diag[i + 2] = s->diag[i + 1];
  }
  for (int i = 0; i < p->nrow; i++) maxdiag = mr_maxd(maxdiag, s->diag[i]);
  s->floor = 1e-13 * maxdiag;
}

static void mr_pgs_sparse_change(mr_pgs_sparse *s, double *lambda, int i, double value) {
  double delta = value - lambda[i];
  if (delta != 0) mr_problem_add_impulse(s->p, s->dv, i, delta);
  lambda[i] = value;
}

static void mr_pgs_sparse_contact(mr_pgs_sparse *s, double *lambda, int i) {
  const mr_problem *p = s->p;
  double mu = p->mu[(i - p->neq - p->nlim) / 3];
  double gnn = s->diag[i], gmax = s->diag[i + 1];
  if (mr_pgs_usable(gnn, s->floor)) {
    double cn = mr_problem_row_velocity(p, s->dv, i);
    mr_pgs_sparse_change(s, lambda, i, mr_maxd(0, lambda[i] - MR_PGS_OMEGA * cn / gnn));
  }
  double t1 = lambda[i + 1], t2 = lambda[i + 2];
  if (mr_pgs_usable(gmax, s->floor)) {
    t1 -= MR_PGS_OMEGA * mr_problem_row_velocity(p, s->dv, i + 1) / gmax;
    t2 -= MR_PGS_OMEGA * mr_problem_row_velocity(p, s->dv, i + 2) / gmax;
  }
  double len = mr_len2(t1, t2), radius = mu * lambda[i];
  if (len > radius) {
    double scale = len > 0 ? radius / len : 0;
    t1 *= scale;
    t2 *= scale;
  }
  mr_pgs_sparse_change(s, lambda, i + 1, t1);
  mr_pgs_sparse_change(s, lambda, i + 2, t2);
}

static void mr_pgs_sparse_sweep(mr_pgs_sparse *s, double *lambda) {
  const mr_problem *p = s->p;
  const int base = p->neq + p->nlim;
  for (int i = 0; i < base; i++) {
    if (!mr_pgs_usable(s->diag[i], s->floor)) continue;
    double l = lambda[i] - MR_PGS_OMEGA * mr_problem_row_velocity(p, s->dv, i) / s->diag[i];
    if (i >= p->neq) l = mr_maxd(0, l);
    mr_pgs_sparse_change(s, lambda, i, l);
  }
  for (int i = base; i < p->nrow; i += 3) mr_pgs_sparse_contact(s, lambda, i);
}

static void mr_pgs_sparse_velocity(const mr_pgs_sparse *s, double *c) {
  for (int i = 0; i < s->p->nrow; i++) c[i] = mr_problem_row_velocity(s->p, s->dv, i);
}

static void mr_pgs_velocity_form(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  const int n = p->nrow;
  size_t mark = mr_arena_mark(work);
  mr_pgs_sparse s = {.p = p, .dv = mr_arena_doubles(work, (size_t)p->nv),
                     .diag = mr_arena_doubles(work, (size_t)n)};
  out->iters = 0;
  if (!s.dv || !s.diag) {
    out->status = MR_SOLVER_FAILED;
    out->residual = INFINITY;
    mr_arena_restore(work, mark);
    return;
  }
  double *lambda = out->lambda, *c = out->c;
  mr_pgs_diagonal(&s);
  mr_project_bounds(p, lambda);
  memset(s.dv, 0, (size_t)p->nv * sizeof(double));
  for (int j = 0; j < n; j++)
    if (lambda[j] != 0) mr_problem_add_impulse(p, s.dv, j, lambda[j]);
  mr_pgs_sparse_velocity(&s, c);
  out->status = MR_SOLVER_MAX_ITER;
  out->residual = mr_ncp_residual(p, lambda, c);
  if (out->residual <= p->tol) out->status = MR_SOLVER_CONVERGED;
  mr_pgs_schedule plan = {MR_PGS_REFINE_FIRST, MR_PGS_REFINE_GAP};
  for (int sweeps = 1; out->status == MR_SOLVER_MAX_ITER && out->iters < p->max_iter; sweeps++) {
    mr_pgs_sparse_sweep(&s, lambda);
    mr_pgs_sparse_velocity(&s, c);
    double res = mr_ncp_residual(p, lambda, c);
    int rounds = 0;
    mr_pgs_count(p, out, res, 1);
    if (mr_pgs_refine(&plan, sweeps, p, lambda, c, s.dv, &res, s.floor, work, &rounds) < 0)
      res = INFINITY;
    mr_pgs_count(p, out, res, rounds);
    out->residual = res;
    if (!isfinite(res)) out->status = MR_SOLVER_FAILED;
    else if (res <= p->tol) out->status = MR_SOLVER_CONVERGED;
  }
  mr_arena_restore(work, mark);
}

void mr_solve_pgs(const mr_problem *p, mr_solver_out *out, mr_data *work) {
  if (p->G) mr_pgs_dense(p, out, work);
  else mr_pgs_velocity_form(p, out, work);
}
