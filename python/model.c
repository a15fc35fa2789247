/* moreau.load and the Model type: an immutable mr_model seen from Python.
 *
 * Sizes are ints (m.nq, m.nbody...), names are tuples (m.body_names...), arrays are
 * read-only numpy views of the model's memory with MuJoCo's names and shapes (m.body_mass,
 * m.jnt_range as njnt x 2, m.key_qpos as nkey x nq...), and m.opt holds the defaults every
 * Data starts from. Loading releases the GIL: a model with many meshes takes seconds. */
#include "module.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* The parsers' libraries are not known to be reentrant (batch_pool.c loads under a lock for
 * the same reason): one load at a time, whatever the Python threads do. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ tables */

/* Sizes: (attribute, mr_model field). */
#define MODEL_SIZES(X)                                                                   \
  X(nq) X(nv) X(nu) X(nbody) X(njnt) X(ngeom) X(nsite) X(ncam) X(nlight) X(nmesh) X(nmat) \
  X(ntex) X(neq) X(nexclude) X(npair) X(nkey) X(nM) X(na) X(ntendon) \
  X(nsensor) X(nsensordata) X(nhfield)

/* Arrays: (field, element type, rows, columns); sizes as in module.h. */
#define MODEL_ARRAYS(X)                                  \
  X(body_parentid, NPY_INT, MR_PY_NBODY, 1)              \
  X(body_rootid, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_weldid, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_jntnum, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_jntadr, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_dofnum, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_dofadr, NPY_INT, MR_PY_NBODY, 1)                \
  X(body_geomnum, NPY_INT, MR_PY_NBODY, 1)               \
  X(body_geomadr, NPY_INT, MR_PY_NBODY, 1)               \
  X(body_pos, NPY_DOUBLE, MR_PY_NBODY, 3)                \
  X(body_quat, NPY_DOUBLE, MR_PY_NBODY, 4)               \
  X(body_ipos, NPY_DOUBLE, MR_PY_NBODY, 3)               \
  X(body_iquat, NPY_DOUBLE, MR_PY_NBODY, 4)              \
  X(body_mass, NPY_DOUBLE, MR_PY_NBODY, 1)               \
  X(body_inertia, NPY_DOUBLE, MR_PY_NBODY, 3)            \
  X(body_subtreemass, NPY_DOUBLE, MR_PY_NBODY, 1)        \
  X(jnt_type, NPY_INT, MR_PY_NJNT, 1)                    \
  X(jnt_bodyid, NPY_INT, MR_PY_NJNT, 1)                  \
  X(jnt_qposadr, NPY_INT, MR_PY_NJNT, 1)                 \
  X(jnt_dofadr, NPY_INT, MR_PY_NJNT, 1)                  \
  X(jnt_limited, NPY_INT, MR_PY_NJNT, 1)                 \
  X(jnt_pos, NPY_DOUBLE, MR_PY_NJNT, 3)                  \
  X(jnt_axis, NPY_DOUBLE, MR_PY_NJNT, 3)                 \
  X(jnt_range, NPY_DOUBLE, MR_PY_NJNT, 2)                \
  X(jnt_stiffness, NPY_DOUBLE, MR_PY_NJNT, 1)            \
  X(jnt_margin, NPY_DOUBLE, MR_PY_NJNT, 1)               \
  X(dof_bodyid, NPY_INT, MR_PY_NV, 1)                    \
  X(dof_jntid, NPY_INT, MR_PY_NV, 1)                     \
  X(dof_parentid, NPY_INT, MR_PY_NV, 1)                  \
  X(dof_Madr, NPY_INT, MR_PY_NV, 1)                      \
  X(dof_armature, NPY_DOUBLE, MR_PY_NV, 1)               \
  X(dof_damping, NPY_DOUBLE, MR_PY_NV, 1)                \
  X(dof_frictionloss, NPY_DOUBLE, MR_PY_NV, 1)           \
  X(qpos0, NPY_DOUBLE, MR_PY_NQ, 1)                      \
  X(qpos_spring, NPY_DOUBLE, MR_PY_NQ, 1)                \
  X(geom_type, NPY_INT, MR_PY_NGEOM, 1)                  \
  X(geom_bodyid, NPY_INT, MR_PY_NGEOM, 1)                \
  X(geom_contype, NPY_INT, MR_PY_NGEOM, 1)               \
  X(geom_conaffinity, NPY_INT, MR_PY_NGEOM, 1)           \
  X(geom_condim, NPY_INT, MR_PY_NGEOM, 1)                \
  X(geom_group, NPY_INT, MR_PY_NGEOM, 1)                 \
  X(geom_meshid, NPY_INT, MR_PY_NGEOM, 1)                \
  X(geom_size, NPY_DOUBLE, MR_PY_NGEOM, 3)               \
  X(geom_pos, NPY_DOUBLE, MR_PY_NGEOM, 3)                \
  X(geom_quat, NPY_DOUBLE, MR_PY_NGEOM, 4)               \
  X(geom_friction, NPY_DOUBLE, MR_PY_NGEOM, 3)           \
  X(geom_margin, NPY_DOUBLE, MR_PY_NGEOM, 1)             \
  X(geom_rgba, NPY_FLOAT, MR_PY_NGEOM, 4)                \
  X(site_bodyid, NPY_INT, MR_PY_NSITE, 1)                \
  X(site_pos, NPY_DOUBLE, MR_PY_NSITE, 3)                \
  X(site_quat, NPY_DOUBLE, MR_PY_NSITE, 4)               \
  X(cam_bodyid, NPY_INT, MR_PY_NCAM, 1)                  \
  X(actuator_trntype, NPY_INT, MR_PY_NU, 1)              \
  X(actuator_dyntype, NPY_INT, MR_PY_NU, 1)              \
  X(actuator_gaintype, NPY_INT, MR_PY_NU, 1)             \
  X(actuator_biastype, NPY_INT, MR_PY_NU, 1)             \
  X(actuator_trnid, NPY_INT, MR_PY_NU, 2)                \
  X(actuator_ctrllimited, NPY_INT, MR_PY_NU, 1)          \
  X(actuator_forcelimited, NPY_INT, MR_PY_NU, 1)         \
  X(actuator_actlimited, NPY_INT, MR_PY_NU, 1)           \
  X(actuator_gear, NPY_DOUBLE, MR_PY_NU, 6)              \
  X(actuator_ctrlrange, NPY_DOUBLE, MR_PY_NU, 2)         \
  X(actuator_forcerange, NPY_DOUBLE, MR_PY_NU, 2)        \
  X(actuator_actrange, NPY_DOUBLE, MR_PY_NU, 2)          \
  X(actuator_dynprm, NPY_DOUBLE, MR_PY_NU, MR_NDYN)      \
  X(actuator_gainprm, NPY_DOUBLE, MR_PY_NU, MR_NGAIN)    \
  X(actuator_biasprm, NPY_DOUBLE, MR_PY_NU, MR_NBIAS)    \
  X(tendon_limited, NPY_INT, MR_PY_NTENDON, 1)           \
  X(tendon_range, NPY_DOUBLE, MR_PY_NTENDON, 2)          \
  X(tendon_stiffness, NPY_DOUBLE, MR_PY_NTENDON, 1)      \
  X(tendon_damping, NPY_DOUBLE, MR_PY_NTENDON, 1)        \
  X(eq_type, NPY_INT, MR_PY_NEQ, 1)                      \
  X(eq_obj1id, NPY_INT, MR_PY_NEQ, 1)                    \
  X(eq_obj2id, NPY_INT, MR_PY_NEQ, 1)                    \
  X(eq_active, NPY_INT, MR_PY_NEQ, 1)                    \
  X(exclude_body1, NPY_INT, MR_PY_NEXCLUDE, 1)           \
  X(exclude_body2, NPY_INT, MR_PY_NEXCLUDE, 1)           \
  X(pair_geom1, NPY_INT, MR_PY_NPAIR, 1)                 \
  X(pair_geom2, NPY_INT, MR_PY_NPAIR, 1)                 \
  X(key_time, NPY_DOUBLE, MR_PY_NKEY, 1)                 \
  X(key_qpos, NPY_DOUBLE, MR_PY_NKEY, MR_PY_NQ)          \
  X(key_qvel, NPY_DOUBLE, MR_PY_NKEY, MR_PY_NV)          \
  X(key_ctrl, NPY_DOUBLE, MR_PY_NKEY, MR_PY_NU)

