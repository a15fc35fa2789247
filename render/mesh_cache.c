/* Tessellation of every geom type and upload of the scene's one vertex buffer. */
#include "mesh_cache.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collision/hfield.h"
#include "engine/core/mr_math.h"

/* Segments around an axis and rings per quarter circle: low enough that a hundred
 * humanoids stay at 60 fps on a software renderer, high enough to look round. */
enum { SLICES = 16, QUARTER_RINGS = 4 };

typedef struct vertex {
  float pos[3];
  float normal[3];
  int geom;
} vertex;

typedef struct builder {
  vertex *v;
  unsigned *idx;
  int nv, ni, capv, capi;
  int failed;
} builder;

static int builder_reserve(builder *b, int nv, int ni) {
  if (b->failed) return -1;
  if (b->nv + nv > b->capv) {
    int cap = b->capv ? b->capv : 4096;
    while (cap < b->nv + nv) cap *= 2;
    vertex *p = realloc(b->v, (size_t)cap * sizeof *p);
    if (!p) return b->failed = 1, -1;
    b->v = p;
    b->capv = cap;
  }
  if (b->ni + ni > b->capi) {
    int cap = b->capi ? b->capi : 8192;
    while (cap < b->ni + ni) cap *= 2;
    unsigned *p = realloc(b->idx, (size_t)cap * sizeof *p);
    if (!p) return b->failed = 1, -1;
    b->idx = p;
    b->capi = cap;
  }
  return 0;
}

static void put_vertex(builder *b, int g, double x, double y, double z, double nx, double ny,
                       double nz) {
  vertex *v = &b->v[b->nv++];
  v->pos[0] = (float)x, v->pos[1] = (float)y, v->pos[2] = (float)z;
  double n = sqrt(nx * nx + ny * ny + nz * nz);
  if (n < 1e-12) n = 1, nz = 1;
  v->normal[0] = (float)(nx / n), v->normal[1] = (float)(ny / n), v->normal[2] = (float)(nz / n);
  v->geom = g;
}

static void put_quad(builder *b, unsigned a, unsigned c, unsigned d, unsigned e) {
  unsigned *i = b->idx + b->ni;
  i[0] = a, i[1] = c, i[2] = d, i[3] = a, i[4] = d, i[5] = e;
  b->ni += 6;
}

/* A surface of revolution about z from a profile of (radius, z, normal r, normal z)
 * points, closed at the poles when the radius is 0. Scales x, y, z by s. */
static void put_revolution(builder *b, int g, const double (*profile)[4], int np,
                           const double s[3]) {
  if (builder_reserve(b, np * (SLICES + 1), (np - 1) * SLICES * 6)) return;
  unsigned base = (unsigned)b->nv;
  for (int i = 0; i < np; i++)
    for (int k = 0; k <= SLICES; k++) {
      double a = 2 * MR_PI * k / SLICES, c = cos(a), sn = sin(a);
      double r = profile[i][0], z = profile[i][1], nr = profile[i][2], nz = profile[i][3];
      /* Normals of a scaled surface transform by the inverse scale. */
      put_vertex(b, g, s[0] * r * c, s[1] * r * sn, s[2] * z, nr * c / s[0], nr * sn / s[1],
                 nz / s[2]);
    }
  for (int i = 0; i + 1 < np; i++)
    for (int k = 0; k < SLICES; k++) {
      unsigned a = base + (unsigned)(i * (SLICES + 1) + k);
      unsigned up = a + SLICES + 1;
      put_quad(b, a, a + 1, up + 1, up);
    }
}

/* Unit sphere profile with an optional straight middle of half length h (a capsule). */
static int sphere_profile(double (*p)[4], double h) {
  int n = 0;
  for (int i = 0; i <= 2 * QUARTER_RINGS; i++) {
    double a = -MR_PI / 2 + MR_PI * i / (2 * QUARTER_RINGS);
    double r = cos(a), z = sin(a);
    double off = i < QUARTER_RINGS ? -h : i > QUARTER_RINGS ? h : 0;
    if (i == QUARTER_RINGS && h > 0) { /* the equator twice: the two ends of the cylinder */
      p[n][0] = r, p[n][1] = z - h, p[n][2] = r, p[n][3] = z, n++;
      off = h;
    }
    p[n][0] = r, p[n][1] = z + off, p[n][2] = r, p[n][3] = z, n++;
  }
  return n;
}

