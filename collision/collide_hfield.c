/* A heightfield against a convex geom, as MuJoCo collides them: the cells under the geom's
 * bounding box are split into triangles, each triangle with the solid under it down to the
 * base is a convex prism, and each prism meets the geom through the general convex path
 * (collide_convex.c: minimum translation and a face-clipped manifold). The points of all
 * prisms are reduced to MR_MAX_MANIFOLD: the deepest, then the corners of the support
 * polygon, then the widest spread; a planar patch keeps its corners only (mr_manifold_thin,
 * MR_THIN_CORNERS).
 *
 * A prism's side walls are not the terrain's surface where a neighbouring prism stands
 * against them. A box resting across a cell boundary overlaps the next prism by a sliver,
 * and the minimum translation out of that prism is sideways through the wall: a sideways
 * push on a body resting on flat ground. The union of the prisms has no such wall, and the
 * neighbour reports the contact through its own top. So a point whose normal leans out
 * through an inner wall further than both triangles' own normals lean (on flat terrain any
 * sideways lean, on a ridge the lean of the slope beyond it), or down through the base,
 * becomes a contact along the triangle's own normal at the geom's deepest point below the
 * triangle's plane, when that point lies over the triangle (elsewhere the prism under it
 * answers): what a body deep in the terrain needs to come out upward. Walls on the
 * heightfield's border are real and keep their contacts. */
#include <math.h>
#include <string.h>

#include "contact.h"
#include "engine/core/mr_math.h"
#include "hfield.h"
#include "shape.h"

/* Points gathered from the prisms before the reduction. */
#define MR_HFIELD_POINTS MR_THIN_CAP

typedef struct hf_prism {
  double vert[6][3]; /* local to the centroid: top three, then bottom three */
  double centroid[3];
  double top[3][3];  /* the triangle, in the heightfield frame */
  double normal[3];  /* the triangle's upward unit normal */
} hf_prism;

static void hf_triangle_normal(const double t[3][3], double n[3]) {
  double e1[3], e2[3];
  mr_sub3(e1, t[1], t[0]);
  mr_sub3(e2, t[2], t[0]);
  mr_cross3(n, e1, e2);
  mr_normalize3(n);
}

static void hf_prism_make(const mr_hfield *h, int r, int c, int tri, hf_prism *p) {
  mr_hfield_triangle(h, r, c, tri, p->top);
  hf_triangle_normal(p->top, p->normal);
  mr_zero3(p->centroid);
  for (int k = 0; k < 3; k++) {
    double base[3] = {p->top[k][0], p->top[k][1], -h->base};
    mr_addscl3(p->centroid, p->top[k], 1.0 / 6);
    mr_addscl3(p->centroid, base, 1.0 / 6);
    mr_copy3(p->vert[k], p->top[k]);
    mr_copy3(p->vert[3 + k], base);
  }
  for (int k = 0; k < 6; k++) mr_sub3(p->vert[k], p->vert[k], p->centroid);
}

/* The triangle across edge e (from vertex e to e + 1) of triangle tri of cell (r, c), or 0
 * when the edge is on the heightfield's border. */
static int hf_neighbor(const mr_hfield *h, int r, int c, int tri, int e, int *nr, int *nc, int *ntri) {
  static const int dr[2][3] = {{-1, 0, 0}, {0, 1, 0}}, dc[2][3] = {{0, 1, 0}, {0, 0, -1}};
  *nr = r + dr[tri][e];
  *nc = c + dc[tri][e];
  *ntri = 1 - tri; /* across any edge lies a triangle of the other kind */
  return *nr >= 0 && *nc >= 0 && *nr < h->nrow - 1 && *nc < h->ncol - 1;
}

/* Whether a point's normal n (heightfield frame) may stand: not down through the base, and
 * not out through an inner wall further than the slopes on either side lean. */
