/* moreau info MODEL: what the loader made of a model file, and what a user needs to drive it:
 * sizes, actuators (the --ctrl column names), keyframes, joints with their qpos and qvel
 * indices, bodies and geoms; --json gives the same as one object. */
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "options.h"

static const char *joint_type_name(int type) {
  switch (type) {
    case MR_JOINT_FREE: return "free";
    case MR_JOINT_BALL: return "ball";
    case MR_JOINT_SLIDE: return "slide";
    case MR_JOINT_HINGE: return "hinge";
    default: return "?";
  }
}

static const char *name_or(const mr_model *m, mr_obj_type type, int id, const char *fallback) {
  const char *name = mr_id2name(m, type, id);
  return name && name[0] ? name : fallback;
}

static const char *model_file(const mr_model *m, const char *given) {
  return m->source_path ? m->source_path : given;
}

static const char *model_name(const mr_model *m) { return m->model_name ? m->model_name : ""; }

static void info_print_sizes(const mr_model *m, const char *path) {
  printf("model        %s\n", model_name(m));
  printf("file         %s\n", model_file(m, path));
  printf("nq %d  nv %d  nbody %d  njnt %d  ngeom %d  nu %d  na %d  neq %d  ntendon %d  nmesh %d  "
         "nkey %d\n", m->nq, m->nv, m->nbody, m->njnt, m->ngeom, m->nu, m->na, m->neq, m->ntendon,
         m->nmesh, m->nkey);
  if (m->nsensor || m->nhfield)
    printf("nsensor %d  nsensordata %d  nhfield %d\n", m->nsensor, m->nsensordata, m->nhfield);
  printf("total mass   %.6g kg\n", mr_model_total_mass(m));
  printf("timestep     %g s\n", m->opt.timestep);
  printf("gravity      %g %g %g\n", m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  printf("integrator   %s\n", mr_cli_integrator_name(m->opt.integrator));
  printf("data         %.3g MB per mr_data (state, arrays and the per-step arena)\n",
         (double)mr_data_bytes(m) / 1e6);
}

/* Width of the widest body name, so the table's columns line up. */
/* Width of the widest name of a type (at least 6), so that a table's columns line up. */
static int name_width(const mr_model *m, mr_obj_type type, int count) {
  int width = 6;
  for (int i = 0; i < count; i++) {
    int n = (int)strlen(name_or(m, type, i, "-"));
    if (n > width) width = n;
  }
  return width;
}

static int body_name_width(const mr_model *m) { return name_width(m, MR_OBJ_BODY, m->nbody); }

static void info_print_bodies(const mr_model *m) {
  int w = body_name_width(m);
  printf("\nbodies       %d\n", m->nbody);
  printf("%4s  %-*s  %-*s  %12s  %s\n", "id", w, "body", w, "parent", "mass (kg)", "joints");
  for (int b = 0; b < m->nbody; b++) {
    const char *parent = b == 0 ? "-" : name_or(m, MR_OBJ_BODY, m->body_parentid[b], "-");
    printf("%4d  %-*s  %-*s  %12.6g  ", b, w, name_or(m, MR_OBJ_BODY, b, "-"), w, parent,
           m->body_mass[b]);
    int first = m->body_jntadr[b], count = m->body_jntnum[b];
    if (count <= 0) fputs("-", stdout);
    for (int j = first; j < first + count; j++)
      printf("%s%s (%s)", j > first ? ", " : "", name_or(m, MR_OBJ_JOINT, j, "-"),
             joint_type_name(m->jnt_type[j]));
    fputc('\n', stdout);
  }
}

static const char *tendon_kind(const mr_model *m, int t) {
  return m->wrap_type[m->tendon_adr[t]] == MR_WRAP_JOINT ? "fixed" : "spatial";
}

/* What a tendon's path runs through: its joints, or its sites, wrapped geoms and pulleys. */
static void info_print_path(const mr_model *m, int t) {
  for (int i = m->tendon_adr[t]; i < m->tendon_adr[t] + m->tendon_num[t]; i++) {
    int id = m->wrap_objid[i];
    fputs(i > m->tendon_adr[t] ? " " : "", stdout);
    switch (m->wrap_type[i]) {
      case MR_WRAP_JOINT: printf("%g*%s", m->wrap_prm[i], name_or(m, MR_OBJ_JOINT, id, "-")); break;
      case MR_WRAP_SITE: printf("%s", name_or(m, MR_OBJ_SITE, id, "(site)")); break;
      case MR_WRAP_PULLEY: printf("/%g", m->wrap_prm[i]); break;
      default: printf("(%s)", name_or(m, MR_OBJ_GEOM, id, "geom")); break;
    }
  }
}

static void info_print_tendons(const mr_model *m) {
  if (m->ntendon == 0) return;
  printf("\n%4s  %-16s  %-7s  %10s  %21s  %9s  %9s  %s\n", "id", "tendon", "kind", "length0",
         "range", "stiffness", "damping", "path (joints; sites, (geoms), /pulleys)");
  for (int t = 0; t < m->ntendon; t++) {
    char range[48] = "-";
    if (m->tendon_limited[t])
      snprintf(range, sizeof range, "%.4g .. %.4g", m->tendon_range[2 * t], m->tendon_range[2 * t + 1]);
    printf("%4d  %-16s  %-7s  %10.5g  %21s  %9.4g  %9.4g  ", t, name_or(m, MR_OBJ_TENDON, t, "-"),
           tendon_kind(m, t), m->tendon_length0[t], range, m->tendon_stiffness[t],
           m->tendon_damping[t]);
    info_print_path(m, t);
    fputc('\n', stdout);
  }
}

static void info_json_tendons(mr_json *j, const mr_model *m) {
  mr_json_array_begin(j, "tendons");
  for (int t = 0; t < m->ntendon; t++) {
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_TENDON, t));
    mr_json_string(j, "kind", tendon_kind(m, t));
    mr_json_int(j, "limited", m->tendon_limited[t]);
    mr_json_array_begin(j, "range");
    for (int k = 0; k < 2; k++) mr_json_double(j, NULL, m->tendon_range[2 * t + k]);
    mr_json_array_end(j);
    mr_json_double(j, "length0", m->tendon_length0[t]);
    mr_json_double(j, "stiffness", m->tendon_stiffness[t]);
    mr_json_double(j, "damping", m->tendon_damping[t]);
    mr_json_int(j, "nwrap", m->tendon_num[t]);
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
}

