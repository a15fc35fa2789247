/* The newton solver's warm path (issue 15): a step whose contacts persist converges in one
 * Newton iteration from the warm start's zones, a box pushed around the floor (its slip
 * turning every step, its contacts turning between sticking and sliding) in about two,
 * the Woodbury solves of sliding contacts touch only the group of trees their contact
 * joins, and the trees are eliminated in minimum-degree order (tree_cholesky.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/arena.h"
#include "engine/core/mr_math.h"
#include "engine/solver/tree_cholesky.h"
#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"

/* Four free boxes over a floor: four trees of six dofs. */
static const char *boxes_xml =
    "<mujoco model='boxes4'>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>\n"
    "    <body pos='1 0 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>\n"
    "    <body pos='2 0 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>\n"
    "    <body pos='3 0 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static double lcg(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 24) - 0.5;
}

/* Trees 0-1 and 2-3 joined: a random positive definite H with that pattern, kept dense for
 * the check; a right-hand side inside trees 0 and 1 solved over their group only must
 * satisfy H x = b (checked with the dense H, not with the factor) and leave trees 2 and 3
 * untouched. */
static void test_local_solve(void) {
  mr_model *m = mr_test_load_xml(boxes_xml);
  MR_REQUIRE(m && m->nv == 24);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  size_t mark = mr_arena_mark(d);
  mr_tree_chol h;
  MR_REQUIRE(mr_tree_chol_init(&h, m, d) == 0);
  MR_CHECK(h.ntree == 4);
  mr_tree_chol_join(&h, 0, 6);
  mr_tree_chol_join(&h, 12, 18);
  MR_REQUIRE(mr_tree_chol_analyze(&h, d) == 0);
  MR_CHECK(h.ncomp == 2);
  MR_CHECK(h.comp[0] == h.comp[1] && h.comp[2] == h.comp[3] && h.comp[0] != h.comp[2]);

  enum { N = 24 };
  static double H[N][N];
  memset(H, 0, sizeof H);
  unsigned seed = 7;
  mr_tree_chol_zero(&h);
  /* B B^T + I blocks over each joined pair's 12 dofs: positive definite, the pair's pattern */
  for (int g = 0; g < 2; g++) {
    int cols[12];
    double B[12][12], W[12 * 12];
    for (int a = 0; a < 12; a++) {
      cols[a] = 12 * g + a;
      for (int b = 0; b < 12; b++) B[a][b] = lcg(&seed);
    }
    for (int a = 0; a < 12; a++)
      for (int b = 0; b < 12; b++) {
        double w = a == b;
        for (int k = 0; k < 12; k++) w += B[a][k] * B[b][k];
        W[a * 12 + b] = w;
        H[cols[a]][cols[b]] += w;
      }
    mr_tree_chol_add_block(&h, cols, 12, W);
  }
  MR_REQUIRE(mr_tree_chol_factor(&h, 1e-14) == 0);

  double b[N], x[N], full[N];
  for (int i = 0; i < N; i++) b[i] = i < 12 ? lcg(&seed) : 0;
  memcpy(x, b, sizeof b);
  memcpy(full, b, sizeof b);
  mr_tree_chol_solve_local(&h, x, 3);
  mr_tree_chol_solve(&h, full);
  double worst = 0, outside = 0, versus_full = 0;
  for (int i = 0; i < N; i++) {
    double r = -b[i];
    for (int j = 0; j < N; j++) r += H[i][j] * x[j];
    worst = fmax(worst, fabs(r));
    if (i >= 12) outside = fmax(outside, fabs(x[i]));
    versus_full = fmax(versus_full, fabs(x[i] - full[i]));
  }
  MR_CHECK_MSG(worst < 1e-10, "local solve residual %g", worst);
  MR_CHECK(outside == 0);
  MR_CHECK_MSG(versus_full < 1e-12, "local and full solves differ by %g", versus_full);
  mr_arena_restore(d, mark);
  mr_data_free(d);
  mr_model_free(m);
}

/* Joins that couple only some dofs of each tree, as a contact between an object and one
 * limb of a robot does: the blocks between trees then hold zero rows, which the
 * elimination skips. Trees 0-1-2-3 joined in a chain through random subsets of their
 * dofs (and 0 to 3), on top of a positive diagonal; H x = b checked with the dense H. */
