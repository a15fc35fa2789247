/* Reading JOBS (CSV rows or a sweep spec) into a table of jobs; formats in batch_jobs.h.
 *
 * Both formats first become the same thing, a matrix of raw text (one row per job, one
 * column per option name), so that validation, path resolution, output templates and
 * labels are written once. Every string a job points to lives in the table. */
#include "batch_jobs.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/file_read.h"
#include "engine/record/record.h"
#include "engine/record/record_contacts.h"

enum { MAX_COLUMNS = 32, MAX_ARGS = 2 * MAX_COLUMNS + 4 };

typedef enum column_kind {
  COLUMN_NAME,   /* the job's label, not an option */
  COLUMN_MODEL,  /* the positional MODEL, an input path */
  COLUMN_VALUE,  /* --option VALUE */
  COLUMN_INPUT,  /* --option PATH, relative to the JOBS file */
  COLUMN_OUTPUT, /* --option PATH, relative to --out, with {placeholders} */
  COLUMN_FLAG    /* --option when the value is true */
} column_kind;

typedef struct column_spec {
  const char *name;
  const char *option;
  column_kind kind;
} column_spec;

static const column_spec column_table[] = {
    {"name", NULL, COLUMN_NAME},
    {"model", NULL, COLUMN_MODEL},
    {"solver", "--solver", COLUMN_VALUE},
    {"integrator", "--integrator", COLUMN_VALUE},
    {"dt", "--dt", COLUMN_VALUE},
    {"steps", "--steps", COLUMN_VALUE},
    {"duration", "--duration", COLUMN_VALUE},
    {"seed", "--seed", COLUMN_VALUE},
    {"tol", "--tol", COLUMN_VALUE},
    {"max_iter", "--max-iter", COLUMN_VALUE},
    {"restitution", "--restitution", COLUMN_VALUE},
    {"keyframe", "--keyframe", COLUMN_VALUE},
    {"record_every", "--record-every", COLUMN_VALUE},
    {"record", "--record", COLUMN_OUTPUT},
    {"contacts", "--contacts", COLUMN_OUTPUT},
    {"ctrl", "--ctrl", COLUMN_INPUT},
    {"init", "--init", COLUMN_INPUT},
    {"srdf", "--srdf", COLUMN_INPUT},
    {"package_path", "--package-path", COLUMN_INPUT},
    {"no_contact", "--no-contact", COLUMN_FLAG},
    {"no_constraints", "--no-constraints", COLUMN_FLAG},
    {"no_gravity", "--no-gravity", COLUMN_FLAG},
    {"floating", "--floating", COLUMN_FLAG},
    {"floor", "--floor", COLUMN_FLAG},
    {"no_floor", "--no-floor", COLUMN_FLAG},
    {"hold", "--hold", COLUMN_FLAG},
    {"strict", "--strict", COLUMN_FLAG},
    {"self_collision", "--self-collision", COLUMN_VALUE},
};
enum { COLUMN_COUNT = sizeof column_table / sizeof column_table[0] };

/* What the two readers produce before jobs are built. */
typedef struct raw_table {
  int ncolumns;
  const column_spec *spec[MAX_COLUMNS];
  int column_line[MAX_COLUMNS];
} raw_table;

/* ------------------------------------------------------------------ string storage */

static char *table_keep(mr_batch_table *t, char *s) {
  if (!s) return NULL;
  if (t->nstrings == t->capstrings) {
    int cap = t->capstrings ? 2 * t->capstrings : 64;
    char **grown = realloc(t->strings, (size_t)cap * sizeof *grown);
    if (!grown) {
      free(s);
      return NULL;
    }
    t->strings = grown;
    t->capstrings = cap;
  }
  t->strings[t->nstrings++] = s;
  return s;
}

static char *table_dup(mr_batch_table *t, const char *s) { return table_keep(t, strdup(s)); }

