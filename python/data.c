/* The Data type: one simulation state (mr_data) of a Model, as MuJoCo's MjData is.
 *
 * Arrays (d.qpos, d.qvel, d.ctrl, d.qacc, d.xpos, d.xquat and the rest of the table below)
 * are numpy views of the C memory: writing into them changes the state, and they stay
 * valid across reset (mr_data_reset keeps every array where it is). Assigning a whole
 * attribute (d.qpos = q) copies into the view. d.metrics and d.contacts are snapshots of
 * the last step: a dict of every per-step measure, and a structured array of the contacts.
 * d.solver and d.integrator switch at run time, between any two steps, as the viewer's
 * keys do. */
#include "module.h"

#include <stddef.h>
#include <string.h>

#include "engine/constraint/constraint.h"

/* ------------------------------------------------------------------ tables */

/* Views: (field, rows, columns); every one is double. */
#define DATA_ARRAYS(X)                          \
  X(qpos, MR_PY_NQ, 1)                          \
  X(qvel, MR_PY_NV, 1)                          \
  X(qacc, MR_PY_NV, 1)                          \
  X(ctrl, MR_PY_NU, 1)                          \
  X(qfrc_applied, MR_PY_NV, 1)                  \
  X(xfrc_applied, MR_PY_NBODY, 6)               \
  X(xpos, MR_PY_NBODY, 3)                       \
  X(xquat, MR_PY_NBODY, 4)                      \
  X(xmat, MR_PY_NBODY, 9)                       \
  X(xipos, MR_PY_NBODY, 3)                      \
  X(ximat, MR_PY_NBODY, 9)                      \
  X(xanchor, MR_PY_NJNT, 3)                     \
  X(xaxis, MR_PY_NJNT, 3)                       \
  X(geom_xpos, MR_PY_NGEOM, 3)                  \
  X(geom_xmat, MR_PY_NGEOM, 9)                  \
  X(site_xpos, MR_PY_NSITE, 3)                  \
  X(site_xmat, MR_PY_NSITE, 9)                  \
  X(cam_xpos, MR_PY_NCAM, 3)                    \
  X(cam_xmat, MR_PY_NCAM, 9)                    \
  X(subtree_com, MR_PY_NBODY, 3)                \
  X(cvel, MR_PY_NBODY, 6)                       \
  X(qM, MR_PY_NM, 1)                            \
  X(qfrc_bias, MR_PY_NV, 1)                     \
  X(qfrc_passive, MR_PY_NV, 1)                  \
  X(qfrc_actuator, MR_PY_NV, 1)                 \
  X(actuator_force, MR_PY_NU, 1)                \
  X(actuator_length, MR_PY_NU, 1)               \
  X(actuator_velocity, MR_PY_NU, 1)             \
  X(act, MR_PY_NA, 1)                           \
  X(act_dot, MR_PY_NA, 1)                       \
  X(ten_length, MR_PY_NTENDON, 1)               \
  X(ten_velocity, MR_PY_NTENDON, 1)             \
  X(sensordata, MR_PY_NSENSORDATA, 1)           \
  X(qfrc_smooth, MR_PY_NV, 1)                   \
  X(qacc_smooth, MR_PY_NV, 1)                   \
  X(qfrc_constraint, MR_PY_NV, 1)

enum {
#define SLOT(field, ...) SLOT_##field,
  DATA_ARRAYS(SLOT)
#undef SLOT
  SLOT_energy,
  SLOT_COUNT
};
_Static_assert((int)SLOT_COUNT <= (int)MR_PY_DATA_SLOTS, "MR_PY_DATA_SLOTS is too small");

typedef struct array_spec {
  size_t offset; /* of the pointer in mr_data */
  int rows, cols, slot;
} array_spec;

static const array_spec data_arrays[] = {
#define SPEC(field, rows, cols) {offsetof(mr_data, field), rows, cols, SLOT_##field},
    DATA_ARRAYS(SPEC)
#undef SPEC
};

/* Every field of mr_metrics, then the step's solver and contact counts. */
#define METRICS_FIELDS(X)                                                                 \
  X(primal) X(dual) X(complementarity) X(natural_map) X(signorini) X(dissipation)        \
  X(penetration) X(loop_closure) X(energy) X(solver_time)

/* ------------------------------------------------------------------ contacts */

/* One row of d.contacts; the dtype below mirrors it field by field. */
typedef struct contact_row {
  int geom1, geom2, body1, body2;
  double pos[3];
  double normal[3];
  double frame[9];
  double dist;
  double impulse[3];
  double friction[5];
  int dim;
  unsigned id;
  int age;
} contact_row;

