/* Geoms, the mesh arrays, and body mass properties (explicit, or summed from geoms). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "engine/core/inertia.h"
#include "engine/core/mr_math.h"

static double mr_geom_rbound(const mr_model *m, int g) {
  const double *size = m->geom_size + 3 * g;
  int meshid = m->geom_meshid[g];
  switch (m->geom_type[g]) {
    case MR_GEOM_SPHERE: return size[0];
    case MR_GEOM_CAPSULE: return size[0] + size[1];
    case MR_GEOM_CYLINDER: return sqrt(size[0] * size[0] + size[1] * size[1]);
    case MR_GEOM_BOX: return mr_norm3(size);
    case MR_GEOM_ELLIPSOID: return fmax(size[0], fmax(size[1], size[2]));
    case MR_GEOM_HFIELD: {
      const double *hs = m->hfield_size + 4 * m->geom_hfieldid[g];
      return sqrt(hs[0] * hs[0] + hs[1] * hs[1] + fmax(hs[2], hs[3]) * fmax(hs[2], hs[3]));
    }
    case MR_GEOM_MESH: {
      double r = 0;
      const double *v = m->mesh_vert + 3 * m->mesh_vertadr[meshid];
      for (int k = 0; k < m->mesh_vertnum[meshid]; k++) {
        double p[3] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
        r = fmax(r, mr_norm3(p));
      }
      return r;
    }
    default: return 0;
  }
}

/* Half extents of a mesh's vertices in its own frame, about the origin (MuJoCo's mesh
 * geom size) or about the box's center (fitaabb). */
static void mr_mesh_extent(const mr_compiled_mesh *cm, double lo[3], double hi[3]) {
  for (int k = 0; k < 3; k++) lo[k] = HUGE_VAL, hi[k] = -HUGE_VAL;
  for (int v = 0; v < cm->data.nvert; v++)
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], cm->data.vert[3 * v + k]);
      hi[k] = fmax(hi[k], cm->data.vert[3 * v + k]);
    }
}

/* A primitive geom fitted to a mesh (MuJoCo's rule): sized by the mesh's inertia box, or by
 * its bounding box with compiler fitaabb, then scaled by fitscale; *center is the point of
 * the mesh frame the primitive is centered on. */
static void mr_geom_fit(const mr_compiler *c, const mr_spec_geom *g, double size[3], double center[3]) {
  const mr_compiled_mesh *cm = &c->meshes[g->mesh];
  const double *b = cm->box;
  mr_zero3(center);
  if (!c->s->fitaabb) {
    switch (g->type) {
      case MR_GEOM_SPHERE: size[0] = (b[0] + b[1] + b[2]) / 3; break;
      case MR_GEOM_CAPSULE:
        size[0] = (b[0] + b[1]) / 2;
        size[1] = fmax(0, b[2] - size[0] / 2);
        break;
      case MR_GEOM_CYLINDER: size[0] = (b[0] + b[1]) / 2, size[1] = b[2]; break;
      default: mr_copy3(size, b); break; /* box, ellipsoid */
    }
  } else {
    double lo[3], hi[3];
    mr_mesh_extent(cm, lo, hi);
    for (int k = 0; k < 3; k++) center[k] = 0.5 * (lo[k] + hi[k]);
    if (g->type == MR_GEOM_BOX || g->type == MR_GEOM_ELLIPSOID)
      for (int k = 0; k < 3; k++) size[k] = hi[k] - center[k];
    double r = 0, rxy = 0, hz = 0;
    for (int v = 0; v < cm->data.nvert; v++) {
      double d[3];
      mr_sub3(d, cm->data.vert + 3 * v, center);
      r = fmax(r, mr_norm3(d));
      rxy = fmax(rxy, sqrt(d[0] * d[0] + d[1] * d[1]));
      hz = fmax(hz, fabs(d[2]));
    }
    if (g->type == MR_GEOM_SPHERE) size[0] = r;
    if (g->type == MR_GEOM_CYLINDER) size[0] = rxy, size[1] = hz;
    if (g->type == MR_GEOM_CAPSULE) { /* the caps are round: the length the corners need */
      size[0] = rxy;
      size[1] = 0;
      for (int v = 0; v < cm->data.nvert; v++) {
        double d[3];
        mr_sub3(d, cm->data.vert + 3 * v, center);
        double rho = sqrt(d[0] * d[0] + d[1] * d[1]);
        double cap = rxy > 0 ? sqrt(fmax(0, rxy * rxy - rho * rho)) : 0;
        size[1] = fmax(size[1], fabs(d[2]) - cap);
      }
    }
  }
  for (int k = 0; k < 3; k++) size[k] *= g->fitscale;
}

