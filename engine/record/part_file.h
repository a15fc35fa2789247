/* Output files that never pose as complete while they are not.
 *
 * Rows go to "FILE.part" beside FILE; mr_part_file_commit flushes, closes and renames it to
 * FILE, so a file under its final name is always whole. When writing fails (a full disk),
 * the .part file is kept with every row that reached it: its name says it is incomplete,
 * and readers (--init, --replay) read it. Only an abort before anything worth keeping
 * removes it. A .part file an earlier run left behind is set aside under a numbered name,
 * never overwritten. Every recorder (trajectories, contacts) is built on this. */
#ifndef MR_PART_FILE_H
#define MR_PART_FILE_H

#include <stdio.h>

typedef struct mr_part_file {
  FILE *file;
  char *path;      /* the final name */
  char *part_path; /* where the bytes go until commit */
} mr_part_file;

/* 0 if path ends in ext (case-insensitive, e.g. ".csv"). */
int mr_path_has_extension(const char *path, const char *ext);

/* Creates FILE.part for writing. -1 and one line "FILE: ..." in err on failure (f is then
 * empty and needs no cleanup). */
int mr_part_file_open(mr_part_file *f, const char *path, char *err, int errlen);

/* Like mr_part_file_open, but only names FILE.part (f->file stays NULL): for writers that
 * create the file themselves (HDF5). Commit then only renames, abort only removes. */
int mr_part_file_name(mr_part_file *f, const char *path, char *err, int errlen);

/* -1 and "FILE.part: write error: ..." in err if the stream has failed; else 0. */
int mr_part_file_check(const mr_part_file *f, char *err, int errlen);

/* Flushes, closes and renames FILE.part to FILE. On failure keeps FILE.part (with what did
 * reach it) and returns -1 with one line in err. Either way f is released. */
int mr_part_file_commit(mr_part_file *f, char *err, int errlen);

/* Closes FILE.part and keeps it, incomplete, under that name; releases f. */
void mr_part_file_keep(mr_part_file *f);

/* If "PATH.part" exists (left by a run that was killed), renames it to "PATH.part.N", the
 * first N from 1 that is free, so a new run never destroys it. 1 when a file was moved,
 * with "warning: ..." in msg; 0 when there was none; -1 when it could not be moved, with
 * the reason in msg. */
int mr_part_file_set_aside(const char *path, char *msg, int msglen);

/* Closes and removes FILE.part and releases f (an empty f is fine). */
void mr_part_file_abort(mr_part_file *f);

#endif
