/* Constraint rows (engine/constraint/constraint.c, delassus.c): every Jacobian against central finite
 * differences of its constraint function (contact gap along the frozen contact frame,
 * joint-limit gaps, connect, weld and joint equalities) at a random configuration; G
 * symmetric positive semidefinite and built with the integrator's factor; g = J v_free +
 * bias; the rows' order and counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/arena.h"
#include "engine/constraint/constraint.h"
#include "engine/core/mr_math.h"
#include "mr_test.h"
#include "mr_test_model.h"
#include "engine/solver/solver.h"
#include "engine/core/spatial.h"

/* A free box near the floor carrying a hinge, a ball and a slide; a second hinged body;
 * a connect, a weld and a joint coupling between them (violated at random poses). */
static const char *model_xml =
    "<mujoco model='rows'>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body name='a' pos='0 0 .28'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='.1 .2 .3' margin='.01'/>\n"
    "      <body name='b' pos='.2 0 .1'>\n"
    "        <joint name='h1' type='hinge' axis='0 1 0' range='-.1 .1' limited='true' margin='1'/>\n"
    "        <geom type='capsule' size='.05' fromto='0 0 0 .3 0 0' contype='0' conaffinity='0'/>\n"
    "        <body name='c' pos='.3 0 0'>\n"
    "          <joint name='ball' type='ball' pos='0 0 .05'/>\n"
    "          <geom type='sphere' size='.05' contype='0' conaffinity='0'/>\n"
    "          <body name='d' pos='.1 0 .1'>\n"
    "            <joint name='s1' type='slide' axis='1 0 0' range='-.01 .01' limited='true' margin='1'/>\n"
    "            <geom type='sphere' size='.03' contype='0' conaffinity='0'/>\n"
    "          </body>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='e' pos='1 0 1'>\n"
    "      <joint name='h2' type='hinge' axis='1 0 0'/>\n"
    "      <geom type='sphere' size='.1' contype='0' conaffinity='0'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <equality>\n"
    "    <connect body1='d' body2='e' anchor='.05 0 0'/>\n"
    "    <weld body1='c' body2='e' anchor='.1 .2 0'/>\n"
    "    <weld body1='b'/>\n"
    "    <joint joint1='h1' joint2='h2' polycoef='.1 .5 .2 .1 0'/>\n"
    "  </equality>\n"
    "</mujoco>\n";


static double urand(void) { return 2.0 * rand() / RAND_MAX - 1; }

/* A random configuration near qpos0 (quaternions perturbed and renormalized). */
static void randomize(const mr_model *m, mr_data *d) {
  double *dq = calloc((size_t)m->nv, sizeof(double));
  for (int i = 0; i < m->nv; i++) dq[i] = 0.3 * urand();
  memcpy(d->qpos, m->qpos0, (size_t)m->nq * sizeof(double));
  dq[2] = 0; /* keep the box at its height over the floor */
  mr_integrate_pos(m, d->qpos, dq, 1.0);
  for (int i = 0; i < m->nv; i++) d->qvel[i] = urand();
  free(dq);
}

/* A body-fixed point: its coordinates in body b's frame, and back to the world. */
static void to_body(const mr_data *d, int b, const double p[3], double local[3]) {
  double diff[3], qc[4];
  mr_sub3(diff, p, d->xpos + 3 * b);
  mr_quat_conj(qc, d->xquat + 4 * b);
  mr_quat_rotvec(local, qc, diff);
}

static void to_world(const mr_data *d, int b, const double local[3], double p[3]) {
  mr_quat_rotvec(p, d->xquat + 4 * b, local);
  mr_add3(p, p, d->xpos + 3 * b);
}

typedef struct probe {
  int neq, ncon;
  double *eq;         /* neq */
  double *con;        /* 3 ncon: frame rows . (p2 - p1) of the body-fixed contact points */
  double *lim;        /* njnt x2: lower and upper gaps */
  double (*local)[2][3];
  const mr_contact *contacts;
} probe;

/* Every constraint function at the kinematics now in d. */
static void probe_eval(const mr_model *m, mr_data *d, probe *pr) {
  mr_kinematics(m, d);
  mr_equality_residual(m, d, pr->eq);
  for (int k = 0; k < pr->ncon; k++) {
    const mr_contact *c = &pr->contacts[k];
    double p1[3], p2[3], dp[3];
    to_world(d, c->body1, pr->local[k][0], p1);
    to_world(d, c->body2, pr->local[k][1], p2);
    mr_sub3(dp, p2, p1);
    for (int a = 0; a < 3; a++) pr->con[3 * k + a] = mr_dot3(c->frame + 3 * a, dp);
  }
  for (int j = 0; j < m->njnt; j++) {
    double q = d->qpos[m->jnt_qposadr[j]];
    pr->lim[2 * j] = q - m->jnt_range[2 * j];
    pr->lim[2 * j + 1] = m->jnt_range[2 * j + 1] - q;
  }
}

