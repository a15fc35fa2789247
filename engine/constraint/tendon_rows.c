/* Tendon rows of the constraint stage: length limits, unilateral rows in the limit block
 * beside the joint limits, and tendon equalities, bilateral rows among the equalities.
 *
 * Both read the tendons the position stage computed (mr_kinematics runs mr_tendon, so the
 * lengths and Jacobians are current wherever the poses are, the equality projection's
 * Newton steps included).
 *
 *   limit    a side of a limited tendon is a row when its gap phi (length - range[0], or
 *            range[1] - length) is below the margin or would be within MR_LIMIT_LOOKAHEAD
 *            steps at the tendon's speed, as for joints; J = +-ten_J (positive when the
 *            length moves back into its range), and a warm start from last step's impulse of
 *            the same side (d->ten_limit_impulse); its nonzeros are the tendon's own
 *            (the model's fixed pattern, columns ascending). Its row id is -1 - (2 tendon + side),
 *            which tells the warm start it is not a joint's. The stabilization is the
 *            contacts' rule: a tendon resting on its limit is held MR_CONTACT_SLOP inside it,
 *            not at it, so its row stays in the set; corrected exactly to the limit, it
 *            would sit a round-off outside the activation test, lose its row, and be pulled
 *            through the limit by a step of free fall (4e-4 rad for a swinging double
 *            pendulum) before the next step caught it.
 *   equality phi = (L1 - L1_0) - poly(L2 - L2_0) with the lengths at qpos0 as references
 *            (MuJoCo's polycoef), J = J1 - poly'(L2 - L2_0) J2; no tendon2: L2 = L2_0.
 */
#include <math.h>
#include <string.h>

#include "rows.h"

/* Active sides of tendon t's limit: bit 0 lower, bit 1 upper. */
static int mr_tendon_sides(const mr_model *m, const mr_data *d, int t) {
  if (!m->tendon_limited[t]) return 0;
  return mr_range_sides(d->ten_length[t], d->ten_velocity[t], m->tendon_range + 2 * t,
                        m->tendon_margin[t], d->opt.timestep);
}

int mr_tendon_limit_count(const mr_model *m, const mr_data *d) {
  int n = 0;
  for (int t = 0; t < m->ntendon; t++) n += mr_side_count(mr_tendon_sides(m, d, t));
  return n;
}

int mr_tendon_limit_nonzeros(const mr_model *m, const mr_data *d) {
  int n = 0;
  for (int t = 0; t < m->ntendon; t++)
    n += mr_side_count(mr_tendon_sides(m, d, t)) * m->tendon_Jrownnz[t];
  return n;
}

int mr_tendon_limit_capacity(const mr_model *m, int *max_nonzeros) {
  int n = 0, nnz = 0;
  for (int t = 0; t < m->ntendon; t++)
    if (m->tendon_limited[t]) {
      n += 2;
      nnz += 2 * m->tendon_Jrownnz[t];
    }
  if (max_nonzeros) *max_nonzeros = nnz;
  return n;
}

/* scale * tendon t's Jacobian into the dense row J (an equality's). */
static void mr_tendon_row_add(const mr_model *m, const mr_data *d, int t, double scale, double *J) {
  int adr = m->tendon_Jrowadr[t];
  for (int k = 0; k < m->tendon_Jrownnz[t]; k++)
    J[m->tendon_Jcolind[adr + k]] += scale * d->ten_J[adr + k];
}

/* Limits recover as joint limits do (separable: nothing else holds a tendon in its range). */
void mr_tendon_limit_rows(const mr_model *m, const mr_data *d, mr_rows *r, int row) {
  for (int t = 0; t < m->ntendon; t++) {
    int sides = mr_tendon_sides(m, d, t), adr = m->tendon_Jrowadr[t];
    for (int side = 0; side < 2; side++) {
      if (!(sides >> side & 1)) continue;
      const double *range = m->tendon_range + 2 * t;
      double phi = side == 0 ? d->ten_length[t] - range[0] : range[1] - d->ten_length[t];
      double sign = side == 0 ? 1 : -1;
      mr_rows_begin(r, row);
      for (int k = 0; k < m->tendon_Jrownnz[t]; k++)
        mr_rows_add(r, m->tendon_Jcolind[adr + k], sign * d->ten_J[adr + k]);
      r->phi[row] = phi;
      r->bias[row] = mr_unilateral_bias(phi + MR_CONTACT_SLOP, r->dt);
      r->id[row] = -1 - (2 * t + side);
      mr_rows_soft(r, row, phi - m->tendon_margin[t], m->tendon_solref_lim + 2 * t,
                   m->tendon_solimp_lim + 5 * t);
      row++;
    }
  }
}

double *mr_tendon_limit_slot(mr_data *d, int id) { return d->ten_limit_impulse + (-1 - id); }

void mr_eq_tendon(const mr_model *m, const mr_data *d, int e, double *phi, double *J) {
  const double *a = m->eq_data + 11 * e;
  int t1 = m->eq_obj1id[e], t2 = m->eq_obj2id[e];
  double y = d->ten_length[t1] - m->tendon_length0[t1], x = 0;
  if (t2 >= 0) x = d->ten_length[t2] - m->tendon_length0[t2];
  double poly = a[0] + x * (a[1] + x * (a[2] + x * (a[3] + x * a[4])));
  double dpoly = a[1] + x * (2 * a[2] + x * (3 * a[3] + x * 4 * a[4]));
  phi[0] = y - poly;
  if (!J) return;
  mr_tendon_row_add(m, d, t1, 1, J);
  if (t2 >= 0) mr_tendon_row_add(m, d, t2, -dpoly, J);
}
