#include "json.h"

#include <math.h>
#include <stdlib.h>

void mr_json_init(mr_json *j, FILE *out) {
  j->out = out;
  j->depth = 0;
  j->count[0] = 0;
  j->is_array[0] = 0;
  j->has_objects[0] = 0;
}

static int json_in_array(const mr_json *j) { return j->depth > 0 && j->is_array[j->depth - 1]; }

static void json_indent(const mr_json *j) {
  fputc('\n', j->out);
  for (int i = 0; i < j->depth; i++) fputs("  ", j->out);
}

static void json_write_escaped(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
      case '"': fputs("\\\"", out); break;
      case '\\': fputs("\\\\", out); break;
      case '\n': fputs("\\n", out); break;
      case '\r': fputs("\\r", out); break;
      case '\t': fputs("\\t", out); break;
      default:
        if (*c < 0x20) fprintf(out, "\\u%04x", *c);
        else fputc(*c, out);
    }
  }
  fputc('"', out);
}

/* Separator, line break and key that come before every value. In arrays, plain values
 * stay on the line and objects each start a line of their own. */
static void json_prefix(mr_json *j, const char *key, int is_object) {
  if (j->depth == 0) return;
  int first = j->count[j->depth - 1]++ == 0;
  if (json_in_array(j)) {
    if (!first) fputs(is_object ? "," : ", ", j->out);
    if (is_object) {
      j->has_objects[j->depth - 1] = 1;
      json_indent(j);
    }
    return;
  }
  if (!first) fputc(',', j->out);
  json_indent(j);
  json_write_escaped(j->out, key ? key : "");
  fputs(": ", j->out);
}

static void json_value_prefix(mr_json *j, const char *key) { json_prefix(j, key, 0); }

/* Nesting deeper than MR_JSON_MAX_DEPTH is a programming error; it writes nothing. */
static void json_open(mr_json *j, const char *key, int is_array) {
  if (j->depth >= MR_JSON_MAX_DEPTH) return;
  json_prefix(j, key, !is_array);
  fputc(is_array ? '[' : '{', j->out);
  j->count[j->depth] = 0;
  j->is_array[j->depth] = is_array;
  j->has_objects[j->depth] = 0;
  j->depth++;
}

void mr_json_object_begin(mr_json *j, const char *key) { json_open(j, key, 0); }
void mr_json_array_begin(mr_json *j, const char *key) { json_open(j, key, 1); }

void mr_json_object_end(mr_json *j) {
  if (j->depth <= 0) return;
  int had_members = j->count[j->depth - 1] > 0;
  j->depth--;
  if (had_members) json_indent(j);
  fputc('}', j->out);
  if (j->depth == 0) fputc('\n', j->out);
}

void mr_json_array_end(mr_json *j) {
  if (j->depth <= 0) return;
  int had_objects = j->has_objects[j->depth - 1];
  j->depth--;
  if (had_objects) json_indent(j);
  fputc(']', j->out);
}

void mr_json_string(mr_json *j, const char *key, const char *value) {
  json_value_prefix(j, key);
  if (value) json_write_escaped(j->out, value);
  else fputs("null", j->out);
}

void mr_json_int(mr_json *j, const char *key, long value) {
  json_value_prefix(j, key);
  fprintf(j->out, "%ld", value);
}

void mr_json_double(mr_json *j, const char *key, double value) {
  json_value_prefix(j, key);
  if (!isfinite(value)) {
    fputs("null", j->out);
    return;
  }
  /* The shortest of %.15g..%.17g that reads back exactly: 0.005 stays 0.005. */
  char buf[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (strtod(buf, NULL) == value) break;
  }
  fputs(buf, j->out);
}

void mr_json_bool(mr_json *j, const char *key, int value) {
  json_value_prefix(j, key);
  fputs(value ? "true" : "false", j->out);
}

void mr_json_null(mr_json *j, const char *key) {
  json_value_prefix(j, key);
  fputs("null", j->out);
}
