/* mr_model's memory: every array lives in one buffer, laid out from the single list below,
 * so allocation, size and freeing can never disagree. Plus name lookups and total mass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* (element type, field, element count) for every array of mr_model. */
#define MR_MODEL_ARRAYS(X)                              \
  X(int, body_parentid, m->nbody)                       \
  X(int, body_rootid, m->nbody)                         \
  X(int, body_weldid, m->nbody)                         \
  X(int, body_jntnum, m->nbody)                         \
  X(int, body_jntadr, m->nbody)                         \
  X(int, body_dofnum, m->nbody)                         \
  X(int, body_dofadr, m->nbody)                         \
  X(int, body_geomnum, m->nbody)                        \
  X(int, body_geomadr, m->nbody)                        \
  X(double, body_pos, 3 * m->nbody)                     \
  X(double, body_quat, 4 * m->nbody)                    \
  X(double, body_ipos, 3 * m->nbody)                    \
  X(double, body_iquat, 4 * m->nbody)                   \
  X(double, body_mass, m->nbody)                        \
  X(double, body_inertia, 3 * m->nbody)                 \
  X(double, body_subtreemass, m->nbody)                 \
  X(double, body_invweight0, 2 * m->nbody)              \
  X(int, jnt_type, m->njnt)                             \
  X(int, jnt_bodyid, m->njnt)                           \
  X(int, jnt_qposadr, m->njnt)                          \
  X(int, jnt_dofadr, m->njnt)                           \
  X(int, jnt_limited, m->njnt)                          \
  X(double, jnt_pos, 3 * m->njnt)                       \
  X(double, jnt_axis, 3 * m->njnt)                      \
  X(double, jnt_range, 2 * m->njnt)                     \
  X(double, jnt_stiffness, m->njnt)                     \
  X(double, jnt_margin, m->njnt)                        \
  X(double, jnt_solref, 2 * m->njnt)                    \
  X(double, jnt_solimp, 5 * m->njnt)                    \
  X(int, dof_bodyid, m->nv)                             \
  X(int, dof_jntid, m->nv)                              \
  X(int, dof_parentid, m->nv)                           \
  X(int, dof_Madr, m->nv)                               \
  X(int, M_colind, m->nM)                               \
  X(double, dof_armature, m->nv)                        \
  X(double, dof_damping, m->nv)                         \
  X(double, dof_frictionloss, m->nv)                    \
  X(double, dof_invweight0, m->nv)                      \
  X(double, qpos0, m->nq)                               \
  X(double, qpos_spring, m->nq)                         \
  X(int, geom_type, m->ngeom)                           \
  X(int, geom_bodyid, m->ngeom)                         \
  X(int, geom_contype, m->ngeom)                        \
  X(int, geom_conaffinity, m->ngeom)                    \
  X(int, geom_condim, m->ngeom)                         \
  X(int, geom_group, m->ngeom)                          \
  X(int, geom_meshid, m->ngeom)                         \
  X(int, geom_hfieldid, m->ngeom)                       \
  X(int, geom_matid, m->ngeom)                          \
  X(double, geom_size, 3 * m->ngeom)                    \
  X(double, geom_pos, 3 * m->ngeom)                     \
  X(double, geom_quat, 4 * m->ngeom)                    \
  X(double, geom_friction, 3 * m->ngeom)                \
  X(double, geom_margin, m->ngeom)                      \
  X(double, geom_gap, m->ngeom)                         \
  X(double, geom_solref, 2 * m->ngeom)                  \
  X(double, geom_solimp, 5 * m->ngeom)                  \
  X(double, geom_solmix, m->ngeom)                      \
  X(double, geom_rbound, m->ngeom)                      \
  X(float, geom_rgba, 4 * m->ngeom)                     \
  X(int, site_bodyid, m->nsite)                         \
  X(int, site_type, m->nsite)                           \
  X(double, site_pos, 3 * m->nsite)                     \
  X(double, site_quat, 4 * m->nsite)                    \
  X(double, site_size, 3 * m->nsite)                    \
  X(float, site_rgba, 4 * m->nsite)                     \
  X(int, cam_bodyid, m->ncam)                           \
  X(double, cam_pos, 3 * m->ncam)                       \
  X(double, cam_quat, 4 * m->ncam)                      \
  X(double, cam_fovy, m->ncam)                          \
  X(int, light_bodyid, m->nlight)                       \
  X(int, light_directional, m->nlight)                  \
  X(double, light_pos, 3 * m->nlight)                   \
  X(double, light_dir, 3 * m->nlight)                   \
  X(float, light_diffuse, 3 * m->nlight)                \
  X(int, mesh_vertadr, m->nmesh)                        \
  X(int, mesh_vertnum, m->nmesh)                        \
  X(int, mesh_faceadr, m->nmesh)                        \
  X(int, mesh_facenum, m->nmesh)                        \
  X(int, mesh_hullvertadr, m->nmesh)                    \
  X(int, mesh_hullvertnum, m->nmesh)                    \
  X(int, mesh_hullfaceadr, m->nmesh)                    \
  X(int, mesh_hullfacenum, m->nmesh)                    \
  X(double, mesh_vert, 3 * m->nmeshvert)                 \
  X(float, mesh_normal, 3 * m->nmeshvert)               \
  X(int, mesh_face, 3 * m->nmeshface)                   \
  X(double, mesh_hullvert, 3 * m->nhullvert)             \
  X(int, mesh_hullface, 3 * m->nhullface)               \
  X(int, mesh_pathadr, m->nmesh)                        \
  X(double, hfield_size, 4 * m->nhfield)                \
  X(int, hfield_nrow, m->nhfield)                       \
  X(int, hfield_ncol, m->nhfield)                       \
  X(int, hfield_adr, m->nhfield)                        \
  X(float, hfield_data, m->nhfielddata)                 \
  X(float, mat_rgba, 4 * m->nmat)                       \
  X(float, mat_emission, m->nmat)                       \
  X(float, mat_specular, m->nmat)                       \
  X(float, mat_shininess, m->nmat)                      \
  X(float, mat_reflectance, m->nmat)                    \
  X(float, mat_texrepeat, 2 * m->nmat)                  \
  X(int, mat_texid, m->nmat)                            \
  X(int, tex_type, m->ntex)                             \
  X(int, tex_builtin, m->ntex)                          \
  X(int, tex_width, m->ntex)                            \
  X(int, tex_height, m->ntex)                           \
  X(float, tex_rgb1, 3 * m->ntex)                       \
  X(float, tex_rgb2, 3 * m->ntex)                       \
  X(int, tex_pathadr, m->ntex)                          \
  X(int, tendon_adr, m->ntendon)                        \
  X(int, tendon_num, m->ntendon)                        \
  X(int, tendon_limited, m->ntendon)                    \
  X(int, tendon_group, m->ntendon)                      \
  X(int, tendon_matid, m->ntendon)                      \
  X(double, tendon_range, 2 * m->ntendon)               \
  X(double, tendon_margin, m->ntendon)                  \
  X(double, tendon_stiffness, m->ntendon)               \
  X(double, tendon_damping, m->ntendon)                 \
  X(double, tendon_frictionloss, m->ntendon)            \
  X(double, tendon_lengthspring, m->ntendon)            \
  X(double, tendon_length0, m->ntendon)                 \
  X(double, tendon_invweight0, m->ntendon)              \
  X(double, tendon_width, m->ntendon)                   \
  X(double, tendon_solref_lim, 2 * m->ntendon)          \
  X(double, tendon_solimp_lim, 5 * m->ntendon)          \
  X(float, tendon_rgba, 4 * m->ntendon)                 \
  X(int, tendon_Jrowadr, m->ntendon)                    \
  X(int, tendon_Jrownnz, m->ntendon)                    \
  X(int, tendon_Jcolind, m->nJten)                      \
  X(int, wrap_type, m->nwrap)                           \
  X(int, wrap_objid, m->nwrap)                          \
  X(double, wrap_prm, m->nwrap)                         \
  X(int, actuator_kind, m->nu)                          \
  X(int, actuator_trntype, m->nu)                       \
  X(int, actuator_dyntype, m->nu)                       \
  X(int, actuator_gaintype, m->nu)                      \
  X(int, actuator_biastype, m->nu)                      \
  X(int, actuator_trnid, 2 * m->nu)                     \
  X(int, actuator_group, m->nu)                         \
  X(int, actuator_ctrllimited, m->nu)                   \
  X(int, actuator_forcelimited, m->nu)                  \
  X(int, actuator_actlimited, m->nu)                    \
  X(double, actuator_dynprm, MR_NDYN * m->nu)           \
  X(double, actuator_gainprm, MR_NGAIN * m->nu)         \
  X(double, actuator_biasprm, MR_NBIAS * m->nu)         \
  X(double, actuator_ctrlrange, 2 * m->nu)              \
  X(double, actuator_forcerange, 2 * m->nu)             \
  X(double, actuator_actrange, 2 * m->nu)               \
  X(double, actuator_gear, 6 * m->nu)                   \
  X(double, actuator_cranklength, m->nu)                \
  X(double, actuator_acc0, m->nu)                       \
  X(double, actuator_length0, m->nu)                    \
  X(double, actuator_lengthrange, 2 * m->nu)            \
  X(int, actuator_Jrowadr, m->nu)                       \
  X(int, actuator_Jrownnz, m->nu)                       \
  X(int, actuator_Jcolind, m->nJmom)                    \
  X(int, eq_type, m->neq)                               \
  X(int, eq_obj1id, m->neq)                             \
  X(int, eq_obj2id, m->neq)                             \
  X(int, eq_active, m->neq)                             \
  X(double, eq_data, 11 * m->neq)                       \
  X(double, eq_solref, 2 * m->neq)                      \
  X(double, eq_solimp, 5 * m->neq)                      \
  X(int, exclude_body1, m->nexclude)                    \
  X(int, exclude_body2, m->nexclude)                    \
  X(int, pair_geom1, m->npair)                          \
  X(int, pair_geom2, m->npair)                          \
  X(int, pair_condim, m->npair)                         \
  X(double, pair_friction, 5 * m->npair)                \
  X(double, pair_margin, m->npair)                      \
  X(double, pair_solref, 2 * m->npair)                  \
  X(double, pair_solimp, 5 * m->npair)                  \
  X(int, sensor_type, m->nsensor)                       \
  X(int, sensor_datatype, m->nsensor)                   \
  X(int, sensor_needstage, m->nsensor)                  \
  X(int, sensor_objtype, m->nsensor)                    \
  X(int, sensor_objid, m->nsensor)                      \
  X(int, sensor_reftype, m->nsensor)                    \
  X(int, sensor_refid, m->nsensor)                      \
  X(int, sensor_dim, m->nsensor)                        \
  X(int, sensor_adr, m->nsensor)                        \
  X(double, sensor_cutoff, m->nsensor)                  \
  X(double, sensor_noise, m->nsensor)                   \
  X(double, key_time, m->nkey)                          \
  X(double, key_qpos, (size_t)m->nkey * m->nq)          \
  X(double, key_qvel, (size_t)m->nkey * m->nv)          \
  X(double, key_ctrl, (size_t)m->nkey * m->nu)          \
  X(double, key_act, (size_t)m->nkey * m->na)           \
  X(char, names, m->nnames)

