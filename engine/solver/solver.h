/* The contact problem every solver receives, what it returns, and the registry.
 *
 * One problem, many solvers (DESIGN.md sec. 4). The constraint stage (engine/constraint/constraint.c)
 * builds the rows at the start of the step and the Delassus operator; a solver only sees
 * this struct. Rows are ordered in three blocks:
 *
 *   [0, neq)                       bilateral rows: equality constraints (loop closures,
 *                                  welds, joint couplings) — lambda free
 *   [neq, neq + nlim)              unilateral single rows: joint limits — lambda >= 0,
 *                                  c >= 0, lambda c = 0
 *   [neq + nlim, nrow)             contacts, 3 rows each in the order (normal, tangent1,
 *                                  tangent2) — lambda in the Coulomb cone of mu[k]
 *
 * Everything is at the velocity level and in impulses (N s): with lambda the impulses,
 * the constraint velocities after the step are c = G lambda + g, where g = J v_free + bias
 * already holds the stabilization and restitution terms. Solvers that need the primal
 * problem (sap, soft, stagproj) also get J, v_free and the factored mass matrix through
 * mr_problem_solve_mass.
 */
#ifndef MR_SOLVER_H
#define MR_SOLVER_H

#include "moreau.h"
#include <math.h>

/* Hot-loop helpers for the solvers and metrics. libm's hypot guards against overflow that
 * impulses and velocities never approach, at several times the cost of sqrt, and fmax is
 * a library call; both sat at the top of the step's profile. Unlike fmax, mr_maxd
 * returns NaN when either argument is NaN, so a NaN residual is never hidden. */
static inline double mr_len2(double a, double b) { return sqrt(a * a + b * b); }
static inline double mr_maxd(double a, double b) { return (a > b || isnan(a)) ? a : b; }

typedef enum mr_solver_status {
  MR_SOLVER_CONVERGED = 0,
  MR_SOLVER_MAX_ITER = 1, /* stopped short of the tolerance: at the iteration cap, or at
                             a point the method cannot leave (implicit's local minima) */
  MR_SOLVER_FAILED = 2    /* numerical failure (non-finite, singular, arena exhausted) */
} mr_solver_status;