static char *table_printf(mr_batch_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *table_printf(mr_batch_table *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return table_keep(t, s);
}

void mr_batch_table_free(mr_batch_table *t) {
  for (int i = 0; i < t->nstrings; i++) free(t->strings[i]);
  free(t->strings);
  free(t->columns);
  free(t->values);
  free(t->jobs);
  memset(t, 0, sizeof *t);
}

static int table_oom(const mr_batch_table *t, char *err, int errlen) {
  return mr_errorf(err, errlen, (mr_source){t->path, 1}, "out of memory");
}

/* A line that could not be read (too long, binary, a read error): its place and why. */
static int read_failed(const mr_batch_table *t, const mr_line_reader *in, const char *why,
                       char *err, int errlen) {
  return mr_errorf(err, errlen, (mr_source){t->path, in->lineno > 0 ? (int)in->lineno : 1}, "%s", why);
}

/* ------------------------------------------------------------------ columns */

/* "--max-iter", "max-iter" and "max_iter" all name the same column. */
static const column_spec *column_find(const char *word) {
  while (*word == '-') word++;
  char name[64];
  size_t n = strlen(word);
  if (n == 0 || n >= sizeof name) return NULL;
  for (size_t i = 0; i <= n; i++) name[i] = word[i] == '-' ? '_' : word[i];
  for (int i = 0; i < COLUMN_COUNT; i++)
    if (strcmp(column_table[i].name, name) == 0) return &column_table[i];
  return NULL;
}

static int raw_add_column(raw_table *raw, const mr_batch_table *t, const char *word, int line,
                          char *err, int errlen) {
  mr_source src = {t->path, line};
  const column_spec *spec = column_find(word);
  if (!spec)
    return mr_errorf(err, errlen, src,
                     "unknown column '%s' (columns are the options of moreau run without "
                     "dashes, e.g. model, solver, dt, steps, seed, record, no_contact)", word);
  for (int c = 0; c < raw->ncolumns; c++)
    if (raw->spec[c] == spec) return mr_errorf(err, errlen, src, "column '%s' given twice", spec->name);
  if (raw->ncolumns == MAX_COLUMNS) return mr_errorf(err, errlen, src, "too many columns");
  raw->column_line[raw->ncolumns] = line;
  raw->spec[raw->ncolumns++] = spec;
  return 0;
}

static int flag_value(const char *v) {
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) return 1;
  if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) return 0;
  return -1;
}

/* One cell checked on its own, so a bad value is reported on the line that holds it. */
static int cell_check(const mr_batch_table *t, const column_spec *spec, const char *value, int line,
                      char *err, int errlen) {
  mr_source src = {t->path, line};
  if (spec->kind == COLUMN_FLAG && flag_value(value) < 0)
    return mr_errorf(err, errlen, src, "bad value '%s' for %s: expected 1/0, true/false or yes/no",
                     value, spec->name);
  if (spec->kind != COLUMN_VALUE) return 0;
  char *argv[2] = {(char *)spec->option, (char *)value};
  mr_cli_options o;
  char msg[512];
  if (mr_cli_parse(2, argv, MR_OPTS_LOAD | MR_OPTS_SIM, &o, msg, (int)sizeof msg))
    return mr_errorf(err, errlen, src, "%s", msg);
  return 0;
}

/* ------------------------------------------------------------------ CSV */

int mr_batch_csv_split(char *line, char **fields, int max) {
  int n = 0;
  char *p = line;
  for (;;) {
    if (n == max) return -1;
    char *out = p;
    fields[n++] = out;
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == 0) return -1;
        if (*p == '"' && p[1] == '"') {
          *out++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *out++ = *p++;
        }
      }
      /* Anything between the closing quote and the comma is kept, as spreadsheets do. */
      while (*p && *p != ',') *out++ = *p++;
    } else {
      while (*p && *p != ',') *out++ = *p++;
    }
    int more = *p == ',';
    *out = 0;
    if (!more) return n;
    p++;
  }
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}

static int is_skipped_line(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return *s == 0 || *s == '#';
}

