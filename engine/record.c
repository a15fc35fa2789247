#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part_file.h"

typedef enum record_format { RECORD_UNKNOWN, RECORD_CSV, RECORD_HDF5 } record_format;

struct mr_recorder {
  record_format format;
  mr_part_file out;
  char *line;      /* one formatted row, so a row is handed to stdio whole */
  size_t line_cap;
  int nq, nv;
  long rows;
};

/* Longest "%.17g," of a double: sign, 17 digits, point, "e-308", comma. */
enum { RECORD_NUMBER_CHARS = 32 };

static record_format record_format_of(const char *path) {
  if (mr_path_has_extension(path, ".csv") == 0) return RECORD_CSV;
  if (mr_path_has_extension(path, ".h5") == 0 || mr_path_has_extension(path, ".hdf5") == 0)
    return RECORD_HDF5;
  return RECORD_UNKNOWN;
}

int mr_recorder_check_path(const char *path, char *err, int errlen) {
  switch (record_format_of(path)) {
    case RECORD_CSV: return 0;
    case RECORD_HDF5:
      snprintf(err, (size_t)errlen, "%s: HDF5 recording is not available yet", path);
      return -1;
    default:
      snprintf(err, (size_t)errlen, "%s: unknown recording format (use .csv or .h5)", path);
      return -1;
  }
}

static void recorder_free(mr_recorder *r) {
  if (!r) return;
  free(r->line);
  free(r);
}

static int csv_write_header(mr_recorder *r) {
  FILE *f = r->out.file;
  fputs("time", f);
  for (int i = 0; i < r->nq; i++) fprintf(f, ",qpos_%d", i);
  for (int i = 0; i < r->nv; i++) fprintf(f, ",qvel_%d", i);
  fputs(",ncon,iters,residual,energy\n", f);
  return ferror(f) ? -1 : 0;
}

mr_recorder *mr_recorder_open(const mr_model *m, const char *path, char *err, int errlen) {
  if (mr_recorder_check_path(path, err, errlen)) return NULL;
  mr_recorder *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  r->format = RECORD_CSV;
  r->nq = m->nq;
  r->nv = m->nv;
  r->line_cap = (size_t)(m->nq + m->nv + 8) * RECORD_NUMBER_CHARS;
  r->line = malloc(r->line_cap);
  if (!r->line) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    recorder_free(r);
    return NULL;
  }
  if (mr_part_file_open(&r->out, path, err, errlen)) {
    recorder_free(r);
    return NULL;
  }
  if (csv_write_header(r) || mr_part_file_check(&r->out, err, errlen)) {
    mr_recorder_abort(r);
    return NULL;
  }
  return r;
}

/* Appends "%.17g" and a separator at line[*len]; the buffer is sized for every field. */
static void csv_put_number(mr_recorder *r, size_t *len, double x, char sep) {
  int n = snprintf(r->line + *len, r->line_cap - *len, "%.17g%c", x, sep);
  if (n > 0) *len += (size_t)n;
}

int mr_recorder_write(mr_recorder *r, const mr_data *d, double energy, char *err, int errlen) {
  size_t len = 0;
  csv_put_number(r, &len, d->time, ',');
  for (int i = 0; i < r->nq; i++) csv_put_number(r, &len, d->qpos[i], ',');
  for (int i = 0; i < r->nv; i++) csv_put_number(r, &len, d->qvel[i], ',');
  int n = snprintf(r->line + len, r->line_cap - len, "%d,%d,", d->ncon, d->solver_iters);
  if (n > 0) len += (size_t)n;
  csv_put_number(r, &len, d->solver_residual, ',');
  csv_put_number(r, &len, energy, '\n');
  if (fwrite(r->line, 1, len, r->out.file) != len) {
    snprintf(err, (size_t)errlen, "%s: write error: %s", r->out.part_path, strerror(errno));
    return -1;
  }
  r->rows++;
  return 0;
}

int mr_recorder_finish(mr_recorder *r, char *err, int errlen) {
  int rc = mr_part_file_commit(&r->out, err, errlen);
  recorder_free(r);
  return rc;
}

void mr_recorder_abort(mr_recorder *r) {
  if (!r) return;
  mr_part_file_abort(&r->out);
  recorder_free(r);
}

long mr_recorder_rows(const mr_recorder *r) { return r ? r->rows : 0; }