/* Name lists: (attribute, object type). */
#define MODEL_NAMES(X)                                                                    \
  X(body_names, MR_OBJ_BODY) X(joint_names, MR_OBJ_JOINT) X(geom_names, MR_OBJ_GEOM)      \
  X(site_names, MR_OBJ_SITE) X(camera_names, MR_OBJ_CAMERA) X(light_names, MR_OBJ_LIGHT)  \
  X(mesh_names, MR_OBJ_MESH) X(material_names, MR_OBJ_MATERIAL)                            \
  X(texture_names, MR_OBJ_TEXTURE) X(actuator_names, MR_OBJ_ACTUATOR)                      \
  X(equality_names, MR_OBJ_EQUALITY) X(key_names, MR_OBJ_KEY) X(tendon_names, MR_OBJ_TENDON)     \
  X(sensor_names, MR_OBJ_SENSOR)

/* Each array and name list gets a cache slot: the arrays first, then the names. */
enum {
#define SLOT(field, ...) SLOT_##field,
  MODEL_ARRAYS(SLOT)
#undef SLOT
  ARRAY_COUNT
};
enum {
#define INDEX(field, type) NAMES_##field,
  MODEL_NAMES(INDEX)
#undef INDEX
  NAMES_COUNT
};
_Static_assert((int)ARRAY_COUNT + (int)NAMES_COUNT <= (int)MR_PY_MODEL_SLOTS, "MR_PY_MODEL_SLOTS is too small");

