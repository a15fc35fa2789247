/* ctest bench_fidelity_quick: runs `bench_fidelity --quick --scene slide_x --out FILE` and
 * checks the markdown it writes: the title and the summary are there, every table row has
 * as many cells as its header, every registered solver (from the registry, not from the
 * program's output) has a row in the summary and in every table with a verdict in it, no
 * cell is nan; bad arguments and an unwritable output exit non-zero and leave no file.
 *
 *   check_fidelity BENCH_FIDELITY OUT.md */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "moreau.h"

/* Its own checks and file reader: tests/mr_test.h is a consumer's header that bench/ may
 * not include (scripts/check-layout.py). */
static int failures = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      failures++;                                                     \
      fprintf(stderr, "check_fidelity: %s: ", #cond);                 \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
    }                                                                 \
  } while (0)

static char *read_file(const char *path) {
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

static int run(const char *bin, const char *args) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s >/dev/null 2>&1", bin, args);
  int raw = system(cmd);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static int count_bars(const char *line, size_t n) {
  int bars = 0;
  for (size_t i = 0; i < n; i++) bars += line[i] == '|';
  return bars;
}

/* Does the table block [start, end) have a row "| name | ..." with a verdict in it? */
static int has_row(const char *start, const char *end, const char *name, int need_verdict) {
  char key[64];
  snprintf(key, sizeof key, "\n| %s |", name);
  for (const char *p = strstr(start, key); p && p < end; p = strstr(p + 1, key)) {
    const char *eol = strchr(p + 1, '\n');
    if (!eol || eol > end) eol = end;
    if (!need_verdict) return 1;
    for (const char *q = p; q + 3 <= eol; q++)
      if (!strncmp(q, "✓", 3) || !strncmp(q, "✗", 3)) return 1;
  }
  return 0;
}

/* Every table: header, separator, rows with the header's cell count, every solver in it. */
static int check_tables(const char *text) {
  int tables = 0;
  for (const char *p = strstr(text, "\n| solver |"); p; p = strstr(p + 1, "\n| solver |")) {
    const char *line = p + 1, *eol = strchr(line, '\n');
    if (!eol) break;
    int bars = count_bars(line, (size_t)(eol - line));
    const char *sep = eol + 1, *sep_end = strchr(sep, '\n');
    CHECK(sep_end && !strncmp(sep, "|---|", 5) && count_bars(sep, (size_t)(sep_end - sep)) == bars,
          "table %d: the separator does not match the header", tables + 1);
    const char *end = strstr(line, "\n\n");
    if (!end) end = text + strlen(text);
    int rows = 0;
    for (const char *r = sep_end ? sep_end + 1 : end; r < end;) {
      const char *r_end = strchr(r, '\n');
      if (!r_end || r_end > end) r_end = end;
      CHECK(r[0] == '|' && count_bars(r, (size_t)(r_end - r)) == bars,
            "table %d row %d: %d cells where the header has %d", tables + 1, rows + 1,
            count_bars(r, (size_t)(r_end - r)) - 1, bars - 1);
      rows++;
      r = r_end + 1;
    }
    int summary = strstr(line, "| solver | agree |") == line;
    for (int s = 0; s < mr_solver_count(); s++)
      CHECK(has_row(p, end, mr_solver_name(s), !summary), "table %d: no row with a verdict for %s",
            tables + 1, mr_solver_name(s));
    tables++;
  }
  return tables;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: check_fidelity BENCH_FIDELITY OUT.md\n");
    return 2;
  }
  const char *bin = argv[1], *out = argv[2];
  char args[8192], bad_out[4200];
  remove(out);
  snprintf(args, sizeof args, "--quick --scene slide_x --out '%s'", out);
  CHECK(run(bin, args) == 0, "bench_fidelity %s failed", args);
  char *text = read_file(out);
  CHECK(text != NULL, "%s was not written", out);
  if (text) {
    CHECK(!strncmp(text, "# Fidelity", 10), "no title");
    CHECK(strstr(text, "\n## Summary\n") != NULL, "no summary");
    CHECK(strstr(text, "\n## Sliding box along x\n") != NULL, "no slide_x section");
    CHECK(!strstr(text, "| nan") && !strstr(text, "/ nan") && !strstr(text, "| inf") &&
              !strstr(text, "/ inf"),
          "a cell is not finite");
    CHECK(check_tables(text) == 2, "expected the summary and one scene table");
    free(text);
  }
  /* failure paths: nothing posing as a result */
  snprintf(args, sizeof args, "--quick --scene no_such_scene --out '%s.bad'", out);
  snprintf(bad_out, sizeof bad_out, "%s.bad", out);
  CHECK(run(bin, args) == 2, "an unknown scene must exit 2");
  CHECK(!exists(bad_out), "an unknown scene wrote %s", bad_out);
  snprintf(bad_out, sizeof bad_out, "%s.missing-dir/f.md", out);
  snprintf(args, sizeof args, "--quick --scene slide_x --out '%s'", bad_out);
  CHECK(run(bin, args) == 1, "an unwritable output must exit 1");
  CHECK(!exists(bad_out), "%s exists", bad_out);
  printf("check_fidelity: %d failed\n", failures);
  return failures ? 1 : 0;
}
