/* HDF5 trajectories (record.h): one extendible, chunked dataset per recorded quantity.
 *
 * Rows wait in per-dataset memory blocks of MR_RECORD_FLUSH_ROWS rows; a flush extends every
 * dataset, writes the block and calls H5Fflush. Between flushes the library is not called,
 * so the file on disk stays exactly as the last flush left it: complete and readable.
 *
 * Failures: the message is the innermost one of libhdf5's error stack (for a full disk,
 * the system's "No space left on device"). A file whose close fails stays half-closed in
 * the library, and libhdf5 1.10's own exit handler then crashes trying to close it again
 * (H5F__close_cb): the handler is not installed (H5dont_atexit), so a full disk ends the
 * run with its error line and exit status, never a segfault. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <stdlib.h>
#include <string.h>

#include "h5_api.h"
#include "part_file.h"
#include "record.h"

enum {
  H5_TIME, H5_QPOS, H5_QVEL, H5_CTRL, H5_NCON, H5_ITERS, H5_RESIDUAL, H5_ENERGY,
  H5_SOLVER_STATUS, H5_NEFC, H5_PRIMAL, H5_DUAL, H5_COMPLEMENTARITY, H5_PENETRATION,
  H5_LOOP_CLOSURE, H5_NATURAL_MAP, H5_ACT, H5_SENSORDATA, H5_NCOLUMNS
};

typedef struct h5_column {
  const char *name;
  int width;  /* numbers per row; 0 for the per-row scalars' 1-D datasets is never used */
  int rank;   /* 1: one number per row, 2: rows x width */
  int is_int;
  hid_t dset;
  double *buf; /* MR_RECORD_FLUSH_ROWS x width */
  int *ibuf;
} h5_column;

/* Why libhdf5 failed: the innermost message of its error stack. */
typedef struct h5_reason {
  char text[200];
  int from_system; /* text is the system's message (errno's) */
} h5_reason;

struct mr_record_h5 {
  mr_part_file names;
  const mr_model *m; /* for the control ranges */
  h5_reason why;     /* the first failure of the current operation */
  hid_t file;
  h5_column col[H5_NCOLUMNS];
  long rows_on_disk;
  long pending;
  double last_flush;
};

/* Chunks of at most about 64 KiB: big enough for few, cheap writes, small enough for the
 * library's default 1 MiB chunk cache even with wide states. */
static hsize_t h5_chunk_rows(int width) {
  long rows = 8192 / (width > 0 ? width : 1);
  if (rows < 1) rows = 1;
  if (rows > MR_RECORD_FLUSH_ROWS) rows = MR_RECORD_FLUSH_ROWS;
  return (hsize_t)rows;
}

static void h5_set_column(h5_column *c, const char *name, int rank, int width, int is_int) {
  c->name = name;
  c->rank = rank;
  c->width = rank == 1 ? 1 : width;
  c->is_int = is_int;
  c->dset = H5I_INVALID_HID;
}

static void h5_define_columns(mr_record_h5 *r, const mr_model *m) {
  h5_column *c = r->col;
  h5_set_column(&c[H5_TIME], "time", 1, 1, 0);
  h5_set_column(&c[H5_QPOS], "qpos", 2, m->nq, 0);
  h5_set_column(&c[H5_QVEL], "qvel", 2, m->nv, 0);
  h5_set_column(&c[H5_CTRL], "ctrl", 2, m->nu, 0);
  h5_set_column(&c[H5_NCON], "ncon", 1, 1, 1);
  h5_set_column(&c[H5_ITERS], "iters", 1, 1, 1);
  h5_set_column(&c[H5_RESIDUAL], "residual", 1, 1, 0);
  h5_set_column(&c[H5_ENERGY], "energy", 1, 1, 0);
  h5_set_column(&c[H5_SOLVER_STATUS], "solver_status", 1, 1, 1);
  h5_set_column(&c[H5_NEFC], "nefc", 1, 1, 1);
  h5_set_column(&c[H5_PRIMAL], "primal", 1, 1, 0);
  h5_set_column(&c[H5_DUAL], "dual", 1, 1, 0);
  h5_set_column(&c[H5_COMPLEMENTARITY], "complementarity", 1, 1, 0);
  h5_set_column(&c[H5_NATURAL_MAP], "natural_map", 1, 1, 0);
  h5_set_column(&c[H5_PENETRATION], "penetration", 1, 1, 0);
  h5_set_column(&c[H5_LOOP_CLOSURE], "loop_closure", 1, 1, 0);
  h5_set_column(&c[H5_ACT], "act", 2, m->na, 0);
  h5_set_column(&c[H5_SENSORDATA], "sensordata", 2, m->nsensordata, 0);
}

