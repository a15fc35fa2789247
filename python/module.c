/* The module `moreau`: moreau.Error, the shared helpers of module.h, and the functions that
 * advance a Data, named as MuJoCo's Python bindings name them (mujoco.mj_step becomes
 * moreau.step): step, forward, kinematics, reset, reset_keyframe, plus solvers().
 *
 * step and forward release the GIL for the whole call: other Python threads run while the
 * engine steps, and threads stepping different Data objects step in parallel. A Data being
 * stepped is marked busy, so a second thread cannot step or reconfigure it at once. */
#define MR_PY_IMPORTS_NUMPY
#include "module.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

PyObject *mr_py_error = NULL;

/* ------------------------------------------------------------------ helpers */

PyObject *mr_py_raise(const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  for (char *c = line; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  PyErr_SetString(mr_py_error, line);
  return NULL;
}

static int arg_index(PyObject *name, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (PyUnicode_CompareWithASCIIString(name, names[i]) == 0) return i;
  return -1;
}

typedef struct mr_py_memory {
  PyObject_HEAD
  void *memory;
  void (*release)(void *);
} mr_py_memory;

static void memory_dealloc(PyObject *self) {
  mr_py_memory *o = (mr_py_memory *)self;
  o->release(o->memory);
  PyObject_Free(self);
}

static PyTypeObject mr_py_memory_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau._Memory",
    .tp_basicsize = sizeof(mr_py_memory),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The C memory behind a Model or Data and the arrays that view it.",
    .tp_dealloc = memory_dealloc,
};

PyObject *mr_py_memory_new(void *memory, void (*release)(void *)) {
  mr_py_memory *o = PyObject_New(mr_py_memory, &mr_py_memory_type);
  if (!o) {
    release(memory);
    return NULL;
  }
  o->memory = memory;
  o->release = release;
  return (PyObject *)o;
}

int mr_py_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
               const char *const *names, int n, int required, PyObject **out) {
  if (nargs > n) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", func, n, nargs);
    return -1;
  }
  for (int i = 0; i < n; i++) out[i] = i < nargs ? args[i] : NULL;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; k++) {
    PyObject *name = PyTuple_GET_ITEM(kwnames, k);
    int i = arg_index(name, names, n);
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", func, name);
      return -1;
    }
    if (out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, names[i]);
      return -1;
    }
    out[i] = args[nargs + k];
  }
  for (int i = 0; i < required; i++)
    if (!out[i]) {
      PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, names[i]);
      return -1;
    }
  return 0;
}

