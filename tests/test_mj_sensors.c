/* Sensor conformance against MuJoCo 2.2 (the oracle): the compiled sensor arrays, and every
 * sensor's value on the same state to 1e-9.
 *
 *   1. mj_sensors.xml, random states free of contacts and limits: mj_forward against
 *      mr_forward, all stages through Moreau's own pipeline (accelerations included);
 *   2. mj_contact_sensors.xml, a state with contacts and active joint limits after MuJoCo
 *      settled it: the solvers differ (soft against rigid contact), so MuJoCo's state, its
 *      qacc and its constraint forces are copied into mr_data (impulse = force x dt) and
 *      Moreau's sensor stages run on them;
 *   3. rays: mr_ray against mj_ray on random rays through the scene (the rangefinder).
 *
 * Contact forces act in Moreau at the contact's surface point (engine/core/contact_point.h)
 * and in MuJoCo at the midpoint: the copied contacts get dist 0, where the two coincide. */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "collision/ray.h"
#include "moreau.h"
#include "mr_mj_fixture.h"
#include "mr_test.h"

#define TOL 1e-9

/* Moreau's object type for MuJoCo's. */
static int object_type(int mjtype) {
  switch (mjtype) {
    case mjOBJ_BODY: return MR_OBJ_BODY;
    case mjOBJ_XBODY: return MR_OBJ_XBODY;
    case mjOBJ_JOINT: return MR_OBJ_JOINT;
    case mjOBJ_GEOM: return MR_OBJ_GEOM;
    case mjOBJ_SITE: return MR_OBJ_SITE;
    case mjOBJ_CAMERA: return MR_OBJ_CAMERA;
    case mjOBJ_ACTUATOR: return MR_OBJ_ACTUATOR;
    default: return -1;
  }
}

static void compare_arrays(const char *tag, const mjModel *mj, const mr_model *m) {
  MR_CHECK_MSG(m->nsensor == mj->nsensor, "%s nsensor %d vs %d", tag, m->nsensor, mj->nsensor);
  MR_CHECK_MSG(m->nsensordata == mj->nsensordata, "%s nsensordata %d vs %d", tag, m->nsensordata,
               mj->nsensordata);
  if (m->nsensor != mj->nsensor) return;
  for (int i = 0; i < m->nsensor; i++) {
    MR_CHECK_MSG(m->sensor_type[i] == mj->sensor_type[i], "%s sensor %d type", tag, i);
    MR_CHECK_MSG(m->sensor_dim[i] == mj->sensor_dim[i], "%s sensor %d dim", tag, i);
    MR_CHECK_MSG(m->sensor_adr[i] == mj->sensor_adr[i], "%s sensor %d adr", tag, i);
    MR_CHECK_MSG(m->sensor_needstage[i] == mj->sensor_needstage[i], "%s sensor %d stage", tag, i);
    MR_CHECK_MSG(m->sensor_datatype[i] == mj->sensor_datatype[i], "%s sensor %d datatype", tag, i);
    MR_CHECK_MSG(m->sensor_objid[i] == mj->sensor_objid[i], "%s sensor %d objid", tag, i);
    MR_CHECK_MSG(m->sensor_refid[i] == mj->sensor_refid[i], "%s sensor %d refid", tag, i);
    if (mj->sensor_type[i] != mjSENS_CLOCK)
      MR_CHECK_MSG(m->sensor_objtype[i] == object_type(mj->sensor_objtype[i]), "%s sensor %d objtype", tag, i);
    MR_CHECK_MSG(m->sensor_cutoff[i] == mj->sensor_cutoff[i], "%s sensor %d cutoff", tag, i);
    const char *name = mj_id2name(mj, mjOBJ_SENSOR, i);
    MR_CHECK_MSG(strcmp(mr_id2name(m, MR_OBJ_SENSOR, i), name ? name : "") == 0, "%s sensor %d name", tag, i);
  }
}

/* Every sensor value; returns the largest difference relative to max(1, |value|). */
static double compare_values(const char *tag, const mjModel *mj, const mjData *md, const mr_model *m,
                             const mr_data *d) {
  double worst = 0;
  for (int i = 0; i < mj->nsensor && i < m->nsensor; i++) {
    int adr = mj->sensor_adr[i];
    for (int k = 0; k < mj->sensor_dim[i]; k++) {
      double a = d->sensordata[adr + k], b = md->sensordata[adr + k];
      double err = fabs(a - b) / fmax(1, fabs(b));
      worst = fmax(worst, err);
      MR_CHECK_MSG(err <= TOL, "%s sensor %s[%d]: moreau %.15g mujoco %.15g", tag,
                   mj_id2name(mj, mjOBJ_SENSOR, i), k, a, b);
    }
  }
  return worst;
}

/* A deterministic pseudo-random number in [-1, 1). */
static double noise(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (double)(*state >> 8) / (double)(1u << 23) - 1;
}