static void h5_free(mr_record_h5 *r) {
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    if (r->col[i].dset >= 0) H5Dclose(r->col[i].dset);
    free(r->col[i].buf);
    free(r->col[i].ibuf);
  }
  if (r->file >= 0) H5Fclose(r->file);
  free(r);
}

static int h5_alloc_buffers(mr_record_h5 *r) {
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    h5_column *c = &r->col[i];
    size_t n = (size_t)MR_RECORD_FLUSH_ROWS * (size_t)(c->width > 0 ? c->width : 1);
    if (c->is_int) c->ibuf = calloc(n, sizeof *c->ibuf);
    else c->buf = calloc(n, sizeof *c->buf);
    if (!c->ibuf && !c->buf) return -1;
  }
  return 0;
}

/* An empty dataset that grows along rows. A zero-width state (nu = 0) still gets its
 * dataset, rows x 0, so readers find every documented name; its chunk is one column wide
 * and the width is left unlimited because a chunk may not exceed a fixed dimension. */
static hid_t h5_create_dataset(hid_t file, const h5_column *c) {
  hsize_t dims[2] = {0, (hsize_t)c->width};
  hsize_t maxdims[2] = {H5S_UNLIMITED, c->width > 0 ? (hsize_t)c->width : H5S_UNLIMITED};
  hsize_t chunk[2] = {h5_chunk_rows(c->width), c->width > 0 ? (hsize_t)c->width : 1};
  hid_t space = H5Screate_simple(c->rank, dims, maxdims);
  hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
  hid_t dset = H5I_INVALID_HID;
  /* no creation and modification times: identical runs, identical bytes */
  if (space >= 0 && plist >= 0 && H5Pset_chunk(plist, c->rank, chunk) >= 0 &&
      H5Pset_obj_track_times(plist, 0) >= 0) {
    hid_t type = c->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE;
    dset = H5Dcreate2(file, c->name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  }
  if (plist >= 0) H5Pclose(plist);
  if (space >= 0) H5Sclose(space);
  return dset;
}

static int h5_attr_string(hid_t file, const char *name, const char *value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  hid_t space = H5Screate(H5S_SCALAR);
  int rc = -1;
  if (type >= 0 && space >= 0 && H5Tset_size(type, strlen(value) + 1) >= 0 &&
      H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0) {
    hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
      rc = H5Awrite(attr, type, value) < 0 ? -1 : 0;
      H5Aclose(attr);
    }
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  return rc;
}

static int h5_attr_number(hid_t file, const char *name, hid_t file_type, hid_t mem_type,
                          const void *value) {
  hid_t space = H5Screate(H5S_SCALAR);
  if (space < 0) return -1;
  hid_t attr = H5Acreate2(file, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = attr >= 0 && H5Awrite(attr, mem_type, value) >= 0 ? 0 : -1;
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return rc;
}

/* A 1-D attribute of fixed-length strings on obj (written as one block). */
static int h5_attr_strings(hid_t obj, const char *name, char *const *values, int n) {
  size_t width = 1;
  for (int i = 0; i < n; i++) width = strlen(values[i]) + 1 > width ? strlen(values[i]) + 1 : width;
  char *block = calloc((size_t)(n > 0 ? n : 1), width);
  hid_t type = H5Tcopy(H5T_C_S1);
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  int rc = -1;
  if (block && type >= 0 && space >= 0 && H5Tset_size(type, width) >= 0 &&
      H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0) {
    for (int i = 0; i < n; i++) memcpy(block + (size_t)i * width, values[i], strlen(values[i]) + 1);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0) {
      rc = H5Awrite(attr, type, block) < 0 ? -1 : 0;
      H5Aclose(attr);
    }
  }
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  free(block);
  return rc;
}

static int h5_attr_ints(hid_t obj, const char *name, const int *values, int n) {
  hsize_t dims[1] = {(hsize_t)n};
  hid_t space = H5Screate_simple(1, dims, NULL);
  if (space < 0) return -1;
  hid_t attr = H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT);
  int rc = attr >= 0 && (n == 0 || H5Awrite(attr, H5T_NATIVE_INT, values) >= 0) ? 0 : -1;
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  return rc;
}

