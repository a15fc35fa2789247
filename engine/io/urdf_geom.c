/* URDF <visual>, <collision> and <material>: geoms, meshes (resolved through package
 * paths, shared when the same file and scale appear twice) and materials.
 *
 * Collision geometry collides (group 0, contype = conaffinity = 1); visual geometry is for
 * the viewer only (group 1, contype = conaffinity = 0). Neither has mass: URDF gives the
 * inertia explicitly. Friction is MuJoCo's default (1, 0.005, 0.0001): URDF has no friction
 * of its own outside the <gazebo> extensions, which are ignored.
 */
#include <stdio.h>
#include <string.h>

#include "engine/core/error.h"
#include "engine/core/mr_math.h"
#include "package_path.h"
#include "urdf.h"
#include "xml.h"

#define MR_URDF_PATH_MAX 4096

static const float mr_urdf_visual_rgba[4] = {0.7f, 0.7f, 0.7f, 1.0f};

/* ------------------------------------------------------------------ materials */

static int mr_urdf_texture(mr_urdf *u, const xmlNode *tex) {
  mr_source src = mr_urdf_src(u, tex);
  const char *file = mr_xml_attr(tex, "filename");
  if (!file || !*file) return -1;
  char path[MR_URDF_PATH_MAX], looked[1024];
  if (mr_package_resolve(file, u->file, u->opt->package_path, path, sizeof path, looked,
                         sizeof looked) < 0) {
    mr_warnf(u->s->quiet, src, "texture '%s' not found (looked in: %s); ignored", file, looked);
    return -1;
  }
  int t = mr_spec_add_texture(u->s, src);
  if (t < 0) return -2;
  u->s->textures[t].path = mr_spec_strdup(u->s, path);
  return t;
}

/* Defines a material from an element with <color> and/or <texture> children. */
static int mr_urdf_define_material(mr_urdf *u, const xmlNode *node, const char *name) {
  mr_source src = mr_urdf_src(u, node);
  double rgba[4] = {1, 1, 1, 1};
  const xmlNode *color = mr_urdf_child(node, "color");
  if (color &&
      mr_xml_doubles(color, "rgba", rgba, 4, 4, mr_urdf_src(u, color), u->err, u->errlen) < 0)
    return -1;
  const xmlNode *tex = mr_urdf_child(node, "texture");
  int t = tex ? mr_urdf_texture(u, tex) : -1;
  if (t == -2) return mr_errorf(u->err, u->errlen, src, "out of memory");
  int m = mr_spec_add_material(u->s, src);
  if (m < 0) return mr_errorf(u->err, u->errlen, src, "out of memory");
  mr_spec_material *mat = &u->s->materials[m];
  if (name && *name) mat->name = mr_spec_strdup(u->s, name);
  for (int k = 0; k < 4; k++) mat->rgba[k] = (float)rgba[k];
  mat->texture = t;
  return m;
}

static int mr_urdf_has_definition(const xmlNode *node) {
  return mr_urdf_child(node, "color") || mr_urdf_child(node, "texture");
}

int mr_urdf_materials(mr_urdf *u) {
  for (const xmlNode *c = u->robot->children; c; c = c->next) {
    if (!mr_xml_is(c, "material")) continue;
    const char *name = mr_xml_attr(c, "name");
    if (name && *name && mr_spec_find_material(u->s, name) >= 0) {
      mr_warnf(u->s->quiet, mr_urdf_src(u, c), "material '%s' defined twice; first kept", name);
      continue;
    }
    if (mr_urdf_define_material(u, c, name) < 0) return -1;
  }
  return 0;
}

/* The material of a <visual>: a reference by name, or defined in place (and then known by
 * that name to later links, as ROS's parser does). -1 if none, -2 on error. */
static int mr_urdf_visual_material(mr_urdf *u, const xmlNode *visual) {
  const xmlNode *node = mr_urdf_child(visual, "material");
  if (!node) return -1;
  const char *name = mr_xml_attr(node, "name");
  int m = name && *name ? mr_spec_find_material(u->s, name) : -1;
  if (m >= 0) return m;
  if (mr_urdf_has_definition(node)) {
    m = mr_urdf_define_material(u, node, name);
    return m < 0 ? -2 : m;
  }
  mr_warnf(u->s->quiet, mr_urdf_src(u, node), "unknown material '%s'; ignored",
           name ? name : "");
  return -1;
}

/* ------------------------------------------------------------------ meshes */

static int mr_urdf_same_mesh(const mr_spec_mesh *m, const char *path, const double scale[3]) {
  return strcmp(m->path, path) == 0 && m->scale[0] == scale[0] && m->scale[1] == scale[1] &&
         m->scale[2] == scale[2];
}

/* A unique mesh name from the file's stem: "link1", then "link1_2", ... */
static const char *mr_urdf_mesh_name(mr_urdf *u, const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char stem[256], name[280];
  size_t n = strlen(base) < sizeof stem - 1 ? strlen(base) : sizeof stem - 1;
  memcpy(stem, base, n);
  stem[n] = 0;
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = 0;
  snprintf(name, sizeof name, "%s", stem);
  for (int k = 2; mr_spec_find_mesh(u->s, name) >= 0; k++)
    snprintf(name, sizeof name, "%s_%d", stem, k);
  return mr_spec_strdup(u->s, name);
}

