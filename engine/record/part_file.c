#include "part_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
  snprintf(err, (size_t)errlen, "%s: write error: %s", f->part_path, strerror(errno));
  return -1;
}

int mr_part_file_commit(mr_part_file *f, char *err, int errlen) {
  /* fclose reports what buffered writes could not (a full disk shows up here). */
  int failed = 0, close_failed = 0;
  if (f->file) {
    failed = fflush(f->file) != 0 || ferror(f->file);
    close_failed = fclose(f->file) != 0;
    f->file = NULL;
  }
  if (failed || close_failed) {
    snprintf(err, (size_t)errlen, "%s: write error: %s", f->part_path, strerror(errno));
    mr_part_file_abort(f);
    return -1;
  }
  if (rename(f->part_path, f->path) != 0) {
    snprintf(err, (size_t)errlen, "%s: cannot rename to %s: %s", f->part_path, f->path,
             strerror(errno));
    mr_part_file_abort(f);
    return -1;
  }
  part_release(f);
  return 0;
}

void mr_part_file_abort(mr_part_file *f) {
  if (f->file) fclose(f->file);
  f->file = NULL;
  if (f->part_path) remove(f->part_path);
  part_release(f);
}
