/* Islands of a contact problem (islands.h). */
#include <string.h>

#include "engine/core/arena.h"
#include "islands.h"

size_t mr_islands_bytes(size_t nv, size_t nrow) {
  size_t slots = nv + 2; /* groups (at most one per dof) and the dof-less one */
  return (2 * slots + 5 * (slots + 1) + nv + 3 * nrow + 3) * sizeof(int) + 9 * MR_ALIGN;
}

/* The group of row i: that of the tree its first nonzero lies in; nogroup for a row that
 * moves no dof. */
static int mr_row_group(const mr_problem *p, const mr_tree_chol *h, int i, int nogroup) {
  if (p->nzadr[i + 1] == p->nzadr[i]) return nogroup;
  return h->comp[h->tree_of[p->nzind[p->nzadr[i]]]];
}

static int mr_contact_group(const mr_problem *p, const mr_tree_chol *h, int k, int nogroup) {
  int i = p->neq + p->nlim + 3 * k;
  for (int a = 0; a < 3; a++) {
    int g = mr_row_group(p, h, i + a, nogroup);
    if (g != nogroup) return g;
  }
  return nogroup;
}

/* Turns per-island counts in adr[1..n] into offsets, and copies them into cursors. */
static void mr_islands_offsets(int *adr, int *cursor, int n) {
  adr[0] = 0;
  for (int i = 0; i < n; i++) adr[i + 1] += adr[i];
  memcpy(cursor, adr, (size_t)n * sizeof(int));
}

int mr_islands_build(mr_islands *isl, const mr_problem *p, const mr_tree_chol *h, mr_data *work) {
  const int ng = h->ncomp + 1, nogroup = h->ncomp, base = p->neq + p->nlim, nb = base + p->ncon;
  int *island_of = mr_arena_ints(work, (size_t)ng), *cursor = mr_arena_ints(work, (size_t)ng);
  int *block_island = mr_arena_ints(work, (size_t)nb + 1);
  isl->group = mr_arena_ints(work, (size_t)ng);
  int **adrs[] = {&isl->dofadr, &isl->rowadr, &isl->baseadr, &isl->conadr};
  for (size_t a = 0; a < 4; a++) *adrs[a] = mr_arena_ints(work, (size_t)ng + 1);
  isl->dof = mr_arena_ints(work, (size_t)p->nv + 1);
  isl->row = mr_arena_ints(work, (size_t)p->nrow + 1);
  isl->base = mr_arena_ints(work, (size_t)base + 1);
  isl->con = mr_arena_ints(work, (size_t)p->ncon + 1);
  if (!island_of || !cursor || !block_island || !isl->group || !isl->dofadr || !isl->rowadr ||
      !isl->baseadr || !isl->conadr || !isl->dof || !isl->row || !isl->base || !isl->con)
    return -1;
  /* each block's island; islands in the order their first block appears */
  for (int g = 0; g < ng; g++) island_of[g] = -1;
  isl->n = 0;
  for (int b = 0; b < nb; b++) {
    int g = b < base ? mr_row_group(p, h, b, nogroup) : mr_contact_group(p, h, b - base, nogroup);
    if (island_of[g] < 0) {
      island_of[g] = isl->n;
      isl->group[isl->n++] = g == nogroup ? -1 : g;
    }
    block_island[b] = island_of[g];
  }
  const int n = isl->n;
  for (size_t a = 0; a < 4; a++) memset(*adrs[a], 0, ((size_t)n + 1) * sizeof(int));
  for (int b = 0; b < nb; b++) {
    int s = block_island[b];
    if (b < base) isl->baseadr[s + 1]++;
    else isl->conadr[s + 1]++;
    isl->rowadr[s + 1] += b < base ? 1 : 3;
  }
  for (int s = 0; s < n; s++) {
    int g = isl->group[s];
    for (int q = g < 0 ? 0 : h->compadr[g]; g >= 0 && q < h->compadr[g + 1]; q++)
      isl->dofadr[s + 1] += h->tree_adr[h->corder[q] + 1] - h->tree_adr[h->corder[q]];
  }
  /* dofs tree by tree */
  mr_islands_offsets(isl->dofadr, cursor, n);
  for (int s = 0; s < n; s++) {
    int g = isl->group[s];
    for (int q = g < 0 ? 0 : h->compadr[g]; g >= 0 && q < h->compadr[g + 1]; q++)
      for (int t = h->corder[q], i = h->tree_adr[t]; i < h->tree_adr[t + 1]; i++) isl->dof[cursor[s]++] = i;
  }
  /* equality and limit rows, then contacts: rows take the blocks' order */
  mr_islands_offsets(isl->rowadr, cursor, n);
  for (int b = 0; b < nb; b++) {
    int s = block_island[b];
    if (b < base) isl->row[cursor[s]++] = b;
    else
      for (int a = 0; a < 3; a++) isl->row[cursor[s]++] = base + 3 * (b - base) + a;
  }
  mr_islands_offsets(isl->baseadr, cursor, n);
  for (int b = 0; b < base; b++) isl->base[cursor[block_island[b]]++] = b;
  mr_islands_offsets(isl->conadr, cursor, n);
  for (int b = base; b < nb; b++) isl->con[cursor[block_island[b]]++] = b - base;
  return 0;
}

