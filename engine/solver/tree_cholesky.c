/* Block Cholesky over kinematic trees (tree_cholesky.h). */
#include "tree_cholesky.h"

#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/mr_math.h"

static int mr_tree_size(const mr_tree_chol *h, int t) { return h->tree_adr[t + 1] - h->tree_adr[t]; }

/* Trees are maximal runs of dofs with the same root body: dofs are numbered depth first,
 * so a tree's dofs are contiguous. */
static int mr_count_trees(const mr_model *m, int *tree_adr, int *tree_of) {
  int nt = 0;
  for (int i = 0; i < m->nv;) {
    int root = m->body_rootid[m->dof_bodyid[i]], j = i;
    while (j < m->nv && m->body_rootid[m->dof_bodyid[j]] == root) j++;
    if (tree_adr) tree_adr[nt] = i;
    for (int k = i; k < j && tree_of; k++) tree_of[k] = nt;
    nt++;
    i = j;
  }
  if (tree_adr) tree_adr[nt] = m->nv;
  return nt;
}

size_t mr_tree_chol_bytes(const mr_model *m) {
  size_t nt = (size_t)mr_count_trees(m, NULL, NULL), nv = (size_t)m->nv;
  size_t ints = 14 * nt + 9 + 2 * nv + nt * nt;
  size_t sizes = nt * nt / 2 + 2 * nt + 2;
  return nt * nt + ints * sizeof(int) + sizes * sizeof(size_t) + (nv * nv + 2 * nv + 1) * sizeof(double) +
         23 * MR_ALIGN; /* one per arena block the init and the analysis take */
}

int mr_tree_chol_init(mr_tree_chol *h, const mr_model *m, mr_data *work) {
  memset(h, 0, sizeof *h);
  h->nv = m->nv;
  h->ntree = mr_count_trees(m, NULL, NULL);
  size_t nt = (size_t)h->ntree;
  h->tree_adr = mr_arena_ints(work, nt + 1);
  h->tree_of = mr_arena_ints(work, (size_t)m->nv + 1);
  h->adj = mr_arena_alloc(work, nt * nt + 1);
  h->degree = mr_arena_ints(work, nt + 1);
  if (!h->tree_adr || !h->tree_of || !h->adj || !h->degree) return -1;
  mr_count_trees(m, h->tree_adr, h->tree_of);
  memset(h->adj, 0, nt * nt);
  memset(h->degree, 0, nt * sizeof(int));
  return 0;
}

void mr_tree_chol_join(mr_tree_chol *h, int i, int j) {
  int a = h->tree_of[i], b = h->tree_of[j];
  if (a == b || h->adj[(size_t)a * h->ntree + b]) return;
  h->adj[(size_t)a * h->ntree + b] = h->adj[(size_t)b * h->ntree + a] = 1;
  h->degree[a]++;
  h->degree[b]++;
}

/* ------------------------------------------------------------------ symbolic */

/* Minimum-degree order on the graph of joined trees (ties: lowest index). Eliminating a tree
 * joins its remaining neighbours pairwise (the fill of its block column), and its
 * neighbours at that moment are exactly the later trees its column of L reaches: they are
 * appended to lst, tree k's at lst[start[k]], count[k] of them. Returns their total.
 * Trees joined to none (an object alone on the floor, a robot touching only the world) come
 * first in index order, as the rule orders them, and their elimination changes no degree:
 * the searches run over the joined trees alone (`live`, ascending), which in a scene of
 * many objects are a few. */
