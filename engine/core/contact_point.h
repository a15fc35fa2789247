/* Where a contact's force acts (internal): shared by the constraint rows, which measure the
 * relative velocity there, and the body forces derived from the contact impulses (sensors),
 * so the two always agree on the lever arm. */
#ifndef MR_CONTACT_POINT_H
#define MR_CONTACT_POINT_H

#include "moreau.h"

/* On the surface of one of the two geoms: the static one's when one of them is welded to
 * the world, else geom1's (engine/constraint/contact_rows.c says why), not the midpoint
 * c->pos. The surfaces are at pos -/+ (dist / 2) n, the normal pointing from geom1 to
 * geom2. */
static inline void mr_contact_surface_point(const mr_model *m, const mr_contact *c, double at[3]) {
  double side = m->body_weldid[c->body2] == 0 && m->body_weldid[c->body1] != 0 ? 0.5 : -0.5;
  for (int a = 0; a < 3; a++) at[a] = c->pos[a] + side * c->dist * c->frame[a];
}

#endif
