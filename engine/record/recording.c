/* Reading recordings back (recording.h). The format is told by the file's first bytes
 * rather than its name, so "FILE.h5.part" and "FILE.csv.part" read like their base files. */
#include "recording.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/file_read.h"
#include "h5_api.h"

/* Rows x numbers a recording may hold in memory: 256 MiB of doubles. */
#define MR_RECORDING_MAX_VALUES (32L * 1024 * 1024)

/* ------------------------------------------------------------------ shared */

void mr_recording_free(mr_recording *r) {
  free(r->time);
  free(r->qpos);
  free(r->qvel);
  free(r->ctrl);
  free(r->act);
  memset(r, 0, sizeof *r);
}

static int mr_recording_row_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Numbers in one row: time, qpos, qvel, ctrl, act. */
static long mr_recording_width(const mr_recording *r) {
  return 1 + (long)r->nq + r->nv + r->nu + r->na;
}

/* Moves row 1 to row 0 (a recording kept to its last row). */
static void recording_keep_last(mr_recording *r) {
  double *arrays[5] = {r->time, r->qpos, r->qvel, r->ctrl, r->act};
  int widths[5] = {1, r->nq, r->nv, r->nu, r->na};
  for (int k = 0; k < 5; k++)
    if (arrays[k] && widths[k] > 0) memcpy(arrays[k], arrays[k] + widths[k], sizeof(double) * (size_t)widths[k]);
  r->nrows = 1;
}

/* The recording's widths against the model's: nq and nv (and nu, na where it has controls,
 * activations). */
static int recording_check_widths(const char *path, int is_hdf5, const mr_model *m,
                                  const mr_recording *r, char *err, int errlen) {
  const char *where = is_hdf5 ? "" : ":1";
  if (r->nq != m->nq || r->nv != m->nv) {
    snprintf(err, (size_t)errlen, "%s%s: the recording has nq %d, nv %d; the model has nq %d, nv %d",
             path, where, r->nq, r->nv, m->nq, m->nv);
    return -1;
  }
  if (r->nu > 0 && r->nu != m->nu) {
    snprintf(err, (size_t)errlen, "%s%s: the recording has %d controls; the model has nu %d", path,
             where, r->nu, m->nu);
    return -1;
  }
  if (r->na > 0 && r->na != m->na) {
    snprintf(err, (size_t)errlen, "%s%s: the recording has %d activations; the model has na %d",
             path, where, r->na, m->na);
    return -1;
  }
  return 0;
}

static int recording_is_hdf5(const char *path, int *is_hdf5, char *why, int whylen) {
  static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char head[8];
  FILE *f = mr_file_open_regular(path, why, whylen);
  if (!f) return -1;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  *is_hdf5 = n == sizeof head && memcmp(head, signature, sizeof head) == 0;
  return 0;
}

/* ------------------------------------------------------------------ CSV */

enum { CSV_OTHER, CSV_TIME, CSV_QPOS, CSV_QVEL, CSV_CTRL, CSV_ACT, CSV_KINDS };

typedef struct csv_reader {
  const char *path;
  mr_line_reader in;
  char *line;  /* in.line */
  char why[256];
  int failed;  /* a line could not be read (why says why) */
  int ncols;
  int *kind, *index; /* ncols: what each column holds */
  long rows_cap;
  int last_only; /* keep the last good row only (--init) */
} csv_reader;

/* 0 with a line in r->line, -1 at the end (or on a failure, r->failed set). */
static int csv_read_line(csv_reader *r) {
  int rc = mr_line_read(&r->in, r->why, (int)sizeof r->why);
  r->line = r->in.line;
  if (rc < 0) r->failed = 1;
  return rc == 1 ? 0 : -1;
}

static int csv_column_kind(const char *name, int *index) {
  static const struct { const char *prefix; int kind; } prefixes[] = {
      {"qpos_", CSV_QPOS}, {"qvel_", CSV_QVEL}, {"ctrl_", CSV_CTRL}, {"act_", CSV_ACT}};
  *index = 0;
  if (strcmp(name, "time") == 0) return CSV_TIME;
  for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
    size_t n = strlen(prefixes[k].prefix);
    if (strncmp(name, prefixes[k].prefix, n) != 0) continue;
    char *end;
    long i = strtol(name + n, &end, 10);
    if (end == name + n || *end || i < 0 || i > 1000000000L) return CSV_OTHER;
    *index = (int)i;
    return prefixes[k].kind;
  }
  return CSV_OTHER;
}

