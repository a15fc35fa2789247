/* moreau.Recorder(path, m, d=None): trajectory recordings in the CLI's formats.
 *
 * The engine's recorder (engine/record/record.h) writes them, so a file recorded from
 * Python is the file `moreau run --record` writes: CSV or HDF5 by extension, rows kept in
 * memory and flushed every 1024 rows or second, written to FILE.part and renamed to FILE
 * when closed. rec.write(d) appends d's state with its last step's statistics and the
 * state's energy, which it computes as the CLI does (bringing d's positions up to date).
 *
 * The file is created by the first write (or at once when d is given), because the HDF5
 * attributes record the run's settings (timestep, solver, integrator) from that Data. A
 * recorder used as a context manager closes on leaving the block, also on an exception:
 * its rows are whole and are kept, as the CLI keeps them on an interrupt. A write error
 * removes FILE.part and raises; the recorder is then closed. */
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "app/simulate.h"
#include "engine/record/record.h"

typedef enum { REC_NOT_OPEN, REC_OPEN, REC_CLOSED } rec_state;

typedef struct mr_py_recorder {
  PyObject_HEAD
  mr_py_model *model;
  PyObject *path; /* bytes, the file name as given */
  mr_recorder *rec;
  rec_state state;
  long rows;
} mr_py_recorder;

static const char *rec_path(const mr_py_recorder *r) { return PyBytes_AS_STRING(r->path); }

/* Creates FILE.part from d's settings; -1 with moreau.Error. */
static int recorder_open(mr_py_recorder *r, const mr_data *d) {
  char err[1024] = "";
  r->rec = mr_recorder_open(r->model->m, d, rec_path(r), err, (int)sizeof err);
  if (!r->rec) {
    r->state = REC_CLOSED;
    mr_py_raise("%s", err[0] ? err : "cannot create the recording");
    return -1;
  }
  r->state = REC_OPEN;
  return 0;
}

static int recorder_finish(mr_py_recorder *r, char *err, int errlen) {
  r->state = REC_CLOSED;
  mr_recorder *rec = r->rec;
  r->rec = NULL;
  return mr_recorder_finish(rec, err, errlen);
}

static PyObject *recorder_closed_error(const mr_py_recorder *r) {
  return mr_py_raise("%s: the recording is closed", rec_path(r));
}

/* ------------------------------------------------------------------ methods */

static PyObject *recorder_write(PyObject *self, PyObject *arg) {
  mr_py_recorder *r = (mr_py_recorder *)self;
  mr_py_data *data = mr_py_data_of((PyObject *)r->model, arg);
  if (!data) return NULL;
  if (r->state == REC_CLOSED) return recorder_closed_error(r);
  if (mr_py_data_acquire(data)) return NULL;
  int status = r->state == REC_OPEN ? 0 : recorder_open(r, data->d);
  char err[1024] = "";
  if (status == 0) {
    double energy = mr_sim_state_energy(r->model->m, data->d);
    status = mr_recorder_write(r->rec, data->d, energy, err, (int)sizeof err);
    if (status) {
      mr_recorder_keep(r->rec); /* as the CLI: the rows that reached the disk stay in FILE.part */
      r->rec = NULL;
      r->state = REC_CLOSED;
      mr_py_raise("%s", err);
    } else {
      r->rows++;
    }
  }
  data->busy = 0;
  if (status) return NULL;
  Py_RETURN_NONE;
}

static PyObject *recorder_flush(PyObject *self, PyObject *unused) {
  (void)unused;
  mr_py_recorder *r = (mr_py_recorder *)self;
  if (r->state == REC_CLOSED) return recorder_closed_error(r);
  char err[1024] = "";
  if (r->state == REC_OPEN && mr_recorder_flush(r->rec, err, (int)sizeof err)) {
    mr_recorder_keep(r->rec);
    r->rec = NULL;
    r->state = REC_CLOSED;
    return mr_py_raise("%s", err);
  }
  Py_RETURN_NONE;
}

/* Closing a recorder that never wrote leaves a recording with no rows, under the model's
 * default settings: the file a user asked for always exists after close. */
static PyObject *recorder_close(PyObject *self, PyObject *unused) {
  (void)unused;
  mr_py_recorder *r = (mr_py_recorder *)self;
  if (r->state == REC_CLOSED) Py_RETURN_NONE;
  if (r->state == REC_NOT_OPEN) {
    mr_data *d = mr_data_create(r->model->m);
    if (!d) return PyErr_NoMemory();
    int status = recorder_open(r, d);
    mr_data_free(d);
    if (status) return NULL;
  }
  char err[1024] = "";
  if (recorder_finish(r, err, (int)sizeof err)) return mr_py_raise("%s", err);
  Py_RETURN_NONE;
}

