/* Building small models by hand with the spec API, for tests that need exact masses and
 * inertias rather than a parsed file. */
#ifndef MR_SPEC_HELPERS_H
#define MR_SPEC_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "moreau.h"
#include "engine/io/spec.h"

static const mr_source mr_test_src = {"test-spec", 0};

/* Body with an explicit inertial: com at ipos, principal moments `inertia`. */
static inline int add_body(mr_spec *s, int parent, const double pos[3], double mass,
                           const double ipos[3], const double inertia[3]) {
  int b = mr_spec_add_body(s, parent, mr_test_src);
  mr_spec_body *body = &s->bodies[b];
  memcpy(body->pos, pos, 3 * sizeof(double));
  body->has_inertial = 1;
  body->mass = mass;
  memcpy(body->ipos, ipos, 3 * sizeof(double));
  memcpy(body->inertia, inertia, 3 * sizeof(double));
  return b;
}

static inline int add_joint(mr_spec *s, int body, int type, const double axis[3]) {
  int j = mr_spec_add_joint(s, body, mr_test_src);
  s->joints[j].type = type;
  if (axis) memcpy(s->joints[j].axis, axis, 3 * sizeof(double));
  return j;
}

/* Compiles and frees the spec; NULL (with the error printed) on failure. */
static inline mr_model *compile(mr_spec *s) {
  char err[512];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  if (!m) fprintf(stderr, "compile: %s\n", err);
  mr_spec_free(s);
  return m;
}

#endif