/* Random state away from contacts and joint limits: positions near the initial ones,
 * velocities, controls and a force and torque on one body. */
static void random_state(const mjModel *mj, mjData *md, unsigned *seed) {
  mj_resetData(mj, md);
  for (int j = 0; j < mj->njnt; j++) {
    int a = mj->jnt_qposadr[j];
    switch (mj->jnt_type[j]) {
      case mjJNT_FREE:
        for (int k = 0; k < 3; k++) md->qpos[a + k] += 0.3 * noise(seed);
        for (int k = 3; k < 7; k++) md->qpos[a + k] += 0.4 * noise(seed);
        mju_normalize4(md->qpos + a + 3);
        break;
      case mjJNT_BALL:
        for (int k = 0; k < 4; k++) md->qpos[a + k] = (k == 0) + 0.25 * noise(seed);
        mju_normalize4(md->qpos + a);
        break;
      default: { /* inside the range, clear of the margins */
        double lo = mj->jnt_range[2 * j], hi = mj->jnt_range[2 * j + 1], m = mj->jnt_margin[j];
        double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo) - m - 0.02;
        md->qpos[a] = mj->jnt_limited[j] ? mid + 0.9 * half * noise(seed) : 0.5 * noise(seed);
      }
    }
  }
  for (int i = 0; i < mj->nv; i++) md->qvel[i] = 2 * noise(seed);
  for (int i = 0; i < mj->nu; i++) md->ctrl[i] = 3 * noise(seed);
  for (int k = 0; k < 6; k++) md->xfrc_applied[6 * 2 + k] = 5 * noise(seed);
  md->time = 1.25;
}

