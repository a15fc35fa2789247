/* package:// and file:// resolution for URDF resources (see package_path.h for the order).
 *
 * ROS resolves package://PKG through its package index; a simulator outside ROS has no such
 * index, so we search the places a user is likely to have put the package: explicit roots
 * first (command line, then environment), then the folders above the URDF, which is where
 * a description package checked out as a whole ends up (PKG/urdf/robot.urdf). */
/* realpath() is XSI, beyond the project-wide _POSIX_C_SOURCE. */
#define _XOPEN_SOURCE 700

#include "package_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MR_PATH_MAX 4096

typedef struct mr_search {
  char *out;
  size_t outlen;
  char *looked;
  size_t lookedlen;
  int nlooked;
} mr_search;

static int mr_is_regular_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Records where we looked, for the error message; stops growing once full. */
static void mr_search_note(mr_search *s, const char *where) {
  if (!s->looked || s->lookedlen == 0) return;
  size_t n = strlen(s->looked);
  if (n + 4 >= s->lookedlen) return;
  int w = snprintf(s->looked + n, s->lookedlen - n, "%s%s", s->nlooked ? ", " : "", where);
  if (w < 0 || (size_t)w >= s->lookedlen - n) strcpy(s->looked + s->lookedlen - 4, "...");
  s->nlooked++;
}

/* Accepts path if it is a file: writes its canonical form to out. */
static int mr_search_try(mr_search *s, const char *path) {
  if (!mr_is_regular_file(path)) return 0;
  char *canon = realpath(path, NULL);
  const char *use = canon ? canon : path;
  int ok = strlen(use) < s->outlen;
  if (ok) strcpy(s->out, use);
  free(canon);
  return ok;
}

/* Tries R/PKG/rest, and R/rest when R is itself named PKG. */
static int mr_search_root(mr_search *s, const char *root, size_t rootlen, const char *pkg,
                          size_t pkglen, const char *rest) {
  char path[MR_PATH_MAX];
  while (rootlen > 1 && root[rootlen - 1] == '/') rootlen--;
  if (rootlen == 0 || rootlen >= MR_PATH_MAX / 2) return 0;
  char dir[MR_PATH_MAX / 2];
  memcpy(dir, root, rootlen);
  dir[rootlen] = 0;
  mr_search_note(s, dir);
  const char *sep = strcmp(dir, "/") == 0 ? "" : "/";
  int n = snprintf(path, sizeof path, "%s%s%.*s/%s", dir, sep, (int)pkglen, pkg, rest);
  if (n > 0 && n < (int)sizeof path && mr_search_try(s, path)) return 1;
  const char *base = strrchr(dir, '/');
  base = base ? base + 1 : dir;
  if (strlen(base) == pkglen && strncmp(base, pkg, pkglen) == 0) {
    n = snprintf(path, sizeof path, "%s%s%s", dir, sep, rest);
    if (n > 0 && n < (int)sizeof path && mr_search_try(s, path)) return 1;
  }
  return 0;
}

/* Every entry of a ':'-separated list, in order. */
static int mr_search_list(mr_search *s, const char *list, const char *pkg, size_t pkglen,
                          const char *rest) {
  if (!list) return 0;
  const char *p = list;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0 && mr_search_root(s, p, len, pkg, pkglen, rest)) return 1;
    if (!end) break;
    p = end + 1;
  }
  return 0;
}

/* Folder of file, made absolute so that the ancestor walk reaches "/". */
static void mr_file_dir(const char *file, char *dir, size_t dirlen) {
  const char *slash = strrchr(file, '/');
  char raw[MR_PATH_MAX];
  if (!slash)
    strcpy(raw, ".");
  else if (slash == file)
    strcpy(raw, "/");
  else
    snprintf(raw, sizeof raw, "%.*s", (int)(slash - file), file);
  char *canon = realpath(raw, NULL);
  snprintf(dir, dirlen, "%s", canon ? canon : raw);
  free(canon);
}

static int mr_search_ancestors(mr_search *s, const char *base_file, const char *pkg,
                               size_t pkglen, const char *rest) {
  char dir[MR_PATH_MAX];
  mr_file_dir(base_file, dir, sizeof dir);
  for (;;) {
    if (mr_search_root(s, dir, strlen(dir), pkg, pkglen, rest)) return 1;
    char *slash = strrchr(dir, '/');
    if (!slash || strcmp(dir, "/") == 0) return 0;
    if (slash == dir)
      dir[1] = 0;
    else
      *slash = 0;
  }
}

static int mr_resolve_package(mr_search *s, const char *spec, const char *base_file,
                              const char *package_path) {
  while (*spec == '/') spec++;
  const char *slash = strchr(spec, '/');
  if (!slash || slash == spec || !slash[1]) {
    mr_search_note(s, "nowhere: expected package://PACKAGE/path");
    return -1;
  }
  size_t pkglen = (size_t)(slash - spec);
  const char *rest = slash + 1;
  if (mr_search_list(s, package_path, spec, pkglen, rest)) return 0;
  if (mr_search_list(s, getenv("MOREAU_PACKAGE_PATH"), spec, pkglen, rest)) return 0;
  if (mr_search_ancestors(s, base_file, spec, pkglen, rest)) return 0;
  return -1;
}

static int mr_resolve_file(mr_search *s, const char *path, const char *base_file) {
  char full[MR_PATH_MAX];
  if (path[0] == '/') {
    snprintf(full, sizeof full, "%s", path);
  } else {
    char dir[MR_PATH_MAX];
    mr_file_dir(base_file, dir, sizeof dir);
    int n = snprintf(full, sizeof full, "%s/%s", dir, path);
    if (n < 0 || n >= (int)sizeof full) {
      mr_search_note(s, "nowhere: path too long");
      return -1;
    }
  }
  mr_search_note(s, full);
  return mr_search_try(s, full) ? 0 : -1;
}

int mr_package_resolve(const char *uri, const char *base_file, const char *package_path,
                       char *out, size_t outlen, char *looked, size_t lookedlen) {
  mr_search s = {out, outlen, looked, lookedlen, 0};
  if (looked && lookedlen) looked[0] = 0;
  if (!uri || !*uri) {
    mr_search_note(&s, "nowhere: empty file name");
    return -1;
  }
  if (strncmp(uri, "package://", 10) == 0)
    return mr_resolve_package(&s, uri + 10, base_file, package_path);
  if (strncmp(uri, "file://", 7) == 0) uri += 7;
  return mr_resolve_file(&s, uri, base_file);
}
