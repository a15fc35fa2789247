/* Internal entry points of the dynamics stage that the public API (moreau.h) does not
 * expose: solves with the factored mass matrix restricted to a range of dofs, for the
 * constraint stage's Delassus operator; tendon lengths and Jacobians one at a time, for its
 * tendon rows; the pieces of the actuator model. */
#ifndef MR_DYNAMICS_H
#define MR_DYNAMICS_H

#include "moreau.h"

/* x = A^-1 x over the dofs [lo, hi) only, which must be whole kinematic trees (crba.c). */
void mr_solve_mass_span(const mr_model *m, const mr_data *d, double *x, int lo, int hi);
/* The same for n vectors at once, stored by dof: X[(i - lo) n + r] is dof i of vector r. */
void mr_solve_mass_block(const mr_model *m, const mr_data *d, double *X, int n, int lo, int hi);

/* x_c^T A^-1 x_c for n vectors x_c nonzero only inside the dofs [lo, hi), which must be
 * whole kinematic trees, interleaved by dof (x[n i + c] is dof i of vector c), into
 * sum[c], n 1 or 3: half of the solve (L^-T from the leaves up: x is overwritten by
 * L^-T x), then the sum of its squares over D. The Delassus diagonal J_i A^-1 J_i^T without A^-1 J_i^T;
 * rows with one pattern of nonzeros (a contact's three) walk the tree once. cols[0..nc),
 * when given, are the vectors' nonzero dofs, ascending: where they form one path from a
 * root the walk runs over them alone, and 1 is returned: x's nonzeros are then on cols only. */
int mr_mass_inverse_norm2_n(const mr_model *m, const mr_data *d, double *x, int n, int lo,
                            int hi, double *sum, const int *cols, int nc);

/* The same half solve for a contact's three rows over dofs cols[0..nc) that form one path
 * from a root (each the parent of the next), in place on x, vector c's entry for cols[p] at
 * x[c stride + p] (a contact's rows as J or its half solves store them), with the squared
 * norms over D into sum. Returns 0, doing nothing, when cols is not such a path. */
int mr_mass_half_path3(const mr_model *m, const mr_data *d, double *x, int stride, const int *cols,
                       int nc, double sum[3]);

/* The deepest dof that moves body b (its own last dof, else its nearest moving ancestor's),
 * or -1 for a body welded to the world: the chain of dofs supporting b starts there and
 * follows dof_parentid. */
static inline int mr_chain_last_dof(const mr_model *m, int b) {
  while (b > 0 && m->body_dofnum[b] == 0) b = m->body_parentid[b];
  return b > 0 ? m->body_dofadr[b] + m->body_dofnum[b] - 1 : -1;
}

/* ------------------------------------------------------------------ tendons (tendon.c) */

/* row += scale * dir^T J_p, the directional Jacobian of the point p fixed to body b: the
 * rate of change of dir . p (row: nv, dense). */
void mr_point_row_add(const mr_model *m, const mr_data *d, int b, const double p[3],
                      const double dir[3], double scale, double *row);

/* Length of tendon t at the current kinematics; adds scale * dL/dq into the dense row J (nv)
 * unless J is NULL. With pts/obj non-NULL, writes the path's points (world) and their
 * objects (wrapped geom id, -1 site, -2 pulley) and returns their count in *npts. */
double mr_tendon_eval(const mr_model *m, const mr_data *d, int t, double *J, double scale,
                      double *pts, int *obj, int *npts);

/* The path of a segment from x0 to x1 around a sphere or cylinder (type mr_wrap_type) of
 * the given radius, posed at (pos, mat): the arc length and its two end points (out, 6), or
 * -1 when the straight segment stands. side: the side site's position, or NULL (wrap.c). */
double mr_wrap(int type, const double x0[3], const double x1[3], const double pos[3],
               const double mat[9], double radius, const double *side, double out[6]);

/* ------------------------------------------------------------------ actuators */

/* Lengths, moments (over the model's actuator_J* patterns) and velocities of every
 * actuator's transmission at the current kinematics and tendons (actuation.c). */
void mr_transmission(const mr_model *m, mr_data *d);

/* act += dt act_dot, clamped to actrange where actlimited (actuation.c). */
void mr_activation_advance(const mr_model *m, mr_data *d, double dt);

/* MuJoCo's muscle model (muscle.c): prm = gainprm / biasprm (range[2], force, scale, lmin,
 * lmax, vmax, fpmax, fvmax); force < 0 means scale / acc0. */
double mr_muscle_gain(double len, double vel, const double lengthrange[2], double acc0,
                      const double prm[9]);
double mr_muscle_bias(double len, const double lengthrange[2], double acc0, const double prm[9]);
/* act_dot of a muscle: prm = dynprm (tau_act, tau_deact). */
double mr_muscle_dynamics(double ctrl, double act, const double prm[2]);

#endif