/* What a sensor senses, as "type name" (the world or nothing for clock). */
static void sensor_object(const mr_model *m, int i, char *buf, size_t n) {
  static const char *const types[MR_OBJ_NTYPES] = {
      [MR_OBJ_BODY] = "body",   [MR_OBJ_XBODY] = "xbody",   [MR_OBJ_JOINT] = "joint",
      [MR_OBJ_GEOM] = "geom",   [MR_OBJ_SITE] = "site",     [MR_OBJ_CAMERA] = "camera",
      [MR_OBJ_ACTUATOR] = "actuator"};
  int t = m->sensor_objtype[i];
  if (t < 0 || t >= MR_OBJ_NTYPES || !types[t]) {
    snprintf(buf, n, "-");
    return;
  }
  char id[16];
  snprintf(id, sizeof id, "#%d", m->sensor_objid[i]);
  snprintf(buf, n, "%s %s", types[t], name_or(m, (mr_obj_type)t, m->sensor_objid[i], id));
}

static void info_print_sensors(const mr_model *m) {
  if (m->nsensor == 0) return;
  printf("\n%4s  %-24s  %-14s  %3s  %s\n", "id", "sensor", "type", "dim", "object");
  for (int i = 0; i < m->nsensor; i++) {
    char obj[160];
    sensor_object(m, i, obj, sizeof obj);
    printf("%4d  %-24s  %-14s  %3d  %s\n", i, name_or(m, MR_OBJ_SENSOR, i, "-"),
           mr_sensor_type_name(m->sensor_type[i]), m->sensor_dim[i], obj);
  }
}

static void info_json_sensors(mr_json *j, const mr_model *m) {
  mr_json_array_begin(j, "sensors");
  for (int i = 0; i < m->nsensor; i++) {
    char obj[160];
    sensor_object(m, i, obj, sizeof obj);
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_SENSOR, i));
    mr_json_string(j, "type", mr_sensor_type_name(m->sensor_type[i]));
    mr_json_int(j, "dim", m->sensor_dim[i]);
    mr_json_int(j, "adr", m->sensor_adr[i]);
    mr_json_string(j, "object", obj);
    mr_json_double(j, "cutoff", m->sensor_cutoff[i]);
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
}

