/* Newton's matrix dF/dv = A + J^T D J of the newton solver over one island: assembly and
 * factor, and solves with the low-rank terms by Sherman-Morrison-Woodbury (newton.c's
 * header comment derives them). An island of one tree whose rows each lie on a path from
 * the root is factored in the mass matrix's layout (engine/core/tree_ldl.h), where it
 * fills in nothing: a robot on the floor costs what its mass matrix's factor costs, not a
 * dense factor of its dofs. Its few contacts across branches (a hand on a thigh, the legs
 * touching) join the low-rank terms, three columns each; so do the contacts between trees
 * of an island that holds a robot (objects lying on it), each tree factored in the layout.
 * Any other island is factored by tree blocks (tree_cholesky.h). */
#include <string.h>

#include "dense.h"
#include "engine/core/mr_math.h"
#include "engine/core/tree_ldl.h"
#include "newton.h"

/* Columns of the low-rank terms (MR_NEWTON_MAX_COLS in all, newton.c) that contacts across
 * branches of a tree factored in the mass layout, or between two trees, may take; an
 * island with more is factored by blocks (tree_cholesky.h). */
#define MR_NEWTON_MAX_CROSS 24

/* Whether row i's dofs (ascending) lie on one path from a root: each an ancestor of the
 * next. */
static int mr_newton_row_on_path(const mr_newton *s, int i) {
  const mr_problem *p = s->p;
  const int *parent = s->m->dof_parentid;
  for (int t = p->nzadr[i] + 1; t < p->nzadr[i + 1]; t++) {
    int j = parent[p->nzind[t]];
    while (j > p->nzind[t - 1]) j = parent[j];
    if (j != p->nzind[t - 1]) return 0;
  }
  return 1;
}

/* A tree of more dofs than a free body's (MR_FREE_DOFS) is articulated (a robot). Factored
 * by blocks, its diagonal block is dense, a cost of its dofs cubed in every factor and
 * their square in every solve, where its mass-layout factor costs about its dofs times
 * its depth; an island that holds one (a robot with objects lying on it) is factored in
 * the mass layout tree by tree instead, its contacts between trees joining the low-rank
 * terms. A heap of free bodies keeps the blocks: each body's is small, and a contact
 * between two of them would cost three low-rank columns. */
void mr_newton_chain_setup(mr_newton *s) {
  s->chain = s->articulated = 0;
  if (s->group < 0 || s->ndof == 0) return;
  const mr_tree_chol *H = &s->H;
  int single = H->tree_of[s->dof[0]] == H->tree_of[s->dof[s->ndof - 1]], articulated = 0;
  for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
    articulated |= hi - lo > MR_FREE_DOFS;
  s->articulated = articulated;
  if (!single && !articulated) return;
  for (int a = 0; a < s->nbase; a++)
    if (!mr_newton_row_on_path(s, s->brow[a])) return;
  int ncross = 0;
  for (int a = 0; a < s->ncon; a++) { /* a contact's three rows share their columns */
    int k = s->con[a];
    s->cross[k] = !mr_newton_row_on_path(s, s->base + 3 * k);
    ncross += s->cross[k];
  }
  if (3 * ncross > MR_NEWTON_MAX_CROSS) return;
  s->chain = 1;
}

/* J^T D J of one block of nr rows (a limit or equality is one row, a contact three, written
 * with one column list by mr_contact_rows_fill, so each row's entries lie contiguous in J):
 * the rows, dj = D J's column a, and entry (a, b) from them, its terms always in this order
 * whatever the layout it goes to. */
typedef struct mr_block_rows {
  const double *J[3];
  const int *cols;
  int n, nr;
} mr_block_rows;

static mr_block_rows mr_newton_block_rows(const mr_newton *s, int i0, int nr) {
  const mr_problem *p = s->p;
  mr_block_rows b = {.cols = p->nzind + p->nzadr[i0], .n = p->nzadr[i0 + 1] - p->nzadr[i0], .nr = nr};
  for (int x = 0; x < nr; x++) b.J[x] = p->J + p->nzadr[i0 + x];
  return b;
}