/* Number of objects of each named type, in mr_obj_type order. */
static int mr_model_count(const mr_model *m, int type) {
  switch (type) {
    case MR_OBJ_BODY: return m->nbody;
    case MR_OBJ_JOINT: return m->njnt;
    case MR_OBJ_GEOM: return m->ngeom;
    case MR_OBJ_SITE: return m->nsite;
    case MR_OBJ_CAMERA: return m->ncam;
    case MR_OBJ_LIGHT: return m->nlight;
    case MR_OBJ_MESH: return m->nmesh;
    case MR_OBJ_MATERIAL: return m->nmat;
    case MR_OBJ_TEXTURE: return m->ntex;
    case MR_OBJ_ACTUATOR: return m->nu;
    case MR_OBJ_EQUALITY: return m->neq;
    case MR_OBJ_KEY: return m->nkey;
    case MR_OBJ_TENDON: return m->ntendon;
    case MR_OBJ_SENSOR: return m->nsensor;
    case MR_OBJ_HFIELD: return m->nhfield;
    default: return 0;
  }
}

/* Every array starts on a 16-byte boundary, whatever precedes it. */
static size_t mr_align(size_t n) { return (n + 15) & ~(size_t)15; }

static size_t mr_model_bytes(const mr_model *m) {
  size_t bytes = 0;
#define MR_SIZE_OF(type, field, count) bytes += mr_align((size_t)(count) * sizeof(type));
  MR_MODEL_ARRAYS(MR_SIZE_OF)
#undef MR_SIZE_OF
  for (int t = 0; t < MR_OBJ_NTYPES; t++)
    bytes += mr_align((size_t)mr_model_count(m, t) * sizeof(int));
  return bytes;
}