static int mr_urdf_mesh(mr_urdf *u, const xmlNode *node) {
  mr_source src = mr_urdf_src(u, node);
  const char *file = mr_xml_attr(node, "filename");
  if (!file || !*file)
    return mr_errorf(u->err, u->errlen, src, "<mesh> without a filename");
  double scale[3] = {1, 1, 1};
  int n = mr_xml_doubles(node, "scale", scale, 1, 3, src, u->err, u->errlen);
  if (n < 0) return -1;
  if (n == 2) return mr_errorf(u->err, u->errlen, src, "attribute 'scale': expected 1 or 3 numbers");
  if (n == 1) scale[1] = scale[2] = scale[0];
  char path[MR_URDF_PATH_MAX], looked[1024];
  if (mr_package_resolve(file, u->file, u->opt->package_path, path, sizeof path, looked,
                         sizeof looked) < 0)
    return mr_errorf(u->err, u->errlen, src, "mesh '%s' not found (looked in: %s)", file, looked);
  for (int i = 0; i < u->s->nmeshes; i++)
    if (mr_urdf_same_mesh(&u->s->meshes[i], path, scale)) return i;
  int i = mr_spec_add_mesh(u->s, src);
  if (i < 0) return mr_errorf(u->err, u->errlen, src, "out of memory");
  mr_spec_mesh *m = &u->s->meshes[i];
  m->path = mr_spec_strdup(u->s, path);
  mr_copy3(m->scale, scale);
  u->s->meshes[i].name = mr_urdf_mesh_name(u, path);
  return i;
}

/* ------------------------------------------------------------------ shapes */

static int mr_urdf_number(mr_urdf *u, const xmlNode *node, const char *attr, double *v) {
  mr_source src = mr_urdf_src(u, node);
  int n = mr_xml_doubles(node, attr, v, 1, 1, src, u->err, u->errlen);
  if (n == 0)
    return mr_errorf(u->err, u->errlen, src, "<%s> without '%s'", (const char *)node->name, attr);
  return n < 0 ? -1 : 0;
}

/* Fills type, size and mesh of geom g from the shape element inside <geometry>. */
static int mr_urdf_shape(mr_urdf *u, const xmlNode *shape, int g) {
  mr_source src = mr_urdf_src(u, shape);
  double size[3] = {0, 0, 0};
  int type, mesh = -1;
  if (mr_xml_is(shape, "box")) {
    type = MR_GEOM_BOX;
    int n = mr_xml_doubles(shape, "size", size, 3, 3, src, u->err, u->errlen);
    if (n < 0) return -1;
    if (n == 0) return mr_errorf(u->err, u->errlen, src, "<box> without 'size'");
    mr_scale3(size, size, 0.5);
  } else if (mr_xml_is(shape, "cylinder") || mr_xml_is(shape, "capsule")) {
    type = mr_xml_is(shape, "cylinder") ? MR_GEOM_CYLINDER : MR_GEOM_CAPSULE;
    if (mr_urdf_number(u, shape, "radius", &size[0]) < 0) return -1;
    if (mr_urdf_number(u, shape, "length", &size[1]) < 0) return -1;
    size[1] *= 0.5;
  } else if (mr_xml_is(shape, "sphere")) {
    type = MR_GEOM_SPHERE;
    if (mr_urdf_number(u, shape, "radius", &size[0]) < 0) return -1;
  } else if (mr_xml_is(shape, "mesh")) {
    type = MR_GEOM_MESH;
    if ((mesh = mr_urdf_mesh(u, shape)) < 0) return -1;
  } else {
    return mr_errorf(u->err, u->errlen, src,
                     "unknown geometry <%s> (expected box, cylinder, sphere or mesh)",
                     (const char *)shape->name);
  }
  mr_spec_geom *geom = &u->s->geoms[g];
  geom->type = type;
  geom->mesh = mesh;
  mr_copy3(geom->size, size);
  return 0;
}

static const xmlNode *mr_urdf_first_element(const xmlNode *node) {
  for (const xmlNode *c = node ? node->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) return c;
  return NULL;
}

/* One <visual> or <collision> of link l, placed in body b. */
static int mr_urdf_geom(mr_urdf *u, const mr_urdf_link *l, const xmlNode *node, int body,
                        int visual) {
  mr_source src = mr_urdf_src(u, node);
  const xmlNode *shape = mr_urdf_first_element(mr_urdf_child(node, "geometry"));
  if (!shape)
    return mr_errorf(u->err, u->errlen, src, "link '%s': <%s> without <geometry>", l->name,
                     visual ? "visual" : "collision");
  double pos[3], quat[4];
  if (mr_urdf_origin(u, node, pos, quat) < 0) return -1;
  int material = visual ? mr_urdf_visual_material(u, node) : -1;
  if (material == -2) return -1;
  int g = mr_spec_add_geom(u->s, body, src);
  if (g < 0) return mr_errorf(u->err, u->errlen, src, "out of memory");
  if (mr_urdf_shape(u, shape, g) < 0) return -1;
  mr_spec_geom *geom = &u->s->geoms[g];
  mr_frame_mul(geom->pos, geom->quat, l->pos, l->quat, pos, quat);
  geom->mass = 0;
  geom->group = visual ? 1 : 0;
  geom->contype = geom->conaffinity = visual ? 0 : 1;
  geom->friction[0] = 1;
  geom->friction[1] = 0.005;
  geom->friction[2] = 0.0001;
  if (visual) {
    geom->material = material;
    const float *rgba = material >= 0 ? u->s->materials[material].rgba : mr_urdf_visual_rgba;
    memcpy(geom->rgba, rgba, sizeof geom->rgba);
  }
  return 0;
}

int mr_urdf_link_geoms(mr_urdf *u, int link, int body) {
  const mr_urdf_link *l = &u->links[link];
  for (const xmlNode *c = l->node->children; c; c = c->next) {
    int visual = mr_xml_is(c, "visual");
    if (!visual && !mr_xml_is(c, "collision")) continue;
    if (mr_urdf_geom(u, l, c, body, visual) < 0) return -1;
  }
  return 0;
}
