/* Resting contact with the default solver (issue 15): stacks and a box on its four corners
 * converge on nearly every step and stay at rest to the micrometre, so do papers/004's
 * Clutter heap once settled (one island of a few hundred rows) and a heap of 72 objects
 * (one island of more), an arm falling onto itself gains no energy, and a real robot's
 * self-contacts (ur5 from ../shared, fixed base) never blow up. The measures are taken
 * from the engine's own per-step metrics (the NCP natural-map residual of
 * engine/constraint/metrics.c, computed from the impulses the solver returned, and the
 * start-of-step energy) and from the positions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau.h"
#include "mr_test.h"
#include "mr_test_model.h"


static const char *stack3_xml =
    "<mujoco model='stack3'>\n"
    "  <option timestep='0.001'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 0.1'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.3'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.5'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static const char *box_xml =
    "<mujoco model='box'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 0.1005'><freejoint/><geom type='box' size='.15 .1 .1' mass='2'/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* The run's counts and the largest residual over the steps that had contacts. */
typedef struct rest_stats {
  int steps, contact_steps, unconverged;
  long iters;
  double max_natural, max_speed;
} rest_stats;

static void rest_step(const mr_model *m, mr_data *d, rest_stats *s) {
  MR_REQUIRE(mr_step(m, d) == 0);
  s->steps++;
  if (d->ncon == 0) return;
  s->contact_steps++;
  s->unconverged += d->solver_status != 0;
  s->iters += d->solver_iters;
  if (d->metrics.natural_map > s->max_natural) s->max_natural = d->metrics.natural_map;
}

static double max_speed(const mr_model *m, const mr_data *d) {
  double v = 0;
  for (int i = 0; i < m->nv; i++) v = fmax(v, fabs(d->qvel[i]));
  return v;
}

/* A resting scene, run for `duration` s: converged on at least 99% of its contact steps,
 * natural map below 1e-6 on every one, every body within 10 um of where it was at
 * `settled` s, and no speed above 1e-3 at the end. At rest the solver's warm start is
 * last step's answer: from `settled` on it may take at most `max_iters` iterations per
 * step on average (newton's rest step, MR_NEWTON_EPS_REST, keeps the warm start within
 * the tolerance instead of throwing it out to be solved again). */
static void check_rest(const char *name, const char *xml, double settled, double duration,
                       double max_iters) {
  mr_model *m = mr_test_load_xml(xml);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  rest_stats s = {0};
  while (d->time < settled - 1e-9) rest_step(m, d, &s);
  double *q = malloc((size_t)m->nq * sizeof(double)), moved = 0;
  memcpy(q, d->qpos, (size_t)m->nq * sizeof(double));
  rest_stats resting = s;
  while (d->time < duration - 1e-9) {
    rest_step(m, d, &s);
    for (int b = 1; b < m->nbody; b++) {
      const double *p = d->qpos + m->jnt_qposadr[m->body_jntadr[b]];
      const double *p0 = q + m->jnt_qposadr[m->body_jntadr[b]];
      moved = fmax(moved, sqrt((p[0] - p0[0]) * (p[0] - p0[0]) + (p[1] - p0[1]) * (p[1] - p0[1]) +
                               (p[2] - p0[2]) * (p[2] - p0[2])));
    }
  }
  double speed = max_speed(m, d);
  double rest_iters = (double)(s.iters - resting.iters) / (s.steps - resting.steps);
  printf("%s, %s, %g s: %d of %d contact steps not converged, max natural map %.2e, moved %.2e m "
         "after %g s, final max |qvel| %.2e, %.2f iterations per step at rest\n", name,
         mr_solver_name(mr_solver_default()), duration, s.unconverged, s.contact_steps,
         s.max_natural, moved, settled, speed, rest_iters);
  MR_CHECK(s.contact_steps > s.steps / 2);
  MR_CHECK_MSG(s.unconverged <= s.contact_steps / 100, "%s: %d of %d steps not converged", name,
               s.unconverged, s.contact_steps);
  MR_CHECK_MSG(s.max_natural < 1e-6, "%s: natural-map residual %.3g", name, s.max_natural);
  MR_CHECK_MSG(moved < 10e-6, "%s: moved %.3g m at rest", name, moved);
  MR_CHECK_MSG(speed < 1e-3, "%s: |qvel| %.3g at rest", name, speed);
  MR_CHECK_MSG(rest_iters <= max_iters, "%s: %.2f iterations per step at rest", name, rest_iters);
  free(q);
  mr_data_free(d);
  mr_model_free(m);
}