PyObject *mr_py_view(PyObject *owner, void *data, int typenum, int nd, const npy_intp *dims,
                     int writable) {
  static double empty; /* numpy allocates its own memory for NULL: an empty array needs none */
  int flags = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | (writable ? NPY_ARRAY_WRITEABLE : 0);
  PyObject *a = PyArray_New(&PyArray_Type, nd, (npy_intp *)dims, typenum, NULL,
                            data ? data : &empty, 0, flags, NULL);
  if (!a) return NULL;
  Py_INCREF(owner);
  if (PyArray_SetBaseObject((PyArrayObject *)a, owner) < 0) { /* the reference is stolen */
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

int mr_py_size(const mr_model *m, int size) {
  switch (size) {
    case MR_PY_NQ: return m->nq;
    case MR_PY_NV: return m->nv;
    case MR_PY_NU: return m->nu;
    case MR_PY_NBODY: return m->nbody;
    case MR_PY_NJNT: return m->njnt;
    case MR_PY_NGEOM: return m->ngeom;
    case MR_PY_NSITE: return m->nsite;
    case MR_PY_NCAM: return m->ncam;
    case MR_PY_NLIGHT: return m->nlight;
    case MR_PY_NEQ: return m->neq;
    case MR_PY_NKEY: return m->nkey;
    case MR_PY_NM: return m->nM;
    case MR_PY_NMESH: return m->nmesh;
    case MR_PY_NPAIR: return m->npair;
    case MR_PY_NEXCLUDE: return m->nexclude;
    case MR_PY_NA: return m->na;
    case MR_PY_NTENDON: return m->ntendon;
    case MR_PY_NSENSORDATA: return m->nsensordata;
    default: return size;
  }
}

PyObject *mr_py_cached_view(PyObject **slot, PyObject *owner, const mr_model *m, void *data,
                            int typenum, int rows, int cols, int writable) {
  if (!*slot) {
    npy_intp dims[2] = {mr_py_size(m, rows), mr_py_size(m, cols)};
    *slot = mr_py_view(owner, data, typenum, cols == 1 ? 1 : 2, dims, writable);
    if (!*slot) return NULL;
  }
  Py_INCREF(*slot);
  return *slot;
}

mr_py_data *mr_py_data_of(PyObject *m, PyObject *d) {
  if (!PyObject_TypeCheck(m, &mr_py_model_type)) {
    PyErr_Format(PyExc_TypeError, "expected a moreau.Model, got %.100s", Py_TYPE(m)->tp_name);
    return NULL;
  }
  if (!PyObject_TypeCheck(d, &mr_py_data_type)) {
    PyErr_Format(PyExc_TypeError, "expected a moreau.Data, got %.100s", Py_TYPE(d)->tp_name);
    return NULL;
  }
  mr_py_data *data = (mr_py_data *)d;
  if ((PyObject *)data->model != m)
    return mr_py_raise("%s: this Data was made for another model (%s)",
                       ((mr_py_model *)m)->m->source_path, data->model->m->source_path),
           NULL;
  return data;
}

int mr_py_data_acquire(mr_py_data *d) {
  if (d->busy) {
    mr_py_raise("%s: this Data is being stepped by another thread", d->model->m->source_path);
    return -1;
  }
  d->busy = 1;
  return 0;
}

/* ------------------------------------------------------------------ stepping */

static const char *const step_names[] = {"m", "d", "nstep"};

/* moreau.step(m, d, nstep=1): the engine's mr_step nstep times, the GIL released. */
static PyObject *py_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
  (void)self;
  PyObject *a[3];
  if (mr_py_args("step", args, nargs, kwnames, step_names, 3, 2, a)) return NULL;
  mr_py_data *data = mr_py_data_of(a[0], a[1]);
  if (!data) return NULL;
  long nstep = 1;
  if (a[2]) {
    nstep = PyLong_AsLong(a[2]);
    if (nstep == -1 && PyErr_Occurred()) return NULL;
    if (nstep < 0) return mr_py_raise("bad value %ld for nstep: expected a whole number >= 0", nstep);
  }
  if (mr_py_data_acquire(data)) return NULL;
  const mr_model *m = data->model->m;
  mr_data *d = data->d;
  int diverged = 0;
  double t = d->time;
  Py_BEGIN_ALLOW_THREADS
  for (long i = 0; i < nstep; i++) {
    t = d->time;
    if (mr_step(m, d) != 0) {
      diverged = 1;
      break;
    }
  }
  Py_END_ALLOW_THREADS
  data->busy = 0;
  /* The CLI's message, counting steps since the last reset. */
  if (diverged)
    return mr_py_raise("%s: simulation diverged at step %ld (t = %.17g): non-finite state",
                       m->source_path, d->nstep, t);
  Py_RETURN_NONE;
}

/* forward, kinematics and reset: one engine call on (m, d), the GIL released. */
static PyObject *run_stage(const char *func, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, void (*stage)(const mr_model *, mr_data *)) {
  PyObject *a[2];
  if (mr_py_args(func, args, nargs, kwnames, step_names, 2, 2, a)) return NULL;
  mr_py_data *data = mr_py_data_of(a[0], a[1]);
  if (!data || mr_py_data_acquire(data)) return NULL;
  Py_BEGIN_ALLOW_THREADS
  stage(data->model->m, data->d);
  Py_END_ALLOW_THREADS
  data->busy = 0;
  Py_RETURN_NONE;
}

static PyObject *py_forward(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
  (void)self;
  return run_stage("forward", args, nargs, kwnames, mr_forward);
}

static PyObject *py_kinematics(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
  (void)self;
  return run_stage("kinematics", args, nargs, kwnames, mr_kinematics);
}

static PyObject *py_reset(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
  (void)self;
  return run_stage("reset", args, nargs, kwnames, mr_data_reset);
}

/* The keyframe an index or a name designates, or -1 (the CLI's --keyframe rule). */
static int keyframe_index(const mr_model *m, PyObject *key, char *text, size_t n) {
  if (PyLong_Check(key)) {
    long k = PyLong_AsLong(key);
    if (k == -1 && PyErr_Occurred()) PyErr_Clear();
    snprintf(text, n, "%ld", k);
    return k >= 0 && k < m->nkey ? (int)k : -1;
  }
  const char *name = PyUnicode_AsUTF8(key);
  if (!name) return -2;
  snprintf(text, n, "%s", name);
  return mr_name2id(m, MR_OBJ_KEY, name);
}

static PyObject *py_reset_keyframe(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"m", "d", "key"};
  PyObject *a[3];
  if (mr_py_args("reset_keyframe", args, nargs, kwnames, names, 3, 3, a)) return NULL;
  mr_py_data *data = mr_py_data_of(a[0], a[1]);
  if (!data) return NULL;
  if (!PyLong_Check(a[2]) && !PyUnicode_Check(a[2])) {
    PyErr_Format(PyExc_TypeError, "key must be an index or a name, not %.100s", Py_TYPE(a[2])->tp_name);
    return NULL;
  }
  const mr_model *m = data->model->m;
  char text[256];
  int k = keyframe_index(m, a[2], text, sizeof text);
  if (k == -2) return NULL;
  if (k < 0) return mr_py_raise("%s: no keyframe '%s' (the model has %d)", m->source_path, text, m->nkey);
  if (mr_py_data_acquire(data)) return NULL;
  mr_data_reset_keyframe(m, data->d, k);
  data->busy = 0;
  Py_RETURN_NONE;
}

