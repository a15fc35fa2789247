/* 3D overlays drawn over the scene as lines and points: contacts and their normals,
 * contact forces, friction cones, body frames, joint axes, centres of mass, convex hulls of
 * meshes, the ground grid, spatial tendons' paths, and the perturbation spring. */
#ifndef MR_RENDER_OVERLAY_H
#define MR_RENDER_OVERLAY_H

#include <glad/gl.h>

#include "moreau.h"

enum {
  MR_OVERLAY_CONTACTS = 1 << 0,
  MR_OVERLAY_FORCES = 1 << 1,
  MR_OVERLAY_CONES = 1 << 2,
  MR_OVERLAY_FRAMES = 1 << 3,
  MR_OVERLAY_JOINTS = 1 << 4,
  MR_OVERLAY_COM = 1 << 5,
  MR_OVERLAY_HULLS = 1 << 6,
  MR_OVERLAY_GRID = 1 << 7,
  MR_OVERLAY_TENDONS = 1 << 8
};

typedef struct mr_overlay {
  GLuint program, vao, vbo;
  GLint u_viewproj, u_point_size;
  float *lines, *points; /* 7 floats a vertex: position, rgba */
  int nline_vert, npoint, line_cap, point_cap;
  int failed;            /* out of memory once: draws what fits */
} mr_overlay;

int mr_overlay_create(mr_overlay *o, char *err, int errlen);
void mr_overlay_free(mr_overlay *o);

/* What to draw. extent: the model's size, which sets the length of normals and axes. A
 * spring (anchor to target) is drawn when spring is not NULL (6 numbers). */
void mr_overlay_draw(mr_overlay *o, const mr_model *m, const mr_data *d, int flags,
                     double extent, const float viewproj[16], const double *spring);

/* Batching, for callers with more to draw. */
void mr_overlay_line(mr_overlay *o, const double a[3], const double b[3], const float rgba[4]);
void mr_overlay_point(mr_overlay *o, const double p[3], const float rgba[4]);

#endif