MR_ALWAYS_INLINE void mr_block_dj(const mr_block_rows *b, const double *Db, int a, double dj[3]) {
  dj[0] = dj[1] = dj[2] = 0;
  for (int x = 0; x < b->nr; x++)
    for (int y = 0; y < b->nr; y++) dj[x] += Db[x * b->nr + y] * b->J[y][a];
}

MR_ALWAYS_INLINE double mr_block_entry(const mr_block_rows *b, const double dj[3], int c) {
  if (b->nr == 3) return ((0 + b->J[0][c] * dj[0]) + b->J[1][c] * dj[1]) + b->J[2][c] * dj[2];
  double w = 0;
  for (int x = 0; x < b->nr; x++) w += b->J[x][c] * dj[x];
  return w;
}

/* Whether a block's columns are a whole path from a root (a contact's with the mass-layout
 * factor: its bodies' chains), so that row cols[a] of the layout holds cols[a],
 * cols[a - 1], ..., cols[0], and entry (a, b) sits a - b places past the diagonal. */
static int mr_block_whole_path(const mr_newton *s, const mr_block_rows *b) {
  return b->n > 0 && mr_tree_row_length(s->m, b->cols[b->n - 1]) == b->n;
}

/* H += J_b^T D_b J_b for one block of nr rows with its nr x nr symmetric D. */
static void mr_newton_add_block(mr_newton *s, int i0, int nr, const double *Db) {
  const mr_model *m = s->m;
  const mr_block_rows b = mr_newton_block_rows(s, i0, nr);
  const int nc = b.n;
  double dj[3];
  if (s->chain && mr_block_whole_path(s, &b)) { /* summed into the layout as they come */
    for (int a = 0; a < nc; a++) {
      mr_block_dj(&b, Db, a, dj);
      double *row = s->Hm + m->dof_Madr[b.cols[a]] + a;
      for (int c = 0; c <= a; c++) row[-c] += mr_block_entry(&b, dj, c);
    }
    return;
  }
  for (int a = 0; a < nc; a++) {
    mr_block_dj(&b, Db, a, dj);
    for (int c = 0; c <= a; c++) s->W[(size_t)a * nc + c] = mr_block_entry(&b, dj, c);
  }
  if (!s->chain) {
    mr_tree_chol_add_block(&s->H, b.cols, nc, s->W);
    return;
  }
  /* the columns lie on one path, so cols[c] < cols[a] is an ancestor of cols[a]: entry
   * (a, c) sits in row cols[a] as many places past its diagonal as their depths differ,
   * a dof's depth being its row's length in the layout less one */
  int *depth = s->cols; /* row lengths of the columns, read once */
  for (int a = 0; a < nc; a++) depth[a] = mr_tree_row_length(m, b.cols[a]);
  for (int a = 0; a < nc; a++) {
    double *row = s->Hm + m->dof_Madr[b.cols[a]] + depth[a];
    for (int c = 0; c <= a; c++) row[-depth[c]] += s->W[(size_t)a * nc + c];
  }
}

/* Rank-one terms a factor in the mass layout may take in place of a fresh factor: each
 * costs its block's path from the root, a fresh factor every row of the island's trees. */
#define MR_NEWTON_UPDATES 16

/* H += alpha (J_b^T q)(J_b^T q)^T for a block of nr rows starting at row i0. */
static int mr_newton_rank_one(mr_newton *s, int i0, int nr, const double q[3], double alpha) {
  const mr_block_rows b = mr_newton_block_rows(s, i0, nr);
  if (b.n == 0) return 0;
  for (int c = 0; c < b.n; c++) {
    double w = 0;
    for (int x = 0; x < nr; x++) w += q[x] * b.J[x][c];
    s->wup[b.cols[c]] = w;
  }
  return mr_tree_ldl_update(s->m, s->Hm, s->Hdinv, s->wup, b.cols[b.n - 1], alpha);
}

