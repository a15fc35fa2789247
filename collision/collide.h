/* mr_collide (declared in moreau.h) and the sizes it needs, fixed at mr_data_create.
 *
 * Contact capacity (mr_contact_capacity): 8 per collidable geom (contype or conaffinity
 * set) + MR_MAX_MANIFOLD per explicit pair + 32. A geom resting in a pile touches a few
 * neighbours with 1 point each (round shapes) up to 4 (faces), and every contact is shared
 * by two geoms, so 8 per geom is about twice the densest packing seen in practice (the
 * 200-primitive pile peaks far below it); explicit pairs may each produce a full manifold.
 * When a step finds more, the deepest are kept and d->ncon_dropped counts the rest. */
#ifndef MR_COLLIDE_H
#define MR_COLLIDE_H

#include "moreau.h"

/* The number of mr_contact slots mr_data holds (d->maxcon) for model m. */
int mr_contact_capacity(const mr_model *m);

/* Arena bytes mr_collide needs at most (mr_data sizes its arena with this). */
size_t mr_collide_arena_size(const mr_model *m);

#endif
