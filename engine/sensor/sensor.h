/* Internal to the sensor stage (engine/sensor/): the pose and motion of the objects sensors
 * attach to (bodies, body frames, geoms, sites, cameras), as MuJoCo's mj_objectVelocity and
 * mj_objectAcceleration define them. */
#ifndef MR_SENSOR_H
#define MR_SENSOR_H

#include "moreau.h"

/* The body an object of mr_obj_type type moves with. */
int mr_object_body(const mr_model *m, int type, int id);

/* World position and orientation (row-major, the frame's axes in its columns). A body's
 * frame (MR_OBJ_BODY) is its inertial frame; MR_OBJ_XBODY is the body's own frame. */
void mr_object_frame(const mr_model *m, const mr_data *d, int type, int id, const double **pos,
                     const double **mat);

/* World orientation quaternion of the same frame. */
void mr_object_quat(const mr_model *m, const mr_data *d, int type, int id, double quat[4]);

/* Velocity (angular, linear) of the object's frame origin, in the world frame or, when
 * local, in the object's frame. Needs the velocity stage (cvel). */
void mr_object_velocity(const mr_model *m, const mr_data *d, int type, int id, int local,
                        double res[6]);

/* Acceleration (angular, linear) of the frame origin, the linear part the classical
 * acceleration of that point (gravity included, as an accelerometer reads it). Needs cacc
 * (mr_rne_post_constraint). */
void mr_object_acceleration(const mr_model *m, const mr_data *d, int type, int id, int local,
                            double res[6]);

#endif
