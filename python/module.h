/* The CPython extension `moreau` (python/): what its files share.
 *
 * One file per concept: module.c (the module, moreau.Error, argument parsing, numpy views,
 * and the MuJoCo-like functions step/forward/reset), model.c (moreau.load and the Model
 * type), option.c (the Option type: m.opt, d.opt), data.c (the Data type: state views,
 * metrics, contacts), recorder.c (moreau.Recorder), batch.c (moreau.batch).
 *
 * Memory: an mr_model or mr_data belongs to a small memory object (mr_py_memory) that frees
 * it when the last reference goes. The Model or Data holds one reference, and every numpy
 * array handed out is a view whose base is the memory object, so an array outlives neither
 * its memory nor a `del` of its Model or Data. Arrays are cached in the Model or Data
 * (d.qpos is d.qpos) without making a cycle: numpy arrays take no part in garbage
 * collection, so a view whose base were the Data itself would keep it alive forever. */
#ifndef MR_PY_MODULE_H
#define MR_PY_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* numpy's C API table lives in module.c (which imports it) and is shared by name. */
#define PY_ARRAY_UNIQUE_SYMBOL mr_py_numpy_api
#ifndef MR_PY_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "moreau.h"

enum { MR_PY_MODEL_SLOTS = 128, MR_PY_DATA_SLOTS = 64 };

typedef struct mr_py_model {
  PyObject_HEAD
  mr_model *m;
  PyObject *memory; /* owns m; the base of every view */
  PyObject *slots[MR_PY_MODEL_SLOTS]; /* cached read-only views and name tuples */
} mr_py_model;

typedef struct mr_py_data {
  PyObject_HEAD
  mr_data *d;
  PyObject *memory; /* owns d; the base of every view */
  mr_py_model *model;
  /* Set while a call works on d with the GIL released: another thread's step, forward or
   * setting change is refused instead of racing it. */
  int busy;
  PyObject *slots[MR_PY_DATA_SLOTS]; /* cached views */
} mr_py_data;

extern PyTypeObject mr_py_model_type, mr_py_data_type, mr_py_option_type, mr_py_recorder_type;
extern PyObject *mr_py_error; /* moreau.Error */

/* ------------------------------------------------------------------ module.c helpers */

/* Raises moreau.Error with one line (the CLI's message without its "moreau: " prefix);
 * returns NULL. */
PyObject *mr_py_raise(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Positional-or-keyword arguments of a METH_FASTCALL | METH_KEYWORDS function into
 * out[0..n) by names[0..n); the first `required` must be given. 0, or -1 with TypeError. */
int mr_py_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
               const char *const *names, int n, int required, PyObject **out);

/* The owner of C memory: calls release(memory) when the last reference goes. NULL (and
 * release already called) on failure. */
PyObject *mr_py_memory_new(void *memory, void (*release)(void *));

/* A numpy array over C memory, owned by owner (a memory object, which it keeps alive). */
PyObject *mr_py_view(PyObject *owner, void *data, int typenum, int nd, const npy_intp *dims,
                     int writable);

/* Array sizes: a value >= 0 is itself; a negative one names a model size. */
enum {
  MR_PY_NQ = -1, MR_PY_NV = -2, MR_PY_NU = -3, MR_PY_NBODY = -4, MR_PY_NJNT = -5,
  MR_PY_NGEOM = -6, MR_PY_NSITE = -7, MR_PY_NCAM = -8, MR_PY_NLIGHT = -9, MR_PY_NEQ = -10,
  MR_PY_NKEY = -11, MR_PY_NM = -12, MR_PY_NMESH = -13, MR_PY_NPAIR = -14, MR_PY_NEXCLUDE = -15,
  MR_PY_NA = -16, MR_PY_NTENDON = -17, MR_PY_NSENSORDATA = -18
};
int mr_py_size(const mr_model *m, int size);

/* A view of rows x cols elements (1-D when cols is the literal 1), cached in *slot. */
PyObject *mr_py_cached_view(PyObject **slot, PyObject *owner, const mr_model *m, void *data,
                            int typenum, int rows, int cols, int writable);

/* The Data object of (m, d) arguments, type-checked and made for m; NULL with an error. */
mr_py_data *mr_py_data_of(PyObject *m, PyObject *d);

/* Marks d busy for a call that releases the GIL; -1 with moreau.Error if it already is. */
int mr_py_data_acquire(mr_py_data *d);

/* ------------------------------------------------------------------ the other files */

/* model.c */
PyObject *mr_py_load(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mr_py_name2id(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *mr_py_id2name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

/* option.c: the run-time settings of a Model (read-only) or a Data (owner is the Data). */
PyObject *mr_py_option_new(PyObject *owner, mr_option *opt, int writable);
PyObject *mr_py_solver_get(const mr_option *opt);
int mr_py_solver_set(mr_option *opt, PyObject *value);
PyObject *mr_py_integrator_get(const mr_option *opt);
int mr_py_integrator_set(mr_option *opt, PyObject *value);

/* data.c: module-level set-up (the contacts' dtype). */
int mr_py_data_init(PyObject *module);

/* batch.c */
PyObject *mr_py_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);

#endif
