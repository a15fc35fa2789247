/* Penetration recovered by moving positions, never velocities (constraint.h, stabilization).
 *
 * After the step has moved q by dq_step (dt v for Euler, dt (v0 + v) / 2 for the midpoint
 * scheme), each unilateral row's gap at the end of the step is predicted to first order
 * from the rows built at the start: gap = phi + J dq_step. Rows deeper than the resting
 * band ask for a correction dq of the positions,
 *
 *   min 1/2 dq^T A dq   s.t.   J_i dq >= lower_i (contacts, limits),  J_i dq = 0 (equalities)
 *
 *   lower_i = erp (-(gap_i + band))   recovering rows deeper than the band: erp = 1 for a
 *                                     contact found this step (age 0: its depth is a late
 *                                     detection, not the contact's dynamics),
 *                                     MR_ERP_CONTACT / MR_ERP_LIMIT otherwise
 *             0                       self-collision deeper than the band: never recovered,
 *                                     only kept from going deeper
 *             -(gap_i + band)         every other row: it may close down to the band
 *
 * in the metric of the step's A (the least mass-weighted motion), by projected Gauss-Seidel
 * in velocity form on the rows of the kinematic trees connected to a deep row (the others
 * cannot move). qvel is left alone: the correction adds no kinetic energy, so a body found
 * deep (pushed in by a chain of impacts within one step, or placed so; a body approaching
 * on its own is found ahead, collision/sweep.h) is lifted out without being launched (with
 * a velocity recovery, Baumgarte's, a ball found millimetres deep rebounded to 3.4% of its
 * drop with no restitution at all).
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/dynamics/dynamics.h"
#include "rows.h"

typedef struct mr_depen {
  int n;         /* rows taken */
  int *row;      /* n: their index in the rows */
  int *span;     /* 4 n: their tree ranges */
  int *AJadr;    /* n: where their packed A^-1 J^T starts */
  double *AJ;    /* packed A^-1 J^T */
  double *Gdiag; /* n: J A^-1 J^T diagonal */
  double *lower; /* n: the bound on J dq (equalities: its value) */
  double *lambda;
} mr_depen;

/* Union-find over dofs: each tree ends up as one set with the trees a row joins it to. */
static int mr_depen_root(int *parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

static void mr_depen_join_row(const mr_rows *r, int i, int *parent) {
  if (r->nzadr[i + 1] == r->nzadr[i]) return;
  int a = mr_depen_root(parent, r->nzind[r->nzadr[i]]);
  for (int t = r->nzadr[i] + 1; t < r->nzadr[i + 1]; t++) {
    int b = mr_depen_root(parent, r->nzind[t]);
    if (a != b) parent[b] = a;
  }
}

/* The unilateral rows the pass holds: joint and tendon limits and contact normals, unless
 * the solver's model recovers them itself (mr_solver_info.depenetrate: soft, whose limits
 * are as soft as its contacts). */
static int mr_depen_is_normal(const mr_rows *r, int i, int contacts) {
  int base = r->neq + r->nlim;
  if (i < r->neq || !contacts) return 0;
  return i < base || (i - base) % 3 == 0;
}

/* The lower bound of unilateral row i whose predicted gap is `gap`; *deep: 1 when the row
 * asks for recovery. */
static double mr_depen_lower(const mr_model *m, const mr_data *d, const mr_rows *r, int i,
                             double gap, int *deep) {
  *deep = 0;
  double excess = -(gap + MR_CONTACT_BAND);
  if (excess <= 0) return excess;
  int base = r->neq + r->nlim;
  double erp = MR_ERP_LIMIT;
  if (i >= base) {
    const mr_contact *c = &d->contact[r->id[i]];
    if (m->body_rootid[c->body1] == m->body_rootid[c->body2]) return 0;
    erp = c->age == 0 ? 1 : MR_ERP_CONTACT;
  }
  *deep = excess > MR_DEPENETRATE_TOL;
  return erp * excess;
}

/* The predicted gaps' bounds into lower, and which rows ask for recovery into deep.
 * Returns the number of those. */
static int mr_depen_targets(const mr_model *m, const mr_data *d, const mr_rows *r,
                            const double *dqstep, int contacts, double *lower, char *deep) {
  int ndeep = 0;
  for (int i = 0; i < r->nrow; i++) {
    lower[i] = 0;
    deep[i] = 0;
    if (!mr_depen_is_normal(r, i, contacts)) continue;
    double gap = r->phi[i];
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) gap += r->J[t] * dqstep[r->nzind[t]];
    int is_deep;
    lower[i] = mr_depen_lower(m, d, r, i, gap, &is_deep);
    deep[i] = (char)(is_deep && r->nzadr[i + 1] > r->nzadr[i]);
    ndeep += deep[i];
  }
  return ndeep;
}

