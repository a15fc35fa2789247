/* moreau.batch(jobs, workers=None, out=None, progress=False): `moreau batch` from Python.
 *
 * The jobs are dicts whose keys are the batch columns (batch_jobs.h); their values become
 * the text a JOBS file would hold (True/False as 1/0, numbers printed exactly, paths as
 * given; None leaves the option unset), and then run exactly as the command runs them:
 * the same job table (mr_batch_table_from_cells), the same thread pool and job runner, one
 * shared read-only model per file. The GIL is released while the pool works; the calling
 * thread wakes about ten times a second to let Python see a Ctrl-C, which stops handing
 * out jobs, stops the running ones cleanly and raises KeyboardInterrupt (after writing the
 * summary when out is given).
 *
 * Each returned row has the keys of a row of summary.json: job, name, options (the text of
 * each option), status, message, and the result columns (used_solver ... rows). */
#include "module.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "app/batch_jobs.h"
#include "app/batch_pool.h"
#include "app/batch_summary.h"

/* ------------------------------------------------------------------ jobs -> cells */

/* The text a JOBS file would hold for a value, as a new str; NULL with TypeError. */
static PyObject *cell_text(PyObject *value) {
  if (PyBool_Check(value)) return PyUnicode_FromString(value == Py_True ? "1" : "0");
  if (PyUnicode_Check(value)) {
    Py_INCREF(value);
    return value;
  }
  if (PyLong_Check(value)) return PyObject_Str(value);
  if (PyFloat_Check(value)) return PyObject_Repr(value); /* the shortest exact text */
  PyObject *path = PyOS_FSPath(value);
  if (path && PyBytes_Check(path)) {
    PyObject *text = PyUnicode_DecodeFSDefaultAndSize(PyBytes_AS_STRING(path), PyBytes_GET_SIZE(path));
    Py_DECREF(path);
    return text;
  }
  if (!path) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "a job value must be a str, number, bool, path or None, not %.100s",
                 Py_TYPE(value)->tp_name);
  }
  return path;
}

typedef struct job_cells {
  int njobs;
  mr_batch_cell **cells;
  int *ncells;
  PyObject *keep; /* a list owning every str the cells point into */
} job_cells;

static void job_cells_free(job_cells *c) {
  for (int j = 0; c->cells && j < c->njobs; j++) free(c->cells[j]);
  free(c->cells);
  free(c->ncells);
  Py_XDECREF(c->keep);
}

static const char *kept_utf8(job_cells *c, PyObject *text) {
  if (!text) return NULL;
  const char *utf8 = PyList_Append(c->keep, text) == 0 ? PyUnicode_AsUTF8(text) : NULL;
  Py_DECREF(text);
  return utf8;
}

static int job_read(job_cells *c, int j, PyObject *job) {
  if (!PyDict_Check(job)) {
    PyErr_Format(PyExc_TypeError, "job %d is a %.100s, not a dict", j + 1, Py_TYPE(job)->tp_name);
    return -1;
  }
  c->cells[j] = calloc((size_t)PyDict_Size(job) + 1, sizeof **c->cells);
  if (!c->cells[j]) return PyErr_NoMemory(), -1;
  Py_ssize_t pos = 0;
  PyObject *key, *value;
  while (PyDict_Next(job, &pos, &key, &value)) {
    if (!PyUnicode_Check(key)) {
      PyErr_Format(PyExc_TypeError, "job %d: keys must be column names (str)", j + 1);
      return -1;
    }
    if (value == Py_None) continue;
    mr_batch_cell *cell = &c->cells[j][c->ncells[j]];
    Py_INCREF(key);
    if (!(cell->name = kept_utf8(c, key)) || !(cell->value = kept_utf8(c, cell_text(value)))) return -1;
    c->ncells[j]++;
  }
  return 0;
}

static int job_cells_read(job_cells *c, PyObject *jobs) {
  memset(c, 0, sizeof *c);
  PyObject *seq = PySequence_Fast(jobs, "jobs must be a list of dicts");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int status = -1;
  if (n > MR_BATCH_MAX_JOBS) {
    mr_py_raise("jobs: more than %d jobs", MR_BATCH_MAX_JOBS);
    goto done;
  }
  c->njobs = (int)n;
  c->cells = calloc((size_t)n + 1, sizeof *c->cells);
  c->ncells = calloc((size_t)n + 1, sizeof *c->ncells);
  c->keep = PyList_New(0);
  if (!c->cells || !c->ncells || !c->keep) {
    if (c->keep) PyErr_NoMemory();
    goto done;
  }
  status = 0;
  for (int j = 0; j < c->njobs && status == 0; j++) status = job_read(c, j, PySequence_Fast_GET_ITEM(seq, j));
done:
  Py_DECREF(seq);
  return status;
}