/* A contact's change of D, from Do to Dn, as rank-one terms (q, alpha) into q[] and
 * alpha[]: its normal entry, and its tangent 2 x 2 block by its eigenvectors (D has no
 * normal-tangent coupling in any zone: mr_newton_contact). Returns their number. */
static int mr_newton_contact_terms(const double *Dn, const double *Do, double q[3][3],
                                   double alpha[3]) {
  int n = 0;
  double dn = Dn[0] - Do[0], a = Dn[4] - Do[4], b = Dn[5] - Do[5], c = Dn[8] - Do[8];
  if (dn != 0) {
    q[n][0] = 1, q[n][1] = q[n][2] = 0;
    alpha[n++] = dn;
  }
  if (b == 0) {
    for (int t = 0; t < 2; t++) {
      double e = t == 0 ? a : c;
      if (e == 0) continue;
      q[n][0] = 0, q[n][1] = t == 0, q[n][2] = t == 1;
      alpha[n++] = e;
    }
    return n;
  }
  double mean = 0.5 * (a + c), half = mr_len2(0.5 * (a - c), b);
  for (int sign = 1; sign >= -1; sign -= 2) {
    double lam = mean + sign * half;
    /* (lam - c, b) and (b, lam - a) are both eigenvectors; the longer is the better one */
    double u0 = lam - c, u1 = b, v0 = b, v1 = lam - a;
    if (mr_len2(v0, v1) > mr_len2(u0, u1)) u0 = v0, u1 = v1;
    double len = mr_len2(u0, u1);
    if (lam == 0 || len == 0) continue;
    q[n][0] = 0, q[n][1] = u0 / len, q[n][2] = u1 / len;
    alpha[n++] = lam;
  }
  return n;
}

/* One rank-one term of mr_newton_update: alpha (J_b^T q)(J_b^T q)^T over the nr rows of
 * a block from row i0. */
typedef struct mr_rank_one {
  int i0, nr;
  double q[3], alpha;
} mr_rank_one;

/* The terms that bring the factor's D to the current one, block by block, into t;
 * returns their number, or -1 when there are more than MR_NEWTON_UPDATES. */
static int mr_newton_update_terms(const mr_newton *s, mr_rank_one *t) {
  int n = 0;
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    double dd = s->D[i] - s->Dfact[i];
    if (dd == 0) continue;
    if (n == MR_NEWTON_UPDATES) return -1;
    t[n++] = (mr_rank_one){i, 1, {1, 0, 0}, dd};
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a];
    if (s->cross[k]) continue; /* not in the factor */
    double q[3][3], alpha[3];
    int nt = mr_newton_contact_terms(mr_newton_Dc(s, k), s->Dfact + s->base + 9 * k, q, alpha);
    for (int c = 0; c < nt; c++) {
      if (n == MR_NEWTON_UPDATES) return -1;
      t[n++] = (mr_rank_one){s->base + 3 * k, 3, {q[c][0], q[c][1], q[c][2]}, alpha[c]};
    }
  }
  return n;
}

/* The D blocks of the island into Dfact. */
static void mr_newton_keep_D(mr_newton *s) {
  for (int a = 0; a < s->nbase; a++) s->Dfact[s->brow[a]] = s->D[s->brow[a]];
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a];
    memcpy(s->Dfact + s->base + 9 * k, mr_newton_Dc(s, k), 9 * sizeof(double));
  }
}

/* The mass-layout factor brought from the D it holds to the current one by rank-one terms,
 * when it is the factor at the current r (mr_newton_regularization clears s->factored)
 * and few blocks changed: within a step the zones move a few contacts at a time, and a
 * sliding contact's tangent block only turns. Only for an articulated tree: a free body's
 * fresh factor costs no more than the update's bookkeeping. Returns 0, or -1 when a fresh
 * factor is due (the factor may then be partly updated). */
