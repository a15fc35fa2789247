/* 3D overlays: physical quantities of the current step drawn as lines and points. */
#include "overlay.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "shader.h"

static const float COLOR_CONTACT[4] = {1.0f, 0.2f, 0.1f, 1};
static const float COLOR_NORMAL[4] = {1.0f, 0.85f, 0.1f, 1};
static const float COLOR_FORCE[4] = {0.1f, 0.9f, 1.0f, 1};
static const float COLOR_CONE[4] = {0.9f, 0.5f, 1.0f, 0.8f};
static const float COLOR_X[4] = {0.95f, 0.2f, 0.2f, 1}, COLOR_Y[4] = {0.2f, 0.9f, 0.2f, 1},
                   COLOR_Z[4] = {0.25f, 0.4f, 1.0f, 1};
static const float COLOR_JOINT[4] = {1.0f, 0.6f, 0.1f, 1};
static const float COLOR_COM[4] = {1.0f, 1.0f, 1.0f, 1};
static const float COLOR_SUBTREE_COM[4] = {1.0f, 0.3f, 0.9f, 1};
static const float COLOR_HULL[4] = {0.3f, 1.0f, 0.6f, 0.9f};
static const float COLOR_GRID[4] = {0.7f, 0.7f, 0.75f, 0.35f};
static const float COLOR_SPRING[4] = {1.0f, 1.0f, 0.3f, 1};

int mr_overlay_create(mr_overlay *o, char *err, int errlen) {
  memset(o, 0, sizeof *o);
  o->program = mr_shader_build(mr_shader_line_vs, mr_shader_line_fs, err, errlen);
  if (!o->program) return 0;
  o->u_viewproj = glGetUniformLocation(o->program, "u_viewproj");
  o->u_point_size = glGetUniformLocation(o->program, "u_point_size");
  glGenVertexArrays(1, &o->vao);
  glGenBuffers(1, &o->vbo);
  glBindVertexArray(o->vao);
  glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 7 * sizeof(float), (void *)0);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 7 * sizeof(float), (void *)(3 * sizeof(float)));
  glBindVertexArray(0);
  return 1;
}

void mr_overlay_free(mr_overlay *o) {
  if (o->program) glDeleteProgram(o->program);
  if (o->vao) glDeleteVertexArrays(1, &o->vao);
  if (o->vbo) glDeleteBuffers(1, &o->vbo);
  free(o->lines);
  free(o->points);
  memset(o, 0, sizeof *o);
}

/* Grows a vertex array geometrically: after the first frames of a scene no frame
 * allocates. */
static int reserve(float **buf, int *cap, int need, int *failed) {
  if (need <= *cap) return 1;
  int n = *cap ? *cap : 1024;
  while (n < need) n *= 2;
  float *p = realloc(*buf, sizeof(float) * 7 * (size_t)n);
  if (!p) return *failed = 1, 0;
  *buf = p;
  *cap = n;
  return 1;
}

static void put(float *v, const double p[3], const float rgba[4]) {
  v[0] = (float)p[0], v[1] = (float)p[1], v[2] = (float)p[2];
  memcpy(v + 3, rgba, 4 * sizeof(float));
}

void mr_overlay_line(mr_overlay *o, const double a[3], const double b[3], const float rgba[4]) {
  if (!reserve(&o->lines, &o->line_cap, o->nline_vert + 2, &o->failed)) return;
  put(o->lines + 7 * o->nline_vert++, a, rgba);
  put(o->lines + 7 * o->nline_vert++, b, rgba);
}

void mr_overlay_point(mr_overlay *o, const double p[3], const float rgba[4]) {
  if (!reserve(&o->points, &o->point_cap, o->npoint + 1, &o->failed)) return;
  put(o->points + 7 * o->npoint++, p, rgba);
}

/* A line from p along v with a small head of two strokes. */
static void overlay_arrow(mr_overlay *o, const double p[3], const double v[3], const float rgba[4]) {
  double tip[3], dir[3], side[3], ref[3] = {0, 0, 1}, h1[3], h2[3];
  mr_add3(tip, p, v);
  mr_overlay_line(o, p, tip, rgba);
  double len = mr_norm3(v);
  if (len < 1e-9) return;
  mr_scale3(dir, v, 1 / len);
  if (fabs(dir[2]) > 0.9) ref[0] = 1, ref[2] = 0;
  mr_cross3(side, dir, ref);
  mr_normalize3(side);
  for (int k = 0; k < 3; k++) {
    h1[k] = tip[k] - 0.2 * len * dir[k] + 0.08 * len * side[k];
    h2[k] = tip[k] - 0.2 * len * dir[k] - 0.08 * len * side[k];
  }
  mr_overlay_line(o, tip, h1, rgba);
  mr_overlay_line(o, tip, h2, rgba);
}

