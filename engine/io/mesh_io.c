/* Mesh files through assimp: every sub-mesh of the scene with its node transform applied,
 * merged into one indexed triangle list, then scaled. */
#include "mesh_io.h"

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assimp_api.h"
#include "mesh_file_io.h"
#include "xml.h"

/* Row-major 4x4 affine transform: out = a * b. */
static void mr_affine_mul(double out[16], const double a[16], const double b[16]) {
  double t[16];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      double sum = 0;
      for (int k = 0; k < 4; k++) sum += a[4 * i + k] * b[4 * k + j];
      t[4 * i + j] = sum;
    }
  memcpy(out, t, sizeof t);
}

static void mr_affine_from_ai(double out[16], const struct aiMatrix4x4 *m) {
  const double v[16] = {m->a1, m->a2, m->a3, m->a4, m->b1, m->b2, m->b3, m->b4,
                        m->c1, m->c2, m->c3, m->c4, m->d1, m->d2, m->d3, m->d4};
  memcpy(out, v, sizeof v);
}

/* The scene's nodes in depth-first order with their world transforms, walked with an
 * explicit stack: a file may nest nodes as deep as it likes. */
typedef struct scene_walk {
  const struct aiNode **node;
  double (*T)[16];
  size_t n, cap;
} scene_walk;

static int scene_walk_push(scene_walk *w, const struct aiNode *node, const double parent[16]) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 64;
    const struct aiNode **nodes = realloc(w->node, cap * sizeof *nodes);
    if (!nodes) return -1;
    w->node = nodes;
    double(*T)[16] = realloc(w->T, cap * sizeof *T);
    if (!T) return -1;
    w->T = T;
    w->cap = cap;
  }
  double local[16];
  mr_affine_from_ai(local, &node->mTransformation);
  mr_affine_mul(w->T[w->n], parent, local);
  w->node[w->n++] = node;
  return 0;
}

/* Calls visit for every node (its world transform given); stops at the first nonzero. */
static int scene_walk_all(const struct aiScene *sc, int (*visit)(void *, const struct aiScene *,
                                                                 const struct aiNode *,
                                                                 const double[16]),
                          void *user) {
  static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  scene_walk w = {0};
  int rc = scene_walk_push(&w, sc->mRootNode, identity);
  while (rc == 0 && w.n > 0) {
    w.n--;
    const struct aiNode *node = w.node[w.n];
    double T[16];
    memcpy(T, w.T[w.n], sizeof T);
    rc = visit(user, sc, node, T);
    /* children pushed last first, so they come out in file order */
    for (unsigned c = node->mNumChildren; rc == 0 && c > 0; c--)
      if (node->mChildren[c - 1]) rc = scene_walk_push(&w, node->mChildren[c - 1], T);
  }
  free(w.node);
  free(w.T);
  return rc;
}

/* Counting pass: vertices and triangles of every node's meshes (a mesh may be instanced
 * at many nodes), in size_t and stopped at the limits, so the arrays can be sized exactly
 * and never by a product that wraps. */
typedef struct scene_count {
  size_t nv, nf;
  long max_vert, max_face;
  int bad_mesh;
} scene_count;

static int scene_count_node(void *user, const struct aiScene *sc, const struct aiNode *node,
                            const double T[16]) {
  (void)T;
  scene_count *k = user;
  for (unsigned i = 0; i < node->mNumMeshes; i++) {
    if (node->mMeshes[i] >= sc->mNumMeshes || !sc->mMeshes[node->mMeshes[i]]) {
      k->bad_mesh = 1;
      return 1;
    }
    const struct aiMesh *mesh = sc->mMeshes[node->mMeshes[i]];
    if ((mesh->mNumVertices && !mesh->mVertices) || (mesh->mNumFaces && !mesh->mFaces)) {
      k->bad_mesh = 1;
      return 1;
    }
    k->nv += mesh->mNumVertices;
    for (unsigned f = 0; f < mesh->mNumFaces; f++)
      k->nf += mesh->mFaces[f].mNumIndices == 3 && mesh->mFaces[f].mIndices;
    if (k->nv > (size_t)k->max_vert || k->nf > (size_t)k->max_face) return 1;
  }
  return 0;
}

