/* Newton's matrix dF/dv = A + J^T D J of the newton solver over one island: assembly into
 * the tree-block Cholesky factor, and solves with the sliding contacts' rank-one terms by
 * Sherman-Morrison-Woodbury (newton.c's header comment derives them). */
#include <string.h>

#include "dense.h"
#include "newton.h"


/* The columns of rows [i0, i0 + nr) (ascending, merged) into s->cols and their dense
 * Jacobian (ncols x nr, column-interleaved) into s->Jk; returns ncols. */
static int mr_newton_block_rows(mr_newton *s, int i0, int nr) {
  const mr_problem *p = s->p;
  int n = 0, at[3];
  for (int a = 0; a < nr; a++) at[a] = p->nzadr[i0 + a];
  for (;;) {
    int next = -1;
    for (int a = 0; a < nr; a++)
      if (at[a] < p->nzadr[i0 + a + 1] && (next < 0 || p->nzind[at[a]] < next)) next = p->nzind[at[a]];
    if (next < 0) break;
    s->cols[n] = next;
    for (int a = 0; a < nr; a++) {
      int hit = at[a] < p->nzadr[i0 + a + 1] && p->nzind[at[a]] == next;
      s->Jk[3 * n + a] = hit ? p->J[at[a]++] : 0;
    }
    n++;
  }
  return n;
}

/* H += J_b^T D_b J_b for one block of nr rows with its nr x nr symmetric D. */
static void mr_newton_add_block(mr_newton *s, int i0, int nr, const double *Db) {
  int nc = mr_newton_block_rows(s, i0, nr);
  for (int a = 0; a < nc; a++) {
    double dj[3] = {0, 0, 0};
    for (int x = 0; x < nr; x++)
      for (int y = 0; y < nr; y++) dj[x] += Db[x * nr + y] * s->Jk[3 * a + y];
    for (int b = 0; b <= a; b++) {
      double w = 0;
      for (int x = 0; x < nr; x++) w += s->Jk[3 * b + x] * dj[x];
      s->W[(size_t)a * nc + b] = w;
    }
  }
  mr_tree_chol_add_block(&s->H, s->cols, nc, s->W);
}

/* The symmetric part of Newton's matrix over the island, assembled and factored. */
int mr_newton_factor(mr_newton *s) {
  const mr_model *m = s->m;
  const double *qM = s->d->qM;
  if (s->group < 0) return 0; /* no dof: nothing to factor */
  mr_tree_chol_zero_group(&s->H, s->group);
  for (int a = 0; a < s->ndof; a++) {
    int i = s->dof[a], adr = m->dof_Madr[i] + 1;
    mr_tree_chol_add_diag(&s->H, i, i, s->p->Adiag[i]);
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j], adr++)
      mr_tree_chol_add_diag(&s->H, i, j, qM[adr]);
  }
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    if (s->D[i] != 0) mr_newton_add_block(s, i, 1, s->D + i);
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a];
    if (s->zone[s->base + k] != MR_ZONE_OFF) mr_newton_add_block(s, s->base + 3 * k, 3, mr_newton_Dc(s, k));
  }
  if (mr_tree_chol_factor_group(&s->H, s->group, 1e-14) < 0) return -1;
  mr_newton_zones_copy(s, s->zone_factored, s->zone);
  s->factored = 1;
  return 0;
}

/* Whether the factor is the one of the current point: every block in the zone it was
 * factored in, and none sliding (a sliding contact's D turns with its slip). */
int mr_newton_factor_valid(const mr_newton *s) {
  if (!s->factored) return 0;
  for (int a = 0; a < mr_newton_nblock(s); a++) {
    int b = mr_newton_block(s, a);
    if (s->zone[b] != s->zone_factored[b] || (b >= s->base && s->zone[b] == MR_ZONE_SLIDE)) return 0;
  }
  return 1;
}

/* dir = H^-1 dir with the sliding contacts' rank-one terms: H = Hs + sum_k p_k q_k^T with
 * p_k = J_k^T (0, mu e_k) / r_k and q_k = J_N,k^T, so by Sherman-Morrison-Woodbury
 * H^-1 b = z - Y (I + Q^T Y)^-1 Q^T z, z = Hs^-1 b, Y = Hs^-1 P. */
void mr_newton_solve(mr_newton *s) {
  const mr_problem *p = s->p;
  if (s->group < 0) return;
  mr_tree_chol_solve_group(&s->H, s->dir, s->group);
  int ns = 0;
  for (int a = 0; a < s->ncon && ns < s->maxslide; a++)
    if (s->zone[s->base + s->con[a]] == MR_ZONE_SLIDE) s->slide[ns++] = s->con[a];
  if (ns == 0) return;
  for (int b = 0; b < ns; b++) {
    int k = s->slide[b], i = s->base + 3 * k;
    double *y = s->Y + (size_t)b * s->nv, r = s->r[i];
    for (int a = 0; a < s->ndof; a++) y[s->dof[a]] = 0;
    for (int a = 1; a < 3; a++) {
      double w = s->slip[2 * k + a - 1] / r;
      for (int t = p->nzadr[i + a]; t < p->nzadr[i + a + 1]; t++) y[p->nzind[t]] += w * p->J[t];
    }
    /* y lies in the contact's trees (those of its normal row) */
    if (p->nzadr[i + 1] > p->nzadr[i]) mr_tree_chol_solve_local(&s->H, y, p->nzind[p->nzadr[i]]);
  }
  for (int a = 0; a < ns; a++) {
    int i = s->base + 3 * s->slide[a];
    s->rhs[a] = mr_problem_row_dot(p, i, s->dir);
    for (int b = 0; b < ns; b++)
      s->jac[(size_t)a * ns + b] = (a == b) + mr_problem_row_dot(p, i, s->Y + (size_t)b * s->nv);
  }
  if (mr_dense_lu_solve(s->jac, ns, s->piv, s->rhs)) return; /* singular: keep z */
  for (int b = 0; b < ns; b++) {
    const double *y = s->Y + (size_t)b * s->nv;
    for (int a = 0; a < s->ndof; a++) s->dir[s->dof[a]] -= s->rhs[b] * y[s->dof[a]];
  }
}