static void mr_geom_fill(mr_compiler *c, mr_model *m, int i) {
  const mr_spec_geom *g = &c->s->geoms[c->geom_order[i]];
  m->geom_type[i] = g->type;
  m->geom_bodyid[i] = g->body;
  m->geom_contype[i] = g->contype;
  m->geom_conaffinity[i] = g->conaffinity;
  m->geom_condim[i] = g->condim;
  m->geom_group[i] = g->group;
  m->geom_meshid[i] = g->type == MR_GEOM_MESH ? g->mesh : -1;
  m->geom_hfieldid[i] = g->type == MR_GEOM_HFIELD ? g->hfield : -1;
  m->geom_matid[i] = g->material;
  double *size = m->geom_size + 3 * i;
  mr_copy3(size, g->size);
  double *pos = m->geom_pos + 3 * i, *quat = m->geom_quat + 4 * i;
  mr_copy3(pos, g->pos);
  memcpy(quat, g->quat, 4 * sizeof(double));
  mr_quat_normalize(quat);
  if (g->mesh >= 0) { /* the mesh was moved to its com and principal axes */
    const mr_compiled_mesh *cm = &c->meshes[g->mesh];
    double center[3] = {0, 0, 0}, offset[3];
    if (g->type == MR_GEOM_MESH) {
      double lo[3], hi[3];
      mr_mesh_extent(cm, lo, hi);
      for (int k = 0; k < 3; k++) size[k] = fmax(fabs(lo[k]), fabs(hi[k]));
    } else {
      mr_geom_fit(c, g, size, center);
    }
    mr_quat_rotate(offset, cm->quat, center);
    mr_add3(offset, offset, cm->pos);
    mr_frame_mul(pos, quat, pos, quat, offset, cm->quat);
    mr_quat_normalize(quat);
  }
  if (g->type == MR_GEOM_HFIELD) { /* MuJoCo's hfield geom size */
    const double *hs = c->s->hfields[g->hfield].size;
    size[0] = hs[0];
    size[1] = hs[1];
    size[2] = 0.5 * (hs[2] + hs[3]);
  }
  mr_copy3(m->geom_friction + 3 * i, g->friction);
  m->geom_margin[i] = g->margin;
  m->geom_gap[i] = g->gap;
  memcpy(m->geom_solref + 2 * i, g->solref, 2 * sizeof(double));
  memcpy(m->geom_solimp + 5 * i, g->solimp, 5 * sizeof(double));
  m->geom_solmix[i] = g->solmix;
  memcpy(m->geom_rgba + 4 * i, g->rgba, 4 * sizeof(float));
  m->geom_rbound[i] = mr_geom_rbound(m, i);
}

/* Mass and principal moments (in the geom frame) of one geom. */
static void mr_geom_mass(mr_compiler *c, const mr_model *m, int i, double *mass, double d[3]) {
  const mr_spec_geom *g = &c->s->geoms[c->geom_order[i]];
  if (g->type == MR_GEOM_MESH) {
    const mr_compiled_mesh *cm = &c->meshes[g->mesh];
    *mass = g->mass >= 0 ? g->mass : g->density * cm->volume;
    double per_volume = cm->volume > 0 ? *mass / cm->volume : 0;
    mr_scale3(d, cm->inertia, per_volume);
    return;
  }
  *mass = g->mass >= 0 ? g->mass : g->density * mr_geom_volume(g->type, m->geom_size + 3 * i);
  mr_geom_inertia(g->type, m->geom_size + 3 * i, *mass, d);
}

/* work: room for ngeom parts (mass 1, com 3, quat 4, moments 3). A body of one geom takes
 * that geom's frame as its inertial frame, as MuJoCo does (the principal axes of a
 * symmetric shape are not unique, and sensors of the body's inertial frame see which). */
static void mr_body_from_geoms(mr_compiler *c, mr_model *m, int b, double *work) {
  int n = 0, cap = m->ngeom;
  double *pm = work, *pc = work + cap, *pq = work + 4 * cap, *pd = work + 8 * cap;
  if (m->body_geomnum[b] == 1) {
    int i = m->body_geomadr[b];
    mr_geom_mass(c, m, i, m->body_mass + b, m->body_inertia + 3 * b);
    mr_copy3(m->body_ipos + 3 * b, m->geom_pos + 3 * i);
    memcpy(m->body_iquat + 4 * b, m->geom_quat + 4 * i, 4 * sizeof(double));
    return;
  }
  for (int i = m->body_geomadr[b]; i >= 0 && i < m->body_geomadr[b] + m->body_geomnum[b]; i++) {
    if (m->geom_type[i] == MR_GEOM_PLANE) continue;
    double mass, d[3];
    mr_geom_mass(c, m, i, &mass, d);
    if (!(mass > 0)) continue;
    pm[n] = mass;
    mr_copy3(pc + 3 * n, m->geom_pos + 3 * i);
    memcpy(pq + 4 * n, m->geom_quat + 4 * i, 4 * sizeof(double));
    mr_copy3(pd + 3 * n, d);
    n++;
  }
  mr_mass_combine(n, pm, pc, pq, pd, m->body_mass + b, m->body_ipos + 3 * b,
                  m->body_inertia + 3 * b, m->body_iquat + 4 * b);
}

