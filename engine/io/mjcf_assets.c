/* <asset>: meshes, heightfields, textures and materials. Meshes and textures are read before materials
 * so that a material may name a texture defined after it, as MuJoCo allows. File paths
 * are resolved here (meshdir / texturedir, relative to the model's directory); the
 * compiler loads the mesh files.
 */
#include <stdio.h>
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

/* The file name without directory and extension: MuJoCo's default asset name. */
static const char *mjcf_file_stem(mjcf_ctx *c, const char *file) {
  const char *base = strrchr(file, '/');
  base = base ? base + 1 : file;
  char stem[512];
  snprintf(stem, sizeof stem, "%s", base);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = 0;
  return mr_spec_strdup(c->s, stem);
}

/* Inline vertex (and optionally face) data: faces must index the vertices; without faces
 * the compiler uses the vertices' convex hull, as MuJoCo does. */
static int mjcf_mesh_inline(mjcf_ctx *c, const xmlNode *n, mr_spec_mesh *m) {
  double *v, *f;
  int nv, nf;
  if (mjcf_vector(c, n, "vertex", &v, &nv) < 0 || mjcf_vector(c, n, "face", &f, &nf) < 0) return -1;
  if (nv % 3 || nv < 12)
    return mjcf_fail(c, n, "<mesh> vertex data must be at least 4 points of 3 numbers (got %d numbers)", nv);
  if (nf % 3) return mjcf_fail(c, n, "<mesh> face data must be triangles of 3 indices (got %d numbers)", nf);
  int *face = nf ? mr_spec_ints(c->s, NULL, nf) : NULL;
  if (nf && !face) return mjcf_fail(c, n, "out of memory");
  for (int i = 0; i < nf; i++) {
    if (!(f[i] >= 0 && f[i] < nv / 3) || f[i] != (int)f[i])
      return mjcf_fail(c, n, "<mesh> face index %g is not a vertex (0 to %d)", f[i], nv / 3 - 1);
    face[i] = (int)f[i];
  }
  m->vert = v;
  m->nvert = nv / 3;
  m->face = face;
  m->nface = nf / 3;
  return 0;
}