static int hf_normal_ok(const mr_hfield *h, int r, int c, int tri, const hf_prism *p,
                        const double n[3]) {
  if (n[2] < -1e-9) return 0;
  for (int e = 0; e < 3; e++) {
    int nr, nc, ntri;
    if (!hf_neighbor(h, r, c, tri, e, &nr, &nc, &ntri)) continue;
    const double *a = p->top[e], *b = p->top[(e + 1) % 3], *t = p->top[(e + 2) % 3];
    double w[3] = {b[1] - a[1], a[0] - b[0], 0}; /* horizontal, across the edge */
    if (w[0] * (t[0] - a[0]) + w[1] * (t[1] - a[1]) > 0) mr_scale3(w, w, -1);
    mr_normalize3(w);
    double lean = mr_dot3(n, w);
    if (lean <= 1e-9) continue;
    double other[3][3], on[3];
    mr_hfield_triangle(h, nr, nc, ntri, other);
    hf_triangle_normal(other, on);
    if (lean > fmax(mr_dot3(p->normal, w), mr_dot3(on, w)) + 1e-6) return 0;
  }
  return 1;
}

/* Whether point x lies over the triangle (its xy within the triangle's footprint). */
static int hf_over_triangle(const hf_prism *p, const double x[3]) {
  for (int e = 0; e < 3; e++) {
    const double *a = p->top[e], *b = p->top[(e + 1) % 3];
    if ((b[0] - a[0]) * (x[1] - a[1]) - (b[1] - a[1]) * (x[0] - a[0]) < -1e-12) return 0;
  }
  return 1;
}

/* The geom against the plane of the triangle, as a plane collides with it (a box's
 * corners, a cylinder's rim, a mesh's vertices below the plane), keeping the points over
 * the triangle (elsewhere another prism answers for them); appended to pts, returns the
 * new count. */
static int hf_face_contacts(const hf_prism *p, const mr_shape *bl, double margin, int feature,
                            mr_contact_point *pts, int n) {
  mr_shape plane;
  memset(&plane, 0, sizeof plane);
  plane.type = MR_GEOM_PLANE;
  plane.hfield = -1;
  mr_copy3(plane.pos, p->top[0]);
  double frame[9];
  mr_contact_frame_default(p->normal, frame); /* rows: normal, then two tangents */
  for (int i = 0; i < 3; i++) {
    plane.mat[3 * i] = frame[3 + i];
    plane.mat[3 * i + 1] = frame[6 + i];
    plane.mat[3 * i + 2] = frame[i];
  }
  mr_contact_point found[MR_MAX_MANIFOLD];
  int k = 0;
  switch (bl->type) {
    case MR_GEOM_SPHERE: k = mr_collide_plane_sphere(&plane, bl, margin, found); break;
    case MR_GEOM_CAPSULE: k = mr_collide_plane_capsule(&plane, bl, margin, found); break;
    case MR_GEOM_ELLIPSOID: k = mr_collide_plane_ellipsoid(&plane, bl, margin, found); break;
    case MR_GEOM_CYLINDER: k = mr_collide_plane_cylinder(&plane, bl, margin, found); break;
    case MR_GEOM_BOX: k = mr_collide_plane_box(&plane, bl, margin, found); break;
    case MR_GEOM_MESH: k = mr_collide_plane_mesh(&plane, bl, margin, found); break;
    default: break;
  }
  for (int i = 0; i < k && n < MR_HFIELD_POINTS; i++) {
    if (!hf_over_triangle(p, found[i].pos)) continue;
    found[i].feature = feature | (found[i].feature & 0x1f) | 0x20;
    pts[n++] = found[i];
  }
  return n;
}

/* A point another prism already gave (the same spot, the same normal). */
static int hf_duplicate(const mr_contact_point *pts, int n, const mr_contact_point *q) {
  for (int i = 0; i < n; i++) {
    double d[3];
    mr_sub3(d, pts[i].pos, q->pos);
    if (mr_dot3(d, d) < 1e-12 && mr_dot3(pts[i].normal, q->normal) > 1 - 1e-9) return 1;
  }
  return 0;
}

/* The geom in the heightfield's frame, and its bounding box there. */
static void hf_geom_local(const mr_shape *a, const mr_shape *b, mr_shape *bl, double lo[3],
                          double hi[3]) {
  *bl = *b;
  double d[3];
  mr_sub3(d, b->pos, a->pos);
  mr_mulmatT3(bl->pos, a->mat, d);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      bl->mat[3 * i + j] = a->mat[i] * b->mat[j] + a->mat[3 + i] * b->mat[3 + j] + a->mat[6 + i] * b->mat[6 + j];
  mr_shape_aabb(bl, lo, hi);
}

