/* Constraint rows, the Delassus operator and the per-step solve (internal).
 *
 * One step's constraint stage, in the order the pipeline calls it (forward.c):
 *
 *   mr_constraint_begin     reserves the row header at the start of the step's arena
 *   mr_constraint_build     rows at the start state q0 (constraint.c): equalities, joint
 *                           limits, contacts; dense Jacobian J, position-level values phi,
 *                           stabilization and restitution bias
 *   mr_constraint_solve     G = J A^-1 J^T and g = J v_free + bias with the mass factor the
 *                           integrator uses (delassus.c), the selected solver, impulses back
 *                           into the contacts (warm start), statistics and metrics
 *   mr_constraint_project   after the position update: Newton projection of the equality
 *                           constraints back onto their manifold (post-stabilization)
 *
 * Rows are ordered as engine/solver/solver.h describes: bilateral equality rows (tendon
 * equalities among them), then one unilateral row per active joint-limit side, then one per
 * active tendon-limit side (tendon_rows.c), then 3 rows per contact (normal, t1, t2).
 * Sign conventions: a contact's normal velocity is that of body2 relative to body1 along
 * the normal (geom1 -> geom2), so c_N > 0 separates; a limit row's velocity is positive
 * when the joint or tendon moves back into its range; equality rows are d(phi)/dt.
 *
 * J is dense nrow x nv (row-major) for now, with each row's nonzero columns listed so that
 * G and g cost O(nrow^2 x nonzeros per row) rather than O(nrow^2 nv). A sparse J (and the
 * factorization of papers/003) can replace it behind the same mr_problem.
 */
#ifndef MR_CONSTRAINT_H
#define MR_CONSTRAINT_H

#include "moreau.h"
#include "engine/solver/solver.h"

/* ------------------------------------------------------------------ defaults
 *
 * Stabilization (papers/000 sec. 1.9, eqs. 89-91). With phi the position-level value of a
 * row (signed distance of a contact, gap to a joint limit, equality violation), the row's
 * bias is added to g so that the solver's target velocity corrects phi:
 *
 *   contact normal, limit:  phi > 0 (open, inside the margin):  bias = phi / dt
 *                           -- the row exerts no impulse unless the gap would close within
 *                           the step, and then closes it exactly (speculative contact)
 *                           -MR_RECOVERY_DEPTH < phi <= 0 (penetration / violation):
 *                           bias = ERP phi / dt; deeper: bias = 0
 *   equality:               bias = MR_ERP_EQUALITY phi / dt
 *
 * ERP = 1 would remove the error in one step but is stiff and rings; 0.2 removes 20% per
 * step (about 10 steps to 1/10), the common choice (ODE, Bullet). Equalities additionally
 * get the position projection of mr_constraint_project, which holds loop closures to
 * round-off, so their ERP only matters between projections. */
#define MR_ERP_CONTACT 0.2
/* Penetration deeper than this (m or rad) between two parts of the same kinematic tree
 * (self-collision) gets no recovery bias, only "no further": such overlaps are modeling
 * artifacts (robot meshes interpenetrating across joints) far more often than dynamics,
 * and a recovery velocity asked of contacts that the joints cannot separate makes the
 * problem infeasible: impulses, friction bounds and then velocities grow without limit
 * (panda_collision.urdf diverged in 2 steps). Contacts between different trees, or with
 * the world, can always be separated by moving one of them, so they recover at every
 * depth: a fast body sinking several centimetres into a pile in one step is pushed back
 * out instead of staying there (humanoid100's mean penetration halved). A joint limit is
 * one tree: the same rule. */
#define MR_RECOVERY_DEPTH 0.01
/* Penetration a resting contact keeps (papers/000 eq. 91's delta): contacts are corrected
 * towards dist = -MR_CONTACT_SLOP, not 0. Corrected all the way to 0, a resting body ends
 * up a round-off above its support, its contacts (dist < margin) vanish, it falls freely
 * for a step and lands again: a 1e-5 m hop every few dozen steps and a cold solver each
 * time. One micrometre keeps the contact set and the warm start, and is far below any
 * accuracy a robot model has. */
#define MR_CONTACT_SLOP 1e-6
#define MR_ERP_LIMIT 0.2
#define MR_ERP_EQUALITY 0.2