/* /sensordata carries what its columns are: every column's name (as in the CSV header) and
 * each sensor's name, type, first column and width. */
static int h5_sensor_attributes(hid_t dset, const mr_model *m) {
  int n = m->nsensor, ncol = m->nsensordata;
  char **text = calloc((size_t)(n + ncol + 1), sizeof *text);
  char *names = calloc((size_t)(ncol + 1), 256);
  if (!text || !names) {
    free(text);
    free(names);
    return -1;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m->sensor_dim[i]; k++)
      mr_sensor_column(m, i, k, names + 256 * (size_t)(m->sensor_adr[i] + k), 256);
  for (int j = 0; j < ncol; j++) text[j] = names + 256 * (size_t)j;
  int rc = h5_attr_strings(dset, "columns", text, ncol);
  for (int i = 0; i < n; i++) text[i] = (char *)mr_id2name(m, MR_OBJ_SENSOR, i);
  rc |= h5_attr_strings(dset, "names", text, n);
  for (int i = 0; i < n; i++) text[i] = (char *)mr_sensor_type_name(m->sensor_type[i]);
  rc |= h5_attr_strings(dset, "types", text, n);
  rc |= h5_attr_ints(dset, "adr", m->sensor_adr, n);
  rc |= h5_attr_ints(dset, "dim", m->sensor_dim, n);
  free(text);
  free(names);
  return rc;
}

static int h5_write_attributes(mr_record_h5 *r, const mr_model *m, const mr_data *d) {
  const char *model = m->model_name && m->model_name[0] ? m->model_name
                      : m->source_path                  ? m->source_path
                                                        : "";
  int sizes[5] = {m->nq, m->nv, m->nu, m->na, m->nsensordata};
  const char *size_names[5] = {"nq", "nv", "nu", "na", "nsensordata"};
  int rc = h5_attr_string(r->file, "model", model);
  rc |= h5_attr_string(r->file, "model_file", m->source_path ? m->source_path : "");
  rc |= h5_attr_string(r->file, "solver", mr_record_solver_name(d->opt.solver));
  rc |= h5_attr_string(r->file, "integrator", mr_record_integrator_name(d->opt.integrator));
  rc |= h5_attr_number(r->file, "timestep", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &d->opt.timestep);
  rc |= h5_attr_string(r->file, "moreau_version", MR_VERSION_STRING);
  for (int i = 0; i < 5; i++)
    rc |= h5_attr_number(r->file, size_names[i], H5T_STD_I32LE, H5T_NATIVE_INT, &sizes[i]);
  rc |= h5_sensor_attributes(r->col[H5_SENSORDATA].dset, m);
  const int incomplete = 0;
  rc |= h5_attr_number(r->file, "complete", H5T_STD_I32LE, H5T_NATIVE_INT, &incomplete);
  return rc;
}

