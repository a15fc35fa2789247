/* Projections onto the Coulomb cone K_mu = {x : ||x_T|| <= mu x_N} and its dual
 * K*_mu = K_{1/mu} = {x : mu ||x_T|| <= x_N} (papers/000 eqs. 150-151, papers/002 sec. 2).
 * Vectors are ordered (normal, t1, t2). mu = 0 is allowed: K_0 is the ray x_T = 0, x_N >= 0
 * and K*_0 the half-space x_N >= 0. */
#include <math.h>

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

void mr_project_bounds(const mr_problem *p, double *lambda) {
  const int base = p->neq + p->nlim;
  for (int i = p->neq; i < base; i++) lambda[i] = mr_maxd(0, lambda[i]);
  for (int k = 0; k < p->ncon; k++) {
    double *l = lambda + base + 3 * k;
    l[0] = mr_maxd(0, l[0]);
    double s = mr_len2(l[1], l[2]), radius = p->mu[k] * l[0];
    if (s > radius) {
      l[1] *= s > 0 ? radius / s : 0;
      l[2] *= s > 0 ? radius / s : 0;
    }
  }
}
