/* The small scenes of the solver-fidelity tests (issue 17): a 0.2 m, 1 kg box on a plane
 * tilted by `deg` degrees about y (0: the floor), resting on it, friction mu on both
 * geoms (MuJoCo combines by the maximum), geom margin `margin` (0: MuJoCo's default, a
 * contact is a row only while penetrating). The box's position along the downhill
 * direction and its rotation away from the start are what the tests read. */
#ifndef MR_FIDELITY_SCENE_H
#define MR_FIDELITY_SCENE_H

#include <math.h>
#include <stdio.h>

#include "mr_test_model.h"

#define MR_FID_PI 3.14159265358979323846
#define MR_FID_HALF 0.1 /* the box's half size */

typedef struct mr_fid_scene {
  mr_model *m;
  mr_data *d;
  double tilt;     /* rad: the plane's normal is (-sin tilt, 0, cos tilt) */
  double start[3]; /* the box's start position */
} mr_fid_scene;

static inline mr_fid_scene mr_fid_box(double deg, double mu, double margin, const char *solver,
                                      double dt) {
  mr_fid_scene s;
  s.tilt = deg * MR_FID_PI / 180;
  double qw = cos(-s.tilt / 2), qy = sin(-s.tilt / 2);
  s.start[0] = -MR_FID_HALF * sin(s.tilt), s.start[1] = 0, s.start[2] = MR_FID_HALF * cos(s.tilt);
  char xml[1024];
  snprintf(xml, sizeof xml,
           "<mujoco><option timestep=\"%.17g\"/><worldbody>"
           "<geom type=\"plane\" size=\"5 5 0.1\" quat=\"%.17g 0 %.17g 0\" friction=\"%.17g 0.005 0.0001\"/>"
           "<body pos=\"%.17g 0 %.17g\" quat=\"%.17g 0 %.17g 0\"><freejoint/>"
           "<geom type=\"box\" size=\"%g %g %g\" mass=\"1\" margin=\"%.17g\" friction=\"%.17g 0.005 0.0001\"/>"
           "</body></worldbody></mujoco>",
           dt, qw, qy, mu, s.start[0], s.start[2], qw, qy, MR_FID_HALF, MR_FID_HALF, MR_FID_HALF,
           margin, mu);
  s.m = mr_test_load_xml(xml);
  MR_REQUIRE(s.m);
  s.d = mr_data_create(s.m);
  MR_REQUIRE(s.d);
  s.d->opt.solver = mr_solver_find(solver);
  MR_REQUIRE(s.d->opt.solver >= 0);
  return s;
}

/* Displacement of the box along the downhill direction (-cos tilt, 0, -sin tilt): positive
 * when it slides down; on the floor (tilt 0) this is -x. */
static inline double mr_fid_downhill(const mr_fid_scene *s) {
  const double *q = s->d->qpos;
  double dx = q[0] - s->start[0], dz = q[2] - s->start[2];
  return -(dx * cos(s->tilt) + dz * sin(s->tilt));
}

/* Height of the box above its start along the plane's normal. */
static inline double mr_fid_lift(const mr_fid_scene *s) {
  const double *q = s->d->qpos;
  double dx = q[0] - s->start[0], dz = q[2] - s->start[2];
  return -dx * sin(s->tilt) + dz * cos(s->tilt);
}

/* Rotation (rad) away from the start orientation: twice the angle of q0^-1 q. */
static inline double mr_fid_rotation(const mr_fid_scene *s) {
  const double *q = s->d->qpos + 3;
  double w0 = cos(-s->tilt / 2), y0 = sin(-s->tilt / 2);
  double w = w0 * q[0] + y0 * q[2]; /* the real part of conj(q0) q */
  return 2 * acos(fmin(1.0, fabs(w)));
}

static inline void mr_fid_free(mr_fid_scene *s) {
  mr_data_free(s->d);
  mr_model_free(s->m);
}

#endif
