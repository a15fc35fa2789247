/* The Option type: the run-time settings (mr_option) of a Model (m.opt, read-only: the
 * defaults every Data starts from) or of a Data (d.opt, free to change between steps, as the
 * viewer's keys and the CLI's options change them).
 *
 * An Option holds a reference to its owner and reads and writes the owner's memory, so
 * `d.opt.timestep = 0.002` changes d. Solver and integrator are names ("sap", "midpoint");
 * d.solver and d.integrator (data.c) use the same conversions. */
#include "module.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

typedef struct mr_py_option {
  PyObject_HEAD
  PyObject *owner; /* the Model or Data whose mr_option this is */
  mr_option *opt;
  int writable;
} mr_py_option;

PyObject *mr_py_option_new(PyObject *owner, mr_option *opt, int writable) {
  mr_py_option *o = PyObject_New(mr_py_option, &mr_py_option_type);
  if (!o) return NULL;
  Py_INCREF(owner);
  o->owner = owner;
  o->opt = opt;
  o->writable = writable;
  return (PyObject *)o;
}

static void option_dealloc(PyObject *self) {
  Py_DECREF(((mr_py_option *)self)->owner);
  PyObject_Free(self);
}

/* ------------------------------------------------------------------ names */

PyObject *mr_py_solver_get(const mr_option *opt) {
  const char *name = mr_solver_name(opt->solver);
  return PyUnicode_FromString(name ? name : mr_solver_name(mr_solver_default()));
}

int mr_py_solver_set(mr_option *opt, PyObject *value) {
  const char *name = value ? PyUnicode_AsUTF8(value) : NULL;
  if (!name) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the solver cannot be deleted");
    return -1;
  }
  int index = mr_solver_find(name);
  if (index < 0) {
    mr_py_raise("unknown solver '%s' (moreau.solvers() lists them)", name);
    return -1;
  }
  if (opt->restitution > 0 && mr_solver_no_restitution(index)) { /* as run --restitution */
    mr_py_raise("solver %s cannot apply restitution %g: %s (set restitution to 0 first)", name,
                opt->restitution, mr_solver_no_restitution(index));
    return -1;
  }
  opt->solver = index;
  return 0;
}

PyObject *mr_py_integrator_get(const mr_option *opt) {
  return PyUnicode_FromString(opt->integrator == MR_INT_MIDPOINT ? "midpoint" : "euler");
}