typedef struct array_spec {
  size_t offset; /* of the pointer in mr_model */
  int typenum, rows, cols;
  int slot;
} array_spec;

static const array_spec model_arrays[] = {
#define SPEC(field, type, rows, cols) {offsetof(mr_model, field), type, rows, cols, SLOT_##field},
    MODEL_ARRAYS(SPEC)
#undef SPEC
};

typedef struct names_spec {
  mr_obj_type type;
  int slot;
} names_spec;

static const names_spec model_names[] = {
#define SPEC(field, type) {type, ARRAY_COUNT + NAMES_##field},
    MODEL_NAMES(SPEC)
#undef SPEC
};

/* ------------------------------------------------------------------ getters */

static PyObject *get_size(PyObject *self, void *closure) {
  const mr_model *m = ((mr_py_model *)self)->m;
  return PyLong_FromLong(*(const int *)(const void *)((const char *)m + (size_t)closure));
}

static PyObject *get_array(PyObject *self, void *closure) {
  mr_py_model *pm = (mr_py_model *)self;
  const array_spec *s = closure;
  void *data = *(void **)(void *)((char *)pm->m + s->offset);
  return mr_py_cached_view(&pm->slots[s->slot], pm->memory, pm->m, data, s->typenum, s->rows, s->cols, 0);
}

static int object_count(const mr_model *m, mr_obj_type type) {
  const int counts[MR_OBJ_NTYPES] = {m->nbody, m->njnt, m->ngeom, m->nsite, m->ncam, m->nlight,
                                     m->nmesh, m->nmat, m->ntex, m->nu, m->neq, m->nkey};
  return counts[type];
}