static int scene_append_node(void *user, const struct aiScene *sc, const struct aiNode *node,
                             const double T[16]) {
  mr_mesh_data *out = user;
  for (unsigned i = 0; i < node->mNumMeshes; i++) {
    const struct aiMesh *mesh = sc->mMeshes[node->mMeshes[i]];
    int base = out->nvert;
    for (unsigned v = 0; v < mesh->mNumVertices; v++) {
      const struct aiVector3D p = mesh->mVertices[v];
      double *o = out->vert + 3 * (size_t)out->nvert;
      float *n = out->normal + 3 * (size_t)out->nvert;
      for (int r = 0; r < 3; r++) {
        o[r] = T[4 * r] * p.x + T[4 * r + 1] * p.y + T[4 * r + 2] * p.z + T[4 * r + 3];
        n[r] = 0;
        if (mesh->mNormals) {
          const struct aiVector3D q = mesh->mNormals[v];
          n[r] = (float)(T[4 * r] * q.x + T[4 * r + 1] * q.y + T[4 * r + 2] * q.z);
        }
      }
      out->nvert++;
    }
    for (unsigned f = 0; f < mesh->mNumFaces; f++) {
      const struct aiFace *face = &mesh->mFaces[f];
      if (face->mNumIndices != 3 || !face->mIndices) continue;
      for (int k = 0; k < 3; k++) {
        /* an index past the mesh's vertices would point into another mesh, or nowhere */
        if (face->mIndices[k] >= mesh->mNumVertices) return 1;
        out->face[3 * (size_t)out->nface + k] = base + (int)face->mIndices[k];
      }
      out->nface++;
    }
  }
  return 0;
}

/* Area-weighted vertex normals, for files that carry none; then unit length. */
void mr_mesh_data_normals(mr_mesh_data *m, int recompute) {
  if (recompute) {
    memset(m->normal, 0, sizeof(float) * 3 * (size_t)m->nvert);
    for (int f = 0; f < m->nface; f++) {
      const int *t = m->face + 3 * f;
      const double *a = m->vert + 3 * t[0], *b = m->vert + 3 * t[1], *c = m->vert + 3 * t[2];
      double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
      for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) m->normal[3 * t[k] + r] += (float)n[r];
    }
  }
  for (int v = 0; v < m->nvert; v++) {
    float *n = m->normal + 3 * v;
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
  }
}

static int mr_scene_has_normals(const struct aiScene *sc) {
  for (unsigned i = 0; i < sc->mNumMeshes; i++)
    if (!sc->mMeshes[i]->mNormals) return 0;
  return 1;
}

void mr_mesh_budget_init(mr_mesh_budget *b) {
  b->bytes = 4 * MR_MESH_MAX_BYTES;
  b->vert = 2 * MR_MESH_MAX_VERT;
  b->face = 2 * MR_MESH_MAX_FACE;
}

static int mr_mesh_is_msh(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcasecmp(path + n - 4, ".msh") == 0;
}

/* A .msh file's counts against the limits and what is left of the model's budget (its
 * reader bounds the file by its header, so only the totals are checked here). */
static int mr_mesh_msh_budget(const char *path, mr_mesh_budget *budget, mr_mesh_data *out,
                              char *msg, int msglen) {
  long max_vert = budget->vert < MR_MESH_MAX_VERT ? budget->vert : MR_MESH_MAX_VERT;
  long max_face = budget->face < MR_MESH_MAX_FACE ? budget->face : MR_MESH_MAX_FACE;
  if (out->nvert > max_vert || out->nface > max_face) {
    snprintf(msg, (size_t)msglen,
             "mesh file '%s' has more than %ld vertices or %ld triangles (the limits of one "
             "mesh, and of all of a model's meshes together: %ld and %ld)",
             path, max_vert, max_face, 2 * MR_MESH_MAX_VERT, 2 * MR_MESH_MAX_FACE);
    mr_mesh_data_free(out);
    return -1;
  }
  budget->vert -= out->nvert;
  budget->face -= out->nface;
  return 0;
}

