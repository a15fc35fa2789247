/* The pipeline: mr_forward (state -> qacc) and mr_step (one time step), in MuJoCo's
 * visible order so every stage can be compared with its MuJoCo counterpart:
 *
 *   position stage      kinematics, com frames, mass matrix (CRBA), collision
 *   velocity stage      body velocities, bias forces (RNEA), passive forces
 *   actuation           actuator forces, then qfrc_smooth (+ applied forces)
 *   acceleration        L^T D L factor of M, qacc_smooth = M^-1 qfrc_smooth
 *   constraint          (later issues: constraint rows, solver) -> qacc
 *   integrate           semi-implicit Euler with implicit joint damping
 *
 * mr_step skips the factor of M when a step has no constraint rows and the dofs have
 * damping: the integrator needs only M + dt B then (see mr_step_smooth_damped).
 *
 * Nothing here allocates: scratch comes from the data's arena, reset at the start.
 */
#include <math.h>
#include <string.h>

#include "arena.h"
#include "integrator.h"
#include "moreau.h"
#include "spatial.h"

/* ------------------------------------------------------------------ applied forces */

/* The deepest dof that moves body b (its own last dof, else its nearest moving ancestor's),
 * or -1 for a body welded to the world. */
static int mr_body_last_dof(const mr_model *m, int b) {
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  return b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1;
}

/* qfrc += J^T xfrc for each body's world force/torque at its com: the wrench is moved to
 * the tree's reference point and projected on every dof that supports the body. */
static void mr_xfrc_accumulate(const mr_model *m, mr_data *d, double *qfrc) {
  for (int b = 1; b < m->nbody; b++) {
    const double *x = d->xfrc_applied + 6 * b;
    if (x[0] == 0 && x[1] == 0 && x[2] == 0 && x[3] == 0 && x[4] == 0 && x[5] == 0) continue;
    double arm[3], wrench[6];
    mr_sub3(arm, d->xipos + 3 * b, d->subtree_com + 3 * m->body_rootid[b]);
    mr_cross3(wrench, arm, x);
    mr_add3(wrench, wrench, x + 3);
    mr_copy3(wrench + 3, x);
    for (int i = mr_body_last_dof(m, b); i >= 0; i = m->dof_parentid[i])
      qfrc[i] += mr_dot6(d->cdof + 6 * i, wrench);
  }
}

/* ------------------------------------------------------------------ stages */

static void mr_forward_position(const mr_model *m, mr_data *d) {
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  if (d->opt.disable & (MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT)) {
    d->ncon = 0;
    d->ncon_dropped = 0;
  } else {
    mr_collide(m, d);
  }
}

static void mr_forward_velocity(const mr_model *m, mr_data *d) {
  mr_bias_forces(m, d);
  mr_passive_forces(m, d);
}

void mr_smooth_force(const mr_model *m, mr_data *d) {
  const int nv = m->nv;
  double *f = d->qfrc_smooth;
  for (int i = 0; i < nv; i++)
    f[i] = d->qfrc_passive[i] + d->qfrc_actuator[i] + d->qfrc_applied[i] - d->qfrc_bias[i];
  mr_xfrc_accumulate(m, d, f);
}

/* The unconstrained acceleration M^-1 qfrc_smooth. */
static void mr_forward_acceleration(const mr_model *m, mr_data *d) {
  mr_factor_mass(m, d, 0);
  mr_solve_mass(m, d, d->qacc_smooth, d->qfrc_smooth, 1);
}

/* Constraints (joint limits, equalities, contacts) and their solvers come in later issues;
 * until then the constrained acceleration is the smooth one: contacts are detected (the
 * position stage) but do not act on the motion yet. */
static void mr_forward_constraint(const mr_model *m, mr_data *d) {
  d->solver_iters = 0;
  d->solver_status = 0;
  d->solver_residual = 0;
  memset(d->qfrc_constraint, 0, (size_t)m->nv * sizeof(double));
  memcpy(d->qacc, d->qacc_smooth, (size_t)m->nv * sizeof(double));
}

