/* Body-level quantities computed after the fact, for sensors (MuJoCo's mj_rnePostConstraint
 * and mj_subtreeVel):
 *
 *   cacc      body accelerations from qacc, with the world accelerating upward at -gravity
 *             (the same trick as the bias forces), so an accelerometer at rest reads +g;
 *   cfrc_ext  external forces on each body: xfrc_applied and the contact forces of the last
 *             solve (impulse / dt, at the point the contact rows act, contact_point.h);
 *   cfrc_int  the force each body receives from its parent, by Newton-Euler:
 *             I a + v x* (I v) - f_ext, summed over the subtree;
 *   subtree_linvel, subtree_angmom  velocity of each subtree's com and its angular
 *             momentum about that com.
 * Joint-limit and equality forces act through the joints, so they appear in cfrc_int (as
 * MuJoCo 2.2 has it) rather than in cfrc_ext. */
#include <string.h>

#include "engine/core/contact_point.h"
#include "engine/core/spatial.h"
#include "moreau.h"

/* A world force f and torque t acting at point p, as a com-based force of body b, added. */
static void mr_add_wrench(const mr_model *m, mr_data *d, int b, const double p[3],
                          const double f[3], const double t[3], double sign) {
  double arm[3], moment[3];
  mr_sub3(arm, p, d->subtree_com + 3 * m->body_rootid[b]);
  mr_cross3(moment, arm, f);
  if (t) mr_add3(moment, moment, t);
  double *out = d->cfrc_ext + 6 * b;
  mr_addscl3(out, moment, sign);
  mr_addscl3(out + 3, f, sign);
}

static void mr_external_forces(const mr_model *m, mr_data *d) {
  memset(d->cfrc_ext, 0, 6 * sizeof(double) * (size_t)m->nbody);
  for (int b = 1; b < m->nbody; b++) {
    const double *x = d->xfrc_applied + 6 * b;
    if (x[0] || x[1] || x[2] || x[3] || x[4] || x[5])
      mr_add_wrench(m, d, b, d->xipos + 3 * b, x, x + 3, 1);
  }
  const double dt = d->opt.timestep;
  for (int k = 0; k < d->ncon; k++) {
    const mr_contact *c = &d->contact[k];
    const double *imp = c->impulse;
    if (imp[0] == 0 && imp[1] == 0 && imp[2] == 0) continue;
    double f[3] = {0, 0, 0}, at[3];
    for (int a = 0; a < 3; a++) mr_addscl3(f, c->frame + 3 * a, imp[a] / dt);
    mr_contact_surface_point(m, c, at);
    /* the normal points from geom1 to geom2: body2 is pushed along +f */
    if (c->body2 > 0) mr_add_wrench(m, d, c->body2, at, f, NULL, 1);
    if (c->body1 > 0) mr_add_wrench(m, d, c->body1, at, f, NULL, -1);
  }
}

void mr_rne_post_constraint(const mr_model *m, mr_data *d) {
  memset(d->cacc, 0, 6 * sizeof(double));
  if (!(d->opt.disable & MR_DISABLE_GRAVITY)) mr_scale3(d->cacc + 3, d->opt.gravity, -1);
  for (int b = 1; b < m->nbody; b++) {
    double *a = d->cacc + 6 * b;
    memcpy(a, d->cacc + 6 * m->body_parentid[b], 6 * sizeof(double));
    for (int i = m->body_dofadr[b]; i >= 0 && i < m->body_dofadr[b] + m->body_dofnum[b]; i++) {
      mr_addscl6(a, d->cdof_dot + 6 * i, d->qvel[i]);
      mr_addscl6(a, d->cdof + 6 * i, d->qacc[i]);
    }
  }
  mr_external_forces(m, d);
  for (int b = 1; b < m->nbody; b++) {
    double *f = d->cfrc_int + 6 * b, momentum[6], gyro[6];
    const double *I = d->cinert + 10 * b, *v = d->cvel + 6 * b;
    mr_inert_mul(f, I, d->cacc + 6 * b);
    mr_inert_mul(momentum, I, v);
    mr_cross_force(gyro, v, momentum);
    for (int k = 0; k < 6; k++) f[k] += gyro[k] - d->cfrc_ext[6 * b + k];
  }
  memset(d->cfrc_int, 0, 6 * sizeof(double));
  for (int b = m->nbody - 1; b > 0; b--)
    mr_addscl6(d->cfrc_int + 6 * m->body_parentid[b], d->cfrc_int + 6 * b, 1);
}

/* Linear velocity of body b's com (world). */
static void mr_com_velocity(const mr_model *m, const mr_data *d, int b, double v[3]) {
  mr_motion_point_velocity(v, d->cvel + 6 * b, d->xipos + 3 * b,
                           d->subtree_com + 3 * m->body_rootid[b]);
}

/* L += mass (x - c) x (v - vc): the momentum of a point mass about c, relative to vc. */
static void mr_add_moment(double L[3], double mass, const double x[3], const double c[3],
                          const double v[3], const double vc[3]) {
  double dx[3], dv[3], r[3];
  mr_sub3(dx, x, c);
  mr_sub3(dv, v, vc);
  mr_cross3(r, dx, dv);
  mr_addscl3(L, r, mass);
}

void mr_subtree_vel(const mr_model *m, mr_data *d) {
  double *lin = d->subtree_linvel, *ang = d->subtree_angmom;
  memset(lin, 0, 3 * sizeof(double) * (size_t)m->nbody);
  memset(ang, 0, 3 * sizeof(double) * (size_t)m->nbody);
  /* linear momentum summed up the tree, then divided by the subtree masses */
  for (int b = 1; b < m->nbody; b++) {
    double v[3];
    mr_com_velocity(m, d, b, v);
    mr_scale3(lin + 3 * b, v, m->body_mass[b]);
  }
  for (int b = m->nbody - 1; b > 0; b--) mr_add3(lin + 3 * m->body_parentid[b], lin + 3 * m->body_parentid[b], lin + 3 * b);
  for (int b = 0; b < m->nbody; b++) {
    double mass = m->body_subtreemass[b];
    mr_scale3(lin + 3 * b, lin + 3 * b, mass > MR_MINVAL ? 1 / mass : 1 / MR_MINVAL);
  }
  /* each body's spin about its own com: R diag(I) R^T w */
  for (int b = 1; b < m->nbody; b++) {
    double wl[3];
    const double *R = d->ximat + 9 * b;
    mr_mulmatT3(wl, R, d->cvel + 6 * b);
    for (int k = 0; k < 3; k++) wl[k] *= m->body_inertia[3 * b + k];
    mr_mulmat3(ang + 3 * b, R, wl);
  }
  /* children into parents: each body's own com motion and each child subtree's, about the
   * parent subtree's com and relative to its velocity (parallel axis theorem) */
  for (int b = 1; b < m->nbody; b++) {
    double v[3];
    mr_com_velocity(m, d, b, v);
    mr_add_moment(ang + 3 * b, m->body_mass[b], d->xipos + 3 * b, d->subtree_com + 3 * b, v, lin + 3 * b);
  }
  for (int b = m->nbody - 1; b > 0; b--) {
    int p = m->body_parentid[b];
    mr_add3(ang + 3 * p, ang + 3 * p, ang + 3 * b);
    mr_add_moment(ang + 3 * p, m->body_subtreemass[b], d->subtree_com + 3 * b,
                  d->subtree_com + 3 * p, lin + 3 * b, lin + 3 * p);
  }
}
