/* Sensors: each type's size, stage and data type (MuJoCo 2.2's), the checks MuJoCo's
 * compiler makes, and the model's sensor arrays with consecutive addresses in sensordata. */
#include <math.h>

#include "compile.h"
#include "engine/core/error.h"

#define MR_FAIL(src, ...) mr_errorf(c->err, c->errlen, (src), __VA_ARGS__)

typedef struct sensor_info {
  int dim, stage, datatype;
} sensor_info;

static sensor_info mr_sensor_info(int type) {
  const int R = MR_DATATYPE_REAL, A = MR_DATATYPE_AXIS;
  switch (type) {
    case MR_SENS_TOUCH: return (sensor_info){1, MR_STAGE_ACC, MR_DATATYPE_POSITIVE};
    case MR_SENS_ACCELEROMETER:
    case MR_SENS_FORCE:
    case MR_SENS_TORQUE:
    case MR_SENS_FRAMELINACC:
    case MR_SENS_FRAMEANGACC: return (sensor_info){3, MR_STAGE_ACC, R};
    case MR_SENS_VELOCIMETER:
    case MR_SENS_GYRO:
    case MR_SENS_BALLANGVEL:
    case MR_SENS_FRAMELINVEL:
    case MR_SENS_FRAMEANGVEL:
    case MR_SENS_SUBTREELINVEL:
    case MR_SENS_SUBTREEANGMOM: return (sensor_info){3, MR_STAGE_VEL, R};
    case MR_SENS_MAGNETOMETER:
    case MR_SENS_FRAMEPOS:
    case MR_SENS_SUBTREECOM: return (sensor_info){3, MR_STAGE_POS, R};
    case MR_SENS_RANGEFINDER: return (sensor_info){1, MR_STAGE_POS, MR_DATATYPE_POSITIVE};
    case MR_SENS_JOINTPOS:
    case MR_SENS_TENDONPOS:
    case MR_SENS_ACTUATORPOS:
    case MR_SENS_JOINTLIMITPOS:
    case MR_SENS_TENDONLIMITPOS:
    case MR_SENS_CLOCK: return (sensor_info){1, MR_STAGE_POS, R};
    case MR_SENS_JOINTVEL:
    case MR_SENS_TENDONVEL:
    case MR_SENS_ACTUATORVEL:
    case MR_SENS_JOINTLIMITVEL:
    case MR_SENS_TENDONLIMITVEL: return (sensor_info){1, MR_STAGE_VEL, R};
    case MR_SENS_ACTUATORFRC:
    case MR_SENS_JOINTLIMITFRC:
    case MR_SENS_TENDONLIMITFRC: return (sensor_info){1, MR_STAGE_ACC, R};
    case MR_SENS_BALLQUAT:
    case MR_SENS_FRAMEQUAT: return (sensor_info){4, MR_STAGE_POS, MR_DATATYPE_QUATERNION};
    case MR_SENS_FRAMEXAXIS:
    case MR_SENS_FRAMEYAXIS:
    case MR_SENS_FRAMEZAXIS: return (sensor_info){3, MR_STAGE_POS, A};
    default: return (sensor_info){0, MR_STAGE_NONE, R};
  }
}

static int mr_objects_of(const mr_spec *s, int type) {
  switch (type) {
    case MR_OBJ_BODY:
    case MR_OBJ_XBODY: return s->nbodies;
    case MR_OBJ_JOINT: return s->njoints;
    case MR_OBJ_GEOM: return s->ngeoms;
    case MR_OBJ_SITE: return s->nsites;
    case MR_OBJ_CAMERA: return s->ncameras;
    case MR_OBJ_ACTUATOR: return s->nactuators;
    case MR_OBJ_TENDON: return s->ntendons;
    default: return 0;
  }
}

