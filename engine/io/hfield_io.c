/* Heightfield files (hfield_io.h). */
#include "hfield_io.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* A file of more than this is refused before it is read (as MJCF files are). */
#define MR_HFIELD_MAX_BYTES (256L * 1024 * 1024)

static int mr_hfield_fail(char *msg, int msglen, const char *path, const char *what) {
  snprintf(msg, (size_t)msglen, "heightfield file '%s': %s", path, what);
  return -1;
}

static int mr_is_png(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcasecmp(path + n - 4, ".png") == 0;
}

static int mr_hfield_size_ok(long w, long h) {
  return w >= 2 && h >= 2 && w <= (1 << 16) && h <= (1 << 16) && w * h <= MR_HFIELD_MAX_SAMPLES;
}

static int mr_hfield_png(const char *path, float **data, int *nrow, int *ncol, char *msg, int msglen) {
  int w, h, comp;
  if (!stbi_info(path, &w, &h, &comp))
    return mr_hfield_fail(msg, msglen, path, "not a readable PNG image");
  if (!mr_hfield_size_ok(w, h))
    return mr_hfield_fail(msg, msglen, path, "the image must be 2 to 65536 pixels a side and at most 2^26 pixels");
  unsigned char *img = stbi_load(path, &w, &h, &comp, 1);
  if (!img) return mr_hfield_fail(msg, msglen, path, stbi_failure_reason());
  *data = malloc(sizeof(float) * (size_t)w * (size_t)h);
  if (!*data) {
    stbi_image_free(img);
    return mr_hfield_fail(msg, msglen, path, "out of memory");
  }
  /* the image's top row is the far edge (+y): MuJoCo's row order is bottom-up */
  for (int r = 0; r < h; r++)
    for (int c = 0; c < w; c++) (*data)[(size_t)(h - 1 - r) * w + c] = img[(size_t)r * w + c];
  stbi_image_free(img);
  *nrow = h;
  *ncol = w;
  return 0;
}

static int mr_hfield_binary(const char *path, float **data, int *nrow, int *ncol, char *msg,
                            int msglen) {
  FILE *f = fopen(path, "rb");
  if (!f) return mr_hfield_fail(msg, msglen, path, "not found or unreadable");
  struct stat st;
  int32_t dims[2];
  if (fstat(fileno(f), &st) != 0 || st.st_size > MR_HFIELD_MAX_BYTES || fread(dims, sizeof dims, 1, f) != 1) {
    fclose(f);
    return mr_hfield_fail(msg, msglen, path, "too short for a header (nrow, ncol) or too large");
  }
  if (!mr_hfield_size_ok(dims[1], dims[0])) {
    fclose(f);
    return mr_hfield_fail(msg, msglen, path, "nrow and ncol must be 2 to 65536 and at most 2^26 samples");
  }
  size_t n = (size_t)dims[0] * (size_t)dims[1];
  if ((uint64_t)st.st_size != 8 + 4 * (uint64_t)n) {
    fclose(f);
    char what[160];
    snprintf(what, sizeof what, "%lld bytes, not the %llu its header (%d x %d) promises",
             (long long)st.st_size, (unsigned long long)(8 + 4 * (uint64_t)n), dims[0], dims[1]);
    return mr_hfield_fail(msg, msglen, path, what);
  }
  *data = malloc(sizeof(float) * n);
  int rc = 0;
  if (!*data) rc = mr_hfield_fail(msg, msglen, path, "out of memory");
  else if (fread(*data, sizeof(float), n, f) != n) rc = mr_hfield_fail(msg, msglen, path, "read error");
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (!isfinite((*data)[i])) rc = mr_hfield_fail(msg, msglen, path, "an elevation is not finite");
  fclose(f);
  if (rc) {
    free(*data);
    *data = NULL;
    return -1;
  }
  *nrow = dims[0];
  *ncol = dims[1];
  return 0;
}

int mr_hfield_load(const char *path, float **data, int *nrow, int *ncol, char *msg, int msglen) {
  *data = NULL;
  struct stat st;
  if (stat(path, &st) != 0) return mr_hfield_fail(msg, msglen, path, "not found or unreadable");
  if (st.st_size > MR_HFIELD_MAX_BYTES) return mr_hfield_fail(msg, msglen, path, "larger than 256 MiB");
  return mr_is_png(path) ? mr_hfield_png(path, data, nrow, ncol, msg, msglen)
                         : mr_hfield_binary(path, data, nrow, ncol, msg, msglen);
}
