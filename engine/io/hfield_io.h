/* Heightfield files: a PNG (grey levels; colour images are turned grey), or MuJoCo's binary
 * format (int32 nrow, int32 ncol, then nrow x ncol float32 elevations, row-major). */
#ifndef MR_HFIELD_IO_H
#define MR_HFIELD_IO_H

/* Samples of one heightfield at most (a 8192 x 8192 terrain): a bound on memory that a file
 * cannot talk the loader out of. */
#define MR_HFIELD_MAX_SAMPLES (1 << 26)

/* Reads path into *data (malloc'd, nrow x ncol, row-major, row 0 at -y as MuJoCo stores
 * it: a PNG's top row becomes the last row). Every size is checked before it is used.
 * 0, or -1 with a reason (no file name, no newline) in msg. */
int mr_hfield_load(const char *path, float **data, int *nrow, int *ncol, char *msg, int msglen);

#endif
