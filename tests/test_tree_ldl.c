/* The L^T D L factor in the mass matrix's layout (engine/core/tree_ldl.h), which the newton
 * solver uses for Newton's matrix of an island that is one tree: checked against the dense
 * matrix it stands for, on its pivot floor, and end to end on a tree whose two branches
 * rest on each other (a contact whose rows leave one path, which the solver adds by a
 * low-rank solve instead of the factor). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "engine/core/tree_ldl.h"
#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

static double lcg(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 24) - 0.5;
}

static mr_model *load_humanoid(void) {
  char path[1024], err[512];
  snprintf(path, sizeof path, "%s/humanoid/humanoid.xml", MUJOCO_MODEL_DIR);
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_REQUIRE_MSG(m, "%s", err);
  return m;
}

/* Data of m with its hinges at a random pose, after a forward pass (qM set). */
static mr_data *data_at_random_pose(const mr_model *m, unsigned seed) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  for (int i = 7; i < m->nq; i++) d->qpos[i] = 0.5 * lcg(&seed);
  mr_forward(m, d);
  return d;
}

/* Entry (i, j), j an ancestor of i or i itself, in the layout. */
static double *layout_at(const mr_model *m, double *H, int i, int j) {
  int adr = m->dof_Madr[i];
  for (int k = i; k != j; k = m->dof_parentid[k]) adr++;
  return H + adr;
}

/* The humanoid's mass matrix at a random pose plus rank-one terms w w^T over random paths
 * from the root (a contact of one body with the floor): the factor's solve must satisfy
 * the dense matrix's equations. */
static void test_factor_matches_dense(void) {
  mr_model *m = load_humanoid();
  unsigned seed = 11;
  mr_data *d = data_at_random_pose(m, seed);
  seed += 1000; /* the draws below, apart from the pose's */
  const int nv = m->nv;
  double *H = malloc((size_t)m->nM * sizeof *H), *dense = calloc((size_t)nv * nv, sizeof *dense);
  double *Dinv = malloc((size_t)nv * sizeof *Dinv), *x = malloc((size_t)nv * sizeof *x);
  double *b = malloc((size_t)nv * sizeof *b), *w = malloc((size_t)nv * sizeof *w);
  MR_REQUIRE(H && dense && Dinv && x && b && w);
  memcpy(H, d->qM, (size_t)m->nM * sizeof *H);
  for (int i = 0; i < nv; i++)
    for (int j = i; j >= 0; j = m->dof_parentid[j]) dense[i * nv + j] = dense[j * nv + i] = *layout_at(m, H, i, j);
  for (int term = 0; term < 12; term++) {
    int leaf = (int)((lcg(&seed) + 0.5) * nv) % nv;
    double scale = 100 * (lcg(&seed) + 0.5);
    memset(w, 0, (size_t)nv * sizeof *w);
    for (int j = leaf; j >= 0; j = m->dof_parentid[j]) w[j] = lcg(&seed);
    for (int i = leaf; i >= 0; i = m->dof_parentid[i])
      for (int j = i; j >= 0; j = m->dof_parentid[j]) {
        double v = scale * w[i] * w[j];
        *layout_at(m, H, i, j) += v;
        dense[i * nv + j] += v;
        if (i != j) dense[j * nv + i] += v;
      }
  }
  for (int i = 0; i < nv; i++) Dinv[i] = H[m->dof_Madr[i]];
  MR_CHECK(mr_tree_ldl(m, H, Dinv, 0, nv, 1e-14) == 0);
  for (int i = 0; i < nv; i++) x[i] = b[i] = lcg(&seed);
  mr_tree_ldl_solve1(m, H, Dinv, x, 0, nv);
  double worst = 0, scale = 0;
  for (int i = 0; i < nv; i++) {
    double r = -b[i];
    for (int j = 0; j < nv; j++) {
      r += dense[i * nv + j] * x[j];
      scale = fmax(scale, fabs(dense[i * nv + j] * x[j]));
    }
    worst = fmax(worst, fabs(r));
  }
  MR_CHECK_MSG(worst < 1e-10 * scale, "residual %g of terms up to %g", worst, scale);
  /* the block solve of one vector is the same solve */
  memcpy(w, b, (size_t)nv * sizeof *w);
  mr_tree_ldl_solve(m, H, Dinv, w, 1, 0, nv);
  double differ = 0;
  for (int i = 0; i < nv; i++) differ = fmax(differ, fabs(w[i] - x[i]));
  MR_CHECK_MSG(differ < 1e-12 * scale, "block and single solves differ by %g", differ);
  free(H), free(dense), free(Dinv), free(x), free(b), free(w);
  mr_data_free(d);
  mr_model_free(m);
}