/* Every count small enough that the largest product in MR_MODEL_ARRAYS (11 x neq, nkey x
 * nq) fits the int it is computed in: the compiler checks the sizes a file asks for
 * (engine/compile/compile_limits.c); this is the allocator's own guard. */
static int mr_model_sizes_ok(const mr_model *m) {
  const int counts[] = {m->nq, m->nv, m->nbody, m->njnt, m->ngeom, m->nsite, m->ncam,
                        m->nlight, m->nmesh, m->nmat, m->ntex, m->nu, m->neq, m->nexclude,
                        m->npair, m->nkey, m->nmeshvert, m->nmeshface, m->nhullvert,
                        m->nhullface, m->nM, m->nnames};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (counts[i] < 0 || counts[i] > (1 << 27)) return 0;
  return (int64_t)m->nkey * (m->nq + m->nv + m->nu) <= (1 << 27);
}

mr_model *mr_model_alloc(const mr_model *sizes) {
  if (!mr_model_sizes_ok(sizes)) return NULL;
  mr_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  *m = *sizes;
  m->source_path = NULL;
  m->model_name = NULL;
  m->nbuffer = mr_model_bytes(m);
  m->buffer = calloc(1, m->nbuffer ? m->nbuffer : 1);
  if (!m->buffer) {
    free(m);
    return NULL;
  }
  unsigned char *p = m->buffer;
#define MR_CARVE(type, field, count)                   \
  m->field = (type *)(void *)p;                        \
  p += mr_align((size_t)(count) * sizeof(type));
  MR_MODEL_ARRAYS(MR_CARVE)
#undef MR_CARVE
  for (int t = 0; t < MR_OBJ_NTYPES; t++) {
    m->name_adr[t] = (int *)(void *)p;
    p += mr_align((size_t)mr_model_count(m, t) * sizeof(int));
  }
  return m;
}

