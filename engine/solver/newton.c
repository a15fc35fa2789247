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
 * to lambda whenever F is nearly zero (a proximal point step), so that r only shapes the
 * path: a soft start (eps = 1e-2, MuJoCo's and SAP's compliance is of this order) finds
 * which contacts push, stick and slide in a few iterations, and eps drops once they stay.
 * A step whose contacts persist skips the soft start: its warm start is last step's
 * answer, the zones those impulses lie in are the likely zones of this step's, and in
 * fixed zones F is linear, so one Newton step at a small eps from that linearization lands
 * on the answer (mr_newton_guess; a resting robot or stack converges in that one
 * iteration). Only when a block changes zone does the solve restart soft. Each later
 * proximal step is followed by the same kind of step, from the zones of the impulses the
 * centre moved to (mr_newton_recentred_step).
 *
 * Newton's matrix dF/dv = A + J^T D J, D = dP_h/dy / r per block, is symmetric but for one
 * rank-one term per sliding contact (friction follows the normal impulse: d lambda_T /
 * d y_N = mu e). Its symmetric part is sparse over the kinematic trees and factored by
 * block Cholesky (tree_cholesky.h): a robot lying on the floor is one dense block of its
 * dofs, a pile of boxes a block per box with fill only where boxes touch; the rank-one
 * terms are added by the Sherman-Morrison-Woodbury formula (one solve per sliding contact,
 * a small dense system). Redundant contact sets (a foot on four points, a box on its
 * face) need no special care: A is positive definite and redundant rows only add to it.
 * The step length comes from a backtracking search on the momentum error
 * m(v) = 1/2 F^T A^-1 F = 1/2 (v - v_lambda)^T A (v - v_lambda), v_lambda = v_free +
 * A^-1 J^T lambda(v), of which Newton's direction is a descent direction.
 *
 * Every iterate is judged by the NCP measures of ncp.c with the velocities its impulses
 * produce, c = J v_lambda + bias: the numbers a user sees in the metrics, not a measure of
 * the method's own; the solver stops when the primal, dual and complementarity residuals
 * and the natural map are all at most p->tol (complementarity alone lets a light contact
 * separate: lambda_N = 0.01 and c_N = 1e-6 have a product of 1e-8, a natural map of 1e-6). iters counts
 * Newton iterations; the proximal steps in between are not iterations.
 */
#include <math.h>
#include <string.h>

#include "dense.h"
#include "engine/core/arena.h"
#include "ncp.h"
#include "solver.h"
#include "tree_cholesky.h"

/* r_i = eps max(G_ii, MR_NEWTON_FLOOR max_j G_jj). eps starts at MR_NEWTON_EPS; once the
 * zones hold from one proximal step to the next it drops a thousandfold (down to
 * MR_NEWTON_EPS_MIN), and tenfold when the proximal steps contract slowly (redundant,
 * ill-conditioned sets). */
#define MR_NEWTON_EPS 1e-2
#define MR_NEWTON_EPS_MIN 1e-8
#define MR_NEWTON_SLOW 0.25
#define MR_NEWTON_FLOOR 1e-9
/* eps of the step from the warm start's zones: small enough that the proximal term's bias,
 * eps G_ii times the change of the impulses since last step, is below the tolerance at
 * rest; not so small that a sliding contact's linearization (on its cone's rim) overshoots. */
#define MR_NEWTON_EPS_GUESS 1e-6

/* Sliding contacts whose rank-one terms enter Newton's matrix exactly, at most; beyond
 * them the direction is a quasi-Newton one. */
#define MR_NEWTON_MAX_SLIDE 48

/* Iterations without a tenfold drop of the best residual after which the solve stops
 * (reported as not converged: the constraint stage then hands the best point to pgs): many
 * contacts sliding across the kinks of the friction law (a pile in motion) leave Newton's
 * model good for short steps only, and PGS's per-contact projections do better there. */
#define MR_NEWTON_STALL 12

