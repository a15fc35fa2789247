/* Active-set refinement for PGS (see active_set.h).
 *
 * The guess is read off the current impulses and velocities. Bilateral rows are always
 * unknowns; a limit is one while it pushes; a pushing contact contributes its normal
 * impulse and, unless it is frictionless, its two tangent impulses. The equations are
 * c_i = 0 on the rows of bilaterals, limits, normals and sticking tangents: a loop stays
 * closed, a pushing contact does not move apart, a sticking one does not slip. A sliding
 * contact's tangent equations are the friction law instead, lambda_T = -mu lambda_N
 * c_T/|c_T|, linearized where PGS left it; the system is then not symmetric, and each
 * round is one semismooth Newton step. Everything else stays at zero.
 *
 * The system is singular when the set is redundant (four corners of a box sticking:
 * twelve rows, six dofs) and nearly so in the configurations PGS crawls through, where an
 * exact solve would trade huge opposing impulses for round-off in the velocities, and push
 * them out of their friction disks. Each round therefore solves a proximal system,
 * (H + eps diag H) x = -F with eps = MR_ACTIVE_SET_PROXIMAL (papers/003's proximal idea at
 * this scale): directions the equations determine move almost fully, the (near) null
 * directions hardly at all, so a redundant set keeps the load sharing PGS found, and the
 * next round takes up what is left. An unknown whose pivot still falls below
 * MR_ACTIVE_SET_DEPENDENT of its diagonal is dropped with its equation.
 *
 * Measured on the humanoid, 24 runs of 1000 steps from perturbed initial velocities, tol
 * 1e-8 (most of it lying on the floor, where PGS crawls): mean sweeps per contact step
 * 34.7 with the previous single solve (sliding friction slaved to PGS's direction, no
 * proximal term), 21.0 now; steps at the 100-sweep cap 24% -> 13%; time per step the same
 * (52 us: the rounds' factorizations cost what the sweeps saved). On the bench's 400 steps
 * from rest: 15.6 -> 6.0 mean sweeps, 27 -> 7 capped steps.
 */
#include <math.h>
#include <string.h>

#include "active_set.h"
#include "engine/core/arena.h"
#include "ncp.h"

#define MR_ACTIVE_SET_DEPENDENT 1e-8
/* eps of the proximal system: with every round kept, 0, 1e-6, 1e-4 and 3e-4 gave 28.2,
 * 25.5, 19.8 and 23.9 mean sweeps in the measurement above (24 runs). */
#define MR_ACTIVE_SET_PROXIMAL 1e-4

/* One unknown: the impulse of `row`. Its equation is c_row = 0, except on a sliding
 * contact's tangent rows (slides = 1), whose equation is the friction law linearized at the
 * current point (see mr_active_set_slide). */
typedef struct mr_unknown {
  int row;
  int slides;
  int base;       /* sliding tangent: the contact's normal row */
  double mu_n;    /* mu lambda_N at the linearization point */
  double t[2];    /* the slip direction c_T / |c_T| */
  double P[2][2]; /* (I - t t^T) / |c_T|: how the direction turns with c_T */
  double mu;
} mr_unknown;

static int mr_active_set_usable(const mr_problem *p, int i, double floor) {
  return mr_problem_entry(p, i, i) > floor;
}

/* Sticks: strictly inside its friction disk, or not slipping, or slipping the wrong way
 * (its slip velocity c_T does not oppose its friction, as maximum dissipation requires). */
static int mr_active_set_sticks(const mr_problem *p, const double *lambda, const double *c,
                                int k) {
  const int i = p->neq + p->nlim + 3 * k;
  const double *l = lambda + i;
  if (mr_len2(l[1], l[2]) < (1 - 1e-9) * p->mu[k] * l[0]) return 1;
  if (!(mr_len2(c[i + 1], c[i + 2]) > 0)) return 1;
  return l[1] * c[i + 1] + l[2] * c[i + 2] >= 0;
}

static void mr_unknown_add(mr_unknown *u, int *m, int row) {
  u[*m] = (mr_unknown){.row = row};
  (*m)++;
}

