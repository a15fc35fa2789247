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
  double volume;          /* the volume a geom's mass comes from (density x volume) */
  double inertia[3];      /* principal moments per unit density */
  double box[3];          /* half sizes of the box with the same mass and inertia (MuJoCo's
                             inertia box, used to fit primitives) */
} mr_compiled_mesh;

/* A heightfield's samples, normalized to [0, 1] (row 0 at -y). */
typedef struct mr_compiled_hfield {
  float *data;
  int nrow, ncol;
} mr_compiled_hfield;

typedef struct mr_compiler {
  mr_spec *s;
  char *err;
  int errlen;
  mr_compiled_mesh *meshes; /* s->nmeshes */
  mr_compiled_hfield *hfields; /* s->nhfields */
  int *geom_order;          /* model geom i is spec geom geom_order[i] (grouped by body) */
  int *geom_new;            /* spec geom -> model geom */
} mr_compiler;

int mr_compile_check_spec(mr_compiler *c);           /* references, finiteness, sizes */
int mr_compile_check_limits(mr_compiler *c);         /* counts that size arrays (compile_limits.c) */
int mr_compile_check_model(mr_compiler *c, mr_model *m); /* masses, inertias, keyframes */
int mr_compile_meshes(mr_compiler *c);               /* load, recenter, hull */
int mr_compile_hfields(mr_compiler *c);              /* load, normalize */
void mr_compile_hfields_free(mr_compiler *c);
void mr_compile_hfields_fill(const mr_compiler *c, mr_model *m); /* hfield arrays */
void mr_compile_meshes_free(mr_compiler *c);
void mr_compile_tree(mr_compiler *c, mr_model *m);   /* bodies, joints, dofs, qpos0 */
int mr_compile_geoms(mr_compiler *c, mr_model *m);   /* geoms, meshes, body inertia */
void mr_compile_copy(mr_compiler *c, mr_model *m);   /* sites, cameras, ..., keyframes */
int mr_compile_check_tendons(mr_compiler *c);        /* tendon paths, transmissions */
int mr_compile_tendon_sizes(mr_compiler *c, mr_model *sizes); /* ntendon, nwrap, na, nJ* */
int mr_compile_tendons(mr_compiler *c, mr_model *m); /* tendons, paths, J patterns */
int mr_compile_check_sensors(mr_compiler *c);        /* sensor targets, cutoffs */
int mr_compile_sensor_data_size(const mr_spec *s);   /* nsensordata */
void mr_compile_sensors(mr_compiler *c, mr_model *m); /* sensor arrays (needs geom_new) */

/* qpos / dof counts of a joint type. */
static inline int mr_joint_nq(int type) {
  return type == MR_JOINT_FREE ? 7 : type == MR_JOINT_BALL ? 4 : 1;
}
static inline int mr_joint_nv(int type) {
  return type == MR_JOINT_FREE ? 6 : type == MR_JOINT_BALL ? 3 : 1;
}

#endif