/* moreau.solvers(): the registry, one dict per solver, in hotkey order. */
static PyObject *py_solvers(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  PyObject *list = PyList_New(0);
  for (int i = 0; list && i < mr_solver_count(); i++) {
    char hotkey[2] = {mr_solver_hotkey(i), 0};
    PyObject *entry = Py_BuildValue("{s:s,s:s,s:s,s:O,s:i}", "name", mr_solver_name(i), "hotkey",
                                    hotkey, "description", mr_solver_description(i), "default",
                                    i == mr_solver_default() ? Py_True : Py_False, "max_iter",
                                    mr_solver_max_iter(i));
    if (!entry || PyList_Append(list, entry) < 0) Py_CLEAR(list);
    Py_XDECREF(entry);
  }
  return list;
}

/* ------------------------------------------------------------------ the module */

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef module_methods[] = {
    {"load", FASTCALL(mr_py_load),
     "load(path, floating=False, package_path=None, srdf=None, quiet=False) -> Model\n\n"
     "Loads an MJCF (.xml) or URDF (.urdf) file. floating adds a free joint at a URDF's root;\n"
     "package_path holds ':'-separated roots for package:// URIs; srdf names an SRDF file;\n"
     "quiet silences warnings. Raises moreau.Error with the CLI's one-line message."},
    {"step", FASTCALL(py_step),
     "step(m, d, nstep=1)\n\nAdvances d by nstep steps (the GIL is released meanwhile). Raises\n"
     "moreau.Error if the state becomes non-finite. As in MuJoCo, the positions in d (xpos...)\n"
     "are those of the state the last step started from."},
    {"forward", FASTCALL(py_forward),
     "forward(m, d)\n\nThe whole pipeline without integrating: positions, contacts, forces,\n"
     "constraint solve and qacc for the current state."},
    {"kinematics", FASTCALL(py_kinematics),
     "kinematics(m, d)\n\nBody, geom and site poses of the current qpos."},
    {"reset", FASTCALL(py_reset),
     "reset(m, d)\n\nBack to qpos0, zero velocity and controls, time 0; d's settings are kept."},
    {"reset_keyframe", FASTCALL(py_reset_keyframe),
     "reset_keyframe(m, d, key)\n\nReset, then the keyframe's time, qpos, qvel and ctrl; key is an\n"
     "index or a name."},
    {"solvers", py_solvers, METH_NOARGS,
     "solvers() -> list of dict\n\nThe contact solver registry: name, viewer hotkey, description,\n"
     "whether it is the default, and max_iter, its iteration cap while d.opt.max_iter is 0."},
    {"name2id", FASTCALL(mr_py_name2id),
     "name2id(m, kind, name) -> int\n\nThe id of the named object of a kind ('body', 'joint',\n"
     "'geom', 'site', 'camera', 'light', 'mesh', 'material', 'texture', 'actuator',\n"
     "'equality', 'key'), or -1."},
    {"id2name", FASTCALL(mr_py_id2name),
     "id2name(m, kind, id) -> str or None\n\nThe name of object id of a kind (None if unnamed)."},
    {"batch", FASTCALL(mr_py_batch),
     "batch(jobs, workers=None, out=None, progress=False) -> list of dict\n\n"
     "Runs job dicts on `moreau batch`'s thread pool. A job's keys are the batch columns\n"
     "(model, solver, integrator, dt, steps, duration, seed, tol, max_iter, restitution,\n"
     "keyframe, record, record_every, contacts, ctrl, init, no_contact, no_constraints,\n"
     "no_gravity, floating, package_path, srdf, name). Returns one summary row per job, in\n"
     "order, with the keys of summary.json; out=DIR also writes DIR/summary.csv and .json\n"
     "and resolves relative output paths against DIR. workers defaults to the core count;\n"
     "progress=True prints a line per finished job (and the loaders' warnings) on stderr."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "moreau",
    "Moreau, a rigid-body simulator for robotics, from Python.\n\n"
    "    m = moreau.load('robot.xml')\n"
    "    d = moreau.Data(m)\n"
    "    d.ctrl[:] = 0.1\n"
    "    moreau.step(m, d, 1000)\n"
    "    print(d.time, d.qpos, d.metrics['residual'])\n\n"
    "Names follow MuJoCo's Python bindings where the concepts match. Arrays of a Data view\n"
    "the simulator's memory: writing d.qpos[0] changes the state.",
    -1, module_methods, NULL, NULL, NULL, NULL};

static int add_type(PyObject *module, PyTypeObject *type, const char *name) {
  if (PyType_Ready(type) < 0) return -1;
  Py_INCREF(type);
  if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
    Py_DECREF(type);
    return -1;
  }
  return 0;
}