/* The prism as a mesh shape the convex path can take. */
static void hf_prism_shape(const hf_prism *p, mr_shape *s) {
  memset(s, 0, sizeof *s);
  s->type = MR_GEOM_MESH;
  mr_copy3(s->pos, p->centroid);
  s->mat[0] = s->mat[4] = s->mat[8] = 1;
  s->hullvert = &p->vert[0][0];
  s->nhull = 6;
  s->hfield = -1;
  for (int k = 0; k < 6; k++) s->rbound = fmax(s->rbound, mr_norm3(p->vert[k]));
}

/* Contacts of one prism, filtered, appended to pts; returns the new count. */
static int hf_prism_contacts(const mr_hfield *h, int r, int c, int tri, const mr_shape *bl,
                             double zmin, double margin, mr_contact_point *pts, int n) {
  hf_prism p;
  hf_prism_make(h, r, c, tri, &p);
  double ztop = fmax(p.top[0][2], fmax(p.top[1][2], p.top[2][2]));
  if (zmin > ztop + margin) return n; /* the geom is above this prism */
  mr_shape ps;
  hf_prism_shape(&p, &ps);
  mr_contact_point found[MR_MAX_MANIFOLD];
  int k = mr_collide_convex(&ps, bl, margin, found);
  int id = ((r * (h->ncol - 1) + c) * 2 + tri) << 6, rejected = 0;
  for (int i = 0; i < k && n < MR_HFIELD_POINTS; i++) {
    mr_contact_point q = found[i];
    if (!hf_normal_ok(h, r, c, tri, &p, q.normal)) {
      rejected = 1;
      continue;
    }
    /* a normal within 1.4 mrad of the triangle's is the triangle's: a box resting on the
     * surface tilts by round-off, and its face's normal would push it sideways */
    if (mr_dot3(q.normal, p.normal) > 1 - 1e-6) mr_copy3(q.normal, p.normal);
    q.feature = id | (found[i].feature & 0x1f);
    if (!hf_duplicate(pts, n, &q)) pts[n++] = q;
  }
  if (rejected) {
    mr_contact_point face[MR_MAX_MANIFOLD];
    int nf = hf_face_contacts(&p, bl, margin, id, face, 0);
    for (int i = 0; i < nf && n < MR_HFIELD_POINTS; i++)
      if (!hf_duplicate(pts, n, &face[i])) pts[n++] = face[i];
  }
  return n;
}

int mr_collide_hfield(const mr_model *m, const mr_shape *a, const mr_shape *b, double margin,
                      mr_contact_point *out) {
  if (a->hfield < 0) return 0;
  mr_hfield h;
  mr_hfield_get(m, a->hfield, &h);
  mr_shape bl;
  double lo[3], hi[3];
  hf_geom_local(a, b, &bl, lo, hi);
  if (lo[2] > h.top + margin || hi[2] < -h.base - margin) return 0;
  int r0, r1, c0, c1;
  mr_hfield_cells(&h, lo[0] - margin, hi[0] + margin, lo[1] - margin, hi[1] + margin, &r0, &r1, &c0, &c1);
  mr_contact_point pts[MR_HFIELD_POINTS];
  int n = 0;
  for (int r = r0; r < r1; r++)
    for (int c = c0; c < c1; c++)
      for (int tri = 0; tri < 2; tri++) n = hf_prism_contacts(&h, r, c, tri, &bl, lo[2], margin, pts, n);
  n = mr_manifold_thin(pts, n, MR_MAX_MANIFOLD, MR_THIN_CORNERS, b->rbound);
  for (int i = 0; i < n; i++) { /* back to the world frame */
    double p[3], nrm[3];
    mr_shape_to_world(a, p, pts[i].pos);
    mr_mulmat3(nrm, a->mat, pts[i].normal);
    mr_copy3(out[i].pos, p);
    mr_copy3(out[i].normal, nrm);
    out[i].dist = pts[i].dist;
    out[i].feature = pts[i].feature;
  }
  return n;
}
