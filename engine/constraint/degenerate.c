/* Contacts the mechanism cannot move along their normal leave the problem.
 *
 * A contact's normal row is degenerate when J_N A^-1 J_N^T, the normal's share of G's
 * diagonal, vanishes next to its tangent rows' (the joints can slide the two surfaces past
 * each other but not press them together or apart: a torso link turning about the normal
 * of its contact with the fixed base, talos_reduced at qpos0), or next to the problem's
 * scale (both bodies rigidly held). Such a row asks nothing the step could violate, since
 * no motion moves the bodies along it, and its impulse is undetermined: any value leaves
 * every velocity unchanged, so solvers drive it as far as their regularization lets them
 * (pgs and newton returned normal impulses of 1e11 N s, and the friction they bound
 * followed). A nearly degenerate row is nearly as bad (see MR_DEGENERATE_REL). Its friction has no normal impulse to be bounded by. The contact is dropped
 * from the step's rows (counted in d->ncon_degenerate), which is exact for the normal
 * direction and drops a friction force the model leaves undefined.
 */
#include <string.h>

#include "rows.h"

/* G_NN below this times the contact's largest tangent diagonal, or below MR_DEGENERATE_ABS
 * times the problem's largest diagonal, is degenerate: the motions the joints allow move
 * the contact along its normal by at most sqrt(1e-5) = 0.3% of what they move it along its
 * surface, a wedge of 0.2 degrees. A rigid contact at such an angle needs normal impulses
 * of 1e5 or more times the tangential momentum to hold (talos_reduced's torso on its base
 * at qpos0: G_NN / G_TT between 1e-9 and 2e-6, impulses up to 1e12 N s); real ones are
 * mesh overlaps across joints, not contacts a robot's design uses. */
#define MR_DEGENERATE_REL 1e-5
#define MR_DEGENERATE_ABS 1e-12

static int mr_contact_degenerate(const double *w, double wmax) {
  double tangent = w[1] > w[2] ? w[1] : w[2];
  return w[0] <= MR_DEGENERATE_REL * tangent || w[0] <= MR_DEGENERATE_ABS * wmax;
}

/* Row `from` of r moved to row `to` (to <= from), with its span, diagonal and half solve's
 * range. */
static void mr_row_move(mr_rows *r, int from, int to, int *span, double *Gdiag, int *Yrange) {
  int a = r->nzadr[from], n = r->nzadr[from + 1] - a, at = r->nzadr[to];
  memmove(r->nzind + at, r->nzind + a, (size_t)n * sizeof(int));
  memmove(r->J + at, r->J + a, (size_t)n * sizeof(double));
  r->nzadr[to + 1] = at + n;
  r->phi[to] = r->phi[from];
  r->bias[to] = r->bias[from];
  r->id[to] = r->id[from];
  memmove(r->solref + 2 * to, r->solref + 2 * from, 2 * sizeof(double));
  memmove(r->solimp + 5 * to, r->solimp + 5 * from, 5 * sizeof(double));
  r->pos[to] = r->pos[from];
  memmove(span + 4 * to, span + 4 * from, 4 * sizeof(int));
  Gdiag[to] = Gdiag[from];
  if (Yrange) memmove(Yrange + 2 * to, Yrange + 2 * from, 2 * sizeof(int));
}

static void mr_contact_move(mr_rows *r, int from, int to) {
  r->mu[to] = r->mu[from];
  r->dist[to] = r->dist[from];
  r->fresh[to] = r->fresh[from];
}

int mr_rows_drop_degenerate(mr_rows *r, int *span, double *Gdiag, int *Yrange) {
  const int base = r->neq + r->nlim;
  double wmax = 0;
  for (int i = 0; i < r->nrow; i++) wmax = Gdiag[i] > wmax ? Gdiag[i] : wmax;
  int kept = 0;
  for (int k = 0; k < r->ncon; k++) {
    int i = base + 3 * k;
    if (mr_contact_degenerate(Gdiag + i, wmax)) continue;
    if (kept != k) {
      for (int a = 0; a < 3; a++) mr_row_move(r, i + a, base + 3 * kept + a, span, Gdiag, Yrange);
      mr_contact_move(r, k, kept);
    }
    kept++;
  }
  int dropped = r->ncon - kept;
  r->ncon = kept;
  r->nrow = base + 3 * kept;
  r->nnz = r->nzadr[r->nrow];
  return dropped;
}
