/* Contact recording (moreau run --contacts FILE.csv): every contact of every recorded step.
 *
 * CSV, one row per contact, numbers with %.17g:
 *   step,time,geom1,geom2,pos_x,pos_y,pos_z,normal_x,normal_y,normal_z,dist,id
 * step is the 1-based number of the step the contacts belong to; time is the time of the
 * poses they were detected on (the start of that step: collision runs before the state
 * advances); id is the persistent contact id. A step without contacts writes no row.
 *
 * As with trajectories (record.h), rows go to "FILE.part", renamed to FILE only when the
 * recording is complete. */
#ifndef MR_RECORD_CONTACTS_H
#define MR_RECORD_CONTACTS_H

#include "moreau.h"

typedef struct mr_contact_recorder mr_contact_recorder;

/* 0 if the name ends in .csv; else -1 and one line "FILE: what is wrong" in err. */
int mr_contact_recorder_check_path(const char *path, char *err, int errlen);

/* Creates FILE.part and writes the header. NULL and one line in err on failure. */
mr_contact_recorder *mr_contact_recorder_open(const char *path, char *err, int errlen);

/* Appends one row per contact of d (d->contact[0..ncon)). -1 and one line in err on a
 * write error. */
int mr_contact_recorder_write(mr_contact_recorder *r, long step, double time, const mr_data *d,
                              char *err, int errlen);

/* Flushes, closes and renames FILE.part to FILE, then frees r; on failure keeps the .part
 * file with what reached it and returns -1 with one line in err. */
int mr_contact_recorder_finish(mr_contact_recorder *r, char *err, int errlen);

/* After a failed write: closes and keeps FILE.part, and frees r. */
void mr_contact_recorder_keep(mr_contact_recorder *r);

/* Closes, removes FILE.part and frees r (NULL is fine). */
void mr_contact_recorder_abort(mr_contact_recorder *r);

/* Rows (contacts) written so far. */
long mr_contact_recorder_rows(const mr_contact_recorder *r);

#endif
