/* Reading input files without trusting them.
 *
 * Every file a user names (a model, an include, a mesh, a control table, a recording, a
 * JOBS file) is opened here: regular files only, so a FIFO, a device such as /dev/zero, a
 * socket or a directory is refused before anything blocks on it or reads it without end;
 * and never more than a stated number of bytes, so the work and memory a file can cause
 * are bounded by its size. The messages name no file: callers put "FILE:LINE: " in front.
 */
#ifndef MR_FILE_READ_H
#define MR_FILE_READ_H

#include <stddef.h>
#include <stdio.h>

/* The default limit of a whole-file read (models, includes, meshes). */
#define MR_FILE_MAX_BYTES (64L * 1024 * 1024)

/* The limit of one line of a line-oriented input (CSV tables, JOBS files): a trajectory
 * header of nq + nv columns for the largest model fits many times over. */
#define MR_LINE_MAX_BYTES (4L * 1024 * 1024)

/* Opens path for reading if it is a regular file. NULL with the reason in why otherwise
 * ("cannot open: No such file or directory", "is a FIFO, not a regular file", ...). */
FILE *mr_file_open_regular(const char *path, char *why, int whylen);

/* Reads the whole regular file path into a malloc'd, NUL-terminated buffer of *size bytes
 * (the NUL not counted). Refuses a file over max_bytes, by its size before reading and by
 * what it gives while reading (a file that grows, a /proc file of size 0). 0, or -1 with
 * the reason in why and *data NULL. */
int mr_file_read_all(const char *path, long max_bytes, char **data, size_t *size, char *why,
                     int whylen);

/* Lines of a text file, at most max_bytes each (0: MR_LINE_MAX_BYTES). */
typedef struct mr_line_reader {
  FILE *file;
  char *line;     /* the current line, without its end (LF or CRLF) */
  size_t len, cap;
  size_t max_bytes;
  long lineno;    /* of the current line, from 1 */
  int cut;        /* the current line had no newline (the file ended inside it) */
} mr_line_reader;

/* Opens path (a regular file) for reading line by line; -1 with the reason in why. */
int mr_line_reader_open(mr_line_reader *r, const char *path, size_t max_bytes, char *why,
                        int whylen);

/* 1: a line is in r->line; 0: end of file; -1: a line longer than the limit, a NUL byte
 * or a read error, with the reason in why (r->lineno is the offending line). */
int mr_line_read(mr_line_reader *r, char *why, int whylen);

void mr_line_reader_close(mr_line_reader *r);

#endif