void mr_island_solve_mass(const mr_problem *p, const int *dof, int ndof, double *x) {
  for (int a = 0; a < ndof;) { /* runs of consecutive dofs: whole trees */
    int lo = dof[a], hi = lo + 1;
    for (a++; a < ndof && dof[a] == hi; a++) hi++;
    mr_problem_solve_mass_span(p, x, lo, hi);
  }
}

/* Row j's column of A^-1 J^T over the island's dofs into x (x zero there on entry). */
static void mr_island_mass_column(const mr_problem *p, const int *dof, int ndof, int j, double *x) {
  for (int t = p->nzadr[j]; t < p->nzadr[j + 1]; t++) x[p->nzind[t]] = p->J[t];
  mr_island_solve_mass(p, dof, ndof, x);
}

/* The island's G from the rows' half solves (p->Y): G_ab = sum_k Y_a[k] Y_b[k] / D_k over the
 * dofs the two share, each column scattered once with its weights into x (nv doubles, zero
 * on entry and on return) and dotted with the later rows. */
static void mr_island_delassus_half(const mr_problem *p, const int *row, int n, double *x, double *G) {
  const double *dinv = p->d->qLDiagInv;
  for (int b = 0; b < n; b++) {
    const int jb = row[b], nb = p->Yrange[2 * jb + 1] - p->Yrange[2 * jb];
    const int *kb = mr_problem_half_dofs(p, jb);
    const double *yb = p->Y + p->Yrange[2 * jb];
    for (int t = 0; t < nb; t++) x[kb[t]] = yb[t] * dinv[kb[t]];
    for (int a = b; a < n; a++) {
      const int ja = row[a], na = p->Yrange[2 * ja + 1] - p->Yrange[2 * ja];
      const int *ka = mr_problem_half_dofs(p, ja);
      const double *ya = p->Y + p->Yrange[2 * ja];
      double sum = 0;
      for (int t = 0; t < na; t++) sum += ya[t] * x[ka[t]];
      G[(size_t)a * n + b] = G[(size_t)b * n + a] = sum;
    }
    for (int t = 0; t < nb; t++) x[kb[t]] = 0;
  }
}

int mr_island_dual(const mr_islands *isl, int i, const mr_problem *p, mr_problem *q, mr_data *work) {
  const int *row = isl->row + isl->rowadr[i], *dof = isl->dof + isl->dofadr[i];
  const int n = isl->rowadr[i + 1] - isl->rowadr[i], ndof = isl->dofadr[i + 1] - isl->dofadr[i];
  const int nbase = isl->baseadr[i + 1] - isl->baseadr[i], ncon = isl->conadr[i + 1] - isl->conadr[i];
  double *G = mr_arena_doubles(work, (size_t)n * (size_t)n + 1), *g = mr_arena_doubles(work, (size_t)n + 1);
  double *diag = mr_arena_doubles(work, (size_t)n + 1), *mu = mr_arena_doubles(work, (size_t)ncon + 1);
  double *x = mr_arena_doubles(work, (size_t)p->nv + 1);
  if (!G || !g || !diag || !mu || !x) return -1;
  if (p->Y) {
    for (int a = 0; a < ndof; a++) x[dof[a]] = 0;
    mr_island_delassus_half(p, row, n, x, G);
  } else {
    for (int b = 0; b < n; b++) {
      for (int a = 0; a < ndof; a++) x[dof[a]] = 0;
      mr_island_mass_column(p, dof, ndof, row[b], x);
      for (int a = 0; a < n; a++) G[(size_t)a * n + b] = mr_problem_row_dot(p, row[a], x);
    }
  }
  for (int a = 0; a < n; a++) {
    g[a] = p->g[row[a]];
    diag[a] = G[(size_t)a * n + a];
  }
  int neq = 0;
  for (int a = 0; a < nbase; a++) neq += isl->base[isl->baseadr[i] + a] < p->neq;
  for (int a = 0; a < ncon; a++) mu[a] = p->mu[isl->con[isl->conadr[i] + a]];
  *q = (mr_problem){.nv = p->nv, .nrow = n, .neq = neq, .nlim = nbase - neq, .ncon = ncon,
                    .dt = p->dt, .G = G, .g = g, .Gdiag = diag, .mu = mu, .m = p->m, .d = p->d,
                    .tol = p->tol, .max_iter = p->max_iter};
  return 0;
}
