/* Screenshots: the current framebuffer to a PNG file. */
#ifndef MR_RENDER_CAPTURE_H
#define MR_RENDER_CAPTURE_H

/* Reads the width x height pixels of the current read buffer and writes them as an RGB PNG.
 * 0, or -1 and one line "FILE: what is wrong" in err. */
int mr_capture_png(const char *path, int width, int height, char *err, int errlen);

#endif
