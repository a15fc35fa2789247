/* mr_model's memory (internal): the compiler allocates a model through this, the public
 * API frees it with mr_model_free. */
#ifndef MR_MODEL_H
#define MR_MODEL_H

#include "moreau.h"

/* Allocates a model whose sizes are those of `sizes` (every n* field, nM, nnames), with
 * every array zeroed and carved out of one buffer. NULL on out of memory. */
mr_model *mr_model_alloc(const mr_model *sizes);

#endif