/* The joint kinds each joint sensor accepts (MuJoCo's messages). */
static int mr_check_joint_sensor(mr_compiler *c, const mr_spec_sensor *e, const char *name) {
  const mr_spec_joint *j = &c->s->joints[e->obj];
  switch (e->type) {
    case MR_SENS_JOINTPOS:
    case MR_SENS_JOINTVEL:
      if (j->type != MR_JOINT_HINGE && j->type != MR_JOINT_SLIDE)
        return MR_FAIL(e->src, "sensor '%s': the joint must be a hinge or a slide", name);
      return 0;
    case MR_SENS_BALLQUAT:
    case MR_SENS_BALLANGVEL:
      if (j->type != MR_JOINT_BALL) return MR_FAIL(e->src, "sensor '%s': the joint must be a ball joint", name);
      return 0;
    case MR_SENS_JOINTLIMITPOS:
    case MR_SENS_JOINTLIMITVEL:
    case MR_SENS_JOINTLIMITFRC:
      if (!j->limited) return MR_FAIL(e->src, "sensor '%s': the joint must be limited", name);
      return 0;
    default: return 0;
  }
}

int mr_compile_check_sensors(mr_compiler *c) {
  const mr_spec *s = c->s;
  for (int i = 0; i < s->nsensors; i++) {
    const mr_spec_sensor *e = &s->sensors[i];
    const char *name = e->name ? e->name : "(unnamed)";
    if (e->type < 0 || e->type >= MR_SENS_NTYPES || mr_sensor_info(e->type).dim == 0)
      return MR_FAIL(e->src, "sensor '%s' has an unsupported type %d", name, e->type);
    if (e->type != MR_SENS_CLOCK && (e->obj < 0 || e->obj >= mr_objects_of(s, e->objtype)))
      return MR_FAIL(e->src, "sensor '%s' refers to a missing object", name);
    if (e->ref >= 0 && e->ref >= mr_objects_of(s, e->reftype))
      return MR_FAIL(e->src, "sensor '%s' refers to a missing reference frame", name);
    if (!isfinite(e->cutoff) || !isfinite(e->noise))
      return MR_FAIL(e->src, "sensor '%s' has a non-finite number", name);
    if (e->cutoff < 0) return MR_FAIL(e->src, "sensor '%s' has a negative cutoff", name);
    int datatype = mr_sensor_info(e->type).datatype;
    if (e->cutoff > 0 && (datatype == MR_DATATYPE_AXIS || datatype == MR_DATATYPE_QUATERNION))
      return MR_FAIL(e->src, "sensor '%s': a cutoff cannot apply to an axis or a quaternion", name);
    if (e->objtype == MR_OBJ_JOINT && mr_check_joint_sensor(c, e, name)) return -1;
  }
  return 0;
}

int mr_compile_sensor_data_size(const mr_spec *s) {
  int n = 0;
  for (int i = 0; i < s->nsensors; i++) n += mr_sensor_info(s->sensors[i].type).dim;
  return n;
}

/* Spec object index -> model object index (geoms are regrouped by body). */
static int mr_sensor_object(const mr_compiler *c, int type, int id) {
  if (id < 0) return -1;
  return type == MR_OBJ_GEOM ? c->geom_new[id] : id;
}

void mr_compile_sensors(mr_compiler *c, mr_model *m) {
  int adr = 0;
  for (int i = 0; i < m->nsensor; i++) {
    const mr_spec_sensor *e = &c->s->sensors[i];
    sensor_info info = mr_sensor_info(e->type);
    m->sensor_type[i] = e->type;
    m->sensor_datatype[i] = info.datatype;
    m->sensor_needstage[i] = info.stage;
    m->sensor_objtype[i] = e->objtype;
    m->sensor_objid[i] = mr_sensor_object(c, e->objtype, e->obj);
    m->sensor_reftype[i] = e->ref >= 0 ? e->reftype : -1;
    m->sensor_refid[i] = mr_sensor_object(c, e->reftype, e->ref);
    m->sensor_dim[i] = info.dim;
    m->sensor_adr[i] = adr;
    m->sensor_cutoff[i] = e->cutoff;
    m->sensor_noise[i] = e->noise;
    adr += info.dim;
  }
}