static void info_json_bodies(mr_json *j, const mr_model *m) {
  mr_json_array_begin(j, "body_names");
  for (int b = 0; b < m->nbody; b++) mr_json_string(j, NULL, mr_id2name(m, MR_OBJ_BODY, b));
  mr_json_array_end(j);
  mr_json_array_begin(j, "bodies");
  for (int b = 0; b < m->nbody; b++) {
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_BODY, b));
    mr_json_int(j, "parent", b == 0 ? -1 : m->body_parentid[b]);
    mr_json_double(j, "mass", m->body_mass[b]);
    mr_json_array_begin(j, "joints");
    for (int k = m->body_jntadr[b]; k < m->body_jntadr[b] + m->body_jntnum[b]; k++)
      mr_json_string(j, NULL, mr_id2name(m, MR_OBJ_JOINT, k));
    mr_json_array_end(j);
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
}

static const char *actuator_kind_name(int kind) {
  switch (kind) {
    case MR_ACT_MOTOR: return "motor";
    case MR_ACT_POSITION: return "position";
    case MR_ACT_VELOCITY: return "velocity";
    default: return "general";
  }
}

static const char *geom_type_name(int type) {
  static const char *const names[MR_GEOM_NTYPES] = {"plane", "hfield", "sphere", "capsule",
                                                    "ellipsoid", "cylinder", "box", "mesh"};
  return type >= 0 && type < MR_GEOM_NTYPES ? names[type] : "?";
}

static int joint_nq(int type) { return type == MR_JOINT_FREE ? 7 : type == MR_JOINT_BALL ? 4 : 1; }
static int joint_nv(int type) { return type == MR_JOINT_FREE ? 6 : type == MR_JOINT_BALL ? 3 : 1; }

/* "a..b" for a block of indices, "a" for one. */
static void index_span(char *buf, size_t len, int first, int count) {
  if (count == 1) snprintf(buf, len, "%d", first);
  else snprintf(buf, len, "%d..%d", first, first + count - 1);
}

static void range_text(char *buf, size_t len, int limited, const double *r) {
  if (limited) snprintf(buf, len, "%.4g .. %.4g", r[0], r[1]);
  else snprintf(buf, len, "-");
}

/* A position servo's damping: its own kv plus the joint damping it was given. */
static double servo_damping(const mr_model *m, int u) {
  return m->dof_damping[m->jnt_dofadr[m->actuator_trnid[2 * u]]] - m->actuator_biasprm[MR_NBIAS * u + 2];
}

/* What drives the model: --ctrl columns are these names. */
static void info_print_actuators(const mr_model *m) {
  if (m->nu == 0) return;
  int wa = name_width(m, MR_OBJ_ACTUATOR, m->nu), wj = name_width(m, MR_OBJ_JOINT, m->njnt);
  printf("\nactuators    %d (--ctrl columns by name)\n", m->nu);
  printf("%4s  %-*s  %-*s  %-9s %-20s %-20s %s\n", "id", wa, "name", wj, "joint", "kind",
         "ctrl range", "force range", "gains");
  for (int u = 0; u < m->nu; u++) {
    char ctrl[64], force[64], gains[64] = "-";
    range_text(ctrl, sizeof ctrl, m->actuator_ctrllimited[u], m->actuator_ctrlrange + 2 * u);
    range_text(force, sizeof force, m->actuator_forcelimited[u], m->actuator_forcerange + 2 * u);
    const double *g = m->actuator_gainprm + MR_NGAIN * u;
    if (m->actuator_kind[u] == MR_ACT_POSITION)
      snprintf(gains, sizeof gains, "kp %.4g, kd %.4g", g[0], servo_damping(m, u));
    else if (m->actuator_kind[u] == MR_ACT_VELOCITY)
      snprintf(gains, sizeof gains, "kv %.4g", g[0]);
    printf("%4d  %-*s  %-*s  %-9s %-20s %-20s %s\n", u, wa, name_or(m, MR_OBJ_ACTUATOR, u, "-"),
           wj, name_or(m, MR_OBJ_JOINT, m->actuator_trnid[2 * u], "-"),
           actuator_kind_name(m->actuator_kind[u]), ctrl, force, gains);
  }
}

static void info_print_keyframes(const mr_model *m) {
  if (m->nkey == 0) return;
  printf("\nkeyframes    %d (--keyframe NAME or INDEX)\n", m->nkey);
  for (int k = 0; k < m->nkey; k++) printf("%4d  %s\n", k, name_or(m, MR_OBJ_KEY, k, "-"));
}

