/* Heightfields for the model: read once per asset (a file, inline values or zeros) and
 * normalized to [0, 1] as MuJoCo does (minimum subtracted, then divided by the range when
 * the range is not zero). Inline values are written like an image, first row at +y. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/error.h"
#include "engine/io/hfield_io.h"

static void mr_hfield_normalize(float *data, size_t n) {
  float lo = HUGE_VALF, hi = -HUGE_VALF;
  for (size_t i = 0; i < n; i++) lo = fminf(lo, data[i]), hi = fmaxf(hi, data[i]);
  for (size_t i = 0; i < n; i++) {
    data[i] -= lo;
    if (hi - lo > 1e-15f) data[i] /= hi - lo;
  }
}

static int mr_hfield_compile_one(mr_compiler *c, int k) {
  const mr_spec_hfield *sh = &c->s->hfields[k];
  mr_compiled_hfield *ch = &c->hfields[k];
  char msg[1024];
  if (sh->path) {
    if (mr_hfield_load(sh->path, &ch->data, &ch->nrow, &ch->ncol, msg, sizeof msg))
      return mr_errorf(c->err, c->errlen, sh->src, "%s", msg);
  } else {
    ch->nrow = sh->nrow;
    ch->ncol = sh->ncol;
    if ((size_t)ch->nrow * (size_t)ch->ncol > MR_HFIELD_MAX_SAMPLES)
      return mr_errorf(c->err, c->errlen, sh->src, "heightfield '%s' has more than 2^26 samples",
                       sh->name ? sh->name : "");
    ch->data = calloc((size_t)ch->nrow * (size_t)ch->ncol, sizeof(float));
    if (!ch->data) return mr_errorf(c->err, c->errlen, sh->src, "out of memory for a heightfield");
    for (int r = 0; sh->elevation && r < ch->nrow; r++)
      for (int col = 0; col < ch->ncol; col++)
        ch->data[(size_t)(ch->nrow - 1 - r) * ch->ncol + col] = (float)sh->elevation[(size_t)r * ch->ncol + col];
  }
  mr_hfield_normalize(ch->data, (size_t)ch->nrow * (size_t)ch->ncol);
  return 0;
}

int mr_compile_hfields(mr_compiler *c) {
  if (c->s->nhfields == 0) return 0;
  c->hfields = calloc((size_t)c->s->nhfields, sizeof *c->hfields);
  if (!c->hfields) {
    mr_source src = {c->s->file, 0};
    return mr_errorf(c->err, c->errlen, src, "out of memory loading heightfields");
  }
  long total = 0;
  for (int k = 0; k < c->s->nhfields; k++) {
    if (mr_hfield_compile_one(c, k)) return -1;
    total += (long)c->hfields[k].nrow * c->hfields[k].ncol;
    if (total > MR_HFIELD_MAX_SAMPLES)
      return mr_errorf(c->err, c->errlen, c->s->hfields[k].src,
                       "the heightfields hold more than 2^26 samples together");
  }
  return 0;
}

void mr_compile_hfields_fill(const mr_compiler *c, mr_model *m) {
  int adr = 0;
  for (int k = 0; k < m->nhfield; k++) {
    const mr_compiled_hfield *ch = &c->hfields[k];
    memcpy(m->hfield_size + 4 * k, c->s->hfields[k].size, 4 * sizeof(double));
    m->hfield_nrow[k] = ch->nrow;
    m->hfield_ncol[k] = ch->ncol;
    m->hfield_adr[k] = adr;
    memcpy(m->hfield_data + adr, ch->data, sizeof(float) * (size_t)ch->nrow * (size_t)ch->ncol);
    adr += ch->nrow * ch->ncol;
  }
}

void mr_compile_hfields_free(mr_compiler *c) {
  if (!c->hfields) return;
  for (int k = 0; k < c->s->nhfields; k++) free(c->hfields[k].data);
  free(c->hfields);
  c->hfields = NULL;
}