/* Grows the job matrix by one row; returns the row, or NULL when out of memory. */
static char **table_add_row(mr_batch_table *t, int *cap, int ncolumns, int line, int **lines) {
  if (t->njobs == *cap) {
    int grown = *cap ? 2 * *cap : 32;
    char **values = realloc(t->values, (size_t)grown * (size_t)ncolumns * sizeof *values);
    if (!values) return NULL;
    t->values = values;
    int *l = realloc(*lines, (size_t)grown * sizeof *l);
    if (!l) return NULL;
    *lines = l;
    *cap = grown;
  }
  char **row = t->values + (size_t)t->njobs * (size_t)ncolumns;
  for (int c = 0; c < ncolumns; c++) row[c] = NULL;
  (*lines)[t->njobs++] = line;
  return row;
}

static int csv_read_row(mr_batch_table *t, raw_table *raw, char *text, int line, int *cap,
                        int **lines, char *err, int errlen) {
  mr_source src = {t->path, line};
  char *fields[MAX_COLUMNS + 1];
  int n = mr_batch_csv_split(text, fields, MAX_COLUMNS + 1);
  if (n < 0) return mr_errorf(err, errlen, src, "unterminated quote or too many fields");
  if (raw->ncolumns == 0) {
    for (int c = 0; c < n; c++)
      if (raw_add_column(raw, t, trim(fields[c]), line, err, errlen)) return -1;
    return 0;
  }
  if (n != raw->ncolumns)
    return mr_errorf(err, errlen, src, "%d fields, the header has %d", n, raw->ncolumns);
  if (t->njobs >= MR_BATCH_MAX_JOBS)
    return mr_errorf(err, errlen, src, "more than %d jobs", MR_BATCH_MAX_JOBS);
  char **row = table_add_row(t, cap, raw->ncolumns, line, lines);
  if (!row) return table_oom(t, err, errlen);
  for (int c = 0; c < n; c++) {
    char *v = trim(fields[c]);
    if (*v == 0) continue;
    if (cell_check(t, raw->spec[c], v, line, err, errlen)) return -1;
    if (!(row[c] = table_dup(t, v))) return table_oom(t, err, errlen);
  }
  return 0;
}

static int csv_read(mr_batch_table *t, raw_table *raw, mr_line_reader *in, int **lines, char *err,
                    int errlen) {
  char why[256];
  int cap = 0, status = 0, got;
  while ((got = mr_line_read(in, why, (int)sizeof why)) == 1) {
    char *text = in->line;
    if (is_skipped_line(text)) continue;
    if ((status = csv_read_row(t, raw, text, (int)in->lineno, &cap, lines, err, errlen))) break;
  }
  if (status == 0 && got < 0) status = read_failed(t, in, why, err, errlen);
  if (status == 0 && raw->ncolumns == 0)
    status = mr_errorf(err, errlen, (mr_source){t->path, in->lineno > 0 ? (int)in->lineno : 1},
                       "no header row (%s)", in->lineno > 0 ? "only blank or comment lines" : "the file is empty");
  return status;
}

/* ------------------------------------------------------------------ sweep spec */

typedef struct spec_key {
  char **items; /* owned by the table */
  int nitems, cap;
} spec_key;

/* Cuts a # comment that is outside quotes. */
static void spec_strip_comment(char *s) {
  int quoted = 0;
  for (; *s; s++) {
    if (*s == '"' && (!quoted || s[-1] != '\\')) quoted = !quoted;
    if (*s == '#' && !quoted) {
      *s = 0;
      return;
    }
  }
}

/* A scalar in place: "quoted" (with \" and \\) or a bare word. NULL if malformed, with
 * what is wrong in why (the text is left as it was, to be quoted in the message). */
static char *spec_scalar(char *s, const char **why) {
  s = trim(s);
  *why = "a bare value holds no quote";
  if (*s != '"') return *s && !strchr(s, '"') ? s : NULL;
  const char *p = s + 1;
  while (*p && *p != '"') p += *p == '\\' && (p[1] == '"' || p[1] == '\\') ? 2 : 1;
  if (*p != '"') {
    *why = "unterminated string (no closing \")";
    return NULL;
  }
  if (*trim((char *)p + 1) != 0) {
    *why = "text after the closing quote";
    return NULL;
  }
  char *out = s;
  for (p = s + 1; *p != '"'; p++) {
    if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) p++;
    *out++ = *p;
  }
  *out = 0;
  return s;
}

