/* Writes that never fail quietly: every byte accounted for, every failure with its reason.
 *
 * A full disk shows up as a short write, an error on write, or only on close (NFS, some
 * caches); each is caught and reported as "FILE: cannot write: REASON". Whole files (a
 * batch summary, a screenshot) are written beside their name and renamed into place, so a
 * reader sees the old file or the new one, never half of one. */
#ifndef MR_CHECKED_WRITE_H
#define MR_CHECKED_WRITE_H

#include <stddef.h>

/* Writes all n bytes to fd, retrying short writes and EINTR. 0, or -1 with errno set. */
int mr_write_all(int fd, const void *buf, size_t n);

/* Writes data to "PATH.part", syncs and closes it (each step checked), then renames it to
 * PATH. On failure removes PATH.part, leaves PATH as it was, and writes one line
 * "PATH: cannot write: REASON" into err. */
int mr_write_file_atomic(const char *path, const void *data, size_t n, char *err, int errlen);

#endif