static void put_sphere(builder *b, int g, double rx, double ry, double rz) {
  double p[2 * QUARTER_RINGS + 2][4], s[3] = {rx, ry, rz};
  put_revolution(b, g, (const double(*)[4])p, sphere_profile(p, 0), s);
}

static void put_capsule(builder *b, int g, double r, double h) {
  double p[2 * QUARTER_RINGS + 2][4], s[3] = {r, r, r};
  put_revolution(b, g, (const double(*)[4])p, sphere_profile(p, h / r), s);
}

static void put_cylinder(builder *b, int g, double r, double h) {
  /* Caps and side with separate vertices so the edges stay sharp. */
  double p[8][4] = {{0, -1, 0, -1}, {1, -1, 0, -1}, {1, -1, 1, 0}, {1, 1, 1, 0},
                    {1, 1, 0, 1},   {0, 1, 0, 1}};
  double s[3] = {r, r, h};
  put_revolution(b, g, (const double(*)[4])p, 2, s);
  put_revolution(b, g, (const double(*)[4])p + 2, 2, s);
  put_revolution(b, g, (const double(*)[4])p + 4, 2, s);
}

static void put_box(builder *b, int g, const double hs[3]) {
  if (builder_reserve(b, 24, 36)) return;
  for (int axis = 0; axis < 3; axis++)
    for (int sign = -1; sign <= 1; sign += 2) {
      int u = (axis + 1) % 3, w = (axis + 2) % 3;
      unsigned base = (unsigned)b->nv;
      static const int corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (int k = 0; k < 4; k++) {
        double p[3], n[3] = {0, 0, 0};
        p[axis] = sign * hs[axis];
        /* Counter-clockwise seen from outside on both faces of the axis. */
        p[u] = corner[k][0] * hs[u];
        p[w] = corner[k][1] * sign * hs[w];
        n[axis] = sign;
        put_vertex(b, g, p[0], p[1], p[2], n[0], n[1], n[2]);
      }
      put_quad(b, base, base + 1, base + 2, base + 3);
    }
}

static void put_plane(builder *b, int g, double hx, double hy) {
  if (builder_reserve(b, 4, 6)) return;
  unsigned base = (unsigned)b->nv;
  put_vertex(b, g, -hx, -hy, 0, 0, 0, 1);
  put_vertex(b, g, hx, -hy, 0, 0, 0, 1);
  put_vertex(b, g, hx, hy, 0, 0, 0, 1);
  put_vertex(b, g, -hx, hy, 0, 0, 0, 1);
  put_quad(b, base, base + 1, base + 2, base + 3);
}

static void put_mesh(builder *b, int g, const mr_model *m, int id) {
  int nv = m->mesh_vertnum[id], nf = m->mesh_facenum[id];
  if (builder_reserve(b, nv, 3 * nf)) return;
  unsigned base = (unsigned)b->nv;
  const double *vert = m->mesh_vert + 3 * m->mesh_vertadr[id];
  const float *normal = m->mesh_normal + 3 * m->mesh_vertadr[id];
  for (int i = 0; i < nv; i++)
    put_vertex(b, g, vert[3 * i], vert[3 * i + 1], vert[3 * i + 2], normal[3 * i],
               normal[3 * i + 1], normal[3 * i + 2]);
  const int *face = m->mesh_face + 3 * m->mesh_faceadr[id];
  for (int i = 0; i < 3 * nf; i++) {
    int k = face[i];
    b->idx[b->ni++] = base + (unsigned)(k >= 0 && k < nv ? k : 0);
  }
}

/* Sample (r, c) of a heightfield in its geom frame (collision/hfield.h's layout). */
static void hfield_point(const mr_hfield *h, int r, int c, double p[3]) {
  p[0] = c * h->dx - h->sx;
  p[1] = r * h->dy - h->sy;
  p[2] = h->top * h->data[(size_t)r * h->ncol + c];
}