/* The item list grows by doubling: a range of 100,000 seeds grown one item at a time
 * copied the list 100,000 times (quadratic; the jobs fuzzer's timeout). */
static int spec_push(mr_batch_table *t, spec_key *k, const char *item) {
  if (k->nitems == k->cap) {
    int cap = k->cap ? 2 * k->cap : 16;
    char **items = realloc(k->items, (size_t)cap * sizeof *items);
    if (!items) return -1;
    k->items = items;
    k->cap = cap;
  }
  if (!(k->items[k->nitems] = table_dup(t, item))) return -1;
  k->nitems++;
  return 0;
}

/* "A..B" with whole numbers: 1 and the ends; 0 when the text is no range. */
static int spec_range(const char *s, long *a, long *b) {
  const char *dots = strstr(s, "..");
  if (!dots || dots == s) return 0;
  char *end;
  errno = 0;
  *a = strtol(s, &end, 10);
  if (end != dots || errno) return 0;
  *b = strtol(dots + 2, &end, 10);
  return *end == 0 && !errno && end != dots + 2;
}

static int spec_list(mr_batch_table *t, spec_key *k, char *s, mr_source src, char *err, int errlen) {
  size_t n = strlen(s);
  if (s[n - 1] != ']') return mr_errorf(err, errlen, src, "a list must end with ] on the same line");
  s[n - 1] = 0;
  char *p = s + 1;
  while (*trim(p)) {
    /* The next comma outside quotes ends the item. */
    char *q = p;
    int quoted = 0;
    for (; *q && (quoted || *q != ','); q++)
      if (*q == '"' && (!quoted || q[-1] != '\\')) quoted = !quoted;
    int last = *q == 0;
    *q = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", trim(p));
    const char *why;
    char *item = spec_scalar(p, &why);
    if (!item) return mr_errorf(err, errlen, src, "bad list item '%s': %s", copy, why);
    if (spec_push(t, k, item)) return table_oom(t, err, errlen);
    if (last) break;
    p = q + 1;
  }
  if (k->nitems == 0) return mr_errorf(err, errlen, src, "empty list");
  return 0;
}

static int spec_value(mr_batch_table *t, spec_key *k, char *s, mr_source src, char *err, int errlen) {
  long a, b;
  if (*s == '[') return spec_list(t, k, s, src, err, errlen);
  if (spec_range(s, &a, &b)) {
    if (b < a) return mr_errorf(err, errlen, src, "empty range %ld..%ld", a, b);
    if (b - a >= MR_BATCH_MAX_JOBS)
      return mr_errorf(err, errlen, src, "range %ld..%ld is longer than %d", a, b, MR_BATCH_MAX_JOBS);
    for (long v = a; v <= b; v++) {
      char item[32];
      snprintf(item, sizeof item, "%ld", v);
      if (spec_push(t, k, item)) return table_oom(t, err, errlen);
    }
    return 0;
  }
  char copy[256];
  snprintf(copy, sizeof copy, "%s", s);
  const char *why;
  char *item = spec_scalar(s, &why);
  if (!item) return mr_errorf(err, errlen, src, "bad value '%s': %s", copy, why);
  return spec_push(t, k, item) ? table_oom(t, err, errlen) : 0;
}

