/* A tiny assertion set for plain-C tests: each failed check prints where and why, the
 * test goes on, and main returns the failure count through MR_TEST_END. */
#ifndef MR_TEST_H
#define MR_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as a NUL-terminated string (free it), or NULL if it cannot be read. */
static inline char *mr_test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  size_t got = text ? fread(text, 1, (size_t)n, f) : 0;
  if (text) text[got] = 0;
  fclose(f);
  return text;
}

static int mr_test_failures = 0;
static int mr_test_checks = 0;

#define MR_CHECK(cond)                                                        \
  do {                                                                        \
    mr_test_checks++;                                                         \
    if (!(cond)) {                                                            \
      mr_test_failures++;                                                     \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                         \
  } while (0)

#define MR_CHECK_MSG(cond, ...)                                      \
  do {                                                               \
    mr_test_checks++;                                                \
    if (!(cond)) {                                                   \
      mr_test_failures++;                                            \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                  \
      fputc('\n', stderr);                                           \
    }                                                                \
  } while (0)

/* |a - b| <= tol */
#define MR_CHECK_NEAR(a, b, tol)                                                          \
  do {                                                                                    \
    double mr_a_ = (a), mr_b_ = (b);                                                      \
    mr_test_checks++;                                                                     \
    if (!(fabs(mr_a_ - mr_b_) <= (tol))) {                                                \
      mr_test_failures++;                                                                 \
      fprintf(stderr, "%s:%d: %s = %.17g, %s = %.17g, differ by %.3g > %.3g\n", __FILE__, \
              __LINE__, #a, mr_a_, #b, mr_b_, fabs(mr_a_ - mr_b_), (double)(tol));        \
    }                                                                                     \
  } while (0)

/* Stops the test at once: for preconditions without which the rest is meaningless. */
#define MR_REQUIRE(cond)                                                         \
  do {                                                                           \
    mr_test_checks++;                                                            \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: required check failed: %s\n", __FILE__, __LINE__, #cond); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

/* MR_REQUIRE with a printf-style explanation (say which file is missing, and why). */
#define MR_REQUIRE_MSG(cond, ...)                                                          \
  do {                                                                                     \
    mr_test_checks++;                                                                      \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "%s:%d: required check failed: %s: ", __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                                        \
      fputc('\n', stderr);                                                                 \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

#define MR_TEST_END()                                                                  \
  do {                                                                                 \
    if (mr_test_checks == 0) {                                                         \
      fprintf(stderr, "no checks ran\n");                                              \
      return 1;                                                                        \
    }                                                                                  \
    printf("%d checks, %d failed\n", mr_test_checks, mr_test_failures);                \
    return mr_test_failures ? 1 : 0;                                                   \
  } while (0)

/* Writes text to path; stops the test if it cannot (a fixture the rest depends on). */
static inline void mr_test_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  MR_REQUIRE(f != NULL);
  fputs(text, f);
  fclose(f);
}

/* A fresh folder for the test's files, $TMPDIR (else /tmp)/moreau_<name>_XXXXXX, into
 * dir; stops the test if it cannot be made. */
static inline void mr_test_tmpdir(char *dir, size_t n, const char *name) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, n, "%s/moreau_%s_XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  MR_REQUIRE(mkdtemp(dir) != NULL);
}

/* The folder and everything in it removed: 0, or -1 after a line on stderr. */
static inline int mr_test_rmdir(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) == 0) return 0;
  fprintf(stderr, "could not remove %s\n", dir);
  return -1;
}

/* 1 if both files can be read and hold the same text. */
static inline int mr_test_files_equal(const char *a, const char *b) {
  char *x = mr_test_read_file(a), *y = mr_test_read_file(b);
  int same = x && y && strcmp(x, y) == 0;
  free(x);
  free(y);
  return same;
}

#endif
