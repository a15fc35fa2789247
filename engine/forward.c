/* The pipeline: mr_forward (state -> qacc) and mr_step (one time step), in MuJoCo's
 * visible order so every stage can be compared with its MuJoCo counterpart:
 *
 *   position stage      kinematics, com frames, mass matrix (CRBA), collision
 *   velocity stage      body velocities, bias forces (RNEA), passive forces
 *   actuation           actuator forces, then qfrc_smooth (+ applied forces)
 *   sensors             position and velocity sensors of the start state
 *   constraint rows     equalities, joint limits, contacts at the start state
 *                       (constraint.c), built with the forces so that both integrators
 *                       use the same rows
 *   acceleration        L^T D L factor of A, qacc_smooth = A^-1 qfrc_smooth
 *   constraint solve    G, g, the selected solver, impulses -> qacc (delassus.c)
 *   sensors             acceleration and force sensors, from the qacc and constraint
 *                       impulses the step applies (before the state moves on)
 *   integrate           semi-implicit Euler with implicit joint damping
 *   projection          penetration recovered by moving positions (depenetrate.c), then
 *                       equality constraints back onto their manifold (equality.c)
 *
 * A is the matrix the velocity update inverts: M, or M + dt B when the dofs have damping
 * (implicit damping). A step with constraint rows factors A once and uses it for the
 * Delassus operator and the update alike, so the solver sees exactly the constraint
 * velocities the step produces. mr_forward (no step) uses A = M. A step without rows keeps
 * MuJoCo's smooth path bit for bit (see mr_step_smooth_damped).
 *
 * Nothing here allocates: scratch comes from the data's arena, reset at the start.
 */
#include <math.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/constraint/constraint.h"
#include "engine/dynamics/dynamics.h"
#include "integrator.h"
#include "moreau.h"
#include "engine/core/spatial.h"

/* ------------------------------------------------------------------ applied forces */

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
    for (int i = mr_chain_last_dof(m, b); i >= 0; i = m->dof_parentid[i])
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

/* qacc = qacc_smooth + A^-1 J^T lambda / dt with A the factor in qLD (the one qacc_smooth
 * came from): v_free = v + dt qacc_smooth is the end-of-step velocity without constraints,
 * and the solve adds the impulses' velocity change. Without rows qacc = qacc_smooth. */
static void mr_forward_constraint(const mr_model *m, mr_data *d) {
  const int nv = m->nv;
  const double dt = d->opt.timestep;
  mr_rows *r = mr_constraint_rows(d);
  memset(d->qfrc_constraint, 0, (size_t)nv * sizeof(double));
  memcpy(d->qacc, d->qacc_smooth, (size_t)nv * sizeof(double));
  if (!r || r->nrow == 0) return;
  size_t mark = mr_arena_mark(d);
  double *v_free = mr_arena_doubles(d, (size_t)nv), *dv = mr_arena_doubles(d, (size_t)nv);
  if (!v_free || !dv) {
    d->solver_status = MR_SOLVER_FAILED;
    mr_arena_restore(d, mark);
    return;
  }
  for (int i = 0; i < nv; i++) v_free[i] = d->qvel[i] + dt * d->qacc_smooth[i];
  mr_constraint_solve(m, d, r, v_free, dv);
  for (int i = 0; i < nv; i++) d->qacc[i] += dv[i] / dt;
  mr_arena_restore(d, mark);
}

/* Solver statistics and metrics of a step start empty; energy is the start state's. */
static void mr_step_stats_reset(const mr_model *m, mr_data *d) {
  d->solver_iters = d->solver_sweeps = 0;
  d->solver_status = 0;
  d->solver_residual = 0;
  d->nefc = 0;
  memset(&d->metrics, 0, sizeof d->metrics);
  mr_energy(m, d);
  d->metrics.energy = d->energy[0] + d->energy[1];
}

/* After the position stage: velocities, bias and passive forces, actuators, and the
 * position and velocity sensors of the state. */
static void mr_forward_state(const mr_model *m, mr_data *d) {
  mr_forward_velocity(m, d);
  mr_actuator_forces(m, d);
  mr_sensors(m, d, MR_STAGE_POS);
  mr_sensors(m, d, MR_STAGE_VEL);
}

/* Every stage up to the forces and the constraint rows; what follows depends on the
 * caller. The row header is the arena's first block (constraint.h). */
static void mr_forward_forces(const mr_model *m, mr_data *d) {
  mr_arena_reset(d);
  mr_constraint_begin(d);
  mr_forward_position(m, d);
  mr_forward_state(m, d);
  mr_smooth_force(m, d);
  mr_step_stats_reset(m, d);
  mr_constraint_build(m, d);
}

void mr_sensors_state(const mr_model *m, mr_data *d) {
  if (m->nsensor == 0) return;
  size_t mark = mr_arena_mark(d);
  mr_kinematics(m, d);
  mr_forward_state(m, d);
  mr_arena_restore(d, mark);
}

void mr_forward(const mr_model *m, mr_data *d) {
  mr_forward_forces(m, d);
  mr_forward_acceleration(m, d);
  mr_forward_constraint(m, d);
  mr_sensors(m, d, MR_STAGE_ACC);
}

/* ------------------------------------------------------------------ integration */

static int mr_has_damping(const mr_model *m) {
  for (int i = 0; i < m->nv; i++)
    if (m->dof_damping[i] > 0) return 1;
  return 0;
}

/* 1 when this step has no constraint rows (MR_DISABLE_CONSTRAINT, or no contact below its
 * margin, no limit side within reach and no active equality), so M^-1 itself is never
 * needed. The rows were built with the forces, before this is asked. */
static int mr_step_is_smooth(mr_data *d) {
  const mr_rows *r = mr_constraint_rows(d);
  return !r || r->nrow == 0;
}

/* q <- q (+) dt v after v <- v + dt qacc; the acceleration sensors read the state first. */
static void mr_advance(const mr_model *m, mr_data *d, const double *qacc) {
  const double dt = d->opt.timestep;
  mr_sensors(m, d, MR_STAGE_ACC);
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

/* Euler with constraint rows: A = M (+ dt B) factored once; v+ = v_free + A^-1 J^T lambda,
 * q+ = q (+) dt v+. */
static void mr_step_constrained(const mr_model *m, mr_data *d) {
  mr_factor_mass(m, d, mr_has_damping(m) ? d->opt.timestep : 0);
  mr_solve_mass(m, d, d->qacc_smooth, d->qfrc_smooth, 1);
  mr_forward_constraint(m, d);
  mr_advance(m, d, d->qacc);
}

int mr_step(const mr_model *m, mr_data *d) {
  mr_forward_forces(m, d);
  int smooth = mr_step_is_smooth(d);
  if (d->opt.integrator == MR_INT_MIDPOINT) {
    mr_midpoint_step(m, d); /* midpoint.c: both stages and the position update */
  } else if (!smooth) {
    mr_step_constrained(m, d);
  } else if (mr_has_damping(m)) {
    mr_step_smooth_damped(m, d);
  } else {
    mr_forward_acceleration(m, d);
    mr_forward_constraint(m, d);
    mr_integrate_euler(m, d);
  }
  if (!smooth) {
    mr_constraint_depenetrate(m, d);
    mr_constraint_project(m, d);
  }
  /* act_dot was evaluated with the forces at the start of the step (the midpoint's
   * re-evaluations see the same ctrl and act, hence the same act_dot) */
  mr_activation_advance(m, d, d->opt.timestep);
  d->nstep++;
  if (!mr_state_finite(m, d)) {
    d->warning_count++;
    return -1;
  }
  return 0;
}