static void overlay_contacts(mr_overlay *o, const mr_data *d, int flags, double len,
                             double force_scale) {
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = d->contact + i;
    const double *n = c->frame, *t1 = c->frame + 3, *t2 = c->frame + 6;
    if (flags & MR_OVERLAY_CONTACTS) {
      double v[3];
      mr_overlay_point(o, c->pos, COLOR_CONTACT);
      mr_scale3(v, n, len);
      overlay_arrow(o, c->pos, v, COLOR_NORMAL);
    }
    if (flags & MR_OVERLAY_FORCES) {
      /* After a step impulse holds the step's contact impulse in the contact frame. */
      double f[3] = {0, 0, 0}, s = force_scale / d->opt.timestep;
      mr_addscl3(f, n, c->impulse[0] * s);
      mr_addscl3(f, t1, c->impulse[1] * s);
      mr_addscl3(f, t2, c->impulse[2] * s);
      if (mr_norm3(f) > 1e-6 * len) overlay_arrow(o, c->pos, f, COLOR_FORCE);
    }
    if ((flags & MR_OVERLAY_CONES) && c->dim >= 3) {
      enum { RAYS = 12 };
      double mu = c->friction[0], prev[3] = {0, 0, 0};
      for (int k = 0; k <= RAYS; k++) {
        double a = 2 * MR_PI * k / RAYS, e[3];
        for (int j = 0; j < 3; j++)
          e[j] = c->pos[j] + len * (n[j] + mu * (cos(a) * t1[j] + sin(a) * t2[j]));
        if (k % 3 == 0) mr_overlay_line(o, c->pos, e, COLOR_CONE);
        if (k > 0) mr_overlay_line(o, prev, e, COLOR_CONE);
        mr_copy3(prev, e);
      }
    }
  }
}

static void overlay_frames(mr_overlay *o, const mr_model *m, const mr_data *d, double len) {
  const float *color[3] = {COLOR_X, COLOR_Y, COLOR_Z};
  for (int b = 1; b < m->nbody; b++) {
    const double *p = d->xpos + 3 * b, *R = d->xmat + 9 * b;
    for (int k = 0; k < 3; k++) {
      double e[3] = {p[0] + len * R[k], p[1] + len * R[3 + k], p[2] + len * R[6 + k]};
      mr_overlay_line(o, p, e, color[k]);
    }
  }
}

static void overlay_joints(mr_overlay *o, const mr_model *m, const mr_data *d, double len) {
  for (int j = 0; j < m->njnt; j++) {
    int t = m->jnt_type[j];
    const double *p = d->xanchor + 3 * j;
    mr_overlay_point(o, p, COLOR_JOINT);
    if (t != MR_JOINT_HINGE && t != MR_JOINT_SLIDE) continue;
    double v[3];
    mr_scale3(v, d->xaxis + 3 * j, len);
    overlay_arrow(o, p, v, COLOR_JOINT);
  }
}

static void overlay_com(mr_overlay *o, const mr_model *m, const mr_data *d) {
  for (int b = 1; b < m->nbody; b++) {
    mr_overlay_point(o, d->xipos + 3 * b, COLOR_COM);
    if (m->body_parentid[b] == 0) mr_overlay_point(o, d->subtree_com + 3 * b, COLOR_SUBTREE_COM);
  }
}

static void overlay_hulls(mr_overlay *o, const mr_model *m, const mr_data *d) {
  for (int g = 0; g < m->ngeom; g++) {
    int id = m->geom_meshid[g];
    if (m->geom_type[g] != MR_GEOM_MESH || id < 0 || id >= m->nmesh) continue;
    const double *V = m->mesh_hullvert + 3 * m->mesh_hullvertadr[id];
    const int *F = m->mesh_hullface + 3 * m->mesh_hullfaceadr[id];
    int nv = m->mesh_hullvertnum[id];
    const double *R = d->geom_xmat + 9 * g, *p = d->geom_xpos + 3 * g;
    for (int f = 0; f < m->mesh_hullfacenum[id]; f++)
      for (int e = 0; e < 3; e++) {
        int a = F[3 * f + e], b = F[3 * f + (e + 1) % 3];
        if (a < 0 || b < 0 || a >= nv || b >= nv) continue;
        double wa[3], wb[3];
        mr_mulmat3(wa, R, V + 3 * a);
        mr_mulmat3(wb, R, V + 3 * b);
        mr_add3(wa, wa, p);
        mr_add3(wb, wb, p);
        mr_overlay_line(o, wa, wb, COLOR_HULL);
      }
  }
}