/* A three-link arm starting folded over itself, falling: its third link strikes its first
 * (a self-contact across two joints). Passive and slightly damped at dt = 0.5 ms, its energy
 * may not rise by 1e-3 of its magnitude in any step. */
static const char *arm_xml =
    "<mujoco model='arm_fold'>\n"
    "  <option timestep='0.0005'/>\n"
    "  <default><joint damping='0.01'/><geom type='capsule' size='0.04' density='500'/></default>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'><joint type='hinge' axis='0 1 0'/><geom fromto='0 0 0 .4 0 0'/>\n"
    "      <body pos='.4 0 0'><joint type='hinge' axis='0 1 0'/><geom fromto='0 0 0 .4 0 0'/>\n"
    "        <body pos='.4 0 0'><joint type='hinge' axis='0 1 0'/><geom fromto='0 0 0 .4 0 0'/>\n"
    "        </body>\n"
    "      </body>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "  <keyframe><key qpos='0.3 2.5 2.5'/></keyframe>\n"
    "</mujoco>\n";

/* Steps with contacts, the worst per-step energy rise relative to the energy's magnitude,
 * the largest solver residual. */
static void energy_run(const mr_model *m, mr_data *d, int steps, int *contact_steps,
                       double *worst_rise, double *max_residual) {
  MR_REQUIRE(mr_step(m, d) == 0);
  double e0 = d->metrics.energy, e = e0;
  *contact_steps = 0;
  *worst_rise = *max_residual = 0;
  for (int k = 1; k < steps; k++) {
    MR_REQUIRE(mr_step(m, d) == 0);
    double e1 = d->metrics.energy;
    *worst_rise = fmax(*worst_rise, (e1 - e) / fmax(fabs(e), fabs(e0)));
    e = e1;
    *contact_steps += d->ncon > 0;
    *max_residual = fmax(*max_residual, d->solver_residual);
  }
}

/* Runs `steps` steps and checks the energy never rose by 1e-3 of its magnitude in one, that
 * self-contact happened on at least 100 of them, and that the residual stayed under
 * max_residual. */
static void check_no_energy_gain(const char *name, const mr_model *m, mr_data *d, int steps,
                                 double max_residual) {
  int contacts;
  double rise, residual;
  energy_run(m, d, steps, &contacts, &rise, &residual);
  printf("%s, %d steps: %d with self-contact, worst energy rise %.2e of |E| per step, max "
         "residual %.2e\n", name, steps, contacts, rise, residual);
  MR_CHECK(contacts >= 100);
  MR_CHECK_MSG(rise <= 1e-3, "%s: energy rose by %.3g of its magnitude in a step", name, rise);
  MR_CHECK_MSG(residual <= max_residual, "%s: residual %.3g", name, residual);
}

static void test_arm_onto_itself(void) {
  mr_model *m = mr_test_load_xml(arm_xml);
  MR_REQUIRE(m && m->nkey == 1);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d && mr_data_reset_keyframe(m, d, 0) == 0);
  check_no_energy_gain("arm falling onto itself", m, d, 5000, 1e-6);
  mr_data_free(d);
  mr_model_free(m);
}

/* ur5 (fixed base) falls passively from qpos0 for 1 s and strikes itself: it used to gain
 * 1e7 J from one self-contact (residual 9.5e11). Its transmissions make servos whose
 * damping would hide a gain, so actuation and passive forces are off. Its SRDF excludes
 * the pair that strikes (base and upper arm), so self-collision is on; and semi-implicit
 * Euler alone gains 1.3e-3 of |E| per step on this arm without any contact, so the
 * midpoint integrator steps it. */
