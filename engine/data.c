/* mr_data: creation (one allocation for every array, one for the arena sized for every
 * stage's worst case), reset, keyframes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/arena.h"
#include "collision/collide.h"
#include "collision/depth_cache.h"
#include "engine/constraint/constraint.h"
#include "moreau.h"

static size_t mr_align_up(size_t n) { return (n + MR_ALIGN - 1) & ~(size_t)(MR_ALIGN - 1); }

/* The smooth dynamics needs RNEA's per-body accelerations and forces (12 per body) and two
 * nv vectors for the integrator; collision adds its exact worst case (collision/collide.h:
 * broadphase boxes, filter keys, persistence keys); the constraint stage its own (rows,
 * Delassus operator, solver scratch, projection: constraint.h, bounded by MR_MAX_ROWS);
 * a dense nv x nv block and a fixed reserve are left for the rest. */
static size_t mr_arena_size(const mr_model *m, int constraints) {
  size_t nv = (size_t)m->nv, nb = (size_t)m->nbody;
  size_t doubles = 12 * nb + 8 * nv + nv * nv;
  size_t blocks = 32 * MR_ALIGN; /* alignment padding of up to 32 blocks */
  size_t reserve = (size_t)4 << 20;
  size_t bytes = doubles * sizeof(double) + blocks + reserve;
  return constraints ? bytes + mr_collide_arena_size(m) + mr_constraint_arena_size(m) : bytes;
}

/* ------------------------------------------------------------------ layout */

/* Every array of mr_data: field, element type, count. One table drives both the size
 * computation and the pointer assignment, so they cannot disagree. */
#define MR_DATA_ARRAYS(X)                          \
  X(qpos, double, m->nq)                           \
  X(qvel, double, m->nv)                           \
  X(qacc, double, m->nv)                           \
  X(ctrl, double, m->nu)                           \
  X(act, double, m->na)                            \
  X(act_dot, double, m->na)                        \
  X(qfrc_applied, double, m->nv)                   \
  X(xfrc_applied, double, 6 * m->nbody)            \
  X(xpos, double, 3 * m->nbody)                    \
  X(xquat, double, 4 * m->nbody)                   \
  X(xmat, double, 9 * m->nbody)                    \
  X(xipos, double, 3 * m->nbody)                   \
  X(ximat, double, 9 * m->nbody)                   \
  X(xanchor, double, 3 * m->njnt)                  \
  X(xaxis, double, 3 * m->njnt)                    \
  X(geom_xpos, double, 3 * m->ngeom)               \
  X(geom_xmat, double, 9 * m->ngeom)               \
  X(site_xpos, double, 3 * m->nsite)               \
  X(site_xmat, double, 9 * m->nsite)               \
  X(cam_xpos, double, 3 * m->ncam)                 \
  X(cam_xmat, double, 9 * m->ncam)                 \
  X(subtree_com, double, 3 * m->nbody)             \
  X(cdof, double, 6 * m->nv)                       \
  X(cinert, double, 10 * m->nbody)                 \
  X(crb, double, 10 * m->nbody)                    \
  X(qM, double, m->nM)                             \
  X(qLD, double, m->nM)                            \
  X(qLDiagInv, double, m->nv)                      \
  X(qAdiag, double, m->nv)                         \
  X(cvel, double, 6 * m->nbody)                    \
  X(cdof_dot, double, 6 * m->nv)                   \
  X(qfrc_bias, double, m->nv)                      \
  X(qfrc_passive, double, m->nv)                   \
  X(qfrc_actuator, double, m->nv)                  \
  X(actuator_force, double, m->nu)                 \
  X(actuator_length, double, m->nu)                \
  X(actuator_velocity, double, m->nu)              \
  X(actuator_moment, double, m->nJmom)             \
  X(ten_length, double, m->ntendon)                \
  X(ten_velocity, double, m->ntendon)              \
  X(ten_J, double, m->nJten)                       \
  X(ten_wrapadr, int, m->ntendon)                  \
  X(ten_wrapnum, int, m->ntendon)                  \
  X(wrap_obj, int, 2 * m->nwrap)                   \
  X(wrap_xpos, double, 6 * m->nwrap)               \
  X(ten_limit_impulse, double, 2 * m->ntendon)     \
  X(qfrc_smooth, double, m->nv)                    \
  X(qacc_smooth, double, m->nv)                    \
  X(qfrc_constraint, double, m->nv)                \
  X(cacc, double, 6 * m->nbody)                    \
  X(cfrc_int, double, 6 * m->nbody)                \
  X(cfrc_ext, double, 6 * m->nbody)                \
  X(subtree_linvel, double, 3 * m->nbody)          \
  X(subtree_angmom, double, 3 * m->nbody)          \
  X(sensordata, double, m->nsensordata)            \
  X(contact, mr_contact, maxcon)                   \
  X(contact_prev, mr_contact, maxcon)              \
  X(depth_anchor, mr_depth_anchor, 2 * maxcon)     \
  X(limit_impulse, double, 2 * m->njnt)            \
  X(solver_history, double, MR_MAX_ITER_CAP)

