/* The per-step bump allocator (arena.h). */
#include "arena.h"

static size_t mr_arena_align(size_t n) { return (n + MR_ALIGN - 1) & ~(size_t)(MR_ALIGN - 1); }

void mr_arena_reset(mr_data *d) { d->parena = 0; }

void *mr_arena_alloc(mr_data *d, size_t bytes) {
  size_t start = mr_arena_align(d->parena);
  if (start > d->narena || bytes > d->narena - start) return NULL;
  d->parena = start + bytes;
  return d->arena + start;
}

double *mr_arena_doubles(mr_data *d, size_t n) { return mr_arena_alloc(d, n * sizeof(double)); }

int *mr_arena_ints(mr_data *d, size_t n) { return mr_arena_alloc(d, n * sizeof(int)); }
