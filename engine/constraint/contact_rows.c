/* Contact rows: which contacts become rows, the point their rows measure, their dofs,
 * Jacobians and biases (constraint.h gives the order, signs and stabilization rule).
 * Contacts of condim 1 get mu = 0: still 3 rows, the cone of aperture 0 forces the
 * tangential impulse to 0. condim 4 and 6 are solved as condim 3 (no torsional or rolling
 * friction yet).
 */
#include <math.h>
#include <string.h>

#include "engine/core/contact_point.h"
#include "engine/core/tree_ldl.h"
#include "engine/dynamics/dynamics.h"
#include "rows.h"

/* ------------------------------------------------------------------ contacts */

/* A contact is a row at dist <= margin - gap (MuJoCo's activation rule, touching included:
 * collision/narrowphase.h). The collision stage also reports contacts a little beyond the
 * margin (collision/band.h: a continuing pair lifting off by a relaxation's offset or by
 * round-off); for a solver with inactive-but-present rows (depenetrate: the rigid solvers
 * and sap, whose normal row at dist > 0 has bias dist / dt and pushes only if the gap would
 * close within the step) they are rows too, so a gliding contact keeps its row and warm
 * start instead of leaving the set for a step of free fall. A pair's gap zone
 * (margin - gap, margin] stays rowless, as in MuJoCo. soft is MuJoCo's model: rows only
 * within margin - gap. */
static int mr_contact_is_row(int rigid, const mr_contact *c) {
  if (c->dist <= c->margin - c->gap) return 1;
  return rigid && c->dist > c->margin;
}

