/* Speculative contacts: see sweep.h. */
#include "sweep.h"

#include <math.h>

#include "engine/core/arena.h"
#include "engine/core/mr_math.h"
#include "narrowphase.h"

size_t mr_sweep_arena_size(const mr_model *m) {
  return (6 * (size_t)m->nbody + 8 * (size_t)m->ngeom + 4) * sizeof(double) + 5 * 64;
}

/* Each body's spatial velocity (angular, linear at its root's subtree com), from the root
 * down: its parent's plus its own dofs' motion. */
static void mr_sweep_body_velocities(const mr_model *m, const mr_data *d, double *cvel) {
  for (int k = 0; k < 6; k++) cvel[k] = 0;
  for (int b = 1; b < m->nbody; b++) {
    double *v = cvel + 6 * b;
    const double *p = cvel + 6 * m->body_parentid[b];
    for (int k = 0; k < 6; k++) v[k] = p[k];
    for (int i = m->body_dofadr[b]; i < m->body_dofadr[b] + m->body_dofnum[b]; i++)
      for (int k = 0; k < 6; k++) v[k] += d->cdof[6 * i + k] * d->qvel[i];
  }
}

int mr_sweep_init(mr_sweep *s, const mr_model *m, mr_data *d) {
  s->dt = d->opt.timestep;
  s->vel = mr_arena_doubles(d, 3 * (size_t)m->ngeom + 1);
  s->omega = mr_arena_doubles(d, 3 * (size_t)m->ngeom + 1);
  s->spin = mr_arena_doubles(d, (size_t)m->ngeom + 1);
  s->reach = mr_arena_doubles(d, (size_t)m->ngeom + 1);
  double *cvel = mr_arena_doubles(d, 6 * (size_t)m->nbody);
  if (!s->vel || !s->omega || !s->spin || !s->reach || !cvel) {
    s->reach = NULL;
    return -1;
  }
  mr_sweep_body_velocities(m, d, cvel);
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_bodyid[g];
    const double *w = cvel + 6 * b, *com = d->subtree_com + 3 * m->body_rootid[b];
    double arm[3], turn[3], *v = s->vel + 3 * g;
    mr_sub3(arm, d->geom_xpos + 3 * g, com);
    mr_cross3(turn, w, arm);
    mr_add3(v, w + 3, turn);
    mr_copy3(s->omega + 3 * g, w);
    s->spin[g] = mr_norm3(w) * m->geom_rbound[g];
    s->reach[g] = s->dt * (mr_norm3(v) + s->spin[g]);
    if (!isfinite(s->reach[g])) { /* a state blowing up (reported by the step): no widening */
      s->vel[3 * g] = s->vel[3 * g + 1] = s->vel[3 * g + 2] = 0;
      s->omega[3 * g] = s->omega[3 * g + 1] = s->omega[3 * g + 2] = 0;
      s->spin[g] = s->reach[g] = 0;
    }
  }
  return 0;
}

double mr_sweep_margin(const mr_sweep *s, int g1, int g2) {
  if (!s->reach) return 0;
  double rel[3];
  mr_sub3(rel, s->vel + 3 * g1, s->vel + 3 * g2);
  return s->dt * (mr_norm3(rel) + s->spin[g1] + s->spin[g2]);
}

/* Velocity of the material point of geom g at p. */
static void mr_sweep_point_velocity(const mr_sweep *s, const mr_data *d, int g, const double p[3],
                                    double v[3]) {
  double arm[3], turn[3];
  mr_sub3(arm, p, d->geom_xpos + 3 * g);
  mr_cross3(turn, s->omega + 3 * g, arm);
  mr_add3(v, s->vel + 3 * g, turn);
}

int mr_sweep_keep(const mr_sweep *s, const mr_data *d, int g1, int g2, double margin,
                  mr_contact_point *pts, int n) {
  int kept = 0;
  for (int i = 0; i < n; i++) {
    int keep = pts[i].dist <= margin || !s->reach;
    if (!keep) {
      double v1[3], v2[3], rel[3];
      mr_sweep_point_velocity(s, d, g1, pts[i].pos, v1);
      mr_sweep_point_velocity(s, d, g2, pts[i].pos, v2);
      mr_sub3(rel, v2, v1);
      double approach = -mr_dot3(rel, pts[i].normal); /* > 0: the gap closes */
      keep = approach > 0 && pts[i].dist - s->dt * approach <= margin;
    }
    if (keep) pts[kept++] = pts[i];
  }
  return kept;
}
