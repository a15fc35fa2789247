/* Drawing the 3D scene: sky, then every geom in one call per opacity class. */
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader.h"

static GLuint make_texture_buffer(GLuint *buffer, size_t bytes) {
  GLuint tex;
  glGenBuffers(1, buffer);
  glBindBuffer(GL_TEXTURE_BUFFER, *buffer);
  glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_DRAW);
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_BUFFER, tex);
  glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, *buffer);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
  return tex;
}

/* Skybox colours: a gradient skybox texture's rgb1 at the top and rgb2 at the bottom. */
static void scene_sky(mr_scene *s, const mr_model *m) {
  const float top[3] = {0.45f, 0.6f, 0.75f}, bottom[3] = {0.12f, 0.14f, 0.18f};
  memcpy(s->sky_top, top, sizeof top);
  memcpy(s->sky_bottom, bottom, sizeof bottom);
  for (int t = 0; t < m->ntex; t++) {
    if (m->tex_type[t] != 2) continue;
    memcpy(s->sky_top, m->tex_rgb1 + 3 * t, 3 * sizeof(float));
    memcpy(s->sky_bottom, m->tex_builtin[t] == 1 ? m->tex_rgb2 + 3 * t : m->tex_rgb1 + 3 * t,
           3 * sizeof(float));
    break;
  }
}

/* One geom's material and builtin texture in 5 texels (see shader.c). Only 2D textures
 * are drawn: cube textures with no coordinates on the surface would only tint. */
static void scene_look(mr_scene *s, const mr_model *m, int g, int highlight) {
  float *L = s->look + 20 * g;
  memset(L, 0, 20 * sizeof(float));
  memcpy(L, s->cache.geom_rgba + 4 * g, 4 * sizeof(float));
  if (highlight) {
    for (int k = 0; k < 3; k++) L[k] = 0.5f * L[k] + 0.5f * (k == 1 ? 0.9f : 0.3f);
  }
  int mat = m->geom_matid[g];
  L[4] = 0.5f, L[5] = 0.5f; /* MuJoCo's default specular and shininess */
  if (mat < 0 || mat >= m->nmat) return;
  L[4] = m->mat_specular[mat];
  L[5] = m->mat_shininess[mat];
  L[6] = m->mat_emission[mat];
  int tex = m->mat_texid[mat];
  if (tex < 0 || tex >= m->ntex || m->tex_type[tex] != 0) return;
  int builtin = m->tex_builtin[tex];
  L[8] = builtin == 2 ? 1.0f : builtin == 1 ? 2.0f : builtin == 3 ? 3.0f : 0.0f;
  L[9] = m->mat_texrepeat[2 * mat];
  L[10] = m->mat_texrepeat[2 * mat + 1];
  memcpy(L + 12, m->tex_rgb1 + 3 * tex, 3 * sizeof(float));
  memcpy(L + 16, m->tex_rgb2 + 3 * tex, 3 * sizeof(float));
}

static void scene_upload_look(mr_scene *s) {
  glBindBuffer(GL_TEXTURE_BUFFER, s->look_buffer);
  glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 20 * (size_t)s->ngeom), s->look);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

int mr_scene_create(mr_scene *s, const mr_model *m, double extent, char *err, int errlen) {
  memset(s, 0, sizeof *s);
  s->ngeom = m->ngeom;
  size_t n = (size_t)(m->ngeom > 0 ? m->ngeom : 1);
  s->pose = calloc(12 * n, sizeof(float));
  s->look = calloc(20 * n, sizeof(float));
  s->geom_visible = calloc(n, 1);
  if (!s->pose || !s->look || !s->geom_visible) {
    snprintf(err, (size_t)errlen, "out of memory for the scene");
    mr_scene_free(s);
    return 0;
  }
  s->geom_program = mr_shader_build(mr_shader_geom_vs, mr_shader_geom_fs, err, errlen);
  s->sky_program = s->geom_program ? mr_shader_build(mr_shader_sky_vs, mr_shader_sky_fs, err, errlen) : 0;
  /* Infinite planes are drawn large enough to reach the horizon at any sane zoom. */
  if (!s->sky_program || !mr_mesh_cache_build(&s->cache, m, 50 + 20 * extent, err, errlen)) {
    mr_scene_free(s);
    return 0;
  }
  glGenVertexArrays(1, &s->empty_vao);
  s->pose_texture = make_texture_buffer(&s->pose_buffer, sizeof(float) * 12 * n);
  s->look_texture = make_texture_buffer(&s->look_buffer, sizeof(float) * 20 * n);
  s->u_viewproj = glGetUniformLocation(s->geom_program, "u_viewproj");
  s->u_pose = glGetUniformLocation(s->geom_program, "u_pose");
  s->u_look = glGetUniformLocation(s->geom_program, "u_look");
  s->u_eye = glGetUniformLocation(s->geom_program, "u_eye");
  s->u_light_dir = glGetUniformLocation(s->geom_program, "u_light_dir");
  s->u_pick = glGetUniformLocation(s->geom_program, "u_pick");
  s->u_sky_top = glGetUniformLocation(s->sky_program, "u_top");
  s->u_sky_bottom = glGetUniformLocation(s->sky_program, "u_bottom");
  scene_sky(s, m);
  mr_scene_set_visibility(s, m, 0);
  mr_scene_set_highlight(s, m, 0);
  return 1;
}

