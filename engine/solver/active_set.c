/* Active-set refinement for PGS (see active_set.h).
 *
 * The guess is read off the current impulses. Bilateral rows are always unknowns; a limit
 * is one while it pushes; a pushing contact contributes its normal impulse, and its two
 * tangent impulses too when it sticks (strictly inside its friction disk). The equations
 * are c_i = 0 on each unknown's row: a pushing contact or limit does not move apart, a
 * sticking contact does not slip, a loop stays closed. A sliding contact's friction is
 * slaved to its normal impulse along the direction PGS found, lambda_T = mu lambda_N d, so
 * its normal unknown moves the tangent impulses with it (its column of the system is
 * G_n + mu d1 G_t1 + mu d2 G_t2) and the system is not symmetric. Everything else stays
 * at zero.
 *
 * The system is singular when the set is redundant (four corners of a box sticking:
 * twelve rows, six dofs) and nearly so in the configurations PGS crawls through, where an
 * exact solve would trade huge opposing impulses for round-off in the velocities. The
 * elimination therefore drops every unknown that the earlier ones (nearly) determine --
 * its pivot below MR_ACTIVE_SET_DEPENDENT of its diagonal -- with its equation, and keeps
 * its impulse where PGS put it: that is how a redundant set shares its load, which the
 * equations leave open.
 */
#include <math.h>
#include <string.h>

#include "active_set.h"
#include "arena.h"
#include "constraint.h"

#define MR_ACTIVE_SET_DEPENDENT 1e-8

/* One unknown: the impulse of `row`, and for a sliding contact's normal the slaved
 * tangent impulses w1, w2 per unit of it (mu d). */
typedef struct mr_unknown {
  int row;
  int slides;
  double w1, w2;
} mr_unknown;

static int mr_active_set_usable(const mr_problem *p, int i, double floor) {
  return mr_problem_entry(p, i, i) > floor;
}

static int mr_active_set_sticks(const mr_problem *p, const double *lambda, int k) {
  const double *l = lambda + p->neq + p->nlim + 3 * k;
  return mr_len2(l[1], l[2]) < (1 - 1e-9) * p->mu[k] * l[0];
}

static void mr_unknown_add(mr_unknown *u, int *m, int row) {
  u[*m] = (mr_unknown){.row = row};
  (*m)++;
}

/* A pushing contact's unknowns: its normal, plus its tangents when it sticks, or the
 * direction its friction slides in. */
static void mr_active_set_contact(const mr_problem *p, const double *lambda, int k,
                                  mr_unknown *u, int *m) {
  const int i = p->neq + p->nlim + 3 * k;
  if (mr_active_set_sticks(p, lambda, k)) {
    for (int r = 0; r < 3; r++) mr_unknown_add(u, m, i + r);
    return;
  }
  mr_unknown_add(u, m, i);
  double s = mr_len2(lambda[i + 1], lambda[i + 2]);
  if (s > 0) {
    u[*m - 1].slides = 1;
    u[*m - 1].w1 = p->mu[k] * lambda[i + 1] / s;
    u[*m - 1].w2 = p->mu[k] * lambda[i + 2] / s;
  }
}

/* The unknowns into u; returns their count. */
static int mr_active_set_unknowns(const mr_problem *p, const double *lambda, double floor,
                                  mr_unknown *u) {
  const int base = p->neq + p->nlim;
  int m = 0;
  for (int i = 0; i < base; i++)
    if ((i < p->neq || lambda[i] > 0) && mr_active_set_usable(p, i, floor))
      mr_unknown_add(u, &m, i);
  for (int k = 0; k < p->ncon; k++) {
    int i = base + 3 * k;
    if (lambda[i] > 0 && mr_active_set_usable(p, i, floor))
      mr_active_set_contact(p, lambda, k, u, &m);
  }
  return m;
}

/* H_ab: the velocity of a's row per unit of unknown b. */
static double mr_active_set_coupling(const mr_problem *p, const mr_unknown *a,
                                     const mr_unknown *b) {
  double h = mr_problem_entry(p, a->row, b->row);
  if (b->slides)
    h += b->w1 * mr_problem_entry(p, a->row, b->row + 1) +
         b->w2 * mr_problem_entry(p, a->row, b->row + 2);
  return h;
}