static int spec_read_line(mr_batch_table *t, raw_table *raw, spec_key *keys, char *text, int line,
                          char *err, int errlen) {
  mr_source src = {t->path, line};
  spec_strip_comment(text);
  char *s = trim(text);
  if (*s == 0) return 0;
  char *eq = strchr(s, '=');
  if (!eq) return mr_errorf(err, errlen, src, "expected 'key = value'");
  *eq = 0;
  char *name = trim(s), *value = trim(eq + 1);
  if (*name == 0) return mr_errorf(err, errlen, src, "expected 'key = value'");
  if (*value == 0) return mr_errorf(err, errlen, src, "'%s' has no value", name);
  if (raw_add_column(raw, t, name, line, err, errlen)) return -1;
  int c = raw->ncolumns - 1;
  if (spec_value(t, &keys[c], value, src, err, errlen)) return -1;
  for (int i = 0; i < keys[c].nitems; i++)
    if (cell_check(t, raw->spec[c], keys[c].items[i], line, err, errlen)) return -1;
  return 0;
}

/* The cross product, last key fastest. */
static int spec_expand(mr_batch_table *t, const raw_table *raw, const spec_key *keys, int **lines,
                       int last_line, char *err, int errlen) {
  long total = 1;
  for (int c = 0; c < raw->ncolumns; c++) {
    total *= keys[c].nitems;
    if (total > MR_BATCH_MAX_JOBS)
      return mr_errorf(err, errlen, (mr_source){t->path, raw->column_line[c]},
                       "the sweep makes more than %d jobs", MR_BATCH_MAX_JOBS);
  }
  if (raw->ncolumns == 0)
    return mr_errorf(err, errlen, (mr_source){t->path, last_line > 0 ? last_line : 1},
                     "no jobs: no 'key = value' line (%s)",
                     last_line > 0 ? "only blank or comment lines" : "the file is empty");
  int cap = 0;
  for (long j = 0; j < total; j++) {
    char **row = table_add_row(t, &cap, raw->ncolumns, 0, lines);
    if (!row) return table_oom(t, err, errlen);
    long rest = j;
    for (int c = raw->ncolumns - 1; c >= 0; c--) {
      row[c] = keys[c].items[rest % keys[c].nitems];
      rest /= keys[c].nitems;
    }
  }
  return 0;
}

static int spec_read(mr_batch_table *t, raw_table *raw, mr_line_reader *in, int **lines, char *err,
                     int errlen) {
  spec_key keys[MAX_COLUMNS];
  memset(keys, 0, sizeof keys);
  char why[256];
  int status = 0, got = 0;
  while (status == 0 && (got = mr_line_read(in, why, (int)sizeof why)) == 1)
    status = spec_read_line(t, raw, keys, in->line, (int)in->lineno, err, errlen);
  if (status == 0 && got < 0) status = read_failed(t, in, why, err, errlen);
  if (status == 0) status = spec_expand(t, raw, keys, lines, (int)in->lineno, err, errlen);
  for (int c = 0; c < MAX_COLUMNS; c++) free(keys[c].items);
  return status;
}

/* ------------------------------------------------------------------ jobs */

const char *mr_batch_table_value(const mr_batch_table *t, int j, const char *name) {
  const column_spec *spec = column_find(name);
  if (!spec) return NULL;
  for (int c = 0; c < t->ncolumns; c++)
    if (strcmp(t->columns[c], spec->name) == 0) return t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c];
  return NULL;
}

/* base/path unless path is absolute or there is no base. */
static char *path_join(mr_batch_table *t, const char *base, const char *path) {
  if (!base || !*base || path[0] == '/') return table_dup(t, path);
  return table_printf(t, "%s/%s", base, path);
}

/* Each ':'-separated root of a package path resolved on its own. */
static char *path_join_list(mr_batch_table *t, const char *base, const char *list) {
  char *copy = table_dup(t, list), *result = table_dup(t, "");
  if (!copy || !result) return NULL;
  for (char *save = NULL, *root = strtok_r(copy, ":", &save); root; root = strtok_r(NULL, ":", &save)) {
    char *one = path_join(t, base, root);
    if (!one || !(result = table_printf(t, "%s%s%s", result, *result ? ":" : "", one))) return NULL;
  }
  return result;
}

/* {index} and {COLUMN} in an output path; '/' in a substituted value becomes '_' so a
 * value never makes directories. */