/* Adds scale w w^T over the path from leaf to the root into the layout. */
static void layout_add_path(const mr_model *m, double *H, const double *w, int leaf, double scale) {
  for (int i = leaf; i >= 0; i = m->dof_parentid[i])
    for (int j = i; j >= 0; j = m->dof_parentid[j]) *layout_at(m, H, i, j) += scale * w[i] * w[j];
}

/* Rank-one updates and downdates of a factor (mr_tree_ldl_update), as newton applies them
 * when a contact's terms change between iterations: the result must solve what a fresh
 * factor of the changed matrix solves, to round-off, and a downdate that takes away more
 * than the matrix holds must be refused. */
static void test_update_matches_fresh_factor(void) {
  mr_model *m = load_humanoid();
  unsigned seed = 5;
  mr_data *d = data_at_random_pose(m, seed);
  seed += 1000; /* the draws below, apart from the pose's */
  const int nv = m->nv, nterm = 16;
  double *H = malloc((size_t)m->nM * sizeof *H), *F = malloc((size_t)m->nM * sizeof *F);
  double *Dinv = malloc((size_t)nv * sizeof *Dinv), *Finv = malloc((size_t)nv * sizeof *Finv);
  double *x = malloc((size_t)nv * sizeof *x), *y = malloc((size_t)nv * sizeof *y);
  double *w = calloc((size_t)nv, sizeof *w), *terms = malloc((size_t)nterm * nv * sizeof *terms);
  int leaf[16];
  double scale[16];
  MR_REQUIRE(H && F && Dinv && Finv && x && y && w && terms);
  memcpy(H, d->qM, (size_t)m->nM * sizeof *H);
  /* terms 0..7 in the matrix at the start, each large next to the mass matrix (a contact
   * at a small proximal weight), terms 8..15 added later */
  for (int t = 0; t < nterm; t++) {
    leaf[t] = (int)((lcg(&seed) + 0.5) * nv) % nv;
    scale[t] = 1e4 * (lcg(&seed) + 0.5);
    double *wt = terms + (size_t)t * nv;
    memset(wt, 0, (size_t)nv * sizeof *wt);
    for (int j = leaf[t]; j >= 0; j = m->dof_parentid[j]) wt[j] = lcg(&seed);
    if (t < 8) layout_add_path(m, H, wt, leaf[t], scale[t]);
  }
  for (int i = 0; i < nv; i++) Dinv[i] = H[m->dof_Madr[i]];
  MR_REQUIRE(mr_tree_ldl(m, H, Dinv, 0, nv, 1e-14) == 0);
  /* take terms 0..5 out, put 8..15 in, interleaved: the matrix of terms 6, 7, 8..15 */
  for (int t = 0; t < 8; t++) {
    memcpy(w, terms + (size_t)(8 + t) * nv, (size_t)nv * sizeof *w);
    MR_CHECK(mr_tree_ldl_update(m, H, Dinv, w, leaf[8 + t], scale[8 + t]) == 0);
    if (t >= 6) continue;
    memcpy(w, terms + (size_t)t * nv, (size_t)nv * sizeof *w);
    MR_CHECK(mr_tree_ldl_update(m, H, Dinv, w, leaf[t], -scale[t]) == 0);
  }
  MR_CHECK_MSG(mr_all_zero(w, nv), "the update leaves its vector zero");
  memcpy(F, d->qM, (size_t)m->nM * sizeof *F);
  for (int t = 6; t < nterm; t++) layout_add_path(m, F, terms + (size_t)t * nv, leaf[t], scale[t]);
  for (int i = 0; i < nv; i++) Finv[i] = F[m->dof_Madr[i]];
  MR_REQUIRE(mr_tree_ldl(m, F, Finv, 0, nv, 1e-14) == 0);
  for (int i = 0; i < nv; i++) x[i] = y[i] = lcg(&seed);
  mr_tree_ldl_solve1(m, H, Dinv, x, 0, nv);
  mr_tree_ldl_solve1(m, F, Finv, y, 0, nv);
  double differ = 0, size = 0;
  for (int i = 0; i < nv; i++) {
    differ = fmax(differ, fabs(x[i] - y[i]));
    size = fmax(size, fabs(y[i]));
  }
  MR_CHECK_MSG(differ < 1e-8 * size, "updated and fresh factors solve apart by %g of %g", differ, size);
  /* taking out twice what term 6 put in leaves an indefinite matrix: refused */
  memcpy(w, terms + 6 * (size_t)nv, (size_t)nv * sizeof *w);
  MR_CHECK(mr_tree_ldl_update(m, H, Dinv, w, leaf[6], -2 * scale[6]) == -1);
  MR_CHECK_MSG(mr_all_zero(w, nv), "a refused update leaves its vector zero too");
  free(H), free(F), free(Dinv), free(Finv), free(x), free(y), free(w), free(terms);
  mr_data_free(d);
  mr_model_free(m);
}