/* Marks the file complete (rewrites the attribute in place: no new space needed). */
static int h5_mark_complete(mr_record_h5 *r) {
  const int complete = 1;
  hid_t attr = H5Aopen(r->file, "complete", H5P_DEFAULT);
  if (attr < 0) return -1;
  int rc = H5Awrite(attr, H5T_NATIVE_INT, &complete) < 0 ? -1 : 0;
  if (H5Aclose(attr) < 0) rc = -1;
  return rc;
}

/* The innermost message of libhdf5's error stack, where the cause is (the system's reason
 * for a failed write: "No space left on device"). The stack is read the moment a call
 * fails, by an automatic error handler installed around each operation: the clean-up calls
 * that follow a failure would clear it. */
/* Walked from the innermost entry out: the first description wins, unless a later one
 * quotes the system's message ("..., errno = 28, error message = 'No space left on
 * device'"), which says most. */
static herr_t h5_reason_walk(unsigned n, const H5E_error2_t *e, void *data) {
  (void)n;
  h5_reason *r = data;
  if (!e->desc || !e->desc[0] || r->from_system) return 0;
  const char *quoted = strstr(e->desc, "error message = '");
  if (quoted) {
    quoted += strlen("error message = '");
    size_t len = strcspn(quoted, "'");
    snprintf(r->text, sizeof r->text, "%.*s", (int)(len < 150 ? len : 150), quoted);
    r->from_system = 1;
  } else if (!r->text[0]) {
    snprintf(r->text, sizeof r->text, "%.150s", e->desc);
  }
  return 0;
}

static herr_t h5_reason_auto(hid_t stack, void *data) {
  h5_reason *r = data;
  if (!r->text[0]) H5Ewalk2(stack, H5E_WALK_UPWARD, h5_reason_walk, r);
  return 0;
}

/* From now until h5_uncatch, the first failure's reason lands in r->why. */
static void h5_catch(mr_record_h5 *r) {
  r->why.text[0] = 0;
  r->why.from_system = 0;
  H5Eset_auto2(H5E_DEFAULT, h5_reason_auto, &r->why);
}

static void h5_uncatch(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

static const char *h5_why(const mr_record_h5 *r) { return r->why.text[0] ? r->why.text : "HDF5 error"; }

static int h5_create(mr_record_h5 *r, const mr_model *m, const mr_data *d) {
  /* The earliest format (the default): no "open for writing" mark a killed writer would
   * leave behind for readers to trip on. The root group carries no time stamps either. */
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  if (fcpl < 0) return -1;
  if (H5Pset_obj_track_times(fcpl, 0) < 0) {
    H5Pclose(fcpl);
    return -1;
  }
  r->file = H5Fcreate(r->names.part_path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  H5Pclose(fcpl);
  if (r->file < 0) return -1;
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    r->col[i].dset = h5_create_dataset(r->file, &r->col[i]);
    if (r->col[i].dset < 0) return -1;
  }
  if (h5_write_attributes(r, m, d)) return -1;
  return H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0 ? -1 : 0;
}

mr_record_h5 *mr_record_h5_open(const mr_model *m, const mr_data *d, const char *path, char *err,
                                int errlen) {
  if (mr_h5_load(path, err, errlen)) return NULL; /* also turns off the exit handler */
  mr_record_h5 *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  r->file = H5I_INVALID_HID;
  r->m = m;
  h5_define_columns(r, m);
  if (mr_part_file_name(&r->names, path, err, errlen)) {
    h5_free(r);
    return NULL;
  }
  if (h5_alloc_buffers(r)) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    mr_record_h5_abort(r);
    return NULL;
  }
  /* errors come back as one line with their reason, never as a stack dump */
  h5_catch(r);
  int created = h5_create(r, m, d);
  h5_uncatch();
  if (created) {
    snprintf(err, (size_t)errlen, "%s: cannot create the HDF5 file %s: %s", path,
             r->names.part_path, h5_why(r));
    mr_record_h5_abort(r);
    return NULL;
  }
  r->last_flush = mr_record_clock();
  return r;
}

