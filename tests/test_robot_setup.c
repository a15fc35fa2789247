/* Real robots out of the box, on small fixtures (tests/data/robot, tests/data/urdf): the
 * link named world, SRDF states as keyframes (Pinocchio's quaternion order, qpos0 for the
 * joints a state leaves out, the floor for a state without a base pose), the default SRDF
 * lookup, the floor, actuators from <transmission> and <ros2_control>, --hold, and servo
 * gains checked against the mass matrix and the inertias computed here from body data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/robot/robot.h"
#include "mr_cli.h"
#include "mr_test.h"
#include "mr_test_model.h"
#include "moreau.h"

#define DATA MOREAU_SOURCE_DIR "/tests/data/"
#define BIPED DATA "robot/biped.urdf"

static char tmpdir[256];


static int floor_geom(const mr_model *m) {
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_bodyid[g] == 0 && m->geom_type[g] == MR_GEOM_PLANE &&
        strcmp(mr_id2name(m, MR_OBJ_GEOM, g), "floor") == 0)
      return g;
  return -1;
}

static int qadr(const mr_model *m, const char *joint) {
  int j = mr_name2id(m, MR_OBJ_JOINT, joint);
  MR_REQUIRE(j >= 0);
  return m->jnt_qposadr[j];
}

/* ------------------------------------------------------------------ world link */

static void test_world_link(void) {
  mr_model *m = mr_test_load(DATA "urdf/world.urdf", NULL);
  MR_REQUIRE(m);
  MR_CHECK(m->nbody == 3 && m->nv == 1);
  MR_CHECK(strcmp(mr_id2name(m, MR_OBJ_BODY, 0), "world") == 0);
  int named_world = 0;
  for (int b = 0; b < m->nbody; b++) named_world += strcmp(mr_id2name(m, MR_OBJ_BODY, b), "world") == 0;
  MR_CHECK(named_world == 1);
  int base = mr_name2id(m, MR_OBJ_BODY, "base");
  MR_CHECK(base == 1 && m->body_parentid[base] == 0 && m->body_jntnum[base] == 0);
  MR_CHECK_NEAR(m->body_pos[3 * base + 2], 0.5, 0);
  MR_CHECK(floor_geom(m) < 0); /* a fixed base: no floor by default */
  mr_model_free(m);
  /* --floating: what is fixed to the world floats instead */
  m = mr_test_load(DATA "urdf/world.urdf", &(mr_load_options){.floating = 1});
  MR_REQUIRE(m);
  MR_CHECK(m->nbody == 3 && m->nv == 7 && m->jnt_type[0] == MR_JOINT_FREE);
  MR_CHECK(m->jnt_bodyid[0] == 1);
  MR_CHECK(floor_geom(m) >= 0);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ the floor */

static void test_floor(void) {
  mr_model *m = mr_test_load(BIPED, NULL);
  MR_CHECK(m && floor_geom(m) < 0);
  mr_model_free(m);
  m = mr_test_load(BIPED, &(mr_load_options){.floor = MR_ON});
  MR_CHECK(m && floor_geom(m) >= 0);
  mr_model_free(m);
  m = mr_test_load(BIPED, &(mr_load_options){.floating = 1});
  int g = m ? floor_geom(m) : -1;
  MR_CHECK(g >= 0);
  if (g >= 0) {
    MR_CHECK(m->geom_contype[g] == 1 && m->geom_conaffinity[g] == 1);
    MR_CHECK(m->geom_pos[3 * g + 2] == 0 && m->geom_quat[4 * g] == 1);
  }
  mr_model_free(m);
  m = mr_test_load(BIPED, &(mr_load_options){.floating = 1, .floor = MR_OFF});
  MR_CHECK(m && floor_geom(m) < 0);
  mr_model_free(m);
  /* MJCF keeps the world its file describes, free joints or not; free_body.xml has a floor
   * named floor, so the one --floor adds is moreau_floor */
  mr_model *mine = mr_test_load(MOREAU_SOURCE_DIR "/models/free_body.xml", NULL);
  m = mr_test_load(MOREAU_SOURCE_DIR "/models/free_body.xml", &(mr_load_options){.floor = MR_ON});
  MR_REQUIRE(mine && m);
  MR_CHECK(mine->jnt_type[0] == MR_JOINT_FREE && mr_name2id(mine, MR_OBJ_GEOM, "moreau_floor") < 0);
  MR_CHECK(m->ngeom == mine->ngeom + 1 && mr_name2id(m, MR_OBJ_GEOM, "moreau_floor") >= 0);
  mr_model_free(mine);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ poses */

/* The lowest point of the robot's collision geometry, from the geoms' world boxes and
 * cylinders worked out here (boxes by their corners, cylinders by their rim). */
static double lowest_by_hand(const mr_model *m, const mr_data *d) {
  double lowest = HUGE_VAL;
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == 0 || m->geom_contype[g] == 0) continue;
    const double *R = d->geom_xmat + 9 * g, *s = m->geom_size + 3 * g;
    double z = d->geom_xpos[3 * g + 2];
    if (m->geom_type[g] == MR_GEOM_BOX) {
      z -= fabs(R[6]) * s[0] + fabs(R[7]) * s[1] + fabs(R[8]) * s[2];
    } else if (m->geom_type[g] == MR_GEOM_CYLINDER) {
      double az = R[8]; /* z of the cylinder's axis */
      z -= fabs(az) * s[1] + s[0] * sqrt(fmax(0, 1 - az * az));
    } else {
      MR_CHECK_MSG(0, "geom %d: unexpected type %d in the biped", g, m->geom_type[g]);
    }
    lowest = fmin(lowest, z);
  }
  return lowest;
}