/* A pivot round-off drove to zero is raised to floor times its diagonal, and a non-finite
 * one is refused. */
static void test_pivot_floor(void) {
  mr_model *m = load_humanoid();
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  mr_forward(m, d);
  const int nv = m->nv, leaf = nv - 1;
  double *H = malloc((size_t)m->nM * sizeof *H), *Dinv = malloc((size_t)nv * sizeof *Dinv);
  double *x = malloc((size_t)nv * sizeof *x);
  MR_REQUIRE(H && Dinv && x);
  memcpy(H, d->qM, (size_t)m->nM * sizeof *H);
  for (int i = 0; i < nv; i++) Dinv[i] = H[m->dof_Madr[i]];
  /* the leaf's row and column gone (a massless dof without armature): singular */
  for (int j = leaf; j >= 0; j = m->dof_parentid[j]) *layout_at(m, H, leaf, j) = 0;
  int raised = mr_tree_ldl(m, H, Dinv, 0, nv, 1e-14);
  MR_CHECK_MSG(raised >= 1, "%d pivots raised", raised);
  for (int i = 0; i < nv; i++) x[i] = 1;
  mr_tree_ldl_solve1(m, H, Dinv, x, 0, nv);
  int finite = 1;
  for (int i = 0; i < nv; i++) finite &= isfinite(x[i]);
  MR_CHECK(finite);

  memcpy(H, d->qM, (size_t)m->nM * sizeof *H);
  for (int i = 0; i < nv; i++) Dinv[i] = H[m->dof_Madr[i]];
  H[m->dof_Madr[leaf]] = NAN;
  MR_CHECK(mr_tree_ldl(m, H, Dinv, 0, nv, 1e-14) == -1);
  free(H), free(Dinv), free(x);
  mr_data_free(d);
  mr_model_free(m);
}

/* One free base with two hinged arms that lean on each other, tip to tip: the arm-arm
 * contact moves both arms' dofs and the base's, which is no single path from the root, so
 * newton adds it to the mass-layout factor by Sherman-Morrison-Woodbury. Every step must
 * converge, with the natural map of metrics.c (its own computation from the impulses), and
 * at rest in about one iteration, which only Newton's exact matrix gives. */
static const char *scissor_xml =
    "<mujoco model='scissor'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 0.06'>\n"
    "      <freejoint/>\n"
    "      <geom type='box' size='.3 .1 .05'/>\n"
    "      <body pos='-0.2 0 0.05'>\n"
    "        <joint type='hinge' axis='0 1 0' damping='0.01'/>\n"
    "        <geom type='capsule' fromto='0 0 0 0.165 0 0.3' size='.03'/>\n"
    "      </body>\n"
    "      <body pos='0.2 0 0.05'>\n"
    "        <joint type='hinge' axis='0 1 0' damping='0.01'/>\n"
    "        <geom type='capsule' fromto='0 0 0 -0.165 0 0.3' size='.03'/>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static void test_branches_resting_on_each_other(void) {
  mr_model *m = mr_test_load_xml(scissor_xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("newton");
  int self = 0, capped = 0;
  double worst = 0, iters = 0;
  for (int step = 0; step < 2000; step++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    int arms = 0;
    for (int i = 0; i < d->ncon; i++) arms += d->contact[i].geom1 >= 2 && d->contact[i].geom2 >= 2;
    self += arms > 0;
    capped += d->solver_status != 0;
    worst = fmax(worst, d->metrics.natural_map);
    if (step >= 1000) iters += d->solver_iters;
  }
  printf("scissor: arms touching on %d steps, %.2f iterations per step over the last 2 s\n", self,
         iters / 1000.0);
  MR_CHECK_MSG(self > 1500, "the arms touched on %d of 2000 steps", self);
  MR_CHECK_MSG(capped == 0, "%d steps not converged", capped);
  MR_CHECK_MSG(worst < 1e-6, "natural map %g", worst);
  /* at rest the warm step lands in about one iteration; with the arm-arm contact's terms
   * left out of Newton's matrix the steps still converge, through 24 iterations each */
  MR_CHECK_MSG(iters / 1000.0 < 2, "%.2f iterations per step at rest", iters / 1000.0);
  /* at rest: the arms hold each other up */
  double speed = 0;
  for (int i = 0; i < m->nv; i++) speed = fmax(speed, fabs(d->qvel[i]));
  MR_CHECK_MSG(speed < 1e-3, "|qvel| %g after 4 s", speed);
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_factor_matches_dense();
  test_update_matches_fresh_factor();
  test_pivot_floor();
  test_branches_resting_on_each_other();
  MR_TEST_END();
}