/* ------------------------------------------------------------------ directories */

/* os.makedirs(path, exist_ok=True) for --out and each output's directory, as the command
 * makes them. */
static int make_dirs(PyObject *os, const char *path) {
  PyObject *makedirs = PyObject_GetAttrString(os, "makedirs");
  PyObject *args = Py_BuildValue("(s)", path), *kwargs = Py_BuildValue("{s:O}", "exist_ok", Py_True);
  PyObject *result = makedirs && args && kwargs ? PyObject_Call(makedirs, args, kwargs) : NULL;
  Py_XDECREF(makedirs);
  Py_XDECREF(args);
  Py_XDECREF(kwargs);
  Py_XDECREF(result);
  return result ? 0 : -1;
}

static int make_output_dirs(const mr_batch_table *t, const char *out) {
  PyObject *os = PyImport_ImportModule("os.path");
  PyObject *osmod = PyImport_ImportModule("os");
  int status = os && osmod ? 0 : -1;
  if (status == 0 && out) status = make_dirs(osmod, out);
  for (int j = 0; j < t->njobs && status == 0; j++) {
    const char *outputs[2] = {t->jobs[j].opt.record, t->jobs[j].opt.contacts};
    for (int k = 0; k < 2 && status == 0; k++) {
      if (!outputs[k]) continue;
      PyObject *dir = PyObject_CallMethod(os, "dirname", "(s)", outputs[k]);
      const char *text = dir ? PyUnicode_AsUTF8(dir) : NULL;
      status = !text ? -1 : text[0] ? make_dirs(osmod, text) : 0;
      Py_XDECREF(dir);
    }
  }
  Py_XDECREF(os);
  Py_XDECREF(osmod);
  return status;
}

/* ------------------------------------------------------------------ the pool */

typedef struct batch_watch {
  volatile sig_atomic_t stop;
  PyObject *type, *value, *traceback; /* the exception a signal handler raised */
} batch_watch;

/* From the calling thread, the GIL released: run Python's signal handlers; one that raises
 * (Ctrl-C's KeyboardInterrupt) stops the batch, and its exception is raised afterwards. */
static void batch_tick(void *user) {
  batch_watch *w = user;
  if (w->stop) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  if (PyErr_CheckSignals() < 0) {
    PyErr_Fetch(&w->type, &w->value, &w->traceback);
    w->stop = 1;
  }
  PyGILState_Release(gil);
}

/* ------------------------------------------------------------------ rows */

static int dict_put(PyObject *dict, const char *key, PyObject *value) {
  int status = value ? PyDict_SetItemString(dict, key, value) : -1;
  Py_XDECREF(value);
  return status;
}

static PyObject *text_or_none(const char *text) {
  if (text && text[0]) return PyUnicode_FromString(text);
  Py_RETURN_NONE;
}

static PyObject *row_dict(const mr_batch_table *t, int j, const mr_batch_result *r) {
  PyObject *row = PyDict_New(), *options = PyDict_New();
  int failed = !row || !options;
  failed = failed || dict_put(row, "job", PyLong_FromLong(j + 1)) || dict_put(row, "name", text_or_none(t->jobs[j].label));
  for (int c = 0; c < t->ncolumns && !failed; c++) {
    const char *v = t->values[(size_t)j * (size_t)t->ncolumns + (size_t)c];
    if (v) failed = dict_put(options, t->columns[c], PyUnicode_FromString(v));
  }
  if (!failed) {
    failed = PyDict_SetItemString(row, "options", options) || dict_put(row, "status", PyUnicode_FromString(mr_job_status_name(r->status))) ||
             dict_put(row, "message", text_or_none(r->message));
  }
  for (int k = 0; k < mr_batch_result_field_count() && !failed; k++) {
    mr_result_value v = mr_batch_result_field(k, r);
    PyObject *x = v.type == MR_RESULT_NONE   ? Py_NewRef(Py_None)
                  : v.type == MR_RESULT_TEXT ? text_or_none(v.text)
                  : v.type == MR_RESULT_LONG ? PyLong_FromLong(v.integer)
                                             : PyFloat_FromDouble(v.number);
    failed = dict_put(row, v.name, x);
  }
  Py_XDECREF(options);
  if (failed) Py_CLEAR(row);
  return row;
}