/* The dof sets (trees joined by the pass's rows) that hold a deep row, marked in `mark` by
 * their union-find root in `parent`. */
static void mr_depen_mark(const mr_model *m, const mr_rows *r, int contacts, const char *deep,
                          int *parent, char *mark) {
  for (int i = 0; i < m->nv; i++) parent[i] = i;
  memset(mark, 0, (size_t)m->nv);
  for (int i = 0; i < r->nrow; i++)
    if (i < r->neq || mr_depen_is_normal(r, i, contacts)) mr_depen_join_row(r, i, parent);
  for (int i = 0; i < r->nrow; i++)
    if (deep[i]) mark[mr_depen_root(parent, r->nzind[r->nzadr[i]])] = 1;
}

/* A^-1 J_i^T over the row's tree ranges, packed, and its diagonal entry. X: nv doubles,
 * indexed by dof. */
static double mr_depen_AJ(const mr_model *m, const mr_data *d, const mr_rows *r, int i,
                          const int *s, double *X, double *AJ) {
  double gii = 0;
  for (int part = 0; part < 2; part++) {
    int lo = s[2 * part], hi = s[2 * part + 1];
    if (hi <= lo) continue;
    memset(X + lo, 0, (size_t)(hi - lo) * sizeof(double));
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++)
      if (r->nzind[t] >= lo && r->nzind[t] < hi) X[r->nzind[t]] = r->J[t];
    mr_solve_mass_span(m, d, X, lo, hi);
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++)
      if (r->nzind[t] >= lo && r->nzind[t] < hi) gii += r->J[t] * X[r->nzind[t]];
    memcpy(AJ, X + lo, (size_t)(hi - lo) * sizeof(double));
    AJ += hi - lo;
  }
  return gii;
}

/* J_i x over the row's nonzeros. */
static double mr_depen_row_dot(const mr_rows *r, int i, const double *x) {
  double s = 0;
  for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) s += r->J[t] * x[r->nzind[t]];
  return s;
}

static void mr_depen_add(const mr_depen *p, int a, double delta, double *dq) {
  const int *s = p->span + 4 * a;
  const double *aj = p->AJ + p->AJadr[a];
  for (int k = s[0]; k < s[1]; k++) dq[k] += delta * *aj++;
  for (int k = s[2]; k < s[3]; k++) dq[k] += delta * *aj++;
}

/* Projected Gauss-Seidel on the taken rows; dq accumulates A^-1 J^T lambda. */
static void mr_depen_solve(const mr_rows *r, const mr_depen *p, double *dq) {
  for (int sweep = 0; sweep < MR_DEPENETRATE_SWEEPS; sweep++) {
    double change = 0;
    for (int a = 0; a < p->n; a++) {
      int i = p->row[a];
      if (!(p->Gdiag[a] > 0)) continue;
      double resid = mr_depen_row_dot(r, i, dq) - p->lower[a];
      double l = p->lambda[a] - resid / p->Gdiag[a];
      if (i >= r->neq && l < 0) l = 0;
      double delta = l - p->lambda[a];
      if (delta == 0) continue;
      p->lambda[a] = l;
      mr_depen_add(p, a, delta, dq);
      change = fmax(change, fabs(delta) * p->Gdiag[a]);
    }
    if (change <= MR_DEPENETRATE_TOL) break;
  }
}

/* The rows of the marked sets with their bounds, A^-1 J^T and diagonal. Returns -1 when
 * the arena is exhausted. */
