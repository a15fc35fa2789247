/* Persistent contacts: ids, frames and warm-start impulses carried from step to step.
 *
 * Each new contact is matched to one of last step's contacts (d->contact_prev) of the same
 * geom pair (same geom1 and geom2): first by narrowphase feature id (a box vertex, a
 * capsule end...), then, for contacts left over, by the nearest position within a
 * tolerance of a tenth of the smaller non-zero bounding radius of the two geoms (so box
 * corners, a diameter apart, are never confused). A matched contact keeps its id, counts
 * one more step of age, takes last step's impulse as its warm start, and keeps its frame:
 * last step's t1 projected onto the plane of the new normal. So a resting contact's frame
 * is bit-for-bit the same from step to step, and a sliding one turns only as much as its
 * normal does. Unmatched contacts get d->next_contact_id++ and the default frame.
 *
 * Matching is O(n log n): last step's contacts are sorted by (geom1, geom2) in arena
 * scratch and each new contact searches its pair's group. Limits: ngeom < 2^21 and
 * maxcon < 2^22 (the sort keys pack pair and index into 64 bits). */
#ifndef MR_PERSIST_H
#define MR_PERSIST_H

#include "moreau.h"

/* Matches d->contact against d->contact_prev. Returns -1 if the arena is exhausted (then
 * every contact is treated as new). */
int mr_contact_persist(const mr_model *m, mr_data *d);

/* Arena bytes mr_contact_persist needs at most. */
size_t mr_contact_persist_arena_size(int maxcon);

#endif
