/* Tracking of chosen sensors over a run (sensor_summary.h). */
#include "sensor_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int mr_sensor_summary_name(const char *list, int k, char *buf, int n) {
  const char *p = list;
  for (int i = 0; p && i < k; i++) {
    p = strchr(p, ',');
    if (p) p++;
  }
  if (!p) return -1;
  size_t len = strcspn(p, ",");
  snprintf(buf, (size_t)n, "%.*s", (int)len, p);
  return 0;
}

static int mr_sensor_summary_count(const char *list) {
  int n = 1;
  for (const char *p = list; *p; p++) n += *p == ',';
  return n;
}

int mr_sensor_summary_check_list(const char *list, char *err, int errlen) {
  int n = mr_sensor_summary_count(list);
  if (n > MR_SUMMARY_SENSORS) {
    snprintf(err, (size_t)errlen, "--summary-sensors names %d sensors (at most %d)", n, MR_SUMMARY_SENSORS);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    char name[256];
    mr_sensor_summary_name(list, k, name, sizeof name);
    if (!name[0]) {
      snprintf(err, (size_t)errlen, "--summary-sensors has an empty name in '%s'", list);
      return -1;
    }
  }
  return 0;
}

int mr_sensor_summary_begin(mr_sensor_summary *s, const char *list, const mr_model *m,
                            const char *model_path, char *err, int errlen) {
  memset(s, 0, sizeof *s);
  if (!list) return 0;
  int n = mr_sensor_summary_count(list), values = 0;
  for (int k = 0; k < n && k < MR_SUMMARY_SENSORS; k++) {
    char name[256];
    mr_sensor_summary_name(list, k, name, sizeof name);
    int id = mr_name2id(m, MR_OBJ_SENSOR, name);
    if (id < 0) {
      snprintf(err, (size_t)errlen, "%s: no sensor named '%s' (--summary-sensors)", model_path, name);
      return -1;
    }
    s->id[k] = id;
    s->dim[k] = m->sensor_dim[id];
    values += s->dim[k];
  }
  if (values > MR_SUMMARY_VALUES) {
    snprintf(err, (size_t)errlen, "%s: --summary-sensors asks for %d numbers (at most %d)",
             model_path, values, MR_SUMMARY_VALUES);
    return -1;
  }
  s->count = n;
  return 0;
}

void mr_sensor_summary_take(mr_sensor_summary *s, const mr_model *m, const mr_data *d,
                            int state_only) {
  int v = 0;
  for (int k = 0; k < s->count; k++) {
    int id = s->id[k];
    const double *x = d->sensordata + m->sensor_adr[id];
    int skip = state_only && m->sensor_needstage[id] == MR_STAGE_ACC;
    for (int i = 0; i < s->dim[k]; i++, v++) {
      if (skip) continue;
      s->final[v] = x[i];
      if (!s->seen[v] || x[i] > s->max[v] || isnan(x[i])) s->max[v] = x[i];
      s->seen[v] = 1;
    }
  }
}

/* First value of sensor k in the flat arrays. */
static int mr_sensor_summary_first(const mr_sensor_summary *s, int k) {
  int v = 0;
  for (int i = 0; i < k; i++) v += s->dim[i];
  return v;
}

void mr_sensor_summary_json(mr_json *j, const mr_sensor_summary *s, const char *list) {
  if (!s->count || !list) return;
  mr_json_object_begin(j, "sensors");
  for (int k = 0; k < s->count; k++) {
    char name[256];
    mr_sensor_summary_name(list, k, name, sizeof name);
    int v0 = mr_sensor_summary_first(s, k);
    mr_json_object_begin(j, name);
    for (int which = 0; which < 2; which++) {
      const double *x = which ? s->max : s->final;
      if (!s->seen[v0]) {
        mr_json_null(j, which ? "max" : "final");
        continue;
      }
      mr_json_array_begin(j, which ? "max" : "final");
      for (int i = 0; i < s->dim[k]; i++) mr_json_double(j, NULL, x[v0 + i]);
      mr_json_array_end(j);
    }
    mr_json_object_end(j);
  }
  mr_json_object_end(j);
}

void mr_sensor_summary_print(FILE *out, const mr_sensor_summary *s, const char *list) {
  for (int k = 0; k < s->count && list; k++) {
    char name[256];
    mr_sensor_summary_name(list, k, name, sizeof name);
    int v0 = mr_sensor_summary_first(s, k);
    fprintf(out, "sensor       %s:", name);
    for (int which = 0; which < 2; which++) {
      fputs(which ? "  max" : " final", out);
      for (int i = 0; i < s->dim[k]; i++)
        if (s->seen[v0 + i]) fprintf(out, " %.6g", (which ? s->max : s->final)[v0 + i]);
        else fputs(" -", out);
    }
    fputc('\n', out);
  }
}