/* A sliding contact's tangent unknowns. Friction must equal -mu lambda_N c_T / |c_T|; its
 * equation F = lambda_T + mu lambda_N t(c_T) = 0 is linearized at the current point:
 * dF = dlambda_T + mu t dlambda_N + mu lambda_N P dc_T, with P = (I - t t^T)/|c_T| and
 * dc_T = G_T dlambda. The slip direction is unknown too, so Newton rounds converge on it
 * (a slaved direction fixed at PGS's guess left a residual of its angle error). */
static void mr_active_set_slide(const mr_problem *p, const double *lambda, const double *c,
                                int k, mr_unknown *u, int *m) {
  const int i = p->neq + p->nlim + 3 * k;
  double s = mr_len2(c[i + 1], c[i + 2]), t[2] = {c[i + 1] / s, c[i + 2] / s};
  for (int q = 0; q < 2; q++) {
    mr_unknown *w = &u[*m];
    *w = (mr_unknown){.row = i + 1 + q, .slides = 1, .base = i, .mu = p->mu[k],
                      .mu_n = p->mu[k] * lambda[i], .t = {t[0], t[1]}};
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 2; b++) w->P[a][b] = ((a == b) - t[a] * t[b]) / s;
    (*m)++;
  }
}

/* A pushing contact's unknowns: its normal, and its tangents sticking or sliding (none
 * when it is frictionless: they stay at zero). */
static void mr_active_set_contact(const mr_problem *p, const double *lambda, const double *c,
                                  int k, mr_unknown *u, int *m) {
  const int i = p->neq + p->nlim + 3 * k;
  mr_unknown_add(u, m, i);
  if (!(p->mu[k] > 0)) return;
  if (mr_active_set_sticks(p, lambda, c, k)) {
    mr_unknown_add(u, m, i + 1);
    mr_unknown_add(u, m, i + 2);
  } else {
    mr_active_set_slide(p, lambda, c, k, u, m);
  }
}

/* The unknowns into u; returns their count. */
static int mr_active_set_unknowns(const mr_problem *p, const double *lambda, const double *c,
                                  double floor, mr_unknown *u) {
  const int base = p->neq + p->nlim;
  int m = 0;
  for (int i = 0; i < base; i++)
    if ((i < p->neq || lambda[i] > 0) && mr_active_set_usable(p, i, floor))
      mr_unknown_add(u, &m, i);
  for (int k = 0; k < p->ncon; k++) {
    int i = base + 3 * k;
    if (lambda[i] > 0 && mr_active_set_usable(p, i, floor))
      mr_active_set_contact(p, lambda, c, k, u, &m);
  }
  return m;
}

/* G on the first round's unknown rows, computed once per refinement: later rounds only
 * shrink the set (a contact or limit whose impulse went to zero leaves it and none joins),
 * and each G entry costs a sparse dot product in the velocity form. */
typedef struct mr_gcache {
  const mr_problem *p;
  int *slot; /* nrow: a row's index in G, or -1 */
  double *G; /* n x n */
  int n;
} mr_gcache;

static double mr_gcache_entry(const mr_gcache *g, int i, int j) {
  int a = g->slot[i], b = g->slot[j];
  if (a < 0 || b < 0) return mr_problem_entry(g->p, i, j);
  return g->G[(size_t)a * (size_t)g->n + (size_t)b];
}

static void mr_gcache_fill(mr_gcache *g, const mr_unknown *u, int m) {
  for (int i = 0; i < g->p->nrow; i++) g->slot[i] = -1;
  for (int a = 0; a < m; a++) g->slot[u[a].row] = a;
  g->n = m;
  for (int a = 0; a < m; a++)
    for (int b = a; b < m; b++)
      g->G[(size_t)a * (size_t)m + (size_t)b] = g->G[(size_t)b * (size_t)m + (size_t)a] =
          mr_problem_entry(g->p, u[a].row, u[b].row);
}