/* Newton restitution (papers/000 eq. 54), d->opt.restitution = e: for a contact new this
 * step (age 0) that is approaching (J_N v0 < 0), g_N += e J_N v0, so the solver targets
 * c_N >= -e J_N v0; the larger of this and the penetration recovery is used, not their
 * sum. MJCF has no restitution: 0 by default (run --restitution E). */

/* A joint-limit side becomes a row when its gap phi is below the joint's margin, or would
 * be within MR_LIMIT_LOOKAHEAD steps at the current joint speed: an open row is inert (its
 * bias is phi/dt), so looking ahead costs a row and saves the overshoot of a fast joint
 * that would otherwise cross the limit before its row existed. */
#define MR_LIMIT_LOOKAHEAD 2.0

/* Rows solved per step at most. G is nrow^2 doubles and the arena is sized for the worst
 * case, so an unbounded count would make big scenes (pile200: ~1700 contact slots, 5000
 * rows, 200 MB for G) allocate more than they ever use. When a step has more, all equality
 * and limit rows are kept and the shallowest contacts are dropped (counted in
 * d->ncon_dropped and d->warning_count; their impulses are zeroed). 2048 rows = 680
 * contacts, far above what the sample scenes keep in contact at once. */
#define MR_MAX_ROWS 2048

/* Largest iteration cap a solver is given (d->opt.max_iter is clamped to it), which is also
 * the length of d->solver_history. */
#define MR_MAX_ITER_CAP 10000

/* Equality projection (mr_constraint_project): Newton iterations at most, and the
 * violation (m or rad, L-infinity) below which it stops. */
#define MR_PROJECT_MAX_ITER 4
#define MR_PROJECT_TOL 1e-12

/* ------------------------------------------------------------------ rows */

typedef enum mr_row_kind {
  MR_ROW_EQUALITY = 0,
  MR_ROW_LIMIT = 1,
  MR_ROW_CONTACT = 2
} mr_row_kind;

typedef struct mr_rows {
  unsigned magic; /* MR_ROWS_MAGIC once built this step */
  long nstep;     /* d->nstep when built */
  int nv, nrow, neq, nlim, ncon;
  int ncon_candidates; /* contacts below margin - gap, before the row cap */
  double dt;

  double *J;    /* nrow x nv, row-major */
  int *nzadr;   /* nrow + 1: row i's nonzero columns are nzind[nzadr[i] .. nzadr[i+1]) */
  int *nzind;
  double *phi;  /* nrow: position-level value (normal rows: dist; tangent rows: 0) */
  double *bias; /* nrow: stabilization + restitution, added to J v_free in g */
  int *id;      /* nrow: equality id, joint id (joint limits), -1 - (2 tendon + side)
                   (tendon limits), d->contact index (contacts) */

  double *mu;     /* ncon */
  double *dist;   /* ncon */
  double *solref; /* ncon x2 */
  double *solimp; /* ncon x5 */
} mr_rows;

#define MR_ROWS_MAGIC 0x726f7773u

/* Reserves the row header as the first block of the step's arena (call right after
 * mr_arena_reset): the midpoint integrator's stage 2 finds the rows built at q0 there after
 * stage 1 has moved the kinematics away. */
void mr_constraint_begin(mr_data *d);

/* The rows built this step, or NULL (none built, or constraints disabled). */
mr_rows *mr_constraint_rows(mr_data *d);

/* Builds the rows at the current kinematics (mr_kinematics, collision done) with the
 * current qvel as v0 (restitution, limit look-ahead). Returns the row count, 0 when
 * constraints are disabled or nothing is active, -1 if the arena ran out (a sizing bug). */
int mr_constraint_build(const mr_model *m, mr_data *d);

/* Solves the rows with the mass factor now in d->qLD (the one the integrator uses):
 * builds G and g from v_free, runs d->opt.solver, writes the contact impulses back into
 * d->contact[k].impulse, fills solver_iters/status/residual/history, nefc, metrics
 * (except energy), qfrc_constraint = J^T lambda / dt, and dv = A^-1 J^T lambda (nv).
 * Returns 0, or -1 on an arena failure (dv is then zero). */
int mr_constraint_solve(const mr_model *m, mr_data *d, const mr_rows *r, const double *v_free,
                        double *dv);

/* Projects qpos onto the equality constraints (connect, weld, joint) by Newton steps
 * dq = -A^-1 J^T (J A^-1 J^T + eps I)^-1 phi with the factor in d->qLD. Runs the kinematics
 * at the projected positions. Does nothing for models without active equalities. */