/* Sizes from the header: the largest index + 1 of each kind, checked to be all present. */
static int csv_parse_header(csv_reader *r, mr_recording *out, char *err, int errlen) {
  if (csv_read_line(r)) {
    if (r->failed) snprintf(err, (size_t)errlen, "%s:1: %s", r->path, r->why);
    else snprintf(err, (size_t)errlen, "%s:1: empty file (expected a trajectory header)", r->path);
    return -1;
  }
  r->ncols = 1;
  for (const char *p = r->line; *p; p++) r->ncols += *p == ',';
  r->kind = calloc((size_t)r->ncols, sizeof *r->kind);
  r->index = calloc((size_t)r->ncols, sizeof *r->index);
  if (!r->kind || !r->index) {
    snprintf(err, (size_t)errlen, "%s: out of memory", r->path);
    return -1;
  }
  int count[CSV_KINDS] = {0}, size[CSV_KINDS] = {0};
  char *p = r->line;
  for (int i = 0; i < r->ncols; i++) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    r->kind[i] = csv_column_kind(p, &r->index[i]);
    count[r->kind[i]]++;
    if (r->index[i] + 1 > size[r->kind[i]]) size[r->kind[i]] = r->index[i] + 1;
    p = comma ? comma + 1 : p + strlen(p);
  }
  if (count[CSV_TIME] != 1 || count[CSV_QPOS] != size[CSV_QPOS] || count[CSV_QVEL] != size[CSV_QVEL] ||
      count[CSV_CTRL] != size[CSV_CTRL] || count[CSV_ACT] != size[CSV_ACT]) {
    snprintf(err, (size_t)errlen, "%s:1: not a trajectory header (time, qpos_0.., qvel_0..)", r->path);
    return -1;
  }
  out->nq = size[CSV_QPOS];
  out->nv = size[CSV_QVEL];
  out->nu = size[CSV_CTRL];
  out->na = size[CSV_ACT];
  return 0;
}

static int csv_grow(csv_reader *r, mr_recording *out) {
  if (out->nrows < r->rows_cap) return 0;
  long cap = r->last_only ? 2 : r->rows_cap ? 2 * r->rows_cap : 256;
  long limit = MR_RECORDING_MAX_VALUES / mr_recording_width(out);
  if (!r->last_only && cap > limit) cap = limit > out->nrows ? limit : out->nrows + 1;
  double **arrays[5] = {&out->time, &out->qpos, &out->qvel, &out->ctrl, &out->act};
  int widths[5] = {1, out->nq, out->nv, out->nu, out->na};
  for (int k = 0; k < 5; k++) {
    if (k >= 3 && widths[k] == 0) continue;
    size_t n = (size_t)cap * (size_t)(widths[k] > 0 ? widths[k] : 1);
    double *grown = realloc(*arrays[k], n * sizeof **arrays[k]);
    if (!grown) return -1;
    *arrays[k] = grown;
  }
  r->rows_cap = cap;
  return 0;
}

/* One row into row out->nrows; -1 if a field is missing or not a number. */
static int csv_parse_row(csv_reader *r, mr_recording *out) {
  long k = out->nrows;
  if (strpbrk(r->line, "xX")) return -1; /* strtod's hexadecimal floats: not ours */
  char *p = r->line;
  for (int i = 0; i < r->ncols; i++) {
    char *end;
    double x = strtod(p, &end);
    if (end == p || (*end != ',' && *end != 0) || (*end == 0 && i + 1 < r->ncols) ||
        (*end == ',' && i + 1 == r->ncols))
      return -1;
    switch (r->kind[i]) {
      case CSV_TIME: out->time[k] = x; break;
      case CSV_QPOS: out->qpos[k * out->nq + r->index[i]] = x; break;
      case CSV_QVEL: out->qvel[k * out->nv + r->index[i]] = x; break;
      case CSV_CTRL: out->ctrl[k * out->nu + r->index[i]] = x; break;
      case CSV_ACT: out->act[k * out->na + r->index[i]] = x; break;
      default: break;
    }
    p = *end ? end + 1 : end;
  }
  out->nrows++;
  return 0;
}

/* A malformed row is an error, except a last line cut short by a crash (no newline), which
 * is dropped. */
static int recording_too_large(const char *path, long rows, long width, char *err, int errlen) {
  snprintf(err, (size_t)errlen,
           "%s: too large to load (%ld rows of %ld numbers; the limit is %ld numbers in all)", path,
           rows, width, MR_RECORDING_MAX_VALUES);
  return -1;
}

