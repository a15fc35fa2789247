#include "error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mr_format_source(char *buf, int len, mr_source src) {
  const char *file = src.file ? src.file : "(unknown)";
  if (src.line > 0) return snprintf(buf, (size_t)len, "%s:%d: ", file, src.line);
  return snprintf(buf, (size_t)len, "%s: ", file);
}

int mr_errorf(char *err, int errlen, mr_source src, const char *fmt, ...) {
  if (!err || errlen <= 0) return -1;
  int n = mr_format_source(err, errlen, src);
  if (n < 0 || n >= errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err + n, (size_t)(errlen - n), fmt, ap);
  va_end(ap);
  /* The contract is one line: fold any newline a message carries (libxml2 adds them), and
   * show any other control character a hostile file put in a name (a terminal escape) as
   * '?'. */
  for (char *c = err; *c; c++) {
    if (*c == '\n' || *c == '\r') *c = ' ';
    else if ((unsigned char)*c < 0x20 && *c != '\t') *c = '?';
    else if (*c == 0x7f) *c = '?';
  }
  return -1;
}

static _Thread_local mr_warning_hold *mr_held_warnings;

/* Appends one line to the hold; a line that does not fit in memory is dropped. */
static void mr_hold_line(mr_warning_hold *h, const char *line) {
  if (h->count++ >= (int)MR_WARNINGS_SHOWN) return;
  size_t n = strlen(line);
  if (h->len + n + 2 > h->cap) {
    size_t cap = (h->cap ? 2 * h->cap : 1024) + n + 2;
    char *grown = realloc(h->text, cap);
    if (!grown) return;
    h->text = grown;
    h->cap = cap;
  }
  memcpy(h->text + h->len, line, n);
  h->len += n;
  h->text[h->len++] = '\n';
  h->text[h->len] = 0;
}

void mr_warnf(int quiet, mr_source src, const char *fmt, ...) {
  if (quiet) return;
  char line[1024];
  int n = snprintf(line, sizeof line, "moreau: warning: ");
  n += mr_format_source(line + n, (int)sizeof line - n, src);
  if (n < 0 || n >= (int)sizeof line) n = (int)strlen(line);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  for (char *c = line; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  if (mr_held_warnings) mr_hold_line(mr_held_warnings, line);
  else fprintf(stderr, "%s\n", line);
}

void mr_warnings_hold(mr_warning_hold *h) {
  memset(h, 0, sizeof *h);
  h->outer = mr_held_warnings;
  mr_held_warnings = h;
}

void mr_warnings_release(mr_warning_hold *h, int print) {
  if (mr_held_warnings == h) mr_held_warnings = h->outer;
  if (print && h->text) fputs(h->text, stderr);
  if (print && h->count > (int)MR_WARNINGS_SHOWN)
    fprintf(stderr, "moreau: warning: %d more warnings not shown\n", h->count - MR_WARNINGS_SHOWN);
  if (print) fflush(stderr);
  free(h->text);
  memset(h, 0, sizeof *h);
}

int mr_all_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}