/* Extends one dataset by the pending rows and writes them at its end. */
static int h5_append(mr_record_h5 *r, h5_column *c) {
  hsize_t rows = (hsize_t)(r->rows_on_disk + r->pending);
  hsize_t dims[2] = {rows, (hsize_t)c->width};
  if (H5Dset_extent(c->dset, dims) < 0) return -1;
  if (c->width == 0) return 0;
  hsize_t start[2] = {(hsize_t)r->rows_on_disk, 0};
  hsize_t count[2] = {(hsize_t)r->pending, (hsize_t)c->width};
  hid_t file_space = H5Dget_space(c->dset);
  hid_t mem_space = H5Screate_simple(c->rank, count, NULL);
  int rc = -1;
  if (file_space >= 0 && mem_space >= 0 &&
      H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0) {
    herr_t w = c->is_int ? H5Dwrite(c->dset, H5T_NATIVE_INT, mem_space, file_space, H5P_DEFAULT, c->ibuf)
                         : H5Dwrite(c->dset, H5T_NATIVE_DOUBLE, mem_space, file_space, H5P_DEFAULT, c->buf);
    rc = w < 0 ? -1 : 0;
  }
  if (mem_space >= 0) H5Sclose(mem_space);
  if (file_space >= 0) H5Sclose(file_space);
  return rc;
}

/* Whether the disk (and the process's file size limit) has room for the pending rows,
 * their chunks and the metadata they touch, with a margin. libhdf5 cannot undo a flush
 * that fails halfway: the file would no longer read. Asked first, a full disk leaves the
 * file exactly as the last flush made it, readable to its last row. 0, or -1 with the
 * reason in why. */
static int h5_room(const mr_record_h5 *r, h5_reason *why) {
  double need = 64 * 1024;
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    const h5_column *c = &r->col[i];
    double row = (double)(c->width > 0 ? c->width : 1) * (c->is_int ? 4 : 8);
    need += 2 * row * (double)r->pending + row * (double)h5_chunk_rows(c->width);
  }
  struct statvfs fs;
  if (statvfs(r->names.part_path, &fs) == 0 && (double)fs.f_bavail * (double)fs.f_frsize < need) {
    snprintf(why->text, sizeof why->text, "%s", strerror(ENOSPC));
    return -1;
  }
  struct rlimit limit;
  struct stat st;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      stat(r->names.part_path, &st) == 0 && (double)st.st_size + need > (double)limit.rlim_cur) {
    snprintf(why->text, sizeof why->text, "%s", strerror(EFBIG));
    return -1;
  }
  return 0;
}

int mr_record_h5_flush(mr_record_h5 *r, char *err, int errlen) {
  r->last_flush = mr_record_clock();
  if (r->pending == 0) return 0;
  h5_reason room;
  if (h5_room(r, &room) < 0) {
    snprintf(err, (size_t)errlen, "%s: write error: %s (the %ld rows before it are kept there)",
             r->names.part_path, room.text, r->rows_on_disk);
    return -1;
  }
  int rc = 0;
  h5_catch(r);
  for (int i = 0; i < H5_NCOLUMNS && rc == 0; i++) rc = h5_append(r, &r->col[i]);
  if (rc == 0 && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0) rc = -1;
  h5_uncatch();
  if (rc) {
    snprintf(err, (size_t)errlen, "%s: write error: %s (the %ld rows before it are kept there)",
             r->names.part_path, h5_why(r), r->rows_on_disk);
    return -1;
  }
  r->rows_on_disk += r->pending;
  r->pending = 0;
  return 0;
}

static void h5_put(h5_column *c, long row, const double *x) {
  if (c->width > 0) memcpy(c->buf + row * c->width, x, sizeof *x * (size_t)c->width);
}