static void mr_body_mass(mr_compiler *c, mr_model *m, int b, double *work) {
  const mr_spec_body *sb = &c->s->bodies[b];
  int from_geoms = c->s->inertiafromgeom == 1 || (c->s->inertiafromgeom == 2 && !sb->has_inertial);
  mr_quat_identity(m->body_iquat + 4 * b);
  if (b == 0) return; /* the world has no mass */
  if (from_geoms) {
    mr_body_from_geoms(c, m, b, work);
  } else if (sb->has_inertial) {
    m->body_mass[b] = sb->mass;
    mr_copy3(m->body_ipos + 3 * b, sb->ipos);
    memcpy(m->body_iquat + 4 * b, sb->iquat, 4 * sizeof(double));
    mr_quat_normalize(m->body_iquat + 4 * b);
    mr_copy3(m->body_inertia + 3 * b, sb->inertia);
  }
}

/* compiler settotalmass: every body's mass and inertia scaled by one factor (MuJoCo's). */
static void mr_set_total_mass(const mr_compiler *c, mr_model *m) {
  double target = c->s->settotalmass, total = 0;
  if (!(target > 0)) return;
  for (int b = 1; b < m->nbody; b++) total += m->body_mass[b];
  if (!(total > 0)) return;
  double scale = target / total;
  for (int b = 1; b < m->nbody; b++) {
    m->body_mass[b] *= scale;
    mr_scale3(m->body_inertia + 3 * b, m->body_inertia + 3 * b, scale);
  }
}

static void mr_fill_meshes(mr_compiler *c, mr_model *m) {
  int va = 0, fa = 0, hva = 0, hfa = 0;
  for (int k = 0; k < m->nmesh; k++) {
    const mr_compiled_mesh *cm = &c->meshes[k];
    m->mesh_vertadr[k] = va;
    m->mesh_vertnum[k] = cm->data.nvert;
    m->mesh_faceadr[k] = fa;
    m->mesh_facenum[k] = cm->data.nface;
    m->mesh_hullvertadr[k] = hva;
    m->mesh_hullvertnum[k] = cm->hull.nvert;
    m->mesh_hullfaceadr[k] = hfa;
    m->mesh_hullfacenum[k] = cm->hull.nface;
    for (int v = 0; v < 3 * cm->data.nvert; v++) {
      m->mesh_vert[3 * va + v] = cm->data.vert[v];
      m->mesh_normal[3 * va + v] = cm->data.normal[v];
    }
    if (cm->data.nface > 0)
      memcpy(m->mesh_face + 3 * fa, cm->data.face, 3 * sizeof(int) * (size_t)cm->data.nface);
    for (int v = 0; v < 3 * cm->hull.nvert; v++)
      m->mesh_hullvert[3 * hva + v] = cm->hull.vert[v];
    /* a flat mesh's hull has vertices but no faces (and no face array) */
    if (cm->hull.nface > 0)
      memcpy(m->mesh_hullface + 3 * hfa, cm->hull.face, 3 * sizeof(int) * (size_t)cm->hull.nface);
    va += cm->data.nvert;
    fa += cm->data.nface;
    hva += cm->hull.nvert;
    hfa += cm->hull.nface;
  }
}

int mr_compile_geoms(mr_compiler *c, mr_model *m) {
  mr_fill_meshes(c, m);
  for (int i = 0; i < m->ngeom; i++) {
    mr_geom_fill(c, m, i);
    int b = m->geom_bodyid[i];
    if (m->body_geomnum[b]++ == 0) m->body_geomadr[b] = i;
  }
  double *work = malloc(sizeof(double) * 11 * (size_t)(m->ngeom > 0 ? m->ngeom : 1));
  if (!work) return -1;
  for (int b = 0; b < m->nbody; b++) mr_body_mass(c, m, b, work);
  free(work);
  mr_set_total_mass(c, m);
  for (int b = 0; b < m->nbody; b++) m->body_subtreemass[b] = m->body_mass[b];
  for (int b = m->nbody - 1; b > 0; b--)
    m->body_subtreemass[m->body_parentid[b]] += m->body_subtreemass[b];
  return 0;
}
