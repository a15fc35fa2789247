/* moreau info MODEL: what the loader made of a model file. */
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
  printf("nq %d  nv %d  nbody %d  njnt %d  ngeom %d  nu %d  neq %d  nmesh %d  nkey %d\n", m->nq,
         m->nv, m->nbody, m->njnt, m->ngeom, m->nu, m->neq, m->nmesh, m->nkey);
  printf("total mass   %.6g kg\n", mr_model_total_mass(m));
  printf("timestep     %g s\n", m->opt.timestep);
  printf("gravity      %g %g %g\n", m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2]);
  printf("integrator   %s\n", mr_cli_integrator_name(m->opt.integrator));
}

/* Width of the widest body name, so the table's columns line up. */
static int body_name_width(const mr_model *m) {
  int width = 6;
  for (int b = 0; b < m->nbody; b++) {
    int n = (int)strlen(name_or(m, MR_OBJ_BODY, b, "-"));
    if (n > width) width = n;
  }
  return width;
}

static void info_print_bodies(const mr_model *m) {
  int w = body_name_width(m);
  printf("\n%4s  %-*s  %-*s  %12s  %s\n", "id", w, "body", w, "parent", "mass (kg)", "joints");
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
  mr_json_int(&j, "neq", m->neq);
  mr_json_int(&j, "nmesh", m->nmesh);
  mr_json_int(&j, "nkey", m->nkey);
  mr_json_double(&j, "mass", mr_model_total_mass(m));
  mr_json_double(&j, "timestep", m->opt.timestep);
  mr_json_array_begin(&j, "gravity");
  for (int i = 0; i < 3; i++) mr_json_double(&j, NULL, m->opt.gravity[i]);
  mr_json_array_end(&j);
  mr_json_string(&j, "integrator", mr_cli_integrator_name(m->opt.integrator));
  info_json_bodies(&j, m);
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
  mr_model *m = mr_cli_load_model(&o);
  if (!m) return MR_EXIT_BAD_INPUT;
  if (o.json) {
    info_print_json(m, o.model_path);
  } else {
    info_print_sizes(m, o.model_path);
    info_print_bodies(m);
  }
  mr_model_free(m);
  return MR_EXIT_OK; /* main checks that stdout took it all */
}
