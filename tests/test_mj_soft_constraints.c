/* soft's equalities and limits are MuJoCo's soft constraints (issue 17, part 3): every row
 * gets MuJoCo's reference acceleration -b v - k d r from its own error r and its element's
 * solref/solimp, and the regularizer R = (1 - d)/d w with MuJoCo's weight w. On the same
 * file and dt, Moreau's `soft` and MuJoCo 2.2 (its built-in solver) must give the same
 * trajectory over 1 s and the same stretch of the constraint:
 *   - a pendulum held by a connect (the anchor's stretch),
 *   - a box on a weld whose solref comes from a defaults class (sag and twist),
 *   - two arms coupled by a joint equality with its own solimp (the coupling's slack),
 *   - an arm held by a tendon limit with its own solreflimit (the depth past the limit),
 *   - arms on joint limits with solreflimit/solimplimit from a class and from the joint.
 * Before, soft kept them rigid (held by the position projection or pass): every stretch
 * was 0 or 1e-6 where MuJoCo's is 1e-5 to 1e-2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_mj_fixture.h"

#define STEPS 1000 /* 1 s at 1 ms */

/* One scalar of the state: the stretch a test compares. */
typedef double (*measure_fn)(const double *qpos);

typedef struct scene {
  const char *file;
  const char *what;         /* the measure, for the report */
  measure_fn measure;
  double qpos_init[4];      /* hinge angles set before the run (nset of them) */
  int nset;
  double rel;               /* agreement asked of the mean measure */
  int key;                  /* keyframe to start from, or -1 */
} scene;

static double connect_stretch(const double *q) {
  return sqrt(q[0] * q[0] + q[1] * q[1] + (q[2] - 1) * (q[2] - 1));
}
static double weld_sag(const double *q) { return 1 - q[2]; }
static double weld_twist(const double *q) { return 2 * acos(fmin(1, fabs(q[3]))); }
static double joint_slack(const double *q) { return q[1] - q[0]; }
static double tendon_past(const double *q) { return 2 * q[0] - 1; }
#define LIMIT (30 * 3.14159265358979323846 / 180) /* soft_solreflimit.xml's upper limit */
static double limit_past_a(const double *q) { return q[0] - LIMIT; }
static double limit_past_b(const double *q) { return q[1] - LIMIT; }

/* models/tendon_limits.xml: the swinging ball's rope past its 0.5 m (the rope runs from the
 * site anchor at (0, 0, 1) to the ball's knot 0.05 m above its centre), the two hinges'
 * tendon past +-0.3 and the tendon equality x3 = 2 x4. qpos: two free joints, j1, j2, x3,
 * x4. */
static double rope_stretch(const double *q) {
  const double *w = q + 3; /* the ball's quaternion: knot = pos + R (0, 0, 0.05) */
  double k[3] = {q[0] + 0.05 * 2 * (w[1] * w[3] + w[0] * w[2]),
                 q[1] + 0.05 * 2 * (w[2] * w[3] - w[0] * w[1]),
                 q[2] + 0.05 * (1 - 2 * (w[1] * w[1] + w[2] * w[2]))};
  return sqrt(k[0] * k[0] + k[1] * k[1] + (k[2] - 1) * (k[2] - 1)) - 0.5;
}
static double bend_over(const double *q) { return fabs(q[14] + q[15]) - 0.3; }
static double coupling(const double *q) { return q[16] - 2 * q[17]; }
static double first_joint(const double *q) { return q[0]; }

/* qpos after every step (STEPS x nq) from MuJoCo with its own solver. */
static void run_mujoco(mjModel *m, const scene *s, double *traj) {
  mjData *d = mj_makeData(m);
  if (s->key >= 0) mj_resetDataKeyframe(m, d, s->key);
  for (int i = 0; i < s->nset; i++) d->qpos[i] = s->qpos_init[i];
  for (int t = 0; t < STEPS; t++) {
    mj_step(m, d);
    memcpy(traj + (size_t)t * m->nq, d->qpos, (size_t)m->nq * sizeof(double));
  }
  mj_deleteData(d);
}

