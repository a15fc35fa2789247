/* Recordings as --init and --replay read them. A CSV input is the file itself. An input
 * starting with 'H' describes an HDF5 recording instead (which datasets, their ranks,
 * widths, rows, types and numbers), written with libhdf5 and then read: the reader's own
 * checks are what is fuzzed. Raw HDF5 bytes would fuzz libhdf5's parser, whose bugs (heap
 * overflows on crafted files, found within minutes) are the library's, not ours. A
 * recording that loads starts the model from its last row, which is stepped. */
#include <hdf5.h>
#include <math.h>

#include "engine/record/recording.h"
#include "fuzz_model.h"

typedef struct byte_stream {
  const uint8_t *data;
  size_t size, pos;
} byte_stream;

static unsigned next_byte(byte_stream *b) { return b->pos < b->size ? b->data[b->pos++] : 0; }

static double next_double(byte_stream *b) {
  unsigned kind = next_byte(b);
  if (kind < 200) return ((double)kind - 100.0) / 16.0; /* mostly ordinary numbers */
  uint64_t bits = 0;
  for (int i = 0; i < 8; i++) bits = bits << 8 | next_byte(b);
  double x;
  memcpy(&x, &bits, sizeof x); /* any bit pattern: NaN, inf, subnormal */
  return x;
}

/* One dataset: rank 1 or 2 (or a string), a width near the model's, a few rows. */
static void write_dataset(hid_t file, const char *name, int expected_width, byte_stream *b) {
  unsigned shape = next_byte(b);
  if (shape % 8 == 0) return; /* absent */
  int rank = shape % 8 == 1 ? 1 : 2;
  hsize_t rows = next_byte(b) % 6;
  hsize_t width = shape & 0x80 ? (hsize_t)(next_byte(b) % 12) : (hsize_t)expected_width;
  hsize_t dims[2] = {rows, width};
  hid_t space = H5Screate_simple(rank, dims, NULL);
  int as_int = (shape & 0x40) != 0;
  hid_t dset = H5Dcreate2(file, name, as_int ? H5T_STD_I32LE : H5T_IEEE_F64LE, space, H5P_DEFAULT,
                          H5P_DEFAULT, H5P_DEFAULT);
  size_t n = (size_t)rows * (size_t)(rank == 2 ? width : 1);
  double *v = calloc(n + 1, sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = next_double(b);
  if (dset >= 0 && n > 0) {
    if (as_int) {
      int *iv = calloc(n, sizeof *iv);
      for (size_t i = 0; i < n; i++) iv[i] = isfinite(v[i]) && fabs(v[i]) < 1e9 ? (int)v[i] : 0;
      H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, iv);
      free(iv);
    } else {
      H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    }
  }
  free(v);
  if (dset >= 0) H5Dclose(dset);
  H5Sclose(space);
}

static const char *write_h5(const uint8_t *data, size_t size, char *path, size_t n) {
  byte_stream b = {data, size, 1};
  fuzz_path("rec.h5", path, n);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) abort();
  const mr_model *m = fuzz_model();
  write_dataset(file, "time", 1, &b);
  write_dataset(file, "qpos", m->nq, &b);
  write_dataset(file, "qvel", m->nv, &b);
  write_dataset(file, "ctrl", m->nu, &b);
  H5Fclose(file);
  return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const mr_model *m = fuzz_model();
  char path[600], err[1024];
  if (size > 0 && data[0] == 'H') write_h5(data, size, path, sizeof path);
  else fuzz_write("rec.csv", data, size, path, sizeof path);
  mr_recording all, last;
  if (mr_recording_load(path, m, &all, err, (int)sizeof err) == 0) mr_recording_free(&all);
  else if (!err[0] || strchr(err, '\n')) abort();
  if (mr_recording_load_last(path, m, &last, err, (int)sizeof err) != 0) {
    if (!err[0] || strchr(err, '\n')) abort();
    return 0;
  }
  mr_data *d = mr_data_create(m);
  if (d && last.nrows == 1) {
    memcpy(d->qpos, last.qpos, sizeof(double) * (size_t)m->nq);
    memcpy(d->qvel, last.qvel, sizeof(double) * (size_t)m->nv);
    if (last.ctrl && last.nu == m->nu) memcpy(d->ctrl, last.ctrl, sizeof(double) * (size_t)m->nu);
    d->time = last.time[0];
    for (int i = 0; i < 3 && mr_step(m, d) == 0; i++) {
    }
  }
  mr_data_free(d);
  mr_recording_free(&last);
  return 0;
}
