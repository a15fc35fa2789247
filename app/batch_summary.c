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
};
enum { FIELD_COUNT = sizeof result_fields / sizeof result_fields[0] };

static const char *status_names[] = {"not_run", "ok", "diverged", "error", "interrupted"};

const char *mr_job_status_name(int status) {
  return status >= 0 && status <= MR_JOB_INTERRUPTED ? status_names[status] : "error";
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

static int result_has_values(const mr_batch_result *r) { return r->ran || r->resumed; }

static void field_text(const result_field *fd, const mr_batch_result *r, char *buf, size_t n) {
  const char *base = (const char *)r + fd->offset;
  if (fd->type == FIELD_TEXT) snprintf(buf, n, "%s", base);
  else if (fd->type == FIELD_LONG) snprintf(buf, n, "%ld", *(const long *)(const void *)base);
  else snprintf(buf, n, "%.17g", *(const double *)(const void *)base);
}

static void csv_write(FILE *f, const mr_batch_table *t, const mr_batch_result *r) {
  fputs("job,name", f);
  for (int c = 0; c < t->ncolumns; c++)
    if (!is_name_column(t, c)) csv_field(f, t->columns[c], 0);
  fputs(",status,message", f);
  for (int k = 0; k < FIELD_COUNT; k++) csv_field(f, result_fields[k].name, 0);
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
  mr_json_object_end(js);
}

static void json_write(FILE *f, const mr_batch_table *t, const mr_batch_result *r) {
  int count[MR_JOB_INTERRUPTED + 1] = {0};
  for (int j = 0; j < t->njobs; j++) count[r[j].status >= 0 && r[j].status <= MR_JOB_INTERRUPTED ? r[j].status : MR_JOB_ERROR]++;
  mr_json js;
  mr_json_init(&js, f);
  mr_json_object_begin(&js, NULL);
  mr_json_string(&js, "jobs_file", t->path);
  mr_json_int(&js, "jobs", t->njobs);
  for (int s = 0; s <= MR_JOB_INTERRUPTED; s++) mr_json_int(&js, status_names[s], count[s]);
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

enum { MAX_SUMMARY_FIELDS = 96 };

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

static void row_to_result(const summary_header *h, char **row, mr_batch_result *r) {
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
}

static int resume_row(const summary_header *h, char *line, const mr_batch_table *t, mr_batch_result *r) {
  char *row[MAX_SUMMARY_FIELDS];
  if (mr_batch_csv_split(line, row, MAX_SUMMARY_FIELDS) != h->n) return 0;
  char *end;
  long job = strtol(row[h->job], &end, 10);
  if (*end || job < 1 || job > t->njobs) return 0;
  int j = (int)job - 1;
  if (strcmp(row[h->status], "ok") != 0 || !row_matches(h, row, t, j)) return 0;
  row_to_result(h, row, &r[j]);
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