int mr_py_integrator_set(mr_option *opt, PyObject *value) {
  const char *name = value ? PyUnicode_AsUTF8(value) : NULL;
  if (!name) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "the integrator cannot be deleted");
    return -1;
  }
  if (strcmp(name, "euler") == 0) opt->integrator = MR_INT_EULER;
  else if (strcmp(name, "midpoint") == 0) opt->integrator = MR_INT_MIDPOINT;
  else {
    mr_py_raise("bad value '%s' for integrator: expected euler or midpoint", name);
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ attributes */

/* A setter may run only on a Data's options, and not while another thread steps it. */
static int option_check_writable(mr_py_option *o, PyObject *value) {
  if (!o->writable) {
    PyErr_SetString(PyExc_AttributeError,
                    "a Model's options are read-only: change a Data's (d.opt) instead");
    return -1;
  }
  if (!value) {
    PyErr_SetString(PyExc_AttributeError, "options cannot be deleted");
    return -1;
  }
  if (PyObject_TypeCheck(o->owner, &mr_py_data_type) && ((mr_py_data *)o->owner)->busy) {
    mr_py_raise("%s: this Data is being stepped by another thread",
                ((mr_py_data *)o->owner)->model->m->source_path);
    return -1;
  }
  return 0;
}

/* Double settings: (field, lowest value, lowest allowed (1) or excluded (0), highest value,
 * what the CLI says it expects). */
typedef struct double_spec {
  const char *name;
  size_t offset;
  double low;
  int low_included;
  double high;
  const char *expected;
} double_spec;

#define OPTION_DOUBLES(X)                                               \
  X(timestep, 0, 0, INFINITY, "seconds > 0")                            \
  X(tol, 0, 0, INFINITY, "a number > 0")                                \
  X(restitution, 0, 1, 1, "a coefficient from 0 to 1")                  \
  X(sap_tau_d, 0, 1, INFINITY, "seconds >= 0 (0: critical damping)")

static const double_spec option_doubles[] = {
#define SPEC(field, low, incl, high, expected) {#field, offsetof(mr_option, field), low, incl, high, expected},
    OPTION_DOUBLES(SPEC)
#undef SPEC
};
enum {
#define INDEX(field, ...) DOUBLE_##field,
  OPTION_DOUBLES(INDEX)
#undef INDEX
};

static double *double_field(mr_py_option *o, const double_spec *s) {
  return (double *)(void *)((char *)o->opt + s->offset);
}

static PyObject *get_double(PyObject *self, void *closure) {
  return PyFloat_FromDouble(*double_field((mr_py_option *)self, closure));
}

static int set_double(PyObject *self, PyObject *value, void *closure) {
  mr_py_option *o = (mr_py_option *)self;
  const double_spec *s = closure;
  if (option_check_writable(o, value)) return -1;
  double x = PyFloat_AsDouble(value);
  if (x == -1 && PyErr_Occurred()) return -1;
  int low_ok = s->low_included ? x >= s->low : x > s->low;
  if (!isfinite(x) || !low_ok || x > s->high) {
    mr_py_raise("bad value %g for %s: expected %s", x, s->name, s->expected);
    return -1;
  }
  const char *why = mr_solver_no_restitution(o->opt->solver);
  if (s == &option_doubles[DOUBLE_restitution] && x > 0 && why) {
    mr_py_raise("solver %s cannot apply restitution: %s", mr_solver_name(o->opt->solver), why);
    return -1;
  }
  *double_field(o, s) = x;
  return 0;
}

static PyObject *get_int(PyObject *self, void *closure) {
  mr_py_option *o = (mr_py_option *)self;
  return PyLong_FromLong(*(int *)(void *)((char *)o->opt + (size_t)closure));
}

static int set_int(PyObject *self, PyObject *value, void *closure) {
  mr_py_option *o = (mr_py_option *)self;
  if (option_check_writable(o, value)) return -1;
  long x = PyLong_AsLong(value);
  if (x == -1 && PyErr_Occurred()) return -1;
  int is_max_iter = (size_t)closure == offsetof(mr_option, max_iter);
  long high = is_max_iter ? 1000000000L : 0xffff;
  if (x < 0 || x > high) {
    mr_py_raise("bad value %ld for %s: expected %s", x, is_max_iter ? "max_iter" : "disable",
                is_max_iter ? "a whole number >= 0 (0: the solver's own cap)"
                            : "a combination of moreau.DISABLE_* bits");
    return -1;
  }
  *(int *)(void *)((char *)o->opt + (size_t)closure) = (int)x;
  return 0;
}

static PyObject *get_solver(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_solver_get(((mr_py_option *)self)->opt);
}

static int set_solver(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  mr_py_option *o = (mr_py_option *)self;
  return option_check_writable(o, value) ? -1 : mr_py_solver_set(o->opt, value);
}

static PyObject *get_integrator(PyObject *self, void *closure) {
  (void)closure;
  return mr_py_integrator_get(((mr_py_option *)self)->opt);
}

static int set_integrator(PyObject *self, PyObject *value, void *closure) {
  (void)closure;
  mr_py_option *o = (mr_py_option *)self;
  return option_check_writable(o, value) ? -1 : mr_py_integrator_set(o->opt, value);
}

/* A view of the three numbers, writable for a Data. */
static PyObject *get_gravity(PyObject *self, void *closure) {
  (void)closure;
  mr_py_option *o = (mr_py_option *)self;
  npy_intp three = 3;
  PyObject *memory = PyObject_TypeCheck(o->owner, &mr_py_data_type) ? ((mr_py_data *)o->owner)->memory
                                                                     : ((mr_py_model *)o->owner)->memory;
  return mr_py_view(memory, o->opt->gravity, NPY_DOUBLE, 1, &three, o->writable);
}

static PyGetSetDef option_getset[] = {
    {"timestep", get_double, set_double, "timestep (s)", (void *)&option_doubles[DOUBLE_timestep]},
    {"tol", get_double, set_double, "solver tolerance", (void *)&option_doubles[DOUBLE_tol]},
    {"restitution", get_double, set_double, "Newton restitution of contacts, 0 to 1",
     (void *)&option_doubles[DOUBLE_restitution]},
    {"sap_tau_d", get_double, set_double, "sap's dissipation time scale (s); 0: critical damping",
     (void *)&option_doubles[DOUBLE_sap_tau_d]},
    {"max_iter", get_int, set_int, "solver iteration cap; 0: the solver's own (moreau solvers)",
     (void *)offsetof(mr_option, max_iter)},
    {"disable", get_int, set_int, "moreau.DISABLE_* bits", (void *)offsetof(mr_option, disable)},
    {"solver", get_solver, set_solver, "contact solver, by name (moreau.solvers())", NULL},
    {"integrator", get_integrator, set_integrator, "'euler' or 'midpoint'", NULL},
    {"gravity", get_gravity, NULL, "gravity (m/s^2), a view of the three numbers", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyObject *option_repr(PyObject *self) {
  const mr_option *opt = ((mr_py_option *)self)->opt;
  const char *solver = mr_solver_name(opt->solver);
  char text[512];
  snprintf(text, sizeof text,
           "<moreau.Option timestep=%g solver='%s' integrator='%s' tol=%g max_iter=%d "
           "gravity=(%g, %g, %g) disable=%d>",
           opt->timestep, solver ? solver : mr_solver_name(mr_solver_default()),
           opt->integrator == MR_INT_MIDPOINT ? "midpoint" : "euler", opt->tol, opt->max_iter,
           opt->gravity[0], opt->gravity[1], opt->gravity[2], opt->disable);
  return PyUnicode_FromString(text);
}

PyTypeObject mr_py_option_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau.Option",
    .tp_basicsize = sizeof(mr_py_option),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Run-time settings: m.opt (read-only defaults) or d.opt (this Data's).",
    .tp_dealloc = option_dealloc,
    .tp_repr = option_repr,
    .tp_getset = option_getset,
};