static size_t mr_data_buffer_bytes(const mr_model *m) {
  int maxcon = mr_contact_capacity(m);
  size_t bytes = 0;
#define MR_COUNT(field, type, n) bytes += mr_align_up((size_t)(n) * sizeof(type));
  MR_DATA_ARRAYS(MR_COUNT)
#undef MR_COUNT
  return bytes;
}

static void mr_data_assign(const mr_model *m, mr_data *d) {
  int maxcon = d->maxcon = mr_contact_capacity(m);
  unsigned char *p = d->buffer;
#define MR_ASSIGN(field, type, n)                    \
  d->field = (type *)p;                              \
  p += mr_align_up((size_t)(n) * sizeof(type));
  MR_DATA_ARRAYS(MR_ASSIGN)
#undef MR_ASSIGN
}

/* 64-byte aligned block; the pointer to free is stored just before it so that a plain
 * malloc suffices (aligned_alloc would need a size multiple of the alignment). */
static void *mr_aligned_calloc(size_t bytes) {
  unsigned char *raw = calloc(1, bytes + MR_ALIGN + sizeof(void *));
  if (!raw) return NULL;
  uintptr_t start = (uintptr_t)(raw + sizeof(void *));
  unsigned char *aligned = (unsigned char *)((start + MR_ALIGN - 1) & ~(uintptr_t)(MR_ALIGN - 1));
  memcpy(aligned - sizeof(void *), &raw, sizeof raw);
  return aligned;
}

static void mr_aligned_free(void *p) {
  if (!p) return;
  void *raw;
  memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof raw);
  free(raw);
}

/* ------------------------------------------------------------------ public */

size_t mr_data_bytes(const mr_model *m) {
  const size_t block = MR_ALIGN + sizeof(void *); /* mr_aligned_calloc's overhead */
  return sizeof(mr_data) + mr_data_buffer_bytes(m) + mr_arena_size(m, 1) + 2 * block;
}

static mr_data *mr_data_create_sized(const mr_model *m, int constraints) {
  if (!m || m->nbody < 1) return NULL;
  mr_data *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->nbuffer = mr_data_buffer_bytes(m);
  d->buffer = mr_aligned_calloc(d->nbuffer);
  d->narena = mr_arena_size(m, constraints);
  d->arena = mr_aligned_calloc(d->narena);
  if (!d->buffer || !d->arena) {
    mr_data_free(d);
    return NULL;
  }
  mr_data_assign(m, d);
  d->opt = m->opt;
  if (!constraints) d->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT;
  mr_data_reset(m, d);
  return d;
}

mr_data *mr_data_create(const mr_model *m) { return mr_data_create_sized(m, 1); }

mr_data *mr_data_create_smooth(const mr_model *m) { return mr_data_create_sized(m, 0); }

void mr_data_free(mr_data *d) {
  if (!d) return;
  mr_aligned_free(d->buffer);
  mr_aligned_free(d->arena);
  free(d);
}

int mr_data_copy(const mr_model *m, mr_data *dst, const mr_data *src) {
  if (!m || !dst || !src || dst->nbuffer != src->nbuffer || dst->nbuffer != mr_data_buffer_bytes(m))
    return -1;
  if (dst == src) return 0; /* memcpy onto itself is undefined */
  unsigned char *buffer = dst->buffer, *arena = dst->arena;
  size_t narena = dst->narena;
  *dst = *src;
  dst->buffer = buffer;
  dst->arena = arena;
  dst->narena = narena;
  dst->parena = 0;
  memcpy(buffer, src->buffer, src->nbuffer);
  mr_data_assign(m, dst);
  return 0;
}

void mr_data_reset(const mr_model *m, mr_data *d) {
  mr_option opt = d->opt;
  unsigned char *buffer = d->buffer, *arena = d->arena;
  size_t nbuffer = d->nbuffer, narena = d->narena;
  memset(buffer, 0, nbuffer);
  memset(d, 0, sizeof *d);
  d->opt = opt;
  d->buffer = buffer;
  d->nbuffer = nbuffer;
  d->arena = arena;
  d->narena = narena;
  mr_data_assign(m, d);
  if (m->nq > 0) memcpy(d->qpos, m->qpos0, (size_t)m->nq * sizeof(double));
  /* The world body's frame is fixed: kinematics never writes it. */
  for (int k = 0; k < 3; k++) d->xmat[4 * k] = d->ximat[4 * k] = 1;
  d->xquat[0] = 1;
}

int mr_data_reset_keyframe(const mr_model *m, mr_data *d, int k) {
  if (k < 0 || k >= m->nkey) return -1;
  mr_data_reset(m, d);
  d->time = m->key_time[k];
  if (m->nq > 0) memcpy(d->qpos, m->key_qpos + (size_t)k * m->nq, (size_t)m->nq * sizeof(double));
  if (m->nv > 0) memcpy(d->qvel, m->key_qvel + (size_t)k * m->nv, (size_t)m->nv * sizeof(double));
  if (m->nu > 0) memcpy(d->ctrl, m->key_ctrl + (size_t)k * m->nu, (size_t)m->nu * sizeof(double));
  if (m->na > 0) memcpy(d->act, m->key_act + (size_t)k * m->na, (size_t)m->na * sizeof(double));
  return 0;
}
