/* Projections onto the Coulomb cone K_mu = {x : ||x_T|| <= mu x_N} and its dual
 * K*_mu = K_{1/mu} = {x : mu ||x_T|| <= x_N} (papers/000 eqs. 150-151, papers/002 sec. 2).
 * Vectors are ordered (normal, t1, t2). mu = 0 is allowed: K_0 is the ray x_T = 0, x_N >= 0
 * and K*_0 the half-space x_N >= 0. */
#include <math.h>
#include <string.h>

#include "solver.h"

void mr_cone_project(double x[3], double mu) {
  double xn = x[0], s = mr_len2(x[1], x[2]);
  if (xn >= 0 && s <= mu * xn) return;
  if (mu * s <= -xn) {
    x[0] = x[1] = x[2] = 0;
    return;
  }
  /* s > 0 here: s = 0 with xn >= 0 is inside, with xn < 0 in the polar cone */
  double n = (mu * s + xn) / (1 + mu * mu), scale = mu * n / s;
  x[0] = n;
  x[1] *= scale;
  x[2] *= scale;
}

int mr_cone_project_jacobian(const double y[3], double mu, double p[3], double dP[9]) {
  double yn = y[0], s = mr_len2(y[1], y[2]);
  if (yn >= 0 && s <= mu * yn) {
    memcpy(p, y, 3 * sizeof(double));
    for (int a = 0; a < 9; a++) dP[a] = a % 4 == 0;
    return 1;
  }
  if (mu * s <= -yn) {
    memset(p, 0, 3 * sizeof(double));
    memset(dP, 0, 9 * sizeof(double));
    return 0;
  }
  /* on the surface: n = (yn + mu s) / (1 + mu^2), p_T = mu n e with e = y_T / s (s > 0) */
  double f = 1 / (1 + mu * mu), n = (yn + mu * s) * f, e[2] = {y[1] / s, y[2] / s};
  double perp = mu * n / s;
  p[0] = n;
  p[1] = mu * n * e[0];
  p[2] = mu * n * e[1];
  dP[0] = f;
  for (int a = 0; a < 2; a++) {
    dP[3 * (a + 1)] = dP[a + 1] = mu * f * e[a];
    for (int b = 0; b < 2; b++)
      dP[3 * (a + 1) + b + 1] = mu * mu * f * e[a] * e[b] + perp * ((a == b) - e[a] * e[b]);
  }
  return 2;
}

void mr_cone_project_dual(double x[3], double mu) {
  double xn = x[0], s = mr_len2(x[1], x[2]);
  if (mu * s <= xn) return;
  if (s <= -mu * xn) {
    x[0] = x[1] = x[2] = 0;
    return;
  }
  double t = (s + mu * xn) / (1 + mu * mu), scale = t / s;
  x[0] = mu * t;
  x[1] *= scale;
  x[2] *= scale;
}

double mr_cone_distance(const double x[3], double mu) {
  double y[3] = {x[0], x[1], x[2]};
  mr_cone_project(y, mu);
  double a = x[0] - y[0], b = x[1] - y[1], c = x[2] - y[2];
  return sqrt(a * a + b * b + c * c);
}

void mr_project_contact_bounds(double l[3], double mu) {
  l[0] = mr_maxd(0, l[0]);
  double s = mr_len2(l[1], l[2]), radius = mu * l[0];
  if (s > radius) {
    l[1] *= s > 0 ? radius / s : 0;
    l[2] *= s > 0 ? radius / s : 0;
  }
}

void mr_project_bounds(const mr_problem *p, double *lambda) {
  const int base = p->neq + p->nlim;
  for (int i = p->neq; i < base; i++) lambda[i] = mr_maxd(0, lambda[i]);
  for (int k = 0; k < p->ncon; k++) mr_project_contact_bounds(lambda + base + 3 * k, p->mu[k]);
}