static void test_partial_joins(void) {
  mr_model *m = mr_test_load_xml(boxes_xml);
  MR_REQUIRE(m && m->nv == 24);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  enum { N = 24 };
  static double H[N][N];
  unsigned seed = 5;
  for (int trial = 0; trial < 10; trial++) {
    size_t mark = mr_arena_mark(d);
    mr_tree_chol h;
    MR_REQUIRE(mr_tree_chol_init(&h, m, d) == 0);
    const int pairs[4][2] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}};
    int cols[4][4]; /* per pair: two dofs of each tree, ascending */
    for (int q = 0; q < 4; q++) {
      int a = pairs[q][0], b = pairs[q][1], x = (int)((lcg(&seed) + 0.5) * 5);
      int y = (int)((lcg(&seed) + 0.5) * 5);
      cols[q][0] = 6 * a + x;
      cols[q][1] = 6 * a + x + 1;
      cols[q][2] = 6 * b + y;
      cols[q][3] = 6 * b + y + 1;
      mr_tree_chol_join(&h, cols[q][0], cols[q][2]);
    }
    MR_REQUIRE(mr_tree_chol_analyze(&h, d) == 0);
    mr_tree_chol_zero(&h);
    memset(H, 0, sizeof H);
    for (int i = 0; i < N; i++) {
      double w = 1 + lcg(&seed);
      H[i][i] = w;
      mr_tree_chol_add_diag(&h, i, i, w);
    }
    for (int q = 0; q < 4; q++) {
      double B[4][4], W[16];
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) B[a][b] = lcg(&seed);
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
          double w = 0;
          for (int c = 0; c < 4; c++) w += B[a][c] * B[b][c];
          W[a * 4 + b] = w;
          H[cols[q][a]][cols[q][b]] += w;
        }
      mr_tree_chol_add_block(&h, cols[q], 4, W);
    }
    MR_REQUIRE(mr_tree_chol_factor(&h, 1e-14) == 0);
    double b[N], x[N];
    for (int i = 0; i < N; i++) x[i] = b[i] = lcg(&seed);
    mr_tree_chol_solve(&h, x);
    double worst = 0;
    for (int i = 0; i < N; i++) {
      double r = -b[i];
      for (int j = 0; j < N; j++) r += H[i][j] * x[j];
      worst = fmax(worst, fabs(r));
    }
    MR_CHECK_MSG(worst < 1e-10, "trial %d: residual %g", trial, worst);
    mr_arena_restore(d, mark);
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* MuJoCo's humanoid from qpos0 stands on its feet for its first seconds: every step's
 * contacts persist, so after the landing newton converges in one iteration, the step from
 * the warm start's zones (from the soft start it took two to five). */
static void test_standing_humanoid(void) {
  char path[1024];
  snprintf(path, sizeof path, "%s/humanoid/humanoid.xml", MUJOCO_MODEL_DIR);
  char err[512];
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_REQUIRE_MSG(m, "%s", err);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("newton");
  int counted = 0, one = 0, unconverged = 0;
  for (int step = 0; step < 2000; step++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    if (step < 500 || d->ncon == 0) continue;
    counted++;
    one += d->solver_iters <= 1;
    unconverged += d->solver_status != 0;
  }
  MR_CHECK(counted > 1000);
  MR_CHECK_MSG(one >= 0.95 * counted, "%d of %d steps in at most one iteration", one, counted);
  MR_CHECK_MSG(unconverged == 0, "%d steps not converged", unconverged);
  mr_data_free(d);
  mr_model_free(m);
}

/* A 1 kg box on the floor (mu 0.5) pushed by a horizontal force that turns, of amplitude
 * `push` times the friction's limit: at 1.5 it sticks and slides by turns, at 3 it slides
 * all the time along a turning path. The warm path linearizes a sliding contact along the
 * slip its step brings, and a contact that turned between sticking and sliding in its
 * new zone: 1.97 and 1.71 iterations per step. It took 4.13 and 5.82 when the slip was held
 * to last step's direction and every turn restarted the solve soft. */