/* The file name's extension with its dot ("" when the name has none). */
static const char *mr_mesh_extension(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && !(slash && dot < slash) ? dot : "";
}

/* STL, OBJ and COLLADA, by the file's extension: assimp would otherwise hand a file to
 * whichever of its forty importers claims it, most of them never meant for robot meshes
 * and each a parser a hostile file can reach. */
static int mr_mesh_format_known(const char *path) {
  const char *ext = mr_mesh_extension(path);
  return strcasecmp(ext, ".stl") == 0 || strcasecmp(ext, ".obj") == 0 || strcasecmp(ext, ".dae") == 0;
}

/* The first data array or accessor under n without its count attribute, or NULL. */
static const xmlNode *mr_collada_countless(const xmlNode *n) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    const char *name = (const char *)n->name;
    size_t len = strlen(name);
    int array = len > 6 && strcmp(name + len - 6, "_array") == 0;
    if ((array || strcmp(name, "accessor") == 0) && !mr_xml_attr(n, "count")) return n;
    const xmlNode *bad = mr_collada_countless(n->children);
    if (bad) return bad;
  }
  return NULL;
}

/* assimp 5's COLLADA reader takes a data array's count (<float_array>, <int_array>,
 * <Name_array>, ...) as present and dereferences it when it is not: a file whose
 * <float_array> had lost it crashed the loader (tests/fuzz/regressions/mesh). The
 * attribute is required by the COLLADA schema; a file without one is refused here, read
 * once with libxml2 before assimp sees it. Returns 0, or -1 with msg set. */
static int mr_collada_check(const char *path, char *msg, int msglen) {
  char err[512];
  xmlDoc *doc = mr_xml_read(path, err, (int)sizeof err);
  if (!doc) {
    snprintf(msg, (size_t)msglen, "cannot read mesh file: %s", err);
    return -1;
  }
  const xmlNode *bad = mr_collada_countless(xmlDocGetRootElement(doc));
  if (bad)
    snprintf(msg, (size_t)msglen, "mesh file '%s': line %ld: <%s> has no count attribute", path,
             xmlGetLineNo(bad), (const char *)bad->name);
  xmlFreeDoc(doc);
  return bad ? -1 : 0;
}

static const struct aiScene *mr_mesh_import(const char *path, mr_mesh_budget *budget, char *msg,
                                            int msglen) {
  if (!mr_mesh_format_known(path)) {
    snprintf(msg, (size_t)msglen, "mesh file '%s': unknown format (STL, OBJ, DAE and MSH are read)", path);
    return NULL;
  }
  if (strcasecmp(mr_mesh_extension(path), ".dae") == 0 && mr_collada_check(path, msg, msglen)) return NULL;
  if (mr_assimp_load(path, msg, msglen)) return NULL;
  mr_mesh_file_io io;
  mr_mesh_file_io_init(&io, budget->bytes < MR_MESH_MAX_BYTES ? budget->bytes : MR_MESH_MAX_BYTES);
  /* A COLLADA file's <up_axis> is ignored: assimp would otherwise turn Z_UP files into its
   * Y-up convention, but robot descriptions (URDF, as ROS tools read them) place a mesh in
   * its link frame exactly as its vertices are written (panda's visual .dae links stood
   * 90 degrees off their .stl collision twins). */
  struct aiPropertyStore *props = aiCreatePropertyStore();
  if (props) aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  const struct aiScene *sc = aiImportFileExWithProperties(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices,
      &io.io, props);
  if (props) aiReleasePropertyStore(props);
  budget->bytes -= io.bytes_read;
  if (!sc || !sc->mRootNode) {
    if (io.why[0]) snprintf(msg, (size_t)msglen, "cannot read mesh file: %s", io.why);
    else snprintf(msg, (size_t)msglen, "cannot read mesh file '%s': %s", path, aiGetErrorString());
    if (sc) aiReleaseImport(sc);
    return NULL;
  }
  return sc;
}

