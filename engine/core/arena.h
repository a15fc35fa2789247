/* Per-step scratch memory (internal).
 *
 * Every mr_data owns one arena sized at mr_data_create, so the step never calls malloc.
 * It is a bump allocator: mr_forward/mr_step reset it, stages take blocks, and a stage that
 * wants its scratch back for the next stage restores a mark. Blocks are 64-byte aligned
 * (cache lines, and safe for any type).
 */
#ifndef MR_ARENA_H
#define MR_ARENA_H

#include <stddef.h>

#include "moreau.h"

/* Alignment of arena blocks and of mr_data's buffers (bytes). */
#define MR_ALIGN 64

/* Frees every block. */
void mr_arena_reset(mr_data *d);
/* A block of `bytes` bytes, or NULL when the arena is exhausted (a sizing bug: the arena
 * is sized for the model's worst case; callers treat NULL as an internal failure). */
void *mr_arena_alloc(mr_data *d, size_t bytes);
/* n doubles (uninitialised). */
double *mr_arena_doubles(mr_data *d, size_t n);
/* n ints (uninitialised). */
int *mr_arena_ints(mr_data *d, size_t n);

/* Save / restore the fill level: blocks taken after a mark are freed by the restore. */
static inline size_t mr_arena_mark(const mr_data *d) { return d->parena; }
static inline void mr_arena_restore(mr_data *d, size_t mark) { d->parena = mark; }

#endif
