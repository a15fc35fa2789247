/* A shared library opened when it is first needed, not when the process starts.
 *
 * libhdf5 (recordings) and libassimp (mesh files) bring some forty libraries with them,
 * which loaded at start made up most of the time a moreau process took to start, though
 * most runs record CSV or nothing and load meshless models. Each is instead described by
 * an mr_lazy_lib (its soname and the symbols its users call, each into a pointer of its
 * own type in a table) and opened by mr_lazy_lib_load before the first call. */
#ifndef MR_LAZY_LIB_H
#define MR_LAZY_LIB_H

#include <pthread.h>

/* One symbol: its name and the pointer it is stored into (a function pointer of the
 * symbol's type, or, with variable set, a pointer to the library's variable). */
typedef struct mr_lazy_symbol {
  const char *name;
  void *slot;
  int variable;
} mr_lazy_symbol;

typedef struct mr_lazy_lib {
  const char *soname; /* what dlopen asks for: the library the build compiled against */
  const char *env;    /* an environment variable that names another file instead, or NULL */
  const mr_lazy_symbol *symbols;
  int nsymbols;
  /* run once, after every symbol is resolved (NULL: nothing to do): 0, or -1 with why */
  int (*start)(const char *file, char *why, int whylen);
  pthread_mutex_t lock; /* PTHREAD_MUTEX_INITIALIZER */
  int tried;
  char why[256]; /* empty once loaded */
  int scope;     /* MR_LAZY_LOCAL or MR_LAZY_GLOBAL: dlopen's RTLD_LOCAL or RTLD_GLOBAL */
} mr_lazy_lib;

/* Where a library's symbols go: its own scope, serving its table only, or the global one,
 * for a library whose plugins resolve against it (OpenMPI's components). */
enum { MR_LAZY_LOCAL = 0, MR_LAZY_GLOBAL = 1 };

/* A library's description: its soname, the variable that overrides it, its symbols (an
 * array), its start function (or NULL) and its scope, not yet opened. */
#define MR_LAZY_LIB(soname, env, symbols, start, scope)                                      \
  {(soname), (env), (symbols), (int)(sizeof(symbols) / sizeof((symbols)[0])), (start),      \
   PTHREAD_MUTEX_INITIALIZER, 0, "", (scope)}

/* Opens lib once per process (thread-safe; later calls return the first one's verdict).
 * 0, or -1 and "PATH: cannot WHAT: REASON" in err, PATH the file the caller was about to
 * read or write. */
int mr_lazy_lib_load(mr_lazy_lib *lib, const char *path, const char *what, char *err, int errlen);

#endif
