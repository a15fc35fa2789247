/* The 3D scene of one model: sky, every visible geom with its colour, material and builtin
 * texture, lit by a key light and a headlight. Also the pick pass that tells which geom is
 * under a pixel. */
#ifndef MR_RENDER_SCENE_H
#define MR_RENDER_SCENE_H

#include <glad/gl.h>

#include "mesh_cache.h"
#include "moreau.h"

typedef struct mr_scene {
  GLuint geom_program, sky_program, empty_vao;
  GLuint pose_buffer, pose_texture; /* ngeom x 3 texels: rows of [R | p] */
  GLuint look_buffer, look_texture; /* ngeom x 5 texels */
  mr_mesh_cache cache;
  float *pose;                /* ngeom x 12, filled every frame */
  float *look;                /* ngeom x 20 */
  unsigned char *geom_visible; /* ngeom */
  int ngeom;
  float sky_top[3], sky_bottom[3];
  GLint u_viewproj, u_pose, u_look, u_eye, u_light_dir, u_pick;
  GLint u_sky_top, u_sky_bottom;
} mr_scene;

/* Builds programs and uploads the model's geometry. 0 and one line in err on failure. */
int mr_scene_create(mr_scene *s, const mr_model *m, double extent, char *err, int errlen);
void mr_scene_free(mr_scene *s);

/* Which geoms are drawn: MuJoCo's default groups 0-2; for URDF the visual geoms of a body
 * that has any, its collision geoms when show_collision is set. */
void mr_scene_set_visibility(mr_scene *s, const mr_model *m, int show_collision);

/* Tints one body's geoms (the selection); body 0 or less: none. */
void mr_scene_set_highlight(mr_scene *s, const mr_model *m, int body);

/* Draws sky and geoms with the given view-projection matrix and eye position. */
void mr_scene_draw(mr_scene *s, const mr_data *d, const float viewproj[16], const double eye[3]);

/* Draws geom indices into the current framebuffer and reads the pixel (x, y from the
 * bottom-left): the geom index or -1, and the depth there in [0, 1]. Leaves the
 * framebuffer dirty: draw the scene again before showing it. */
int mr_scene_pick(mr_scene *s, const mr_data *d, const float viewproj[16], int x, int y,
                  float *depth);

#endif
