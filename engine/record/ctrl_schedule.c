/* Control schedules from CSV (ctrl_schedule.h). */
#include "ctrl_schedule.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/file_read.h"

/* Numbers a schedule may hold (rows x columns): 256 MiB of doubles. */
#define MR_CTRL_MAX_VALUES (32L * 1024 * 1024)

typedef struct ctrl_reader {
  const char *path;
  mr_line_reader in; /* regular files only, lines of bounded length */
  char *line;        /* in.line */
  long lineno;
  char why[256];
  int failed;    /* a line could not be read: why says why */
  int time_col;  /* index of the time column among all columns */
  int ncols;     /* columns in the header */
  int *col_slot; /* ncols: the schedule column of each file column, -1 for time */
  long rows_cap;
} ctrl_reader;

/* 0 with a line (its end stripped), -1 at the end of the file or on a failure. */
static int ctrl_read_line(ctrl_reader *r) {
  int rc = mr_line_read(&r->in, r->why, (int)sizeof r->why);
  r->line = r->in.line;
  r->lineno = r->in.lineno;
  if (rc < 0) r->failed = 1;
  return rc == 1 ? 0 : -1;
}

static int ctrl_read_failed(const ctrl_reader *r, char *err, int errlen) {
  snprintf(err, (size_t)errlen, "%s:%ld: %s", r->path, r->lineno > 0 ? r->lineno : 1, r->why);
  return -1;
}

/* Trims spaces around a field in place. */
static char *ctrl_trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
  return s;
}

static int ctrl_count_fields(const char *s) {
  int n = 1;
  for (; *s; s++) n += *s == ',';
  return n;
}

static int ctrl_map_columns(ctrl_reader *r, mr_ctrl_schedule *s, const mr_model *m,
                            int *column_of, char *err, int errlen);

/* Reads the header and maps each field to the time column or an actuator. */
static int ctrl_parse_header(ctrl_reader *r, mr_ctrl_schedule *s, const mr_model *m, char *err,
                             int errlen) {
  if (ctrl_read_line(r)) {
    if (r->failed) return ctrl_read_failed(r, err, errlen);
    snprintf(err, (size_t)errlen, "%s:1: empty file (expected a header: time and actuator names)",
             r->path);
    return -1;
  }
  r->ncols = ctrl_count_fields(r->line);
  r->col_slot = malloc(sizeof *r->col_slot * (size_t)r->ncols);
  s->actuator = malloc(sizeof *s->actuator * (size_t)r->ncols);
  /* which actuators have a column already: a repeat is found in O(1) */
  int *column_of = calloc((size_t)m->nu + 1, sizeof *column_of);
  if (!r->col_slot || !s->actuator || !column_of) {
    free(column_of);
    snprintf(err, (size_t)errlen, "%s:1: out of memory", r->path);
    return -1;
  }
  int rc = ctrl_map_columns(r, s, m, column_of, err, errlen);
  free(column_of);
  return rc;
}

static int ctrl_map_columns(ctrl_reader *r, mr_ctrl_schedule *s, const mr_model *m,
                            int *column_of, char *err, int errlen) {
  r->time_col = -1;
  char *save = NULL;
  char *field = strtok_r(r->line, ",", &save);
  for (int i = 0; i < r->ncols; i++, field = strtok_r(NULL, ",", &save)) {
    char *name = field ? ctrl_trim(field) : "";
    if (strcmp(name, "time") == 0 && r->time_col < 0) {
      r->time_col = i;
      r->col_slot[i] = -1;
      continue;
    }
    int id = name[0] ? mr_name2id(m, MR_OBJ_ACTUATOR, name) : -1;
    if (id < 0) {
      snprintf(err, (size_t)errlen, "%s:%ld: column %d: no actuator named '%s' in the model",
               r->path, r->lineno, i + 1, name);
      return -1;
    }
    if (column_of[id]++) {
      snprintf(err, (size_t)errlen, "%s:%ld: actuator '%s' has two columns", r->path, r->lineno, name);
      return -1;
    }
    r->col_slot[i] = s->ncol;
    s->actuator[s->ncol++] = id;
  }
  if (r->time_col < 0) {
    snprintf(err, (size_t)errlen, "%s:%ld: no 'time' column in the header", r->path, r->lineno);
    return -1;
  }
  return 0;
}

static int ctrl_grow(ctrl_reader *r, mr_ctrl_schedule *s) {
  if (s->nrows < r->rows_cap) return 0;
  long limit = MR_CTRL_MAX_VALUES / (s->ncol + 1);
  if (s->nrows >= limit) return -2;
  long cap = r->rows_cap ? 2 * r->rows_cap : 64;
  if (cap > limit) cap = limit;
  double *time = realloc(s->time, sizeof *time * (size_t)cap);
  if (!time) return -1;
  s->time = time;
  double *value = realloc(s->value, sizeof *value * (size_t)cap * (size_t)(s->ncol ? s->ncol : 1));
  if (!value) return -1;
  s->value = value;
  r->rows_cap = cap;
  return 0;
}