/* Problems with more rows than this are declined (reported as not converged after no
 * iteration, so the constraint stage hands them to pgs, velocity form). Large problems are
 * piles of free bodies, where many contacts slide: across the kinks of the friction law
 * Newton's model holds for short steps only, and it stalls where PGS's per-contact
 * projections are cheaper and do as well. The sliding contacts' solves are confined to
 * their group of trees now, but humanoid100 with the cap lifted still stalls on most steps
 * and takes about three times pgs's time (README, Long horizons). A robot on the floor or
 * a stack of boxes has tens of rows. */
#define MR_NEWTON_MAX_ROWS 240

/* Backtracking: halvings at most, and the Armijo fraction of the predicted decrease. */
#define MR_NEWTON_LS_HALVINGS 20
#define MR_NEWTON_ARMIJO 1e-4

/* Zones of a block: no impulse, inside (sticking / active limit / bilateral), sliding. */
enum { MR_ZONE_OFF = 0, MR_ZONE_IN = 1, MR_ZONE_SLIDE = 2 };

typedef struct mr_newton {
  const mr_problem *p;
  const mr_model *m;
  const mr_data *d;
  int nv, n, base;
  double *r;        /* nrow: proximal weights */
  double *bias;     /* nrow: g - J v_free */
  double *center;   /* nrow: lambda_c */
  double *v, *dir, *vlam, *tmp, *v0, *err; /* nv (v0: the step's start; err: v - vlam) */
  double *Av, *Av0, *Adir; /* nv: A (v - v_free) at v and at v0, A dir: along a line these
                              are combined, not multiplied again */
  double *Jv, *Jdir, *Jv0, *lam, *c, *y; /* nrow */
  double *D;        /* symmetric part of D per block: 1 for the first base rows, 9 per contact */
  double *slip;     /* 2 per contact: mu e of a sliding one */
  unsigned char *zone, *zone_factored, *zone_outer; /* per block */
  int factored;     /* H holds the factor for zone_factored, every block constant there */
  double eps, last_prox;
  double merit;     /* m(v) at the current point */
  double alpha;
  mr_tree_chol H;
  int *cols;        /* assembly: a block's columns */
  double *W, *Jk;
  int maxslide;     /* the Woodbury correction: */
  int *slide, *piv; /* its contacts, pivots, */
  double *Y, *jac, *rhs; /* H^-1 J_k^T (0, mu e) / r, I + Q^T Y, and the small solve */
} mr_newton;

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

/* ------------------------------------------------------------------ projections */

/* P_h for one contact and, when D is given, the symmetric part of dP_h/dy in D and the
 * rank-one term's mu e in slip. Returns the zone. */
static int mr_newton_contact(const double y[3], double mu, double l[3], double D[9], double slip[2]) {
  if (!(y[0] > 0)) {
    l[0] = l[1] = l[2] = 0;
    if (D) memset(D, 0, 9 * sizeof(double));
    return MR_ZONE_OFF;
  }
  double s = mr_len2(y[1], y[2]), radius = mu * y[0];
  if (s <= radius) {
    memcpy(l, y, 3 * sizeof(double));
    if (D)
      for (int a = 0; a < 9; a++) D[a] = a % 4 == 0;
    return MR_ZONE_IN;
  }
  double e[2] = {y[1] / s, y[2] / s}, k = radius / s;
  l[0] = y[0];
  l[1] = radius * e[0];
  l[2] = radius * e[1];
  if (D) {
    memset(D, 0, 9 * sizeof(double));
    D[0] = 1;
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++) D[3 * (a + 1) + b + 1] = k * ((a == b) - e[a] * e[b]);
    slip[0] = mu * e[0];
    slip[1] = mu * e[1];
  }
  return MR_ZONE_SLIDE;
}

/* y = lambda_c - (J v + bias) / r from Jv, then lambda = P_h(y); with D, slip and zones
 * when D is given. */