typedef struct mr_problem {
  int nv;
  int nrow, neq, nlim, ncon; /* nrow = neq + nlim + 3 ncon */
  double dt;

  /* J in compressed rows: row i's nonzeros are J[t] at columns nzind[t], t in
   * [nzadr[i], nzadr[i+1]), columns ascending. NULL in hand-built problems. */
  const double *J;
  const int *nzadr;
  const int *nzind;
  const double *G;      /* nrow x nrow, row-major: J A^-1 J^T (A = M, or M + dt D ...);
                           NULL only for solvers with dense_G = 0, on big problems */
  const double *g;      /* nrow: free constraint velocity plus bias */
  const double *Gdiag;  /* nrow: G's diagonal J_i A^-1 J_i^T (NULL in hand-built problems) */
  const double *R;      /* nrow: regularization/compliance; 0 for rigid rows (soft, sap) */
  const double *mu;     /* ncon: friction coefficient of contact k */
  const double *dist;   /* ncon: signed distance of contact k (soft, sap) */
  /* MuJoCo's soft-constraint terms of every row, for soft (the rigid solvers ignore them;
   * NULL in hand-built problems): the solref/solimp of the row's element (equality,
   * joint or tendon limit, contact) and its position error r = efc_pos - efc_margin
   * (equality: phi; limit: gap - margin; contact normal: dist - (margin - gap); friction
   * rows 0), and the row's element as the constraint stage numbers it (equality id; joint
   * id, or -1 - (2 tendon + side) for a tendon limit; d->contact index). */
  const double *solref; /* nrow x2 */
  const double *solimp; /* nrow x5 */
  const double *pos;    /* nrow */
  const int *id;        /* nrow */
  const double *v_free; /* nv: unconstrained velocity at the end of the step */
  const double *v0;     /* nv: velocity at the start of the step (soft's and sap's velocity
                           terms; under midpoint d->qvel is stage 1's, not this) */

  /* The factored form of G, for solvers that never form it (mr_solver_info.dense_G = 0):
   * G = J AJ^T. Row j of AJ = A^-1 J_j^T is nonzero only inside the dofs of the (at most
   * two) kinematic trees row j touches: [span[4j], span[4j+1]) and [span[4j+2],
   * span[4j+3]) (an empty second range has equal ends); those entries are stored
   * contiguously from AJ + AJadr[j], first range first. NULL in hand-built problems and
   * for primal solvers (mr_solver_info.primal), which never need it. */
  const double *AJ;
  const int *AJadr;     /* nrow */
  const int *span;      /* nrow x 4 (set for every solver) */

  /* The half solves of J, for primal solvers (newton): with A = L^T D L the factor in
   * d->qLD, row i's Y_i = L^-T J_i^T, nonzero only on the ancestors of J_i's columns (the
   * chains its bodies hang from), stored over those dofs, ascending: Y[Yrange[2 i] + t] at
   * dof mr_problem_half_dofs(p, i)[t], t < Yrange[2 i + 1] - Yrange[2 i]. A contact's
   * columns hold every ancestor of each (its bodies' chains), so its half solves lie on its
   * columns, J's own; an equality's or a limit's dofs are in Yind, at the same offsets as
   * their values (those rows come first). Then G_ij = sum_k Y_ik Y_jk / D_k (D^-1:
   * d->qLDiagInv) over the dofs the two share, and J^T lambda's half solve is sum_i
   * lambda_i Y_i. A contact's three rows' entries are three consecutive runs. NULL in
   * hand-built problems and for the solvers that get AJ. */
  const double *Y;
  const int *Yind;
  const int *Yrange;    /* nrow x 2 */

  /* The matrix the velocity update inverts, A = M (+ dt D, or the midpoint's), for primal
   * solvers: off the diagonal it is the data's qM (sparse lower triangle), on it Adiag. */
  const double *Adiag;  /* nv */

  const mr_model *m;    /* for mr_problem_solve_mass and model-level parameters */
  const mr_data *d;     /* holds the factor used for G (read-only) */

  double tol;           /* stopping tolerance on the solver's residual */
  int max_iter;         /* iteration cap */
  /* sweeps a solver handing (part of) a step to pgs gives it at most, within what is left
   * of max_iter: pgs's own cap, or the user's when opt.max_iter is set (0: max_iter).
   * newton's cap counts Newton iterations, of which a hard step needs many; pgs's sweeps on
   * an island Newton could not finish stall long before that many, and a heap too large
   * for Newton would spend them all on every step for little */
  int pgs_max_iter;
  /* pgs: sweeps only, without its active-set refinement (pgs.c): a start for a Newton
   * method, which takes the answer from the zones the sweeps reach */
  int pgs_plain;
} mr_problem;

typedef struct mr_solver_out {
  double *lambda;   /* nrow: in: warm start (persistent contacts, last step); out: impulses */
  double *c;        /* nrow: out: G lambda + g */
  double *dv;       /* nv, primal solvers only (else NULL): out: A^-1 J^T lambda */
  double *history;  /* residual after each iteration (for the plots) */
  int history_cap;  /* entries history holds; 0: p->max_iter (solvers whose iterations can
                       outnumber the cap, stagproj's inner ones, write no more than this) */
  int iters;        /* iterations done */
  int sweeps;       /* of iters, pgs sweeps a primal solver handed parts of the step to */
  int status;       /* mr_solver_status */
  double residual;  /* the solver's own stopping measure at exit */
  int pgs_done;     /* out, primal solvers: every part they stopped short on has been through
                       pgs already (newton's islands), so the constraint stage's pgs
                       fallback has nothing to add */
} mr_solver_out;

/* The dofs of row i's half solve (mr_problem.Y). */
static inline const int *mr_problem_half_dofs(const mr_problem *p, int i) {
  return i < p->neq + p->nlim ? p->Yind + p->Yrange[2 * i] : p->nzind + p->nzadr[i];
}

/* J_i . x over row i's nonzeros. */
static inline double mr_problem_row_dot(const mr_problem *p, int i, const double *x) {
  double s = 0;
  for (int t = p->nzadr[i]; t < p->nzadr[i + 1]; t++) s += p->J[t] * x[p->nzind[t]];
  return s;
}

/* Velocity-form helpers for problems with AJ (engine/constraint/delassus.c). dv is the
 * velocity change A^-1 J^T lambda (nv); c = G lambda + g is then g + J dv. */
