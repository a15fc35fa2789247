/* The fixtures of the MuJoCo conformance tests (test_mj_*.c): a model under
 * tests/data/mjcf loaded by MuJoCo and by Moreau. */
#ifndef MR_MJ_FIXTURE_H
#define MR_MJ_FIXTURE_H

#include <mujoco/mujoco.h>
#include <stdio.h>

#include "moreau.h"
#include "mr_test.h"

static inline const char *fixture(const char *name, char *buf, size_t n) {
  snprintf(buf, n, "%s/tests/data/mjcf/%s", MOREAU_SOURCE_DIR, name);
  return buf;
}

/* The fixture loaded by both; 0 (and a failed check) if either cannot load it. */
static inline int load_both(const char *name, mjModel **mj, mr_model **m) {
  char path[1024], err[1024] = "";
  fixture(name, path, sizeof path);
  *mj = mj_loadXML(path, NULL, err, sizeof err);
  MR_CHECK_MSG(*mj != NULL, "MuJoCo cannot load %s: %s", path, err);
  *m = mr_model_load(path, NULL, err, sizeof err);
  MR_CHECK_MSG(*m != NULL, "moreau cannot load %s: %s", path, err);
  return *mj && *m;
}

#endif
