/* Replays inputs through a harness without libFuzzer: every file named on the command line,
 * and every file in every directory named, in name order. This is how the seed corpus and
 * the reproducers under tests/fuzz/regressions/ run as ordinary ctest tests (and under
 * ASan+UBSan in the sanitizer suite). No input at all is a failure: a missing corpus is
 * not a pass. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 4096;
      uint8_t *grown = realloc(buf, cap);
      if (!grown) abort();
      buf = grown;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    if (k == 0) break;
    n += k;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  int n = 0, done = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    names = realloc(names, sizeof *names * (size_t)(n + 1));
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, by_name);
  for (int i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) done += replay_file(path);
    free(names[i]);
  }
  free(names);
  return done;
}

int main(int argc, char **argv) {
  int done = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "fuzz_replay: %s: not found\n", argv[i]);
      return 1;
    }
    done += S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
  }
  printf("%d inputs replayed\n", done);
  return done > 0 ? 0 : 1;
}