static inline void mr_problem_add_impulse(const mr_problem *p, double *dv, int row, double delta) {
  const double *a = p->AJ + p->AJadr[row];
  const int *s = p->span + 4 * row;
  for (int i = s[0]; i < s[1]; i++) dv[i] += delta * *a++;
  for (int i = s[2]; i < s[3]; i++) dv[i] += delta * *a++;
}
/* Entry k (a dof) of AJ's row j: zero outside the row's trees. */
static inline double mr_problem_AJ_entry(const mr_problem *p, int j, int k) {
  const int *s = p->span + 4 * j;
  const double *a = p->AJ + p->AJadr[j];
  if (k >= s[0] && k < s[1]) return a[k - s[0]];
  if (k >= s[2] && k < s[3]) return a[(s[1] - s[0]) + (k - s[2])];
  return 0;
}
/* G_ij: from G when the problem has it, else J_i . AJ_j over J_i's nonzeros. */
static inline double mr_problem_entry(const mr_problem *p, int i, int j) {
  if (p->G) return p->G[(size_t)i * (size_t)p->nrow + (size_t)j];
  double s = 0;
  for (int t = p->nzadr[i]; t < p->nzadr[i + 1]; t++) s += p->J[t] * mr_problem_AJ_entry(p, j, p->nzind[t]);
  return s;
}
static inline double mr_problem_row_velocity(const mr_problem *p, const double *dv, int row) {
  return p->g[row] + mr_problem_row_dot(p, row, dv);
}

/* Arena bytes the solvers that never form G (pgs in velocity form, newton) may take for a
 * problem of nrow rows with at most maxrow nonzeros in one row (registry.c). The dense
 * solvers take up to MR_SOLVER_SCRATCH (constraint.h) doubles for the rows they get. */
size_t mr_solver_sparse_scratch(const mr_model *m, size_t nrow, size_t maxrow);

/* A solver: scratch from the data's arena (mr_arena_* in engine/core/arena.h), never malloc. */
typedef void (*mr_solver_fn)(const mr_problem *p, mr_solver_out *out, mr_data *work);

typedef struct mr_solver_info {
  const char *name;        /* --solver NAME */
  char hotkey;             /* the viewer's key */
  const char *description; /* one line */
  mr_solver_fn solve;
  int dense_G;             /* 1: needs p->G; 0: also works from J and AJ (big scenes) */
  int primal;              /* 1: works in velocities from J, A and v_free: needs neither G
                              nor AJ, and returns dv */
  /* NULL when the solver applies the stage's Newton restitution (d->opt.restitution, in g);
   * otherwise why its model cannot, one line (`--restitution` with it is an error). */
  const char *no_restitution;
  /* 1: contact penetration beyond the resting band is recovered by the stage's position
   * pass after the step (engine/constraint/depenetrate.c), and the solver sees contact
   * distances clipped at the resting band (p->dist); 0: the solver's model recovers it
   * through its own targets from the true distances (soft: MuJoCo's reference
   * acceleration from every row's own error): the pass leaves all its rows alone (contacts,
   * joint and tendon limits) and the equality projection (mr_constraint_project) does not
   * run, so its equalities sag and recover as MuJoCo's do. */
  int depenetrate;
  /* the iteration cap when d->opt.max_iter is 0 (registry.c says why newton's differs) */
  int max_iter;
} mr_solver_info;

/* The registry (engine/solver/registry.c): one line per solver. */
const mr_solver_info *mr_solver_get(int index);

/* x = A^-1 b with the factor the problem's G was built from (n right-hand sides of nv). */
void mr_problem_solve_mass(const mr_problem *p, double *x, const double *b, int n);
/* x = A^-1 x in place over the dofs [lo, hi), a run of whole trees (x elsewhere untouched). */
void mr_problem_solve_mass_span(const mr_problem *p, double *x, int lo, int hi);

/* Projections shared by the solvers (engine/solver/cone.c). Contact vectors are ordered
 * (normal, t1, t2). */
void mr_cone_project(double x[3], double mu);         /* onto K_mu */
void mr_cone_project_dual(double x[3], double mu);    /* onto K*_mu = K_{1/mu} */
double mr_cone_distance(const double x[3], double mu);
/* p = P_K(y) and its Jacobian dP (3x3 row-major, symmetric PSD); returns where y lies:
 * 0 the polar cone (p = 0), 1 inside K (p = y), 2 beyond its surface. */
int mr_cone_project_jacobian(const double y[3], double mu, double p[3], double dP[9]);
/* Limits and normal impulses to >= 0, each contact's friction scaled into its disk
 * ||lambda_T|| <= mu lambda_N keeping lambda_N (the NCP's "horizontal" projection, the one
 * PGS uses). */
void mr_project_bounds(const mr_problem *p, double *lambda);
/* The same for one contact's impulse. */
void mr_project_contact_bounds(double l[3], double mu);

#endif
