/* MuJoCo's binary mesh file (.msh), read with every size checked before it is used: the
 * counts must be non-negative and below a cap, and the file must be exactly as long as
 * they say, so a truncated or doctored file is refused before anything is allocated. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/core/file_read.h"
#include "mesh_io.h"

/* Any count of one mesh at most: the limit on a mesh file's triangles (mesh_io.h), so what
 * is allocated from a header stays bounded as for every other mesh format. */
#define MR_MSH_MAX_COUNT MR_MESH_MAX_FACE

static int mr_msh_fail(char *msg, int msglen, const char *path, const char *what) {
  snprintf(msg, (size_t)msglen, "mesh file '%s': %s", path, what);
  return -1;
}

/* Reads n bytes or fails. */
static int mr_msh_read(FILE *f, void *buf, size_t n) { return n == 0 || fread(buf, 1, n, f) == n ? 0 : -1; }

int mr_mesh_load_msh(const char *path, const double scale[3], mr_mesh_data *out, char *msg,
                     int msglen) {
  memset(out, 0, sizeof *out);
  char why[200];
  FILE *f = mr_file_open_regular(path, why, (int)sizeof why);
  if (!f) return mr_msh_fail(msg, msglen, path, why);
  struct stat st;
  int32_t count[4];
  if (fstat(fileno(f), &st) != 0 || mr_msh_read(f, count, sizeof count)) {
    fclose(f);
    return mr_msh_fail(msg, msglen, path, "too short for a .msh header (4 counts)");
  }
  for (int k = 0; k < 4; k++)
    if (count[k] < 0 || count[k] > MR_MSH_MAX_COUNT) {
      fclose(f);
      return mr_msh_fail(msg, msglen, path, "a count in the header is negative or too large");
    }
  int nv = count[0], nn = count[1], nt = count[2], nf = count[3];
  uint64_t expect = 16 + 4 * (3 * (uint64_t)nv + 3 * (uint64_t)nn + 2 * (uint64_t)nt + 3 * (uint64_t)nf);
  if ((uint64_t)st.st_size != expect) {
    fclose(f);
    char what[160];
    snprintf(what, sizeof what, "its size (%lld bytes) is not the %llu bytes its header promises "
             "(truncated or not a .msh file)", (long long)st.st_size, (unsigned long long)expect);
    return mr_msh_fail(msg, msglen, path, what);
  }
  if (nv < 4) {
    fclose(f);
    return mr_msh_fail(msg, msglen, path, "fewer than 4 vertices");
  }
  if (nn != 0 && nn != nv) {
    fclose(f);
    return mr_msh_fail(msg, msglen, path, "the normal count is neither 0 nor the vertex count");
  }
  float *fv = malloc(sizeof(float) * 3 * (size_t)nv);
  float *fn = malloc(sizeof(float) * 3 * (size_t)(nn > 0 ? nn : 1));
  out->vert = malloc(sizeof(double) * 3 * (size_t)nv);
  out->normal = calloc(3 * (size_t)nv, sizeof(float));
  out->face = malloc(sizeof(int) * 3 * (size_t)(nf > 0 ? nf : 1));
  int rc = 0;
  if (!fv || !fn || !out->vert || !out->normal || !out->face) {
    rc = mr_msh_fail(msg, msglen, path, "out of memory");
  } else if (mr_msh_read(f, fv, sizeof(float) * 3 * (size_t)nv) ||
             mr_msh_read(f, fn, sizeof(float) * 3 * (size_t)nn) ||
             fseek(f, (long)(sizeof(float) * 2 * (size_t)nt), SEEK_CUR) != 0 ||
             mr_msh_read(f, out->face, sizeof(int) * 3 * (size_t)nf)) {
    rc = mr_msh_fail(msg, msglen, path, "read error");
  }
  fclose(f);
  for (int i = 0; rc == 0 && i < 3 * nf; i++)
    if (out->face[i] < 0 || out->face[i] >= nv) rc = mr_msh_fail(msg, msglen, path, "a face refers to a missing vertex");
  for (int i = 0; rc == 0 && i < 3 * nv; i++) {
    if (!isfinite(fv[i])) rc = mr_msh_fail(msg, msglen, path, "a vertex is not finite");
    out->vert[i] = (double)fv[i] * scale[i % 3];
    if (nn) out->normal[i] = scale[i % 3] != 0 ? fn[i] / (float)scale[i % 3] : fn[i];
  }
  free(fv);
  free(fn);
  if (rc) {
    mr_mesh_data_free(out);
    return -1;
  }
  out->nvert = nv;
  out->nface = nf;
  mr_mesh_data_normals(out, nn == 0 && nf > 0);
  return 0;
}