static void mr_newton_project(mr_newton *s, const double *Jv, double *lam, double *D) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->n; i++) s->y[i] = s->center[i] - (Jv[i] + s->bias[i]) / s->r[i];
  for (int i = 0; i < s->base; i++) {
    int on = i < p->neq || s->y[i] > 0;
    lam[i] = on ? s->y[i] : 0;
    if (!D) continue;
    D[i] = on ? 1 / s->r[i] : 0;
    s->zone[i] = (unsigned char)on;
  }
  for (int k = 0; k < p->ncon; k++) {
    int i = s->base + 3 * k;
    double *Dk = D ? D + s->base + 9 * k : NULL;
    int z = mr_newton_contact(s->y + i, p->mu[k], lam + i, Dk, s->slip + 2 * k);
    if (!D) continue;
    s->zone[s->base + k] = (unsigned char)z;
    for (int a = 0; a < 9; a++) Dk[a] /= s->r[i];
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

static size_t mr_newton_max_slide(size_t ncon) { return ncon < MR_NEWTON_MAX_SLIDE ? ncon : MR_NEWTON_MAX_SLIDE; }

size_t mr_newton_scratch_bytes(const mr_model *m, size_t nrow, size_t maxrow) {
  size_t nv = (size_t)m->nv, mc = mr_newton_block_cols(maxrow, nv) + 1;
  size_t ms = mr_newton_max_slide(nrow / 3), ncon = nrow / 3 + 1;
  size_t doubles = 9 * (nv + 1) + 9 * (nrow + 1) + 9 * ncon + 2 * ncon + mc * mc + 3 * mc +
                   ms * (nv + ms + 1) + 3;
  return doubles * sizeof(double) + (mc + 2 * ms + 2) * sizeof(int) + 3 * (nrow + 1) +
         mr_tree_chol_bytes(m) + 32 * MR_ALIGN;
}

static int mr_newton_alloc(mr_newton *s, const mr_problem *p, mr_data *work) {
  const size_t nv = (size_t)p->nv, n = (size_t)p->nrow, nb = (size_t)mr_newton_nblock(p);
  int maxcols = 0;
  for (int i = 0; i < p->nrow; i++)
    if (p->nzadr[i + 1] - p->nzadr[i] > maxcols) maxcols = p->nzadr[i + 1] - p->nzadr[i];
  size_t mc = mr_newton_block_cols((size_t)maxcols, nv) + 1, ncon = (size_t)p->ncon + 1;
  *s = (mr_newton){.p = p, .m = p->m, .d = p->d, .nv = p->nv, .n = p->nrow,
                   .base = p->neq + p->nlim};
  double **vecs_nv[] = {&s->v, &s->dir, &s->vlam, &s->tmp, &s->v0, &s->err, &s->Av, &s->Av0, &s->Adir};
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
  s->cols = mr_arena_ints(work, mc);
  s->W = mr_arena_doubles(work, mc * mc);
  s->Jk = mr_arena_doubles(work, 3 * mc);
  s->maxslide = (int)mr_newton_max_slide((size_t)p->ncon);
  size_t ms = (size_t)s->maxslide;
  s->slide = mr_arena_ints(work, ms + 1);
  s->piv = mr_arena_ints(work, ms + 1);
  s->Y = mr_arena_doubles(work, ms * nv + 1);
  s->jac = mr_arena_doubles(work, ms * ms + 1);
  s->rhs = mr_arena_doubles(work, ms + 1);
  if (!s->D || !s->slip || !s->zone || !s->zone_factored || !s->zone_outer || !s->cols ||
      !s->W || !s->Jk || !s->slide || !s->piv || !s->Y || !s->jac || !s->rhs)
    return -1;
  if (mr_tree_chol_init(&s->H, p->m, work)) return -1;
  mr_newton_join(s);
  return mr_tree_chol_analyze(&s->H, work);
}

/* ------------------------------------------------------------------ Newton matrix */

/* The columns of rows [i0, i0 + nr) (ascending, merged) into s->cols and their dense
 * Jacobian (ncols x nr, column-interleaved) into s->Jk; returns ncols. */
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

/* H += J_b^T D_b J_b for one block of nr rows with its nr x nr symmetric D. */
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

/* The symmetric part of Newton's matrix, assembled and factored. */
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
    if (s->zone[s->base + k] != MR_ZONE_OFF) mr_newton_add_block(s, s->base + 3 * k, 3, mr_newton_Dc(s, k));
  if (mr_tree_chol_factor(&s->H, 1e-14) < 0) return -1;
  memcpy(s->zone_factored, s->zone, (size_t)mr_newton_nblock(s->p));
  s->factored = 1;
  return 0;
}

