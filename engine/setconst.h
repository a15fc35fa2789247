/* Model constants that need the dynamics (internal: the loader calls it after compiling). */
#ifndef MR_SETCONST_H
#define MR_SETCONST_H

#include "engine/io/spec.h"
#include "moreau.h"

/* Fills what MuJoCo's mj_setConst and mj_setLengthRange compute from the compiled model:
 * tendon_length0 and actuator_length0 at qpos0, tendon_lengthspring at qpos_spring where the
 * file gave none, the inverse weights body_invweight0, dof_invweight0 and tendon_invweight0
 * at qpos0 (mj_setM0's), actuator_acc0 (the norm of M^-1 times the moment arms at qpos0) and the
 * length ranges muscles need (spec->lengthrange says which actuators and how). The spec is
 * the one the model was compiled from, for the options and the errors' FILE:LINE. Returns
 * 0, or -1 with "FILE:LINE: message" in err (out of memory, or a length range that does not
 * converge because the transmission is not limited). */
int mr_model_setconst(mr_model *m, const mr_spec *s, char *err, int errlen);

/* An mr_data for the smooth dynamics only (data.c): its arena has no room for collision or
 * constraint rows (the constraint-arena worst case is the bulk of a data's memory), and
 * contacts and constraints are disabled in its options. Enough for kinematics, tendons,
 * transmissions, the mass matrix and its factor at reference configurations. */
mr_data *mr_data_create_smooth(const mr_model *m);

#endif
