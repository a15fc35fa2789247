/* mr_model's memory (internal): the compiler allocates a model through this, the public
 * API frees it with mr_model_free. */
#ifndef MR_MODEL_H
#define MR_MODEL_H

#include "moreau.h"

/* Allocates a model whose sizes are those of `sizes` (every n* field, nM, nnames), with
 * every array zeroed and carved out of one buffer. NULL on out of memory. */
mr_model *mr_model_alloc(const mr_model *sizes);

/* A copy of `from` with the sizes of `sizes` (its options and flags too): every array keeps
 * its first min(old, new) elements, the rest is zero. The name buffer must keep its size.
 * Used to append to a compiled model (contact exclusions found on its poses). NULL on out
 * of memory. */
mr_model *mr_model_resize(const mr_model *from, const mr_model *sizes);

#endif
