/* mr_step allocates nothing: this executable is linked with --wrap=malloc,calloc,realloc,
 * free (tests/CMakeLists.txt), so every call from libmoreau lands in the counters below
 * before reaching the C library. */
#include <stddef.h>
#include <string.h>

#include "moreau.h"
#include "mr_test.h"
#include "engine/io/spec.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);

static long allocations = 0, frees = 0;

void *__wrap_malloc(size_t size) {
  allocations++;
  return __real_malloc(size);
}
void *__wrap_calloc(size_t n, size_t size) {
  allocations++;
  return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t size) {
  allocations++;
  return __real_realloc(p, size);
}
void __wrap_free(void *p) {
  if (p) frees++;
  __real_free(p);
}

/* Every stage busy: a floating base, ball/hinge/slide joints, springs, damping (implicit
 * Euler path), armature, actuators with clamping, applied forces, and enough bodies
 * (300) that per-body scratch exceeds any small-size fast path. */
static mr_model *build_model(void) {
  mr_spec *s = mr_spec_create("no_alloc");
  mr_source src = {"no_alloc", 0};
  const int types[] = {MR_JOINT_FREE, MR_JOINT_BALL, MR_JOINT_HINGE, MR_JOINT_SLIDE};
  for (int i = 0; i < 300; i++) {
    /* a ternary tree (shallow: the step stays cheap) with a second root at i = 150 */
    int parent = i == 0 || i == 150 ? 0 : 1 + (i - 1) / 3;
    int b = mr_spec_add_body(s, parent, src);
    mr_spec_body *body = &s->bodies[b];
    body->pos[0] = 0.1;
    body->has_inertial = 1;
    body->mass = 1;
    body->inertia[0] = body->inertia[1] = body->inertia[2] = 0.01;
    body->ipos[2] = 0.05;
    int type = i == 0 ? MR_JOINT_FREE : i == 150 ? MR_JOINT_HINGE : types[1 + i % 3];
    int j = mr_spec_add_joint(s, b, src);
    s->joints[j].type = type;
    s->joints[j].axis[1] = 1;
    s->joints[j].damping = 0.1;
    s->joints[j].stiffness = 0.5;
    s->joints[j].armature = 0.01;
    if (type == MR_JOINT_HINGE) {
      int u = mr_spec_add_actuator(s, src);
      mr_spec_actuator *a = &s->actuators[u];
      a->kind = MR_ACT_POSITION;
      a->joint = j;
      a->gear[0] = 1;
      a->ctrllimited = a->forcelimited = 1;
      a->ctrlrange[0] = a->forcerange[0] = -1;
      a->ctrlrange[1] = a->forcerange[1] = 1;
      a->gainprm[0] = 5;
      a->biasprm[1] = -5;
    }
  }
  char err[512];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  if (!m) fprintf(stderr, "compile: %s\n", err);
  mr_spec_free(s);
  return m;
}

static long count_step_allocations(const mr_model *m, mr_data *d, int steps) {
  long before = allocations + frees;
  for (int k = 0; k < steps; k++) mr_step(m, d);
  return allocations + frees - before;
}

/* Counted steps per (solver, integrator) pair: enough for warm starts, persistence and the
 * solvers' iteration loops to run, few enough for the sanitizer build (stagproj on the
 * humanoid is the slowest pair). */
#ifdef MOREAU_SANITIZED
#define HUMANOID_STEPS 20
#define ROW_MODEL_STEPS 50
#else
#define HUMANOID_STEPS 60
#define ROW_MODEL_STEPS 200
#endif

/* Every registered solver under both integrators, continuing from d's state, `steps`
 * counted steps each. Every step must solve rows (and find contacts if need_contacts), or
 * the pair would prove nothing about the solver. */
static void every_solver(const mr_model *m, mr_data *d, const char *name, int steps,
                         int need_contacts) {
  static const char *const integrators[2] = {"euler", "midpoint"};
  const int integ[2] = {MR_INT_EULER, MR_INT_MIDPOINT};
  MR_REQUIRE(mr_solver_count() >= 9);
  for (int s = 0; s < mr_solver_count(); s++)
    for (int i = 0; i < 2; i++) {
      d->opt.solver = s;
      d->opt.integrator = integ[i];
      long before = allocations + frees;
      int failed = 0, rowless = 0, contactless = 0;
      for (int k = 0; k < steps; k++) {
        failed += mr_step(m, d) != 0;
        rowless += d->nefc == 0;
        contactless += d->ncon == 0;
      }
      long n = allocations + frees - before;
      MR_CHECK_MSG(n == 0, "%s, %s, %s: %ld heap calls in %d steps", name, mr_solver_name(s),
                   integrators[i], n, steps);
      MR_CHECK_MSG(!failed && !rowless && (!need_contacts || !contactless),
                   "%s, %s, %s: %d failed steps, %d without rows, %d without contacts", name,
                   mr_solver_name(s), integrators[i], failed, rowless, contactless);
    }
  printf("%s: every solver (%d) under euler and midpoint, %d steps each, no heap call\n", name,
         mr_solver_count(), steps);
}

