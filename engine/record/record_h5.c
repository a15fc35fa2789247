/* HDF5 trajectories (record.h): one extendible, chunked dataset per recorded quantity.
 *
 * Rows wait in per-dataset memory blocks of MR_RECORD_FLUSH_ROWS rows; a flush extends every
 * dataset, writes the block and calls H5Fflush. Between flushes the library is not called,
 * so the file on disk stays exactly as the last flush left it: complete and readable. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "part_file.h"
#include "record.h"

enum {
  H5_TIME, H5_QPOS, H5_QVEL, H5_CTRL, H5_NCON, H5_ITERS, H5_RESIDUAL, H5_ENERGY,
  H5_SOLVER_STATUS, H5_NEFC, H5_PRIMAL, H5_DUAL, H5_COMPLEMENTARITY, H5_PENETRATION,
  H5_LOOP_CLOSURE, H5_ACT, H5_SENSORDATA, H5_NCOLUMNS
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

struct mr_record_h5 {
  mr_part_file names;
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
  if (space >= 0 && plist >= 0 && H5Pset_chunk(plist, c->rank, chunk) >= 0) {
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
  return rc;
}

static int h5_create(mr_record_h5 *r, const mr_model *m, const mr_data *d) {
  /* The earliest format (the default): no "open for writing" mark a killed writer would
   * leave behind for readers to trip on. */
  r->file = H5Fcreate(r->names.part_path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
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
  mr_record_h5 *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  r->file = H5I_INVALID_HID;
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
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors come back as one line, not a stack dump */
  if (h5_create(r, m, d)) {
    snprintf(err, (size_t)errlen, "%s: cannot create the HDF5 file %s", path, r->names.part_path);
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

int mr_record_h5_flush(mr_record_h5 *r, char *err, int errlen) {
  r->last_flush = mr_record_clock();
  if (r->pending == 0) return 0;
  int rc = 0;
  for (int i = 0; i < H5_NCOLUMNS && rc == 0; i++) rc = h5_append(r, &r->col[i]);
  if (rc == 0 && H5Fflush(r->file, H5F_SCOPE_GLOBAL) < 0) rc = -1;
  if (rc) {
    snprintf(err, (size_t)errlen, "%s: HDF5 write error", r->names.part_path);
    return -1;
  }
  r->rows_on_disk += r->pending;
  r->pending = 0;
  return 0;
}

static void h5_put(h5_column *c, long row, const double *x) {
  if (c->width > 0) memcpy(c->buf + row * c->width, x, sizeof *x * (size_t)c->width);
}

int mr_record_h5_write(mr_record_h5 *r, const mr_data *d, double energy, char *err, int errlen) {
  h5_column *c = r->col;
  long k = r->pending;
  const mr_metrics *x = &d->metrics;
  c[H5_TIME].buf[k] = d->time;
  h5_put(&c[H5_QPOS], k, d->qpos);
  h5_put(&c[H5_QVEL], k, d->qvel);
  h5_put(&c[H5_CTRL], k, d->ctrl);
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
  h5_put(&c[H5_ACT], k, d->act);
  h5_put(&c[H5_SENSORDATA], k, d->sensordata);
  r->pending++;
  if (r->pending >= MR_RECORD_FLUSH_ROWS ||
      mr_record_clock() - r->last_flush >= MR_RECORD_FLUSH_SECONDS)
    return mr_record_h5_flush(r, err, errlen);
  return 0;
}

int mr_record_h5_finish(mr_record_h5 *r, char *err, int errlen) {
  int rc = mr_record_h5_flush(r, err, errlen);
  for (int i = 0; i < H5_NCOLUMNS; i++) {
    if (r->col[i].dset >= 0 && H5Dclose(r->col[i].dset) < 0) rc = -1;
    r->col[i].dset = H5I_INVALID_HID;
  }
  if (H5Fclose(r->file) < 0 && rc == 0) {
    snprintf(err, (size_t)errlen, "%s: HDF5 write error on close", r->names.part_path);
    rc = -1;
  }
  r->file = H5I_INVALID_HID;
  if (rc) mr_part_file_abort(&r->names);
  else rc = mr_part_file_commit(&r->names, err, errlen);
  h5_free(r);
  return rc;
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
