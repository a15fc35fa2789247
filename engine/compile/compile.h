/* Internal to the model compiler (engine/compile*.c, engine/core/model.c). */
#ifndef MR_COMPILE_H
#define MR_COMPILE_H

#include "collision/hull.h"
#include "engine/io/mesh_io.h"
#include "engine/core/model.h"
#include "moreau.h"
#include "engine/io/spec.h"


/* A mesh as the model stores it: vertices moved to the mesh's com and principal axes, as
 * MuJoCo does, so that a geom using it needs only its frame composed with (pos, quat). */
typedef struct mr_compiled_mesh {
  mr_mesh_data data;
  mr_hull hull;
  double pos[3], quat[4]; /* mesh frame in the file's coordinates */
  double volume;
  double inertia[3];      /* principal moments per unit density */
} mr_compiled_mesh;

typedef struct mr_compiler {
  mr_spec *s;
  char *err;
  int errlen;
  mr_compiled_mesh *meshes; /* s->nmeshes */
  int *geom_order;          /* model geom i is spec geom geom_order[i] (grouped by body) */
  int *geom_new;            /* spec geom -> model geom */
} mr_compiler;

int mr_compile_check_spec(mr_compiler *c);           /* references, finiteness, sizes */
int mr_compile_check_limits(mr_compiler *c);         /* counts that size arrays (compile_limits.c) */
int mr_compile_check_model(mr_compiler *c, mr_model *m); /* masses, inertias, keyframes */
int mr_compile_meshes(mr_compiler *c);               /* load, recenter, hull */
void mr_compile_meshes_free(mr_compiler *c);
void mr_compile_tree(mr_compiler *c, mr_model *m);   /* bodies, joints, dofs, qpos0 */
int mr_compile_geoms(mr_compiler *c, mr_model *m);   /* geoms, meshes, body inertia */
void mr_compile_copy(mr_compiler *c, mr_model *m);   /* sites, cameras, ..., keyframes */

/* qpos / dof counts of a joint type. */
static inline int mr_joint_nq(int type) {
  return type == MR_JOINT_FREE ? 7 : type == MR_JOINT_BALL ? 4 : 1;
}
static inline int mr_joint_nv(int type) {
  return type == MR_JOINT_FREE ? 6 : type == MR_JOINT_BALL ? 3 : 1;
}

#endif