static int csv_parse_rows(csv_reader *r, mr_recording *out, char *err, int errlen) {
  long width = mr_recording_width(out);
  while (csv_read_line(r) == 0) {
    if (r->line[0] == 0) continue;
    if (!r->last_only && (out->nrows + 1) * width > MR_RECORDING_MAX_VALUES)
      return recording_too_large(r->path, out->nrows + 1, width, err, errlen);
    if (csv_grow(r, out)) {
      snprintf(err, (size_t)errlen, "%s: out of memory", r->path);
      return -1;
    }
    if (csv_parse_row(r, out) == 0) {
      /* --init keeps one row: a good row is parsed into slot 1, then moved to slot 0 */
      if (r->last_only && out->nrows == 2) recording_keep_last(out);
      continue;
    }
    if (r->in.cut) break;
    snprintf(err, (size_t)errlen, "%s:%ld: malformed row (expected %d numbers)", r->path,
             r->in.lineno, r->ncols);
    return -1;
  }
  if (r->failed) {
    snprintf(err, (size_t)errlen, "%s:%ld: %s", r->path, r->in.lineno, r->why);
    return -1;
  }
  return 0;
}

static int recording_load_csv(const char *path, const mr_model *m, int last_only,
                              mr_recording *out, char *err, int errlen) {
  csv_reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.last_only = last_only;
  if (mr_line_reader_open(&r.in, path, 0, r.why, (int)sizeof r.why)) {
    snprintf(err, (size_t)errlen, "%s:1: %s", path, r.why);
    return -1;
  }
  int rc = csv_parse_header(&r, out, err, errlen);
  /* the widths are known from the header: a recording of another model is refused before
   * its rows are read */
  if (rc == 0 && m) rc = recording_check_widths(path, 0, m, out, err, errlen);
  if (rc == 0) rc = csv_parse_rows(&r, out, err, errlen);
  mr_line_reader_close(&r.in);
  free(r.kind);
  free(r.index);
  return rc;
}

/* ------------------------------------------------------------------ HDF5 */

/* Rows and width of a 1-D (width 1) or 2-D dataset; -1 if absent or of another rank. */
static int h5_dataset_shape(hid_t file, const char *name, int rank, long *rows, int *width) {
  if (H5Lexists(file, name, H5P_DEFAULT) <= 0) return -1;
  hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
  if (dset < 0) return -1;
  hid_t space = H5Dget_space(dset);
  hsize_t dims[2] = {0, 1};
  int ok = space >= 0 && H5Sget_simple_extent_ndims(space) == rank &&
           H5Sget_simple_extent_dims(space, dims, NULL) == rank;
  if (space >= 0) H5Sclose(space);
  H5Dclose(dset);
  /* each bound alone keeps rows x width within 64 bits; their product is checked by the
   * caller against what may be loaded */
  if (!ok || dims[0] > (hsize_t)1 << 40 || dims[rank - 1] > (hsize_t)1 << 20) return -1;
  *rows = (long)dims[0];
  *width = rank == 1 ? 1 : (int)dims[1];
  return 0;
}

/* Rows [first, first + rows) of a dataset, as doubles. */
static int h5_read_rows(hid_t file, const char *name, int rank, long first, long rows, int width,
                        double **out) {
  size_t n = (size_t)rows * (size_t)width;
  *out = malloc((n ? n : 1) * sizeof **out);
  if (!*out) return -1;
  if (n == 0) return 0;
  hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
  if (dset < 0) return -1;
  hsize_t start[2] = {(hsize_t)first, 0}, count[2] = {(hsize_t)rows, (hsize_t)width};
  hid_t file_space = H5Dget_space(dset);
  hid_t mem_space = H5Screate_simple(rank, count, NULL);
  int rc = -1;
  if (file_space >= 0 && mem_space >= 0 &&
      H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
      H5Dread(dset, H5T_NATIVE_DOUBLE, mem_space, file_space, H5P_DEFAULT, *out) >= 0)
    rc = 0;
  if (mem_space >= 0) H5Sclose(mem_space);
  if (file_space >= 0) H5Sclose(file_space);
  H5Dclose(dset);
  return rc;
}

/* Shapes of /time, /qpos, /qvel, and /ctrl and /act (optional: has[0], has[1]). Rows are the
 * fewest any of them has: a run killed in the middle of a flush may have extended some
 * datasets and not others. */