static char *output_expand(mr_batch_table *t, int j, const char *text, mr_source src, char *err,
                           int errlen) {
  char *result = table_dup(t, "");
  const char *p = text;
  while (result && *p) {
    const char *open = strchr(p, '{');
    if (!open) {
      result = table_printf(t, "%s%s", result, p);
      break;
    }
    const char *close = strchr(open, '}');
    if (!close) return mr_errorf(err, errlen, src, "unclosed { in '%s'", text), NULL;
    char key[64], value[64];
    snprintf(key, sizeof key, "%.*s", (int)(close - open - 1), open + 1);
    const char *v = strcmp(key, "index") == 0 ? (snprintf(value, sizeof value, "%d", j + 1), value)
                                              : mr_batch_table_value(t, j, key);
    if (!v) return mr_errorf(err, errlen, src, "{%s} in '%s' names no column of this job", key, text), NULL;
    char *piece = table_printf(t, "%s%.*s%s", result, (int)(open - p), p, v);
    if (piece)
      for (char *c = piece + strlen(result) + (size_t)(open - p); *c; c++)
        if (*c == '/') *c = '_';
    result = piece;
    p = close + 1;
  }
  if (!result) table_oom(t, err, errlen);
  return result;
}

typedef struct job_args {
  int argc;
  char *argv[MAX_ARGS];
  char *model;
} job_args;

static int job_arg_value(mr_batch_table *t, int j, const column_spec *spec, const char *v,
                         const char *dir, const char *out_dir, mr_source src, job_args *a,
                         char *err, int errlen) {
  char *word = NULL;
  switch (spec->kind) {
    case COLUMN_NAME: return 0;
    case COLUMN_MODEL: return (a->model = path_join(t, dir, v)) ? 0 : table_oom(t, err, errlen);
    case COLUMN_FLAG:
      if (flag_value(v) == 1) a->argv[a->argc++] = (char *)spec->option;
      return 0;
    case COLUMN_VALUE: word = (char *)v; break;
    case COLUMN_INPUT:
      word = spec == column_find("package_path") ? path_join_list(t, dir, v) : path_join(t, dir, v);
      if (!word) return table_oom(t, err, errlen);
      break;
    case COLUMN_OUTPUT: {
      char *expanded = output_expand(t, j, v, src, err, errlen);
      if (!expanded || !(word = path_join(t, out_dir, expanded))) return -1;
      char msg[512];
      int bad = strcmp(spec->name, "record") == 0 ? mr_recorder_check_path(word, msg, (int)sizeof msg)
                                                 : mr_contact_recorder_check_path(word, msg, (int)sizeof msg);
      if (bad) return mr_errorf(err, errlen, src, "%s", msg);
      break;
    }
  }
  a->argv[a->argc++] = (char *)spec->option;
  a->argv[a->argc++] = word;
  return 0;
}

static int job_build(mr_batch_table *t, const raw_table *raw, int j, int line, const char *dir,
                     const char *out_dir, int quiet, char *err, int errlen) {
  /* a sweep's job comes from every key: errors about it as a whole name the last one */
  mr_source src = {t->path, line ? line : raw->column_line[raw->ncolumns - 1]};
  job_args a;
  memset(&a, 0, sizeof a);
  for (int c = 0; c < t->ncolumns; c++) {
    const char *v = t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c];
    /* A sweep's jobs have no line of their own: a bad value points at its key's line. */
    mr_source at = {t->path, line ? line : raw->column_line[c]};
    if (v && job_arg_value(t, j, column_find(t->columns[c]), v, dir, out_dir, at, &a, err, errlen))
      return -1;
  }
  if (a.model) {
    a.argv[a.argc++] = "--"; /* a model named "-x" stays a model */
    a.argv[a.argc++] = a.model;
  }
  mr_batch_job *job = &t->jobs[j];
  char msg[512];
  if (mr_cli_parse(a.argc, a.argv, MR_OPTS_LOAD | MR_OPTS_SIM, &job->opt, msg, (int)sizeof msg))
    return mr_errorf(err, errlen, src, "job %d: %s", j + 1, msg);
  if (!job->opt.model_path) return mr_errorf(err, errlen, src, "job %d has no model", j + 1);
  job->opt.quiet = quiet;
  job->line = src.line;
  return 0;
}