void mr_scene_free(mr_scene *s) {
  if (s->geom_program) glDeleteProgram(s->geom_program);
  if (s->sky_program) glDeleteProgram(s->sky_program);
  if (s->empty_vao) glDeleteVertexArrays(1, &s->empty_vao);
  if (s->pose_texture) glDeleteTextures(1, &s->pose_texture);
  if (s->look_texture) glDeleteTextures(1, &s->look_texture);
  if (s->pose_buffer) glDeleteBuffers(1, &s->pose_buffer);
  if (s->look_buffer) glDeleteBuffers(1, &s->look_buffer);
  mr_mesh_cache_free(&s->cache);
  free(s->pose);
  free(s->look);
  free(s->geom_visible);
  memset(s, 0, sizeof *s);
}

void mr_scene_set_visibility(mr_scene *s, const mr_model *m, int show_collision) {
  for (int g = 0; g < m->ngeom; g++) {
    int group = m->geom_group[g];
    int visible = group >= 0 && group <= 2;
    if (m->is_urdf && group == 0 && !show_collision) {
      /* A collision geom stands in for the looks only of a body without visuals. */
      int b = m->geom_bodyid[g], has_visual = 0;
      for (int k = m->body_geomadr[b]; k < m->body_geomadr[b] + m->body_geomnum[b]; k++)
        has_visual |= m->geom_group[k] == 1;
      visible = !has_visual;
    }
    if (m->is_urdf && group == 1 && show_collision) visible = 0;
    s->geom_visible[g] = (unsigned char)visible;
  }
}

void mr_scene_set_highlight(mr_scene *s, const mr_model *m, int body) {
  if (!s->look) return;
  for (int g = 0; g < m->ngeom; g++) scene_look(s, m, g, body > 0 && m->geom_bodyid[g] == body);
  scene_upload_look(s);
}

static void scene_upload_pose(mr_scene *s, const mr_data *d) {
  for (int g = 0; g < s->ngeom; g++) {
    float *P = s->pose + 12 * g;
    if (!s->geom_visible[g]) { /* collapsed to a point: its triangles cover no pixel */
      memset(P, 0, 12 * sizeof(float));
      continue;
    }
    const double *R = d->geom_xmat + 9 * g, *p = d->geom_xpos + 3 * g;
    for (int r = 0; r < 3; r++) {
      P[4 * r] = (float)R[3 * r];
      P[4 * r + 1] = (float)R[3 * r + 1];
      P[4 * r + 2] = (float)R[3 * r + 2];
      P[4 * r + 3] = (float)p[r];
    }
  }
  glBindBuffer(GL_TEXTURE_BUFFER, s->pose_buffer);
  glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)(sizeof(float) * 12 * (size_t)s->ngeom), s->pose);
  glBindBuffer(GL_TEXTURE_BUFFER, 0);
}

static void scene_draw_sky(mr_scene *s) {
  glDisable(GL_DEPTH_TEST);
  glUseProgram(s->sky_program);
  glUniform3fv(s->u_sky_top, 1, s->sky_top);
  glUniform3fv(s->u_sky_bottom, 1, s->sky_bottom);
  glBindVertexArray(s->empty_vao);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glEnable(GL_DEPTH_TEST);
}

static void scene_bind_geoms(mr_scene *s, const float viewproj[16], int pick) {
  glUseProgram(s->geom_program);
  glUniformMatrix4fv(s->u_viewproj, 1, GL_FALSE, viewproj);
  glUniform1i(s->u_pick, pick);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, s->pose_texture);
  glUniform1i(s->u_pose, 0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_BUFFER, s->look_texture);
  glUniform1i(s->u_look, 1);
  glBindVertexArray(s->cache.vao);
}

static void scene_unbind(void) {
  glBindVertexArray(0);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_BUFFER, 0);
  glUseProgram(0);
}

void mr_scene_draw(mr_scene *s, const mr_data *d, const float viewproj[16], const double eye[3]) {
  scene_draw_sky(s);
  if (s->cache.nindex == 0) return;
  scene_upload_pose(s, d);
  scene_bind_geoms(s, viewproj, 0);
  float e[3] = {(float)eye[0], (float)eye[1], (float)eye[2]};
  const float light[3] = {-0.3f, 0.4f, -1.0f};
  glUniform3fv(s->u_eye, 1, e);
  glUniform3fv(s->u_light_dir, 1, light);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glDrawElements(GL_TRIANGLES, s->cache.nindex_opaque, GL_UNSIGNED_INT, NULL);
  int ntransparent = s->cache.nindex - s->cache.nindex_opaque;
  if (ntransparent > 0) {
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    glDrawElements(GL_TRIANGLES, ntransparent, GL_UNSIGNED_INT,
                   (void *)(sizeof(unsigned) * (size_t)s->cache.nindex_opaque));
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
  }
  scene_unbind();
}

int mr_scene_pick(mr_scene *s, const mr_data *d, const float viewproj[16], int x, int y,
                  float *depth) {
  glClearColor(0, 0, 0, 0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  *depth = 1;
  if (s->cache.nindex == 0) return -1;
  scene_upload_pose(s, d);
  scene_bind_geoms(s, viewproj, 1);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glDrawElements(GL_TRIANGLES, s->cache.nindex, GL_UNSIGNED_INT, NULL);
  scene_unbind();
  unsigned char px[4] = {0, 0, 0, 0};
  glReadPixels(x, y, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
  glReadPixels(x, y, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, depth);
  int id = px[0] | px[1] << 8 | px[2] << 16;
  return id > 0 && id <= s->ngeom ? id - 1 : -1;
}