static void test_states(void) {
  mr_model *m = mr_test_load(BIPED, &(mr_load_options){.floating = 1});
  MR_REQUIRE(m);
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  MR_CHECK(m->nkey == 2);
  int turned = mr_name2id(m, MR_OBJ_KEY, "turned"), crouch = mr_name2id(m, MR_OBJ_KEY, "crouch");
  MR_REQUIRE(turned >= 0 && crouch >= 0);

  /* qpos0 of a floating URDF robot is lifted out of the floor onto it */
  mr_data_reset(m, d);
  mr_kinematics(m, d);
  MR_CHECK_NEAR(lowest_by_hand(m, d), 0, 1e-12);
  MR_CHECK_NEAR(m->qpos0[2], 0.05 + 0.3 + 0.3 + 0.035 + 0.015, 1e-12); /* legs straight down */

  /* Pinocchio's x y z qx qy qz qw = (1, 2, 0.5), a quarter turn about z */
  const double *q = m->key_qpos + (size_t)turned * m->nq;
  const double c = sqrt(0.5);
  MR_CHECK(q[0] == 1 && q[1] == 2 && q[2] == 0.5);
  MR_CHECK_NEAR(q[3], c, 1e-15); /* w first, as MuJoCo orders it */
  MR_CHECK(q[4] == 0 && q[5] == 0);
  MR_CHECK_NEAR(q[6], c, 1e-15);
  MR_CHECK(q[qadr(m, "hip_l")] == 0.3);
  MR_CHECK(q[qadr(m, "knee_l")] == 0 && q[qadr(m, "hip_r")] == 0); /* unnamed: qpos0 */
  MR_REQUIRE(mr_data_reset_keyframe(m, d, turned) == 0);
  mr_kinematics(m, d);
  int base = mr_name2id(m, MR_OBJ_BODY, "base");
  const double *R = d->xmat + 9 * base;
  MR_CHECK_NEAR(R[0], 0, 1e-15); /* body x axis along world y */
  MR_CHECK_NEAR(R[3], 1, 1e-15);
  MR_CHECK_NEAR(d->xpos[3 * base + 1], 2, 1e-15);

  /* a state without a base pose stands on the floor, upright, at the origin */
  q = m->key_qpos + (size_t)crouch * m->nq;
  MR_CHECK(q[0] == 0 && q[1] == 0 && q[3] == 1 && q[4] == 0 && q[5] == 0 && q[6] == 0);
  MR_CHECK(q[qadr(m, "knee_r")] == 0.8 && q[qadr(m, "ankle_l")] == -0.4);
  MR_REQUIRE(mr_data_reset_keyframe(m, d, crouch) == 0);
  mr_kinematics(m, d);
  MR_CHECK_NEAR(lowest_by_hand(m, d), 0, 1e-12);
  MR_CHECK(q[2] < m->qpos0[2] - 0.02); /* crouched: lower than standing straight */
  mr_data_free(d);
  mr_model_free(m);

  /* fixed base: the base pose of a state is the URDF's, the joints are the state's */
  m = mr_test_load(BIPED, NULL);
  MR_REQUIRE(m && m->nkey == 2 && m->nq == 6);
  MR_CHECK(m->key_qpos[qadr(m, "hip_l")] == 0.3);
  mr_model_free(m);
}

