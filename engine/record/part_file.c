#include "part_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int mr_path_has_extension(const char *path, const char *ext) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return -1;
  return strcasecmp(dot, ext) == 0 ? 0 : -1;
}

static char *part_concat(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  char *copy = malloc(n + k + 1);
  if (!copy) return NULL;
  memcpy(copy, s, n);
  memcpy(copy + n, suffix, k + 1);
  return copy;
}

static void part_release(mr_part_file *f) {
  if (f->file) fclose(f->file);
  free(f->path);
  free(f->part_path);
  memset(f, 0, sizeof *f);
}

int mr_part_file_name(mr_part_file *f, const char *path, char *err, int errlen) {
  memset(f, 0, sizeof *f);
  f->path = part_concat(path, "");
  f->part_path = part_concat(path, ".part");
  if (f->path && f->part_path) return 0;
  snprintf(err, (size_t)errlen, "%s: out of memory", path);
  part_release(f);
  return -1;
}

int mr_part_file_open(mr_part_file *f, const char *path, char *err, int errlen) {
  if (mr_part_file_name(f, path, err, errlen)) return -1;
  f->file = fopen(f->part_path, "w");
  if (!f->file) {
    snprintf(err, (size_t)errlen, "%s: cannot create %s: %s", path, f->part_path, strerror(errno));
    part_release(f);
    return -1;
  }
  return 0;
}

int mr_part_file_check(const mr_part_file *f, char *err, int errlen) {
  if (!f->file || !ferror(f->file)) return 0;
  snprintf(err, (size_t)errlen, "%s: write error: %s (the rows before it are kept there)",
           f->part_path, strerror(errno));
  return -1;
}

int mr_part_file_commit(mr_part_file *f, char *err, int errlen) {
  /* fclose reports what buffered writes could not (a full disk shows up here). */
  int failed = 0, e = 0;
  if (f->file) {
    failed = fflush(f->file) != 0 || ferror(f->file);
    e = errno;
    if (fclose(f->file) != 0 && !failed) {
      failed = 1;
      e = errno;
    }
    f->file = NULL;
  }
  if (failed) {
    snprintf(err, (size_t)errlen, "%s: write error: %s (the rows before it are kept there)",
             f->part_path, strerror(e));
    part_release(f);
    return -1;
  }
  if (rename(f->part_path, f->path) != 0) {
    snprintf(err, (size_t)errlen, "%s: cannot rename to %s: %s (the rows are kept there)",
             f->part_path, f->path, strerror(errno));
    part_release(f);
    return -1;
  }
  part_release(f);
  return 0;
}

void mr_part_file_keep(mr_part_file *f) { part_release(f); }

int mr_part_file_set_aside(const char *path, char *msg, int msglen) {
  char part[4096], aside[4120];
  if (snprintf(part, sizeof part, "%s.part", path) >= (int)sizeof part) return 0;
  struct stat st;
  if (lstat(part, &st) != 0) return 0;
  for (int n = 1; n < 1000; n++) {
    snprintf(aside, sizeof aside, "%s.%d", part, n);
    if (lstat(aside, &st) == 0) continue;
    if (rename(part, aside) != 0) break;
    snprintf(msg, (size_t)msglen,
             "warning: %s was left by an earlier run that did not finish; kept as %s", part, aside);
    return 1;
  }
  snprintf(msg, (size_t)msglen, "%s: left by an earlier run, and cannot be set aside: %s", part,
           strerror(errno));
  return -1;
}

void mr_part_file_abort(mr_part_file *f) {
  if (f->file) fclose(f->file);
  f->file = NULL;
  if (f->part_path) remove(f->part_path);
  part_release(f);
}
