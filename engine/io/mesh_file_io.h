/* Every file assimp opens for a mesh (the mesh, an OBJ's .mtl, ...) goes through here: read
 * whole from a regular file within a byte budget, then served from memory. A FIFO, a device
 * or an oversized file is refused before assimp sees a byte, and nothing is ever written. */
#ifndef MR_MESH_FILE_IO_H
#define MR_MESH_FILE_IO_H

#include <assimp/cfileio.h>

typedef struct mr_mesh_file_io {
  struct aiFileIO io; /* first: assimp hands it back to the callbacks */
  long bytes_left;    /* what the files opened through it may still add up to */
  long bytes_read;
  char why[512];      /* the first refusal: "'FILE' is a FIFO, not a regular file" */
} mr_mesh_file_io;

void mr_mesh_file_io_init(mr_mesh_file_io *f, long max_bytes);

#endif