static PyObject *recorder_enter(PyObject *self, PyObject *unused) {
  (void)unused;
  Py_INCREF(self);
  return self;
}

static PyObject *recorder_exit(PyObject *self, PyObject *args) {
  (void)args;
  PyObject *result = recorder_close(self, NULL);
  if (!result) return NULL;
  Py_DECREF(result);
  Py_RETURN_FALSE; /* an exception from the block goes on */
}

static PyMethodDef recorder_methods[] = {
    {"write", recorder_write, METH_O, "write(d)\n\nAppends d's state as one row."},
    {"flush", recorder_flush, METH_NOARGS, "flush()\n\nWrites the rows kept in memory to FILE.part now."},
    {"close", recorder_close, METH_NOARGS, "close()\n\nCompletes the file and renames FILE.part to FILE."},
    {"__enter__", recorder_enter, METH_NOARGS, NULL},
    {"__exit__", recorder_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* ------------------------------------------------------------------ attributes */

static PyObject *get_path(PyObject *self, void *closure) {
  (void)closure;
  return PyUnicode_DecodeFSDefault(rec_path((mr_py_recorder *)self));
}

static PyObject *get_rows(PyObject *self, void *closure) {
  (void)closure;
  return PyLong_FromLong(((mr_py_recorder *)self)->rows);
}

static PyObject *get_closed(PyObject *self, void *closure) {
  (void)closure;
  return PyBool_FromLong(((mr_py_recorder *)self)->state == REC_CLOSED);
}

static PyGetSetDef recorder_getset[] = {
    {"path", get_path, NULL, "the recording's file name", NULL},
    {"rows", get_rows, NULL, "rows written", NULL},
    {"closed", get_closed, NULL, "closed (by close(), a with block or a write error)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ------------------------------------------------------------------ the type */

static PyObject *recorder_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  static char *names[] = {"path", "m", "d", NULL};
  PyObject *path, *model, *data = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&O!|O:Recorder", names, PyUnicode_FSConverter,
                                   &path, &mr_py_model_type, &model, &data))
    return NULL;
  char err[1024] = "";
  if (mr_recorder_check_path(PyBytes_AS_STRING(path), err, (int)sizeof err)) {
    Py_DECREF(path);
    return mr_py_raise("%s", err);
  }
  mr_py_data *pd = NULL;
  if (data != Py_None && !(pd = mr_py_data_of(model, data))) {
    Py_DECREF(path);
    return NULL;
  }
  mr_py_recorder *r = (mr_py_recorder *)type->tp_alloc(type, 0);
  if (!r) {
    Py_DECREF(path);
    return NULL;
  }
  r->path = path;
  Py_INCREF(model);
  r->model = (mr_py_model *)model;
  r->state = REC_NOT_OPEN;
  if (pd && recorder_open(r, pd->d)) Py_CLEAR(r);
  return (PyObject *)r;
}

/* A recorder dropped while open completes its file, as a Python file object does; an error
 * then can only be reported. */
static void recorder_dealloc(PyObject *self) {
  mr_py_recorder *r = (mr_py_recorder *)self;
  if (r->state == REC_OPEN) {
    char err[1024] = "";
    if (recorder_finish(r, err, (int)sizeof err)) PySys_WriteStderr("moreau: %s\n", err);
  }
  Py_XDECREF(r->path);
  Py_XDECREF(r->model);
  Py_TYPE(self)->tp_free(self);
}

static PyObject *recorder_repr(PyObject *self) {
  const mr_py_recorder *r = (const mr_py_recorder *)self;
  static const char *const states[] = {"not yet created", "open", "closed"};
  return PyUnicode_FromFormat("<moreau.Recorder '%s' %s, %ld rows>", rec_path(r), states[r->state],
                              r->rows);
}

PyTypeObject mr_py_recorder_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moreau.Recorder",
    .tp_basicsize = sizeof(mr_py_recorder),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Recorder(path, m, d=None): a trajectory recording, .csv or .h5, in the formats of\n"
              "`moreau run --record`. rec.write(d) appends a row; close() (or leaving a with\n"
              "block) completes the file.",
    .tp_new = recorder_new,
    .tp_dealloc = recorder_dealloc,
    .tp_repr = recorder_repr,
    .tp_methods = recorder_methods,
    .tp_getset = recorder_getset,
};