/* Whether the factor is the one of the current point: every block in the zone it was
 * factored in, and none sliding (a sliding contact's D turns with its slip). */
static int mr_newton_factor_valid(const mr_newton *s) {
  if (!s->factored) return 0;
  const int nb = mr_newton_nblock(s->p);
  for (int b = 0; b < nb; b++)
    if (s->zone[b] != s->zone_factored[b] || (b >= s->base && s->zone[b] == MR_ZONE_SLIDE)) return 0;
  return 1;
}

/* dir = H^-1 dir with the sliding contacts' rank-one terms: H = Hs + sum_k p_k q_k^T with
 * p_k = J_k^T (0, mu e_k) / r_k and q_k = J_N,k^T, so by Sherman-Morrison-Woodbury
 * H^-1 b = z - Y (I + Q^T Y)^-1 Q^T z, z = Hs^-1 b, Y = Hs^-1 P. */
static void mr_newton_solve(mr_newton *s) {
  const mr_problem *p = s->p;
  mr_tree_chol_solve(&s->H, s->dir);
  int ns = 0;
  for (int k = 0; k < p->ncon && ns < s->maxslide; k++)
    if (s->zone[s->base + k] == MR_ZONE_SLIDE) s->slide[ns++] = k;
  if (ns == 0) return;
  for (int b = 0; b < ns; b++) {
    int k = s->slide[b], i = s->base + 3 * k;
    double *y = s->Y + (size_t)b * s->nv, r = s->r[i];
    memset(y, 0, (size_t)s->nv * sizeof(double));
    for (int a = 1; a < 3; a++) {
      double w = s->slip[2 * k + a - 1] / r;
      for (int t = p->nzadr[i + a]; t < p->nzadr[i + a + 1]; t++) y[p->nzind[t]] += w * p->J[t];
    }
    /* y lies in the contact's trees (those of its normal row) */
    if (p->nzadr[i + 1] > p->nzadr[i]) mr_tree_chol_solve_local(&s->H, y, p->nzind[p->nzadr[i]]);
  }
  for (int a = 0; a < ns; a++) {
    int i = s->base + 3 * s->slide[a];
    s->rhs[a] = mr_problem_row_dot(p, i, s->dir);
    for (int b = 0; b < ns; b++)
      s->jac[(size_t)a * ns + b] = (a == b) + mr_problem_row_dot(p, i, s->Y + (size_t)b * s->nv);
  }
  if (mr_dense_lu_solve(s->jac, ns, s->piv, s->rhs)) return; /* singular: keep z */
  for (int b = 0; b < ns; b++) {
    const double *y = s->Y + (size_t)b * s->nv;
    for (int j = 0; j < s->nv; j++) s->dir[j] -= s->rhs[b] * y[j];
  }
}

/* ------------------------------------------------------------------ iteration */

/* The velocities lambda produces, vlam = v_free + A^-1 J^T lambda, and c = J vlam + bias;
 * the merit m = 1/2 (v - vlam)^T A (v - vlam) = 1/2 (v - vlam)^T F in s->merit, F =
 * A (v - v_free) - J^T lambda from s->Av. Returns the largest of the NCP measures (the
 * stopping measure above). */
static double mr_newton_judge(mr_newton *s) {
  const mr_problem *p = s->p;
  mr_newton_JTmul(p, s->lam, s->tmp);
  mr_problem_solve_mass(p, s->vlam, s->tmp, 1);
  double merit = 0;
  for (int i = 0; i < s->nv; i++) {
    s->vlam[i] += p->v_free[i];
    s->err[i] = s->v[i] - s->vlam[i];
    merit += s->err[i] * (s->Av[i] - s->tmp[i]);
  }
  s->merit = 0.5 * fabs(merit);
  mr_newton_Jmul(p, s->vlam, s->c);
  for (int i = 0; i < s->n; i++) s->c[i] += s->bias[i];
  mr_ncp_errors e;
  mr_ncp_errors_compute(p, s->lam, s->c, &e);
  return mr_maxd(mr_maxd(e.primal, e.dual), mr_maxd(e.compl, e.natural));
}