/* The surface (smooth normals from the neighbouring samples) on the triangles collisions
 * use, then its four sides down to the base and the base itself, so it reads as a solid. */
static void put_hfield_surface(builder *b, int g, const mr_hfield *h) {
  int nr = h->nrow, nc = h->ncol;
  if (builder_reserve(b, nr * nc, 6 * (nr - 1) * (nc - 1))) return;
  unsigned base = (unsigned)b->nv;
  for (int r = 0; r < nr; r++)
    for (int c = 0; c < nc; c++) {
      double p[3], xl[3], xr[3], yl[3], yr[3];
      hfield_point(h, r, c, p);
      hfield_point(h, r, c > 0 ? c - 1 : c, xl);
      hfield_point(h, r, c < nc - 1 ? c + 1 : c, xr);
      hfield_point(h, r > 0 ? r - 1 : r, c, yl);
      hfield_point(h, r < nr - 1 ? r + 1 : r, c, yr);
      double dzx = (xr[2] - xl[2]) / (xr[0] - xl[0]), dzy = (yr[2] - yl[2]) / (yr[1] - yl[1]);
      put_vertex(b, g, p[0], p[1], p[2], -dzx, -dzy, 1);
    }
  for (int r = 0; r + 1 < nr; r++)
    for (int c = 0; c + 1 < nc; c++) {
      unsigned v00 = base + (unsigned)(r * nc + c), v10 = v00 + 1, v01 = v00 + (unsigned)nc, v11 = v01 + 1;
      unsigned *i = b->idx + b->ni;
      i[0] = v00, i[1] = v10, i[2] = v11, i[3] = v00, i[4] = v11, i[5] = v01;
      b->ni += 6;
    }
}

/* One side of the solid: the border samples from (r, c) stepping (dr, dc), down to the base. */
static void put_hfield_side(builder *b, int g, const mr_hfield *h, int r, int c, int dr, int dc,
                            int n, const double normal[3]) {
  if (builder_reserve(b, 2 * n, 6 * (n - 1))) return;
  unsigned base = (unsigned)b->nv;
  for (int k = 0; k < n; k++) {
    double p[3];
    hfield_point(h, r + k * dr, c + k * dc, p);
    put_vertex(b, g, p[0], p[1], p[2], normal[0], normal[1], normal[2]);
    put_vertex(b, g, p[0], p[1], -h->base, normal[0], normal[1], normal[2]);
  }
  for (int k = 0; k + 1 < n; k++) {
    unsigned a = base + 2 * (unsigned)k;
    put_quad(b, a, a + 1, a + 3, a + 2);
  }
}

static void put_hfield(builder *b, int g, const mr_model *m) {
  int id = m->geom_hfieldid[g];
  if (id < 0 || id >= m->nhfield) return;
  mr_hfield h;
  mr_hfield_get(m, id, &h);
  put_hfield_surface(b, g, &h);
  const double s[4][3] = {{0, -1, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 0, 0}};
  put_hfield_side(b, g, &h, 0, 0, 0, 1, h.ncol, s[0]);
  put_hfield_side(b, g, &h, 0, h.ncol - 1, 1, 0, h.nrow, s[1]);
  put_hfield_side(b, g, &h, h.nrow - 1, h.ncol - 1, 0, -1, h.ncol, s[2]);
  put_hfield_side(b, g, &h, h.nrow - 1, 0, -1, 0, h.nrow, s[3]);
  if (builder_reserve(b, 4, 6)) return;
  unsigned base = (unsigned)b->nv;
  put_vertex(b, g, -h.sx, -h.sy, -h.base, 0, 0, -1);
  put_vertex(b, g, -h.sx, h.sy, -h.base, 0, 0, -1);
  put_vertex(b, g, h.sx, h.sy, -h.base, 0, 0, -1);
  put_vertex(b, g, h.sx, -h.sy, -h.base, 0, 0, -1);
  put_quad(b, base, base + 1, base + 2, base + 3);
}