static int mr_depen_take(const mr_model *m, mr_data *d, const mr_rows *r, int contacts,
                         int *parent, const char *mark, const double *lower, mr_depen *p) {
  const int nv = m->nv, n = r->nrow;
  int *lo = mr_arena_ints(d, (size_t)nv), *hi = mr_arena_ints(d, (size_t)nv);
  p->row = mr_arena_ints(d, (size_t)n);
  p->span = mr_arena_ints(d, 4 * (size_t)n);
  p->AJadr = mr_arena_ints(d, (size_t)n);
  if (!lo || !hi || !p->row || !p->span || !p->AJadr) return -1;
  mr_tree_ranges(m, lo, hi);
  int total = 0;
  p->n = 0;
  for (int i = 0; i < n; i++) {
    if (!(i < r->neq || mr_depen_is_normal(r, i, contacts)) || r->nzadr[i + 1] == r->nzadr[i])
      continue;
    if (!mark[mr_depen_root(parent, r->nzind[r->nzadr[i]])]) continue;
    int *s = p->span + 4 * p->n;
    mr_row_span(r, i, lo, hi, s);
    p->row[p->n] = i;
    p->AJadr[p->n] = total;
    total += (s[1] - s[0]) + (s[3] - s[2]);
    p->n++;
  }
  p->AJ = mr_arena_doubles(d, (size_t)total + 1);
  p->Gdiag = mr_arena_doubles(d, (size_t)p->n + 1);
  p->lower = mr_arena_doubles(d, (size_t)p->n + 1);
  p->lambda = mr_arena_doubles(d, (size_t)p->n + 1);
  double *X = mr_arena_doubles(d, (size_t)nv);
  if (!p->AJ || !p->Gdiag || !p->lower || !p->lambda || !X) return -1;
  for (int a = 0; a < p->n; a++) {
    int i = p->row[a];
    p->Gdiag[a] = mr_depen_AJ(m, d, r, i, p->span + 4 * a, X, p->AJ + p->AJadr[a]);
    p->lower[a] = i < r->neq ? 0 : lower[i];
    p->lambda[a] = 0;
  }
  return 0;
}

/* The motion of the step in velocity coordinates, per integrator. */
static void mr_depen_step_motion(const mr_model *m, const mr_data *d, const mr_rows *r,
                                 double *dqstep) {
  const double dt = d->opt.timestep;
  int mid = d->opt.integrator == MR_INT_MIDPOINT;
  for (int i = 0; i < m->nv; i++) dqstep[i] = dt * (mid ? 0.5 * (r->v0[i] + d->qvel[i]) : d->qvel[i]);
}

void mr_constraint_depenetrate(const mr_model *m, mr_data *d) {
  mr_rows *r = mr_constraint_rows(d);
  if (!r || r->nrow == r->neq || (d->opt.disable & MR_DISABLE_CONSTRAINT)) return;
  int contacts = mr_solver_get(mr_solver_index(d))->depenetrate;
  const int nv = m->nv;
  size_t at = mr_arena_mark(d);
  double *dqstep = mr_arena_doubles(d, (size_t)nv), *lower = mr_arena_doubles(d, (size_t)r->nrow);
  int *parent = mr_arena_ints(d, (size_t)nv);
  char *mark = (char *)mr_arena_ints(d, (size_t)nv / sizeof(int) + 1);
  char *deep = (char *)mr_arena_ints(d, (size_t)r->nrow / sizeof(int) + 1);
  if (!dqstep || !lower || !parent || !mark || !deep) {
    mr_arena_restore(d, at);
    return;
  }
  mr_depen_step_motion(m, d, r, dqstep);
  /* the trees are joined only when some row is deep: most steps end at the gaps */
  if (mr_depen_targets(m, d, r, dqstep, contacts, lower, deep) > 0) {
    mr_depen_mark(m, r, contacts, deep, parent, mark);
    mr_depen p;
    if (mr_depen_take(m, d, r, contacts, parent, mark, lower, &p) == 0) {
      memset(dqstep, 0, (size_t)nv * sizeof(double)); /* now the correction */
      mr_depen_solve(r, &p, dqstep);
      mr_integrate_pos(m, d->qpos, dqstep, 1.0);
    }
  }
  mr_arena_restore(d, at);
}
