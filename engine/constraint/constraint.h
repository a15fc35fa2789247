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
 * J is stored by its nonzeros (compressed rows): a contact's rows over the dofs of its two
 * bodies' chains, a limit's over its one dof, an equality's over the dofs it touches, so
 * the memory and the work grow with the contacts, not with the contacts times nv.
 */
#ifndef MR_CONSTRAINT_H
#define MR_CONSTRAINT_H

#include "moreau.h"
#include "engine/solver/solver.h"

/* ------------------------------------------------------------------ defaults
 *
 * Stabilization (papers/000 sec. 1.9, eqs. 89-91). With phi the position-level value of a
 * row (signed distance of a contact plus MR_CONTACT_SLOP, gap to a joint limit plus the
 * same, equality violation), the row's bias is added to g so that the solver's target
 * velocity corrects phi:
 *
 *   contact normal, limit:  phi > 0 (open, inside the margin):  bias = phi / dt
 *                           -- the row exerts no impulse unless the gap would close within
 *                           the step, and then closes it exactly (speculative contact)
 *                           phi <= 0 (penetrating): bias = 0, "no deeper"
 *   equality:               bias = MR_ERP_EQUALITY phi / dt
 *
 * Penetration is recovered at the position level, never through the velocity: after the
 * step, mr_constraint_depenetrate moves the positions (not the velocities) so that every
 * contact and limit predicted deeper than MR_CONTACT_BAND recovers MR_ERP_CONTACT of the
 * excess -- all of it for a contact found this step (age 0: its depth is that of a late
 * detection, an impact found between two steps, not of the contact's dynamics) -- with the mass-weighted least motion that keeps the other rows from going
 * deeper than the band (a small LCP on the unilateral rows, PGS in velocity form). A recovery
 * velocity in g (Baumgarte's ERP depth / dt) is kinetic energy the step invents: a ball
 * that lands between two steps, penetrating by up to its speed times dt, kept 0.2 of that
 * depth per step as upward speed and rebounded to 3.4% of its drop with no restitution at
 * all (issue 17). Split this way, e = 0 means no rebound, and restitution e rebounds to
 * e^2 of the drop whatever the depth at detection.
 *
 * The resting band is the penetration allowance of Box2D's and Bullet's slop: a body
 * resting on several points sits a little deeper at some than at others, and recovering
 * each depth asks a rigid body for contact motions it cannot make. The rows then have no
 * exact sticking solution, contacts creep to reconcile them (a lying humanoid's torso rose
 * 12 um/s), and solvers stall at their cap. Within the band nothing is recovered.
 *
 * A contact between two parts of one kinematic tree (self-collision) never recovers, at
 * any depth, it is only kept from going deeper: such overlaps are modeling artifacts (robot
 * meshes interpenetrating across joints) far more often than dynamics, and a recovery the
 * joints can only realize by driving the mechanism through its other contacts pumped
 * talos_reduced's energy by 10 J in its first step (when it was a velocity). Contacts
 * between different trees, or with the world, can always be separated by moving one of
 * them, so they recover at every depth. A joint limit recovers like a separable contact
 * (its row acts on its own dof).
 *
 * ERP = 1 would remove the excess in one step and make a deep contact jump; 0.2 removes 20%
 * per step (about 10 steps to 1/10), the common choice (ODE, Bullet), here as motion of the
 * positions alone. Equalities additionally get the position projection of
 * mr_constraint_project, which holds loop closures to round-off, so their ERP only matters
 * between projections. */
#define MR_ERP_CONTACT 0.2
#define MR_ERP_LIMIT 0.2
#define MR_ERP_EQUALITY 0.2
/* The resting band (m, or rad for joint limits): penetration up to this deep is kept from
 * growing but not recovered. Far below the accuracy of robot meshes and of contact
 * geometry (MuJoCo's soft contacts rest about a millimetre deep). */
#define MR_CONTACT_BAND 2e-4
/* Penetration an open contact may close to (papers/000 eq. 91's delta), and the offset of a
 * joint limit's gap likewise: a closing row ends MR_CONTACT_SLOP deep, not at 0. Closed to
 * 0 exactly, a resting body ends up a round-off above its support, its contacts (dist <
 * margin) vanish, it falls freely for a step and lands again; a joint put exactly on its
 * limit has no limit row (gap 0 is not below the margin 0) and falls through it for a step.
 * One micrometre (or microradian) keeps the rows and the warm start. */
