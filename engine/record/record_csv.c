/* CSV trajectories (record.h). Rows are formatted into one memory block and handed to the
 * kernel whole, one write per flush with the stream unbuffered, so a killed run leaves
 * FILE.part ending on a row boundary: stdio's own buffer would cut a row wherever it
 * filled. The one exception is SIGKILL arriving during that write: Linux stops a write
 * between pages once a fatal signal is pending, and the last row can then be partial;
 * mr_recording_load drops a last line without its newline. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part_file.h"
#include "record.h"

struct mr_record_csv {
  mr_part_file out;
  char *block; /* rows not yet written */
  size_t len, cap;
  size_t row_cap; /* room one row can take */
  long pending;   /* rows in block */
  double last_flush;
  int nq, nv, na, nsensordata;
  const mr_model *m; /* for the sensor column names of the header */
};

/* Longest "%.17g," of a double: sign, 17 digits, point, "e-308", comma. */
enum { CSV_NUMBER_CHARS = 32 };

static void csv_free(mr_record_csv *r) {
  free(r->block);
  free(r);
}

/* Appends text to the block; the block is sized so that the header or a row always fits
 * after a flush. */
static void csv_put_number(mr_record_csv *r, double x, char sep) {
  int n = snprintf(r->block + r->len, r->cap - r->len, "%.17g%c", x, sep);
  if (n > 0) r->len += (size_t)n;
}

static void csv_put_name(mr_record_csv *r, const char *prefix, int i) {
  int n = snprintf(r->block + r->len, r->cap - r->len, ",%s_%d", prefix, i);
  if (n > 0) r->len += (size_t)n;
}

static void csv_put_text(mr_record_csv *r, const char *s) {
  int n = snprintf(r->block + r->len, r->cap - r->len, "%s", s);
  if (n > 0) r->len += (size_t)n;
}

int mr_record_csv_flush(mr_record_csv *r, char *err, int errlen) {
  r->last_flush = mr_record_clock();
  if (r->len == 0) return 0;
  size_t wrote = fwrite(r->block, 1, r->len, r->out.file);
  int failed = wrote != r->len || fflush(r->out.file) != 0;
  r->len = 0;
  r->pending = 0;
  if (!failed) return 0;
  snprintf(err, (size_t)errlen, "%s: write error: %s (the rows before it are kept there)",
           r->out.part_path, strerror(errno));
  return -1;
}

static int csv_write_header(mr_record_csv *r, char *err, int errlen) {
  csv_put_text(r, "time");
  for (int i = 0; i < r->nq; i++) csv_put_name(r, "qpos", i);
  for (int i = 0; i < r->nv; i++) csv_put_name(r, "qvel", i);
  csv_put_text(r, ",ncon,iters,residual,energy,status,natural_map");
  for (int i = 0; i < r->na; i++) csv_put_name(r, "act", i);
  for (int i = 0; i < r->m->nsensor; i++)
    for (int k = 0; k < r->m->sensor_dim[i]; k++) {
      char name[256];
      mr_sensor_column(r->m, i, k, name, sizeof name);
      csv_put_text(r, ",");
      csv_put_text(r, name);
      if (r->cap - r->len < r->row_cap && mr_record_csv_flush(r, err, errlen)) return -1;
    }
  csv_put_text(r, "\n");
  return mr_record_csv_flush(r, err, errlen);
}

mr_record_csv *mr_record_csv_open(const mr_model *m, const char *path, char *err, int errlen) {
  mr_record_csv *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  r->nq = m->nq;
  r->nv = m->nv;
  r->na = m->na;
  r->nsensordata = m->nsensordata;
  r->m = m;
  r->row_cap = (size_t)(m->nq + m->nv + m->na + m->nsensordata + 10) * CSV_NUMBER_CHARS;
  /* a block of about 64 KiB, and at least one row and the header (names are shorter than
   * numbers) */
  r->cap = r->row_cap * 2 + 65536;
  r->block = malloc(r->cap);
  if (!r->block) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    csv_free(r);
    return NULL;
  }
  if (mr_part_file_open(&r->out, path, err, errlen)) {
    csv_free(r);
    return NULL;
  }
  setvbuf(r->out.file, NULL, _IONBF, 0);
  if (csv_write_header(r, err, errlen)) {
    mr_record_csv_abort(r);
    return NULL;
  }
  return r;
}

static int csv_flush_due(const mr_record_csv *r) {
  if (r->cap - r->len < r->row_cap || r->pending >= MR_RECORD_FLUSH_ROWS) return 1;
  return mr_record_clock() - r->last_flush >= MR_RECORD_FLUSH_SECONDS;
}

int mr_record_csv_write(mr_record_csv *r, const mr_data *d, double energy, char *err, int errlen) {
  csv_put_number(r, d->time, ',');
  for (int i = 0; i < r->nq; i++) csv_put_number(r, d->qpos[i], ',');
  for (int i = 0; i < r->nv; i++) csv_put_number(r, d->qvel[i], ',');
  int n = snprintf(r->block + r->len, r->cap - r->len, "%d,%d,", d->ncon, d->solver_iters);
  if (n > 0) r->len += (size_t)n;
  csv_put_number(r, d->solver_residual, ',');
  csv_put_number(r, energy, ',');
  n = snprintf(r->block + r->len, r->cap - r->len, "%d,", d->solver_status);
  if (n > 0) r->len += (size_t)n;
  csv_put_number(r, d->metrics.natural_map, r->na + r->nsensordata ? ',' : '\n');
  for (int i = 0; i < r->na; i++)
    csv_put_number(r, d->act[i], i + 1 < r->na + r->nsensordata ? ',' : '\n');
  for (int i = 0; i < r->nsensordata; i++)
    csv_put_number(r, d->sensordata[i], i + 1 < r->nsensordata ? ',' : '\n');
  r->pending++;
  if (csv_flush_due(r)) return mr_record_csv_flush(r, err, errlen);
  return 0;
}

int mr_record_csv_finish(mr_record_csv *r, char *err, int errlen) {
  int rc = mr_record_csv_flush(r, err, errlen);
  if (rc) mr_part_file_keep(&r->out);
  else rc = mr_part_file_commit(&r->out, err, errlen);
  csv_free(r);
  return rc;
}

void mr_record_csv_keep(mr_record_csv *r) {
  if (!r) return;
  mr_part_file_keep(&r->out);
  csv_free(r);
}

void mr_record_csv_abort(mr_record_csv *r) {
  if (!r) return;
  mr_part_file_abort(&r->out);
  csv_free(r);
}