static void mr_active_set_matrix(const mr_problem *p, const mr_unknown *u, int m, double *H) {
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      /* the block without sliding columns is symmetric: fill it once */
      if (b < a && !u[a].slides && !u[b].slides) {
        H[(size_t)a * (size_t)m + (size_t)b] = H[(size_t)b * (size_t)m + (size_t)a];
        continue;
      }
      H[(size_t)a * (size_t)m + (size_t)b] = mr_active_set_coupling(p, &u[a], &u[b]);
    }
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

/* x solves H x = -c on the kept unknowns (dropped ones: x = 0), H factored. */
static void mr_active_set_solve(const double *H, const unsigned char *dropped, const double *c,
                                const mr_unknown *u, int m, double *x) {
  for (int i = 0; i < m; i++) {
    const double *hi = H + (size_t)i * (size_t)m;
    double s = dropped[i] ? 0 : -c[u[i].row];
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

/* lambda += x on the unknowns (sliding tangents follow their normal), then back into the
 * bounds: limits and normals non-negative, sticking tangents into their disk. */
static void mr_active_set_apply(const mr_problem *p, const mr_unknown *u, int m,
                                const double *x, double *lambda) {
  for (int a = 0; a < m; a++) {
    lambda[u[a].row] += x[a];
    if (u[a].slides) {
      double ln = mr_maxd(0, lambda[u[a].row]);
      lambda[u[a].row + 1] = u[a].w1 * ln;
      lambda[u[a].row + 2] = u[a].w2 * ln;
    }
  }
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
  mr_unknown *u;
  double *H, *x, *diag, *old; /* old: lambda, c, dv before */
  unsigned char *dropped;
} mr_active_set;

static int mr_active_set_alloc(mr_active_set *s, int m, int n, int nv, mr_data *work) {
  s->H = mr_arena_doubles(work, (size_t)m * (size_t)m);
  s->x = mr_arena_doubles(work, (size_t)m);
  s->diag = mr_arena_doubles(work, (size_t)m);
  s->old = mr_arena_doubles(work, 2 * (size_t)n + (size_t)nv + 1);
  s->dropped = mr_arena_alloc(work, (size_t)m);
  return s->H && s->x && s->diag && s->old && s->dropped;
}

/* Moves to lambda + x and keeps the move if it lowers the residual. */
static int mr_active_set_try(const mr_problem *p, const mr_active_set *s, int m, double *lambda,
                             double *c, double *dv, double *residual) {
  const int n = p->nrow, nv = dv ? p->nv : 0;
  memcpy(s->old, lambda, (size_t)n * sizeof(double));
  memcpy(s->old + n, c, (size_t)n * sizeof(double));
  if (dv) memcpy(s->old + 2 * n, dv, (size_t)nv * sizeof(double));
  mr_active_set_apply(p, s->u, m, s->x, lambda);
  mr_active_set_velocity(p, s->old, lambda, c, dv);
  double res = mr_ncp_residual(p, lambda, c);
  if (res < *residual) {
    *residual = res;
    return 1;
  }
  memcpy(lambda, s->old, (size_t)n * sizeof(double));
  memcpy(c, s->old + n, (size_t)n * sizeof(double));
  if (dv) memcpy(dv, s->old + 2 * n, (size_t)nv * sizeof(double));
  return 0;
}

int mr_active_set_refine(const mr_problem *p, double *lambda, double *c, double *dv,
                         double *residual, double floor, mr_data *work) {
  size_t mark = mr_arena_mark(work);
  mr_active_set s = {.u = mr_arena_alloc(work, (size_t)p->nrow * sizeof(mr_unknown))};
  if (!s.u) return -1;
  int m = mr_active_set_unknowns(p, lambda, floor, s.u), kept = 0;
  if (m > 0 && m <= MR_ACTIVE_SET_MAX) {
    if (!mr_active_set_alloc(&s, m, p->nrow, p->nv, work)) {
      mr_arena_restore(work, mark);
      return -1;
    }
    mr_active_set_matrix(p, s.u, m, s.H);
    if (mr_active_set_factor(s.H, m, s.diag, s.dropped) > 0) {
      mr_active_set_solve(s.H, s.dropped, c, s.u, m, s.x);
      kept = mr_active_set_try(p, &s, m, lambda, c, dv, residual);
    }
  }
  mr_arena_restore(work, mark);
  return kept;
}