static void put_geom(builder *b, const mr_model *m, int g, double plane_extent) {
  const double *s = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case MR_GEOM_PLANE:
      put_plane(b, g, s[0] > 0 ? s[0] : plane_extent, s[1] > 0 ? s[1] : plane_extent);
      break;
    case MR_GEOM_SPHERE: put_sphere(b, g, s[0], s[0], s[0]); break;
    case MR_GEOM_ELLIPSOID: put_sphere(b, g, s[0], s[1], s[2]); break;
    case MR_GEOM_CAPSULE: put_capsule(b, g, s[0], s[1]); break;
    case MR_GEOM_CYLINDER: put_cylinder(b, g, s[0], s[1]); break;
    case MR_GEOM_BOX: put_box(b, g, s); break;
    case MR_GEOM_MESH:
      if (m->geom_meshid[g] >= 0 && m->geom_meshid[g] < m->nmesh) put_mesh(b, g, m, m->geom_meshid[g]);
      break;
    case MR_GEOM_HFIELD: put_hfield(b, g, m); break;
    default: break;
  }
}

void mr_geom_color(const mr_model *m, int g, float rgba[4]) {
  const float *c = m->geom_rgba + 4 * g;
  int mat = m->geom_matid[g];
  int is_default = c[0] == 0.5f && c[1] == 0.5f && c[2] == 0.5f && c[3] == 1.0f;
  if (mat >= 0 && mat < m->nmat && is_default) c = m->mat_rgba + 4 * mat;
  memcpy(rgba, c, 4 * sizeof(float));
}

static void cache_upload(mr_mesh_cache *c, const builder *b) {
  glGenVertexArrays(1, &c->vao);
  glGenBuffers(1, &c->vbo);
  glGenBuffers(1, &c->ebo);
  glBindVertexArray(c->vao);
  glBindBuffer(GL_ARRAY_BUFFER, c->vbo);
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)b->nv * sizeof(vertex)), b->v, GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, c->ebo);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)b->ni * sizeof(unsigned)), b->idx,
               GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(vertex), (void *)offsetof(vertex, pos));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, sizeof(vertex), (void *)offsetof(vertex, normal));
  glEnableVertexAttribArray(2);
  glVertexAttribIPointer(2, 1, GL_INT, sizeof(vertex), (void *)offsetof(vertex, geom));
  glBindVertexArray(0);
}

int mr_mesh_cache_build(mr_mesh_cache *c, const mr_model *m, double plane_extent, char *err,
                        int errlen) {
  memset(c, 0, sizeof *c);
  c->geom_rgba = malloc(sizeof(float) * 4 * (size_t)(m->ngeom > 0 ? m->ngeom : 1));
  builder b = {0};
  if (!c->geom_rgba) b.failed = 1;
  for (int g = 0; g < m->ngeom && !b.failed; g++) mr_geom_color(m, g, c->geom_rgba + 4 * g);
  /* Opaque geoms first so transparent ones can be drawn after them without depth writes. */
  for (int pass = 0; pass < 2 && !b.failed; pass++) {
    for (int g = 0; g < m->ngeom; g++)
      if ((c->geom_rgba[4 * g + 3] < 1.0f) == (pass == 1)) put_geom(&b, m, g, plane_extent);
    if (pass == 0) c->nindex_opaque = b.ni;
  }
  if (b.failed) {
    free(b.v);
    free(b.idx);
    free(c->geom_rgba);
    c->geom_rgba = NULL;
    snprintf(err, (size_t)errlen, "out of memory while building the scene's geometry");
    return 0;
  }
  c->nindex = b.ni;
  c->nvert = b.nv;
  cache_upload(c, &b);
  free(b.v);
  free(b.idx);
  return 1;
}

void mr_mesh_cache_free(mr_mesh_cache *c) {
  if (c->vao) glDeleteVertexArrays(1, &c->vao);
  if (c->vbo) glDeleteBuffers(1, &c->vbo);
  if (c->ebo) glDeleteBuffers(1, &c->ebo);
  free(c->geom_rgba);
  memset(c, 0, sizeof *c);
}
