/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c): the input becomes one or more
 * files in a private temporary directory, loaded through the same entry points the moreau
 * command uses; a model that loads and is small is stepped a few times. Each harness
 * defines LLVMFuzzerTestOneInput; built with -DMOREAU_FUZZ=ON (clang, libFuzzer, ASan,
 * UBSan) it is a fuzzer, and linked with fuzz_replay.c it replays the seed corpus and every
 * reproducer under tests/fuzz/regressions/ as an ordinary ctest test. */
#ifndef MR_FUZZ_COMMON_H
#define MR_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Models bigger than this are loaded but not stepped: stepping them costs seconds, and what
 * the fuzzer looks for is in the parsers and the first steps of small models. */
enum { FUZZ_STEP_MAX_NV = 64, FUZZ_STEP_MAX_NGEOM = 256, FUZZ_STEP_MAX_NBODY = 256 };

static char fuzz_dir_path[512];

static inline void fuzz_cleanup(void) {
  static const char *names[] = {"model.xml", "a.xml", "b.xml", "robot.urdf", "robot.srdf",
                                "mesh.stl", "mesh.obj", "mesh.dae", "mesh.mtl", "rec.csv",
                                "rec.h5", "ctrl.csv", "jobs.csv", "jobs.toml", NULL};
  char path[600];
  for (int i = 0; names[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", fuzz_dir_path, names[i]);
    unlink(path);
  }
  rmdir(fuzz_dir_path);
}

/* The harness's private directory, made on first use and removed at exit. */
static inline const char *fuzz_dir(void) {
  if (fuzz_dir_path[0]) return fuzz_dir_path;
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/moreau_fuzz_XXXXXX", tmp);
  if (!mkdtemp(fuzz_dir_path)) abort();
  atexit(fuzz_cleanup);
  return fuzz_dir_path;
}

/* DIR/name into out. */
static inline const char *fuzz_path(const char *name, char *out, size_t n) {
  snprintf(out, n, "%s/%s", fuzz_dir(), name);
  return out;
}

/* Writes the bytes to DIR/name (replacing it); the path into out. */
static inline const char *fuzz_write(const char *name, const uint8_t *data, size_t size, char *out,
                              size_t n) {
  fuzz_path(name, out, n);
  FILE *f = fopen(out, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f) != 0) abort();
  return out;
}

static inline void fuzz_remove(const char *name) {
  char path[600];
  unlink(fuzz_path(name, path, sizeof path));
}

/* Splits data at each occurrence of sep into at most max parts; returns the count. */
static inline int fuzz_split(const uint8_t *data, size_t size, const char *sep, const uint8_t **part,
                      size_t *len, int max) {
  size_t k = strlen(sep), start = 0;
  int n = 0;
  for (size_t i = 0; i + k <= size && n + 1 < max; i++) {
    if (memcmp(data + i, sep, k) != 0) continue;
    part[n] = data + start;
    len[n++] = i - start;
    start = i + k;
    i = start - 1;
  }
  part[n] = data + start;
  len[n++] = size - start;
  return n;
}

/* A few steps of a small model from its initial state; the state is left to the engine:
 * what must not happen is undefined behaviour, a crash or a leak, not a NaN. */
static inline void fuzz_step_model(const mr_model *m, int steps) {
  if (m->nv > FUZZ_STEP_MAX_NV || m->ngeom > FUZZ_STEP_MAX_NGEOM || m->nbody > FUZZ_STEP_MAX_NBODY)
    return;
  mr_data *d = mr_data_create(m);
  if (!d) return;
  for (int i = 0; i < steps; i++)
    if (mr_step(m, d) != 0) break;
  mr_data_free(d);
}

/* The error contract: one line, "FILE:LINE: what is wrong". Anything else is a finding. */
static inline void fuzz_check_error_line(const char *err) {
  const char *p = err;
  int ok = err[0] && !strchr(err, '\n');
  for (ok = ok && (p = strchr(p, ':')) != NULL; ok; p = strchr(p + 1, ':')) {
    if (!p) {
      ok = 0;
      break;
    }
    const char *q = p + 1;
    while (*q >= '0' && *q <= '9') q++;
    if (q > p + 1 && q[0] == ':' && q[1] == ' ') break;
  }
  if (!ok) {
    fprintf(stderr, "error without FILE:LINE: %s\n", err);
    abort();
  }
}

/* Loads path (quietly) and steps it when it loads. */
static inline void fuzz_load_and_step(const char *path, const mr_load_options *opt, int steps) {
  char err[1024];
  mr_load_options o = opt ? *opt : (mr_load_options){0};
  o.quiet = 1;
  mr_model *m = mr_model_load(path, &o, err, (int)sizeof err);
  if (!m) {
    fuzz_check_error_line(err);
    return;
  }
  fuzz_step_model(m, steps);
  mr_model_free(m);
}

#endif