static int mr_tree_order(mr_tree_chol *h, int *live, unsigned char *done, int *scratch, int *lst,
                         int *start, int *count) {
  const int nt = h->ntree;
  unsigned char *adj = h->adj;
  int *degree = h->degree, nnb = 0, p = 0, nlive = 0;
  for (int a = 0; a < nt; a++) {
    done[a] = 0;
    if (degree[a] > 0) {
      live[nlive++] = a;
      continue;
    }
    h->order[p] = a;
    h->pos[a] = p++;
    start[a] = count[a] = 0;
  }
  for (; p < nt; p++) {
    int k = -1;
    for (int x = 0; x < nlive; x++) {
      int a = live[x];
      if (!done[a] && (k < 0 || degree[a] < degree[k])) k = a;
    }
    done[k] = 1;
    h->order[p] = k;
    h->pos[k] = p;
    int n = 0;
    for (int x = 0; x < nlive; x++) {
      int b = live[x];
      if (!done[b] && adj[(size_t)k * nt + b]) scratch[n++] = b;
    }
    start[k] = nnb;
    count[k] = n;
    for (int x = 0; x < n; x++) {
      int a = scratch[x];
      lst[nnb++] = a;
      degree[a]--;
      for (int y = x + 1; y < n; y++) {
        int b = scratch[y];
        if (adj[(size_t)a * nt + b]) continue;
        adj[(size_t)a * nt + b] = adj[(size_t)b * nt + a] = 1;
        degree[a]++;
        degree[b]++;
      }
    }
  }
  return nnb;
}