static int mr_newton_update(mr_newton *s) {
  if (!s->chain || !s->articulated || !s->factored || s->raised) return -1;
  mr_rank_one terms[MR_NEWTON_UPDATES];
  int n = mr_newton_update_terms(s, terms);
  if (n < 0) return -1;
  /* updates before downdates, so that the matrix stays as far from singular as it can in
   * between */
  for (int sign = 1; sign >= -1; sign -= 2)
    for (int c = 0; c < n; c++)
      if ((sign > 0) == (terms[c].alpha > 0) &&
          mr_newton_rank_one(s, terms[c].i0, terms[c].nr, terms[c].q, terms[c].alpha))
        return -1;
  mr_newton_keep_D(s);
  return 0;
}

/* The symmetric part of Newton's matrix over the island, assembled and factored, or
 * updated (mr_newton_update). */
int mr_newton_factor(mr_newton *s) {
  const mr_model *m = s->m;
  const double *qM = s->d->qM;
  if (s->group < 0) return 0; /* no dof: nothing to factor */
  if (mr_newton_update(s) == 0) {
    mr_newton_zones_copy(s, s->zone_factored, s->zone);
    return 0;
  }
  s->factored = 0; /* until the fresh factor below succeeds */
  if (s->chain) {
    for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);) {
      int from = m->dof_Madr[lo], to = hi < m->nv ? m->dof_Madr[hi] : m->nM;
      memcpy(s->Hm + from, qM + from, (size_t)(to - from) * sizeof(double));
      for (int i = lo; i < hi; i++) s->Hm[m->dof_Madr[i]] = s->p->Adiag[i];
    }
  } else {
    mr_tree_chol_zero_group(&s->H, s->group);
    for (int a = 0; a < s->ndof; a++) {
      int i = s->dof[a];
      mr_tree_chol_add_diag(&s->H, i, i, s->p->Adiag[i]);
      for (int adr = m->dof_Madr[i] + 1, end = mr_tree_row_end(m, i); adr < end; adr++)
        mr_tree_chol_add_diag(&s->H, i, m->M_colind[adr], qM[adr]);
    }
  }
  for (int a = 0; a < s->nbase; a++) {
    int i = s->brow[a];
    if (s->D[i] != 0) mr_newton_add_block(s, i, 1, s->D + i);
  }
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a];
    if (s->zone[s->base + k] != MR_ZONE_OFF && !(s->chain && s->cross[k]))
      mr_newton_add_block(s, s->base + 3 * k, 3, mr_newton_Dc(s, k));
  }
  if (s->chain) {
    s->raised = 0;
    for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);) {
      for (int i = lo; i < hi; i++) s->Hdinv[i] = s->Hm[m->dof_Madr[i]];
      int raised = mr_tree_ldl(m, s->Hm, s->Hdinv, lo, hi, 1e-14);
      if (raised < 0) return -1;
      s->raised += raised;
    }
    if (s->articulated) mr_newton_keep_D(s); /* the only islands mr_newton_update serves */
  } else if (mr_tree_chol_factor_group(&s->H, s->group, 1e-14) < 0) {
    return -1;
  }
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

/* x = H^-1 x with the symmetric part's factor: over the island, or with dof >= 0 (x a
 * column, nonzero in one contact's trees) over the group of trees of that dof, or in the
 * mass layout over the trees where x has a nonzero. */
static void mr_newton_hsolve(const mr_newton *s, double *x, int dof) {
  if (s->chain) {
    /* a column lies in its contact's one or two trees: the others' parts stay zero */
    for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
      if (dof < 0 || !mr_all_zero(x + lo, hi - lo))
        mr_tree_ldl_solve1(s->m, s->Hm, s->Hdinv, x, lo, hi);
  } else if (dof >= 0) mr_tree_chol_solve_local(&s->H, x, dof);
  else mr_tree_chol_solve_group(&s->H, x, s->group);
}