/* H_ab: the change of equation a per unit of unknown b. */
static double mr_active_set_coupling(const mr_gcache *g, const mr_unknown *a,
                                     const mr_unknown *b) {
  if (!a->slides) return mr_gcache_entry(g, a->row, b->row);
  const int q = a->row - a->base - 1;
  double h = (a->row == b->row) + (b->row == a->base ? a->mu * a->t[q] : 0);
  double g1 = mr_gcache_entry(g, a->base + 1, b->row);
  double g2 = mr_gcache_entry(g, a->base + 2, b->row);
  return h + a->mu_n * (a->P[q][0] * g1 + a->P[q][1] * g2);
}

/* The residual of equation a at the current point. */
static double mr_active_set_equation(const mr_unknown *a, const double *lambda,
                                     const double *c) {
  if (!a->slides) return c[a->row];
  const int q = a->row - a->base - 1;
  return lambda[a->row] + a->mu_n * a->t[q];
}

static void mr_active_set_matrix(const mr_gcache *g, const mr_unknown *u, int m, double *H) {
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      /* the block of c = 0 equations is symmetric: fill it once */
      if (b < a && !u[a].slides && !u[b].slides) {
        H[(size_t)a * (size_t)m + (size_t)b] = H[(size_t)b * (size_t)m + (size_t)a];
        continue;
      }
      H[(size_t)a * (size_t)m + (size_t)b] = mr_active_set_coupling(g, &u[a], &u[b]);
    }
  for (int a = 0; a < m; a++) H[(size_t)a * (size_t)m + (size_t)a] *= 1 + MR_ACTIVE_SET_PROXIMAL;
}

/* In-place LU of H (no row exchanges: the diagonal is the natural pivot of a contact
 * system) that drops each unknown whose pivot is below MR_ACTIVE_SET_DEPENDENT of its
 * diagonal, with its equation. Returns the count kept, or -1 on non-finite input. */
static int mr_active_set_factor(double *H, int m, double *diag, unsigned char *dropped) {
  int kept = 0;
  for (int i = 0; i < m; i++) diag[i] = fabs(H[(size_t)i * (size_t)m + (size_t)i]);
  for (int i = 0; i < m; i++) {
    double *hi = H + (size_t)i * (size_t)m;
    double pivot = hi[i];
    if (!isfinite(pivot)) return -1;
    dropped[i] = !(pivot > MR_ACTIVE_SET_DEPENDENT * diag[i]);
    if (dropped[i]) {
      for (int r = i + 1; r < m; r++) H[(size_t)r * (size_t)m + (size_t)i] = 0;
      continue;
    }
    kept++;
    for (int r = i + 1; r < m; r++) {
      double *hr = H + (size_t)r * (size_t)m;
      double f = hr[i] / pivot;
      hr[i] = f;
      if (f != 0)
        for (int k = i + 1; k < m; k++) hr[k] -= f * hi[k];
    }
  }
  return kept;
}

/* x solves H x = -(the equations' residuals) on the kept unknowns (dropped ones: x = 0),
 * H factored. */
static void mr_active_set_solve(const double *H, const unsigned char *dropped,
                                const double *lambda, const double *c, const mr_unknown *u,
                                int m, double *x) {
  for (int i = 0; i < m; i++) {
    const double *hi = H + (size_t)i * (size_t)m;
    double s = dropped[i] ? 0 : -mr_active_set_equation(&u[i], lambda, c);
    for (int k = 0; k < i && !dropped[i]; k++) s -= hi[k] * x[k];
    x[i] = s;
  }
  for (int i = m - 1; i >= 0; i--) {
    const double *hi = H + (size_t)i * (size_t)m;
    if (dropped[i]) {
      x[i] = 0;
      continue;
    }
    double s = x[i];
    for (int k = i + 1; k < m; k++) s -= hi[k] * x[k];
    x[i] = s / hi[i];
  }
}

/* lambda += alpha x on the unknowns, then back into the bounds: limits and normals
 * non-negative, tangents into their disk. */
static void mr_active_set_apply(const mr_problem *p, const mr_unknown *u, int m, double alpha,
                                const double *x, double *lambda) {
  for (int a = 0; a < m; a++) lambda[u[a].row] += alpha * x[a];
  mr_project_bounds(p, lambda);
}

