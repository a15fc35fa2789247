/* Trajectory recording: the state after every K-th step, written to disk.
 *
 * The format follows the file name's extension. CSV (DESIGN.md sec. 5) has the header
 * time,qpos_0..qpos_{nq-1},qvel_0..qvel_{nv-1},ncon,iters,residual,energy
 * and numbers printed with %.17g, so that every double reads back exactly. HDF5 (.h5) is
 * recognized but not written yet.
 *
 * A recording is written to "FILE.part" beside FILE and renamed to FILE only by
 * mr_recorder_finish, so a file under its final name is always complete; a failed or
 * aborted recording leaves nothing behind. */
#ifndef MR_RECORD_H
#define MR_RECORD_H

#include "moreau.h"

typedef struct mr_recorder mr_recorder;

/* 0 if the file name's extension names a format this build can write; else -1 and one line
 * "FILE: what is wrong" in err. Lets a caller reject a bad name before a long load. */
int mr_recorder_check_path(const char *path, char *err, int errlen);

/* Creates FILE.part and writes the header. NULL and one line in err on failure. */
mr_recorder *mr_recorder_open(const mr_model *m, const char *path, char *err, int errlen);

/* Appends one row: d's time, qpos, qvel and step statistics, and the given energy.
 * -1 and one line in err on a write error. */
int mr_recorder_write(mr_recorder *r, const mr_data *d, double energy, char *err, int errlen);

/* Flushes, closes and renames FILE.part to FILE, then frees r. On failure removes FILE.part
 * and returns -1 with one line in err. */
int mr_recorder_finish(mr_recorder *r, char *err, int errlen);

/* Closes, removes FILE.part and frees r (NULL is fine). */
void mr_recorder_abort(mr_recorder *r);

/* Rows written so far (header not counted). */
long mr_recorder_rows(const mr_recorder *r);

#endif
