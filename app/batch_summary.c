/* summary.csv and summary.json of a batch, and reading summary.csv back for --resume.
 *
 * One table of result fields drives the CSV header, the CSV rows, the JSON members and
 * the reader, so the three can never disagree on a name. Numbers are printed with %.17g:
 * a resumed row reads back exactly what the run measured. */
#include "batch_summary.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/core/error.h"
#include "engine/core/file_read.h"
#include "engine/record/checked_write.h"
#include "json.h"

typedef enum field_type { FIELD_TEXT, FIELD_LONG, FIELD_DOUBLE } field_type;

typedef struct result_field {
  const char *name;
  field_type type;
  size_t offset, size;
} result_field;

#define TEXT(name, member) {name, FIELD_TEXT, offsetof(mr_batch_result, member), sizeof(((mr_batch_result *)0)->member)}
#define LONG_AS(name, member) {name, FIELD_LONG, offsetof(mr_batch_result, member), sizeof(long)}
#define DOUBLE_AS(name, member) {name, FIELD_DOUBLE, offsetof(mr_batch_result, member), sizeof(double)}
#define LONG(member) LONG_AS(#member, member)
#define DOUBLE(member) DOUBLE_AS(#member, member)

/* Result columns never share a name with a job option (a job may set dt or steps), so the
   ones that echo an option carry a used_ or _done name. */

static const result_field result_fields[] = {
    TEXT("used_solver", solver), TEXT("used_integrator", integrator), DOUBLE_AS("used_dt", dt),
    LONG_AS("steps_done", steps), LONG(steps_requested), DOUBLE(sim_time), DOUBLE(wall_s), DOUBLE(steps_per_s),
    DOUBLE(mean_iters), DOUBLE(max_iters), DOUBLE(max_residual), DOUBLE(max_primal),
    DOUBLE(max_dual), DOUBLE(max_complementarity), DOUBLE(max_penetration),
    DOUBLE(energy_start), DOUBLE(energy_end), DOUBLE(energy_drift), LONG(rows),
    LONG(steps_not_converged), LONG(steps_solver_failed), DOUBLE(max_natural_map),
};
enum { FIELD_COUNT = sizeof result_fields / sizeof result_fields[0] };

static const char *status_names[] = {"not_run", "ok", "diverged", "error", "interrupted", "unstable"};

const char *mr_job_status_name(int status) {
  return status >= 0 && status <= MR_JOB_UNSTABLE ? status_names[status] : "error";
}

/* A row that never ran has no measured values (empty in the CSV, null in the JSON). */
static int result_has_values(const mr_batch_result *r) { return r->ran || r->resumed; }

int mr_batch_result_field_count(void) { return FIELD_COUNT; }

mr_result_value mr_batch_result_field(int k, const mr_batch_result *r) {
  const result_field *fd = &result_fields[k];
  const char *base = (const char *)r + fd->offset;
  mr_result_value v = {fd->name, MR_RESULT_TEXT, NULL, 0, 0};
  if (!result_has_values(r)) v.type = MR_RESULT_NONE;
  else if (fd->type == FIELD_TEXT) v.text = base;
  else if (fd->type == FIELD_LONG) v.type = MR_RESULT_LONG, v.integer = *(const long *)(const void *)base;
  else v.type = MR_RESULT_DOUBLE, v.number = *(const double *)(const void *)base;
  return v;
}

static const char *option_value(const mr_batch_table *t, int j, int c) {
  return t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c];
}

/* A jobs file's own name column is the summary's name column, not a second one. */
static int is_name_column(const mr_batch_table *t, int c) { return strcmp(t->columns[c], "name") == 0; }

/* ------------------------------------------------------------------ CSV */

