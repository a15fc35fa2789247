/* The NCP measures of a candidate solution of the contact problem: defined once here, used
 * by the solvers to stop and by the constraint stage's metrics (engine/constraint/metrics.c)
 * to report every solver on the same scale (papers/002 sec. 2, papers/000 sec. 3).
 *
 * c = G lambda + g. Per contact k (rows normal, t1, t2; friction mu) the De Saxce
 * correction is Gamma(c) = (mu ||c_T||, 0, 0) and the augmented velocity c* = c + Gamma(c).
 * All norms are L-infinity over rows/blocks.
 *
 *   primal            contacts: ||lambda - P_K(lambda)|| (distance to K_mu);
 *                     limits: max(0, -lambda); bilateral rows: 0 (lambda is free)
 *   dual              contacts: ||c* - P_K*(c*)|| (distance to the dual cone K_{1/mu},
 *                     which for c* is exactly max(0, -c_N): non-penetration);
 *                     limits: max(0, -c); bilateral rows: |c| (should be 0)
 *   complementarity   contacts: |<lambda, c*>|; limits: |lambda c|; bilateral: 0
 *   natural_map       ||lambda - P_K(lambda - c*)||, per block (bilateral rows: |c|,
 *                     limits: |lambda - max(0, lambda - c)|); zero iff lambda solves the NCP
 *   signorini         |lambda_N c_N| over contacts and limits
 *   dissipation       contacts: |<lambda_T, c_T> + mu lambda_N ||c_T|||: zero iff the
 *                     friction impulse opposes the slip at full magnitude (maximum
 *                     dissipation) or the contact sticks; >= 0 inside the cone
 *
 * Units: impulses (N s) and velocities (m/s), so complementarity is in N s m/s. The NCP
 * stopping measure mr_ncp_residual = max(primal, dual, complementarity) is the paper's
 * epsilon_abs, offered to every solver so they stop on the same scale.
 */
#include <math.h>
#include <string.h>

#include "ncp.h"

static void mr_ncp_errors_max(mr_ncp_errors *acc, const mr_ncp_errors *e) {
  acc->primal = mr_maxd(acc->primal, e->primal);
  acc->dual = mr_maxd(acc->dual, e->dual);
  acc->compl = mr_maxd(acc->compl, e->compl);
  acc->natural = mr_maxd(acc->natural, e->natural);
  acc->signorini = mr_maxd(acc->signorini, e->signorini);
  acc->dissipation = mr_maxd(acc->dissipation, e->dissipation);
}

static void mr_errors_bilateral(double c, mr_ncp_errors *e) {
  memset(e, 0, sizeof *e);
  e->dual = e->natural = fabs(c);
}

static void mr_errors_limit(double l, double c, mr_ncp_errors *e) {
  memset(e, 0, sizeof *e);
  e->primal = mr_maxd(0, -l);
  e->dual = mr_maxd(0, -c);
  e->compl = e->signorini = fabs(l * c);
  e->natural = fabs(l - mr_maxd(0, l - c));
}

/* Distance of the De Saxce-corrected velocity c* = (c_N + mu s, c_T), s = |c_T|, to the
 * dual cone K*_mu = {x : mu |x_T| <= x_N}, in closed form: c* lies inside unless c_N < 0;
 * then it is |c*| when c* is in the polar cone (mu x_N <= -s), else its distance to the
 * cone's surface line in the (x_N, s) plane, (mu s - x_N) / sqrt(1 + mu^2). Agrees with
 * the cone projection to 3e-16 and costs no projection. */
static double mr_dual_distance(double cN, double sT, double mu) {
  if (cN >= 0) return 0;
  double x = cN + mu * sT;
  if (mu <= 0) return -x;
  if (mu * x <= -sT) return mr_len2(x, sT);
  return (mu * sT - x) / sqrt(1 + mu * mu);
}

/* The natural map of one contact, |lambda - P_K(lambda - c*)| (L-infinity), c* its
 * De Saxce-corrected velocity. */
static double mr_natural_contact(const double l[3], const double cs[3], double mu) {
  double y[3];
  for (int k = 0; k < 3; k++) y[k] = l[k] - cs[k];
  mr_cone_project(y, mu);
  return mr_maxd(fabs(l[0] - y[0]), mr_maxd(fabs(l[1] - y[1]), fabs(l[2] - y[2])));
}

