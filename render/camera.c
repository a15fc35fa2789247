/* The viewer's camera: free orbit, body tracking and model cameras. */
#include "camera.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/mr_math.h"

static double deg2rad(double a) { return a * MR_PI / 180.0; }

/* Half extents of a geom's box in its own frame (bounding sphere for meshes). */
static void geom_half_extents(const mr_model *m, int g, double h[3]) {
  const double *s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case MR_GEOM_SPHERE: h[0] = h[1] = h[2] = s[0]; break;
    case MR_GEOM_CAPSULE: h[0] = h[1] = s[0], h[2] = s[1] + s[0]; break;
    case MR_GEOM_CYLINDER: h[0] = h[1] = s[0], h[2] = s[1]; break;
    case MR_GEOM_BOX:
    case MR_GEOM_ELLIPSOID: h[0] = s[0], h[1] = s[1], h[2] = s[2]; break;
    default: h[0] = h[1] = h[2] = m->geom_rbound[g]; break;
  }
}

void mr_camera_frame_model(mr_camera *c, const mr_model *m, const mr_data *d) {
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  int any = 0;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] == MR_GEOM_PLANE) continue;
    double h[3];
    geom_half_extents(m, g, h);
    const double *R = d->geom_xmat + 9 * g;
    for (int k = 0; k < 3; k++) {
      /* The world box of a rotated box: |R| times the half extents. */
      double e = fabs(R[3 * k]) * h[0] + fabs(R[3 * k + 1]) * h[1] + fabs(R[3 * k + 2]) * h[2];
      lo[k] = fmin(lo[k], d->geom_xpos[3 * g + k] - e);
      hi[k] = fmax(hi[k], d->geom_xpos[3 * g + k] + e);
    }
    any = 1;
  }
  for (int b = 1; b < m->nbody && !any; b++) { /* no geoms: body origins */
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], d->xpos[3 * b + k] - 0.1);
      hi[k] = fmax(hi[k], d->xpos[3 * b + k] + 0.1);
    }
  }
  if (!(lo[0] <= hi[0])) { /* nothing at all: a unit box at the origin */
    for (int k = 0; k < 3; k++) lo[k] = -1, hi[k] = 1;
  }
  double radius = 0;
  for (int k = 0; k < 3; k++) {
    c->lookat[k] = 0.5 * (lo[k] + hi[k]);
    radius += 0.25 * (hi[k] - lo[k]) * (hi[k] - lo[k]);
  }
  radius = fmax(sqrt(radius), 0.05);
  c->fixed = -1;
  c->track_body = 0;
  c->fovy = 45;
  c->azimuth = 90;
  c->elevation = -20;
  c->extent = radius;
  /* The bounding sphere fits the vertical field of view with a small margin. */
  c->distance = 1.05 * radius / sin(deg2rad(c->fovy) / 2);
}

void mr_camera_orbit(mr_camera *c, double dx, double dy) {
  c->azimuth -= 180 * dx;
  c->elevation -= 180 * dy;
  c->elevation = fmax(-89.9, fmin(89.9, c->elevation));
  c->azimuth = fmod(c->azimuth, 360.0);
}

void mr_camera_pan(mr_camera *c, double dx, double dy) {
  double eye[3], right[3], up[3], back[3];
  mr_camera fake = *c;
  fake.fixed = -1;
  fake.track_body = 0;
  mr_camera_pose(&fake, NULL, NULL, eye, right, up, back);
  double scale = c->distance * tan(deg2rad(c->fovy) / 2) * 2;
  mr_addscl3(c->lookat, right, -dx * scale);
  mr_addscl3(c->lookat, up, dy * scale);
}

void mr_camera_zoom(mr_camera *c, double amount) {
  c->distance *= exp(-amount);
  c->distance = fmax(c->extent * 0.01, fmin(c->extent * 200, c->distance));
}

void mr_camera_update(mr_camera *c, const mr_data *d) {
  if (c->track_body <= 0) return;
  const double *p = d->xipos + 3 * c->track_body;
  double delta[3];
  mr_sub3(delta, p, c->track_prev);
  mr_add3(c->lookat, c->lookat, delta);
  mr_copy3(c->track_prev, p);
}