static void info_print_joints(const mr_model *m) {
  if (m->njnt == 0) return;
  int wj = name_width(m, MR_OBJ_JOINT, m->njnt), wb = body_name_width(m);
  printf("\njoints       %d\n", m->njnt);
  printf("%4s  %-*s  %-6s %-*s  %-7s %-7s %s\n", "id", wj, "name", "type", wb, "body", "qpos",
         "qvel", "range");
  for (int j = 0; j < m->njnt; j++) {
    char q[32], v[32], range[64];
    index_span(q, sizeof q, m->jnt_qposadr[j], joint_nq(m->jnt_type[j]));
    index_span(v, sizeof v, m->jnt_dofadr[j], joint_nv(m->jnt_type[j]));
    range_text(range, sizeof range, m->jnt_limited[j], m->jnt_range + 2 * j);
    printf("%4d  %-*s  %-6s %-*s  %-7s %-7s %s\n", j, wj, name_or(m, MR_OBJ_JOINT, j, "-"),
           joint_type_name(m->jnt_type[j]), wb, name_or(m, MR_OBJ_BODY, m->jnt_bodyid[j], "-"), q,
           v, range);
  }
}

static void info_print_geoms(const mr_model *m) {
  if (m->ngeom == 0) return;
  int wg = name_width(m, MR_OBJ_GEOM, m->ngeom), wb = body_name_width(m);
  int wt = 9 + name_width(m, MR_OBJ_MESH, m->nmesh);
  printf("\ngeoms        %d\n", m->ngeom);
  printf("%4s  %-*s  %-*s  %-*s  %-5s %s\n", "id", wg, "name", wt, "type", wb, "body", "group",
         "collides");
  for (int g = 0; g < m->ngeom; g++) {
    const char *mesh = m->geom_meshid[g] >= 0 ? name_or(m, MR_OBJ_MESH, m->geom_meshid[g], "") : "";
    char type[96];
    snprintf(type, sizeof type, "%s%s%.80s", geom_type_name(m->geom_type[g]), *mesh ? " " : "",
             mesh);
    printf("%4d  %-*s  %-*s  %-*s  %-5d %s\n", g, wg, name_or(m, MR_OBJ_GEOM, g, "-"), wt, type,
           wb, name_or(m, MR_OBJ_BODY, m->geom_bodyid[g], "-"), m->geom_group[g],
           (m->geom_contype[g] | m->geom_conaffinity[g]) ? "yes" : "no");
  }
}

static void json_range(mr_json *j, const char *key, int limited, const double *r) {
  if (!limited) {
    mr_json_null(j, key);
    return;
  }
  mr_json_array_begin(j, key);
  mr_json_double(j, NULL, r[0]);
  mr_json_double(j, NULL, r[1]);
  mr_json_array_end(j);
}

static void info_json_actuators(mr_json *j, const mr_model *m) {
  mr_json_array_begin(j, "actuators");
  for (int u = 0; u < m->nu; u++) {
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_ACTUATOR, u));
    mr_json_string(j, "joint", mr_id2name(m, MR_OBJ_JOINT, m->actuator_trnid[2 * u]));
    mr_json_string(j, "kind", actuator_kind_name(m->actuator_kind[u]));
    json_range(j, "ctrlrange", m->actuator_ctrllimited[u], m->actuator_ctrlrange + 2 * u);
    json_range(j, "forcerange", m->actuator_forcelimited[u], m->actuator_forcerange + 2 * u);
    mr_json_double(j, "gain", m->actuator_gainprm[MR_NGAIN * u]);
    if (m->actuator_kind[u] == MR_ACT_POSITION) mr_json_double(j, "damping", servo_damping(m, u));
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
  mr_json_array_begin(j, "keyframes");
  for (int k = 0; k < m->nkey; k++) mr_json_string(j, NULL, mr_id2name(m, MR_OBJ_KEY, k));
  mr_json_array_end(j);
}

