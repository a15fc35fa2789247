/* bench_fidelity's smoke test: runs `bench_fidelity --quick --scene slide_x --out FILE` and
 * checks the markdown it writes: the title and the summary are there, every table row has
 * as many cells as its header, every registered solver (from the registry, not from the
 * program's output) has a row in the summary and in every table with a verdict in it, no
 * cell is nan; bad arguments and an unwritable output exit non-zero and leave no file.
 * The program is bench/bench_fidelity (MOREAU_BENCH_FIDELITY, set by tests/CMakeLists.txt);
 * its output goes to the build folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "moreau.h"
#include "mr_test.h"

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
    MR_CHECK_MSG(sep_end && !strncmp(sep, "|---|", 5) && count_bars(sep, (size_t)(sep_end - sep)) == bars,
          "table %d: the separator does not match the header", tables + 1);
    const char *end = strstr(line, "\n\n");
    if (!end) end = text + strlen(text);
    int rows = 0;
    for (const char *r = sep_end ? sep_end + 1 : end; r < end;) {
      const char *r_end = strchr(r, '\n');
      if (!r_end || r_end > end) r_end = end;
      MR_CHECK_MSG(r[0] == '|' && count_bars(r, (size_t)(r_end - r)) == bars,
            "table %d row %d: %d cells where the header has %d", tables + 1, rows + 1,
            count_bars(r, (size_t)(r_end - r)) - 1, bars - 1);
      rows++;
      r = r_end + 1;
    }
    int summary = strstr(line, "| solver | agree |") == line;
    for (int s = 0; s < mr_solver_count(); s++)
      MR_CHECK_MSG(has_row(p, end, mr_solver_name(s), !summary), "table %d: no row with a verdict for %s",
            tables + 1, mr_solver_name(s));
    tables++;
  }
  return tables;
}

int main(void) {
  const char *bin = MOREAU_BENCH_FIDELITY, *out = "fidelity_quick.md";
  char args[8192], bad_out[4200];
  remove(out);
  snprintf(args, sizeof args, "--quick --scene slide_x --out '%s'", out);
  MR_CHECK_MSG(run(bin, args) == 0, "bench_fidelity %s failed", args);
  char *text = mr_test_read_file(out);
  MR_CHECK_MSG(text != NULL, "%s was not written", out);
  if (text) {
    MR_CHECK_MSG(!strncmp(text, "# Fidelity", 10), "no title");
    MR_CHECK_MSG(strstr(text, "\n## Summary\n") != NULL, "no summary");
    MR_CHECK_MSG(strstr(text, "\n## Sliding box along x\n") != NULL, "no slide_x section");
    MR_CHECK_MSG(!strstr(text, "| nan") && !strstr(text, "/ nan") && !strstr(text, "| inf") &&
              !strstr(text, "/ inf"),
          "a cell is not finite");
    MR_CHECK_MSG(check_tables(text) == 2, "expected the summary and one scene table");
    free(text);
  }
  /* failure paths: nothing posing as a result */
  snprintf(args, sizeof args, "--quick --scene no_such_scene --out '%s.bad'", out);
  snprintf(bad_out, sizeof bad_out, "%s.bad", out);
  MR_CHECK_MSG(run(bin, args) == 2, "an unknown scene must exit 2");
  MR_CHECK_MSG(!exists(bad_out), "an unknown scene wrote %s", bad_out);
  snprintf(bad_out, sizeof bad_out, "%s.missing-dir/f.md", out);
  snprintf(args, sizeof args, "--quick --scene slide_x --out '%s'", bad_out);
  MR_CHECK_MSG(run(bin, args) == 1, "an unwritable output must exit 1");
  MR_CHECK_MSG(!exists(bad_out), "%s exists", bad_out);
  remove(out);
  MR_TEST_END();
}
