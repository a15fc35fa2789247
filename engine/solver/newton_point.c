/* Newton's point: the impulses its velocities give (the projections), its judge in the
 * half space of A's factor (merit and NCP measures), and the velocity change of an
 * island's answer. */
#include <math.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "engine/core/tree_ldl.h"
#include "ncp.h"
#include "newton.h"
#include "solver.h"

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
void mr_newton_project(mr_newton *s, const double *Jv, double *lam, double *D) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    s->y[i] = s->center[i] - (Jv[i] + s->bias[i]) / s->r[i];
  }
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a], on = i < p->neq || s->y[i] > 0;
    lam[i] = on ? s->y[i] : 0;
    if (!D) continue;
    D[i] = on ? 1 / s->r[i] : 0;
    s->zone[i] = (unsigned char)on;
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a], i = s->base + 3 * k;
    double *Dk = D ? D + s->base + 9 * k : NULL;
    int z = mr_newton_contact(s->y + i, p->mu[k], lam + i, Dk, s->slip + 2 * k);
    if (!D) continue;
    s->zone[s->base + k] = (unsigned char)z;
    for (int b = 0; b < 9; b++) Dk[b] /= s->r[i];
  }
}

/* ------------------------------------------------------------------ judge */

/* x = L^-T x over the island's trees, with A's factor (the half space the point is judged
 * in: mr_newton_merit). */
void mr_newton_mass_up(const mr_newton *s, double *x) {
  for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
    mr_tree_ldl_up1(s->m, s->d->qLD, x, lo, hi);
}

/* The point is judged in the half space of A's factor (A = L^T D L in d->qLD,
 * engine/core/tree_ldl.h), where neither needs a solve. With yhat = L^-T J^T lambda =
 * sum_i lambda_i Y_i (the rows' half solves, mr_problem.Y) and z = L^-T A (v - v_free):
 *   F = A (v - v_free) - J^T lambda = L^T (z - yhat),
 *   m = 1/2 F^T A^-1 F = 1/2 (z - yhat)^T D^-1 (z - yhat),
 *   c = J v_lambda + bias = g + J A^-1 J^T lambda = g + Y D^-1 yhat,
 * v_lambda = v_free + A^-1 J^T lambda being the velocities the impulses produce. z follows
 * v along a line as A (v - v_free) does, and v itself is never formed. */

/* yhat = L^-T J^T lambda over the island's dofs. A contact's three rows' half solves are
 * three runs over one list of dofs (mr_problem.Y), read once for all three. */
static void mr_newton_half_impulse(const mr_newton *s, const double *lambda, double *yhat) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->ndof; a++) yhat[s->dof[a]] = 0;
  for (int a = 0; a < s->nbase; a++) {
    const int i = s->brow[a], t0 = p->Yrange[2 * i], n = p->Yrange[2 * i + 1] - t0;
    const double l = lambda[i];
    if (l == 0) continue;
    const int *ind = mr_problem_half_dofs(p, i);
    for (int t = 0; t < n; t++) yhat[ind[t]] += l * p->Y[t0 + t];
  }
  for (int a = 0; a < s->ncon; a++) {
    const int i = s->base + 3 * s->con[a], t0 = p->Yrange[2 * i], n = p->Yrange[2 * i + 1] - t0;
    const double l0 = lambda[i], l1 = lambda[i + 1], l2 = lambda[i + 2];
    if (l0 == 0 && l1 == 0 && l2 == 0) continue;
    const double *Y = p->Y + t0;
    const int *ind = mr_problem_half_dofs(p, i);
    for (int t = 0; t < n; t++) yhat[ind[t]] += (l0 * Y[t] + l1 * Y[n + t]) + l2 * Y[2 * n + t];
  }
}

/* The merit part of the judge alone: yhat and s->merit (a line search's trial needs no
 * more until it is accepted). */
void mr_newton_merit(mr_newton *s) {
  const double *dinv = s->d->qLDiagInv;
  mr_newton_half_impulse(s, s->lam, s->yhat);
  double merit = 0;
  for (int a = 0; a < s->ndof; a++) {
    const int k = s->dof[a];
    const double e = s->z[k] - s->yhat[k];
    merit += dinv[k] * e * e;
  }
  s->merit = 0.5 * merit;
}

/* The constraint velocities c of the point whose merit was just computed, and its NCP
 * measures. */
double mr_newton_measures(mr_newton *s) {
  const mr_problem *p = s->p;
  const double *dinv = s->d->qLDiagInv;
  const double *w = s->ydinv;
  for (int a = 0; a < s->ndof; a++) s->ydinv[s->dof[a]] = dinv[s->dof[a]] * s->yhat[s->dof[a]];
  for (int a = 0; a < s->nbase; a++) {
    const int i = s->brow[a], t0 = p->Yrange[2 * i], n = p->Yrange[2 * i + 1] - t0;
    const int *ind = mr_problem_half_dofs(p, i);
    double c = p->g[i];
    for (int t = 0; t < n; t++) c += p->Y[t0 + t] * w[ind[t]];
    s->c[i] = c;
  }
  for (int a = 0; a < s->ncon; a++) {
    const int i = s->base + 3 * s->con[a], t0 = p->Yrange[2 * i], n = p->Yrange[2 * i + 1] - t0;
    const double *Y = p->Y + t0;
    const int *ind = mr_problem_half_dofs(p, i);
    double c0 = 0, c1 = 0, c2 = 0;
    for (int t = 0; t < n; t++) {
      const double wk = w[ind[t]];
      c0 += Y[t] * wk;
      c1 += Y[n + t] * wk;
      c2 += Y[2 * n + t] * wk;
    }
    s->c[i] = p->g[i] + c0;
    s->c[i + 1] = p->g[i + 1] + c1;
    s->c[i + 2] = p->g[i + 2] + c2;
  }
  return mr_ncp_stop_subset(p, s->brow, s->nbase, s->con, s->ncon, s->lam, s->c);
}

double mr_newton_judge(mr_newton *s) {
  mr_newton_merit(s);
  return mr_newton_measures(s);
}

/* The island's velocity change for its answer, dv = A^-1 J^T lambda = L^-1 D^-1 yhat. */
void mr_newton_velocity_change(const mr_newton *s, double *dv) {
  mr_newton_copy_dofs(s, dv, s->yhat_answer);
  for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
    mr_tree_ldl_down1(s->m, s->d->qLD, s->d->qLDiagInv, dv, lo, hi);
}