static void copy_state(const mjModel *mj, const mjData *md, const mr_model *m, mr_data *d) {
  memcpy(d->qpos, md->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(d->qvel, md->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(d->ctrl, md->ctrl, sizeof(double) * (size_t)m->nu);
  memcpy(d->xfrc_applied, md->xfrc_applied, sizeof(double) * 6 * (size_t)m->nbody);
  d->time = md->time;
  (void)mj;
}

/* 1: the whole pipeline on states without constraints. */
static void check_free_states(void) {
  mjModel *mj;
  mr_model *m;
  if (!load_both("mj_sensors.xml", &mj, &m)) goto done;
  compare_arrays("sensors", mj, m);
  if (m->nsensor != mj->nsensor) goto done;
  mjData *md = mj_makeData(mj);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(md && d);
  unsigned seed = 12345;
  double worst = 0;
  int states = 0;
  for (int trial = 0; trial < 40; trial++) {
    random_state(mj, md, &seed);
    mj_forward(mj, md);
    if (md->nefc > 0) continue; /* a contact or a limit after all: not this test's state */
    copy_state(mj, md, m, d);
    mr_forward(m, d);
    char tag[64];
    snprintf(tag, sizeof tag, "state %d", trial);
    worst = fmax(worst, compare_values(tag, mj, md, m, d));
    states++;
  }
  MR_CHECK_MSG(states >= 20, "only %d of 40 random states were free of constraints", states);
  printf("sensors: %d states, %d sensors (%d numbers), worst relative difference %.3g\n", states,
         m->nsensor, m->nsensordata, worst);
  mj_deleteData(md);
  mr_data_free(d);
done:
  if (mj) mj_deleteModel(mj);
  mr_model_free(m);
}

/* MuJoCo's contacts and limit forces into d, as impulses of one step. */
static void copy_constraints(const mjModel *mj, mjData *md, const mr_model *m, mr_data *d) {
  double dt = d->opt.timestep;
  d->ncon = md->ncon < d->maxcon ? md->ncon : d->maxcon;
  for (int k = 0; k < d->ncon; k++) {
    const mjContact *src = &md->contact[k];
    mr_contact *c = &d->contact[k];
    memset(c, 0, sizeof *c);
    c->geom1 = src->geom1;
    c->geom2 = src->geom2;
    c->body1 = m->geom_bodyid[c->geom1];
    c->body2 = m->geom_bodyid[c->geom2];
    memcpy(c->pos, src->pos, sizeof c->pos);
    memcpy(c->frame, src->frame, sizeof c->frame);
    c->dist = 0; /* Moreau's point of action is the midpoint then, as MuJoCo's */
    double f[6];
    mj_contactForce(mj, md, k, f);
    for (int a = 0; a < 3; a++) c->impulse[a] = f[a] * dt;
  }
  memset(d->limit_impulse, 0, 2 * sizeof(double) * (size_t)m->njnt);
  for (int i = 0; i < md->nefc; i++) {
    if (md->efc_type[i] != mjCNSTR_LIMIT_JOINT) continue;
    int j = md->efc_id[i];
    double q = md->qpos[mj->jnt_qposadr[j]];
    int upper = mj->jnt_range[2 * j + 1] - q < q - mj->jnt_range[2 * j];
    d->limit_impulse[2 * j + upper] += md->efc_force[i] * dt;
  }
}

/* 2: contact and limit sensors on MuJoCo's constraint forces. */
static void check_contact_state(void) {
  mjModel *mj;
  mr_model *m;
  if (!load_both("mj_contact_sensors.xml", &mj, &m)) goto done;
  compare_arrays("contact sensors", mj, m);
  mjData *md = mj_makeData(mj);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(md && d);
  md->qpos[mj->jnt_qposadr[1]] = 0.25;  /* the pole starts near its upper limit */
  for (int i = 0; i < 400; i++) mj_step(mj, md);
  mj_forward(mj, md);
  int limits = 0;
  for (int i = 0; i < md->nefc; i++) limits += md->efc_type[i] == mjCNSTR_LIMIT_JOINT;
  MR_CHECK_MSG(md->ncon >= 4 && limits >= 2, "MuJoCo's settled state has %d contacts and %d limits "
               "(want the block's 4 and both joints at a limit)", md->ncon, limits);
  copy_state(mj, md, m, d);
  mr_kinematics(m, d);
  mr_bias_forces(m, d);
  mr_actuator_forces(m, d);
  mr_sensors(m, d, MR_STAGE_POS);
  mr_sensors(m, d, MR_STAGE_VEL);
  memcpy(d->qacc, md->qacc, sizeof(double) * (size_t)m->nv);
  copy_constraints(mj, md, m, d);
  mr_sensors(m, d, MR_STAGE_ACC);
  double worst = compare_values("contact state", mj, md, m, d);
  /* the touch zones are not empty: the comparison saw real forces */
  int touch = mj_name2id(mj, mjOBJ_SENSOR, "touch_bottom"), corner = mj_name2id(mj, mjOBJ_SENSOR, "touch_corner");
  int limfrc = mj_name2id(mj, mjOBJ_SENSOR, "limfrc_hinge");
  MR_CHECK_MSG(md->sensordata[mj->sensor_adr[touch]] > 15, "touch_bottom %g (the block weighs 19.6 N)",
               md->sensordata[mj->sensor_adr[touch]]);
  MR_CHECK(md->sensordata[mj->sensor_adr[corner]] > 0);
  MR_CHECK(md->sensordata[mj->sensor_adr[corner]] < md->sensordata[mj->sensor_adr[touch]]);
  MR_CHECK(md->sensordata[mj->sensor_adr[limfrc]] > 0);
  printf("contact sensors: %d contacts, %d limit rows, worst relative difference %.3g\n", md->ncon,
         limits, worst);
  mj_deleteData(md);
  mr_data_free(d);
done:
  if (mj) mj_deleteModel(mj);
  mr_model_free(m);
}

/* 3: rays through the sensor fixture's scene (all primitives and the world's mesh). */
static void check_rays(void) {
  mjModel *mj;
  mr_model *m;
  if (!load_both("mj_sensors.xml", &mj, &m)) {
    if (mj) mj_deleteModel(mj);
    mr_model_free(m);
    return;
  }
  mjData *md = mj_makeData(mj);
  mr_data *d = mr_data_create(m);
  mj_forward(mj, md);
  mr_kinematics(m, d);
  unsigned seed = 99;
  int hits = 0, hit_geom[64] = {0};
  for (int i = 0; i < 4000; i++) {
    double p[3], v[3];
    for (int k = 0; k < 3; k++) p[k] = 1.5 * noise(&seed), v[k] = noise(&seed);
    int g_mj = -1, g_mr = -1;
    double x_mj = mj_ray(mj, md, p, v, NULL, 1, -1, &g_mj);
    double x_mr = mr_ray(m, d, p, v, -1, &g_mr);
    /* mesh vertices are floats in MuJoCo: float precision on the mesh */
    double tol = (g_mj >= 0 && mj->geom_type[g_mj] == mjGEOM_MESH) ? 1e-6 : TOL;
    MR_CHECK_MSG(g_mj == g_mr && fabs(x_mj - x_mr) <= tol * fmax(1, fabs(x_mj)),
                 "ray %d: mujoco geom %d at %.12g, moreau geom %d at %.12g", i, g_mj, x_mj, g_mr, x_mr);
    if (g_mj >= 0 && g_mj < 64) hit_geom[g_mj]++, hits++;
  }
  int kinds = 0;
  for (int g = 0; g < mj->ngeom && g < 64; g++) kinds += hit_geom[g] > 0;
  MR_CHECK_MSG(kinds >= 8, "the rays met only %d of the %d geoms", kinds, mj->ngeom);
  printf("rays: 4000 cast, %d hits on %d geoms\n", hits, kinds);
  mj_deleteData(md);
  mr_data_free(d);
  mj_deleteModel(mj);
  mr_model_free(m);
}

int main(void) {
  check_free_states();
  check_contact_state();
  check_rays();
  MR_TEST_END();
}