/* The k-th smallest (0-based) of x[0..n) by quickselect; x is reordered. */
static double mr_select(double *x, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = x[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (x[i] < pivot) i++;
      while (x[j] > pivot) j--;
      if (i <= j) {
        double t = x[i];
        x[i] = x[j];
        x[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return x[k];
  }
  return x[k];
}

/* Marks in keep[] the contacts that become rows: all candidates, or the `cap` deepest
 * when there are more (the rest are counted as dropped and their impulses zeroed). */
int mr_contact_select(const mr_model *m, mr_data *d, int cap, int *keep, double *scratch,
                      int *ncand) {
  int n = 0, rigid = mr_solver_get(mr_solver_index(d))->depenetrate;
  (void)m;
  for (int k = 0; k < d->ncon; k++) {
    keep[k] = mr_contact_is_row(rigid, &d->contact[k]);
    if (keep[k]) scratch[n++] = d->contact[k].dist;
  }
  *ncand = n;
  if (n <= cap) return n;
  double thr = cap > 0 ? mr_select(scratch, n, cap - 1) : -INFINITY;
  int kept = 0;
  for (int k = 0; k < d->ncon; k++) {
    if (!keep[k]) continue;
    keep[k] = d->contact[k].dist < thr;
    kept += keep[k];
  }
  for (int k = 0; k < d->ncon && kept < cap; k++)
    if (mr_contact_is_row(rigid, &d->contact[k]) && !keep[k] && d->contact[k].dist == thr) {
      keep[k] = 1;
      kept++;
    }
  for (int k = 0; k < d->ncon; k++)
    if (mr_contact_is_row(rigid, &d->contact[k]) && !keep[k]) memset(d->contact[k].impulse, 0, 3 * sizeof(double));
  d->ncon_dropped += n - kept;
  d->warning_count++;
  return kept;
}

/* The point whose relative velocity a contact's rows measure: on the surface of one of the
 * two geoms (the world's when one of them is static, else geom1's), not at the midpoint
 * between the surfaces where the contact is reported. It matters for redundant sets. A
 * foot resting on four points gets twelve rows for six dofs; their targets (no slip, and
 * the normal stabilization, linear in each point's depth) agree only if the points are
 * fixed in one plane of one body. Midpoints sit depth/2 below the floor, each at its own
 * height, so a foot that tilts to recover its penetration slips by omega x (depth
 * difference)/2 at some points and not at others: the rows contradict each other by
 * ~1e-5 m/s, the problem has no exact solution with all points sticking, and PGS crawled
 * through 100 sweeps on half of the humanoid's steps. On the floor's surface the points
 * are coplanar and the same steps converge in 2 sweeps plus one active-set solve. */
void mr_contact_anchor(const mr_model *m, const mr_contact *c, double at[3]) {
  mr_contact_surface_point(m, c, at);
}

/* The dofs on the chain of body b, descending: its last dof's row of the mass matrix's
 * layout (M_colind); *n of them, none for the world or a body welded to it. */
static const int *mr_body_chain(const mr_model *m, int b, int *n) {
  int last = b > 0 ? mr_chain_last_dof(m, b) : -1;
  *n = last >= 0 ? mr_tree_row_length(m, last) : 0;
  return last >= 0 ? m->M_colind + m->dof_Madr[last] : NULL;
}

/* Both chains to their roots, merged; every other column of the contact's rows is zero. */
int mr_contact_dofs(const mr_model *m, const mr_contact *c, int *dofs) {
  int n1, n2, n = 0;
  const int *chain1 = mr_body_chain(m, c->body1, &n1), *chain2 = mr_body_chain(m, c->body2, &n2);
  /* both chains descend; merge them into ascending order from their tails */
  int a = n1 - 1, b = n2 - 1;
  while (a >= 0 || b >= 0) {
    int next = b < 0 || (a >= 0 && chain1[a] < chain2[b]) ? chain1[a--] : chain2[b--];
    if (n == 0 || dofs[n - 1] != next) dofs[n++] = next;
  }
  return n;
}

int mr_contact_nonzeros(const mr_model *m, const mr_data *d, const int *keep) {
  int n = 0;
  for (int ci = 0; ci < d->ncon; ci++) {
    if (!keep[ci]) continue;
    const mr_contact *c = &d->contact[ci];
    int n1, n2;
    mr_body_chain(m, c->body1, &n1);
    mr_body_chain(m, c->body2, &n2);
    int both = n1 + n2;
    n += 3 * (both < m->nv ? both : m->nv);
  }
  return n;
}

/* The normal row's bias: the gap to close (constraint.h), or Newton restitution on impact. */
static double mr_contact_bias(const mr_data *d, const mr_rows *r, int row, const mr_contact *c,
                              int fresh) {
  double phi = c->dist + MR_CONTACT_SLOP, bias = mr_unilateral_bias(phi, r->dt);
  double e = d->opt.restitution;
  if (!(e > 0) || !fresh) return bias;
  double vn = 0;
  for (int t = r->nzadr[row]; t < r->nzadr[row + 1]; t++) vn += r->J[t] * r->v0[r->nzind[t]];
  /* an impact: approaching and closing within the step; the bounce replaces the gap term */
  return vn < 0 && phi + r->dt * vn < 0 ? e * vn : bias;
}

/* A contact's three rows share one column list: the dofs of its bodies' chains (a few
 * entries may be zero, which costs less than testing for them and keeps the pattern of
 * the three rows identical for the solvers that work per contact). */
void mr_contact_rows_fill(const mr_model *m, mr_data *d, mr_rows *r, const int *keep, double *jp) {
  const int nv = m->nv;
  int k = 0, *dofs = (int *)(jp + 3 * (size_t)nv);
  /* jp is zero between contacts: only the dofs a contact's Jacobian touches are written and
   * cleared, which on a pile of free bodies is 12 of hundreds */
  memset(jp, 0, 3 * (size_t)nv * sizeof(double));
  for (int ci = 0; ci < d->ncon; ci++) {
    if (!keep[ci]) continue;
    const mr_contact *c = &d->contact[ci];
    int row = r->neq + r->nlim + 3 * k;
    int ndof = mr_contact_dofs(m, c, dofs);
    double at[3];
    mr_contact_anchor(m, c, at);
    mr_jac_point_add(m, d, c->body2, at, 1, jp, NULL);
    mr_jac_point_add(m, d, c->body1, at, -1, jp, NULL);
    for (int a = 0; a < 3; a++) {
      const double *axis = c->frame + 3 * a;
      mr_rows_begin(r, row + a);
      for (int t = 0; t < ndof; t++) {
        int i = dofs[t];
        mr_rows_add(r, i, axis[0] * jp[i] + axis[1] * jp[nv + i] + axis[2] * jp[2 * nv + i]);
      }
      r->phi[row + a] = a == 0 ? c->dist : 0;
      r->bias[row + a] = 0;
      r->id[row + a] = ci;
      mr_rows_soft(r, row + a, a == 0 ? c->dist - (c->margin - c->gap) : 0, c->solref, c->solimp);
    }
    for (int t = 0; t < ndof; t++) jp[dofs[t]] = jp[nv + dofs[t]] = jp[2 * nv + dofs[t]] = 0;
    r->fresh[k] = c->impulse[0] == 0;
    r->bias[row] = mr_contact_bias(d, r, row, c, r->fresh[k]);
    r->mu[k] = c->dim == 1 ? 0 : c->friction[0];
    r->dist[k] = c->dist;
    k++;
  }
}
