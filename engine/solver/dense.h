/* Small dense linear algebra for the solvers (internal).
 *
 * Matrices are n x n, row-major, as mr_problem's G. Everything works in caller-owned
 * memory (the solvers take it from the arena), so nothing here allocates.
 */
#ifndef MR_DENSE_H
#define MR_DENSE_H

/* y = A x. */
void mr_dense_matvec(const double *A, int n, const double *x, double *y);

/* Row i of A times x. */
double mr_dense_row_dot(const double *A, int n, int i, const double *x);

/* Cholesky factor L L^T = A + diag(shift) (shift may be NULL) + s I, written into the lower
 * triangle of L (row-major n x n; the upper triangle is left untouched, L may equal A).
 * A pivot below `floor` is raised to `floor`: for a PSD A with s > 0 that only happens
 * when round-off ate the pivot of a rank-deficient block, and raising it keeps the factor
 * finite and the solve a good proximal step. Returns the number of raised pivots, or -1
 * when the input is not finite. */
int mr_dense_cholesky(double *L, const double *A, const double *shift, double s, int n,
                      double floor);

/* x = (L L^T)^-1 x in place, with L from mr_dense_cholesky. */
void mr_dense_cholesky_solve(const double *L, int n, double *x);

/* x = A^-1 x for the general n x n A by LU with partial pivoting, A overwritten (piv: n
 * ints). Returns 0, or -1 when a pivot vanishes (A singular to working precision). */
int mr_dense_lu_solve(double *A, int n, int *piv, double *x);

/* Estimate of the largest eigenvalue of the symmetric PSD matrix A by power iteration
 * (at most max_iter products, stopping when the Rayleigh quotient changes by less than
 * rtol relative). work: 2n doubles. Returns 0 for n = 0 or A = 0. */
double mr_dense_power_max(const double *A, int n, double *work, int max_iter, double rtol);

/* 1 when all n values are finite. */
int mr_dense_is_finite(const double *x, int n);

/* max_i |x_i| */
double mr_dense_norm_inf(const double *x, int n);

/* Whether a problem is well formed for the dense solvers: consistent sizes, G, g and mu
 * present, every given array finite, mu >= 0. */
struct mr_problem;
struct mr_solver_out;
int mr_problem_input_ok(const struct mr_problem *p);

/* The answer to a problem a solver cannot solve: zero impulses, c = g (where finite),
 * status failed, residual infinite. */
void mr_solver_fail(const struct mr_problem *p, struct mr_solver_out *out);

#endif
