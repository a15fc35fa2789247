/* Shared libraries opened on first use (lazy_lib.h). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "lazy_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int mr_lazy_lib_open(mr_lazy_lib *lib) {
  const char *file = lib->env ? getenv(lib->env) : NULL;
  if (!file || !*file) file = lib->soname;
  /* RTLD_LOCAL: its symbols serve this table only, and never stand in for another
   * library's of the same name (unless the library needs them global) */
  void *handle = dlopen(file, RTLD_NOW | (lib->scope == MR_LAZY_GLOBAL ? RTLD_GLOBAL : RTLD_LOCAL));
  if (!handle) {
    const char *why = dlerror();
    snprintf(lib->why, sizeof lib->why, "%s", why ? why : file);
    return -1;
  }
  for (int i = 0; i < lib->nsymbols; i++) {
    /* A variable is the one the library's own code uses: the first definition in the
     * global scope, where there is one, as its references were bound. A program linked
     * with the library that names the variable itself holds the variable's only live copy
     * (a copy relocation): the library's own definition then stays at its initial value. */
    void *sym = lib->symbols[i].variable ? dlsym(RTLD_DEFAULT, lib->symbols[i].name) : NULL;
    if (!sym) sym = dlsym(handle, lib->symbols[i].name);
    if (!sym) {
      snprintf(lib->why, sizeof lib->why, "%s has no %s", file, lib->symbols[i].name);
      return -1;
    }
    /* POSIX's way to store dlsym's result in a function pointer */
    *(void **)lib->symbols[i].slot = sym;
  }
  return lib->start ? lib->start(file, lib->why, (int)sizeof lib->why) : 0;
}

int mr_lazy_lib_load(mr_lazy_lib *lib, const char *path, const char *what, char *err, int errlen) {
  pthread_mutex_lock(&lib->lock);
  if (!lib->tried) {
    lib->tried = 1;
    if (mr_lazy_lib_open(lib) == 0) lib->why[0] = 0;
    else if (!lib->why[0]) snprintf(lib->why, sizeof lib->why, "%s did not start", lib->soname);
  }
  int ok = !lib->why[0];
  pthread_mutex_unlock(&lib->lock);
  if (ok) return 0;
  snprintf(err, (size_t)errlen, "%s: cannot %s: %s", path, what, lib->why);
  return -1;
}
