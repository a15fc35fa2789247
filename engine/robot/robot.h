/* What a robot needs beyond what its file says, so that it stands, holds and collides as
 * robotics users expect out of the box (a stage between compile and the step):
 *
 *   before compile (mr_robot_prepare, on the spec):
 *     - the floor: a plane at z = 0 for URDF models with a floating base (MR_AUTO) or on
 *       request (MR_ON), drawn as a checker grid;
 *     - --hold: a position servo on every hinge and slide joint (mr_spec_hold);
 *     - self-collision by the tree: no pair of a link and its parent (URDF), or with
 *       MR_OFF no pair within one robot at all;
 *   after compile (mr_robot_finish, on the model, with the spec still at hand):
 *     - poses: SRDF states without a base pose stand with their lowest collision geometry
 *       on the floor; a floating URDF robot whose qpos0 is buried in the floor is lifted
 *       onto it (placement.c);
 *     - self-collision by the poses (URDF, MR_AUTO): link pairs that overlap or touch at
 *       qpos0 or at an SRDF state never collide, as MoveIt's setup assistant decides, with
 *       one warning listing them (self_collision.c);
 *     - servo gains chosen from the mass matrix at the start pose, and keyframe controls
 *       that hold each keyframe's pose (servo_gains.c);
 *     - a model whose mass matrix is singular is refused, naming the joint.
 */
#ifndef MR_ROBOT_H
#define MR_ROBOT_H

#include "engine/io/spec.h"
#include "moreau.h"

/* The floor's name (a geom of the world body) and its material's. */
#define MR_FLOOR_NAME "floor"
#define MR_FLOOR_MATERIAL "moreau_floor"

/* Distance under which two links count as touching at a reference pose (m). */
#define MR_SELF_TOUCH 1e-3

/* A floating robot's link stands on the floor at the start pose when its collision geometry
 * comes this close to z = 0 (m): SRDF states are written by hand (solo's "standing" has its
 * feet 3 mm up). */
#define MR_STANCE_HEIGHT 0.01

/* Bandwidth of the servos whose gains the mass matrix gives (rad/s): a position servo is
 * critically damped at it, kp = m w^2, kd = 2 m w (servo_gains.c says which inertia m); a
 * velocity servo has kd = m w. */
#define MR_SERVO_BANDWIDTH (2 * 3.14159265358979323846 * 8)

int mr_robot_prepare(mr_spec *s, const mr_load_options *opt, char *err, int errlen);

/* Returns the finished model: m itself, or a copy that replaced it (m is then freed); NULL
 * with err set on failure (m freed). */
mr_model *mr_robot_finish(const mr_spec *s, mr_model *m, const mr_load_options *opt,
                          char *err, int errlen);

/* --hold at the start of a run: every position servo's target is its joint's position in d
 * (keyframes carry these targets in key_ctrl; this covers qpos0 and states set otherwise). */
void mr_robot_hold_targets(const mr_model *m, mr_data *d);

/* placement.c */
/* The lowest z of geom g if it is robot collision geometry (else +HUGE_VAL). */
double mr_robot_geom_lowest(const mr_model *m, const mr_data *d, int g);
/* The lowest z of the robot's collision geometry at the pose in d (kinematics done): every
 * collidable geom outside the world body; +HUGE_VAL when there is none. */
double mr_robot_lowest_point(const mr_model *m, const mr_data *d);
/* The qpos address of the model's first free joint, or -1. */
int mr_robot_base_qposadr(const mr_model *m);
/* Drops marked keyframes onto the floor and lifts a buried qpos0. */
void mr_robot_place(const mr_spec *s, mr_model *m, mr_data *d);
/* Sizes the floor's checker to the robot at qpos0: squares of 0.1, 0.25, 0.5 or 1 m, the
 * one nearest a quarter of the robot's largest extent. */
void mr_robot_floor_squares(mr_model *m, mr_data *d);

/* self_collision.c: the model with the pairs touching at the reference poses excluded
 * (m itself when there are none); NULL on out of memory (m freed). */
mr_model *mr_robot_self_collision(const mr_spec *s, mr_model *m, int quiet, char *err,
                                  int errlen);

/* servo_gains.c */
/* Gains of the auto_gains servos from M at the start pose, then every keyframe's servo
 * controls (URDF, --hold): its joint positions (position servos), zero (velocity servos). */
void mr_robot_servo_gains(const mr_spec *s, mr_model *m, mr_data *d, const char *keyframe,
                          int hold);
/* 0, or -1 with err naming the first joint whose dof has no inertia (M singular). */
int mr_robot_check_mass(const mr_spec *s, const mr_model *m, mr_data *d, char *err, int errlen);

#endif
