/* Screenshots with glReadPixels and stb_image_write. */
#include "capture.h"

#include <glad/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/record/checked_write.h"

/* Defined by stb_image_write's implementation (render/stb_impl.c) but declared only there;
 * the buffer is freed with free, stb's default allocator. */
unsigned char *stbi_write_png_to_mem(const unsigned char *pixels, int stride_bytes, int x, int y,
                                     int n, int *out_len);

int mr_capture_png(const char *path, int width, int height, char *err, int errlen) {
  if (width <= 0 || height <= 0) {
    snprintf(err, (size_t)errlen, "%s: the window has no pixels to save (minimized?)", path);
    return -1;
  }
  size_t row = (size_t)width * 3;
  unsigned char *pixels = malloc(row * (size_t)height);
  unsigned char *flipped = malloc(row * (size_t)height);
  if (!pixels || !flipped) {
    free(pixels);
    free(flipped);
    snprintf(err, (size_t)errlen, "%s: out of memory for a %dx%d screenshot", path, width, height);
    return -1;
  }
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels);
  /* OpenGL's rows run bottom-up, PNG's top-down. */
  for (int y = 0; y < height; y++)
    memcpy(flipped + row * (size_t)y, pixels + row * (size_t)(height - 1 - y), row);
  free(pixels);
  /* Encoded in memory, then written beside the target with every write checked and renamed:
   * a full disk gives an error and no file, never a 0-byte PNG. */
  int len = 0;
  unsigned char *png = stbi_write_png_to_mem(flipped, (int)row, width, height, 3, &len);
  free(flipped);
  if (!png) {
    snprintf(err, (size_t)errlen, "%s: cannot encode the screenshot: out of memory", path);
    return -1;
  }
  int rc = mr_write_file_atomic(path, png, (size_t)len, err, errlen);
  free(png);
  return rc;
}
