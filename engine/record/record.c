/* Trajectory recording: picks the format from the file name and forwards to it (record.h). */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "part_file.h"

typedef enum record_format { RECORD_UNKNOWN, RECORD_CSV, RECORD_HDF5 } record_format;

struct mr_recorder {
  record_format format;
  mr_record_csv *csv;
  mr_record_h5 *h5;
  long rows;
};

static record_format record_format_of(const char *path) {
  if (mr_path_has_extension(path, ".csv") == 0) return RECORD_CSV;
  if (mr_path_has_extension(path, ".h5") == 0 || mr_path_has_extension(path, ".hdf5") == 0)
    return RECORD_HDF5;
  return RECORD_UNKNOWN;
}

int mr_recorder_check_path(const char *path, char *err, int errlen) {
  if (record_format_of(path) != RECORD_UNKNOWN) return 0;
  snprintf(err, (size_t)errlen, "%s: unknown recording format (use .csv or .h5)", path);
  return -1;
}

mr_recorder *mr_recorder_open(const mr_model *m, const mr_data *d, const char *path, char *err,
                              int errlen) {
  if (mr_recorder_check_path(path, err, errlen)) return NULL;
  mr_recorder *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  r->format = record_format_of(path);
  if (r->format == RECORD_CSV) r->csv = mr_record_csv_open(m, path, err, errlen);
  else r->h5 = mr_record_h5_open(m, d, path, err, errlen);
  if (!r->csv && !r->h5) {
    free(r);
    return NULL;
  }
  return r;
}

int mr_recorder_write(mr_recorder *r, const mr_data *d, double energy, char *err, int errlen) {
  int rc = r->csv ? mr_record_csv_write(r->csv, d, energy, err, errlen)
                  : mr_record_h5_write(r->h5, d, energy, err, errlen);
  if (rc == 0) r->rows++;
  return rc;
}

int mr_recorder_flush(mr_recorder *r, char *err, int errlen) {
  return r->csv ? mr_record_csv_flush(r->csv, err, errlen) : mr_record_h5_flush(r->h5, err, errlen);
}

int mr_recorder_finish(mr_recorder *r, char *err, int errlen) {
  int rc = r->csv ? mr_record_csv_finish(r->csv, err, errlen)
                  : mr_record_h5_finish(r->h5, err, errlen);
  free(r);
  return rc;
}

void mr_recorder_keep(mr_recorder *r) {
  if (!r) return;
  if (r->csv) mr_record_csv_keep(r->csv);
  if (r->h5) mr_record_h5_keep(r->h5);
  free(r);
}

void mr_recorder_abort(mr_recorder *r) {
  if (!r) return;
  if (r->csv) mr_record_csv_abort(r->csv);
  if (r->h5) mr_record_h5_abort(r->h5);
  free(r);
}

long mr_recorder_rows(const mr_recorder *r) { return r ? r->rows : 0; }

double mr_record_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *mr_record_integrator_name(int integrator) {
  return integrator == MR_INT_MIDPOINT ? "midpoint" : "euler";
}

const char *mr_record_solver_name(int solver) {
  const char *name = mr_solver_name(solver);
  return name ? name : mr_solver_name(mr_solver_default());
}