int main(void) {
  mr_model *m = build_model();
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  MR_CHECK(allocations > 0); /* the wrapper is really in place */

  for (int u = 0; u < m->nu; u++) d->ctrl[u] = 0.5 * ((u % 5) - 2);
  for (int b = 1; b < m->nbody; b += 7) d->xfrc_applied[6 * b + 2] = 0.3;
  for (int i = 0; i < m->nv; i += 3) d->qfrc_applied[i] = 0.1;
  long n = count_step_allocations(m, d, 1000);
  printf("spec model (nv %d): %ld allocations or frees in 1000 steps\n", m->nv, n);
  MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step", n);

  /* the midpoint integrator's stages must not allocate either */
  d->opt.integrator = MR_INT_MIDPOINT;
  n = count_step_allocations(m, d, 100);
  MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step (midpoint)", n);
  mr_data_free(d);
  mr_model_free(m);

  /* a real robot: smooth, then falling onto the floor with contacts and joint limits, then
   * lying there under every solver and both integrators */
  char err[512] = "";
  mr_model *h = mr_model_load(MUJOCO_MODEL_DIR "/humanoid/humanoid.xml", NULL, err, sizeof err);
  MR_REQUIRE_MSG(h != NULL, "the humanoid is required: %s", err);
  mr_data *hd = mr_data_create(h);
  MR_REQUIRE(hd != NULL);
  hd->opt.disable |= MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT;
  n = count_step_allocations(h, hd, 1000);
  printf("humanoid (nv %d): %ld allocations or frees in 1000 steps\n", h->nv, n);
  MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step on the humanoid", n);
  mr_data_reset(h, hd);
  hd->opt.disable &= ~(MR_DISABLE_CONTACT | MR_DISABLE_CONSTRAINT);
  n = count_step_allocations(h, hd, 1000);
  MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step on the humanoid with contacts", n);
  MR_CHECK_MSG(hd->ncon >= 4, "the humanoid lies on the floor on %d contacts only", hd->ncon);
  every_solver(h, hd, "humanoid", HUMANOID_STEPS, 1);
  mr_data_free(hd);
  mr_model_free(h);

  /* equalities (a connect closing a loop, a tendon equality) and limits (tendon limits)
   * under every solver and both integrators: rows on every step, no contacts needed */
  const char *row_models[] = {MOREAU_SOURCE_DIR "/models/fourbar.xml",
                              MOREAU_SOURCE_DIR "/models/tendon_limits.xml"};
  for (int k = 0; k < 2; k++) {
    mr_model *rm = mr_model_load(row_models[k], NULL, err, sizeof err);
    MR_REQUIRE_MSG(rm != NULL, "%s: %s", row_models[k], err);
    MR_CHECK_MSG(rm->neq > 0, "%s has no equality", row_models[k]);
    mr_data *rd = mr_data_create(rm);
    MR_REQUIRE(rd != NULL);
    for (int u = 0; u < rm->nu; u++) rd->ctrl[u] = 1;
    every_solver(rm, rd, strrchr(row_models[k], '/') + 1, ROW_MODEL_STEPS, 0);
    mr_data_free(rd);
    mr_model_free(rm);
  }

  /* tendons (wrapping, pulleys, limits, equalities), muscles, site and crank transmissions,
   * activations, with both integrators */
  const char *tendon_models[] = {MOREAU_SOURCE_DIR "/models/tendon_wrap.xml",
                                 MOREAU_SOURCE_DIR "/models/tendon_limits.xml",
                                 MOREAU_SOURCE_DIR "/models/site_thrusters.xml",
                                 MUJOCO_MODEL_DIR "/slider_crank/slider_crank.xml"};
  for (int k = 0; k < 4; k++) {
    mr_model *tm = mr_model_load(tendon_models[k], NULL, err, sizeof err);
    MR_REQUIRE_MSG(tm != NULL, "%s: %s", tendon_models[k], err);
    mr_data *td = mr_data_create(tm);
    MR_REQUIRE(td != NULL);
    for (int u = 0; u < tm->nu; u++) td->ctrl[u] = 0.3 + 0.1 * u;
    n = count_step_allocations(tm, td, 500);
    td->opt.integrator = MR_INT_MIDPOINT;
    n += count_step_allocations(tm, td, 100);
    printf("%s: %ld allocations or frees in 600 steps\n", strrchr(tendon_models[k], '/') + 1, n);
    MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step on %s", n, tendon_models[k]);
    mr_data_free(td);
    mr_model_free(tm);
  }
  /* every sensor type (rangefinders over primitives and a mesh), through both
   * integrators, and the sensors of a state between steps */
  mr_model *sm = mr_model_load(MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_sensors.xml", NULL, err, sizeof err);
  MR_REQUIRE_MSG(sm != NULL, "mj_sensors.xml: %s", err);
  {
    mr_data *sd = mr_data_create(sm);
    MR_REQUIRE(sd != NULL);
    long before = allocations + frees;
    for (int k = 0; k < 500; k++) {
      sd->opt.integrator = k < 250 ? MR_INT_EULER : MR_INT_MIDPOINT;
      mr_step(sm, sd);
      mr_sensors_state(sm, sd);
    }
    n = allocations + frees - before;
    MR_CHECK_MSG(n == 0, "%ld heap calls in mr_step or mr_sensors_state with sensors", n);
    mr_data_free(sd);
    mr_model_free(sm);
  }
  MR_TEST_END();
}
