/* Internal interface between the pipeline (forward.c) and the integrators (midpoint.c).
 * Not part of the public API. */
#ifndef MR_INTEGRATOR_H
#define MR_INTEGRATOR_H

#include "moreau.h"

/* qfrc_smooth = passive + actuator + applied - bias, plus the generalized forces of
 * xfrc_applied, from the force stages already evaluated at d's state (forward.c). */
void mr_smooth_force(const mr_model *m, mr_data *d);

/* One step of the two-stage midpoint scheme (theta = theta_vq = 1/2, papers/004 sec. 3),
 * called by mr_step once the pipeline has evaluated every stage at (q0, v0) (midpoint.c).
 * Leaves qpos, qvel at the end of the step, qacc = (v - v0) / dt, time advanced, the
 * Newton statistics in newton_iters / newton_status / newton_residual, and the kinematics,
 * mass matrix and forces of the last midpoint evaluation in d. */
void mr_midpoint_step(const mr_model *m, mr_data *d);

#endif
