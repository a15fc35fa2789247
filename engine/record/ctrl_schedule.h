/* Controls for headless runs (moreau run --ctrl FILE.csv): a table of actuator controls over
 * time, applied to d->ctrl before every step.
 *
 * The file is CSV with a header row: a column "time" and one column per actuator, named as
 * in the model (columns may come in any order; an actuator without a column keeps its
 * control from the keyframe, or 0). Time must never decrease down the rows. Between two
 * rows the controls are interpolated linearly; before the first row and after the last
 * they are held. Two rows at the same time make a jump: from that time on, the later row
 * holds.
 *
 * Loading checks everything once (unknown names, a missing time column, decreasing time,
 * bad numbers: one line "FILE:LINE: what is wrong"); mr_ctrl_schedule_apply then allocates
 * nothing, and a lookup in time order costs O(1) (a cursor remembers the last interval). */
#ifndef MR_CTRL_SCHEDULE_H
#define MR_CTRL_SCHEDULE_H

#include "moreau.h"

typedef struct mr_ctrl_schedule {
  int ncol;      /* actuator columns */
  int *actuator; /* ncol: the actuator id of each column */
  long nrows;
  double *time;  /* nrows, nondecreasing */
  double *value; /* nrows x ncol */
  long cursor;   /* the row the last lookup started from */
} mr_ctrl_schedule;

/* Reads path for model m. 0 on success; else -1, one line in err, and s left empty. */
int mr_ctrl_schedule_load(mr_ctrl_schedule *s, const char *path, const mr_model *m, char *err,
                          int errlen);

/* Writes the controls at the given time into ctrl (nu entries; columns absent from the file
 * are left alone). */
void mr_ctrl_schedule_apply(mr_ctrl_schedule *s, double time, double *ctrl);

void mr_ctrl_schedule_free(mr_ctrl_schedule *s);

#endif
