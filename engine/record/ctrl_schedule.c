/* Control schedules from CSV (ctrl_schedule.h). */
#include "ctrl_schedule.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ctrl_reader {
  const char *path;
  FILE *file;
  char *line;
  size_t cap;
  long lineno;
  int time_col;  /* index of the time column among all columns */
  int ncols;     /* columns in the header */
  int *col_slot; /* ncols: the schedule column of each file column, -1 for time */
  long rows_cap;
} ctrl_reader;

/* Strips the line end (LF or CRLF). */
static int ctrl_read_line(ctrl_reader *r) {
  ssize_t n = getline(&r->line, &r->cap, r->file);
  if (n < 0) return -1;
  r->lineno++;
  while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r')) r->line[--n] = 0;
  return 0;
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

/* Maps each header field to the time column or an actuator. */
static int ctrl_parse_header(ctrl_reader *r, mr_ctrl_schedule *s, const mr_model *m, char *err,
                             int errlen) {
  if (ctrl_read_line(r)) {
    snprintf(err, (size_t)errlen, "%s:1: empty file (expected a header: time and actuator names)",
             r->path);
    return -1;
  }
  r->ncols = ctrl_count_fields(r->line);
  r->col_slot = malloc(sizeof *r->col_slot * (size_t)r->ncols);
  s->actuator = malloc(sizeof *s->actuator * (size_t)r->ncols);
  if (!r->col_slot || !s->actuator) {
    snprintf(err, (size_t)errlen, "%s: out of memory", r->path);
    return -1;
  }
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
    for (int k = 0; k < s->ncol; k++)
      if (s->actuator[k] == id) {
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
  long cap = r->rows_cap ? 2 * r->rows_cap : 64;
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
    if (ctrl_grow(r, s)) {
      snprintf(err, (size_t)errlen, "%s: out of memory", r->path);
      return -1;
    }
    if (ctrl_parse_row(r, s, err, errlen)) return -1;
  }
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
  r.file = fopen(path, "r");
  if (!r.file) {
    snprintf(err, (size_t)errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  int rc = ctrl_parse_header(&r, s, m, err, errlen);
  if (rc == 0) rc = ctrl_parse_rows(&r, s, err, errlen);
  fclose(r.file);
  free(r.line);
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
