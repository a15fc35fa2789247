/* The detection band: how far beyond the margin a pair's contacts are still reported.
 *
 * A contact is reported while dist <= margin (narrowphase.h) plus a band:
 *   - a pair that had a contact last step keeps its contacts while they lie within
 *     MR_BAND_REL of the smaller geom's size (its bounding radius) beyond the margin. A box
 *     gliding down an incline under sap lifts off by about (dt + tau_d) mu |v_t| a step (the
 *     relaxation's offset, 0.5 mm at 1 m/s); with the contact dropped at dist > 0 the box
 *     fell freely for a step, was found again, and slid 8% too fast while it turned 36
 *     degrees. Kept within the band, the contact stays in the set: the rigid solvers' rows
 *     allow separation (their bias is dist / dt, so the row pushes only if the gap would
 *     close within the step), and the warm start and persistent id survive;
 *   - any other pair gets a round-off band (MR_TOUCH_REL of its size), so shapes built
 *     exactly touching (a stack at dist 0, which floating point puts at +-1e-17) are found
 *     from the first step.
 * Contacts found beyond the margin are rows only for the solvers whose model has
 * inactive-but-present rows (mr_solver_info.depenetrate: every solver but soft); soft is
 * MuJoCo's model, whose rows exist only within the margin (engine/constraint/contact_rows.c).
 */
#ifndef MR_BAND_H
#define MR_BAND_H

#include <stdint.h>

#include "moreau.h"

#define MR_BAND_REL 1e-2
#define MR_TOUCH_REL 1e-10

/* The pairs (g1, g2) that had a contact last step, as sorted keys (scratch from the arena). */
typedef struct mr_band {
  const mr_model *m;
  uint64_t *keys;
  int n;
} mr_band;

/* Arena bytes mr_band_init needs for maxcon previous contacts. */
size_t mr_band_arena_size(int maxcon);

/* Collects last step's pairs from d->contact_prev. Returns -1 on arena exhaustion (then no
 * pair continues: every pair gets the round-off band only). */
int mr_band_init(mr_band *b, const mr_model *m, mr_data *d);

/* The margin to detect pair (g1, g2) with: the pair's margin plus its band. */
double mr_band_margin(const mr_band *b, int g1, int g2, double margin);

#endif
