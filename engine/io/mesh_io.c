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

/* Counts vertices and triangles of every node's meshes (a mesh may be instanced twice). */
static void mr_scene_count(const struct aiScene *sc, const struct aiNode *node, int *nv, int *nf) {
  for (unsigned i = 0; i < node->mNumMeshes; i++) {
    const struct aiMesh *mesh = sc->mMeshes[node->mMeshes[i]];
    *nv += (int)mesh->mNumVertices;
    for (unsigned f = 0; f < mesh->mNumFaces; f++) *nf += mesh->mFaces[f].mNumIndices == 3;
  }
  for (unsigned c = 0; c < node->mNumChildren; c++) mr_scene_count(sc, node->mChildren[c], nv, nf);
}

static void mr_scene_append(const struct aiScene *sc, const struct aiNode *node,
                            const double parent[16], mr_mesh_data *out) {
  double local[16], T[16];
  mr_affine_from_ai(local, &node->mTransformation);
  mr_affine_mul(T, parent, local);
  for (unsigned i = 0; i < node->mNumMeshes; i++) {
    const struct aiMesh *mesh = sc->mMeshes[node->mMeshes[i]];
    int base = out->nvert;
    for (unsigned v = 0; v < mesh->mNumVertices; v++) {
      const struct aiVector3D p = mesh->mVertices[v];
      double *o = out->vert + 3 * out->nvert;
      float *n = out->normal + 3 * out->nvert;
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
      if (face->mNumIndices != 3) continue;
      for (int k = 0; k < 3; k++) out->face[3 * out->nface + k] = base + (int)face->mIndices[k];
      out->nface++;
    }
  }
  for (unsigned c = 0; c < node->mNumChildren; c++) mr_scene_append(sc, node->mChildren[c], T, out);
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

static int mr_mesh_is_msh(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcasecmp(path + n - 4, ".msh") == 0;
}

int mr_mesh_load(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                 int msglen) {
  memset(out, 0, sizeof *out);
  if (mr_mesh_is_msh(path)) return mr_mesh_load_msh(path, scale, out, msg, msglen);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(msg, (size_t)msglen, "mesh file '%s' not found or unreadable", path);
    return -1;
  }
  fclose(f);
  /* A COLLADA file's <up_axis> is ignored: assimp would otherwise turn Z_UP files into its
   * Y-up convention, but robot descriptions (URDF, as ROS tools read them) place a mesh in
   * its link frame exactly as its vertices are written (panda's visual .dae links stood
   * 90 degrees off their .stl collision twins). */
  struct aiPropertyStore *props = aiCreatePropertyStore();
  if (props) aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
  const struct aiScene *sc = aiImportFileExWithProperties(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices, NULL, props);
  if (props) aiReleasePropertyStore(props);
  if (!sc || !sc->mRootNode) {
    snprintf(msg, (size_t)msglen, "cannot read mesh file '%s': %s", path, aiGetErrorString());
    if (sc) aiReleaseImport(sc);
    return -1;
  }
  int nv = 0, nf = 0;
  mr_scene_count(sc, sc->mRootNode, &nv, &nf);
  out->vert = malloc(sizeof(double) * 3 * (size_t)(nv > 0 ? nv : 1));
  out->normal = malloc(sizeof(float) * 3 * (size_t)(nv > 0 ? nv : 1));
  out->face = malloc(sizeof(int) * 3 * (size_t)(nf > 0 ? nf : 1));
  if (!out->vert || !out->normal || !out->face) {
    aiReleaseImport(sc);
    mr_mesh_data_free(out);
    snprintf(msg, (size_t)msglen, "out of memory reading mesh file '%s'", path);
    return -1;
  }
  static const double identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  mr_scene_append(sc, sc->mRootNode, identity, out);
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

void mr_mesh_data_free(mr_mesh_data *m) {
  if (!m) return;
  free(m->vert);
  free(m->normal);
  free(m->face);
  memset(m, 0, sizeof *m);
}