static void info_json_joints_geoms(mr_json *j, const mr_model *m) {
  mr_json_array_begin(j, "joints");
  for (int k = 0; k < m->njnt; k++) {
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_JOINT, k));
    mr_json_string(j, "type", joint_type_name(m->jnt_type[k]));
    mr_json_string(j, "body", mr_id2name(m, MR_OBJ_BODY, m->jnt_bodyid[k]));
    mr_json_int(j, "qposadr", m->jnt_qposadr[k]);
    mr_json_int(j, "nqpos", joint_nq(m->jnt_type[k]));
    mr_json_int(j, "dofadr", m->jnt_dofadr[k]);
    mr_json_int(j, "ndof", joint_nv(m->jnt_type[k]));
    json_range(j, "range", m->jnt_limited[k], m->jnt_range + 2 * k);
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
  mr_json_array_begin(j, "geoms");
  for (int g = 0; g < m->ngeom; g++) {
    mr_json_object_begin(j, NULL);
    mr_json_string(j, "name", mr_id2name(m, MR_OBJ_GEOM, g));
    mr_json_string(j, "type", geom_type_name(m->geom_type[g]));
    mr_json_string(j, "body", mr_id2name(m, MR_OBJ_BODY, m->geom_bodyid[g]));
    if (m->geom_meshid[g] >= 0)
      mr_json_string(j, "mesh", mr_id2name(m, MR_OBJ_MESH, m->geom_meshid[g]));
    mr_json_int(j, "group", m->geom_group[g]);
    mr_json_bool(j, "collides", (m->geom_contype[g] | m->geom_conaffinity[g]) != 0);
    mr_json_object_end(j);
  }
  mr_json_array_end(j);
}

static void info_print_json(const mr_model *m, const char *path) {
  mr_json j;
  mr_json_init(&j, stdout);
  mr_json_object_begin(&j, NULL);
  mr_json_string(&j, "model", model_name(m));
  mr_json_string(&j, "file", model_file(m, path));
  mr_json_int(&j, "nq", m->nq);
  mr_json_int(&j, "nv", m->nv);
  mr_json_int(&j, "nbody", m->nbody);
  mr_json_int(&j, "njnt", m->njnt);
  mr_json_int(&j, "ngeom", m->ngeom);
  mr_json_int(&j, "nu", m->nu);
  mr_json_int(&j, "na", m->na);
  mr_json_int(&j, "neq", m->neq);
  mr_json_int(&j, "ntendon", m->ntendon);
  mr_json_int(&j, "nmesh", m->nmesh);
  mr_json_int(&j, "nkey", m->nkey);
  mr_json_double(&j, "data_bytes", (double)mr_data_bytes(m));
  mr_json_int(&j, "nsensor", m->nsensor);
  mr_json_int(&j, "nsensordata", m->nsensordata);
  mr_json_int(&j, "nhfield", m->nhfield);
  mr_json_double(&j, "mass", mr_model_total_mass(m));
  mr_json_double(&j, "timestep", m->opt.timestep);
  mr_json_array_begin(&j, "gravity");
  for (int i = 0; i < 3; i++) mr_json_double(&j, NULL, m->opt.gravity[i]);
  mr_json_array_end(&j);
  mr_json_string(&j, "integrator", mr_cli_integrator_name(m->opt.integrator));
  info_json_bodies(&j, m);
  info_json_actuators(&j, m);
  info_json_joints_geoms(&j, m);
  info_json_tendons(&j, m);
  info_json_sensors(&j, m);
  mr_json_object_end(&j);
}

int mr_cmd_info(int argc, char **argv) {
  mr_cli_options o;
  char err[1024];
  if (mr_cli_parse(argc, argv, MR_OPTS_LOAD | MR_OPTS_OUTPUT, &o, err, (int)sizeof err)) {
    mr_cli_error("%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  if (o.help) {
    mr_cli_print_usage(stdout);
    return MR_EXIT_OK;
  }
  if (!o.model_path) {
    mr_cli_error("usage: moreau info MODEL [--json] [--floating] [--package-path DIR] "
                 "[--srdf FILE] [--quiet]");
    return MR_EXIT_BAD_INPUT;
  }
  o.load.meshes = MR_MESHES_INSPECT; /* no hulls, no visual meshes: nothing is stepped */
  mr_model *m = mr_cli_load_model(&o);
  if (!m) return MR_EXIT_BAD_INPUT;
  if (o.json) {
    info_print_json(m, o.model_path);
  } else {
    info_print_sizes(m, o.model_path);
    info_print_actuators(m);
    info_print_keyframes(m);
    info_print_joints(m);
    info_print_bodies(m);
    info_print_geoms(m);
    info_print_tendons(m);
    info_print_sensors(m);
  }
  mr_model_free(m);
  return MR_EXIT_OK; /* main checks that stdout took it all */
}
