/* Helpers for the conformance tests: a fixed-seed random generator (the same sequence on
 * every platform, so every run sees the same states) and the error measures the tests
 * compare engines with. */
#ifndef MR_COMPARE_H
#define MR_COMPARE_H

#include <math.h>

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;

/* Uniform in [lo, hi): splitmix64, tiny and portable. */
static inline double rng_uniform(double lo, double hi) {
  unsigned long long z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static inline double max_abs(const double *a, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

static inline double max_diff(const double *a, const double *b, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double e = fabs(a[i] - b[i]);
    if (!(e == e)) return INFINITY; /* a NaN anywhere is an infinite error */
    m = fmax(m, e);
  }
  return m;
}

/* Largest difference relative to the largest entry of the reference. A reference that is
 * all zeros (or nearly) would make the ratio meaningless, so the scale has a floor. */
static inline double rel_diff(const double *ref, const double *got, int n) {
  return max_diff(ref, got, n) / fmax(max_abs(ref, n), 1e-9);
}

#endif