void mr_constraint_project(const mr_model *m, mr_data *d);

/* Arena bytes the constraint stage needs at most, solvers' scratch included: solvers may
 * take up to MR_SOLVER_SCRATCH(nrow, nv) doubles. */
#define MR_SOLVER_SCRATCH(nrow, nv) (3 * (size_t)(nrow) * (size_t)(nrow) + 32 * (size_t)(nrow) + 8 * (size_t)(nv))
size_t mr_constraint_arena_size(const mr_model *m);

/* ------------------------------------------------------------------ building blocks
 * (exposed for the tests) */

/* Adds scale * the world-frame point Jacobian (3 x nv, row-major) of the point p fixed to
 * body b into jacp, and scale * its angular Jacobian into jacr (either may be NULL). */
void mr_jac_point_add(const mr_model *m, const mr_data *d, int b, const double p[3], double scale,
                      double *jacp, double *jacr);

/* The point a contact's rows measure the relative velocity at: on one geom's surface, not
 * at the reported midpoint (constraint.c says why). */
void mr_contact_anchor(const mr_model *m, const mr_contact *c, double at[3]);

/* World pose of body b at the model's reference configuration qpos0 (no mr_data needed). */
void mr_body_pose0(const mr_model *m, int b, double pos[3], double quat[4]);

/* Row count of the active equality constraints. */
int mr_equality_rows(const mr_model *m);

/* Residuals phi of every active equality constraint at the current kinematics, in row
 * order (mr_equality_rows of them). */
void mr_equality_residual(const mr_model *m, const mr_data *d, double *phi);

/* Forms the problem for rows r: G (nrow^2), g, R = 0, mu, dist, solref, solimp, v_free,
 * tolerance and cap from d->opt, and AinvJT = A^-1 J^T (nrow x nv, row j = A^-1 J_j^T).
 * Every array is taken from the arena. Returns 0, -1 on arena exhaustion. */
int mr_delassus_build(const mr_model *m, mr_data *d, const mr_rows *r, const double *v_free,
                      mr_problem *p, double **AinvJT);

/* ------------------------------------------------------------------ limits */

/* Which sides of a limit are rows: bit 0 (lower) when x - range[0] is below the margin or
 * would be within MR_LIMIT_LOOKAHEAD steps of dt at the speed v, bit 1 likewise for
 * range[1] - x (constraint.c; joints and tendons). */
int mr_range_sides(double x, double v, const double range[2], double margin, double dt);
static inline int mr_side_count(int sides) { return (sides & 1) + (sides >> 1); }

/* ------------------------------------------------------------------ tendon rows (tendon_rows.c) */

/* Tendon-limit rows active now (in the limit block after the joints'), and their most. */
int mr_tendon_limit_count(const mr_model *m, const mr_data *d);
int mr_tendon_limit_capacity(const mr_model *m);
/* Fills the tendon-limit rows from row `row` on; their ids are negative (-1 - (2 t + side)). */
void mr_tendon_limit_rows(const mr_model *m, const mr_data *d, mr_rows *r, int row);
/* The warm-start slot (last impulse) of the tendon-limit row with id `id`. */
double *mr_tendon_limit_slot(mr_data *d, int id);
/* phi and, unless J is NULL, the Jacobian row (added into J, nv) of tendon equality e. */
void mr_eq_tendon(const mr_model *m, const mr_data *d, int e, double *phi, double *J);
/* The bias of a unilateral row with gap phi (see the stabilization rule above); deep
 * violations recover only when `separable` (constraint.c). */
double mr_unilateral_bias(double phi, double erp, double dt, int separable);

/* ------------------------------------------------------------------ metrics (metrics.c) */

/* All of mr_metrics but energy and solver_time from the problem, the impulses, and the
 * rows (penetration, loop closure). c (nrow) receives G lambda + g, recomputed here, never
 * taken from the solver. */
void mr_metrics_compute(const mr_problem *p, const mr_rows *r, const double *lambda, double *c,
                        mr_metrics *out);

/* The same, with c = g + J dv from the velocity change dv = A^-1 J^T lambda (no G needed). */
void mr_metrics_compute_dv(const mr_problem *p, const mr_rows *r, const double *lambda,
                           const double *dv, double *c, mr_metrics *out);

#endif
