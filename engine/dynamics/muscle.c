/* MuJoCo's muscle model (its documentation's "Muscle actuators" and FLV.m).
 *
 * The tendon length range [l0, l1] (actuator_lengthrange) maps onto the muscle's operating
 * range [r0, r1] in units of the optimal length L0 = (l1 - l0) / (r1 - r0), so the scaled
 * length is L = r0 + (length - l0) / L0 and the scaled velocity V = velocity / (L0 vmax).
 * The force is -F0 (FL(L) FV(V) act + FP(L)): FL a bump between lmin and lmax peaking at 1
 * (four quadratic pieces), FV rising from 0 at V = -1 to 1 at rest and to fvmax when
 * stretching, FP a passive spring that starts at L = 1, quadratic up to b = (1 + lmax) / 2
 * and linear beyond. F0 is the force parameter, or scale / acc0 when it is negative.
 *
 * Activation follows ctrl with a time constant that depends on the direction: tau_act
 * (0.5 + 1.5 act) when activating, tau_deact / (0.5 + 1.5 act) when relaxing (Millard et
 * al. 2013), with ctrl and act clamped to [0, 1] inside the formula.
 *
 * One deliberate difference from MuJoCo 2.2.2: there FL continues below lmin along its
 * (1 - x^2 / 2) piece and turns negative, so a muscle compressed beyond lmin pushes; here,
 * as in later MuJoCo versions, FL is 0 outside [lmin, lmax]. Muscles work inside
 * [range0, range1] (0.75 to 1.05 by default), well inside (lmin, lmax), so the two agree
 * wherever a muscle's tendon can actually be (tests/test_mj_tendon.c checks both facts).
 */
#include <math.h>

#include "dynamics.h"

#define MR_MUSCLE_EPS 1e-15 /* MuJoCo's mjMINVAL */

static double mr_clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

/* Peak force F0. */
static double mr_muscle_peak(double force, double scale, double acc0) {
  return force < 0 ? scale / fmax(MR_MUSCLE_EPS, acc0) : force;
}

/* Optimal length L0 and the scaled length of `len`. */
static double mr_muscle_length(double len, const double lengthrange[2], const double range[2],
                               double *L0) {
  *L0 = (lengthrange[1] - lengthrange[0]) / fmax(MR_MUSCLE_EPS, range[1] - range[0]);
  return range[0] + (len - lengthrange[0]) / fmax(MR_MUSCLE_EPS, *L0);
}

/* FL: 0 outside [lmin, lmax], 1 at L = 1, half-way points at the midpoints of each side. */
static double mr_muscle_fl(double L, double lmin, double lmax) {
  if (L < lmin || L > lmax) return 0;
  double a = 0.5 * (lmin + 1), b = 0.5 * (1 + lmax), x;
  if (L <= a) {
    x = (L - lmin) / fmax(MR_MUSCLE_EPS, a - lmin);
    return 0.5 * x * x;
  }
  if (L <= 1) {
    x = (1 - L) / fmax(MR_MUSCLE_EPS, 1 - a);
    return 1 - 0.5 * x * x;
  }
  if (L <= b) {
    x = (L - 1) / fmax(MR_MUSCLE_EPS, b - 1);
    return 1 - 0.5 * x * x;
  }
  x = (lmax - L) / fmax(MR_MUSCLE_EPS, lmax - b);
  return 0.5 * x * x;
}

static double mr_muscle_fv(double V, double fvmax) {
  double y = fvmax - 1;
  if (V <= -1) return 0;
  if (V <= 0) return (V + 1) * (V + 1);
  if (V <= y) return fvmax - (y - V) * (y - V) / fmax(MR_MUSCLE_EPS, y);
  return fvmax;
}

double mr_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                      const double prm[9]) {
  double L0, L = mr_muscle_length(len, lengthrange, prm, &L0);
  double V = vel / fmax(MR_MUSCLE_EPS, L0 * prm[6]);
  return -mr_muscle_peak(prm[2], prm[3], acc0) * mr_muscle_fl(L, prm[4], prm[5]) *
         mr_muscle_fv(V, prm[8]);
}

double mr_muscle_bias(double len, const double lengthrange[2], double acc0, const double prm[9]) {
  double L0, L = mr_muscle_length(len, lengthrange, prm, &L0);
  double b = 0.5 * (1 + prm[5]), fp;
  if (L <= 1) {
    fp = 0;
  } else if (L <= b) {
    double x = (L - 1) / fmax(MR_MUSCLE_EPS, b - 1);
    fp = 0.5 * x * x;
  } else {
    double x = (L - b) / fmax(MR_MUSCLE_EPS, b - 1);
    fp = 0.5 + x;
  }
  return -mr_muscle_peak(prm[2], prm[3], acc0) * prm[7] * fp;
}

double mr_muscle_dynamics(double ctrl, double act, const double prm[2]) {
  double u = mr_clamp01(ctrl), a = mr_clamp01(act);
  /* the direction compares the clamped control with the activation itself */
  double tau = u > act ? prm[0] * (0.5 + 1.5 * a) : prm[1] / (0.5 + 1.5 * a);
  return (u - act) / fmax(MR_MUSCLE_EPS, tau);
}
