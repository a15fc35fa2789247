/* Pose, velocity and acceleration of the objects sensors attach to.
 *
 * Body velocities and accelerations are stored com-based (cvel, cacc: angular, then the
 * linear motion of the body point at its tree's subtree com, engine/core/spatial.h); the
 * motion of any other point p of the body is the same spatial vector moved to p,
 * v(p) = v_c + w x (p - c). An accelerometer reads the classical acceleration of its
 * point, which is the moved spatial acceleration plus w x v(p). */
#include <string.h>

#include "engine/core/spatial.h"
#include "sensor.h"

int mr_object_body(const mr_model *m, int type, int id) {
  switch (type) {
    case MR_OBJ_BODY:
    case MR_OBJ_XBODY: return id;
    case MR_OBJ_GEOM: return m->geom_bodyid[id];
    case MR_OBJ_SITE: return m->site_bodyid[id];
    case MR_OBJ_CAMERA: return m->cam_bodyid[id];
    default: return 0;
  }
}

void mr_object_frame(const mr_model *m, const mr_data *d, int type, int id, const double **pos,
                     const double **mat) {
  (void)m;
  switch (type) {
    case MR_OBJ_BODY: *pos = d->xipos + 3 * id, *mat = d->ximat + 9 * id; return;
    case MR_OBJ_XBODY: *pos = d->xpos + 3 * id, *mat = d->xmat + 9 * id; return;
    case MR_OBJ_GEOM: *pos = d->geom_xpos + 3 * id, *mat = d->geom_xmat + 9 * id; return;
    case MR_OBJ_SITE: *pos = d->site_xpos + 3 * id, *mat = d->site_xmat + 9 * id; return;
    case MR_OBJ_CAMERA: *pos = d->cam_xpos + 3 * id, *mat = d->cam_xmat + 9 * id; return;
    default: *pos = d->xpos, *mat = d->xmat; return; /* the world */
  }
}

void mr_object_quat(const mr_model *m, const mr_data *d, int type, int id, double quat[4]) {
  const double *local = NULL;
  switch (type) {
    case MR_OBJ_BODY: local = m->body_iquat + 4 * id; break;
    case MR_OBJ_GEOM: local = m->geom_quat + 4 * id; break;
    case MR_OBJ_SITE: local = m->site_quat + 4 * id; break;
    case MR_OBJ_CAMERA: local = m->cam_quat + 4 * id; break;
    default: break;
  }
  const double *body = d->xquat + 4 * mr_object_body(m, type, id);
  if (local) mr_quat_mul(quat, body, local);
  else memcpy(quat, body, 4 * sizeof(double));
}

/* A com-based motion vector of body b moved to point p; rotated into R's frame if R. */
static void mr_motion_at(const mr_model *m, const mr_data *d, const double *motion, int b,
                         const double p[3], const double *R, double res[6]) {
  double arm[3], w_x_arm[3], out[6];
  mr_sub3(arm, p, d->subtree_com + 3 * m->body_rootid[b]);
  mr_cross3(w_x_arm, motion, arm);
  mr_copy3(out, motion);
  mr_add3(out + 3, motion + 3, w_x_arm);
  if (R) {
    mr_mulmatT3(res, R, out);
    mr_mulmatT3(res + 3, R, out + 3);
  } else {
    memcpy(res, out, sizeof out);
  }
}

void mr_object_velocity(const mr_model *m, const mr_data *d, int type, int id, int local,
                        double res[6]) {
  const double *pos, *mat;
  int b = mr_object_body(m, type, id);
  mr_object_frame(m, d, type, id, &pos, &mat);
  mr_motion_at(m, d, d->cvel + 6 * b, b, pos, local ? mat : NULL, res);
}

void mr_object_acceleration(const mr_model *m, const mr_data *d, int type, int id, int local,
                            double res[6]) {
  const double *pos, *mat;
  int b = mr_object_body(m, type, id);
  mr_object_frame(m, d, type, id, &pos, &mat);
  double vel[6], coriolis[3];
  mr_motion_at(m, d, d->cvel + 6 * b, b, pos, local ? mat : NULL, vel);
  mr_motion_at(m, d, d->cacc + 6 * b, b, pos, local ? mat : NULL, res);
  mr_cross3(coriolis, vel, vel + 3); /* expressed in the same frame as both */
  mr_add3(res + 3, res + 3, coriolis);
}
