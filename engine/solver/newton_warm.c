/* newton's warm path: the first iteration of a step whose contacts persist, a Newton step
 * from the linearization in the zones of last step's impulses, and the same kind of step
 * after each proximal step (newton.c's header comment describes the method). */
#include <math.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "newton.h"
#include "solver.h"

/* eps of the step from the warm start's zones: small enough that the proximal term's bias,
 * eps G_ii times the change of the impulses since last step, is below the tolerance at
 * rest; not so small that a sliding contact's linearization (on its cone's rim) overshoots. */
#define MR_NEWTON_EPS_GUESS 1e-6

/* Linearizations of the warm path at most (mr_newton_warm_path). */
#define MR_NEWTON_RELINEARIZE 4

/* A contact's zone in the warm impulses l: off, pushing inside the friction disk, or on its
 * rim (sliding or about to). */
static int mr_newton_warm_zone(const double l[3], double mu) {
  if (!(l[0] > 0)) return MR_ZONE_OFF;
  return mr_len2(l[1], l[2]) < (1 - 1e-9) * mu * l[0] ? MR_ZONE_IN : MR_ZONE_SLIDE;
}

/* Impulses, D and slip of contact k linearized in its warm zone z at y (the centre, the
 * warm impulses, is the expansion point for the normal): inside, lambda = y; on the rim,
 * lambda_N = y_N and lambda_T = mu y_N e + k (I - e e^T) y_T, the projection's Jacobian
 * at the current y_T: e its direction, k = mu lambda_c,N / |y_T| at most 1. A contact about
 * to slide has c_T ~ 0, so y_T is the centre's impulse, on its rim: k = 1. One sliding on
 * (a box pushed around, an object spinning on the floor) turns its slip from step to step;
 * y_T = lambda_c,T - c_T / r points along the slip the step's free motion brings, and k,
 * the friction's sensitivity to the slip's direction, is small. With the centre's
 * direction and k = 1 the slip would be held to last step's direction as a stiff
 * constraint, and the step would fail to the soft restart. A frictionless contact's
 * lambda_T = 0. */
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
  double mu = s->p->mu[k], t = mr_len2(y[1], y[2]), tc = mr_len2(l[1], l[2]);
  const double *along = t > 0 ? y : l; /* y_T, or the centre's when y_T = 0 */
  double len = t > 0 ? t : tc, e[2] = {0, 0}, gain = 0;
  if (len > 0) {
    e[0] = along[1] / len;
    e[1] = along[2] / len;
    gain = t > 0 ? fmin(1, mu * l[0] / t) : 1;
  }
  double et = e[0] * y[1] + e[1] * y[2];
  for (int a = 0; a < 2; a++) {
    for (int b = 0; b < 2; b++) Dk[3 * (a + 1) + b + 1] = gain * ((a == b) - e[a] * e[b]) * ri;
    s->slip[2 * k + a] = mu * e[a];
    lk[1 + a] = mu * e[a] * y[0] + gain * (y[1 + a] - e[a] * et);
  }
}

/* D, zones and impulses of every block linearized in the zones of the centre's impulses
 * (mr_newton_guess_contact), at the current point; the merit is set to infinity, since the
 * linearized point is no iterate and the step from it is taken in full. */
static void mr_newton_linearize_centre(mr_newton *s) {
  const mr_problem *p = s->p;
  for (int a = 0; a < s->nrow; a++) {
    int i = s->row[a];
    s->y[i] = s->center[i] - (s->Jv[i] + s->bias[i]) / s->r[i];
  }
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a], on = i < p->neq || s->center[i] > 0;
    s->zone[i] = (unsigned char)on;
    s->D[i] = on ? 1 / s->r[i] : 0;
    s->lam[i] = on ? s->y[i] : 0;
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a];
    mr_newton_guess_contact(s, k, mr_newton_warm_zone(s->center + s->base + 3 * k, p->mu[k]));
  }
  s->merit = INFINITY;
}

/* The first iteration of a warm-started solve: one Newton step at MR_NEWTON_EPS_GUESS from
 * the linearization in the zones of the warm impulses (the centre), the full step taken.
 * Returns the residual there, or NAN when a block changed zone or the step failed; *again
 * tells whether every change can be linearized again from the impulses reached
 * (mr_newton_warm_path): contacts turning between sticking and sliding, and blocks going
 * OFF (a contact lifting, a limit releasing), whose impulse the step already took to zero.
 * A block entering from OFF (a contact touching, a limit engaging) has no impulse to
 * linearize from: the caller restarts from the warm start at the soft eps. The caller
 * also restarts soft when a later step on this eps is short (MR_NEWTON_WARM_STEP). */