/* Sizes the output from a counting pass, checked against the limits before anything is
 * allocated. */
static int mr_mesh_alloc(const struct aiScene *sc, const char *path, mr_mesh_budget *budget,
                         mr_mesh_data *out, char *msg, int msglen) {
  scene_count k = {0, 0, MR_MESH_MAX_VERT, MR_MESH_MAX_FACE, 0};
  if (budget->vert < k.max_vert) k.max_vert = budget->vert;
  if (budget->face < k.max_face) k.max_face = budget->face;
  int stopped = scene_walk_all(sc, scene_count_node, &k);
  if (k.bad_mesh) {
    snprintf(msg, (size_t)msglen, "mesh file '%s': a node names a mesh the file does not have, or a mesh lacks its arrays", path);
    return -1;
  }
  if (stopped || k.nv > (size_t)k.max_vert || k.nf > (size_t)k.max_face) {
    snprintf(msg, (size_t)msglen,
             "mesh file '%s' has more than %ld vertices or %ld triangles (the limits of one "
             "mesh, and of all of a model's meshes together: %ld and %ld)",
             path, k.max_vert, k.max_face, 2 * MR_MESH_MAX_VERT, 2 * MR_MESH_MAX_FACE);
    return -1;
  }
  budget->vert -= (long)k.nv;
  budget->face -= (long)k.nf;
  out->vert = malloc(sizeof(double) * 3 * (k.nv > 0 ? k.nv : 1));
  out->normal = malloc(sizeof(float) * 3 * (k.nv > 0 ? k.nv : 1));
  out->face = malloc(sizeof(int) * 3 * (k.nf > 0 ? k.nf : 1));
  if (out->vert && out->normal && out->face) return 0;
  snprintf(msg, (size_t)msglen, "out of memory reading mesh file '%s'", path);
  return -1;
}

int mr_mesh_load_budget(const char *path, const double scale[3], mr_mesh_budget *budget,
                        mr_mesh_data *out, char *msg, int msglen) {
  memset(out, 0, sizeof *out);
  mr_mesh_budget own;
  if (!budget) mr_mesh_budget_init(budget = &own);
  if (mr_mesh_is_msh(path))
    return mr_mesh_load_msh(path, scale, out, msg, msglen) ||
           mr_mesh_msh_budget(path, budget, out, msg, msglen) ? -1 : 0;
  const struct aiScene *sc = mr_mesh_import(path, budget, msg, msglen);
  if (!sc) return -1;
  if (mr_mesh_alloc(sc, path, budget, out, msg, msglen)) {
    aiReleaseImport(sc);
    mr_mesh_data_free(out);
    return -1;
  }
  if (scene_walk_all(sc, scene_append_node, out)) {
    snprintf(msg, (size_t)msglen, "mesh file '%s': a face indexes a vertex the mesh does not have",
             path);
    aiReleaseImport(sc);
    mr_mesh_data_free(out);
    return -1;
  }
  int had_normals = mr_scene_has_normals(sc);
  aiReleaseImport(sc);
  for (int v = 0; v < out->nvert; v++)
    for (int r = 0; r < 3; r++) {
      /* Kept in double (MuJoCo rounds to float): a mesh box then collides exactly like the
       * primitive box, and mass properties differ from MuJoCo's only in float round-off. */
      out->vert[3 * v + r] = out->vert[3 * v + r] * scale[r];
      if (scale[r] != 0) out->normal[3 * v + r] /= (float)scale[r];
    }
  mr_mesh_data_normals(out, !had_normals);
  return 0;
}

int mr_mesh_load(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                 int msglen) {
  return mr_mesh_load_budget(path, scale, NULL, out, msg, msglen);
}

void mr_mesh_data_free(mr_mesh_data *m) {
  if (!m) return;
  free(m->vert);
  free(m->normal);
  free(m->face);
  memset(m, 0, sizeof *m);
}