/* "key=value" for every column whose value is not the same in every job. */
static const char *job_label(mr_batch_table *t, int j, const unsigned char *varies) {
  const char *name = mr_batch_table_value(t, j, "name");
  if (name) return name;
  char *label = table_dup(t, "");
  for (int c = 0; c < t->ncolumns && label; c++) {
    const char *v = t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c];
    if (varies[c] && v) label = table_printf(t, "%s%s%s=%s", label, *label ? " " : "", t->columns[c], v);
  }
  if (label && !*label) {
    const char *model = t->jobs[j].opt.model_path, *slash = strrchr(model, '/');
    label = table_dup(t, slash ? slash + 1 : model);
  }
  return label;
}

static int same_value(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int table_label(mr_batch_table *t, char *err, int errlen) {
  unsigned char varies[MAX_COLUMNS] = {0};
  for (int c = 0; c < t->ncolumns; c++)
    for (int j = 1; j < t->njobs && !varies[c]; j++)
      varies[c] = !same_value(t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c], t->values[(size_t)c]);
  for (int j = 0; j < t->njobs; j++)
    if (!(t->jobs[j].label = job_label(t, j, varies))) return table_oom(t, err, errlen);
  return 0;
}

typedef struct output_ref {
  const char *path;
  int job;
} output_ref;

static int output_compare(const void *a, const void *b) {
  const output_ref *x = a, *y = b;
  int c = strcmp(x->path, y->path);
  return c ? c : x->job - y->job;
}

/* Two jobs writing one file would clobber each other and defeat --resume. */
static int table_check_outputs(mr_batch_table *t, char *err, int errlen) {
  output_ref *refs = malloc(2 * (size_t)t->njobs * sizeof *refs);
  if (!refs) return table_oom(t, err, errlen);
  int n = 0, status = 0;
  for (int j = 0; j < t->njobs; j++) {
    if (t->jobs[j].opt.record) refs[n++] = (output_ref){t->jobs[j].opt.record, j};
    if (t->jobs[j].opt.contacts) refs[n++] = (output_ref){t->jobs[j].opt.contacts, j};
  }
  qsort(refs, (size_t)n, sizeof *refs, output_compare);
  for (int i = 1; i < n && !status; i++)
    if (strcmp(refs[i].path, refs[i - 1].path) == 0)
      status = mr_errorf(err, errlen, (mr_source){t->path, t->jobs[refs[i].job].line},
                         "jobs %d and %d both write '%s': put {index} or a swept key such as "
                         "{seed} in the file name", refs[i - 1].job + 1, refs[i].job + 1, refs[i].path);
  free(refs);
  return status;
}

