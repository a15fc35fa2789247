#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe), not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It is
 * cleared again once the file is known to be regular, where it changes nothing anyway. */
static int file_open_fd(const char *path, struct stat *st, char *why, int whylen) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, (size_t)whylen, "cannot open: %s", strerror(errno));
    return -1;
  }
  if (fstat(fd, st) != 0) {
    snprintf(why, (size_t)whylen, "cannot open: %s", strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    snprintf(why, (size_t)whylen, "%s", file_kind(st->st_mode));
    close(fd);
    return -1;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

FILE *mr_file_open_regular(const char *path, char *why, int whylen) {
  struct stat st;
  int fd = file_open_fd(path, &st, why, whylen);
  if (fd < 0) return NULL;
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    snprintf(why, (size_t)whylen, "cannot open: %s", strerror(errno));
    close(fd);
  }
  return f;
}

static int file_too_large(long long size, long max_bytes, char *why, int whylen) {
  snprintf(why, (size_t)whylen, "file too large (%lld bytes; the limit is %ld)", size, max_bytes);
  return -1;
}

int mr_file_read_all(const char *path, long max_bytes, char **data, size_t *size, char *why,
                     int whylen) {
  *data = NULL;
  *size = 0;
  struct stat st;
  int fd = file_open_fd(path, &st, why, whylen);
  if (fd < 0) return -1;
  if (st.st_size > max_bytes) {
    close(fd);
    return file_too_large((long long)st.st_size, max_bytes, why, whylen);
  }
  /* One byte more than the limit is asked for, so a file that grows is caught. */
  size_t cap = (size_t)st.st_size + 1, len = 0;
  char *buf = malloc(cap + 1);
  int rc = buf ? 0 : -1;
  if (!buf) snprintf(why, (size_t)whylen, "out of memory reading %lld bytes", (long long)st.st_size);
  while (rc == 0) {
    if (len == cap) {
      if (cap > (size_t)max_bytes) {
        rc = file_too_large((long long)len, max_bytes, why, whylen);
        break;
      }
      size_t grown = cap * 2 > (size_t)max_bytes + 1 ? (size_t)max_bytes + 1 : cap * 2;
      if (grown < 4096) grown = 4096;
      char *more = realloc(buf, grown + 1);
      if (!more) {
        snprintf(why, (size_t)whylen, "out of memory reading the file");
        rc = -1;
        break;
      }
      buf = more;
      cap = grown;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      snprintf(why, (size_t)whylen, "read error: %s", strerror(errno));
      rc = -1;
    } else if (n == 0) {
      break;
    } else {
      len += (size_t)n;
    }
  }
  close(fd);
  if (rc == 0 && len > (size_t)max_bytes) rc = file_too_large((long long)len, max_bytes, why, whylen);
  if (rc) {
    free(buf);
    return -1;
  }
  buf[len] = 0;
  *data = buf;
  *size = len;
  return 0;
}

int mr_line_reader_open(mr_line_reader *r, const char *path, size_t max_bytes, char *why,
                        int whylen) {
  memset(r, 0, sizeof *r);
  r->max_bytes = max_bytes ? max_bytes : (size_t)MR_LINE_MAX_BYTES;
  r->file = mr_file_open_regular(path, why, whylen);
  return r->file ? 0 : -1;
}

static int line_push(mr_line_reader *r, int c) {
  if (r->len + 1 >= r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    if (cap > r->max_bytes + 2) cap = r->max_bytes + 2;
    char *grown = realloc(r->line, cap);
    if (!grown) return -1;
    r->line = grown;
    r->cap = cap;
  }
  r->line[r->len++] = (char)c;
  return 0;
}

int mr_line_read(mr_line_reader *r, char *why, int whylen) {
  r->len = 0;
  r->cut = 0;
  int c = getc(r->file);
  if (c == EOF) {
    if (ferror(r->file)) {
      snprintf(why, (size_t)whylen, "read error: %s", strerror(errno));
      return -1;
    }
    return 0;
  }
  r->lineno++;
  for (; c != EOF && c != '\n'; c = getc(r->file)) {
    if (c == 0) {
      snprintf(why, (size_t)whylen, "binary data (a NUL byte), not text");
      return -1;
    }
    if (r->len >= r->max_bytes) {
      snprintf(why, (size_t)whylen, "line longer than %zu bytes", r->max_bytes);
      return -1;
    }
    if (line_push(r, c)) {
      snprintf(why, (size_t)whylen, "out of memory reading a line");
      return -1;
    }
  }
  if (c == EOF && ferror(r->file)) {
    snprintf(why, (size_t)whylen, "read error: %s", strerror(errno));
    return -1;
  }
  r->cut = c == EOF;
  while (r->len > 0 && r->line[r->len - 1] == '\r') r->len--;
  if (line_push(r, 0)) {
    snprintf(why, (size_t)whylen, "out of memory reading a line");
    return -1;
  }
  r->len--;
  return 1;
}

void mr_line_reader_close(mr_line_reader *r) {
  if (r->file) fclose(r->file);
  free(r->line);
  memset(r, 0, sizeof *r);
}
