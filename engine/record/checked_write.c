#include "checked_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mr_write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return -1;
    if (k == 0) {
      errno = ENOSPC; /* a write that takes nothing: the device is full */
      return -1;
    }
    p += k;
    n -= (size_t)k;
  }
  return 0;
}

int mr_write_file_atomic(const char *path, const void *data, size_t n, char *err, int errlen) {
  size_t len = strlen(path);
  char *part = malloc(len + 6);
  if (!part) {
    snprintf(err, (size_t)errlen, "%s: cannot write: out of memory", path);
    return -1;
  }
  memcpy(part, path, len);
  memcpy(part + len, ".part", 6);
  int fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  int failed = fd < 0;
  if (!failed) failed = mr_write_all(fd, data, n) != 0;
  /* fsync: a full disk may only say so when the data leaves the cache */
  if (!failed) failed = fsync(fd) != 0 && errno != EINVAL && errno != EROFS;
  int e = errno;
  if (fd >= 0 && close(fd) != 0 && !failed) {
    failed = 1;
    e = errno;
  }
  if (!failed && rename(part, path) != 0) {
    failed = 1;
    e = errno;
  }
  if (failed) {
    if (fd >= 0) unlink(part);
    snprintf(err, (size_t)errlen, "%s: cannot write: %s", path, strerror(e));
  }
  free(part);
  return failed ? -1 : 0;
}