/* Every stage up to the forces; what follows depends on the caller. */
static void mr_forward_forces(const mr_model *m, mr_data *d) {
  mr_arena_reset(d);
  mr_forward_position(m, d);
  mr_forward_velocity(m, d);
  mr_actuator_forces(m, d);
  mr_smooth_force(m, d);
}

void mr_forward(const mr_model *m, mr_data *d) {
  mr_forward_forces(m, d);
  mr_forward_acceleration(m, d);
  mr_forward_constraint(m, d);
}

/* ------------------------------------------------------------------ integration */

static int mr_has_damping(const mr_model *m) {
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] > 0) return 1;
  return 0;
}

/* 1 when this step has no constraint rows, so M^-1 itself is never needed. Contacts are
 * the only rows so far (collision ran in the position stage, before this is asked); once
 * limits and equalities exist they join: MR_DISABLE_CONSTRAINT set, or no contact, no
 * limited joint and no active equality. */
static int mr_step_is_smooth(const mr_model *m, const mr_data *d) {
  (void)m;
  return (d->opt.disable & MR_DISABLE_CONSTRAINT) || d->ncon == 0;
}

/* q <- q (+) dt v after v <- v + dt qacc. */
static void mr_advance(const mr_model *m, mr_data *d, const double *qacc) {
  const double dt = d->opt.timestep;
  for (int i = 0; i < m->nv; i++) d->qvel[i] += dt * qacc[i];
  mr_integrate_pos(m, d->qpos, d->qvel, dt);
  d->time += dt;
}

/* Semi-implicit Euler exactly as MuJoCo's mj_Euler: with joint damping B the velocity
 * update solves (M + dt B) qacc = qfrc_smooth + qfrc_constraint, which keeps stiff damping
 * stable at large steps. As in MuJoCo 2.2, this happens whenever a dof has damping, even
 * with passive forces disabled. */
static void mr_integrate_euler(const mr_model *m, mr_data *d) {
  const int nv = m->nv;
  const double *qacc = d->qacc;
  if (mr_has_damping(m)) {
    double *rhs = mr_arena_doubles(d, (size_t)nv);
    double *acc = mr_arena_doubles(d, (size_t)nv);
    if (rhs && acc) {
      for (int i = 0; i < nv; i++) rhs[i] = d->qfrc_smooth[i] + d->qfrc_constraint[i];
      mr_factor_mass(m, d, d->opt.timestep);
      mr_solve_mass(m, d, acc, rhs, 1);
      qacc = acc;
    }
  }
  mr_advance(m, d, qacc);
}

/* A smooth step with damping needs only the factor of M + dt B: factoring M as well, as
 * mj_step does, would only produce a qacc nobody uses. qacc and qacc_smooth then hold the
 * acceleration actually applied, (M + dt B)^-1 qfrc_smooth; qpos and qvel are identical to
 * the general path. */
static void mr_step_smooth_damped(const mr_model *m, mr_data *d) {
  mr_factor_mass(m, d, d->opt.timestep);
  mr_solve_mass(m, d, d->qacc_smooth, d->qfrc_smooth, 1);
  mr_forward_constraint(m, d);
  mr_advance(m, d, d->qacc);
}

/* One pass over the state: a NaN or infinity anywhere makes the sum non-finite. */
static int mr_state_finite(const mr_model *m, const mr_data *d) {
  double s = 0;
  for (int i = 0; i < m->nq; i++) s += d->qpos[i];
  for (int i = 0; i < m->nv; i++) s += d->qvel[i] + d->qacc[i];
  return isfinite(s);
}

int mr_step(const mr_model *m, mr_data *d) {
  mr_forward_forces(m, d);
  if (d->opt.integrator == MR_INT_MIDPOINT) {
    mr_midpoint_step(m, d); /* midpoint.c: both stages and the position update */
  } else if (mr_step_is_smooth(m, d) && mr_has_damping(m)) {
    mr_step_smooth_damped(m, d);
  } else {
    mr_forward_acceleration(m, d);
    mr_forward_constraint(m, d);
    mr_integrate_euler(m, d);
  }
  d->nstep++;
  if (!mr_state_finite(m, d)) {
    d->warning_count++;
    return -1;
  }
  return 0;
}