static double mr_newton_guess(mr_newton *s, int *again) {
  s->eps = MR_NEWTON_EPS_GUESS;
  mr_newton_regularization(s);
  mr_newton_linearize_centre(s);
  mr_newton_zones_copy(s, s->zone_outer, s->zone);
  double res = mr_newton_step(s);
  *again = 0;
  if (!isfinite(res)) return NAN;
  if (mr_newton_zones_equal(s, s->zone, s->zone_outer)) return res;
  *again = 1;
  for (int a = 0; a < mr_newton_nblock(s) && *again; a++) {
    int b = mr_newton_block(s, a);
    *again = !(s->zone_outer[b] == MR_ZONE_OFF && s->zone[b] != MR_ZONE_OFF);
  }
  return NAN;
}

/* A block without impulse in the warm start whose row closes, at the velocities the warm
 * impulses give, faster than MR_NEWTON_IMPACT times the speed gravity adds in a step: a
 * body landing, a limb hitting a joint limit. The guess linearizes it OFF and the step
 * turns it ON, which ends the warm path (mr_newton_guess); such steps go to the soft
 * restart at once, without the guess's iteration. Slower closing is the drift of resting
 * contacts, which the guess's step takes up without a zone change as often as not. */
#define MR_NEWTON_IMPACT 0.2

int mr_newton_impact(const mr_newton *s) {
  const mr_problem *p = s->p;
  const double speed = MR_NEWTON_IMPACT * mr_norm3(p->d->opt.gravity) * p->d->opt.timestep;
  if (!(speed > 0)) return 0;
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    if (i >= p->neq && s->center[i] == 0 && s->c[i] < -speed) return 1;
  }
  for (int a = 0; a < s->ncon; a++) {
    int i = s->base + 3 * s->con[a];
    if (s->center[i] == 0 && s->c[i] < -speed) return 1;
  }
  return 0;
}

/* The warm path: mr_newton_guess, and again from the impulses it reached (the centre moves
 * there, and its zones are the new ones) while no block entered from OFF, up to
 * MR_NEWTON_RELINEARIZE times. A light contact in a resting pile creeps by stick and slip,
 * and its warm zone is wrong every few steps; a rolling sphere or a cylinder rocking on its
 * rim leaves contacts behind that the warm start still pushes on. The soft restart would
 * take a dozen iterations, one linearization more takes one. Counts the iterations into
 * *iters; returns the residual, or NAN for the soft restart. */
double mr_newton_warm_path(mr_newton *s, int *iters) {
  int again = 0;
  double res = mr_newton_guess(s, &again);
  ++*iters;
  /* counted from this path's first guess: a path from pgs's point starts after its sweeps */
  for (int guesses = 1; isnan(res) && again && guesses < MR_NEWTON_RELINEARIZE; guesses++) {
    if (*iters >= s->p->max_iter) break;
    mr_newton_copy_rows(s, s->center, s->lam);
    res = mr_newton_guess(s, &again);
    ++*iters;
  }
  return res;
}

/* The Newton iteration after a proximal step. Its centre moved to the impulses, and at a
 * small eps moving it turns y = lambda_c - (J v + bias) / r over by the whole change of the
 * impulses since the last centre (a step of newly touching feet takes impulses from 3 to
 * 0.1: y lands far outside the zones, every contact OFF), where Newton's model holds for
 * steps of r's size only. The impulses' own zones are the likely ones, as for the warm
 * start: the full step from the linearization there is kept when it lowers the merit of the
 * current point; otherwise the point is restored (the trial counts as an iteration, its
 * residual that point's) and the next iteration takes the usual step from it. */
double mr_newton_recentred_step(mr_newton *s) {
  double m0 = s->merit;
  mr_newton_linearize_centre(s);
  double res = mr_newton_step(s);
  if (isfinite(res) && s->merit <= (1 - 2 * MR_NEWTON_ARMIJO) * m0) return res;
  mr_newton_copy_dofs(s, s->z, s->z0);
  mr_newton_copy_dofs(s, s->Av, s->Av0);
  mr_newton_copy_rows(s, s->Jv, s->Jv0);
  mr_newton_project(s, s->Jv, s->lam, s->D);
  return mr_newton_judge(s);
}
