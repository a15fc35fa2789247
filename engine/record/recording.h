/* Reading recordings back (the viewer's replay, moreau run --init, tests).
 *
 * mr_recording_load reads a CSV or HDF5 trajectory written by the recorder (record.h),
 * chosen by the file's extension; a "FILE.part" left by an interrupted or killed run reads
 * as its base format, with every row that reached the disk (a CSV's last line is dropped if
 * a crash cut it short). Sizes are checked against the model the recording is meant for:
 * the columns (CSV) or dataset widths (HDF5) must be nq and nv (and nu for /ctrl, na for the
 * activations), else one line "FILE:LINE: what is wrong" (CSV) or "FILE: what is wrong"
 * (HDF5). */
#ifndef MR_RECORDING_H
#define MR_RECORDING_H

#include "moreau.h"

typedef struct mr_recording {
  int nq, nv, nu, na;
  long nrows;
  double *time; /* nrows */
  double *qpos; /* nrows x nq, row-major */
  double *qvel; /* nrows x nv */
  double *ctrl; /* nrows x nu; NULL for CSV, which records no controls */
  double *act;  /* nrows x na; NULL when the recording has no activations */
} mr_recording;

/* 0 on success; else -1, one line in err, and *out empty (safe to free). Only a regular
 * file is read, lines of a CSV are bounded, the widths are checked against m (when given)
 * before any row is read, every number must be finite, and the whole recording may hold
 * at most 32M numbers (256 MiB). */
int mr_recording_load(const char *path, const mr_model *m, mr_recording *out, char *err,
                      int errlen);

/* The same, keeping only the last row (nrows is 1, or 0 for an empty recording): what
 * --init needs, in memory of one row however long the recording. */
int mr_recording_load_last(const char *path, const mr_model *m, mr_recording *out, char *err,
                           int errlen);
void mr_recording_free(mr_recording *r);

#endif
