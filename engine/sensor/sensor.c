/* Sensors (mr_sensors): each stage writes the sensors that need it into d->sensordata, with
 * MuJoCo 2.2's definitions, then applies their cutoff. Noise is never added: a run is the
 * same every time, and a user who wants noise adds the noise model they trust to the
 * recorded values.
 *
 * Forces come from what the step's solve left in mr_data, not from the constraint stage's
 * rows: contact forces are d->contact[k].impulse / dt, joint-limit forces
 * d->limit_impulse / dt (the same numbers the step applied). */
#include <math.h>
#include <string.h>

#include "collision/ray.h"
#include "engine/core/mr_math.h"
#include "sensor.h"

/* ------------------------------------------------------------------ joint limits */

/* A limit side is in MuJoCo's constraint set while its distance is below the joint's
 * margin; the lower side counts first. Distance and velocity along that side, 0 if none. */
static int mr_limit_side(const mr_model *m, const mr_data *d, int j, double *dist, double *vel) {
  if (d->opt.disable & MR_DISABLE_CONSTRAINT) return 0; /* no limit is a constraint then */
  double margin = m->jnt_margin[j];
  const double *range = m->jnt_range + 2 * j;
  if (m->jnt_type[j] == MR_JOINT_BALL) {
    const double *q = d->qpos + m->jnt_qposadr[j];
    double axis[3] = {q[1], q[2], q[3]};
    double s = mr_normalize3(axis), angle = 2 * atan2(s, q[0]);
    if (angle > MR_PI) angle -= 2 * MR_PI;
    if (angle < 0) angle = -angle, mr_scale3(axis, axis, -1);
    *dist = range[1] - angle;
    *vel = -mr_dot3(axis, d->qvel + m->jnt_dofadr[j]);
    return *dist < margin;
  }
  double q = d->qpos[m->jnt_qposadr[j]], qdot = d->qvel[m->jnt_dofadr[j]];
  if (q - range[0] < margin) {
    *dist = q - range[0];
    *vel = qdot;
    return 1;
  }
  if (range[1] - q < margin) {
    *dist = range[1] - q;
    *vel = -qdot;
    return 1;
  }
  return 0;
}

/* The side of tendon t's limit that is active (its range within the margin), as for a
 * joint: the distance to it and the speed towards the inside. */
