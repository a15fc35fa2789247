/* Reading triangle meshes into flat arrays: STL, OBJ (polygons triangulated), DAE through
 * assimp; MuJoCo's binary .msh by mesh_msh.c. */
#ifndef MR_MESH_IO_H
#define MR_MESH_IO_H

typedef struct mr_mesh_data {
  double *vert;   /* nvert x3 */
  float *normal;  /* nvert x3 */
  int *face;      /* nface x3 */
  int nvert, nface;
} mr_mesh_data;

/* Limits of one mesh file (after assimp joins identical vertices), and of all the mesh
 * files of one model together (mr_mesh_budget): bounded memory and hull work whatever a
 * file claims. */
#define MR_MESH_MAX_VERT (1L << 21)
#define MR_MESH_MAX_FACE (1L << 22)
#define MR_MESH_MAX_BYTES (64L * 1024 * 1024)

typedef struct mr_mesh_budget {
  long bytes, vert, face; /* what the model's meshes may still add up to */
} mr_mesh_budget;

/* A model's budget: 256 MiB of files, 4M vertices, 8M triangles. */
void mr_mesh_budget_init(mr_mesh_budget *b);

/* Loads every sub-mesh of the file with its node transform applied, scaled by scale, as
 * one triangle mesh; computes vertex normals when the file has none. Only regular files are
 * read (assimp's own opens included), within the budget (NULL: one model's worth). Returns
 * 0, or -1 with a reason (no file name, no newline) in msg. */
int mr_mesh_load_budget(const char *path, const double scale[3], mr_mesh_budget *budget,
                        mr_mesh_data *out, char *msg, int msglen);
int mr_mesh_load(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                 int msglen);
void mr_mesh_data_free(mr_mesh_data *m);

/* Unit vertex normals; recompute: from the faces (area-weighted) first. */
void mr_mesh_data_normals(mr_mesh_data *m, int recompute);

/* MuJoCo's binary mesh format (mesh_msh.c): int32 counts nvert, nnormal, ntexcoord, nface,
 * then float32 vertices (3 each), normals (3), texture coordinates (2), int32 faces (3).
 * The file's size must be exactly what the counts say. nface = 0 leaves out->nface 0: the
 * caller takes the convex hull, as MuJoCo does. Same contract as mr_mesh_load. */
int mr_mesh_load_msh(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                     int msglen);

#endif
