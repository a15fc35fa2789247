/* The viewer's camera: a free orbit camera (lookat, distance, azimuth, elevation, as in
 * MuJoCo's simulate), optionally tracking a body, or one of the model's cameras. */
#ifndef MR_RENDER_CAMERA_H
#define MR_RENDER_CAMERA_H

#include "moreau.h"

typedef struct mr_camera {
  int fixed;          /* -1: free orbit camera; else the index of a model camera */
  int track_body;     /* > 0: the lookat point follows this body's com */
  double lookat[3];
  double distance;
  double azimuth;     /* degrees about +z, 0 looks along +x */
  double elevation;   /* degrees, negative looks down */
  double fovy;        /* degrees */
  double extent;      /* size of the model: sets clip planes, pan and zoom rates */
  double track_prev[3]; /* tracked body's com at the previous frame */
} mr_camera;

/* A free camera looking at the whole model (every non-plane geom's bounding sphere). */
void mr_camera_frame_model(mr_camera *c, const mr_model *m, const mr_data *d);

/* Mouse motions in units of the window height (dx, dy in [-1, 1] for a full sweep). */
void mr_camera_orbit(mr_camera *c, double dx, double dy);
void mr_camera_pan(mr_camera *c, double dx, double dy);
void mr_camera_zoom(mr_camera *c, double amount); /* > 0 moves closer */

/* Follows the tracked body (call once per frame, after stepping). */
void mr_camera_update(mr_camera *c, const mr_data *d);

/* Eye position and the right-handed basis (right, up, back) the view looks along -back. */
void mr_camera_pose(const mr_camera *c, const mr_model *m, const mr_data *d, double eye[3],
                    double right[3], double up[3], double back[3]);

/* Column-major 4x4 matrices for OpenGL. */
void mr_camera_matrices(const mr_camera *c, const mr_model *m, const mr_data *d, double aspect,
                        float view[16], float proj[16]);
void mr_mat4_mul(float r[16], const float a[16], const float b[16]);

/* The world-space ray through a pixel (x, y from the top-left, in framebuffer pixels). */
void mr_camera_ray(const mr_camera *c, const mr_model *m, const mr_data *d, int width,
                   int height, double x, double y, double origin[3], double dir[3]);

/* A model camera by name or index, "free" (or NULL) for the free camera: the index, -1 for
 * free, -2 if there is no such camera. */
int mr_camera_find(const mr_model *m, const char *spec);

#endif