static int add_constants(PyObject *module) {
  return PyModule_AddStringConstant(module, "__version__", MR_VERSION_STRING) ||
         PyModule_AddIntConstant(module, "DISABLE_CONTACT", MR_DISABLE_CONTACT) ||
         PyModule_AddIntConstant(module, "DISABLE_CONSTRAINT", MR_DISABLE_CONSTRAINT) ||
         PyModule_AddIntConstant(module, "DISABLE_GRAVITY", MR_DISABLE_GRAVITY) ||
         PyModule_AddIntConstant(module, "DISABLE_PASSIVE", MR_DISABLE_PASSIVE) ||
         PyModule_AddIntConstant(module, "DISABLE_ACTUATION", MR_DISABLE_ACTUATION) ||
         PyModule_AddIntConstant(module, "DISABLE_CLAMPCTRL", MR_DISABLE_CLAMPCTRL);
}

/* numpy's C API, with a message that says which interpreter the module was built for: a
 * python3 found first on PATH (pyenv, a venv) may not have Debian's numpy. */
static int import_numpy(void) {
  if (_import_array() >= 0) return 0;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  PyObject *executable = PySys_GetObject("executable"); /* borrowed */
  PyErr_Format(PyExc_ImportError,
               "moreau needs numpy, which %S cannot import (%S); moreau was built for %s "
               "with Debian's python3-numpy",
               executable ? executable : Py_None, value ? value : Py_None, MOREAU_PYTHON_BUILT_FOR);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return -1;
}

PyMODINIT_FUNC PyInit_moreau(void) {
  if (import_numpy() < 0) return NULL;
  PyObject *module = PyModule_Create(&module_def);
  if (!module) return NULL;
  mr_py_error = PyErr_NewExceptionWithDoc(
      "moreau.Error",
      "Bad input or a failed run: the one-line message the moreau command prints, without its\n"
      "'moreau: ' prefix (FILE:LINE: what is wrong).",
      NULL, NULL);
  if (!mr_py_error || PyType_Ready(&mr_py_memory_type) < 0 ||
      PyModule_AddObject(module, "Error", mr_py_error) < 0 ||
      add_type(module, &mr_py_model_type, "Model") < 0 || add_type(module, &mr_py_data_type, "Data") < 0 ||
      add_type(module, &mr_py_option_type, "Option") < 0 ||
      add_type(module, &mr_py_recorder_type, "Recorder") < 0 || add_constants(module) ||
      mr_py_data_init(module) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  Py_INCREF(mr_py_error); /* the module holds one reference, this file's pointer another */
  return module;
}
