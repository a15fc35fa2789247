/* Whether a MuJoCo run simulated fewer contacts than there were (for the benchmarks that
 * time MuJoCo next to Moreau). */
#ifndef BENCH_MUJOCO_DROPPED_H
#define BENCH_MUJOCO_DROPPED_H

#include <mujoco/mujoco.h>

/* Whether MuJoCo's preallocated contact or constraint buffer overflowed since the counts
 * were last cleared (nconmax / njmax of the file's <size>, 100 contacts by default in 2.2):
 * it then drops contacts silently, bodies sink through each other, and its time is that
 * of a smaller problem, not comparable with Moreau's. */
static inline int bench_mujoco_dropped(const mjData *d) {
  return d->warning[mjWARN_CONTACTFULL].number > 0 || d->warning[mjWARN_CNSTRFULL].number > 0;
}

#endif