static void run_moreau(const mr_model *m, const scene *s, double *traj) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  d->opt.solver = mr_solver_find("soft");
  if (s->key >= 0) MR_REQUIRE(mr_data_reset_keyframe(m, d, s->key) == 0);
  for (int i = 0; i < s->nset; i++) d->qpos[i] = s->qpos_init[i];
  for (int t = 0; t < STEPS; t++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    memcpy(traj + (size_t)t * m->nq, d->qpos, (size_t)m->nq * sizeof(double));
  }
  mr_data_free(d);
}

/* The mean of the measure over the run, and the largest qpos difference next to the
 * largest excursion of MuJoCo's qpos from its start. */
static void compare(const scene *s, int nq, const double *ours, const double *theirs) {
  double mean[2] = {0, 0}, diff = 0, range = 0;
  for (int t = 0; t < STEPS; t++) {
    mean[0] += s->measure(ours + (size_t)t * nq) / STEPS;
    mean[1] += s->measure(theirs + (size_t)t * nq) / STEPS;
    for (int i = 0; i < nq; i++) {
      diff = fmax(diff, fabs(ours[(size_t)t * nq + i] - theirs[(size_t)t * nq + i]));
      range = fmax(range, fabs(theirs[(size_t)t * nq + i] - theirs[i]));
    }
  }
  printf("%s: %s, mean over 1 s: soft %.6g, MuJoCo %.6g (ratio %.4f); qpos apart by %.3g "
         "where it moves %.3g\n", s->file, s->what, mean[0], mean[1], mean[0] / mean[1], diff, range);
  MR_CHECK(fabs(mean[1]) > 1e-6); /* MuJoCo's constraint does yield: not 0 ~ 0 */
  MR_CHECK_MSG(fabs(mean[0] - mean[1]) <= s->rel * fabs(mean[1]), "%s: %s soft %g, MuJoCo %g",
               s->file, s->what, mean[0], mean[1]);
  MR_CHECK_MSG(diff <= 1e-3 * range, "%s: qpos apart by %g where it moves %g", s->file, diff, range);
}

static void check_scene(const scene *s) {
  mjModel *mj;
  mr_model *m;
  char path[1024], err[1024] = "";
  if (strncmp(s->file, "models/", 7) == 0) { /* a model of the repository's */
    snprintf(path, sizeof path, "%s/%s", MOREAU_SOURCE_DIR, s->file);
    mj = mj_loadXML(path, NULL, err, sizeof err);
    m = mr_model_load(path, NULL, err, sizeof err);
    MR_CHECK_MSG(mj && m, "%s: %s", path, err);
    if (!mj || !m) return;
  } else if (!load_both(s->file, &mj, &m)) {
    return;
  }
  MR_CHECK(m->nq == mj->nq);
  if (m->nq == mj->nq) {
    double *ours = calloc((size_t)STEPS * m->nq, sizeof(double));
    double *theirs = calloc((size_t)STEPS * m->nq, sizeof(double));
    MR_REQUIRE(ours && theirs);
    run_moreau(m, s, ours);
    run_mujoco(mj, s, theirs);
    compare(s, m->nq, ours, theirs);
    free(ours);
    free(theirs);
  }
  mr_model_free(m);
  mj_deleteModel(mj);
}