static PyArray_Descr *contact_dtype;

/* A field list of the dtype: name, numpy format, offset in contact_row. */
static int dtype_add(PyObject *names, PyObject *formats, PyObject *offsets, const char *name,
                     const char *format, size_t offset) {
  PyObject *n = PyUnicode_FromString(name), *f = PyUnicode_FromString(format);
  PyObject *o = PyLong_FromSize_t(offset);
  int status = n && f && o && PyList_Append(names, n) == 0 && PyList_Append(formats, f) == 0 &&
                       PyList_Append(offsets, o) == 0 ? 0 : -1;
  Py_XDECREF(n);
  Py_XDECREF(f);
  Py_XDECREF(o);
  return status;
}

static int contact_dtype_build(void) {
  PyObject *names = PyList_New(0), *formats = PyList_New(0), *offsets = PyList_New(0);
  PyObject *spec = NULL;
  int status = -1;
#define FIELD(name, format) \
  if (dtype_add(names, formats, offsets, #name, format, offsetof(contact_row, name))) goto done;
  if (!names || !formats || !offsets) goto done;
  FIELD(geom1, "i4") FIELD(geom2, "i4") FIELD(body1, "i4") FIELD(body2, "i4")
  FIELD(pos, "3f8") FIELD(normal, "3f8") FIELD(frame, "(3,3)f8") FIELD(dist, "f8")
  FIELD(impulse, "3f8") FIELD(friction, "5f8") FIELD(dim, "i4") FIELD(id, "u4") FIELD(age, "i4")
#undef FIELD
  spec = Py_BuildValue("{s:O,s:O,s:O,s:n}", "names", names, "formats", formats, "offsets",
                       offsets, "itemsize", (Py_ssize_t)sizeof(contact_row));
  if (spec && PyArray_DescrConverter(spec, &contact_dtype) == NPY_SUCCEED) status = 0;
done:
  Py_XDECREF(names);
  Py_XDECREF(formats);
  Py_XDECREF(offsets);
  Py_XDECREF(spec);
  return status;
}

int mr_py_data_init(PyObject *module) {
  if (contact_dtype_build() < 0) return -1;
  Py_INCREF(contact_dtype);
  if (PyModule_AddObject(module, "contact_dtype", (PyObject *)contact_dtype) < 0) {
    Py_DECREF(contact_dtype);
    return -1;
  }
  return 0;
}

static void contact_fill(contact_row *row, const mr_contact *c) {
  memset(row, 0, sizeof *row);
  row->geom1 = c->geom1;
  row->geom2 = c->geom2;
  row->body1 = c->body1;
  row->body2 = c->body2;
  memcpy(row->pos, c->pos, sizeof row->pos);
  memcpy(row->normal, c->frame, sizeof row->normal);
  memcpy(row->frame, c->frame, sizeof row->frame);
  row->dist = c->dist;
  memcpy(row->impulse, c->impulse, sizeof row->impulse);
  memcpy(row->friction, c->friction, sizeof row->friction);
  row->dim = c->dim;
  row->id = c->id;
  row->age = c->age;
}

/* ------------------------------------------------------------------ the type */

static void data_release(void *d) { mr_data_free(d); }

static PyObject *data_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"m", NULL};
  PyObject *model;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!:Data", names, &mr_py_model_type, &model))
    return NULL;
  mr_data *d = mr_data_create(((mr_py_model *)model)->m);
  if (!d) return PyErr_NoMemory();
  PyObject *memory = mr_py_memory_new(d, data_release);
  mr_py_data *self = memory ? (mr_py_data *)type->tp_alloc(type, 0) : NULL;
  if (!self) {
    Py_XDECREF(memory);
    return NULL;
  }
  self->d = d;
  self->memory = memory;
  Py_INCREF(model);
  self->model = (mr_py_model *)model;
  return (PyObject *)self;
}

static void data_dealloc(PyObject *self) {
  mr_py_data *pd = (mr_py_data *)self;
  for (int i = 0; i < SLOT_COUNT; i++) Py_XDECREF(pd->slots[i]);
  Py_XDECREF(pd->memory);
  Py_XDECREF(pd->model);
  Py_TYPE(self)->tp_free(self);
}

static PyObject *data_repr(PyObject *self) {
  const mr_py_data *pd = (const mr_py_data *)self;
  char time[64];
  snprintf(time, sizeof time, "%.17g", pd->d->time);
  return PyUnicode_FromFormat("<moreau.Data of '%s' time=%s nstep=%ld>",
                              pd->model->m->model_name ? pd->model->m->model_name : "", time,
                              pd->d->nstep);
}

