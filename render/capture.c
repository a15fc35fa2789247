/* Screenshots with glReadPixels and stb_image_write. */
#include "capture.h"

#include <errno.h>
#include <glad/gl.h>
#include <stb_image_write.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  /* Written beside the target and renamed, so a failed write leaves no partial file. */
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.part", path);
  int ok = stbi_write_png(tmp, width, height, 3, flipped, (int)row);
  free(flipped);
  if (!ok) {
    remove(tmp);
    snprintf(err, (size_t)errlen, "%s: cannot write the screenshot", path);
    return -1;
  }
  if (rename(tmp, path) != 0) {
    snprintf(err, (size_t)errlen, "%s: cannot write the screenshot: %s", path, strerror(errno));
    remove(tmp);
    return -1;
  }
  return 0;
}