static void test_srdf_lookup(void) {
  /* the robot's name: walker3.urdf is robot "walker", srdf/walker.srdf */
  mr_model *m = mr_test_load(DATA "robot/lookup/urdf/walker3.urdf", NULL);
  MR_CHECK(m && m->nkey == 1 && m->key_qpos[0] == 0.1);
  mr_model_free(m);
  /* the stem without its "_mini", when that SRDF is the same robot's */
  m = mr_test_load(DATA "robot/lookup/urdf/strider_mini.urdf", NULL);
  MR_CHECK(m && m->nkey == 1 && m->key_qpos[0] == 0.2);
  mr_model_free(m);
  /* srdf/other.srdf is robot "someone", not other_arm.urdf's "otherarm": not taken */
  m = mr_test_load(DATA "robot/lookup/urdf/other_arm.urdf", NULL);
  MR_CHECK(m && m->nkey == 0);
  mr_model_free(m);
  /* example-robot-data: solo12.urdf finds srdf/solo.srdf, talos_reduced.urdf srdf/talos.srdf */
  const char *robots = MOREAU_SHARED_DIR "/models/example-robot-data/robots/";
  char path[1024];
  snprintf(path, sizeof path, "%ssolo_description/robots/solo12.urdf", robots);
  m = mr_test_load(path, &(mr_load_options){.package_path = MOREAU_SHARED_DIR "/models", .meshes = MR_MESHES_INSPECT});
  MR_CHECK(m && mr_name2id(m, MR_OBJ_KEY, "standing") >= 0);
  mr_model_free(m);
  snprintf(path, sizeof path, "%stalos_data/robots/talos_reduced.urdf", robots);
  m = mr_test_load(path, &(mr_load_options){.package_path = MOREAU_SHARED_DIR "/models", .meshes = MR_MESHES_INSPECT});
  MR_CHECK(m && mr_name2id(m, MR_OBJ_KEY, "half_sitting") >= 0);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ actuators */

static int actuator(const mr_model *m, const char *name) {
  int u = mr_name2id(m, MR_OBJ_ACTUATOR, name);
  MR_CHECK_MSG(u >= 0, "no actuator '%s'", name);
  return u;
}

/* M_ii of the joint's dof at the model's qpos0. */
static double mass_diag(const mr_model *m, mr_data *d, const char *joint, const double *qpos) {
  memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  double *M = malloc(sizeof(double) * (size_t)(m->nv * m->nv));
  MR_REQUIRE(M);
  mr_dense_mass(m, d, M);
  int dof = m->jnt_dofadr[mr_name2id(m, MR_OBJ_JOINT, joint)];
  double v = M[(size_t)dof * m->nv + dof];
  free(M);
  return v;
}

static void test_transmissions(void) {
  mr_model *m = mr_test_load(BIPED, NULL);
  MR_REQUIRE(m);
  MR_CHECK(m->nu == 3); /* hip_l (its ros2_control twin skipped), knee_l, hip_r */
  int hip_l = actuator(m, "hip_l"), knee_l = actuator(m, "knee_l"), hip_r = actuator(m, "hip_r");
  MR_REQUIRE(hip_l >= 0 && knee_l >= 0 && hip_r >= 0);
  MR_CHECK(mr_name2id(m, MR_OBJ_ACTUATOR, "knee_r") < 0);
  MR_CHECK(m->actuator_kind[hip_l] == MR_ACT_MOTOR);
  MR_CHECK(m->actuator_kind[knee_l] == MR_ACT_POSITION);
  MR_CHECK(m->actuator_kind[hip_r] == MR_ACT_VELOCITY);
  MR_CHECK(m->actuator_trnid[2 * knee_l] == mr_name2id(m, MR_OBJ_JOINT, "knee_l"));
  MR_CHECK(m->actuator_gear[6 * hip_l] == 1); /* the command is the joint's, not the motor's */
  /* effort limits: a motor's controls and every actuator's force */
  MR_CHECK(m->actuator_ctrllimited[hip_l] && m->actuator_ctrlrange[2 * hip_l + 1] == 20);
  MR_CHECK(m->actuator_forcelimited[knee_l] && m->actuator_forcerange[2 * knee_l] == -30);
  MR_CHECK(m->actuator_forcerange[2 * hip_r + 1] == 20);

  /* gains: critically damped at MR_SERVO_BANDWIDTH on M_ii (a fixed base: nothing stands) */
  mr_data *d = mr_data_create(m);
  const double w = MR_SERVO_BANDWIDTH;
  double mk = mass_diag(m, d, "knee_l", m->qpos0), mh = mass_diag(m, d, "hip_r", m->qpos0);
  MR_CHECK(mk > 0.01 && mh > mk);
  MR_CHECK_NEAR(m->actuator_gainprm[MR_NGAIN * knee_l], mk * w * w, 1e-12 * mk * w * w);
  MR_CHECK_NEAR(m->actuator_biasprm[MR_NBIAS * knee_l + 1], -mk * w * w, 1e-12 * mk * w * w);
  int knee_dof = m->jnt_dofadr[mr_name2id(m, MR_OBJ_JOINT, "knee_l")];
  MR_CHECK_NEAR(m->dof_damping[knee_dof], 2 * mk * w, 1e-12 * mk * w); /* implicit damping */
  MR_CHECK(m->actuator_biasprm[MR_NBIAS * knee_l + 2] == 0);
  MR_CHECK_NEAR(m->actuator_gainprm[MR_NGAIN * hip_r], mh * w, 1e-12 * mh * w);
  MR_CHECK_NEAR(m->actuator_biasprm[MR_NBIAS * hip_r + 2], -mh * w, 1e-12 * mh * w);
  /* a keyframe's servo targets are its own pose */
  int crouch = mr_name2id(m, MR_OBJ_KEY, "crouch");
  MR_CHECK(m->key_ctrl[(size_t)crouch * m->nu + knee_l] == 0.8);
  mr_data_free(d);
  mr_model_free(m);
}

/* The inertia about joint j's axis of everything outside its subtree, from body masses, coms
 * and principal inertias in d (independent of the composite inertias the engine uses). */
static double proximal_inertia(const mr_model *m, const mr_data *d, int j) {
  int b = m->jnt_bodyid[j];
  const double *a = d->xaxis + 3 * j, *p = d->xanchor + 3 * j;
  double total = 0;
  for (int k = 1; k < m->nbody; k++) {
    int inside = 0;
    for (int x = k; x > 0; x = m->body_parentid[x]) inside |= x == b;
    if (inside) continue;
    double r[3], cr[3];
    for (int i = 0; i < 3; i++) r[i] = d->xipos[3 * k + i] - p[i];
    cr[0] = a[1] * r[2] - a[2] * r[1], cr[1] = a[2] * r[0] - a[0] * r[2], cr[2] = a[0] * r[1] - a[1] * r[0];
    total += m->body_mass[k] * (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    const double *R = d->ximat + 9 * k, *I = m->body_inertia + 3 * k;
    for (int e = 0; e < 3; e++) {
      double along = a[0] * R[e] + a[1] * R[3 + e] + a[2] * R[6 + e];
      total += I[e] * along * along;
    }
  }
  return total;
}

static void test_hold(void) {
  mr_model *m = mr_test_load(BIPED, &(mr_load_options){.floating = 1, .hold = 1, .keyframe = "crouch"});
  MR_REQUIRE(m);
  MR_CHECK(m->nu == 6);
  const char *joints[6] = {"hip_l", "knee_l", "ankle_l", "hip_r", "knee_r", "ankle_r"};
  const double effort[6] = {20, 30, 10, 20, 30, 10};
  mr_data *d = mr_data_create(m);
  int crouch = mr_name2id(m, MR_OBJ_KEY, "crouch");
  const double *q = m->key_qpos + (size_t)crouch * m->nq;
  const double w = MR_SERVO_BANDWIDTH;
  for (int i = 0; i < 6; i++) {
    int u = actuator(m, joints[i]), j = mr_name2id(m, MR_OBJ_JOINT, joints[i]);
    if (u < 0) continue;
    MR_CHECK(m->actuator_kind[u] == MR_ACT_POSITION && m->actuator_trnid[2 * u] == j);
    MR_CHECK(m->actuator_forcerange[2 * u + 1] == effort[i]);
    MR_CHECK(m->key_ctrl[(size_t)crouch * m->nu + u] == q[m->jnt_qposadr[j]]);
    /* the feet stand: every leg joint carries the rest of the robot when that is heavier */
    double diag = mass_diag(m, d, joints[i], q), prox = proximal_inertia(m, d, j);
    double inertia = fmax(diag, prox);
    MR_CHECK_MSG(prox > diag, "%s: proximal %g, M_ii %g", joints[i], prox, diag);
    MR_CHECK_NEAR(m->actuator_gainprm[MR_NGAIN * u], inertia * w * w, 1e-9 * inertia * w * w);
  }
  /* at qpos0 the targets are the joints' positions */
  mr_data_reset(m, d);
  d->qpos[qadr(m, "knee_l")] = 0.25;
  mr_robot_hold_targets(m, d);
  MR_CHECK(d->ctrl[actuator(m, "knee_l")] == 0.25 && d->ctrl[actuator(m, "hip_l")] == 0);
  mr_data_free(d);
  mr_model_free(m);

  /* given gains: kp on the servo, kd as joint damping */
  m = mr_test_load(BIPED, &(mr_load_options){.hold = 1, .hold_kp = 120, .hold_kd = 7});
  MR_REQUIRE(m && m->nu == 6);
  int u = actuator(m, "ankle_r");
  MR_CHECK(m->actuator_gainprm[MR_NGAIN * u] == 120 && m->actuator_biasprm[MR_NBIAS * u + 1] == -120);
  MR_CHECK(m->dof_damping[m->jnt_dofadr[m->actuator_trnid[2 * u]]] == 7);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ the command */

static cli_result run(const char *args) { return mr_cli_run(tmpdir, "", args); }

/* The last row's qpos entry at address adr of a trajectory CSV. */
static double last_qpos(const char *csv, int adr) {
  char *text = mr_test_read_file(csv);
  MR_REQUIRE(text);
  char *last = text, *p = text;
  for (; *p; p++)
    if (*p == '\n' && p[1]) last = p + 1;
  double v = NAN;
  char *cur = last;
  for (int col = 0; col <= adr + 1; col++) {
    v = strtod(cur, &cur);
    if (*cur == ',') cur++;
  }
  free(text);
  return v;
}

static void test_cli(void) {
  char args[2048], csv[512], ctrl[512];
  snprintf(csv, sizeof csv, "%s/stand.csv", tmpdir);
  /* the biped crouching on the default floor under --hold: still standing after 3 s */
  snprintf(args, sizeof args, "run '%s' --floating --keyframe crouch --hold --duration 3 --record '%s' --quiet",
           BIPED, csv);
  cli_result r = run(args);
  MR_CHECK_MSG(r.status == 0, "exit %d: %s", r.status, r.err);
  cli_free(&r);
  mr_model *m = mr_test_load(BIPED, &(mr_load_options){.floating = 1});
  MR_REQUIRE(m);
  double z0 = m->key_qpos[(size_t)mr_name2id(m, MR_OBJ_KEY, "crouch") * m->nq + 2];
  int knee = qadr(m, "knee_l");
  mr_model_free(m);
  double z = last_qpos(csv, 2);
  MR_CHECK_MSG(z > 0.95 * z0 && z < 1.05 * z0, "base height %g, started at %g", z, z0);

  /* --hold with --ctrl: a column named after a joint is its target */
  snprintf(ctrl, sizeof ctrl, "%s/knee.csv", tmpdir);
  mr_test_write_file(ctrl, "time,knee_l\n0,0\n0.5,0.6\n");
  snprintf(args, sizeof args, "run '%s' --hold --ctrl '%s' --duration 2 --record '%s' --quiet", BIPED,
           ctrl, csv);
  r = run(args);
  MR_CHECK_MSG(r.status == 0, "exit %d: %s", r.status, r.err);
  cli_free(&r);
  m = mr_test_load(BIPED, NULL);
  MR_REQUIRE(m);
  knee = qadr(m, "knee_l");
  int hip = qadr(m, "hip_r");
  mr_model_free(m);
  MR_CHECK_NEAR(last_qpos(csv, knee), 0.6, 0.02);
  MR_CHECK_NEAR(last_qpos(csv, hip), 0, 0.05); /* held where it started */

  /* the same options as batch columns */
  char jobs[512], out[512];
  snprintf(jobs, sizeof jobs, "%s/jobs.csv", tmpdir);
  snprintf(out, sizeof out, "%s/batch", tmpdir);
  char table[2048];
  snprintf(table, sizeof table,
           "model,floating,hold,keyframe,steps,self_collision,no_floor,strict\n"
           "%s,1,1,crouch,200,auto,0,1\n%s,1,0,crouch,200,off,1,0\n", BIPED, BIPED);
  mr_test_write_file(jobs, table);
  snprintf(args, sizeof args, "batch '%s' --out '%s' --quiet", jobs, out);
  r = run(args);
  MR_CHECK_MSG(r.status == 0, "batch exit %d: %s", r.status, r.err);
  cli_free(&r);
  mr_test_write_file(jobs, "model,self_collision\nx.urdf,sometimes\n");
  snprintf(args, sizeof args, "batch '%s' --out '%s' --quiet", jobs, out);
  r = run(args);
  MR_CHECK_MSG(r.status == 2 && strstr(r.err, "jobs.csv:2:") && strstr(r.err, "on, off or auto"),
               "exit %d: %s", r.status, r.err);
  cli_free(&r);

  /* bad values */
  snprintf(args, sizeof args, "run '%s' --hold 1,x", BIPED);
  r = run(args);
  MR_CHECK(r.status == 2 && count_char(r.err, '\n') == 1);
  cli_free(&r);
  snprintf(args, sizeof args, "run '%s' --self-collision maybe", BIPED);
  r = run(args);
  MR_CHECK(r.status == 2 && strstr(r.err, "on, off or auto"));
  cli_free(&r);
}

/* info tells what drives the model: actuators, keyframes, joints with their indices, geoms. */
static void test_info(void) {
  char args[1024];
  snprintf(args, sizeof args, "info '%s' --floating --json --quiet", BIPED);
  cli_result r = run(args);
  MR_CHECK_MSG(r.status == 0, "exit %d: %s", r.status, r.err);
  const char *want[] = {"\"actuators\": [", "\"name\": \"knee_l\",\n      \"joint\": \"knee_l\",\n      \"kind\": \"position\"",
                        "\"ctrlrange\": [-20, 20]", "\"forcerange\": [-30, 30]",
                        "\"keyframes\": [\"turned\", \"crouch\"]",
                        "\"name\": \"root_joint\",\n      \"type\": \"free\",\n      \"body\": \"base\",\n      \"qposadr\": 0,\n      \"nqpos\": 7,\n      \"dofadr\": 0,\n      \"ndof\": 6,\n      \"range\": null",
                        "\"name\": \"hip_r\",\n      \"type\": \"hinge\",\n      \"body\": \"thigh_r\",\n      \"qposadr\": 10,\n      \"nqpos\": 1,\n      \"dofadr\": 9,\n      \"ndof\": 1,\n      \"range\": [-1.5, 1.5]",
                        "\"name\": \"floor\",\n      \"type\": \"plane\",\n      \"body\": \"world\""};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    MR_CHECK_MSG(strstr(r.out, want[i]) != NULL, "info --json lacks: %s", want[i]);
  MR_CHECK(count_char(r.out, '{') == count_char(r.out, '}'));
  cli_free(&r);
  snprintf(args, sizeof args, "info '%s' --floating --quiet", BIPED);
  r = run(args);
  const char *text[] = {"actuators    3", "keyframes    2", "   1  crouch", "joints       7", "0..6",
                        "geoms        8", "kp "};
  for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
    MR_CHECK_MSG(strstr(r.out, text[i]) != NULL, "info lacks: %s", text[i]);
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_robot");
  test_world_link();
  test_floor();
  test_states();
  test_srdf_lookup();
  test_transmissions();
  test_hold();
  test_cli();
  test_info();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