/* c (and dv) for lambda, from their values at old. */
static void mr_active_set_velocity(const mr_problem *p, const double *old, const double *lambda,
                                   double *c, double *dv) {
  const int n = p->nrow;
  for (int j = 0; j < n; j++) {
    double delta = lambda[j] - old[j];
    if (delta == 0) continue;
    if (dv) {
      mr_problem_add_impulse(p, dv, j, delta);
      continue;
    }
    const double *Gj = p->G + (size_t)j * (size_t)n;
    for (int i = 0; i < n; i++) c[i] += Gj[i] * delta;
  }
  if (dv)
    for (int i = 0; i < n; i++) c[i] = mr_problem_row_velocity(p, dv, i);
}

/* Scratch of one refinement, from the arena. */
typedef struct mr_active_set {
  mr_unknown *u, *last; /* this round's unknowns, and the set H was last factored for */
  int mlast;
  mr_gcache g;
  double *H, *x, *diag, *old, *best; /* old, best: lambda, c, dv */
  unsigned char *dropped;
} mr_active_set;

static int mr_active_set_alloc(mr_active_set *s, const mr_problem *p, mr_data *work) {
  const size_t n = (size_t)p->nrow, m = n < MR_ACTIVE_SET_MAX ? n : MR_ACTIVE_SET_MAX;
  const size_t state = 2 * n + (size_t)p->nv + 1;
  s->u = mr_arena_alloc(work, n * sizeof(mr_unknown));
  s->last = mr_arena_alloc(work, m * sizeof(mr_unknown));
  s->mlast = -1;
  s->g = (mr_gcache){.p = p, .slot = mr_arena_alloc(work, n * sizeof(int)),
                     .G = mr_arena_doubles(work, m * m)};
  s->H = mr_arena_doubles(work, m * m);
  s->x = mr_arena_doubles(work, m);
  s->diag = mr_arena_doubles(work, m);
  s->old = mr_arena_doubles(work, state);
  s->best = mr_arena_doubles(work, state);
  s->dropped = mr_arena_alloc(work, m);
  return s->u && s->last && s->g.slot && s->g.G && s->H && s->x && s->diag && s->old &&
         s->best && s->dropped;
}

size_t mr_active_set_scratch(size_t nrow, size_t nv) {
  size_t m = nrow < MR_ACTIVE_SET_MAX ? nrow : MR_ACTIVE_SET_MAX;
  size_t bytes = (nrow + m) * sizeof(mr_unknown) + nrow * sizeof(int) + m;
  size_t doubles = 2 * m * m + 2 * m + 2 * (2 * nrow + nv + 1);
  return bytes / sizeof(double) + 1 + doubles + 10 * 64 / sizeof(double);
}

/* (lambda, c, dv) into or out of a saved state. */
static void mr_active_set_save(const mr_problem *p, double *to, const double *lambda,
                               const double *c, const double *dv) {
  const size_t n = (size_t)p->nrow;
  memcpy(to, lambda, n * sizeof(double));
  memcpy(to + n, c, n * sizeof(double));
  if (dv) memcpy(to + 2 * n, dv, (size_t)p->nv * sizeof(double));
}

static void mr_active_set_load(const mr_problem *p, const double *from, double *lambda,
                               double *c, double *dv) {
  const size_t n = (size_t)p->nrow;
  memcpy(lambda, from, n * sizeof(double));
  memcpy(c, from + n, n * sizeof(double));
  if (dv) memcpy(dv, from + 2 * n, (size_t)p->nv * sizeof(double));
}

/* Whether H already holds the factored system of this round's set: the same unknowns,
 * none sliding (a sliding one is linearized anew each round). The proximal rounds on an
 * unchanged set then cost one substitution each. */
static int mr_active_set_factored(const mr_active_set *s, int m) {
  if (m != s->mlast) return 0;
  for (int a = 0; a < m; a++)
    if (s->u[a].row != s->last[a].row || s->u[a].slides || s->last[a].slides) return 0;
  return 1;
}