/* The velocity error of the current point's rows (how far it is from F = 0) and what
 * moving the centre would change (*prox): the proximal step is due when the first is
 * small next to the second. */
static int mr_newton_outer_due(const mr_newton *s, double *prox) {
  double inner = 0;
  *prox = 0;
  for (int i = 0; i < s->n; i++) {
    inner = mr_maxd(inner, fabs(s->Jv[i] + s->bias[i] - s->c[i]));
    *prox = mr_maxd(*prox, fabs(s->r[i] * (s->lam[i] - s->center[i])));
  }
  return inner <= 1e-3 * *prox || inner <= 0.1 * s->p->tol;
}

/* The centre to the current impulses; eps down tenfold once the zones hold from one
 * proximal step to the next (Newton no longer needs as much softness to find them), or
 * when the proximal steps contract slowly. Tenfold, not more: the point's velocity error,
 * divided by a much smaller r, would turn the zones over, and Newton would walk them back
 * one by one. */
static void mr_newton_outer(mr_newton *s, double prox) {
  const int nb = mr_newton_nblock(s->p);
  int settled = s->last_prox > 0 && memcmp(s->zone, s->zone_outer, (size_t)nb) == 0;
  int slow = s->last_prox > 0 && prox > MR_NEWTON_SLOW * s->last_prox;
  s->last_prox = prox;
  memcpy(s->zone_outer, s->zone, (size_t)nb);
  if ((settled || slow) && s->eps > MR_NEWTON_EPS_MIN) {
    s->eps = mr_maxd(0.1 * s->eps, MR_NEWTON_EPS_MIN);
    mr_newton_regularization(s);
  }
  memcpy(s->center, s->lam, (size_t)s->n * sizeof(double));
  mr_newton_project(s, s->Jv, s->lam, s->D);
}

/* v0 + alpha dir: impulses, then the judge (merit, residual). */
static double mr_newton_try(mr_newton *s, double alpha) {
  for (int i = 0; i < s->nv; i++) {
    s->v[i] = s->v0[i] + alpha * s->dir[i];
    s->Av[i] = s->Av0[i] + alpha * s->Adir[i];
  }
  for (int i = 0; i < s->n; i++) s->Jv[i] = s->Jv0[i] + alpha * s->Jdir[i];
  mr_newton_project(s, s->Jv, s->lam, NULL);
  return mr_newton_judge(s);
}

/* One Newton iteration from the evaluated point: direction, backtracking on the merit,
 * move, and D and zones at the new point. Returns the residual there (NaN on a failed
 * factorization). */
static double mr_newton_step(mr_newton *s) {
  if (!mr_newton_factor_valid(s) && mr_newton_factor(s)) return NAN;
  /* -F = J^T lambda - A (v - v_free) */
  mr_newton_JTmul(s->p, s->lam, s->tmp);
  for (int i = 0; i < s->nv; i++) s->dir[i] = s->tmp[i] - s->Av[i];
  mr_newton_solve(s);
  mr_newton_Jmul(s->p, s->dir, s->Jdir);
  mr_newton_Amul(s, s->dir, s->Adir);
  memcpy(s->v0, s->v, (size_t)s->nv * sizeof(double));
  memcpy(s->Av0, s->Av, (size_t)s->nv * sizeof(double));
  memcpy(s->Jv0, s->Jv, (size_t)s->n * sizeof(double));
  double m0 = s->merit, alpha = 1, res = 0;
  for (int h = 0; h <= MR_NEWTON_LS_HALVINGS; h++, alpha *= 0.5) {
    res = mr_newton_try(s, alpha);
    if (s->merit <= (1 - 2 * MR_NEWTON_ARMIJO * alpha) * m0) break;
  }
  s->alpha = alpha;
  mr_newton_project(s, s->Jv, s->lam, s->D);
  return res;
}

/* Start from the warm-start impulses: v = v_free + A^-1 J^T lambda, centred there.
 * Returns the warm start's residual. */