#define MR_CONTACT_SLOP 1e-6
/* The position pass (mr_constraint_depenetrate): Gauss-Seidel sweeps at most, and the row
 * error (m or rad) below which it stops: a fraction of the band is ample for a correction
 * that the next step refines anyway. */
#define MR_DEPENETRATE_SWEEPS 50
#define MR_DEPENETRATE_TOL (1e-2 * MR_CONTACT_BAND)

/* Newton restitution (papers/000 eq. 54), d->opt.restitution = e: a contact that impacts
 * this step -- approaching (J_N v0 < 0), closing within the step (phi + dt J_N v0 < 0) and
 * fresh (mr_rows.fresh) -- gets g_N += e J_N v0, so the solver targets
 * c_N >= -e J_N v0: it leaves at e times its approach speed, from wherever it was detected
 * (open inside the margin, or already penetrating, whose depth the position pass then
 * removes without adding speed). Resting contacts push every step and never bounce. MJCF
 * has no restitution: 0 by default (run --restitution E); solvers whose model has none
 * (registry: no_restitution) refuse it. */

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

/* Rows solved per step at most by a solver that forms G (mr_solver_info.dense_G): G and
 * the dense solvers' factors and scratch are O(nrow^2), and the arena holds them for this
 * many rows only, so a model's data is sized to what the sparse solvers need (beyond it,
 * the shallowest contacts are dropped as above). */
#define MR_DENSE_MAX_ROWS 512

/* Rows solved together for AJ (delassus.c): enough for a humanoid's contact set, and a
 * bounded scratch (MR_AJ_BLOCK nv doubles) however many rows a pile has. */
#define MR_AJ_BLOCK 32

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

  int nnz;
  int *nzadr;   /* nrow + 1: row i's nonzeros are J[t], t in [nzadr[i], nzadr[i+1]) */
  int *nzind;   /* nnz: their columns (dofs), ascending within a row */
  double *J;    /* nnz: their values */
  double *phi;  /* nrow: position-level value (normal rows: dist; tangent rows: 0) */
  double *bias; /* nrow: stabilization + restitution, added to J v_free in g */
  double *v0;   /* nv: the velocity at the start of the step (qvel when the rows were built:
                   restitution, soft's and sap's velocity terms, the position pass) */
  int *id;      /* nrow: equality id, joint id (joint limits), -1 - (2 tendon + side)
                   (tendon limits), d->contact index (contacts) */

  double *mu;     /* ncon */
  double *dist;   /* ncon */
  int *fresh;     /* ncon: 1 when the contact did not push the step before (its persistent
                     impulse is zero: new, or open inside its margin): an impact */
  /* MuJoCo's soft-constraint parameters of every row (the `soft` solver's; the rigid
   * solvers ignore them): the solref/solimp of the row's element (eq_solref, jnt_solref,
   * tendon_solref_lim, the contact's mix) and its position error, MuJoCo's efc_pos -
   * efc_margin: an equality's phi, a limit's gap minus its margin, a contact normal's dist
   * minus (margin - gap), 0 on friction rows. */
  double *solref; /* nrow x2 */
  double *solimp; /* nrow x5 */
  double *pos;    /* nrow */
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
int mr_constraint_solve(const mr_model *m, mr_data *d, mr_rows *r, const double *v_free,
                        double *dv);

/* The position pass after the step (see the stabilization rule above): moves qpos so that
 * contacts and limits predicted deeper than MR_CONTACT_BAND at the end of the step recover
 * MR_ERP_CONTACT of the excess, without touching qvel. The end-of-step depth is predicted
 * from the rows at q0 and the velocity that moved the positions (qvel after Euler, the
 * midpoint velocity after the midpoint scheme). Does nothing when no row is that deep or
 * the solver's model recovers penetration itself (registry: depenetrate = 0). */
void mr_constraint_depenetrate(const mr_model *m, mr_data *d);

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

/* Forms the problem for rows r as a solver that needs G gets it: G (nrow^2), g, R = 0,
 * mu, dist, solref, solimp, v_free, tolerance and cap from d->opt, and AJ = A^-1 J^T
 * (packed by tree range, solver.h). Every array is taken from the arena. Returns 0, -1 on
 * arena exhaustion. */
int mr_delassus_build(const mr_model *m, mr_data *d, mr_rows *r, const double *v_free,
                      mr_problem *p);

/* The registry index of the solver d->opt selects (the default when it names none). */
int mr_solver_index(const mr_data *d);

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