static int table_build(mr_batch_table *t, const raw_table *raw, const int *lines, const char *out_dir,
                       int quiet, char *err, int errlen) {
  t->ncolumns = raw->ncolumns;
  t->columns = calloc((size_t)raw->ncolumns + 1, sizeof *t->columns);
  t->jobs = calloc((size_t)t->njobs + 1, sizeof *t->jobs);
  if (!t->columns || !t->jobs) return table_oom(t, err, errlen);
  for (int c = 0; c < raw->ncolumns; c++) t->columns[c] = (char *)raw->spec[c]->name;
  if (t->njobs == 0)
    return mr_errorf(err, errlen, (mr_source){t->path, raw->column_line[0] > 0 ? raw->column_line[0] : 1},
                     "no jobs: the header has no rows below it");
  const char *slash = strrchr(t->path, '/');
  char *dir = slash ? table_printf(t, "%.*s", (int)(slash - t->path + 1), t->path) : NULL;
  if (slash && !dir) return table_oom(t, err, errlen);
  if (dir) dir[strlen(dir) - 1] = 0; /* "/jobs.toml" leaves "" and path_join keeps "/" */
  if (dir && !*dir) dir = (char *)"/";
  for (int j = 0; j < t->njobs; j++)
    if (job_build(t, raw, j, lines[j], dir, out_dir, quiet, err, errlen)) return -1;
  if (table_check_outputs(t, err, errlen)) return -1;
  return table_label(t, err, errlen);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int mr_batch_table_load(mr_batch_table *t, const char *path, const char *out_dir, int quiet,
                        char *err, int errlen) {
  memset(t, 0, sizeof *t);
  if (!(t->path = table_dup(t, path))) return table_oom(t, err, errlen);
  mr_line_reader in;
  char why[256];
  if (mr_line_reader_open(&in, path, 0, why, (int)sizeof why)) {
    mr_errorf(err, errlen, (mr_source){path, 1}, "%s", why);
    mr_batch_table_free(t);
    return -1;
  }
  raw_table raw;
  memset(&raw, 0, sizeof raw);
  int *lines = NULL;
  int status = ends_with(path, ".csv") ? csv_read(t, &raw, &in, &lines, err, errlen)
                                       : spec_read(t, &raw, &in, &lines, err, errlen);
  mr_line_reader_close(&in);
  if (status == 0) status = table_build(t, &raw, lines, out_dir, quiet, err, errlen);
  free(lines);
  if (status) mr_batch_table_free(t);
  return status;
}

/* ------------------------------------------------------------------ jobs as data */

static int raw_column_of(const raw_table *raw, const column_spec *spec) {
  for (int c = 0; c < raw->ncolumns; c++)
    if (raw->spec[c] == spec) return c;
  return -1;
}

/* Job j's cells into its row of the matrix. */
static int cells_read_row(mr_batch_table *t, const raw_table *raw, char **row, int j,
                          const mr_batch_cell *cells, int ncells, char *err, int errlen) {
  for (int k = 0; k < ncells; k++) {
    int c = raw_column_of(raw, column_find(cells[k].name));
    if (row[c])
      return mr_errorf(err, errlen, (mr_source){t->path, j + 1}, "column '%s' given twice",
                       raw->spec[c]->name);
    if (cell_check(t, raw->spec[c], cells[k].value, j + 1, err, errlen)) return -1;
    if (!(row[c] = table_dup(t, cells[k].value))) return table_oom(t, err, errlen);
  }
  return 0;
}

int mr_batch_table_from_cells(mr_batch_table *t, const char *source, int njobs,
                              const mr_batch_cell *const *cells, const int *ncells,
                              const char *out_dir, int quiet, char *err, int errlen) {
  memset(t, 0, sizeof *t);
  if (!(t->path = table_dup(t, source))) return table_oom(t, err, errlen);
  raw_table raw;
  memset(&raw, 0, sizeof raw);
  int *lines = NULL, cap = 0, status = 0;
  if (njobs > MR_BATCH_MAX_JOBS)
    status = mr_errorf(err, errlen, (mr_source){source, 0}, "more than %d jobs", MR_BATCH_MAX_JOBS);
  for (int j = 0; j < njobs && !status; j++)
    for (int k = 0; k < ncells[j] && !status; k++) {
      const column_spec *spec = column_find(cells[j][k].name);
      if (!spec || raw_column_of(&raw, spec) < 0)
        status = raw_add_column(&raw, t, cells[j][k].name, j + 1, err, errlen);
    }
  if (status == 0 && njobs > 0 && raw.ncolumns == 0)
    status = mr_errorf(err, errlen, (mr_source){source, 1}, "job 1 has no model");
  for (int j = 0; j < njobs && !status; j++) {
    char **row = table_add_row(t, &cap, raw.ncolumns, j + 1, &lines);
    status = row ? cells_read_row(t, &raw, row, j, cells[j], ncells[j], err, errlen)
                 : table_oom(t, err, errlen);
  }
  if (status == 0) status = table_build(t, &raw, lines, out_dir, quiet, err, errlen);
  free(lines);
  if (status) mr_batch_table_free(t);
  return status;
}
