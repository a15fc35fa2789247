/* One-line diagnostics: "FILE:LINE: what is wrong". */
#ifndef MR_ERROR_H
#define MR_ERROR_H

#include <stddef.h>

/* Where an element came from, for "FILE:LINE: message" errors. */
typedef struct mr_source {
  const char *file; /* interned in a spec's string pool, or a caller's own string */
  int line;
} mr_source;

/* Writes "FILE:LINE: message" into err (FILE alone when line <= 0). Always returns -1 so
 * callers can `return mr_errorf(...)`. */
int mr_errorf(char *err, int errlen, mr_source src, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints "moreau: warning: FILE:LINE: message" on stderr unless quiet (or holds it, below). */
void mr_warnf(int quiet, mr_source src, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Warnings held back while a model loads: a file that turns out to be bad gets its one
 * error line and nothing else, and a file that loads gets its warnings, in order, once.
 * Holding is per thread (batch workers load models side by side). At most
 * MR_WARNINGS_SHOWN are kept; the rest are counted in one closing line. */
enum { MR_WARNINGS_SHOWN = 20 };
typedef struct mr_warning_hold {
  char *text; /* the held lines, each ending in '\n' */
  size_t len, cap;
  int count;  /* warnings raised while holding, shown or not */
  struct mr_warning_hold *outer;
} mr_warning_hold;

/* From now on this thread's warnings go to h. */
void mr_warnings_hold(mr_warning_hold *h);
/* Stops holding; prints the held warnings on stderr if print, else drops them. */
void mr_warnings_release(mr_warning_hold *h, int print);

/* 1 if every one of the n numbers is finite. */
int mr_all_finite(const double *v, int n);

#endif
