/* A tiny streaming JSON writer for the command's machine-readable output.
 *
 * Members of objects go one per line, indented; arrays of plain values stay on one line so
 * a summary remains readable by a human and greppable by a script. Non-finite numbers are
 * written as null, since JSON has no NaN or infinity. */
#ifndef MR_JSON_H
#define MR_JSON_H

#include <stdio.h>

#define MR_JSON_MAX_DEPTH 16

typedef struct mr_json {
  FILE *out;
  int depth;
  int count[MR_JSON_MAX_DEPTH];    /* values written so far in each open container */
  int is_array[MR_JSON_MAX_DEPTH]; /* 1 for arrays, whose plain values are written inline */
  int has_objects[MR_JSON_MAX_DEPTH]; /* an array holding objects closes on its own line */
} mr_json;

void mr_json_init(mr_json *j, FILE *out);

/* key is NULL at the top level and inside arrays. */
void mr_json_object_begin(mr_json *j, const char *key);
void mr_json_object_end(mr_json *j); /* the outermost end writes a newline */
void mr_json_array_begin(mr_json *j, const char *key);
void mr_json_array_end(mr_json *j);

void mr_json_string(mr_json *j, const char *key, const char *value); /* NULL -> null */
void mr_json_int(mr_json *j, const char *key, long value);
void mr_json_double(mr_json *j, const char *key, double value);
void mr_json_bool(mr_json *j, const char *key, int value);
void mr_json_null(mr_json *j, const char *key);

#endif
