/* The robot collections the corpus tests walk: every .urdf below a folder, sorted by path,
 * and the finiteness check every run over them makes. */
#ifndef MR_CORPUS_H
#define MR_CORPUS_H

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "moreau.h"
#include "mr_test.h"

#define MR_CORPUS_ROBOTS MOREAU_SHARED_DIR "/models/example-robot-data/robots"
#define MR_CORPUS_PACKAGES MOREAU_SHARED_DIR "/models"

/* A corpus path as printed: from below MR_CORPUS_ROBOTS. */
static inline const char *mr_corpus_shown(const char *path) {
  size_t n = strlen(MR_CORPUS_ROBOTS);
  return strncmp(path, MR_CORPUS_ROBOTS, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

typedef struct path_list {
  char **paths;
  int n, cap;
} path_list;

/* Appends every .urdf below dir (recursively) to list. */
static inline void find_urdfs(const char *dir, path_list *list) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    if (ent->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      find_urdfs(path, list);
      continue;
    }
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 5, ".urdf") != 0) continue;
    if (list->n == list->cap) {
      list->cap = list->cap ? 2 * list->cap : 32;
      list->paths = realloc(list->paths, (size_t)list->cap * sizeof *list->paths);
      MR_REQUIRE(list->paths != NULL);
    }
    list->paths[list->n] = malloc(n + 1);
    MR_REQUIRE(list->paths[list->n] != NULL);
    memcpy(list->paths[list->n++], path, n + 1);
  }
  closedir(d);
}

static inline int mr_corpus_by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .urdf below dir, sorted. */
static inline path_list mr_corpus_urdfs(const char *dir) {
  path_list list = {0};
  find_urdfs(dir, &list);
  qsort(list.paths, (size_t)list.n, sizeof *list.paths, mr_corpus_by_name);
  return list;
}

static inline int state_finite(const mr_model *m, const mr_data *d) {
  for (int i = 0; i < m->nq; i++)
    if (!isfinite(d->qpos[i])) return 0;
  for (int i = 0; i < m->nv; i++)
    if (!isfinite(d->qvel[i])) return 0;
  return 1;
}

#endif