/* One pass of mr_newton_columns: the contacts across branches, or the others. */
static int mr_newton_columns_pass(mr_newton *s, int ns, int crossing) {
  for (int a = 0; a < s->ncon; a++) {
    int k = s->con[a], i = s->base + 3 * k, z = s->zone[s->base + k];
    int cross = s->chain && s->cross[k];
    if (cross != crossing || (cross && z == MR_ZONE_OFF)) continue;
    double E[9] = {0};
    if (z == MR_ZONE_SLIDE) {
      E[3] = s->slip[2 * k] / s->r[i];
      E[6] = s->slip[2 * k + 1] / s->r[i];
    }
    if (cross)
      for (int e = 0; e < 9; e++) E[e] += mr_newton_Dc(s, k)[e];
    for (int y = 0; y < (cross ? 3 : 1) && ns < s->maxcols; y++) {
      if (E[y] == 0 && E[3 + y] == 0 && E[6 + y] == 0) continue;
      s->qrow[ns] = i + y;
      for (int x = 0; x < 3; x++) s->pcoef[3 * ns + x] = E[3 * x + y];
      ns++;
    }
  }
  return ns;
}

/* The low-rank terms' columns into s->qrow (Q's rows) and s->pcoef (P's), ns of them:
 * H = Hs + sum_c p_c q_c^T. A sliding contact's friction follows its normal impulse:
 * p = J^T (0, mu e) / r, q = J_N^T. With the mass-layout factor a contact across branches
 * is left out of Hs whole: its J^T E J, E its D with that rank-one term, is three columns,
 * p_y = J^T E e_y and q_y = J_y^T. */
static int mr_newton_columns(mr_newton *s) {
  int ns = 0;
  /* contacts across branches first: their terms are not in the factor at all, where a
   * sliding contact's left out only makes the direction a quasi-Newton one */
  for (int pass = 0; pass < 2; pass++)
    ns = mr_newton_columns_pass(s, ns, pass == 0);
  return ns;
}

/* Column b's contact's first row. */
static int mr_newton_column_row(const mr_newton *s, int b) {
  return s->qrow[b] - (s->qrow[b] - s->base) % 3;
}

/* The dofs column b's contact's rows span (its bodies' chains to their roots:
 * mr_contact_dofs, so they hold every ancestor of each). */
static int mr_newton_column_dofs(const mr_newton *s, int b, const int **cols) {
  const mr_problem *p = s->p;
  int i = mr_newton_column_row(s, b);
  *cols = p->nzind + p->nzadr[i];
  return p->nzadr[i + 1] - p->nzadr[i];
}

/* The mass-layout factor's solve with the low-rank terms, through its halves: with
 * Hs = L^T D L, Q^T Hs^-1 P = (L^-T Q)^T D^-1 (L^-T P), and L^-T keeps each column on its
 * contact's chains, so the small system costs those chains, not a solve of the island
 * per column. Then H^-1 b = L^-1 D^-1 (L^-T b - (L^-T P) c), c = (I + Q^T Hs^-1 P)^-1
 * Q^T Hs^-1 b: one solve in all. Y holds L^-T P's columns, then L^-T Q's (2 ns of
 * MR_NEWTON_MAX_COLS at most: mr_newton_solve). */