static void mr_errors_contact(const double l[3], const double c[3], double mu, mr_ncp_errors *e) {
  double sT = mr_len2(c[1], c[2]);
  double cs[3] = {c[0] + mu * sT, c[1], c[2]};
  e->primal = mr_cone_distance(l, mu);
  e->dual = mr_dual_distance(c[0], sT, mu);
  e->compl = fabs(l[0] * cs[0] + l[1] * cs[1] + l[2] * cs[2]);
  e->natural = mr_natural_contact(l, cs, mu);
  e->signorini = fabs(l[0] * c[0]);
  e->dissipation = fabs(l[1] * c[1] + l[2] * c[2] + mu * l[0] * sT);
}

/* The largest of a contact's primal, dual and complementarity residuals, with c* and |c_T|
 * given; the cone projection skipped for an impulse inside its cone. */
static double mr_contact_three(const double l[3], const double c[3], const double cs[3],
                               double sT, double mu) {
  double sL = mr_len2(l[1], l[2]);
  double primal = l[0] >= 0 && sL <= mu * l[0] ? 0 : mr_cone_distance(l, mu);
  double dual = mr_dual_distance(c[0], sT, mu);
  double compl = fabs(l[0] * cs[0] + l[1] * cs[1] + l[2] * cs[2]);
  return mr_maxd(primal, mr_maxd(dual, compl));
}

/* The stopping measure alone, called after every solver iteration: the same primal, dual
 * and complementarity terms as mr_errors_contact, with the cone projections skipped for
 * the blocks already inside their cones (most of them, near convergence). */
static double mr_contact_ncp_error(const double l[3], const double c[3], double mu) {
  double sT = mr_len2(c[1], c[2]);
  double cs[3] = {c[0] + mu * sT, c[1], c[2]};
  return mr_contact_three(l, c, cs, sT, mu);
}

/* That measure and the natural map: mr_errors_contact's four stopping terms, without the
 * Signorini and dissipation terms. */
static double mr_contact_stop_error(const double l[3], const double c[3], double mu) {
  double sT = mr_len2(c[1], c[2]);
  double cs[3] = {c[0] + mu * sT, c[1], c[2]};
  return mr_maxd(mr_contact_three(l, c, cs, sT, mu), mr_natural_contact(l, cs, mu));
}

double mr_ncp_stop_subset(const mr_problem *p, const int *rows, int nrows, const int *contacts,
                          int ncontacts, const double *lambda, const double *c) {
  mr_ncp_errors e;
  const int base = p->neq + p->nlim;
  double r = 0;
  for (int a = 0; a < nrows; a++) {
    int i = rows[a];
    if (i < p->neq) mr_errors_bilateral(c[i], &e);
    else mr_errors_limit(lambda[i], c[i], &e);
    r = mr_maxd(r, mr_maxd(mr_maxd(e.primal, e.dual), mr_maxd(e.compl, e.natural)));
  }
  for (int a = 0; a < ncontacts; a++) {
    int k = contacts[a];
    r = mr_maxd(r, mr_contact_stop_error(lambda + base + 3 * k, c + base + 3 * k, p->mu[k]));
  }
  return r;
}

void mr_ncp_errors_compute(const mr_problem *p, const double *lambda, const double *c,
                          mr_ncp_errors *acc) {
  mr_ncp_errors e;
  memset(acc, 0, sizeof *acc);
  int base = p->neq + p->nlim;
  for (int i = 0; i < p->neq; i++) {
    mr_errors_bilateral(c[i], &e);
    mr_ncp_errors_max(acc, &e);
  }
  for (int i = p->neq; i < base; i++) {
    mr_errors_limit(lambda[i], c[i], &e);
    mr_ncp_errors_max(acc, &e);
  }
  for (int k = 0; k < p->ncon; k++) {
    mr_errors_contact(lambda + base + 3 * k, c + base + 3 * k, p->mu[k], &e);
    mr_ncp_errors_max(acc, &e);
  }
}

double mr_ncp_residual(const mr_problem *p, const double *lambda, const double *c) {
  double r = 0;
  int base = p->neq + p->nlim;
  for (int i = 0; i < p->neq; i++) r = mr_maxd(r, fabs(c[i]));
  for (int i = p->neq; i < base; i++) {
    double e = mr_maxd(mr_maxd(0, -lambda[i]), mr_maxd(-c[i], fabs(lambda[i] * c[i])));
    r = mr_maxd(r, e);
  }
  for (int k = 0; k < p->ncon; k++)
    r = mr_maxd(r, mr_contact_ncp_error(lambda + base + 3 * k, c + base + 3 * k, p->mu[k]));
  return r;
}