static PyObject *get_names(PyObject *self, void *closure) {
  mr_py_model *pm = (mr_py_model *)self;
  const names_spec *s = closure;
  PyObject **slot = &pm->slots[s->slot];
  if (!*slot) {
    int n = object_count(pm->m, s->type);
    PyObject *tuple = PyTuple_New(n);
    for (int i = 0; tuple && i < n; i++) {
      const char *text = mr_id2name(pm->m, s->type, i);
      PyObject *name = PyUnicode_FromString(text ? text : "");
      if (!name) Py_CLEAR(tuple);
      else PyTuple_SET_ITEM(tuple, i, name);
    }
    *slot = tuple;
    if (!tuple) return NULL;
  }
  Py_INCREF(*slot);
  return *slot;
}

static PyObject *get_opt(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_option_new(self, &((mr_py_model *)self)->m->opt, 0);
}

static PyObject *get_path(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_DecodeFSDefault(((mr_py_model *)self)->m->source_path);
}

static PyObject *get_name(PyObject *self, void *closure) {
  (void)closure;
  const char *name = ((mr_py_model *)self)->m->model_name;
  return PyUnicode_FromString(name ? name : "");
}

static PyObject *get_mass(PyObject *self, void *closure) {
  (void)closure;
  return PyFloat_FromDouble(mr_model_total_mass(((mr_py_model *)self)->m));
}

static PyObject *get_is_urdf(PyObject *self, void *closure) {
  (void)closure;
  return PyBool_FromLong(((mr_py_model *)self)->m->is_urdf);
}

static PyGetSetDef model_getset[] = {
#define SIZE(field) {#field, get_size, NULL, "size (read-only)", (void *)offsetof(mr_model, field)},
    MODEL_SIZES(SIZE)
#undef SIZE
#define ARRAY(field, type, rows, cols) \
  {#field, get_array, NULL, "read-only array view", (void *)&model_arrays[SLOT_##field]},
    MODEL_ARRAYS(ARRAY)
#undef ARRAY
#define NAMES(field, type) \
  {#field, get_names, NULL, "names, in id order ('' if unnamed)", (void *)&model_names[NAMES_##field]},
    MODEL_NAMES(NAMES)
#undef NAMES
    {"opt", get_opt, NULL, "the default run-time settings (read-only; a Data's own are d.opt)", NULL},
    {"path", get_path, NULL, "the file the model was loaded from", NULL},
    {"name", get_name, NULL, "the model's name", NULL},
    {"mass", get_mass, NULL, "total mass of all bodies (kg)", NULL},
    {"is_urdf", get_is_urdf, NULL, "loaded from URDF", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ------------------------------------------------------------------ the type */

static void model_dealloc(PyObject *self) {
  mr_py_model *pm = (mr_py_model *)self;
  for (int i = 0; i < ARRAY_COUNT + NAMES_COUNT; i++) Py_XDECREF(pm->slots[i]);
  Py_XDECREF(pm->memory);
  PyObject_Free(self);
}

static void model_release(void *m) { mr_model_free(m); }

static PyObject *model_repr(PyObject *self) {
  const mr_model *m = ((mr_py_model *)self)->m;
  return PyUnicode_FromFormat("<moreau.Model '%s' nq=%d nv=%d nu=%d nbody=%d from '%s'>",
                              m->model_name ? m->model_name : "", m->nq, m->nv, m->nu, m->nbody,
                              m->source_path);
}

PyTypeObject mr_py_model_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau.Model",
    .tp_basicsize = sizeof(mr_py_model),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A loaded model (immutable). Made by moreau.load(path).",
    .tp_dealloc = model_dealloc,
    .tp_repr = model_repr,
    .tp_getset = model_getset,
};

/* ------------------------------------------------------------------ functions */

static int optional_text(PyObject *value, PyObject **bytes, const char **text) {
  *bytes = NULL;
  *text = NULL;
  if (!value || value == Py_None) return 0;
  if (!PyUnicode_FSConverter(value, bytes)) return -1;
  *text = PyBytes_AS_STRING(*bytes);
  return 0;
}

PyObject *mr_py_load(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"path", "floating", "package_path", "srdf", "quiet"};
  PyObject *a[5];
  if (mr_py_args("load", args, nargs, kwnames, names, 5, 1, a)) return NULL;
  PyObject *path = NULL, *package_path = NULL, *srdf = NULL, *result = NULL;
  mr_load_options opt;
  memset(&opt, 0, sizeof opt);
  if (!PyUnicode_FSConverter(a[0], &path)) return NULL;
  if (optional_text(a[2], &package_path, &opt.package_path) || optional_text(a[3], &srdf, &opt.srdf) ||
      (a[1] && (opt.floating = PyObject_IsTrue(a[1])) < 0) || (a[4] && (opt.quiet = PyObject_IsTrue(a[4])) < 0))
    goto done;
  const char *file = PyBytes_AS_STRING(path);
  char err[1024] = "";
  mr_model *m;
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&load_lock);
  m = mr_model_load(file, &opt, err, (int)sizeof err);
  pthread_mutex_unlock(&load_lock);
  Py_END_ALLOW_THREADS
  if (!m) {
    if (err[0]) mr_py_raise("%s", err);
    else mr_py_raise("%s: cannot load the model", file);
    goto done;
  }
  PyObject *memory = mr_py_memory_new(m, model_release);
  mr_py_model *pm = memory ? PyObject_New(mr_py_model, &mr_py_model_type) : NULL;
  if (!pm) {
    Py_XDECREF(memory);
    goto done;
  }
  pm->m = m;
  pm->memory = memory;
  memset(pm->slots, 0, sizeof pm->slots);
  result = (PyObject *)pm;
done:
  Py_XDECREF(path);
  Py_XDECREF(package_path);
  Py_XDECREF(srdf);
  return result;
}

static const char *const kind_names[] = {
    "body", "joint", "geom", "site", "camera", "light", "mesh", "material", "texture",
    "actuator", "equality", "key", "tendon", "sensor", "hfield", "xbody"};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == MR_OBJ_NTYPES,
               "a kind of object without its Python name");