static void mr_newton_solve_chain(mr_newton *s, int ns) {
  const mr_problem *p = s->p;
  const mr_model *m = s->m;
  double *t = s->dir;
  for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
    if (!mr_all_zero(t + lo, hi - lo)) mr_tree_ldl_up1(m, s->Hm, t, lo, hi);
  for (int b = 0; b < ns; b++) {
    const int *cols, n = mr_newton_column_dofs(s, b, &cols);
    const int i = mr_newton_column_row(s, b);
    double *y = s->Y + (size_t)b * s->nv, *q = s->Y + (size_t)(ns + b) * s->nv;
    for (int c = 0; c < n; c++) {
      const int k = cols[c];
      double w = 0;
      for (int a = 0; a < 3; a++) w += s->pcoef[3 * b + a] * p->J[p->nzadr[i + a] + c];
      y[k] = w;
      q[k] = p->J[p->nzadr[s->qrow[b]] + c];
    }
    mr_tree_ldl_up_cols(m, s->Hm, y, cols, n);
    mr_tree_ldl_up_cols(m, s->Hm, q, cols, n);
  }
  for (int a = 0; a < ns; a++) {
    const int *cols, n = mr_newton_column_dofs(s, a, &cols);
    const double *q = s->Y + (size_t)(ns + a) * s->nv;
    double r = 0;
    for (int c = 0; c < n; c++) r += q[cols[c]] * s->Hdinv[cols[c]] * t[cols[c]];
    s->rhs[a] = r;
    for (int b = 0; b < ns; b++) {
      const int *bcols, nb = mr_newton_column_dofs(s, b, &bcols);
      const double *y = s->Y + (size_t)b * s->nv;
      /* both lists ascend: the dot runs over the dofs they share */
      double sum = a == b;
      for (int x = 0, z = 0; x < n && z < nb;) {
        if (cols[x] < bcols[z]) x++;
        else if (cols[x] > bcols[z]) z++;
        else {
          sum += q[cols[x]] * s->Hdinv[cols[x]] * y[cols[x]];
          x++, z++;
        }
      }
      s->jac[(size_t)a * ns + b] = sum;
    }
  }
  if (mr_dense_lu_solve(s->jac, ns, s->piv, s->rhs) == 0)
    for (int b = 0; b < ns; b++) {
      const int *cols, n = mr_newton_column_dofs(s, b, &cols);
      const double *y = s->Y + (size_t)b * s->nv;
      for (int c = 0; c < n; c++) t[cols[c]] -= s->rhs[b] * y[cols[c]];
    } /* singular: the direction without the terms */
  for (int a = 0, lo, hi; mr_newton_next_tree(s, &a, &lo, &hi);)
    if (!mr_all_zero(t + lo, hi - lo)) mr_tree_ldl_down1(m, s->Hm, s->Hdinv, t, lo, hi);
}

/* dir = H^-1 dir with the low-rank terms (mr_newton_columns) by Sherman-Morrison-Woodbury:
 * H^-1 b = z - Y (I + Q^T Y)^-1 Q^T z, z = Hs^-1 b, Y = Hs^-1 P. */
void mr_newton_solve(mr_newton *s) {
  const mr_problem *p = s->p;
  if (s->group < 0) return;
  int ns = mr_newton_columns(s);
  if (s->chain && ns > 0 && 2 * ns <= s->maxcols) {
    mr_newton_solve_chain(s, ns);
    return;
  }
  mr_newton_hsolve(s, s->dir, -1);
  if (ns == 0) return;
  for (int b = 0; b < ns; b++) {
    int i = mr_newton_column_row(s, b);
    double *y = s->Y + (size_t)b * s->nv;
    for (int a = 0; a < s->ndof; a++) y[s->dof[a]] = 0;
    for (int a = 0; a < 3; a++) {
      double w = s->pcoef[3 * b + a];
      if (w != 0)
        for (int t = p->nzadr[i + a]; t < p->nzadr[i + a + 1]; t++) y[p->nzind[t]] += w * p->J[t];
    }
    /* y lies in the contact's trees (those of its normal row) */
    if (p->nzadr[i + 1] > p->nzadr[i]) mr_newton_hsolve(s, y, p->nzind[p->nzadr[i]]);
  }
  for (int a = 0; a < ns; a++) {
    int i = s->qrow[a];
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