void mr_camera_pose(const mr_camera *c, const mr_model *m, const mr_data *d, double eye[3],
                    double right[3], double up[3], double back[3]) {
  if (m && d && c->fixed >= 0 && c->fixed < m->ncam) {
    /* A model camera looks along its -z with +y up (MuJoCo's convention). */
    const double *R = d->cam_xmat + 9 * c->fixed;
    mr_copy3(eye, d->cam_xpos + 3 * c->fixed);
    for (int k = 0; k < 3; k++) right[k] = R[3 * k], up[k] = R[3 * k + 1], back[k] = R[3 * k + 2];
    return;
  }
  double az = deg2rad(c->azimuth), el = deg2rad(c->elevation);
  double fwd[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
  double zup[3] = {0, 0, 1};
  mr_scale3(back, fwd, -1);
  mr_cross3(right, fwd, zup);
  mr_normalize3(right);
  mr_cross3(up, right, fwd);
  for (int k = 0; k < 3; k++) eye[k] = c->lookat[k] - c->distance * fwd[k];
}

static double camera_fovy(const mr_camera *c, const mr_model *m) {
  if (m && c->fixed >= 0 && c->fixed < m->ncam && m->cam_fovy[c->fixed] > 0)
    return m->cam_fovy[c->fixed];
  return c->fovy;
}

void mr_mat4_mul(float r[16], const float a[16], const float b[16]) {
  float t[16];
  for (int col = 0; col < 4; col++)
    for (int row = 0; row < 4; row++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += a[4 * k + row] * b[4 * col + k];
      t[4 * col + row] = s;
    }
  memcpy(r, t, sizeof t);
}

void mr_camera_matrices(const mr_camera *c, const mr_model *m, const mr_data *d, double aspect,
                        float view[16], float proj[16]) {
  double eye[3], right[3], up[3], back[3];
  mr_camera_pose(c, m, d, eye, right, up, back);
  memset(view, 0, 16 * sizeof(float));
  for (int k = 0; k < 3; k++) {
    view[4 * k + 0] = (float)right[k];
    view[4 * k + 1] = (float)up[k];
    view[4 * k + 2] = (float)back[k];
  }
  view[12] = (float)-mr_dot3(right, eye);
  view[13] = (float)-mr_dot3(up, eye);
  view[14] = (float)-mr_dot3(back, eye);
  view[15] = 1;
  /* Clip planes from the model's size and the viewing distance keep depth precision. */
  double znear = fmax(1e-3, fmin(c->extent, c->distance) * 0.01);
  double zfar = fmax(c->distance, c->extent) * 100 + 50;
  double f = 1.0 / tan(deg2rad(camera_fovy(c, m)) / 2);
  memset(proj, 0, 16 * sizeof(float));
  proj[0] = (float)(f / (aspect > 0 ? aspect : 1));
  proj[5] = (float)f;
  proj[10] = (float)((zfar + znear) / (znear - zfar));
  proj[11] = -1;
  proj[14] = (float)(2 * zfar * znear / (znear - zfar));
}

void mr_camera_ray(const mr_camera *c, const mr_model *m, const mr_data *d, int width,
                   int height, double x, double y, double origin[3], double dir[3]) {
  double right[3], up[3], back[3];
  mr_camera_pose(c, m, d, origin, right, up, back);
  double t = tan(deg2rad(camera_fovy(c, m)) / 2);
  double aspect = height > 0 ? (double)width / height : 1;
  double sx = (2 * x / (width > 0 ? width : 1) - 1) * t * aspect;
  double sy = (1 - 2 * y / (height > 0 ? height : 1)) * t;
  for (int k = 0; k < 3; k++) dir[k] = sx * right[k] + sy * up[k] - back[k];
  mr_normalize3(dir);
}

int mr_camera_find(const mr_model *m, const char *spec) {
  if (!spec || strcmp(spec, "free") == 0) return -1;
  int id = mr_name2id(m, MR_OBJ_CAMERA, spec);
  if (id >= 0) return id;
  char *end;
  long k = strtol(spec, &end, 10);
  if (end != spec && *end == 0 && k >= 0 && k < m->ncam) return (int)k;
  return -2;
}
