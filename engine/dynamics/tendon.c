/* Tendon lengths, Jacobians, velocities and paths (MuJoCo's mj_tendon, at the end of the
 * position stage: mr_kinematics calls mr_tendon).
 *
 * A fixed tendon's length is sum coef_j q_j and its Jacobian the coefficients on the joints'
 * dofs. A spatial tendon's length is the sum of its segments, site to site, each either
 * straight or wrapped around a geom (wrap.c), divided by the divisor of the pulley that
 * started its branch. The Jacobian of a straight piece from p0 (on body b0) to p1 (on b1) is
 * u^T (J_p1 - J_p0) with u the unit vector from p0 to p1; a wrapped segment adds the pieces
 * x0 -> t0 and t1 -> x1 with the tangent points moving with the geom's body, and its arc
 * adds nothing: under a rigid motion of the geom the arc keeps its length, and the
 * tangency makes the length stationary in the tangent points (the envelope theorem).
 *
 * Jacobians are stored sparse over the patterns the compiler fixed (tendon_J*), built here
 * in one dense scratch row from the arena that is cleared again entry by entry.
 */
#include <math.h>
#include <string.h>

#include "dynamics.h"
#include "engine/core/arena.h"
#include "engine/core/mr_math.h"

void mr_point_row_add(const mr_model *m, const mr_data *d, int b, const double p[3],
                      const double dir[3], double scale, double *row) {
  if (b <= 0) return;
  double arm[3], armxdir[3];
  mr_sub3(arm, p, d->subtree_com + 3 * m->body_rootid[b]);
  mr_cross3(armxdir, arm, dir);
  /* dir . (lin + ang x arm) = dir . lin + ang . (arm x dir) */
  for (int i = mr_chain_last_dof(m, b); i >= 0; i = m->dof_parentid[i]) {
    const double *cd = d->cdof + 6 * i;
    row[i] += scale * (mr_dot3(dir, cd + 3) + mr_dot3(cd, armxdir));
  }
}

/* A straight piece from p0 on body b0 to p1 on body b1: its length, and scale u^T (J1 - J0)
 * into J. */
static double mr_piece(const mr_model *m, const mr_data *d, const double p0[3], int b0,
                       const double p1[3], int b1, double *J, double scale) {
  double u[3];
  mr_sub3(u, p1, p0);
  double len = mr_norm3(u);
  if (J && len > 1e-15 && b0 != b1) {
    mr_scale3(u, u, 1 / len);
    mr_point_row_add(m, d, b1, p1, u, scale, J);
    mr_point_row_add(m, d, b0, p0, u, -scale, J);
  }
  return len;
}

static double mr_fixed_tendon(const mr_model *m, const mr_data *d, int t, double *J,
                              double scale) {
  double len = 0;
  for (int i = m->tendon_adr[t]; i < m->tendon_adr[t] + m->tendon_num[t]; i++) {
    int j = m->wrap_objid[i];
    double coef = m->wrap_prm[i];
    len += coef * d->qpos[m->jnt_qposadr[j]];
    if (J) J[m->jnt_dofadr[j]] += scale * coef;
  }
  return len;
}

/* Appends a path point (for drawing and inspection). */
static void mr_put_point(double *pts, int *obj, int *n, const double *p, int what) {
  if (!pts) return;
  if (p)
    mr_copy3(pts + 3 * *n, p);
  else
    mr_zero3(pts + 3 * *n);
  obj[*n] = what;
  (*n)++;
}

/* The segment from the site at path element i to the next site, around the geom between
 * them if there is one; returns its length (undivided) and adds scale times its Jacobian. */
static double mr_segment(const mr_model *m, const mr_data *d, int i, double *J, double scale,
                         double *pts, int *obj, int *n) {
  int s0 = m->wrap_objid[i], j = i + 1, geom = -1, side = -1;
  if (m->wrap_type[j] != MR_WRAP_SITE) {
    geom = m->wrap_objid[j];
    side = (int)m->wrap_prm[j];
    j++;
  }
  int s1 = m->wrap_objid[j];
  const double *x0 = d->site_xpos + 3 * s0, *x1 = d->site_xpos + 3 * s1;
  int b0 = m->site_bodyid[s0], b1 = m->site_bodyid[s1];
  if (geom >= 0) {
    double tp[6];
    double arc = mr_wrap(m->wrap_type[i + 1], x0, x1, d->geom_xpos + 3 * geom,
                         d->geom_xmat + 9 * geom, m->geom_size[3 * geom],
                         side >= 0 ? d->site_xpos + 3 * side : NULL, tp);
    if (arc >= 0) {
      int bg = m->geom_bodyid[geom];
      mr_put_point(pts, obj, n, tp, geom);
      mr_put_point(pts, obj, n, tp + 3, geom);
      return mr_piece(m, d, x0, b0, tp, bg, J, scale) + arc +
             mr_piece(m, d, tp + 3, bg, x1, b1, J, scale);
    }
  }
  return mr_piece(m, d, x0, b0, x1, b1, J, scale);
}

double mr_tendon_eval(const mr_model *m, const mr_data *d, int t, double *J, double scale,
                      double *pts, int *obj, int *npts) {
  int adr = m->tendon_adr[t], end = adr + m->tendon_num[t], n = 0;
  if (npts) *npts = 0;
  if (m->wrap_type[adr] == MR_WRAP_JOINT) return mr_fixed_tendon(m, d, t, J, scale);
  double len = 0, divisor = 1;
  for (int i = adr; i < end; i++) {
    int type = m->wrap_type[i];
    if (type == MR_WRAP_PULLEY) {
      divisor = m->wrap_prm[i];
      mr_put_point(pts, obj, &n, NULL, -2);
      continue;
    }
    if (type != MR_WRAP_SITE) continue; /* a geom: part of the segment from the site before */
    mr_put_point(pts, obj, &n, d->site_xpos + 3 * m->wrap_objid[i], -1);
    if (i + 1 >= end || m->wrap_type[i + 1] == MR_WRAP_PULLEY) continue;
    len += mr_segment(m, d, i, J, scale / divisor, pts, obj, &n) / divisor;
  }
  if (npts) *npts = n;
  return len;
}

void mr_tendon(const mr_model *m, mr_data *d) {
  if (m->ntendon == 0) return;
  size_t mark = mr_arena_mark(d);
  double *row = mr_arena_doubles(d, (size_t)m->nv + 1);
  if (!row) return;
  memset(row, 0, ((size_t)m->nv + 1) * sizeof(double));
  int wadr = 0;
  for (int t = 0; t < m->ntendon; t++) {
    int n = 0;
    d->ten_length[t] = mr_tendon_eval(m, d, t, row, 1, d->wrap_xpos + 3 * wadr,
                                      d->wrap_obj + wadr, &n);
    d->ten_wrapadr[t] = wadr;
    d->ten_wrapnum[t] = n;
    wadr += n;
    int adr = m->tendon_Jrowadr[t];
    double vel = 0;
    for (int k = 0; k < m->tendon_Jrownnz[t]; k++) {
      int c = m->tendon_Jcolind[adr + k];
      d->ten_J[adr + k] = row[c];
      vel += row[c] * d->qvel[c];
      row[c] = 0;
    }
    d->ten_velocity[t] = vel;
  }
  mr_arena_restore(d, mark);
}