static PyObject *rows_list(const mr_batch_table *t, const mr_batch_result *r) {
  PyObject *list = PyList_New(t->njobs);
  for (int j = 0; list && j < t->njobs; j++) {
    PyObject *row = row_dict(t, j, &r[j]);
    if (!row) Py_CLEAR(list);
    else PyList_SET_ITEM(list, j, row);
  }
  return list;
}

/* Runs the table; 0, or -1 with a Python exception (a Ctrl-C, a failed summary). */
static int batch_run(const mr_batch_table *t, mr_batch_result *results, int workers, int progress,
                     const char *out) {
  int *todo = calloc((size_t)t->njobs + 1, sizeof *todo);
  if (!todo) return PyErr_NoMemory(), -1;
  for (int j = 0; j < t->njobs; j++) todo[j] = j;
  batch_watch watch;
  memset(&watch, 0, sizeof watch);
  mr_batch_pool_config c;
  memset(&c, 0, sizeof c);
  c.table = t;
  c.results = results;
  c.todo = todo;
  c.ntodo = t->njobs;
  c.threads = workers;
  c.quiet = !progress;
  c.tag = "";
  c.stop = &watch.stop;
  c.tick = batch_tick;
  c.user = &watch;
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = mr_batch_pool_run(&c);
  Py_END_ALLOW_THREADS
  free(todo);
  char err[1024] = "";
  if (status) mr_py_raise("cannot start worker threads");
  else if (out && mr_batch_summary_write(out, t, results, err, (int)sizeof err)) status = -1, mr_py_raise("%s", err);
  if (watch.type) {
    if (status) {
      Py_XDECREF(watch.type), Py_XDECREF(watch.value), Py_XDECREF(watch.traceback);
    } else {
      PyErr_Restore(watch.type, watch.value, watch.traceback);
      status = -1;
    }
  }
  return status;
}

PyObject *mr_py_batch(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  (void)self;
  static const char *const names[] = {"jobs", "workers", "out", "progress"};
  PyObject *a[4];
  if (mr_py_args("batch", args, nargs, kwnames, names, 4, 1, a)) return NULL;
  long workers = mr_batch_core_count();
  if (a[1] && a[1] != Py_None) {
    workers = PyLong_AsLong(a[1]);
    if (workers == -1 && PyErr_Occurred()) return NULL;
    if (workers < 1 || workers > 4096)
      return mr_py_raise("bad value %ld for workers: expected a whole number from 1 to 4096", workers);
  }
  int progress = a[3] ? PyObject_IsTrue(a[3]) : 0;
  if (progress < 0) return NULL;
  PyObject *out_bytes = NULL;
  if (a[2] && a[2] != Py_None && !PyUnicode_FSConverter(a[2], &out_bytes)) return NULL;
  const char *out = out_bytes ? PyBytes_AS_STRING(out_bytes) : NULL;
  job_cells cells;
  mr_batch_table table;
  memset(&table, 0, sizeof table);
  mr_batch_result *results = NULL;
  PyObject *rows = NULL;
  char err[1024] = "";
  if (job_cells_read(&cells, a[0])) goto done;
  if (cells.njobs == 0) {
    rows = PyList_New(0);
    goto done;
  }
  if (mr_batch_table_from_cells(&table, "jobs", cells.njobs, (const mr_batch_cell *const *)cells.cells,
                                cells.ncells, out, !progress, err, (int)sizeof err)) {
    mr_py_raise("%s", err);
    goto done;
  }
  results = calloc((size_t)table.njobs, sizeof *results);
  if (!results) {
    PyErr_NoMemory();
    goto done;
  }
  if (make_output_dirs(&table, out) == 0 && batch_run(&table, results, (int)workers, progress, out) == 0)
    rows = rows_list(&table, results);
done:
  free(results);
  mr_batch_table_free(&table);
  job_cells_free(&cells);
  Py_XDECREF(out_bytes);
  return rows;
}
