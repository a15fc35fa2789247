/* Small dense linear algebra for the solvers: products, a floored Cholesky, and the power
 * iteration the proximal solvers use to pick their penalty. */
#include "dense.h"
#include "solver.h"

#include <math.h>
#include <stddef.h>

void mr_dense_matvec(const double *A, int n, const double *x, double *y) {
  for (int i = 0; i < n; i++) y[i] = mr_dense_row_dot(A, n, i, x);
}

double mr_dense_row_dot(const double *A, int n, int i, const double *x) {
  const double *row = A + (size_t)i * (size_t)n;
  double sum = 0;
  for (int j = 0; j < n; j++) sum += row[j] * x[j];
  return sum;
}

int mr_dense_cholesky(double *L, const double *A, const double *shift, double s, int n,
                      double floor) {
  int raised = 0;
  for (int i = 0; i < n; i++) {
    const double *arow = A + (size_t)i * (size_t)n;
    double *lrow = L + (size_t)i * (size_t)n;
    for (int j = 0; j <= i; j++) {
      const double *ljrow = L + (size_t)j * (size_t)n;
      double sum = arow[j];
      for (int k = 0; k < j; k++) sum -= lrow[k] * ljrow[k];
      if (j < i) {
        lrow[j] = sum / ljrow[j];
        continue;
      }
      sum += s + (shift ? shift[i] : 0.0);
      if (!isfinite(sum)) return -1;
      if (sum < floor) {
        sum = floor;
        raised++;
      }
      lrow[i] = sqrt(sum);
    }
  }
  return raised;
}

void mr_dense_cholesky_solve(const double *L, int n, double *x) {
  for (int i = 0; i < n; i++) { /* L y = x */
    const double *row = L + (size_t)i * (size_t)n;
    double sum = x[i];
    for (int k = 0; k < i; k++) sum -= row[k] * x[k];
    x[i] = sum / row[i];
  }
  for (int i = n - 1; i >= 0; i--) { /* L^T x = y */
    double sum = x[i];
    for (int k = i + 1; k < n; k++) sum -= L[(size_t)k * (size_t)n + (size_t)i] * x[k];
    x[i] = sum / L[(size_t)i * (size_t)n + (size_t)i];
  }
}

int mr_dense_lu_solve(double *A, int n, int *piv, double *x) {
  double scale = 0;
  for (int i = 0; i < n * n; i++) scale = fmax(scale, fabs(A[i]));
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[(size_t)i * n + k]) > fabs(A[(size_t)p * n + k])) p = i;
    piv[k] = p;
    if (!(fabs(A[(size_t)p * n + k]) > 1e-14 * scale)) return -1;
    if (p != k)
      for (int j = 0; j < n; j++) {
        double t = A[(size_t)k * n + j];
        A[(size_t)k * n + j] = A[(size_t)p * n + j];
        A[(size_t)p * n + j] = t;
      }
    for (int i = k + 1; i < n; i++) {
      double f = A[(size_t)i * n + k] /= A[(size_t)k * n + k];
      for (int j = k + 1; j < n; j++) A[(size_t)i * n + j] -= f * A[(size_t)k * n + j];
    }
  }
  for (int k = 0; k < n; k++) {
    double t = x[k];
    x[k] = x[piv[k]];
    x[piv[k]] = t;
    for (int i = 0; i < k; i++) x[k] -= A[(size_t)k * n + i] * x[i];
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++) x[k] -= A[(size_t)k * n + j] * x[j];
    x[k] /= A[(size_t)k * n + k];
  }
  return 0;
}

static double dense_normalize(double *x, int n) {
  double norm = 0;
  for (int i = 0; i < n; i++) norm += x[i] * x[i];
  norm = sqrt(norm);
  if (norm > 0)
    for (int i = 0; i < n; i++) x[i] /= norm;
  return norm;
}

double mr_dense_power_max(const double *A, int n, double *work, int max_iter, double rtol) {
  if (n <= 0) return 0;
  double *x = work, *y = work + n;
  /* A start vector with no symmetry, so it is unlikely to be orthogonal to the top
   * eigenvector of structured matrices (identical contacts, mirrored bodies). */
  for (int i = 0; i < n; i++) x[i] = 1.0 + 0.1 * (double)(i % 7) + 0.01 * (double)i;
  dense_normalize(x, n);
  double estimate = 0;
  for (int it = 0; it < max_iter; it++) {
    mr_dense_matvec(A, n, x, y);
    double rayleigh = 0;
    for (int i = 0; i < n; i++) rayleigh += x[i] * y[i];
    if (!isfinite(rayleigh)) return rayleigh;
    double norm = dense_normalize(y, n);
    for (int i = 0; i < n; i++) x[i] = y[i];
    double previous = estimate;
    /* |A x| >= x^T A x for a unit x: the norm converges to lambda_max from below too, and
     * faster than the Rayleigh quotient on the first products. */
    estimate = norm > rayleigh ? norm : rayleigh;
    if (norm == 0) return 0;
    if (it > 0 && fabs(estimate - previous) <= rtol * estimate) break;
  }
  return estimate;
}

int mr_dense_is_finite(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

double mr_dense_norm_inf(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) {
    double a = fabs(x[i]);
    if (a > m) m = a;
  }
  return m;
}

int mr_problem_input_ok(const mr_problem *p) {
  int n = p->nrow;
  if (n < 0 || p->neq < 0 || p->nlim < 0 || p->ncon < 0) return 0;
  if (p->neq + p->nlim + 3 * p->ncon != n) return 0;
  if (!p->G || !p->g || (p->ncon > 0 && !p->mu)) return 0;
  if (!mr_dense_is_finite(p->g, n) || !mr_dense_is_finite(p->G, n * n)) return 0;
  if (p->R && !mr_dense_is_finite(p->R, n)) return 0;
  if (p->dist && !mr_dense_is_finite(p->dist, p->ncon)) return 0;
  if (p->solref && !mr_dense_is_finite(p->solref, 2 * p->nrow)) return 0;
  if (p->solimp && !mr_dense_is_finite(p->solimp, 5 * p->nrow)) return 0;
  if (p->pos && !mr_dense_is_finite(p->pos, p->nrow)) return 0;
  for (int k = 0; k < p->ncon; k++)
    if (!(p->mu[k] >= 0) || !isfinite(p->mu[k])) return 0;
  return 1;
}

void mr_solver_fail(const mr_problem *p, mr_solver_out *out) {
  for (int i = 0; i < p->nrow; i++) {
    out->lambda[i] = 0;
    out->c[i] = (p->g && isfinite(p->g[i])) ? p->g[i] : 0;
  }
  out->status = MR_SOLVER_FAILED;
  out->residual = INFINITY;
}