static void test_pushed_box(double push) {
  mr_model *m = mr_test_load_xml(
      "<mujoco model='pushed_box'><option timestep='0.002'/><worldbody>"
      "<geom type='plane' size='5 5 .1' friction='0.5'/>"
      "<body pos='0 0 .1'><freejoint/><geom type='box' size='.1 .1 .1' mass='1' friction='0.5'/>"
      "</body></worldbody></mujoco>");
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("newton");
  const int steps = 2000;
  const double limit = 0.5 * 1.0 * 9.81;
  long iters = 0;
  int unconverged = 0;
  double travel = 0;
  for (int step = 0; step < steps; step++) {
    double t = step * d->opt.timestep, x = d->qpos[0], y = d->qpos[1];
    d->xfrc_applied[6 + 0] = push * limit * sin(2 * MR_PI * t / 0.2);
    d->xfrc_applied[6 + 1] = push * limit * cos(2 * MR_PI * t / 0.13);
    MR_REQUIRE(mr_step(m, d) == 0);
    iters += d->solver_iters;
    unconverged += d->solver_status != 0;
    travel += hypot(d->qpos[0] - x, d->qpos[1] - y);
  }
  double mean = (double)iters / steps;
  printf("pushed box at %.1f x the friction limit: %.2f newton iterations per step, %.3f m travelled\n",
         push, mean, travel);
  MR_CHECK_MSG(travel > 0.05, "the box barely moved (%.3f m): no sliding to test", travel);
  MR_CHECK_MSG(unconverged == 0, "%d steps not converged", unconverged);
  MR_CHECK_MSG(mean < 2.5, "%.2f iterations per step", mean);
  mr_data_free(d);
  mr_model_free(m);
}

/* The elimination order of mr_tree_chol_analyze against the rule it implements, written
 * out here on a dense graph: minimum degree among the trees left, ties to the lowest
 * index, a tree's elimination joining its remaining neighbours pairwise. Twelve free
 * bodies, some joined to none (they go first), random joins among the others. */
static void test_elimination_order(void) {
  enum { NT = 12 };
  char xml[4096];
  int len = snprintf(xml, sizeof xml, "<mujoco><worldbody><geom type='plane' size='5 5 .1'/>");
  for (int t = 0; t < NT; t++)
    len += snprintf(xml + len, sizeof xml - (size_t)len,
                    "<body pos='%d 0 1'><freejoint/><geom type='box' size='.1 .1 .1'/></body>", t);
  snprintf(xml + len, sizeof xml - (size_t)len, "</worldbody></mujoco>");
  mr_model *m = mr_test_load_xml(xml);
  MR_REQUIRE(m && m->nv == 6 * NT);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  unsigned seed = 11;
  for (int trial = 0; trial < 20; trial++) {
    size_t mark = mr_arena_mark(d);
    mr_tree_chol h;
    MR_REQUIRE(mr_tree_chol_init(&h, m, d) == 0);
    unsigned char adj[NT][NT] = {{0}}, done[NT] = {0};
    for (int e = 0; e < 14; e++) {
      int a = (int)((lcg(&seed) + 0.5) * NT), b = (int)((lcg(&seed) + 0.5) * NT);
      if (a % 3 == 0 || b % 3 == 0 || a == b) continue; /* trees 0, 3, 6, 9 stay alone */
      mr_tree_chol_join(&h, 6 * a + 2, 6 * b + 5);
      adj[a][b] = adj[b][a] = 1;
    }
    MR_REQUIRE(mr_tree_chol_analyze(&h, d) == 0);
    int same = 1;
    for (int p = 0; p < NT; p++) {
      int k = -1, dk = 0;
      for (int a = 0; a < NT; a++) {
        if (done[a]) continue;
        int deg = 0;
        for (int b = 0; b < NT; b++) deg += !done[b] && adj[a][b];
        if (k < 0 || deg < dk) k = a, dk = deg;
      }
      done[k] = 1;
      for (int a = 0; a < NT; a++)
        for (int b = 0; b < NT; b++)
          if (a != b && !done[a] && !done[b] && adj[k][a] && adj[k][b]) adj[a][b] = 1;
      same &= h.order[p] == k;
    }
    MR_CHECK_MSG(same, "trial %d: the elimination order is not the minimum-degree order", trial);
    mr_arena_restore(d, mark);
  }
  mr_data_free(d);
  mr_model_free(m);
}

int main(void) {
  test_elimination_order();
  test_local_solve();
  test_partial_joins();
  test_standing_humanoid();
  test_pushed_box(1.5);
  test_pushed_box(3.0);
  MR_TEST_END();
}