static void test_ur5_self_contact(void) {
  const char *path = MOREAU_SHARED_DIR "/models/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";
  char err[1024];
  mr_load_options opt = {.package_path = MOREAU_SHARED_DIR "/models", .quiet = 1,
                         .self_collision = MR_ON};
  mr_model *m = mr_model_load(path, &opt, err, sizeof err);
  MR_REQUIRE(m != NULL);
  m->opt.disable |= MR_DISABLE_ACTUATION | MR_DISABLE_PASSIVE;
  m->opt.integrator = MR_INT_MIDPOINT;
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  check_no_energy_gain("ur5 falling", m, d, 1000, 1.0);
  mr_data_free(d);
  mr_model_free(m);
}

/* A heap from a model file stepped to `end`, the steps from `from` on counted into st, the
 * largest row count of a step into *rows (the island size newton's rules read is internal;
 * a heap's rows are nearly all one island). */
static void heap_run(const char *file, double from, double end, rest_stats *st, int *rows) {
  mr_model *m = mr_test_load(file, NULL);
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  *rows = 0;
  while (d->time < end - 1e-9) {
    if (d->time < from - 1e-9) {
      MR_REQUIRE(mr_step(m, d) == 0);
      continue;
    }
    rest_step(m, d, st);
    *rows = d->nefc > *rows ? d->nefc : *rows;
  }
  mr_data_free(d);
  mr_model_free(m);
}

/* papers/004's Clutter scene (models/clutter.xml: forty boxes and spheres dropped into a
 * bin, dt = 10 ms) from the time it has settled: its objects' contacts join them into one
 * island of a few hundred rows, once left to pgs by newton (3.5% of these steps at the
 * cap, natural map up to 2.6e-5), now finished by newton's warm path (MR_NEWTON_PGS_ROWS).
 * The steps are counted from where the heap has come to rest, 4.5 s to 25 s. */
static void test_settled_clutter(void) {
  rest_stats st = {0};
  int rows;
  heap_run(MR_TEST_MODEL("clutter.xml"), 4.5, 25.0, &st, &rows);
  MR_CHECK(st.steps == 2050);
  MR_CHECK_MSG(rows > 240, "the settled heap has %d rows: not one large island", rows);
  MR_CHECK_MSG(st.unconverged <= st.steps / 100, "%d of %d settled steps short of the tolerance",
               st.unconverged, st.steps);
}

/* A heap above MR_NEWTON_PGS_ROWS (models/pile72.xml: 72 mixed primitives two or three deep
 * in a bin, one island of more than 400 rows once they land, with cylinders that keep
 * rolling in its hollows): newton used to take only the warm path on such an island and
 * hand it to pgs whenever that missed, which it did on nearly every step (737 of these 750
 * at the cap, natural map up to 4.8e-4). Now the island restarts soft as any other. The
 * steps are counted from 3.5 s, once the objects have landed. */
static void test_settled_heap(void) {
  rest_stats st = {0};
  int rows;
  heap_run(MR_TEST_MODEL("pile72.xml"), 3.5, 5.0, &st, &rows);
  MR_CHECK(st.steps == 750);
  MR_CHECK_MSG(rows > 400, "the heap has %d rows: not one island above MR_NEWTON_PGS_ROWS", rows);
  MR_CHECK_MSG(st.unconverged <= st.steps / 100, "%d of %d steps of the heap short of the tolerance",
               st.unconverged, st.steps);
  MR_CHECK_MSG(st.max_natural < 1e-6, "natural map %.2e on the heap at rest", st.max_natural);
}

int main(void) {
  test_settled_clutter();
  test_settled_heap();
  check_rest("three-box stack", stack3_xml, 1.0, 5.0, 0.35);
  check_rest("box on four corners", box_xml, 5.0, 10.0, 0.6);
  test_arm_onto_itself();
  test_ur5_self_contact();
  MR_TEST_END();
}
