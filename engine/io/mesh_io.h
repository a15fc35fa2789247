/* Reading triangle meshes (STL, OBJ, DAE) through assimp into flat arrays. */
#ifndef MR_MESH_IO_H
#define MR_MESH_IO_H

typedef struct mr_mesh_data {
  double *vert;   /* nvert x3 */
  float *normal;  /* nvert x3 */
  int *face;      /* nface x3 */
  int nvert, nface;
} mr_mesh_data;

/* Loads every sub-mesh of the file with its node transform applied, scaled by scale, as
 * one triangle mesh; computes vertex normals when the file has none. Returns 0, or -1 with
 * a reason (no file name, no newline) in msg. */
int mr_mesh_load(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                 int msglen);
void mr_mesh_data_free(mr_mesh_data *m);

#endif
