/* Speculative contacts: see sweep.h. */
#include "sweep.h"

#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/mr_math.h"
#include "engine/core/spatial.h"
#include "narrowphase.h"

size_t mr_sweep_arena_size(const mr_model *m) {
  return (6 * (size_t)m->nbody + 8 * (size_t)m->ngeom + 4) * sizeof(double) + 4 * 64;
}

/* Each body's spatial velocity (angular, linear at its root's subtree com), from the root
 * down: its parent's plus its own dofs' motion. */
static void mr_sweep_body_velocities(const mr_model *m, const mr_data *d, double *cvel) {
  memset(cvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    double *v = cvel + 6 * b;
    memcpy(v, cvel + 6 * m->body_parentid[b], 6 * sizeof(double));
    for (int i = m->body_dofadr[b]; i < m->body_dofadr[b] + m->body_dofnum[b]; i++)
      mr_addscl6(v, d->cdof + 6 * i, d->qvel[i]);
  }
}

int mr_sweep_init(mr_sweep *s, const mr_model *m, mr_data *d) {
  s->dt = d->opt.timestep;
  s->twist = mr_arena_doubles(d, 6 * (size_t)m->ngeom + 1);
  s->spin = mr_arena_doubles(d, (size_t)m->ngeom + 1);
  s->reach = mr_arena_doubles(d, (size_t)m->ngeom + 1);
  double *cvel = mr_arena_doubles(d, 6 * (size_t)m->nbody);
  if (!s->twist || !s->spin || !s->reach || !cvel) {
    s->reach = NULL;
    return -1;
  }
  mr_sweep_body_velocities(m, d, cvel);
  for (int g = 0; g < m->ngeom; g++) {
    int b = m->geom_bodyid[g];
    double *t = s->twist + 6 * g;
    memcpy(t, cvel + 6 * b, 3 * sizeof(double));
    mr_motion_point_velocity(t + 3, cvel + 6 * b, d->geom_xpos + 3 * g,
                             d->subtree_com + 3 * m->body_rootid[b]);
    s->spin[g] = mr_norm3(t) * m->geom_rbound[g];
    s->reach[g] = s->dt * (mr_norm3(t + 3) + s->spin[g]);
    if (!isfinite(s->reach[g])) { /* a state blowing up (reported by the step): no widening */
      memset(t, 0, 6 * sizeof(double));
      s->spin[g] = s->reach[g] = 0;
    }
  }
  return 0;
}

double mr_sweep_margin(const mr_sweep *s, int g1, int g2) {
  if (!s->reach) return 0;
  double rel[3];
  mr_sub3(rel, s->twist + 6 * g1 + 3, s->twist + 6 * g2 + 3);
  return s->dt * (mr_norm3(rel) + s->spin[g1] + s->spin[g2]);
}

int mr_sweep_keep(const mr_sweep *s, const mr_data *d, int g1, int g2, double margin,
                  mr_contact_point *pts, int n) {
  int kept = 0;
  for (int i = 0; i < n; i++) {
    int keep = pts[i].dist <= margin || !s->reach;
    if (!keep) {
      double v1[3], v2[3], rel[3];
      mr_motion_point_velocity(v1, s->twist + 6 * g1, pts[i].pos, d->geom_xpos + 3 * g1);
      mr_motion_point_velocity(v2, s->twist + 6 * g2, pts[i].pos, d->geom_xpos + 3 * g2);
      mr_sub3(rel, v2, v1);
      double approach = -mr_dot3(rel, pts[i].normal); /* > 0: the gap closes */
      keep = approach > 0 && pts[i].dist - s->dt * approach <= margin;
    }
    if (keep) pts[kept++] = pts[i];
  }
  return kept;
}