/* Setters refuse while another thread steps the data. */
static int data_check_settable(mr_py_data *pd, PyObject *value, const char *what) {
  if (!value) {
    PyErr_Format(PyExc_AttributeError, "%s cannot be deleted", what);
    return -1;
  }
  if (pd->busy) {
    mr_py_raise("%s: this Data is being stepped by another thread", pd->model->m->source_path);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ arrays */

static PyObject *get_array(PyObject *self, void *closure) {
  mr_py_data *pd = (mr_py_data *)self;
  const array_spec *s = closure;
  double *data = *(double **)(void *)((char *)pd->d + s->offset);
  return mr_py_cached_view(&pd->slots[s->slot], pd->memory, pd->model->m, data, NPY_DOUBLE, s->rows,
                           s->cols, 1);
}

/* d.qpos = q: a copy into the view, shape-checked (broadcast) by numpy. */
static int set_array(PyObject *self, PyObject *value, void *closure) {
  if (data_check_settable((mr_py_data *)self, value, "a state array")) return -1;
  PyObject *view = get_array(self, closure);
  if (!view) return -1;
  int status = PyArray_CopyObject((PyArrayObject *)view, value);
  Py_DECREF(view);
  return status;
}

static PyObject *get_energy(PyObject *self, void *closure) {
  (void)closure;
  mr_py_data *pd = (mr_py_data *)self;
  return mr_py_cached_view(&pd->slots[SLOT_energy], pd->memory, pd->model->m, pd->d->energy,
                           NPY_DOUBLE, 2, 1, 1);
}

/* ------------------------------------------------------------------ scalars and settings */

static PyObject *get_time(PyObject *self, void *closure) {
  (void)closure;
  return PyFloat_FromDouble(((mr_py_data *)self)->d->time);
}

static int set_time(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  mr_py_data *pd = (mr_py_data *)self;
  if (data_check_settable(pd, value, "time")) return -1;
  double t = PyFloat_AsDouble(value);
  if (t == -1 && PyErr_Occurred()) return -1;
  pd->d->time = t;
  return 0;
}

/* Read-only ints of mr_data, by offset. */
static PyObject *get_int(PyObject *self, void *closure) {
  return PyLong_FromLong(*(const int *)(const void *)((const char *)((mr_py_data *)self)->d + (size_t)closure));
}

static PyObject *get_nstep(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(((mr_py_data *)self)->d->nstep);
}

static PyObject *get_model(PyObject *self, void *closure) {
  (void)closure;
  PyObject *m = (PyObject *)((mr_py_data *)self)->model;
  Py_INCREF(m);
  return m;
}

static PyObject *get_opt(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_option_new(self, &((mr_py_data *)self)->d->opt, 1);
}

static PyObject *get_solver(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_solver_get(&((mr_py_data *)self)->d->opt);
}

static int set_solver(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  mr_py_data *pd = (mr_py_data *)self;
  if (data_check_settable(pd, value, "solver")) return -1;
  return mr_py_solver_set(&pd->d->opt, value);
}

static PyObject *get_integrator(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_integrator_get(&((mr_py_data *)self)->d->opt);
}

static int set_integrator(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  mr_py_data *pd = (mr_py_data *)self;
  if (data_check_settable(pd, value, "integrator")) return -1;
  return mr_py_integrator_set(&pd->d->opt, value);
}

/* ------------------------------------------------------------------ snapshots */

static int dict_set(PyObject *dict, const char *key, PyObject *value) {
  int status = value ? PyDict_SetItemString(dict, key, value) : -1;
  Py_XDECREF(value);
  return status;
}

static PyObject *get_metrics(PyObject *self, void *closure) {
  (void)closure;
  const mr_data *d = ((mr_py_data *)self)->d;
  PyObject *dict = PyDict_New();
  if (!dict) return NULL;
  int failed = 0;
#define METRIC(field) failed |= dict_set(dict, #field, PyFloat_FromDouble(d->metrics.field));
  METRICS_FIELDS(METRIC)
#undef METRIC
  failed |= dict_set(dict, "iterations", PyLong_FromLong(d->solver_iters));
  failed |= dict_set(dict, "pgs_sweeps", PyLong_FromLong(d->solver_sweeps)); /* of iterations */
  failed |= dict_set(dict, "residual", PyFloat_FromDouble(d->solver_residual));
  failed |= dict_set(dict, "status", PyLong_FromLong(d->solver_status));
  failed |= dict_set(dict, "nefc", PyLong_FromLong(d->nefc));
  failed |= dict_set(dict, "ncon", PyLong_FromLong(d->ncon));
  failed |= dict_set(dict, "ncon_dropped", PyLong_FromLong(d->ncon_dropped));
  failed |= dict_set(dict, "newton_iters", PyLong_FromLong(d->newton_iters));
  failed |= dict_set(dict, "newton_residual", PyFloat_FromDouble(d->newton_residual));
  failed |= dict_set(dict, "newton_status", PyLong_FromLong(d->newton_status));
  if (failed) Py_CLEAR(dict);
  return dict;
}

static PyObject *get_contacts(PyObject *self, void *closure) {
  (void)closure;
  const mr_data *d = ((mr_py_data *)self)->d;
  npy_intp n = d->ncon;
  Py_INCREF(contact_dtype); /* PyArray_NewFromDescr steals it */
  PyObject *a = PyArray_NewFromDescr(&PyArray_Type, contact_dtype, 1, &n, NULL, NULL, 0, NULL);
  if (!a) return NULL;
  contact_row *rows = PyArray_DATA((PyArrayObject *)a);
  for (int i = 0; i < d->ncon; i++) contact_fill(&rows[i], &d->contact[i]);
  return a;
}

/* The last solve's residual after each iteration (a copy). */
static PyObject *get_solver_history(PyObject *self, void *closure) {
  (void)closure;
  const mr_data *d = ((mr_py_data *)self)->d;
  npy_intp n = d->solver_iters < 0 ? 0 : d->solver_iters > MR_MAX_ITER_CAP ? MR_MAX_ITER_CAP : d->solver_iters;
  PyObject *a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (a && n) memcpy(PyArray_DATA((PyArrayObject *)a), d->solver_history, (size_t)n * sizeof(double));
  return a;
}

static PyGetSetDef data_getset[] = {
#define ARRAY(field, rows, cols) \
  {#field, get_array, set_array, "view of the state (writable)", (void *)&data_arrays[SLOT_##field]},
    DATA_ARRAYS(ARRAY)
#undef ARRAY
    {"energy", get_energy, NULL, "potential and kinetic energy of the last step's start state (view)", NULL},
    {"time", get_time, set_time, "simulated time (s)", NULL},
    {"nstep", get_nstep, NULL, "steps since the data was made or reset", NULL},
    {"ncon", get_int, NULL, "contacts of the last step", (void *)offsetof(mr_data, ncon)},
    {"nefc", get_int, NULL, "constraint rows of the last step", (void *)offsetof(mr_data, nefc)},
    {"maxcon", get_int, NULL, "contact capacity", (void *)offsetof(mr_data, maxcon)},
    {"warning_count", get_int, NULL, "warnings so far (non-finite states)", (void *)offsetof(mr_data, warning_count)},
    {"model", get_model, NULL, "the Model this data belongs to", NULL},
    {"opt", get_opt, NULL, "this data's run-time settings (writable)", NULL},
    {"solver", get_solver, set_solver, "the contact solver, by name; switch at any time", NULL},
    {"integrator", get_integrator, set_integrator, "'euler' or 'midpoint'; switch at any time", NULL},
    {"metrics", get_metrics, NULL,
     "dict of the last step's measures: every mr_metrics field (primal, dual, complementarity,\n"
     "natural_map, signorini, dissipation, penetration, loop_closure, energy, solver_time) and\n"
     "iterations, residual, status (0 converged, 1 cap, 2 failed), nefc, ncon, ncon_dropped,\n"
     "newton_iters, newton_residual, newton_status (midpoint stage 1)", NULL},
    {"contacts", get_contacts, NULL,
     "the last step's contacts, a structured array (moreau.contact_dtype): geom1, geom2, body1,\n"
     "body2, pos, normal (geom1 to geom2), frame (rows normal, t1, t2), dist (< 0 penetrating),\n"
     "impulse (N s, in the frame), friction, dim, id (persistent), age", NULL},
    {"solver_history", get_solver_history, NULL, "the last solve's residual per iteration", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject mr_py_data_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau.Data",
    .tp_basicsize = sizeof(mr_py_data),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Data(m): a simulation state of model m, at qpos0 with the model's settings.",
    .tp_new = data_new,
    .tp_dealloc = data_dealloc,
    .tp_repr = data_repr,
    .tp_getset = data_getset,
};
