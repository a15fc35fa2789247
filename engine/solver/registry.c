/* The solver registry: one line per solver in one static table (name, viewer hotkey,
 * one-line description, function), and the public mr_solver_* lookups of moreau.h.
 * Adding a solver is one prototype and one line here. */
#include <string.h>

#include "active_set.h"
#include "solver.h"

void mr_solve_pgs(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_lcp(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_ccp(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_admm(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_raisim(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_implicit(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_sap(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_soft(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_stagproj(const mr_problem *p, mr_solver_out *out, mr_data *work);
void mr_solve_newton(const mr_problem *p, mr_solver_out *out, mr_data *work);
size_t mr_newton_scratch_bytes(const mr_model *m, size_t nrow, size_t maxrow);

/* Why the compliant models cannot apply a restitution coefficient. */
#define MR_SAP_NO_RESTITUTION                                                              \
  "SAP's compliant contact has no restitution coefficient: a contact rebounds by its stiffness " \
  "and dissipation time scale tau_d (near-rigid and critically damped by default: no rebound)"
#define MR_SOFT_NO_RESTITUTION                                                          \
  "MuJoCo's soft contact has no restitution coefficient: a contact rebounds by its solref " \
  "stiffness and damping ratio (critically damped by default: no rebound)"

/* Iteration caps when d->opt.max_iter is 0 (the default). A Newton iteration is a
 * factorization and a line search, where the other solvers' are sweeps. newton's rare
 * hard steps (a pile or a bin of objects sliding and sticking as they settle) are slow
 * solves, not stalls (the stall test hands those to pgs): cut off at the sweeping
 * solvers' cap such a step ended unconverged in pgs, which cost more than finishing it and
 * left the next step a worse warm start (README, design section, for the measurements). */
#define MR_MAX_ITER 100
#define MR_NEWTON_MAX_ITER 500

/* Hotkeys are the viewer's number keys, in the order of DESIGN.md's table.
 *
 * What one iteration is (out->iters, the plots' and summaries' "iterations"), per solver;
 * every inner solve is counted:
 *   pgs       a Gauss-Seidel sweep or an active-set Newton round (active_set.c)
 *   lcp, ccp  a Gauss-Seidel sweep
 *   admm      an ADMM iteration (one back-substitution with the factor of G + R + rho I)
 *   raisim    a sweep over the contacts (each contact's bisection is part of its update)
 *   implicit  a Gauss-Newton iteration (its dogleg search is part of it)
 *   sap       a Newton iteration (its exact line search is part of it)
 *   soft      a block Gauss-Seidel sweep (each contact's projected-gradient steps and each
 *             equality's block solve are part of it)
 *   stagproj  an iteration of either inner QP solver: the sum over the outer iterations
 *   newton    a Newton iteration, plus pgs's when it hands a step over */
static const mr_solver_info mr_solvers[] = {
    {"pgs", '1', "NCP projected Gauss-Seidel: disk friction, De Saxce-exact, active-set refinement (papers/002 Alg. 5)", mr_solve_pgs, 0, 0, NULL, 1, MR_MAX_ITER},
    {"lcp", '2', "LCP with a 4-facet friction pyramid, PGS, ODE/Bullet style (papers/002 Alg. 1)", mr_solve_lcp, 1, 0, NULL, 1, MR_MAX_ITER},
    {"ccp", '3', "Anitescu CCP, PGS with cone projection, Chrono style: hops while sliding (papers/002 Alg. 2)", mr_solve_ccp, 1, 0, NULL, 1, MR_MAX_ITER},
    {"admm", '4', "proximal ADMM on the NCP, De Saxce correction, spectral rho (papers/000 Alg. 6, 002 Alg. 3)", mr_solve_admm, 1, 0, NULL, 1, MR_MAX_ITER},
    {"raisim", '5', "RaiSim per-contact bisection on the cone/plane ellipse (papers/002 Alg. 4)", mr_solve_raisim, 1, 0, NULL, 1, MR_MAX_ITER},
    {"implicit", '6', "Todorov's implicit complementarity, non-smooth Gauss-Newton (papers/001)", mr_solve_implicit, 1, 0, NULL, 1, MR_MAX_ITER},
    {"sap", '7', "Drake's SAP: convex compliant contact, Newton with exact line search (papers/004)", mr_solve_sap, 1, 0, MR_SAP_NO_RESTITUTION, 1, MR_MAX_ITER},
    {"soft", '8', "MuJoCo's soft convex constraints (contacts, limits, equalities) from solref/solimp (papers/000 sec. 1.10)", mr_solve_soft, 1, 0, MR_SOFT_NO_RESTITUTION, 0, MR_MAX_ITER},
    {"stagproj", '9', "staggered projections: alternating normal and friction QPs (papers/002 Alg. 6)", mr_solve_stagproj, 1, 0, NULL, 1, MR_MAX_ITER},
    {"newton", '0', "the NCP by Newton's method in velocities: PGS's projections, tree-block sparse Cholesky, proximal steps; pgs takes over what it cannot finish", mr_solve_newton, 0, 1, NULL, 1, MR_NEWTON_MAX_ITER},
};

#define MR_NSOLVERS ((int)(sizeof mr_solvers / sizeof mr_solvers[0]))

/* The solver used when opt.solver is -1, and why (README: figures). */
#define MR_DEFAULT_SOLVER "newton"
#define MR_DEFAULT_REASON                                                                  \
  "newton converges resting robots and stacks in one to a few iterations per step, where " \
  "pgs crawls at its iteration cap; piles of many free bodies go to pgs"

/* pgs's velocity form (dv and its diagonal, then an active-set refinement) or newton's. */
size_t mr_solver_sparse_scratch(const mr_model *m, size_t nrow, size_t maxrow) {
  size_t nv = (size_t)m->nv;
  size_t pgs = (nv + nrow + mr_active_set_scratch(nrow, nv) + 64) * sizeof(double);
  size_t newton = mr_newton_scratch_bytes(m, nrow, maxrow);
  return pgs > newton ? pgs : newton;
}

int mr_solver_count(void) { return MR_NSOLVERS; }

const mr_solver_info *mr_solver_get(int index) {
  return index >= 0 && index < MR_NSOLVERS ? &mr_solvers[index] : NULL;
}

int mr_solver_find(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < MR_NSOLVERS; i++)
    if (strcmp(mr_solvers[i].name, name) == 0) return i;
  return -1;
}

const char *mr_solver_default_reason(void) { return MR_DEFAULT_REASON; }

int mr_solver_default(void) {
  int i = mr_solver_find(MR_DEFAULT_SOLVER);
  return i >= 0 ? i : 0;
}

const char *mr_solver_name(int index) {
  const mr_solver_info *s = mr_solver_get(index);
  return s ? s->name : NULL;
}

char mr_solver_hotkey(int index) {
  const mr_solver_info *s = mr_solver_get(index);
  return s ? s->hotkey : 0;
}

const char *mr_solver_description(int index) {
  const mr_solver_info *s = mr_solver_get(index);
  return s ? s->description : NULL;
}

const char *mr_solver_no_restitution(int index) {
  const mr_solver_info *s = mr_solver_get(index);
  return s ? s->no_restitution : NULL;
}

int mr_solver_max_iter(int index) {
  const mr_solver_info *s = mr_solver_get(index);
  return s ? s->max_iter : MR_MAX_ITER;
}