static int mjcf_mesh(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_mesh_def d = c->classes[k].mesh;
  if (mjcf_mesh_apply(c, &d, n) < 0) return -1;
  const char *file = mr_xml_attr(n, "file");
  int has_file = file && file[0], has_vertex = mr_xml_attr(n, "vertex") != NULL;
  if (has_file == has_vertex)
    return mjcf_fail(c, n, has_file ? "<mesh> has both a file and vertex data"
                                    : "<mesh> needs a file or vertex data");
  if (has_vertex && !mr_xml_attr(n, "name")) return mjcf_fail(c, n, "<mesh> with vertex data needs a name");
  int id = mr_spec_add_mesh(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_mesh *m = &c->s->meshes[id];
  memcpy(m->scale, d.scale, sizeof d.scale);
  if (has_vertex) {
    m->name = mjcf_name(c, n, "name");
    return mjcf_mesh_inline(c, n, m);
  }
  char path[MJCF_PATH_MAX];
  mjcf_join_path(path, sizeof path, c->dir, c->meshdir, file);
  m->name = mr_xml_attr(n, "name") ? mjcf_name(c, n, "name") : mjcf_file_stem(c, file);
  m->path = mr_spec_strdup(c->s, path);
  return 0;
}

/* <hfield>: a file (PNG or MuJoCo's binary), inline elevation (nrow x ncol values, as
 * MuJoCo 2.3 reads them), or nrow x ncol zeros (MuJoCo 2.2's way to leave the data to the
 * user). Files resolve against meshdir, as MuJoCo resolves them. */
static int mjcf_hfield(mjcf_ctx *c, const xmlNode *n) {
  int id = mr_spec_add_hfield(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_hfield *h = &c->s->hfields[id];
  const char *file = mr_xml_attr(n, "file");
  if (mjcf_int(c, n, "nrow", &h->nrow) < 0 || mjcf_int(c, n, "ncol", &h->ncol) < 0) return -1;
  int k = mjcf_doubles(c, n, "size", h->size, 4, 4);
  if (k < 0) return -1;
  if (k == 0) return mjcf_fail(c, n, "<hfield> needs a size (x, y, top height, base depth)");
  for (int i = 0; i < 4; i++)
    if (!(h->size[i] > 0)) return mjcf_fail(c, n, "<hfield> size[%d] = %g must be positive", i, h->size[i]);
  double *elevation;
  int nelev;
  if (mjcf_vector(c, n, "elevation", &elevation, &nelev) < 0) return -1;
  if (file && file[0]) {
    if (h->nrow || h->ncol || elevation)
      return mjcf_fail(c, n, "<hfield> has a file and nrow/ncol/elevation: one or the other");
    char path[MJCF_PATH_MAX];
    mjcf_join_path(path, sizeof path, c->dir, c->meshdir, file);
    h->path = mr_spec_strdup(c->s, path);
    h->name = mr_xml_attr(n, "name") ? mjcf_name(c, n, "name") : mjcf_file_stem(c, file);
    return 0;
  }
  if (h->nrow < 2 || h->ncol < 2)
    return mjcf_fail(c, n, "<hfield> without a file needs nrow and ncol of at least 2 (got %d x %d)",
                     h->nrow, h->ncol);
  if (h->nrow > 1 << 14 || h->ncol > 1 << 14)
    return mjcf_fail(c, n, "<hfield> %d x %d is larger than 16384 x 16384", h->nrow, h->ncol);
  if (elevation && nelev != h->nrow * h->ncol)
    return mjcf_fail(c, n, "<hfield> elevation has %d values, nrow x ncol is %d", nelev, h->nrow * h->ncol);
  h->elevation = elevation;
  h->name = mjcf_name(c, n, "name");
  return 0;
}

static int mjcf_texture(mjcf_ctx *c, const xmlNode *n) {
  static const char *const types[] = {"2d", "cube", "skybox", NULL};
  static const char *const builtins[] = {"none", "gradient", "checker", "flat", NULL};
  mr_source src = mjcf_src(c, n);
  int type = mr_xml_keyword(n, "type", types, src, c->err, c->errlen);
  if (type == -2) return -1;
  int builtin = mr_xml_keyword(n, "builtin", builtins, src, c->err, c->errlen);
  if (builtin == -2) return -1;
  int id = mr_spec_add_texture(c->s, src);
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  mr_spec_texture *t = &c->s->textures[id];
  t->type = type >= 0 ? type : 1; /* MuJoCo's default texture type is cube */
  t->builtin = builtin >= 0 ? builtin : 0;
  if (mjcf_floats(c, n, "rgb1", t->rgb1, 3, 3) < 0) return -1;
  if (mjcf_floats(c, n, "rgb2", t->rgb2, 3, 3) < 0) return -1;
  if (mjcf_int(c, n, "width", &t->width) < 0) return -1;
  if (mjcf_int(c, n, "height", &t->height) < 0) return -1;
  const char *file = mr_xml_attr(n, "file");
  if (file && file[0]) {
    char path[MJCF_PATH_MAX];
    mjcf_join_path(path, sizeof path, c->dir, c->texturedir, file);
    t->path = mr_spec_strdup(c->s, path);
  }
  if (mr_xml_attr(n, "name"))
    t->name = mjcf_name(c, n, "name");
  else if (file && file[0])
    t->name = mjcf_file_stem(c, file);
  if (!t->path && t->builtin == 0 && !mr_xml_attr(n, "fileright"))
    return mjcf_fail(c, n, "<texture> needs a file or a builtin");
  return 0;
}

static int mjcf_material(mjcf_ctx *c, const xmlNode *n) {
  int k = mjcf_class_of(c, n, 0);
  if (k < 0) return -1;
  mjcf_material_def d = c->classes[k].material;
  if (mjcf_material_apply(c, &d, n) < 0) return -1;
  d.m.texture = -1;
  if (d.texture) {
    d.m.texture = mr_spec_find_texture(c->s, d.texture);
    if (d.m.texture < 0) return mjcf_fail(c, n, "unknown texture '%.80s'", d.texture);
  }
  int id = mr_spec_add_material(c->s, mjcf_src(c, n));
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  d.m.src = mjcf_src(c, n);
  d.m.name = mjcf_name(c, n, "name");
  c->s->materials[id] = d.m;
  return 0;
}

int mjcf_parse_asset(mjcf_ctx *c, const xmlNode *node) {
  for (const xmlNode *ch = node->children; ch; ch = ch->next) {
    if (!mjcf_elem(ch)) continue;
    int rc = 0;
    if (mr_xml_is(ch, "mesh"))
      rc = mjcf_mesh(c, ch);
    else if (mr_xml_is(ch, "texture"))
      rc = mjcf_texture(c, ch);
    else if (mr_xml_is(ch, "hfield"))
      rc = mjcf_hfield(c, ch);
    else if (!mr_xml_is(ch, "material"))
      mjcf_warn_once(c, ch, (const char *)ch->name);
    if (rc < 0) return -1;
  }
  for (const xmlNode *ch = node->children; ch; ch = ch->next)
    if (mr_xml_is(ch, "material") && mjcf_material(c, ch) < 0) return -1;
  return 0;
}