static int mr_tendon_limit_side(const mr_model *m, const mr_data *d, int t, double *dist,
                                double *vel) {
  if ((d->opt.disable & MR_DISABLE_CONSTRAINT) || !m->tendon_limited[t]) return 0;
  double len = d->ten_length[t], v = d->ten_velocity[t], margin = m->tendon_margin[t];
  const double *range = m->tendon_range + 2 * t;
  if (len - range[0] < margin) {
    *dist = len - range[0];
    *vel = v;
    return 1;
  }
  if (range[1] - len < margin) {
    *dist = range[1] - len;
    *vel = -v;
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------------ frames */

/* framepos and frame axes, in the reference frame when the sensor has one. */
static void mr_sensor_frame_vector(const mr_model *m, const mr_data *d, int i, double out[3]) {
  int type = m->sensor_type[i];
  const double *pos, *mat, *rpos = NULL, *rmat = NULL;
  mr_object_frame(m, d, m->sensor_objtype[i], m->sensor_objid[i], &pos, &mat);
  if (m->sensor_refid[i] >= 0) mr_object_frame(m, d, m->sensor_reftype[i], m->sensor_refid[i], &rpos, &rmat);
  double v[3];
  if (type == MR_SENS_FRAMEPOS) {
    mr_copy3(v, pos);
    if (rpos) mr_sub3(v, pos, rpos);
  } else {
    int k = type - MR_SENS_FRAMEXAXIS;
    v[0] = mat[k], v[1] = mat[3 + k], v[2] = mat[6 + k];
  }
  if (rmat) mr_mulmatT3(out, rmat, v);
  else mr_copy3(out, v);
}

static void mr_sensor_frame_quat(const mr_model *m, const mr_data *d, int i, double out[4]) {
  double q[4], r[4];
  mr_object_quat(m, d, m->sensor_objtype[i], m->sensor_objid[i], q);
  if (m->sensor_refid[i] < 0) {
    memcpy(out, q, sizeof q);
    return;
  }
  mr_object_quat(m, d, m->sensor_reftype[i], m->sensor_refid[i], r);
  mr_quat_conj(r, r);
  mr_quat_mul(out, r, q);
}

/* framelinvel / frameangvel: world velocity, or the velocity relative to the reference
 * frame (its own rotation taken out) expressed in it. */
static void mr_sensor_frame_velocity(const mr_model *m, const mr_data *d, int i, double out[3]) {
  double v[6];
  int linear = m->sensor_type[i] == MR_SENS_FRAMELINVEL;
  mr_object_velocity(m, d, m->sensor_objtype[i], m->sensor_objid[i], 0, v);
  if (m->sensor_refid[i] >= 0) {
    const double *pos, *mat, *rpos, *rmat;
    double vr[6], arm[3], turn[3], rel[6];
    mr_object_frame(m, d, m->sensor_objtype[i], m->sensor_objid[i], &pos, &mat);
    mr_object_frame(m, d, m->sensor_reftype[i], m->sensor_refid[i], &rpos, &rmat);
    mr_object_velocity(m, d, m->sensor_reftype[i], m->sensor_refid[i], 0, vr);
    for (int k = 0; k < 6; k++) rel[k] = v[k] - vr[k];
    mr_sub3(arm, pos, rpos);
    mr_cross3(turn, vr, arm); /* the reference frame's rotation carries the point */
    mr_sub3(rel + 3, rel + 3, turn);
    mr_mulmatT3(v, rmat, rel);
    mr_mulmatT3(v + 3, rmat, rel + 3);
  }
  mr_copy3(out, linear ? v + 3 : v);
}

/* ------------------------------------------------------------------ contact sensors */

/* Normal forces of the contacts of the site's body that fall in the site's volume: the ray
 * from the contact point along the normal, pointing away from the body, meets the site. */
static double mr_sensor_touch(const mr_model *m, const mr_data *d, int site) {
  int body = m->site_bodyid[site];
  double total = 0, dt = d->opt.timestep;
  for (int k = 0; k < d->ncon; k++) {
    const mr_contact *c = &d->contact[k];
    if (c->body1 != body && c->body2 != body) continue;
    double normal = c->impulse[0] / dt;
    if (!(normal > 0)) continue;
    double ray[3];
    mr_scale3(ray, c->frame, c->body2 == body ? -1 : 1);
    if (mr_ray_primitive(m->site_type[site], m->site_size + 3 * site, d->site_xpos + 3 * site,
                         d->site_xmat + 9 * site, c->pos, ray) >= 0)
      total += normal;
  }
  return total;
}

/* force / torque: the parent's force on the site's body (cfrc_int), moved to the site and
 * expressed in its frame. */
static void mr_sensor_wrench(const mr_model *m, const mr_data *d, int site, int torque,
                             double out[3]) {
  int b = m->site_bodyid[site];
  const double *f = d->cfrc_int + 6 * b, *R = d->site_xmat + 9 * site;
  if (!torque) {
    mr_mulmatT3(out, R, f + 3);
    return;
  }
  double arm[3], moment[3], t[3];
  mr_sub3(arm, d->site_xpos + 3 * site, d->subtree_com + 3 * m->body_rootid[b]);
  mr_cross3(moment, arm, f + 3);
  mr_sub3(t, f, moment);
  mr_mulmatT3(out, R, t);
}

/* ------------------------------------------------------------------ stages */

static void mr_sensor_pos(const mr_model *m, mr_data *d, int i, double *out) {
  int id = m->sensor_objid[i];
  double dist, vel;
  switch (m->sensor_type[i]) {
    case MR_SENS_MAGNETOMETER: mr_mulmatT3(out, d->site_xmat + 9 * id, d->opt.magnetic); return;
    case MR_SENS_RANGEFINDER: {
      const double *R = d->site_xmat + 9 * id;
      double z[3] = {R[2], R[5], R[8]};
      out[0] = mr_ray(m, d, d->site_xpos + 3 * id, z, m->site_bodyid[id], NULL);
      return;
    }
    case MR_SENS_JOINTPOS: out[0] = d->qpos[m->jnt_qposadr[id]]; return;
    case MR_SENS_TENDONPOS: out[0] = d->ten_length[id]; return;
    case MR_SENS_ACTUATORPOS: out[0] = d->actuator_length[id]; return;
    case MR_SENS_BALLQUAT: {
      memcpy(out, d->qpos + m->jnt_qposadr[id], 4 * sizeof(double));
      mr_quat_normalize(out);
      return;
    }
    case MR_SENS_JOINTLIMITPOS:
      out[0] = mr_limit_side(m, d, id, &dist, &vel) ? dist - m->jnt_margin[id] : 0;
      return;
    case MR_SENS_TENDONLIMITPOS:
      out[0] = mr_tendon_limit_side(m, d, id, &dist, &vel) ? dist - m->tendon_margin[id] : 0;
      return;
    case MR_SENS_FRAMEPOS:
    case MR_SENS_FRAMEXAXIS:
    case MR_SENS_FRAMEYAXIS:
    case MR_SENS_FRAMEZAXIS: mr_sensor_frame_vector(m, d, i, out); return;
    case MR_SENS_FRAMEQUAT: mr_sensor_frame_quat(m, d, i, out); return;
    case MR_SENS_SUBTREECOM: mr_copy3(out, d->subtree_com + 3 * id); return;
    case MR_SENS_CLOCK: out[0] = d->time; return;
    default: return;
  }
}

static void mr_sensor_vel(const mr_model *m, mr_data *d, int i, double *out) {
  int id = m->sensor_objid[i];
  double v[6], dist, vel;
  switch (m->sensor_type[i]) {
    case MR_SENS_VELOCIMETER:
    case MR_SENS_GYRO:
      mr_object_velocity(m, d, MR_OBJ_SITE, id, 1, v);
      mr_copy3(out, m->sensor_type[i] == MR_SENS_GYRO ? v : v + 3);
      return;
    case MR_SENS_JOINTVEL: out[0] = d->qvel[m->jnt_dofadr[id]]; return;
    case MR_SENS_TENDONVEL: out[0] = d->ten_velocity[id]; return;
    case MR_SENS_ACTUATORVEL: out[0] = d->actuator_velocity[id]; return;
    case MR_SENS_BALLANGVEL: mr_copy3(out, d->qvel + m->jnt_dofadr[id]); return;
    case MR_SENS_JOINTLIMITVEL: out[0] = mr_limit_side(m, d, id, &dist, &vel) ? vel : 0; return;
    case MR_SENS_TENDONLIMITVEL:
      out[0] = mr_tendon_limit_side(m, d, id, &dist, &vel) ? vel : 0;
      return;
    case MR_SENS_FRAMELINVEL:
    case MR_SENS_FRAMEANGVEL: mr_sensor_frame_velocity(m, d, i, out); return;
    case MR_SENS_SUBTREELINVEL: mr_copy3(out, d->subtree_linvel + 3 * id); return;
    case MR_SENS_SUBTREEANGMOM: mr_copy3(out, d->subtree_angmom + 3 * id); return;
    default: return;
  }
}

static void mr_sensor_acc(const mr_model *m, mr_data *d, int i, double *out) {
  int id = m->sensor_objid[i];
  double a[6];
  switch (m->sensor_type[i]) {
    case MR_SENS_TOUCH: out[0] = mr_sensor_touch(m, d, id); return;
    case MR_SENS_ACCELEROMETER:
      mr_object_acceleration(m, d, MR_OBJ_SITE, id, 1, a);
      mr_copy3(out, a + 3);
      return;
    case MR_SENS_FORCE:
    case MR_SENS_TORQUE: mr_sensor_wrench(m, d, id, m->sensor_type[i] == MR_SENS_TORQUE, out); return;
    case MR_SENS_ACTUATORFRC: out[0] = d->actuator_force[id]; return;
    case MR_SENS_JOINTLIMITFRC:
      out[0] = (d->limit_impulse[2 * id] + d->limit_impulse[2 * id + 1]) / d->opt.timestep;
      return;
    case MR_SENS_TENDONLIMITFRC:
      out[0] = (d->ten_limit_impulse[2 * id] + d->ten_limit_impulse[2 * id + 1]) / d->opt.timestep;
      return;
    case MR_SENS_FRAMELINACC:
    case MR_SENS_FRAMEANGACC:
      mr_object_acceleration(m, d, m->sensor_objtype[i], id, 0, a);
      mr_copy3(out, m->sensor_type[i] == MR_SENS_FRAMEANGACC ? a : a + 3);
      return;
    default: return;
  }
}

/* Whether a stage's sensors need the derived body quantities first. */
static int mr_stage_needs(const mr_model *m, mr_stage stage, int t0, int t1, int t2, int t3) {
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    if (m->sensor_needstage[i] == (int)stage && (t == t0 || t == t1 || t == t2 || t == t3)) return 1;
  }
  return 0;
}

static void mr_sensor_cutoff(const mr_model *m, mr_data *d, int i) {
  double cut = m->sensor_cutoff[i], *v = d->sensordata + m->sensor_adr[i];
  if (!(cut > 0)) return;
  for (int k = 0; k < m->sensor_dim[i]; k++) {
    if (m->sensor_datatype[i] == MR_DATATYPE_REAL) v[k] = fmin(fmax(v[k], -cut), cut);
    else if (m->sensor_datatype[i] == MR_DATATYPE_POSITIVE) v[k] = fmin(v[k], cut);
  }
}

void mr_sensors(const mr_model *m, mr_data *d, mr_stage stage) {
  if (m->nsensor == 0) return;
  if (stage == MR_STAGE_VEL &&
      mr_stage_needs(m, stage, MR_SENS_SUBTREELINVEL, MR_SENS_SUBTREEANGMOM, -1, -1))
    mr_subtree_vel(m, d);
  if (stage == MR_STAGE_ACC &&
      (mr_stage_needs(m, stage, MR_SENS_ACCELEROMETER, MR_SENS_FORCE, MR_SENS_TORQUE, -1) ||
       mr_stage_needs(m, stage, MR_SENS_FRAMELINACC, MR_SENS_FRAMEANGACC, -1, -1)))
    mr_rne_post_constraint(m, d);
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_needstage[i] != (int)stage) continue;
    double *out = d->sensordata + m->sensor_adr[i];
    if (stage == MR_STAGE_POS) mr_sensor_pos(m, d, i, out);
    else if (stage == MR_STAGE_VEL) mr_sensor_vel(m, d, i, out);
    else mr_sensor_acc(m, d, i, out);
    mr_sensor_cutoff(m, d, i);
  }
}
