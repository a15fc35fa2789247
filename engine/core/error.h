/* One-line diagnostics: "FILE:LINE: what is wrong". */
#ifndef MR_ERROR_H
#define MR_ERROR_H

/* Where an element came from, for "FILE:LINE: message" errors. */
typedef struct mr_source {
  const char *file; /* interned in a spec's string pool, or a caller's own string */
  int line;
} mr_source;

/* Writes "FILE:LINE: message" into err (FILE alone when line <= 0). Always returns -1 so
 * callers can `return mr_errorf(...)`. */
int mr_errorf(char *err, int errlen, mr_source src, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints "moreau: warning: FILE:LINE: message" on stderr unless quiet. */
void mr_warnf(int quiet, mr_source src, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 if every one of the n numbers is finite. */
int mr_all_finite(const double *v, int n);

#endif