/* (m, kind) of name2id and id2name. */
static int kind_args(PyObject *m, PyObject *kind, mr_py_model **pm) {
  if (!PyObject_TypeCheck(m, &mr_py_model_type)) {
    PyErr_Format(PyExc_TypeError, "expected a moreau.Model, got %.100s", Py_TYPE(m)->tp_name);
    return -1;
  }
  *pm = (mr_py_model *)m;
  const char *text = PyUnicode_AsUTF8(kind);
  if (!text) return -1;
  for (int k = 0; k < MR_OBJ_NTYPES; k++)
    if (strcmp(text, kind_names[k]) == 0) return k;
  mr_py_raise("unknown object kind '%s' (body, joint, geom, site, camera, light, mesh, material, "
              "texture, actuator, equality, key, tendon, sensor, hfield, xbody)", text);
  return -1;
}

static const char *const lookup_names[] = {"m", "kind", "name"};

PyObject *mr_py_name2id(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  PyObject *a[3];
  mr_py_model *pm;
  if (mr_py_args("name2id", args, nargs, kwnames, lookup_names, 3, 3, a)) return NULL;
  int kind = kind_args(a[0], a[1], &pm);
  if (kind < 0) return NULL;
  const char *name = PyUnicode_AsUTF8(a[2]);
  return name ? PyLong_FromLong(mr_name2id(pm->m, (mr_obj_type)kind, name)) : NULL;
}

PyObject *mr_py_id2name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"m", "kind", "id"};
  PyObject *a[3];
  mr_py_model *pm;
  if (mr_py_args("id2name", args, nargs, kwnames, names, 3, 3, a)) return NULL;
  int kind = kind_args(a[0], a[1], &pm);
  if (kind < 0) return NULL;
  long id = PyLong_AsLong(a[2]);
  if (id == -1 && PyErr_Occurred()) return NULL;
  if (id < 0 || id >= object_count(pm->m, (mr_obj_type)kind))
    return mr_py_raise("no %s %ld (the model has %d)", kind_names[kind], id,
                       object_count(pm->m, (mr_obj_type)kind));
  const char *name = mr_id2name(pm->m, (mr_obj_type)kind, (int)id);
  if (!name || !name[0]) Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}
