/* Speculative contacts: how far a pair of geoms may close within one step.
 *
 * A contact is found only where its gap is within the pair's margin (narrowphase.h), so a
 * body approaching at v was found only once it had moved into the other, up to v dt deep,
 * and a heap's next contacts could turn it deeper still. The pair's detection margin is
 * therefore widened by a bound on how far the two geoms can close within the step,
 * dt (|v1 - v2| + |w1| r1 + |w2| r2), v the velocities of their centres, w their bodies'
 * angular velocities, r their bounding radii. A contact found so at a gap is an ordinary
 * row whose bias is the gap over dt (constraint.h): it pushes only as much as keeps the
 * gap from closing past zero within the step, so the body lands on the surface instead of
 * in it, and a pair that separates is left alone. Bodies at rest widen nothing.
 *
 * Box2D keeps a fixed speculative distance; this one follows the velocities, so that a
 * fast body needs no tuning and a resting pile gets no extra rows. The broadphase grows
 * each geom's box by dt (|v| + |w| r) of its own motion, which contains every pair's
 * widening. */
#ifndef MR_SWEEP_H
#define MR_SWEEP_H

#include "moreau.h"

struct mr_contact_point;

typedef struct mr_sweep {
  double dt;
  double *twist; /* ngeom x6: each geom's motion, its body's angular velocity and the
                    linear velocity of the geom's centre */
  double *spin;  /* ngeom: |w| r, the fastest a point of the geom turns about its centre */
  double *reach; /* ngeom: dt (|v| + |w| r), how far the geom alone moves within the step */
} mr_sweep;

/* Arena bytes mr_sweep_init needs. */
size_t mr_sweep_arena_size(const mr_model *m);

/* The geoms' velocities from qvel (after the position stage's kinematics). Returns -1 on
 * arena exhaustion (then reach is NULL and every margin is unwidened). */
int mr_sweep_init(mr_sweep *s, const mr_model *m, mr_data *d);

/* How far geoms g1 and g2 may close within the step (0 without velocities): the widening
 * of their detection margin. */
double mr_sweep_margin(const mr_sweep *s, int g1, int g2);

/* Keeps of the n points of pair (g1, g2) those within `margin` or whose gap closes to it
 * within the step at the pair's velocities at the point, along its normal: the widening
 * found candidates for every direction, and a pair moving side by side or apart needs
 * none of them as rows. Returns how many are kept, in order. */
int mr_sweep_keep(const mr_sweep *s, const mr_data *d, int g1, int g2, double margin,
                  struct mr_contact_point *pts, int n);

#endif