static int h5_shapes(const char *path, hid_t file, mr_recording *out, int has[2], char *err,
                     int errlen) {
  const char *names[5] = {"time", "qpos", "qvel", "ctrl", "act"};
  int ranks[5] = {1, 2, 2, 2, 2};
  int *widths[5] = {NULL, &out->nq, &out->nv, &out->nu, &out->na};
  int one;
  out->nrows = -1;
  has[0] = has[1] = 0;
  for (int k = 0; k < 5; k++) {
    long rows;
    if (h5_dataset_shape(file, names[k], ranks[k], &rows, widths[k] ? widths[k] : &one)) {
      if (k >= 3) continue;
      snprintf(err, (size_t)errlen, "%s: no readable dataset /%s (%s) in the HDF5 file", path,
               names[k], ranks[k] == 1 ? "rows" : "rows x n");
      return -1;
    }
    if (k >= 3) has[k - 3] = 1;
    if (out->nrows < 0 || rows < out->nrows) out->nrows = rows;
  }
  return 0;
}

static int recording_load_h5(const char *path, const mr_model *m, int last_only,
                             mr_recording *out, char *err, int errlen) {
  if (mr_h5_load(path, err, errlen)) return -1; /* and no exit handler, as for the writer */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* errors come back as one line, not a stack dump */
  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) {
    snprintf(err, (size_t)errlen, "%s: cannot open as HDF5 (damaged, or still being written)", path);
    return -1;
  }
  int has[2] = {0, 0};
  int rc = h5_shapes(path, file, out, has, err, errlen);
  if (rc == 0 && m) rc = recording_check_widths(path, 1, m, out, err, errlen);
  long width = mr_recording_width(out);
  if (rc == 0 && !last_only && out->nrows * width > MR_RECORDING_MAX_VALUES)
    rc = recording_too_large(path, out->nrows, width, err, errlen);
  if (rc == 0) {
    long first = last_only && out->nrows > 0 ? out->nrows - 1 : 0;
    if (last_only && out->nrows > 0) out->nrows = 1;
    rc = h5_read_rows(file, "time", 1, first, out->nrows, 1, &out->time);
    if (rc == 0) rc = h5_read_rows(file, "qpos", 2, first, out->nrows, out->nq, &out->qpos);
    if (rc == 0) rc = h5_read_rows(file, "qvel", 2, first, out->nrows, out->nv, &out->qvel);
    if (rc == 0 && has[0]) rc = h5_read_rows(file, "ctrl", 2, first, out->nrows, out->nu, &out->ctrl);
    if (rc == 0 && has[1] && out->na > 0)
      rc = h5_read_rows(file, "act", 2, first, out->nrows, out->na, &out->act);
    if (rc) snprintf(err, (size_t)errlen, "%s: HDF5 read error", path);
  }
  H5Fclose(file);
  return rc;
}

/* ------------------------------------------------------------------ entry */

/* Every number of every row finite: a NaN would start a run diverged or draw nothing. */
static int recording_check_finite(const char *path, const mr_recording *r, char *err, int errlen) {
  for (long i = 0; i < r->nrows; i++) {
    int ok = isfinite(r->time[i]) && mr_recording_row_finite(r->qpos + i * r->nq, r->nq) &&
             mr_recording_row_finite(r->qvel + i * r->nv, r->nv) &&
             (!r->ctrl || mr_recording_row_finite(r->ctrl + i * r->nu, r->nu)) &&
             (!r->act || mr_recording_row_finite(r->act + i * r->na, r->na));
    if (!ok) {
      snprintf(err, (size_t)errlen, "%s: row %ld: a number is not finite", path, i + 1);
      return -1;
    }
  }
  return 0;
}

static int recording_load(const char *path, const mr_model *m, int last_only, mr_recording *out,
                          char *err, int errlen) {
  memset(out, 0, sizeof *out);
  int is_hdf5;
  char why[256];
  if (recording_is_hdf5(path, &is_hdf5, why, (int)sizeof why)) {
    snprintf(err, (size_t)errlen, "%s:1: %s", path, why);
    return -1;
  }
  int rc = is_hdf5 ? recording_load_h5(path, m, last_only, out, err, errlen)
                   : recording_load_csv(path, m, last_only, out, err, errlen);
  if (rc == 0) rc = recording_check_finite(path, out, err, errlen);
  if (rc) mr_recording_free(out);
  return rc;
}

int mr_recording_load(const char *path, const mr_model *m, mr_recording *out, char *err,
                      int errlen) {
  return recording_load(path, m, 0, out, err, errlen);
}

int mr_recording_load_last(const char *path, const mr_model *m, mr_recording *out, char *err,
                           int errlen) {
  return recording_load(path, m, 1, out, err, errlen);
}