/* lambda = old + alpha x (projected), and c, dv with it; returns the residual there. */
static double mr_active_set_move(const mr_problem *p, const mr_active_set *s, int m, double alpha,
                                 double *lambda, double *c, double *dv) {
  mr_active_set_load(p, s->old, lambda, c, dv);
  mr_active_set_apply(p, s->u, m, alpha, s->x, lambda);
  mr_active_set_velocity(p, s->old, lambda, c, dv);
  return mr_ncp_residual(p, lambda, c);
}

/* One round: guess the set at (lambda, c), whose residual is *res, solve it, and move
 * there. Sliding contacts make the equations nonlinear, and while a contact barely slips
 * its linearization holds only close by (P grows as 1/|c_T|), so a full step that does
 * not lower the residual is shortened (halved up to MR_ACTIVE_SET_HALVINGS times).
 * Returns 1 after a move that lowered *res, 0 when there was nothing to solve or no step
 * length helped (lambda, c, dv are then somewhere between; the caller restores its best). */
static int mr_active_set_round(const mr_problem *p, mr_active_set *s, double floor,
                               double *lambda, double *c, double *dv, double *res,
                               int *rounds) {
  int m = mr_active_set_unknowns(p, lambda, c, floor, s->u);
  if (m == 0 || m > MR_ACTIVE_SET_MAX) return 0;
  if (s->mlast < 0) mr_gcache_fill(&s->g, s->u, m);
  if (!mr_active_set_factored(s, m)) {
    mr_active_set_matrix(&s->g, s->u, m, s->H);
    s->mlast = mr_active_set_factor(s->H, m, s->diag, s->dropped) > 0 ? m : 0;
    memcpy(s->last, s->u, (size_t)m * sizeof(mr_unknown));
    if (s->mlast == 0) return 0;
  }
  ++*rounds; /* a linear solve: an iteration */
  mr_active_set_solve(s->H, s->dropped, lambda, c, s->u, m, s->x);
  mr_active_set_save(p, s->old, lambda, c, dv);
  double alpha = 1, start = *res;
  for (int h = 0; h <= MR_ACTIVE_SET_HALVINGS; h++, alpha *= 0.5) {
    *res = mr_active_set_move(p, s, m, alpha, lambda, c, dv);
    if (*res < start) return 1;
  }
  return 0;
}

/* Each round reads its guess off the last round's solution: a contact whose normal impulse
 * came out negative leaves the set, a sticking one pushed out of its disk slides, a sliding
 * one whose slip turned against its friction sticks (a semismooth Newton iteration on the
 * set, in effect). Rounds go on while they lower the residual, up to MR_ACTIVE_SET_ROUNDS
 * or the tolerance; the first that does not ends the refinement (going on from a worse
 * point cost more factorizations than the sweeps it saved), and the best point is kept. */
int mr_active_set_refine(const mr_problem *p, double *lambda, double *c, double *dv,
                         double *residual, double floor, mr_data *work) {
  int rounds = 0;
  return mr_active_set_refine_counted(p, lambda, c, dv, residual, floor, work, &rounds);
}

int mr_active_set_refine_counted(const mr_problem *p, double *lambda, double *c, double *dv,
                                 double *residual, double floor, mr_data *work, int *rounds) {
  size_t mark = mr_arena_mark(work);
  mr_active_set s;
  if (!mr_active_set_alloc(&s, p, work)) {
    mr_arena_restore(work, mark);
    return -1;
  }
  mr_active_set_save(p, s.best, lambda, c, dv);
  int kept = 0;
  double res = *residual;
  for (int round = 0; round < MR_ACTIVE_SET_ROUNDS && *residual > p->tol; round++) {
    if (!mr_active_set_round(p, &s, floor, lambda, c, dv, &res, rounds)) break;
    *residual = res;
    mr_active_set_save(p, s.best, lambda, c, dv);
    kept = 1;
  }
  mr_active_set_load(p, s.best, lambda, c, dv);
  mr_arena_restore(work, mark);
  return kept;
}