/* The rows' compressed J as a dense nrow x nv matrix, columns ascending in every row. */
static double *dense_rows(const mr_rows *r) {
  double *J = calloc((size_t)r->nrow * r->nv + 1, sizeof(double));
  for (int i = 0; i < r->nrow; i++)
    for (int t = r->nzadr[i]; t < r->nzadr[i + 1]; t++) {
      MR_CHECK(t == r->nzadr[i] || r->nzind[t] > r->nzind[t - 1]);
      J[(size_t)i * r->nv + r->nzind[t]] = r->J[t];
    }
  return J;
}

static void test_jacobians(void) {
  mr_model *m = mr_test_load_xml(model_xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  const int nv = m->nv;
  srand(7);
  for (int trial = 0; trial < 5; trial++) {
    randomize(m, d);
    mr_forward(m, d);
    const mr_rows *r = mr_constraint_rows(d);
    MR_REQUIRE(r);
    MR_CHECK(r->neq == 3 + 6 + 6 + 1);
    MR_CHECK(r->nlim == 4); /* both sides of both limited joints (margin 1, range 0.2) */
    MR_CHECK(r->ncon >= 1);
    MR_CHECK(r->nrow == r->neq + r->nlim + 3 * r->ncon && d->nefc == r->nrow);
    int n = r->nrow;
    double *J = dense_rows(r);
    int *id = malloc((size_t)n * sizeof(int));
    memcpy(id, r->id, (size_t)n * sizeof(int));
    double *phi = malloc((size_t)n * sizeof(double));
    memcpy(phi, r->phi, (size_t)n * sizeof(double));

    probe pr = {.neq = r->neq, .ncon = r->ncon};
    pr.eq = calloc((size_t)r->neq, sizeof(double));
    pr.con = calloc(3 * (size_t)r->ncon, sizeof(double));
    pr.lim = calloc(2 * (size_t)m->njnt, sizeof(double));
    pr.local = calloc((size_t)r->ncon, sizeof *pr.local);
    mr_contact *cons = calloc((size_t)r->ncon, sizeof(mr_contact));
    for (int k = 0; k < r->ncon; k++) {
      cons[k] = d->contact[id[r->neq + r->nlim + 3 * k]];
      double at[3];
      mr_contact_anchor(m, &cons[k], at);
      to_body(d, cons[k].body1, at, pr.local[k][0]);
      to_body(d, cons[k].body2, at, pr.local[k][1]);
    }
    pr.contacts = cons;
    /* phi at the start: the rows' values */
    probe_eval(m, d, &pr);
    for (int i = 0; i < r->neq; i++) MR_CHECK_NEAR(phi[i], pr.eq[i], 1e-12);
    MR_CHECK(fabs(pr.eq[0]) + fabs(pr.eq[3]) > 1e-3); /* violated: a real test */

    probe plus = pr, minus = pr;
    plus.eq = calloc((size_t)r->neq, sizeof(double));
    plus.con = calloc(3 * (size_t)r->ncon, sizeof(double));
    plus.lim = calloc(2 * (size_t)m->njnt, sizeof(double));
    minus.eq = calloc((size_t)r->neq, sizeof(double));
    minus.con = calloc(3 * (size_t)r->ncon, sizeof(double));
    minus.lim = calloc(2 * (size_t)m->njnt, sizeof(double));
    double *q0 = malloc((size_t)m->nq * sizeof(double)), *e = calloc((size_t)nv, sizeof(double));
    memcpy(q0, d->qpos, (size_t)m->nq * sizeof(double));
    const double h = 1e-6;
    double worst = 0;
    for (int i = 0; i < nv; i++) {
      memset(e, 0, (size_t)nv * sizeof(double));
      e[i] = 1;
      memcpy(d->qpos, q0, (size_t)m->nq * sizeof(double));
      mr_integrate_pos(m, d->qpos, e, h);
      probe_eval(m, d, &plus);
      memcpy(d->qpos, q0, (size_t)m->nq * sizeof(double));
      mr_integrate_pos(m, d->qpos, e, -h);
      probe_eval(m, d, &minus);
      for (int row = 0; row < n; row++) {
        double fd;
        if (row < r->neq) {
          fd = (plus.eq[row] - minus.eq[row]) / (2 * h);
        } else if (row < r->neq + r->nlim) {
          int j = id[row];
          /* which side: the row's sign on the joint's dof */
          int side = J[(size_t)row * nv + m->jnt_dofadr[j]] > 0 ? 0 : 1;
          fd = (plus.lim[2 * j + side] - minus.lim[2 * j + side]) / (2 * h);
        } else {
          int k = (row - r->neq - r->nlim) / 3, a = (row - r->neq - r->nlim) % 3;
          fd = (plus.con[3 * k + a] - minus.con[3 * k + a]) / (2 * h);
        }
        double err = fabs(fd - J[(size_t)row * nv + i]);
        if (err > worst) worst = err;
        MR_CHECK_MSG(err < 1e-6, "trial %d row %d (of %d eq, %d lim) dof %d: J %.9g, fd %.9g", trial,
                     row, r->neq, r->nlim, i, J[(size_t)row * nv + i], fd);
      }
    }
    if (trial == 0) printf("largest |J - finite difference|: %.3g over %d rows x %d dofs\n", worst, n, nv);
    memcpy(d->qpos, q0, (size_t)m->nq * sizeof(double));
    free(q0), free(e), free(J), free(id), free(phi), free(cons), free(pr.local);
    free(pr.eq), free(pr.con), free(pr.lim), free(plus.eq), free(plus.con), free(plus.lim);
    free(minus.eq), free(minus.con), free(minus.lim);
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* The problem at d's state: mr_forward (the rows and the factor of M in qLD), then G and
 * its diagonal, g and AJ, with v_free drawn by urand when `random_v`, else zero. */
static mr_rows *problem_now(mr_model *m, mr_data *d, int random_v, double **v_free, mr_problem *p) {
  mr_forward(m, d);
  mr_rows *r = mr_constraint_rows(d);
  MR_REQUIRE(r && r->nrow > 0);
  *v_free = mr_arena_doubles(d, (size_t)m->nv);
  MR_REQUIRE(*v_free);
  for (int i = 0; i < m->nv; i++) (*v_free)[i] = random_v ? urand() : 0;
  MR_REQUIRE(mr_delassus_build(m, d, r, *v_free, p) == 0);
  return r;
}

/* max_a |(M x)_a - y_a|: x = A^-1 J_i^T against y = J_i^T and the dense mass matrix M. */
static double mass_residual(const double *M, const double *x, const double *y, int nv) {
  double worst = 0;
  for (int a = 0; a < nv; a++) {
    double s = 0;
    for (int b = 0; b < nv; b++) s += M[(size_t)a * nv + b] * x[b];
    worst = fmax(worst, fabs(s - y[a]));
  }
  return worst;
}

/* G = J A^-1 J^T symmetric PSD with A the factor in qLD; g = J v_free + bias. */
static void test_delassus(void) {
  mr_model *m = mr_test_load_xml(model_xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  const int nv = m->nv;
  srand(11);
  randomize(m, d);
  double *v_free;
  mr_problem p;
  mr_rows *r = problem_now(m, d, 1, &v_free, &p);
  const int n = r->nrow;
  MR_CHECK(p.nrow == n && p.neq == r->neq && p.nlim == r->nlim && p.ncon == r->ncon);
  double *M = malloc((size_t)nv * nv * sizeof(double));
  double *J = dense_rows(r), *AJ = calloc((size_t)n * nv, sizeof(double));
  for (int i = 0; i < n; i++)
    for (int a = 0; a < nv; a++) AJ[(size_t)i * nv + a] = mr_problem_AJ_entry(&p, i, a);
  mr_dense_mass(m, d, M);
  double asym = 0, mres = 0, gres = 0, minq = INFINITY;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) asym = fmax(asym, fabs(p.G[i * n + j] - p.G[j * n + i]));
    mres = fmax(mres, mass_residual(M, AJ + (size_t)i * nv, J + (size_t)i * nv, nv));
    double s = r->bias[i];
    for (int a = 0; a < nv; a++) s += J[(size_t)i * nv + a] * v_free[a];
    gres = fmax(gres, fabs(s - p.g[i]));
  }
  for (int t = 0; t < 20; t++) {
    double *x = malloc((size_t)n * sizeof(double)), q = 0, scale = 0;
    for (int i = 0; i < n; i++) x[i] = urand();
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        q += x[i] * p.G[i * n + j] * x[j];
        scale += fabs(x[i] * p.G[i * n + j] * x[j]);
      }
    minq = fmin(minq, q / scale);
    free(x);
  }
  MR_CHECK(asym == 0);
  MR_CHECK_MSG(mres < 1e-9, "M A^-1 J^T - J^T: %g", mres);
  MR_CHECK_MSG(gres < 1e-12, "g - (J v_free + bias): %g", gres);
  MR_CHECK_MSG(minq > -1e-12, "x^T G x / |.|: %g", minq);
  /* the diagonal the solvers scale by (half solves over each row's trees) is G's */
  for (int i = 0; i < n; i++) MR_CHECK_NEAR(p.Gdiag[i], p.G[i * n + i], 1e-12 * (1 + p.G[i * n + i]));
  /* G_ij = J_i A^-1 J_j^T */
  for (int i = 0; i < n; i += 3)
    for (int j = 0; j < n; j += 2) {
      double s = 0;
      for (int a = 0; a < nv; a++) s += J[(size_t)i * nv + a] * AJ[(size_t)j * nv + a];
      MR_CHECK_NEAR(p.G[i * n + j], s, 1e-12 * (1 + fabs(s)));
    }
  /* opt.max_iter 0 (the default): the solver's own cap, and a hand-over to pgs at most
   * pgs's; a cap the user sets is both */
  MR_CHECK(p.tol == d->opt.tol && d->opt.max_iter == 0 &&
           p.max_iter == mr_solver_max_iter(mr_solver_index(d)));
  MR_CHECK(p.pgs_max_iter == mr_solver_max_iter(mr_solver_find("pgs")));
  MR_CHECK(mr_solver_max_iter(mr_solver_find("newton")) > mr_solver_max_iter(mr_solver_find("pgs")));
  d->opt.max_iter = 37;
  mr_problem p37;
  MR_REQUIRE(mr_delassus_build(m, d, r, v_free, &p37) == 0);
  MR_CHECK(p37.max_iter == 37 && p37.pgs_max_iter == 37);
  free(M), free(J), free(AJ);
  mr_data_free(d);
  mr_model_free(m);
}

/* The bias rule (constraint.h): open rows close their gap, penetrating rows ask for "no
 * deeper" only (their depth is recovered by the position pass, never by a velocity),
 * equalities are corrected at their ERP. */
static void test_bias(void) {
  mr_model *m = mr_test_load_xml(model_xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  srand(3);
  randomize(m, d);
  mr_forward(m, d);
  const mr_rows *r = mr_constraint_rows(d);
  MR_REQUIRE(r);
  double dt = d->opt.timestep;
  int deep = 0;
  for (int i = 0; i < r->neq; i++) MR_CHECK_NEAR(r->bias[i], MR_ERP_EQUALITY * r->phi[i] / dt, 1e-12);
  for (int i = r->neq; i < r->nrow; i++) {
    int normal = i < r->neq + r->nlim || (i - r->neq - r->nlim) % 3 == 0;
    double phi = r->phi[i] + MR_CONTACT_SLOP; /* contacts and limits rest MR_CONTACT_SLOP deep */
    double want = normal && phi > 0 ? phi / dt : 0;
    MR_CHECK_NEAR(r->bias[i], want, 1e-12);
    deep += normal && phi < -MR_CONTACT_BAND;
  }
  MR_CHECK_MSG(deep > 0, "the random state has no penetration beyond the band: the rule for "
                         "deep rows went untested");
  /* constraints disabled: no rows */
  d->opt.disable |= MR_DISABLE_CONSTRAINT;
  mr_forward(m, d);
  r = mr_constraint_rows(d);
  MR_CHECK(r && r->nrow == 0 && d->nefc == 0);
  mr_data_free(d);
  mr_model_free(m);
}

/* A box resting on the floor (four contacts: a hyperstatic set) carrying an arm held
 * against its limit by the limit margin. */
static const char *pgs_forms_xml =
    "<mujoco model='forms'>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 .099' euler='0 0 20'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='.2 .1 .1'/>\n"
    "      <body pos='.2 0 .1'>\n"
    "        <joint type='hinge' axis='0 1 0' range='-.1 .1' limited='true' margin='1'/>\n"
    "        <geom type='capsule' size='.03' fromto='0 0 0 .3 0 .1' contype='0' conaffinity='0'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* pgs's two forms (over G, and the velocity form over J and AJ that big scenes get) are
 * one iteration: on the same problem they converge to the same impulses. */
static void test_pgs_forms(void) {
  mr_model *m = mr_test_load_xml(pgs_forms_xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  srand(5);
  mr_forward(m, d);
  mr_rows *r = mr_constraint_rows(d);
  MR_REQUIRE(r && r->ncon >= 4 && r->nlim > 0);
  const int n = r->nrow, pgs = mr_solver_find("pgs");
  MR_REQUIRE(pgs >= 0);
  double *v_free = mr_arena_doubles(d, (size_t)m->nv);
  MR_REQUIRE(v_free);
  for (int i = 0; i < m->nv; i++) v_free[i] = 0.1 * urand();
  v_free[2] = -0.5; /* the box moves into the floor: its contacts push */
  mr_problem p;
  MR_REQUIRE(mr_delassus_build(m, d, r, v_free, &p) == 0);
  p.tol = 1e-12;
  p.max_iter = MR_MAX_ITER_CAP;
  double *lambda[2], *c[2];
  for (int form = 0; form < 2; form++) {
    mr_problem q = p;
    if (form) q.G = NULL;
    lambda[form] = calloc((size_t)n, sizeof(double));
    c[form] = calloc((size_t)n, sizeof(double));
    mr_solver_out out = {.lambda = lambda[form], .c = c[form]};
    mr_solver_get(pgs)->solve(&q, &out, d);
    MR_CHECK_MSG(out.status == MR_SOLVER_CONVERGED, "form %d: status %d residual %g", form,
                 out.status, out.residual);
  }
  double scale = 0, diff = 0;
  for (int i = 0; i < n; i++) {
    scale = fmax(scale, fabs(lambda[0][i]));
    diff = fmax(diff, fabs(lambda[0][i] - lambda[1][i]));
  }
  MR_CHECK_MSG(scale > 0 && diff < 1e-6 * scale, "|lambda_G - lambda_AJ| %g of %g", diff, scale);
  for (int form = 0; form < 2; form++) free(lambda[form]), free(c[form]);
  mr_data_free(d);
  mr_model_free(m);
}

/* G's diagonal on scenes whose rows take each of its walks: a robot's contacts with the
 * floor (one path from the root: the humanoid lying down), two free bodies' (a stack of
 * boxes, a pile of mixed primitives), each entry against J_i A^-1 J_i^T from A^-1 J_i^T,
 * itself checked against the dense mass matrix (M A^-1 J_i^T = J_i^T). */
static void test_delassus_diagonal(const char *path, int steps) {
  char err[512];
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_REQUIRE_MSG(m, "%s: %s", path, err);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  for (int k = 0; k < steps; k++) MR_REQUIRE(mr_step(m, d) == 0);
  double *v_free;
  mr_problem p;
  mr_rows *r = problem_now(m, d, 0, &v_free, &p);
  MR_REQUIRE(r->ncon > 0);
  const int n = p.nrow, nv = m->nv;
  double *M = malloc((size_t)nv * nv * sizeof(double)), *J = dense_rows(r);
  double *aj = malloc((size_t)nv * sizeof(double)), mres = 0, gres = 0;
  mr_dense_mass(m, d, M);
  for (int i = 0; i < n; i++) {
    double g = 0;
    for (int a = 0; a < nv; a++) aj[a] = mr_problem_AJ_entry(&p, i, a);
    for (int a = 0; a < nv; a++) g += J[(size_t)i * nv + a] * aj[a];
    mres = fmax(mres, mass_residual(M, aj, J + (size_t)i * nv, nv));
    gres = fmax(gres, fabs(p.Gdiag[i] - g) / (1 + g));
  }
  printf("%s: %d rows (%d contacts), |M A^-1 J^T - J^T| %.2g, G's diagonal off by %.2g\n",
         m->model_name, n, p.ncon, mres, gres);
  MR_CHECK_MSG(mres < 1e-9, "%s: M A^-1 J^T - J^T: %g", path, mres);
  MR_CHECK_MSG(gres < 1e-12, "%s: G's diagonal off by %g", path, gres);
  free(M), free(J), free(aj);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_jacobians();
  test_delassus();
  test_delassus_diagonal(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", 600);
  test_delassus_diagonal(MOREAU_SOURCE_DIR "/models/stack5.xml", 200);
  test_delassus_diagonal(MOREAU_SOURCE_DIR "/models/pile20.xml", 1500);
  test_bias();
  test_pgs_forms();
  MR_TEST_END();
}
