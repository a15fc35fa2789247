#include "error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

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
  /* The contract is one line: fold any newline a message carries (libxml2 adds them). */
  for (char *c = err; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return -1;
}

void mr_warnf(int quiet, mr_source src, const char *fmt, ...) {
  if (quiet) return;
  char where[512];
  mr_format_source(where, sizeof where, src);
  fprintf(stderr, "moreau: warning: %s", where);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

int mr_all_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}
