/* The sizes a model may have, checked on the spec before anything is sized from it.
 *
 * Every count that later multiplies another (model arrays of 11 per element, keyframes of
 * nq + nv + nu, the mass matrix's branch entries, the simulation data's nv x nv block) is
 * bounded here, in 64-bit arithmetic, so the products that follow fit in an int and the
 * work and memory a file can ask for stay proportionate to it: a 100k-link chain is a clear
 * error in milliseconds instead of minutes of compiling and a wrapped size. Each message
 * names the first element past the limit. */
#include <stdint.h>
#include <stdlib.h>

#include "compile.h"
#include "engine/core/error.h"

#define MR_FAIL(src, ...) mr_errorf(c->err, c->errlen, (src), __VA_ARGS__)

/* Counts the kinematic tree and the compiled arrays are sized from. */
#define MR_MAX_NBODY 250000
#define MR_MAX_ELEMENTS 1000000 /* joints, geoms, sites, ... of each kind */
#define MR_MAX_NV 10000
/* Branch entries of M (each dof's row holds its ancestors): qM and its factor take 16 bytes
 * an entry. A chain of about 5,600 hinges reaches it. */
#define MR_MAX_NM (16L * 1024 * 1024)
/* Bilateral rows (connect 3, weld 6, joint coupling 1) are solved densely every step. */
#define MR_MAX_EQUALITY_ROWS 1024
/* Keyframe numbers in all: nkey x (nq + nv + nu). */
#define MR_MAX_KEY_VALUES (16L * 1024 * 1024)

static mr_source mr_file_source(const mr_compiler *c) {
  mr_source src = {c->s->file, 1};
  return src;
}

#define MR_CHECK_COUNT(arr, what, limit)                                                      \
  do {                                                                                        \
    if (s->n##arr > (limit))                                                                  \
      return MR_FAIL(s->arr[(limit)].src, "more than %d %s in the model (the limit)", (limit), \
                     (what));                                                                 \
  } while (0)

static int mr_limit_counts(mr_compiler *c) {
  const mr_spec *s = c->s;
  MR_CHECK_COUNT(bodies, "bodies", MR_MAX_NBODY);
  MR_CHECK_COUNT(joints, "joints", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(geoms, "geoms", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(sites, "sites", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(cameras, "cameras", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(lights, "lights", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(meshes, "meshes", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(materials, "materials", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(textures, "textures", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(actuators, "actuators", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(equalities, "equality constraints", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(pairs, "contact pairs", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(excludes, "contact excludes", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(keys, "keyframes", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(tendons, "tendons", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(wraps, "tendon path objects", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(sensors, "sensors", MR_MAX_ELEMENTS);
  MR_CHECK_COUNT(hfields, "heightfields", MR_MAX_ELEMENTS);
  return 0;
}

/* nv, and the branch entries of M, joint by joint in 64 bits: the first joint past a
 * limit is the one named. Bodies come parents first, joints in body order. */
static int mr_limit_tree(mr_compiler *c, int64_t *nq_out, int64_t *nv_out) {
  const mr_spec *s = c->s;
  int64_t *above = calloc((size_t)s->nbodies, sizeof *above); /* dofs of ancestors-or-self */
  if (!above) return MR_FAIL(mr_file_source(c), "out of memory checking the model's size");
  int64_t nq = 0, nv = 0, nM = 0;
  int rc = 0, j = 0;
  for (int b = 1; b < s->nbodies && rc == 0; b++) {
    int parent = s->bodies[b].parent;
    int64_t base = parent >= 0 && parent < b ? above[parent] : 0;
    for (; j < s->njoints && s->joints[j].body <= b && rc == 0; j++) {
      if (s->joints[j].body != b) continue;
      int dofs = mr_joint_nv(s->joints[j].type);
      for (int k = 0; k < dofs; k++) nM += ++base;
      nv += dofs;
      nq += mr_joint_nq(s->joints[j].type);
      if (nv > MR_MAX_NV)
        rc = MR_FAIL(s->joints[j].src, "the model has more than %d degrees of freedom (the limit)",
                     MR_MAX_NV);
      else if (nM > MR_MAX_NM)
        rc = MR_FAIL(s->joints[j].src,
                     "the kinematic tree is too deep: its mass matrix would hold more than %ld "
                     "entries (the limit; a chain of about 5,600 hinges)", MR_MAX_NM);
    }
    above[b] = base;
  }
  free(above);
  *nq_out = nq;
  *nv_out = nv;
  return rc;
}

static int mr_limit_equalities(mr_compiler *c) {
  const mr_spec *s = c->s;
  long rows = 0;
  for (int i = 0; i < s->nequalities; i++) {
    int type = s->equalities[i].type;
    rows += type == MR_EQ_CONNECT ? 3 : type == MR_EQ_WELD ? 6 : 1;
    if (rows > MR_MAX_EQUALITY_ROWS)
      return MR_FAIL(s->equalities[i].src,
                     "equality constraints make more than %d rows (the limit: they are solved "
                     "densely at every step)", MR_MAX_EQUALITY_ROWS);
  }
  return 0;
}

static int mr_limit_keys(mr_compiler *c, int64_t nq, int64_t nv) {
  const mr_spec *s = c->s;
  int64_t per_key = nq + nv + s->nactuators;
  for (int k = 0; k < s->nkeys; k++)
    if ((int64_t)(k + 1) * per_key > MR_MAX_KEY_VALUES)
      return MR_FAIL(s->keys[k].src, "keyframes hold more than %ld numbers in all (the limit)",
                     MR_MAX_KEY_VALUES);
  return 0;
}

int mr_compile_check_limits(mr_compiler *c) {
  int64_t nq = 0, nv = 0;
  if (mr_limit_counts(c) || mr_limit_tree(c, &nq, &nv) || mr_limit_equalities(c) ||
      mr_limit_keys(c, nq, nv))
    return -1;
  return 0;
}