/* Spatial tendons along their paths (d->wrap_xpos, from the kinematics) in their colour,
 * broken at pulleys, with their sites as points; fixed tendons have no place in space. */
static void overlay_tendons(mr_overlay *o, const mr_model *m, const mr_data *d) {
  for (int t = 0; t < m->ntendon; t++) {
    const float *rgba = m->tendon_rgba + 4 * t;
    int adr = d->ten_wrapadr[t], n = d->ten_wrapnum[t];
    for (int k = adr; k < adr + n; k++) {
      if (d->wrap_obj[k] == -2) continue;
      if (d->wrap_obj[k] == -1) mr_overlay_point(o, d->wrap_xpos + 3 * k, rgba);
      if (k + 1 < adr + n && d->wrap_obj[k + 1] != -2)
        mr_overlay_line(o, d->wrap_xpos + 3 * k, d->wrap_xpos + 3 * (k + 1), rgba);
    }
  }
}

/* A grid on z = 0 whose spacing follows the model's size. */
static void overlay_grid(mr_overlay *o, double extent) {
  double step = pow(10, floor(log10(fmax(extent, 1e-3)))) / 2;
  int n = 20;
  for (int i = -n; i <= n; i++) {
    double a[3] = {i * step, -n * step, 0}, b[3] = {i * step, n * step, 0};
    double c[3] = {-n * step, i * step, 0}, e[3] = {n * step, i * step, 0};
    mr_overlay_line(o, a, b, COLOR_GRID);
    mr_overlay_line(o, c, e, COLOR_GRID);
  }
}

static void overlay_flush(mr_overlay *o, const float viewproj[16]) {
  glUseProgram(o->program);
  glUniformMatrix4fv(o->u_viewproj, 1, GL_FALSE, viewproj);
  glUniform1f(o->u_point_size, 7.0f);
  glBindVertexArray(o->vao);
  glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glEnable(GL_PROGRAM_POINT_SIZE);
  if (o->nline_vert) {
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 7 * (size_t)o->nline_vert), o->lines, GL_STREAM_DRAW);
    glDrawArrays(GL_LINES, 0, o->nline_vert);
  }
  if (o->npoint) {
    /* Points stay visible through the geoms they sit on. */
    glDisable(GL_DEPTH_TEST);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(float) * 7 * (size_t)o->npoint), o->points, GL_STREAM_DRAW);
    glDrawArrays(GL_POINTS, 0, o->npoint);
    glEnable(GL_DEPTH_TEST);
  }
  glDisable(GL_PROGRAM_POINT_SIZE);
  glDisable(GL_BLEND);
  glBindVertexArray(0);
  glUseProgram(0);
}

void mr_overlay_draw(mr_overlay *o, const mr_model *m, const mr_data *d, int flags,
                     double extent, const float viewproj[16], const double *spring) {
  o->nline_vert = o->npoint = 0;
  double len = 0.15 * extent;
  /* Force arrows: the model's weight is as long as the model is wide. */
  double weight = mr_model_total_mass(m) * 9.81;
  double force_scale = weight > 0 ? extent / weight : 0.01;
  if (flags & MR_OVERLAY_GRID) overlay_grid(o, extent);
  if (flags & (MR_OVERLAY_CONTACTS | MR_OVERLAY_FORCES | MR_OVERLAY_CONES))
    overlay_contacts(o, d, flags, len, force_scale);
  if (flags & MR_OVERLAY_FRAMES) overlay_frames(o, m, d, len);
  if (flags & MR_OVERLAY_JOINTS) overlay_joints(o, m, d, len);
  if (flags & MR_OVERLAY_COM) overlay_com(o, m, d);
  if (flags & MR_OVERLAY_HULLS) overlay_hulls(o, m, d);
  if (flags & MR_OVERLAY_TENDONS) overlay_tendons(o, m, d);
  if (spring) {
    mr_overlay_line(o, spring, spring + 3, COLOR_SPRING);
    mr_overlay_point(o, spring, COLOR_SPRING);
    mr_overlay_point(o, spring + 3, COLOR_SPRING);
  }
  if (o->nline_vert || o->npoint) overlay_flush(o, viewproj);
}