/* Quoted only when it must be, so the common row stays readable. */
static void csv_field(FILE *f, const char *s, int first) {
  if (!first) fputc(',', f);
  if (!s) return;
  if (!strpbrk(s, ",\"\n\r") && s[0] != ' ') {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static void field_text(const result_field *fd, const mr_batch_result *r, char *buf, size_t n) {
  const char *base = (const char *)r + fd->offset;
  if (fd->type == FIELD_TEXT) snprintf(buf, n, "%s", base);
  else if (fd->type == FIELD_LONG) snprintf(buf, n, "%ld", *(const long *)(const void *)base);
  else snprintf(buf, n, "%.17g", *(const double *)(const void *)base);
}

/* ------------------------------------------------------------------ sensor columns */

static int sensor_list_count(const mr_batch_table *t) {
  if (!t->summary_sensors) return 0;
  int n = 1;
  for (const char *p = t->summary_sensors; *p; p++) n += *p == ',';
  return n < MR_SUMMARY_SENSORS ? n : MR_SUMMARY_SENSORS;
}

/* Numbers of sensor k: the widest any job reported (1 before any did). */
static int sensor_width(const mr_batch_table *t, const mr_batch_result *r, int k) {
  int w = 0;
  for (int j = 0; j < t->njobs; j++)
    if (r[j].sensors.count > k && r[j].sensors.dim[k] > w) w = r[j].sensors.dim[k];
  return w > 0 ? w : 1;
}

static void sensor_column_name(const mr_batch_table *t, int k, int i, int width, int max,
                               char *buf, size_t n) {
  char name[256];
  mr_sensor_summary_name(t->summary_sensors, k, name, sizeof name);
  if (width > 1) snprintf(buf, n, "sensor_%s_%d_%s", name, i, max ? "max" : "final");
  else snprintf(buf, n, "sensor_%s_%s", name, max ? "max" : "final");
}

/* Value i of sensor k of a result (final or max), or NULL when the job has none. */
static const double *sensor_value(const mr_batch_result *r, int k, int i, int max) {
  const mr_sensor_summary *s = &r->sensors;
  if (k >= s->count || i >= s->dim[k]) return NULL;
  int v = i;
  for (int q = 0; q < k; q++) v += s->dim[q];
  if (v >= MR_SUMMARY_VALUES || !s->seen[v]) return NULL;
  return max ? &s->max[v] : &s->final[v];
}

static void csv_sensor_header(FILE *f, const mr_batch_table *t, const mr_batch_result *r) {
  for (int k = 0; k < sensor_list_count(t); k++) {
    int w = sensor_width(t, r, k);
    for (int i = 0; i < w; i++)
      for (int max = 0; max < 2; max++) {
        char col[320];
        sensor_column_name(t, k, i, w, max, col, sizeof col);
        csv_field(f, col, 0);
      }
  }
}

static void csv_sensor_row(FILE *f, const mr_batch_table *t, const mr_batch_result *r, int j) {
  for (int k = 0; k < sensor_list_count(t); k++) {
    int w = sensor_width(t, r, k);
    for (int i = 0; i < w; i++)
      for (int max = 0; max < 2; max++) {
        const double *x = sensor_value(&r[j], k, i, max);
        char buf[64] = "";
        if (x) snprintf(buf, sizeof buf, "%.17g", *x);
        csv_field(f, buf, 0);
      }
  }
}

static void csv_write(FILE *f, const mr_batch_table *t, const mr_batch_result *r) {
  fputs("job,name", f);
  for (int c = 0; c < t->ncolumns; c++)
    if (!is_name_column(t, c)) csv_field(f, t->columns[c], 0);
  fputs(",status,message", f);
  for (int k = 0; k < FIELD_COUNT; k++) csv_field(f, result_fields[k].name, 0);
  csv_sensor_header(f, t, r);
  fputc('\n', f);
  for (int j = 0; j < t->njobs; j++) {
    fprintf(f, "%d", j + 1);
    csv_field(f, t->jobs[j].label, 0);
    for (int c = 0; c < t->ncolumns; c++)
      if (!is_name_column(t, c)) csv_field(f, option_value(t, j, c), 0);
    csv_field(f, mr_job_status_name(r[j].status), 0);
    csv_field(f, r[j].message, 0);
    for (int k = 0; k < FIELD_COUNT; k++) {
      char buf[64] = "";
      /* a job that never ran has no numbers: empty, not a row of zeros */
      if (result_has_values(&r[j])) field_text(&result_fields[k], &r[j], buf, sizeof buf);
      csv_field(f, buf, 0);
    }
    csv_sensor_row(f, t, r, j);
    fputc('\n', f);
  }
}

/* ------------------------------------------------------------------ JSON */

static void json_row(mr_json *js, const mr_batch_table *t, int j, const mr_batch_result *r) {
  mr_json_object_begin(js, NULL);
  mr_json_int(js, "job", j + 1);
  mr_json_string(js, "name", t->jobs[j].label);
  mr_json_object_begin(js, "options");
  for (int c = 0; c < t->ncolumns; c++)
    if (option_value(t, j, c)) mr_json_string(js, t->columns[c], option_value(t, j, c));
  mr_json_object_end(js);
  mr_json_string(js, "status", mr_job_status_name(r->status));
  mr_json_string(js, "message", r->message[0] ? r->message : NULL);
  mr_json_bool(js, "resumed", r->resumed);
  for (int k = 0; k < FIELD_COUNT; k++) {
    const result_field *fd = &result_fields[k];
    const char *base = (const char *)r + fd->offset;
    if (!result_has_values(r)) mr_json_null(js, fd->name);
    else if (fd->type == FIELD_TEXT) mr_json_string(js, fd->name, base[0] ? base : NULL);
    else if (fd->type == FIELD_LONG) mr_json_int(js, fd->name, *(const long *)(const void *)base);
    else mr_json_double(js, fd->name, *(const double *)(const void *)base);
  }
  mr_sensor_summary_json(js, &r->sensors, t->summary_sensors);
  mr_json_object_end(js);
}

static void json_write(FILE *f, const mr_batch_table *t, const mr_batch_result *r) {
  int count[MR_JOB_UNSTABLE + 1] = {0};
  for (int j = 0; j < t->njobs; j++) count[r[j].status >= 0 && r[j].status <= MR_JOB_UNSTABLE ? r[j].status : MR_JOB_ERROR]++;
  mr_json js;
  mr_json_init(&js, f);
  mr_json_object_begin(&js, NULL);
  mr_json_string(&js, "jobs_file", t->path);
  mr_json_int(&js, "jobs", t->njobs);
  for (int s = 0; s <= MR_JOB_UNSTABLE; s++) mr_json_int(&js, status_names[s], count[s]);
  mr_json_array_begin(&js, "rows");
  for (int j = 0; j < t->njobs; j++) json_row(&js, t, j, &r[j]);
  mr_json_array_end(&js);
  mr_json_object_end(&js);
}

/* ------------------------------------------------------------------ atomic files */

/* The file is composed in memory, then written beside its name with every write checked,
 * synced and renamed into place (engine/record/checked_write.c). */
static int write_atomic(const char *dir, const char *name, const mr_batch_table *t,
                        const mr_batch_result *r, void (*body)(FILE *, const mr_batch_table *, const mr_batch_result *),
                        char *err, int errlen) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  if (!f) return mr_errorf(err, errlen, (mr_source){path, 0}, "cannot write: out of memory");
  body(f, t, r);
  int failed = ferror(f) != 0;
  if (fclose(f) != 0) failed = 1;
  int rc = failed ? mr_errorf(err, errlen, (mr_source){path, 0}, "cannot write: out of memory")
                  : mr_write_file_atomic(path, text, size, err, errlen);
  free(text);
  return rc;
}

int mr_batch_summary_write(const char *dir, const mr_batch_table *t, const mr_batch_result *r,
                           char *err, int errlen) {
  if (write_atomic(dir, "summary.csv", t, r, csv_write, err, errlen)) return -1;
  return write_atomic(dir, "summary.json", t, r, json_write, err, errlen);
}

/* ------------------------------------------------------------------ resume */

enum { MAX_SUMMARY_FIELDS = 96 + 2 * MR_SUMMARY_VALUES };

typedef struct summary_header {
  int n;
  char *names[MAX_SUMMARY_FIELDS];
  int job, status, options_begin, options_end; /* field indices; options in [begin, end) */
} summary_header;

static int header_find(const summary_header *h, const char *name, int begin, int end) {
  for (int i = begin; i < end; i++)
    if (strcmp(h->names[i], name) == 0) return i;
  return -1;
}

static int header_read(summary_header *h, char *line) {
  h->n = mr_batch_csv_split(line, h->names, MAX_SUMMARY_FIELDS);
  if (h->n < 0) return -1;
  h->job = header_find(h, "job", 0, h->n);
  h->status = header_find(h, "status", 0, h->n);
  int name = header_find(h, "name", 0, h->n);
  if (h->job < 0 || h->status < 0 || name < 0 || name > h->status) return -1;
  h->options_begin = name + 1;
  h->options_end = h->status;
  return 0;
}

/* The row was made by the same job: every option column, old and new, holds the same. */
static int row_matches(const summary_header *h, char **row, const mr_batch_table *t, int j) {
  for (int i = h->options_begin; i < h->options_end; i++) {
    const char *now = mr_batch_table_value(t, j, h->names[i]);
    if (strcmp(row[i], now ? now : "") != 0) return 0;
  }
  for (int c = 0; c < t->ncolumns; c++)
    if (option_value(t, j, c) && !is_name_column(t, c) &&
        header_find(h, t->columns[c], h->options_begin, h->options_end) < 0)
      return 0;
  return 1;
}

/* --resume: the sensor columns of an ok row back into its result. */
static void resume_sensors(const summary_header *h, char **row, const mr_batch_table *t,
                           mr_batch_result *r) {
  int n = sensor_list_count(t), v = 0;
  r->sensors.count = n;
  for (int k = 0; k < n; k++) {
    int w = 0;
    char col[320];
    for (int i = 0; i < MR_SUMMARY_VALUES; i++) {
      sensor_column_name(t, k, i, 2, 0, col, sizeof col);
      if (header_find(h, col, h->status, h->n) < 0) break;
      w = i + 1;
    }
    if (w == 0) w = 1;
    r->sensors.dim[k] = w;
    for (int i = 0; i < w && v < MR_SUMMARY_VALUES; i++, v++)
      for (int max = 0; max < 2; max++) {
        sensor_column_name(t, k, i, w, max, col, sizeof col);
        int c = header_find(h, col, h->status, h->n);
        if (c < 0 || !row[c][0]) continue;
        (max ? r->sensors.max : r->sensors.final)[v] = strtod(row[c], NULL);
        r->sensors.seen[v] = 1;
      }
  }
}

static void row_to_result(const summary_header *h, char **row, const mr_batch_table *t,
                          mr_batch_result *r) {
  memset(r, 0, sizeof *r);
  r->status = MR_JOB_OK;
  r->resumed = 1;
  r->ran = 1;
  for (int k = 0; k < FIELD_COUNT; k++) {
    const result_field *fd = &result_fields[k];
    int i = header_find(h, fd->name, h->status, h->n);
    if (i < 0) continue;
    char *base = (char *)r + fd->offset;
    if (fd->type == FIELD_TEXT) snprintf(base, fd->size, "%s", row[i]);
    else if (fd->type == FIELD_LONG) *(long *)(void *)base = strtol(row[i], NULL, 10);
    else *(double *)(void *)base = strtod(row[i], NULL);
  }
  resume_sensors(h, row, t, r);
}

static int resume_row(const summary_header *h, char *line, const mr_batch_table *t, mr_batch_result *r) {
  char *row[MAX_SUMMARY_FIELDS];
  if (mr_batch_csv_split(line, row, MAX_SUMMARY_FIELDS) != h->n) return 0;
  char *end;
  long job = strtol(row[h->job], &end, 10);
  if (*end || job < 1 || job > t->njobs) return 0;
  int j = (int)job - 1;
  if (strcmp(row[h->status], "ok") != 0 || !row_matches(h, row, t, j)) return 0;
  row_to_result(h, row, t, &r[j]);
  return 1;
}

int mr_batch_summary_resume(const char *dir, const mr_batch_table *t, mr_batch_result *r,
                            char *err, int errlen) {
  char path[4096], why[256];
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  struct stat st;
  if (stat(path, &st) != 0 && errno == ENOENT) return 0;
  mr_line_reader in;
  if (mr_line_reader_open(&in, path, 0, why, (int)sizeof why))
    return mr_errorf(err, errlen, (mr_source){path, 1}, "cannot read: %s", why);
  summary_header h;
  int taken = 0, got = mr_line_read(&in, why, (int)sizeof why);
  /* the header's names must outlive the lines read after it */
  char *header_line = got == 1 ? strdup(in.line) : NULL;
  if (got < 0) {
    taken = mr_errorf(err, errlen, (mr_source){path, (int)in.lineno}, "%s", why);
  } else if (got == 0 || !header_line || header_read(&h, header_line)) {
    taken = mr_errorf(err, errlen, (mr_source){path, 1}, "not a batch summary (delete it to start afresh)");
  } else {
    while ((got = mr_line_read(&in, why, (int)sizeof why)) == 1) taken += resume_row(&h, in.line, t, r);
    if (got < 0) taken = mr_errorf(err, errlen, (mr_source){path, (int)in.lineno}, "%s", why);
  }
  mr_line_reader_close(&in);
  free(header_line);
  return taken;
}