mr_model *mr_model_resize(const mr_model *from, const mr_model *sizes) {
  mr_model *to = mr_model_alloc(sizes);
  if (!to) return NULL;
  const mr_model *m; /* the lists' count expressions name m */
#define MR_COPY_ARRAY(type, field, count)                   \
  {                                                          \
    m = from;                                                \
    size_t n_from = (size_t)(count);                         \
    m = to;                                                  \
    size_t n_to = (size_t)(count);                           \
    size_t n = n_from < n_to ? n_from : n_to;                \
    if (n) memcpy(to->field, from->field, n * sizeof(type)); \
  }
  MR_MODEL_ARRAYS(MR_COPY_ARRAY)
#undef MR_COPY_ARRAY
  for (int t = 0; t < MR_OBJ_NTYPES; t++) {
    int a = mr_model_count(from, t), b = mr_model_count(to, t);
    int n = a < b ? a : b;
    if (n > 0) memcpy(to->name_adr[t], from->name_adr[t], (size_t)n * sizeof(int));
  }
  if (from->model_name && to->nnames == from->nnames)
    to->model_name = to->names + (from->model_name - from->names);
  if (from->source_path && to->nnames == from->nnames)
    to->source_path = to->names + (from->source_path - from->names);
  return to;
}

void mr_model_free(mr_model *m) {
  if (!m) return;
  free(m->buffer);
  free(m);
}

double mr_model_total_mass(const mr_model *m) {
  double mass = 0;
  for (int i = 0; i < m->nbody; i++) mass += m->body_mass[i];
  return mass;
}

int mr_name2id(const mr_model *m, mr_obj_type type, const char *name) {
  if (type == MR_OBJ_XBODY) type = MR_OBJ_BODY; /* the same bodies, by the same names */
  if (!m || !name || !*name || (int)type < 0 || type >= MR_OBJ_NTYPES) return -1;
  int n = mr_model_count(m, type);
  for (int i = 0; i < n; i++)
    if (strcmp(m->names + m->name_adr[type][i], name) == 0) return i;
  return -1;
}

const char *mr_id2name(const mr_model *m, mr_obj_type type, int id) {
  if (type == MR_OBJ_XBODY) type = MR_OBJ_BODY;
  if (!m || (int)type < 0 || type >= MR_OBJ_NTYPES) return NULL;
  if (id < 0 || id >= mr_model_count(m, type)) return NULL;
  return m->names + m->name_adr[type][id];
}

const char *mr_sensor_type_name(int type) {
  /* MJCF's element names, in mr_sensor_type order */
  static const char *const names[MR_SENS_NTYPES] = {
      "touch",         "accelerometer", "velocimeter",    "gyro",           "force",
      "torque",        "magnetometer",  "rangefinder",    "jointpos",       "jointvel",
      "tendonpos",     "tendonvel",     "actuatorpos",    "actuatorvel",    "actuatorfrc",
      "ballquat",      "ballangvel",    "jointlimitpos",  "jointlimitvel",  "jointlimitfrc",
      "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "framepos",     "framequat",
      "framexaxis",    "frameyaxis",    "framezaxis",     "framelinvel",    "frameangvel",
      "framelinacc",   "frameangacc",   "subtreecom",     "subtreelinvel",  "subtreeangmom",
      "clock"};
  return type >= 0 && type < MR_SENS_NTYPES ? names[type] : NULL;
}

void mr_sensor_column(const mr_model *m, int i, int k, char *buf, size_t n) {
  if (!buf || n == 0) return;
  const char *name = mr_id2name(m, MR_OBJ_SENSOR, i);
  char id[16];
  snprintf(id, sizeof id, "%d", i);
  if (!name || !name[0]) name = id;
  int len = m->sensor_dim[i] > 1 ? snprintf(buf, n, "sensor_%s_%d", name, k) : snprintf(buf, n, "sensor_%s", name);
  /* one CSV field, one word: separators and quotes become underscores */
  for (int c = 7; c < len && c < (int)n - 1; c++)
    if (buf[c] == ',' || buf[c] == '"' || buf[c] == ' ' || (unsigned char)buf[c] < 32) buf[c] = '_';
}