static int ctrl_parse_number(const char *text, double *x) {
  char *end;
  errno = 0;
  *x = strtod(text, &end);
  if (strpbrk(text, "xX")) return -1; /* strtod's hexadecimal floats */
  return errno || end == text || *end || !isfinite(*x) ? -1 : 0;
}

/* One data row into row s->nrows. */
static int ctrl_parse_row(ctrl_reader *r, mr_ctrl_schedule *s, char *err, int errlen) {
  int n = ctrl_count_fields(r->line);
  if (n != r->ncols) {
    snprintf(err, (size_t)errlen, "%s:%ld: %d fields, the header has %d", r->path, r->lineno, n,
             r->ncols);
    return -1;
  }
  double *row = s->value + s->nrows * s->ncol;
  char *save = NULL;
  char *field = strtok_r(r->line, ",", &save);
  for (int i = 0; i < r->ncols; i++, field = strtok_r(NULL, ",", &save)) {
    double x;
    if (!field || ctrl_parse_number(ctrl_trim(field), &x)) {
      snprintf(err, (size_t)errlen, "%s:%ld: field %d is not a finite number", r->path, r->lineno, i + 1);
      return -1;
    }
    if (r->col_slot[i] >= 0) row[r->col_slot[i]] = x;
    else s->time[s->nrows] = x;
  }
  if (s->nrows > 0 && s->time[s->nrows] < s->time[s->nrows - 1]) {
    snprintf(err, (size_t)errlen, "%s:%ld: time %.17g comes before the previous row's %.17g",
             r->path, r->lineno, s->time[s->nrows], s->time[s->nrows - 1]);
    return -1;
  }
  s->nrows++;
  return 0;
}

static int ctrl_parse_rows(ctrl_reader *r, mr_ctrl_schedule *s, char *err, int errlen) {
  while (ctrl_read_line(r) == 0) {
    if (ctrl_trim(r->line)[0] == 0) continue; /* blank lines, e.g. at the end */
    int grown = ctrl_grow(r, s);
    if (grown == -2) {
      snprintf(err, (size_t)errlen, "%s:%ld: more than %ld control values (the limit)", r->path,
               r->lineno, MR_CTRL_MAX_VALUES);
      return -1;
    }
    if (grown) {
      snprintf(err, (size_t)errlen, "%s:%ld: out of memory", r->path, r->lineno);
      return -1;
    }
    if (ctrl_parse_row(r, s, err, errlen)) return -1;
  }
  if (r->failed) return ctrl_read_failed(r, err, errlen);
  if (s->nrows == 0) {
    snprintf(err, (size_t)errlen, "%s:%ld: no rows of controls after the header", r->path,
             r->lineno + 1);
    return -1;
  }
  return 0;
}

int mr_ctrl_schedule_load(mr_ctrl_schedule *s, const char *path, const mr_model *m, char *err,
                          int errlen) {
  memset(s, 0, sizeof *s);
  ctrl_reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  if (mr_line_reader_open(&r.in, path, 0, r.why, (int)sizeof r.why)) {
    snprintf(err, (size_t)errlen, "%s:1: %s", path, r.why);
    return -1;
  }
  int rc = ctrl_parse_header(&r, s, m, err, errlen);
  if (rc == 0) rc = ctrl_parse_rows(&r, s, err, errlen);
  mr_line_reader_close(&r.in);
  free(r.col_slot);
  if (rc) mr_ctrl_schedule_free(s);
  return rc;
}

/* The last row with time <= t (or 0), starting from the cursor: runs ask in time order. */
static long ctrl_find_row(mr_ctrl_schedule *s, double t) {
  long i = s->cursor;
  if (i >= s->nrows) i = s->nrows - 1;
  while (i > 0 && s->time[i] > t) i--;
  while (i + 1 < s->nrows && s->time[i + 1] <= t) i++;
  s->cursor = i;
  return i;
}

void mr_ctrl_schedule_apply(mr_ctrl_schedule *s, double time, double *ctrl) {
  if (s->nrows == 0) return;
  long i = ctrl_find_row(s, time);
  const double *a = s->value + i * s->ncol;
  /* held before the first row and after the last */
  if (time <= s->time[i] || i + 1 == s->nrows) {
    for (int k = 0; k < s->ncol; k++) ctrl[s->actuator[k]] = a[k];
    return;
  }
  const double *b = a + s->ncol;
  double w = (time - s->time[i]) / (s->time[i + 1] - s->time[i]); /* time[i+1] > time >= time[i] */
  for (int k = 0; k < s->ncol; k++) ctrl[s->actuator[k]] = a[k] + w * (b[k] - a[k]);
}

void mr_ctrl_schedule_free(mr_ctrl_schedule *s) {
  free(s->actuator);
  free(s->time);
  free(s->value);
  memset(s, 0, sizeof *s);
}