/* The controls as the actuators apply them: clamped to ctrlrange unless clamping is off. */
static void h5_put_ctrl(h5_column *c, long row, const mr_model *m, const mr_data *d) {
  double *out = c->buf + row * c->width;
  int clamp = !(d->opt.disable & MR_DISABLE_CLAMPCTRL);
  for (int u = 0; u < c->width; u++) {
    double x = d->ctrl[u];
    if (clamp && m->actuator_ctrllimited[u]) x = fmin(fmax(x, m->actuator_ctrlrange[2 * u]), m->actuator_ctrlrange[2 * u + 1]);
    out[u] = x;
  }
}

int mr_record_h5_write(mr_record_h5 *r, const mr_data *d, double energy, char *err, int errlen) {
  h5_column *c = r->col;
  long k = r->pending;
  const mr_metrics *x = &d->metrics;
  c[H5_TIME].buf[k] = d->time;
  h5_put(&c[H5_QPOS], k, d->qpos);
  h5_put(&c[H5_QVEL], k, d->qvel);
  h5_put_ctrl(&c[H5_CTRL], k, r->m, d);
  c[H5_NCON].ibuf[k] = d->ncon;
  c[H5_ITERS].ibuf[k] = d->solver_iters;
  c[H5_RESIDUAL].buf[k] = d->solver_residual;
  c[H5_ENERGY].buf[k] = energy;
  c[H5_SOLVER_STATUS].ibuf[k] = d->solver_status;
  c[H5_NEFC].ibuf[k] = d->nefc;
  c[H5_PRIMAL].buf[k] = x->primal;
  c[H5_DUAL].buf[k] = x->dual;
  c[H5_COMPLEMENTARITY].buf[k] = x->complementarity;
  c[H5_PENETRATION].buf[k] = x->penetration;
  c[H5_LOOP_CLOSURE].buf[k] = x->loop_closure;
  c[H5_NATURAL_MAP].buf[k] = x->natural_map;
  h5_put(&c[H5_ACT], k, d->act);
  h5_put(&c[H5_SENSORDATA], k, d->sensordata);
  r->pending++;
  if (r->pending >= MR_RECORD_FLUSH_ROWS ||
      mr_record_clock() - r->last_flush >= MR_RECORD_FLUSH_SECONDS)
    return mr_record_h5_flush(r, err, errlen);
  return 0;
}

/* Closes every dataset and the file; 0, or -1 (the reason in r->why, when caught). */
static int h5_close_all(mr_record_h5 *r) {
  int rc = 0;
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    if (r->col[i].dset >= 0 && H5Dclose(r->col[i].dset) < 0) rc = -1;
    r->col[i].dset = H5I_INVALID_HID;
  }
  if (r->file >= 0 && H5Fclose(r->file) < 0) rc = -1;
  r->file = H5I_INVALID_HID;
  return rc;
}

int mr_record_h5_finish(mr_record_h5 *r, char *err, int errlen) {
  int rc = mr_record_h5_flush(r, err, errlen);
  h5_catch(r);
  if (rc == 0 && h5_mark_complete(r) < 0) {
    snprintf(err, (size_t)errlen, "%s: write error: %s (the rows are kept there)",
             r->names.part_path, h5_why(r));
    rc = -1;
  }
  if (h5_close_all(r) < 0 && rc == 0) {
    snprintf(err, (size_t)errlen, "%s: write error on close: %s (the rows are kept there)",
             r->names.part_path, h5_why(r));
    rc = -1;
  }
  h5_uncatch();
  if (rc) mr_part_file_keep(&r->names);
  else rc = mr_part_file_commit(&r->names, err, errlen);
  h5_free(r);
  return rc;
}

void mr_record_h5_keep(mr_record_h5 *r) {
  if (!r) return;
  h5_close_all(r);
  mr_part_file_keep(&r->names);
  h5_free(r);
}

void mr_record_h5_abort(mr_record_h5 *r) {
  if (!r) return;
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    if (r->col[i].dset >= 0) H5Dclose(r->col[i].dset);
    r->col[i].dset = H5I_INVALID_HID;
  }
  if (r->file >= 0) H5Fclose(r->file);
  r->file = H5I_INVALID_HID;
  mr_part_file_abort(&r->names);
  h5_free(r);
}