static double mr_newton_start(mr_newton *s, const double *lambda) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->n; i++) s->bias[i] = p->g[i] - mr_problem_row_dot(p, i, p->v_free);
  memcpy(s->lam, lambda, (size_t)s->n * sizeof(double));
  mr_project_bounds(p, s->lam);
  memset(s->v, 0, (size_t)s->nv * sizeof(double));
  memset(s->Av, 0, (size_t)s->nv * sizeof(double));
  mr_newton_judge(s);
  memcpy(s->v, s->vlam, (size_t)s->nv * sizeof(double));
  for (int i = 0; i < s->nv; i++) s->tmp[i] = s->v[i] - p->v_free[i];
  mr_newton_Amul(s, s->tmp, s->Av);
  mr_newton_Jmul(p, s->v, s->Jv);
  s->eps = MR_NEWTON_EPS;
  mr_newton_regularization(s);
  memcpy(s->center, s->lam, (size_t)s->n * sizeof(double));
  mr_newton_project(s, s->Jv, s->lam, s->D);
  memcpy(s->zone_outer, s->zone, (size_t)mr_newton_nblock(p));
  return mr_newton_judge(s);
}

/* A contact's zone in the warm impulses l: off, pushing inside the friction disk, or on its
 * rim (sliding or about to). */
static int mr_newton_warm_zone(const double l[3], double mu) {
  if (!(l[0] > 0)) return MR_ZONE_OFF;
  return mr_len2(l[1], l[2]) < (1 - 1e-9) * mu * l[0] ? MR_ZONE_IN : MR_ZONE_SLIDE;
}

/* Impulses, D and slip of contact k linearized in its warm zone z at y (the centre, the
 * warm impulses, is the expansion point): inside, lambda = y; on the rim with direction e,
 * lambda_N = y_N and lambda_T = mu y_N e + (I - e e^T) y_T, the projection's Jacobian where
 * the rim is reached (k = 1); a frictionless contact's lambda_T = 0. */
static void mr_newton_guess_contact(mr_newton *s, int k, int z) {
  int i = s->base + 3 * k;
  const double *l = s->center + i, *y = s->y + i, ri = 1 / s->r[i];
  double *Dk = s->D + s->base + 9 * k, *lk = s->lam + i;
  s->zone[s->base + k] = (unsigned char)z;
  memset(Dk, 0, 9 * sizeof(double));
  if (z == MR_ZONE_OFF) {
    lk[0] = lk[1] = lk[2] = 0;
    return;
  }
  Dk[0] = ri;
  lk[0] = y[0];
  if (z == MR_ZONE_IN) {
    Dk[4] = Dk[8] = ri;
    lk[1] = y[1];
    lk[2] = y[2];
    return;
  }
  double t = mr_len2(l[1], l[2]), rim = t > 0;
  double e[2] = {rim ? l[1] / t : 0, rim ? l[2] / t : 0}, et = e[0] * y[1] + e[1] * y[2];
  double mu = s->p->mu[k];
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) Dk[3 * (a + 1) + b + 1] = rim * ((a == b) - e[a] * e[b]) * ri;
    s->slip[2 * k + a] = mu * e[a];
    lk[1 + a] = mu * e[a] * y[0] + rim * (y[1 + a] - e[a] * et);
  }
}

/* D, zones and impulses of every block linearized in the zones of the centre's impulses
 * (mr_newton_guess_contact), at the current point; the merit is set to infinity, since the
 * linearized point is no iterate and the step from it is taken in full. */
static void mr_newton_linearize_centre(mr_newton *s) {
  const mr_problem *p = s->p;
  for (int i = 0; i < s->n; i++) s->y[i] = s->center[i] - (s->Jv[i] + s->bias[i]) / s->r[i];
  for (int i = 0; i < s->base; i++) {
    int on = i < p->neq || s->center[i] > 0;
    s->zone[i] = (unsigned char)on;
    s->D[i] = on ? 1 / s->r[i] : 0;
    s->lam[i] = on ? s->y[i] : 0;
  }
  for (int k = 0; k < p->ncon; k++)
    mr_newton_guess_contact(s, k, mr_newton_warm_zone(s->center + s->base + 3 * k, p->mu[k]));
  s->merit = INFINITY;
}