/* Groups of joined trees (union-find over the pairs), each listed in elimination order. */
static int mr_tree_find(int *parent, int a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

static void mr_tree_groups(mr_tree_chol *h, int *parent) {
  const int nt = h->ntree;
  for (int a = 0; a < nt; a++) parent[a] = a;
  for (int a = 0; a < nt; a++)
    for (int e = h->nbadr[a]; e < h->nbadr[a + 1]; e++) {
      int ra = mr_tree_find(parent, a), rb = mr_tree_find(parent, h->nb[e]);
      if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
  h->ncomp = 0;
  for (int a = 0; a < nt; a++) /* roots are the lowest tree of their group */
    h->comp[a] = mr_tree_find(parent, a) == a ? h->ncomp++ : -1;
  for (int a = 0; a < nt; a++) h->comp[a] = h->comp[mr_tree_find(parent, a)];
  memset(h->compadr, 0, ((size_t)h->ncomp + 1) * sizeof(int));
  for (int a = 0; a < nt; a++) h->compadr[h->comp[a] + 1]++;
  for (int c = 0; c < h->ncomp; c++) h->compadr[c + 1] += h->compadr[c];
  for (int c = 0; c < h->ncomp; c++) parent[c] = h->compadr[c]; /* fill cursors */
  for (int p = 0; p < nt; p++) {
    int t = h->order[p];
    h->corder[parent[h->comp[t]]++] = t;
  }
}

/* Block layout: each tree's diagonal block, then its blocks with its later neighbours. */
static size_t mr_tree_layout(mr_tree_chol *h) {
  size_t n = 0;
  for (int t = 0; t < h->ntree; t++) {
    int nt = mr_tree_size(h, t);
    h->diagadr[t] = n;
    n += (size_t)nt * (size_t)nt;
    for (int e = h->nbadr[t]; e < h->nbadr[t + 1]; e++) {
      h->blkadr[e] = n;
      n += (size_t)mr_tree_size(h, h->nb[e]) * (size_t)nt;
    }
  }
  return n;
}

int mr_tree_chol_analyze(mr_tree_chol *h, mr_data *work) {
  const size_t nt = (size_t)h->ntree, pairs = nt * (nt - 1) / 2 + 1;
  int *live = mr_arena_ints(work, nt), *scratch = mr_arena_ints(work, nt);
  int *start = mr_arena_ints(work, nt), *count = mr_arena_ints(work, nt);
  int *lst = mr_arena_ints(work, pairs);
  unsigned char *done = mr_arena_alloc(work, nt);
  h->order = mr_arena_ints(work, nt);
  h->pos = mr_arena_ints(work, nt);
  h->nbadr = mr_arena_ints(work, nt + 1);
  if (!live || !scratch || !start || !count || !lst || !done || !h->order || !h->pos ||
      !h->nbadr)
    return -1;
  int nnb = mr_tree_order(h, live, done, scratch, lst, start, count);
  h->nb = mr_arena_ints(work, (size_t)nnb + 1);
  h->blkadr = mr_arena_alloc(work, ((size_t)nnb + 1) * sizeof(size_t));
  h->diagadr = mr_arena_alloc(work, (nt + 1) * sizeof(size_t));
  if (!h->nb || !h->blkadr || !h->diagadr) return -1;
  h->nbadr[0] = 0;
  for (size_t t = 0; t < nt; t++) {
    h->nbadr[t + 1] = h->nbadr[t] + count[t];
    memcpy(h->nb + h->nbadr[t], lst + start[t], (size_t)count[t] * sizeof(int));
  }
  h->comp = mr_arena_ints(work, nt);
  h->corder = mr_arena_ints(work, nt);
  h->compadr = mr_arena_ints(work, nt + 1);
  if (!h->comp || !h->corder || !h->compadr) return -1;
  mr_tree_groups(h, live);
  h->nval = mr_tree_layout(h);
  h->val = mr_arena_doubles(work, h->nval + 1);
  h->inv_diag = mr_arena_doubles(work, (size_t)h->nv + 1);
  h->rows = mr_arena_ints(work, (size_t)h->nv + 1);
  h->rowadr = mr_arena_ints(work, nt + 1);
  return h->val && h->inv_diag && h->rows && h->rowadr ? 0 : -1;
}

/* ------------------------------------------------------------------ assembly */

void mr_tree_chol_zero(mr_tree_chol *h) { memset(h->val, 0, h->nval * sizeof(double)); }

void mr_tree_chol_zero_group(mr_tree_chol *h, int c) {
  for (int q = h->compadr[c]; q < h->compadr[c + 1]; q++) {
    int t = h->corder[q], nt = mr_tree_size(h, t);
    memset(h->val + h->diagadr[t], 0, (size_t)nt * (size_t)nt * sizeof(double));
    for (int e = h->nbadr[t]; e < h->nbadr[t + 1]; e++)
      memset(h->val + h->blkadr[e], 0, (size_t)mr_tree_size(h, h->nb[e]) * (size_t)nt * sizeof(double));
  }
}

/* The block of L holding rows of tree s and columns of tree t (t eliminated first), or NULL
 * when they are not joined. */
static double *mr_tree_block(const mr_tree_chol *h, int s, int t) {
  for (int e = h->nbadr[t]; e < h->nbadr[t + 1]; e++)
    if (h->nb[e] == s) return h->val + h->blkadr[e];
  return NULL;
}

static int mr_tree_before(const mr_tree_chol *h, int a, int b) { return h->pos[a] < h->pos[b]; }

/* Adds W's entries for the column runs [a0, a1) (tree ta) and [b0, b1) (tree tb, ta != tb)
 * into their off-diagonal block. */
static void mr_tree_add_pair(mr_tree_chol *h, const int *cols, int n, const double *W, int a0,
                             int a1, int b0, int b1) {
  int ta = h->tree_of[cols[a0]], tb = h->tree_of[cols[b0]];
  int first = mr_tree_before(h, ta, tb) ? ta : tb;
  int later = first == ta ? tb : ta;
  double *B = mr_tree_block(h, later, first);
  if (!B) return; /* not joined: the caller joined every pair it adds, so never */
  int lo_l = h->tree_adr[later], lo_f = h->tree_adr[first], nf = mr_tree_size(h, first);
  for (int x = a0; x < a1; x++)
    for (int y = b0; y < b1; y++) {
      int i = cols[x], j = cols[y];
      double w = x > y ? W[(size_t)x * n + y] : W[(size_t)y * n + x];
      if (first == ta) B[(size_t)(j - lo_l) * nf + (size_t)(i - lo_f)] += w;
      else B[(size_t)(i - lo_l) * nf + (size_t)(j - lo_f)] += w;
    }
}

void mr_tree_chol_add_block(mr_tree_chol *h, const int *cols, int n, const double *W) {
  /* ascending columns fall into runs of one tree each */
  int run[8], nrun = 0;
  for (int x = 0; x < n; x++)
    if (x == 0 || h->tree_of[cols[x]] != h->tree_of[cols[x - 1]]) {
      if (nrun == 7) return; /* a row touches two trees at most: cannot happen */
      run[nrun++] = x;
    }
  run[nrun] = n;
  for (int r = 0; r < nrun; r++) {
    int t = h->tree_of[cols[run[r]]], lo = h->tree_adr[t], nt = h->tree_adr[t + 1] - lo;
    double *block = h->val + h->diagadr[t];
    for (int x = run[r]; x < run[r + 1]; x++) {
      double *row = block + (size_t)(cols[x] - lo) * (size_t)nt;
      const double *wx = W + (size_t)x * n;
      for (int y = run[r]; y <= x; y++) row[cols[y] - lo] += wx[y];
    }
    for (int q = 0; q < r; q++) mr_tree_add_pair(h, cols, n, W, run[r], run[r + 1], run[q], run[q + 1]);
  }
}

/* ------------------------------------------------------------------ numeric */

/* The block kernels below are inlined once for blocks of a free body's six dofs (a pile's
 * every block, MR_FREE_DOFS), where the loops' lengths are constants and unroll, and once
 * for any size: the same operations in the same order either way. */

/* In-place lower Cholesky of the n x n row-major block, and the inverses of its diagonal
 * into inv: the factor's every off-diagonal entry and every solve divides by a pivot, and a
 * division's latency stalls the dependent chain where a multiplication does not. */
MR_ALWAYS_INLINE int mr_block_cholesky_n(double *L, const int n, double floor, double *inv) {
  int raised = 0;
  for (int i = 0; i < n; i++) {
    double *li = L + (size_t)i * n;
    for (int j = 0; j <= i; j++) {
      const double *lj = L + (size_t)j * n;
      double s = li[j] - mr_dot(li, lj, j);
      if (j < i) {
        li[j] = s * inv[j];
        continue;
      }
      if (!isfinite(s)) return -1;
      double least = floor * fabs(li[i]) + 1e-300;
      if (s < least) {
        s = least;
        raised++;
      }
      li[i] = sqrt(s);
      inv[i] = 1 / li[i];
    }
  }
  return raised;
}

static int mr_block_cholesky(double *L, int n, double floor, double *inv) {
  return n == MR_FREE_DOFS ? mr_block_cholesky_n(L, MR_FREE_DOFS, floor, inv)
                           : mr_block_cholesky_n(L, n, floor, inv);
}

/* B <- B L^-T over the rows rows[0..nr) of block B (nt columns), t's factored diagonal L
 * (its pivots' inverses inv); the other rows are zero and stay zero. */
MR_ALWAYS_INLINE void mr_block_right_solve_n(double *B, const int *rows, int nr, const double *L,
                                             const double *inv, const int nt) {
  for (int a = 0; a < nr; a++) {
    double *b = B + (size_t)rows[a] * nt;
    for (int j = 0; j < nt; j++) {
      const double *lj = L + (size_t)j * nt;
      b[j] = (b[j] - mr_dot(b, lj, j)) * inv[j];
    }
  }
}

static void mr_block_right_solve(double *B, const int *rows, int nr, const double *L,
                                 const double *inv, int nt) {
  if (nt == MR_FREE_DOFS) mr_block_right_solve_n(B, rows, nr, L, inv, MR_FREE_DOFS);
  else mr_block_right_solve_n(B, rows, nr, L, inv, nt);
}

/* C -= X Y^T over the listed rows of X (xr[0..nx)) and of Y (yr[0..ny)), both nk wide, C
 * with ldc columns; lower: X == Y with the same rows, C's lower triangle only. The rows
 * left out are zero: they would subtract nothing. */
MR_ALWAYS_INLINE void mr_block_update_n(double *C, int ldc, const double *X, const int *xr, int nx,
                                        const double *Y, const int *yr, int ny, const int nk,
                                        int lower) {
  for (int a = 0; a < nx; a++) {
    const double *xi = X + (size_t)xr[a] * nk;
    double *ci = C + (size_t)xr[a] * ldc;
    int bend = lower ? a + 1 : ny;
    for (int b = 0; b < bend; b++) ci[yr[b]] -= mr_dot(xi, Y + (size_t)yr[b] * nk, nk);
  }
}

static void mr_block_update(double *C, int ldc, const double *X, const int *xr, int nx,
                            const double *Y, const int *yr, int ny, int nk, int lower) {
  if (nk == MR_FREE_DOFS) mr_block_update_n(C, ldc, X, xr, nx, Y, yr, ny, MR_FREE_DOFS, lower);
  else mr_block_update_n(C, ldc, X, xr, nx, Y, yr, ny, nk, lower);
}

/* The rows of the ns x nk block B that hold a nonzero, ascending, into rows; their count.
 * A contact between an object and a robot's limb fills only the rows of the limb's chain
 * in the block of the object's column that faces the robot: the robot's other rows stay
 * zero through the elimination, and the block's solve and updates skip them. */
static int mr_block_nonzero_rows(const double *B, int ns, int nk, int *rows) {
  int n = 0;
  for (int r = 0; r < ns; r++) {
    const double *b = B + (size_t)r * nk;
    int c = 0;
    while (c < nk && b[c] == 0) c++;
    if (c < nk) rows[n++] = r;
  }
  return n;
}

/* Eliminates tree k: its diagonal, its column of blocks, and their updates of the later
 * trees (each pair of its neighbours is joined, so every target block exists). */
static int mr_tree_eliminate(mr_tree_chol *h, int k, double floor) {
  const int nk = mr_tree_size(h, k), e0 = h->nbadr[k], e1 = h->nbadr[k + 1];
  double *Lkk = h->val + h->diagadr[k], *inv = h->inv_diag + h->tree_adr[k];
  int raised = mr_block_cholesky(Lkk, nk, floor, inv);
  if (raised < 0) return -1;
  /* each neighbour's nonzero rows at rows + rowadr[e - e0]: the neighbours are distinct
   * trees, so nv entries hold them all */
  int *rows = h->rows, *rowadr = h->rowadr;
  rowadr[0] = 0;
  for (int e = e0; e < e1; e++) {
    int ns = mr_tree_size(h, h->nb[e]), *re = rows + rowadr[e - e0];
    double *B = h->val + h->blkadr[e];
    int nr = mr_block_nonzero_rows(B, ns, nk, re);
    rowadr[e - e0 + 1] = rowadr[e - e0] + nr;
    mr_block_right_solve(B, re, nr, Lkk, inv, nk);
  }
  for (int e = e0; e < e1; e++) {
    int s = h->nb[e], ns = mr_tree_size(h, s), nrs = rowadr[e - e0 + 1] - rowadr[e - e0];
    const int *rs = rows + rowadr[e - e0];
    const double *Bs = h->val + h->blkadr[e];
    mr_block_update(h->val + h->diagadr[s], ns, Bs, rs, nrs, Bs, rs, nrs, nk, 1);
    for (int f = e0; f < e1; f++) {
      int u = h->nb[f];
      if (u == s || !mr_tree_before(h, u, s)) continue;
      /* block (s, u): rows of s, columns of u (u eliminated before s) */
      const int *ru = rows + rowadr[f - e0];
      mr_block_update(mr_tree_block(h, s, u), mr_tree_size(h, u), Bs, rs, nrs, h->val + h->blkadr[f], ru,
                      rowadr[f - e0 + 1] - rowadr[f - e0], nk, 0);
    }
  }
  return raised;
}

int mr_tree_chol_factor(mr_tree_chol *h, double floor) {
  int raised = 0;
  for (int p = 0; p < h->ntree; p++) {
    int r = mr_tree_eliminate(h, h->order[p], floor);
    if (r < 0) return -1;
    raised += r;
  }
  return raised;
}

int mr_tree_chol_factor_group(mr_tree_chol *h, int c, double floor) {
  int raised = 0;
  for (int q = h->compadr[c]; q < h->compadr[c + 1]; q++) {
    int r = mr_tree_eliminate(h, h->corder[q], floor);
    if (r < 0) return -1;
    raised += r;
  }
  return raised;
}

/* One tree's part of the solves below: L y = x on its diagonal block, then its column of
 * blocks taken out of the trees after it (lower); its blocks' terms taken out of it, then
 * L^T x = y (upper). */
MR_ALWAYS_INLINE void mr_tree_solve_lower(const mr_tree_chol *h, double *x, int k, const int nk) {
  double *xk = x + h->tree_adr[k];
  const double *L = h->val + h->diagadr[k], *inv = h->inv_diag + h->tree_adr[k];
  for (int i = 0; i < nk; i++) xk[i] = (xk[i] - mr_dot(L + (size_t)i * nk, xk, i)) * inv[i];
  for (int e = h->nbadr[k]; e < h->nbadr[k + 1]; e++) {
    int s = h->nb[e], ns = mr_tree_size(h, s);
    const double *B = h->val + h->blkadr[e];
    double *xs = x + h->tree_adr[s];
    for (int i = 0; i < ns; i++) xs[i] -= mr_dot(B + (size_t)i * nk, xk, nk);
  }
}

MR_ALWAYS_INLINE void mr_tree_solve_upper(const mr_tree_chol *h, double *x, int k, const int nk) {
  double *xk = x + h->tree_adr[k];
  for (int e = h->nbadr[k]; e < h->nbadr[k + 1]; e++) {
    int s = h->nb[e], ns = mr_tree_size(h, s);
    const double *B = h->val + h->blkadr[e];
    const double *xs = x + h->tree_adr[s];
    for (int i = 0; i < ns; i++)
      for (int j = 0; j < nk; j++) xk[j] -= B[(size_t)i * nk + j] * xs[i];
  }
  const double *L = h->val + h->diagadr[k], *inv = h->inv_diag + h->tree_adr[k];
  /* column by column: row i of L is column i of L^T, so each solved entry is taken out
   * of the ones above it by a contiguous update, not a strided sum */
  for (int i = nk - 1; i >= 0; i--) {
    const double *li = L + (size_t)i * nk;
    double xi = xk[i] *= inv[i];
    for (int j = 0; j < i; j++) xk[j] -= li[j] * xi;
  }
}

/* x = H^-1 x over the trees order[0..n) (a union of groups, in elimination order). */
static void mr_tree_solve_trees(const mr_tree_chol *h, double *x, const int *order, int n) {
  for (int p = 0; p < n; p++) { /* L y = x */
    int k = order[p], nk = mr_tree_size(h, k);
    /* y_k = 0 where x_k is and nothing came in from the trees before: a contact's column
     * (mr_tree_chol_solve_local) is zero but on its one or two trees */
    if (mr_all_zero(x + h->tree_adr[k], nk)) continue;
    if (nk == MR_FREE_DOFS) mr_tree_solve_lower(h, x, k, MR_FREE_DOFS);
    else mr_tree_solve_lower(h, x, k, nk);
  }
  for (int p = n - 1; p >= 0; p--) { /* L^T x = y */
    int k = order[p], nk = mr_tree_size(h, k);
    if (nk == MR_FREE_DOFS) mr_tree_solve_upper(h, x, k, MR_FREE_DOFS);
    else mr_tree_solve_upper(h, x, k, nk);
  }
}

void mr_tree_chol_solve(const mr_tree_chol *h, double *x) { mr_tree_solve_trees(h, x, h->order, h->ntree); }

void mr_tree_chol_solve_local(const mr_tree_chol *h, double *x, int i) {
  mr_tree_chol_solve_group(h, x, h->comp[h->tree_of[i]]);
}

void mr_tree_chol_solve_group(const mr_tree_chol *h, double *x, int c) {
  mr_tree_solve_trees(h, x, h->corder + h->compadr[c], h->compadr[c + 1] - h->compadr[c]);
}