/* The per-element parameters reach the model as MuJoCo reads them. */
static void check_parameters(void) {
  mjModel *mj;
  mr_model *m;
  if (!load_both("soft_solreflimit.xml", &mj, &m)) return;
  for (int k = 0; k < 2 * m->njnt; k++) MR_CHECK_NEAR(m->jnt_solref[k], mj->jnt_solref[k], 0);
  for (int k = 0; k < 5 * m->njnt; k++) MR_CHECK_NEAR(m->jnt_solimp[k], mj->jnt_solimp[k], 0);
  MR_CHECK_NEAR(m->jnt_solref[2], 0.1, 0); /* the joint's own over the class's */
  MR_CHECK_NEAR(m->jnt_solimp[5], 0.8, 0); /* the class's solimplimit, not the default */
  mr_model_free(m);
  mj_deleteModel(mj);
  if (!load_both("soft_weld.xml", &mj, &m)) return;
  for (int k = 0; k < 2; k++) MR_CHECK_NEAR(m->eq_solref[k], mj->eq_solref[k], 0);
  mr_model_free(m);
  mj_deleteModel(mj);
  if (!load_both("soft_tendon_limit.xml", &mj, &m)) return;
  for (int k = 0; k < 2; k++) MR_CHECK_NEAR(m->tendon_solref_lim[k], mj->tendon_solref_lim[k], 0);
  mr_model_free(m);
  mj_deleteModel(mj);
}

/* The inverse weights at qpos0 that scale R are MuJoCo's (mj_setM0): bodies on chains and
 * free joints, a body welded to its parent, averaged free-joint dofs, spatial and fixed
 * tendons. */
static void check_invweight0(const char *path) {
  char err[1024] = "";
  mjModel *mj = mj_loadXML(path, NULL, err, sizeof err);
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  MR_CHECK_MSG(mj && m, "%s: %s", path, err);
  if (mj && m && m->nbody == mj->nbody && m->nv == mj->nv && m->ntendon == mj->ntendon) {
    for (int k = 0; k < 2 * m->nbody; k++)
      MR_CHECK_NEAR(m->body_invweight0[k], mj->body_invweight0[k], 1e-9 * (1 + mj->body_invweight0[k]));
    for (int k = 0; k < m->nv; k++)
      MR_CHECK_NEAR(m->dof_invweight0[k], mj->dof_invweight0[k], 1e-9 * (1 + mj->dof_invweight0[k]));
    for (int k = 0; k < m->ntendon; k++)
      MR_CHECK_NEAR(m->tendon_invweight0[k], mj->tendon_invweight0[k], 1e-9 * (1 + mj->tendon_invweight0[k]));
  } else {
    MR_CHECK_MSG(0, "%s: the two models differ in size", path);
  }
  if (m) mr_model_free(m);
  if (mj) mj_deleteModel(mj);
}

int main(void) {
  const scene scenes[] = {
      {"soft_connect.xml", "anchor stretch (m)", connect_stretch, {0}, 0, 0.01, -1},
      {"soft_weld.xml", "sag (m)", weld_sag, {0}, 0, 0.01, -1},
      {"soft_weld.xml", "twist (rad)", weld_twist, {0}, 0, 0.01, -1},
      {"soft_joint_eq.xml", "coupling slack q2 - q1 (rad)", joint_slack, {0}, 0, 0.01, -1},
      {"soft_tendon_limit.xml", "tendon length past its limit", tendon_past, {0.5}, 1, 0.01, -1},
      {"soft_solreflimit.xml", "class solreflimit: past the limit (rad)", limit_past_a, {LIMIT, LIMIT}, 2, 0.01, -1},
      {"soft_solreflimit.xml", "own solreflimit: past the limit (rad)", limit_past_b, {LIMIT, LIMIT}, 2, 0.01, -1},
      {"models/tendon_limits.xml", "swinging rope past its length (m)", rope_stretch, {0}, 0, 0.01, -1},
      {"models/tendon_limits.xml", "hinges past their tendon limit (rad)", bend_over, {0}, 0, 0.01, -1},
      {"models/tendon_limits.xml", "tendon equality x3 - 2 x4 (m)", coupling, {0}, 0, 0.01, -1},
      /* motor-driven loops closed by a connect, from their keyframes */
      {"models/fourbar.xml", "crank angle (rad)", first_joint, {0}, 0, 0.01, 0},
      {"models/slider_crank.xml", "crank angle (rad)", first_joint, {0}, 0, 0.01, 0},
  };
  check_parameters();
  check_invweight0(MOREAU_SOURCE_DIR "/models/tendon_limits.xml");
  check_invweight0(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml");
  for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) check_scene(&scenes[i]);
  MR_TEST_END();
}