/* The first iteration of a warm-started solve: one Newton step at MR_NEWTON_EPS_GUESS from
 * the linearization in the zones of the warm impulses (the centre), the full step taken.
 * Returns the residual there, or NAN when a block changed zone or the step failed; the
 * caller then restarts from the warm start at the soft eps. A block that left or entered
 * the OFF zone changed the active set (a contact touched or lifted, a limit engaged); a
 * sticking contact that started to slide, or a sliding one that stuck, leaves a point
 * whose Newton steps at this eps are a few thousandths long (the humanoid's step 398
 * took 24 of them and went to pgs), where the soft start takes about twenty. */
static double mr_newton_guess(mr_newton *s) {
  const int nb = mr_newton_nblock(s->p);
  s->eps = MR_NEWTON_EPS_GUESS;
  mr_newton_regularization(s);
  mr_newton_linearize_centre(s);
  memcpy(s->zone_outer, s->zone, (size_t)nb);
  double res = mr_newton_step(s);
  for (int b = 0; b < nb; b++)
    if (s->zone[b] != s->zone_outer[b]) return NAN;
  return isfinite(res) ? res : NAN;
}

/* The Newton iteration after a proximal step. Its centre moved to the impulses, and at a
 * small eps moving it turns y = lambda_c - (J v + bias) / r over by the whole change of the
 * impulses since the last centre (a step of newly touching feet takes impulses from 3 to
 * 0.1: y lands far outside the zones, every contact OFF), where Newton's model holds for
 * steps of r's size only. The impulses' own zones are the likely ones, as for the warm
 * start: the full step from the linearization there is kept when it lowers the merit of the
 * current point; otherwise the point is restored (the trial counts as an iteration, its
 * residual that point's) and the next iteration takes the usual step from it. */
static double mr_newton_recentred_step(mr_newton *s) {
  double m0 = s->merit;
  mr_newton_linearize_centre(s);
  double res = mr_newton_step(s);
  if (isfinite(res) && s->merit <= (1 - 2 * MR_NEWTON_ARMIJO) * m0) return res;
  memcpy(s->v, s->v0, (size_t)s->nv * sizeof(double));
  memcpy(s->Av, s->Av0, (size_t)s->nv * sizeof(double));
  memcpy(s->Jv, s->Jv0, (size_t)s->n * sizeof(double));
  mr_newton_project(s, s->Jv, s->lam, s->D);
  return mr_newton_judge(s);
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
  if (p->nrow > MR_NEWTON_MAX_ROWS) {
    out->status = MR_SOLVER_MAX_ITER; /* declined: the constraint stage hands it to pgs */
    out->residual = INFINITY;
    return;
  }
  size_t mark = mr_arena_mark(work);
  mr_newton s;
  if (mr_newton_alloc(&s, p, work)) {
    mr_arena_restore(work, mark);
    mr_solver_fail(p, out);
    return;
  }
  double res = mr_newton_start(&s, out->lambda), checkpoint = INFINITY;
  if (res > p->tol && p->max_iter > 0) {
    double guess = mr_newton_guess(&s);
    out->iters = 1;
    res = isnan(guess) ? mr_newton_start(&s, out->lambda) : guess;
  }
  out->status = MR_SOLVER_MAX_ITER;
  out->residual = INFINITY;
  for (;;) {
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
    if (out->iters >= p->max_iter) break;
    /* stalled: MR_NEWTON_STALL iterations without a tenfold gain */
    if (out->iters % MR_NEWTON_STALL == 0) {
      if (out->iters > 0 && out->residual > 0.1 * checkpoint) break;
      checkpoint = out->residual;
    }
    double prox;
    if (mr_newton_outer_due(&s, &prox)) {
      mr_newton_outer(&s, prox);
      mr_newton_judge(&s);
      res = mr_newton_recentred_step(&s);
    } else {
      res = mr_newton_step(&s);
    }
    out->iters++;
  }
  mr_arena_restore(work, mark);
}
