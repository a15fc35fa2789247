/* Batched 2D drawing: every primitive becomes coloured triangles in one CPU-side array,
 * streamed to one VBO and drawn with one call at mr_draw2d_end. */
#include "draw2d.h"
#include "shader.h"

#include <glad/gl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* stb_easy_font is all static functions (the ones we do not call would warn) and is not
 * written for -Wextra. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

/* stb_easy_font's glyphs: capitals are 7 units tall, lines 12 units apart. */
enum { MR_FONT_CAP_HEIGHT = 7, MR_FONT_LINE_HEIGHT = 12 };
/* Bytes stb_easy_font writes per quad, and a bound on one glyph's quads. */
enum { MR_FONT_QUAD_BYTES = 64, MR_FONT_MAX_QUADS = 48 };

typedef struct mr_vertex2d {
  float x, y;
  unsigned char rgba[4];
} mr_vertex2d;

struct mr_draw2d {
  GLuint program, vao, vbo;
  GLint loc_viewport;
  int fb_width, fb_height;
  float ui_scale;
  mr_vertex2d *vert;
  int nvert, maxvert;
  size_t vbo_bytes; /* current size of the GPU buffer, grown (never shrunk) as needed */
};

static char draw2d_error[256];

const char *mr_draw2d_error(void) { return draw2d_error; }

mr_draw2d *mr_draw2d_create(void) {
  draw2d_error[0] = 0;
  if (!glCreateShader) {
    snprintf(draw2d_error, sizeof draw2d_error,
             "draw2d: OpenGL 3.3 functions are not loaded (no GL 3.3 core context?)");
    return NULL;
  }
  mr_draw2d *g = calloc(1, sizeof *g);
  if (!g) {
    snprintf(draw2d_error, sizeof draw2d_error, "draw2d: out of memory");
    return NULL;
  }
  g->program = mr_shader_build(mr_shader_ui_vs, mr_shader_ui_fs, draw2d_error, (int)sizeof draw2d_error);
  if (!g->program) {
    free(g);
    return NULL;
  }
  g->loc_viewport = glGetUniformLocation(g->program, "u_viewport");
  glGenVertexArrays(1, &g->vao);
  glGenBuffers(1, &g->vbo);
  glBindVertexArray(g->vao);
  glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(mr_vertex2d),
                        (void *)offsetof(mr_vertex2d, x));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(mr_vertex2d),
                        (void *)offsetof(mr_vertex2d, rgba));
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  g->ui_scale = 1;
  return g;
}

void mr_draw2d_free(mr_draw2d *g) {
  if (!g) return;
  glDeleteBuffers(1, &g->vbo);
  glDeleteVertexArrays(1, &g->vao);
  glDeleteProgram(g->program);
  free(g->vert);
  free(g);
}

void mr_draw2d_begin(mr_draw2d *g, int fb_width, int fb_height, float ui_scale) {
  g->fb_width = fb_width > 0 ? fb_width : 1;
  g->fb_height = fb_height > 0 ? fb_height : 1;
  g->ui_scale = ui_scale > 0 ? ui_scale : 1;
  g->nvert = 0;
}

int mr_draw2d_vertex_count(const mr_draw2d *g) { return g->nvert; }

/* Room for n more vertices; 0 when memory ran out (the primitive is then skipped). */
static int draw2d_reserve(mr_draw2d *g, int n) {
  if (g->nvert + n <= g->maxvert) return 1;
  int cap = g->maxvert ? g->maxvert : 4096;
  while (cap < g->nvert + n) cap *= 2;
  mr_vertex2d *grown = realloc(g->vert, (size_t)cap * sizeof *grown);
  if (!grown) return 0;
  g->vert = grown;
  g->maxvert = cap;
  return 1;
}

static unsigned char draw2d_channel(float c) {
  if (!(c > 0)) return 0;
  if (c >= 1) return 255;
  return (unsigned char)(c * 255.0f + 0.5f);
}

static void draw2d_pack(const float rgba[4], unsigned char out[4]) {
  for (int i = 0; i < 4; i++) out[i] = draw2d_channel(rgba[i]);
}

/* Two triangles of the quad a b c d (in order around its boundary). Caller reserved 6. */
static void draw2d_quad(mr_draw2d *g, const float q[8], const unsigned char rgba[4]) {
  static const int corner[6] = {0, 1, 2, 0, 2, 3};
  for (int i = 0; i < 6; i++) {
    mr_vertex2d *v = &g->vert[g->nvert++];
    v->x = q[2 * corner[i]];
    v->y = q[2 * corner[i] + 1];
    memcpy(v->rgba, rgba, 4);
  }
}

void mr_draw2d_rect(mr_draw2d *g, float x, float y, float w, float h, const float rgba[4]) {
  if (!(w > 0 && h > 0) || !draw2d_reserve(g, 6)) return;
  unsigned char c[4];
  draw2d_pack(rgba, c);
  const float q[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
  draw2d_quad(g, q, c);
}

/* A segment as a quad of the given width, extended by half the width at both ends so
 * consecutive segments of a polyline meet without gaps at their joints. */
static void draw2d_segment(mr_draw2d *g, float x0, float y0, float x1, float y1, float width,
                           const unsigned char c[4]) {
  float dx = x1 - x0, dy = y1 - y0;
  float len = sqrtf(dx * dx + dy * dy);
  if (!isfinite(len)) return;
  float hw = 0.5f * (width > 0 ? width : 1);
  float ux = len > 1e-6f ? dx / len : 1, uy = len > 1e-6f ? dy / len : 0;
  float ex = ux * hw, ey = uy * hw; /* along the segment */
  float nx = -uy * hw, ny = ux * hw; /* across it */
  const float q[8] = {x0 - ex + nx, y0 - ey + ny, x1 + ex + nx, y1 + ey + ny,
                      x1 + ex - nx, y1 + ey - ny, x0 - ex - nx, y0 - ey - ny};
  if (draw2d_reserve(g, 6)) draw2d_quad(g, q, c);
}

void mr_draw2d_line(mr_draw2d *g, float x0, float y0, float x1, float y1, float width,
                    const float rgba[4]) {
  unsigned char c[4];
  draw2d_pack(rgba, c);
  draw2d_segment(g, x0, y0, x1, y1, width, c);
}

void mr_draw2d_polyline(mr_draw2d *g, const float *xy, int n, float width, const float rgba[4]) {
  if (!xy || n < 2) return;
  unsigned char c[4];
  draw2d_pack(rgba, c);
  for (int i = 0; i + 1 < n; i++)
    draw2d_segment(g, xy[2 * i], xy[2 * i + 1], xy[2 * i + 2], xy[2 * i + 3], width, c);
}

/* ------------------------------------------------------------------ text */

/* stb_easy_font indexes its glyph table by c - 32 without checks: keep to printable ASCII. */
static char draw2d_printable(char c) {
  unsigned char u = (unsigned char)c;
  return u >= 32 && u < 127 ? c : '?';
}

static float draw2d_advance(char c) {
  return (float)(stb_easy_font_charinfo[draw2d_printable(c) - 32].advance & 15);
}

/* Width of the widest line and number of lines, in font units. */
static void draw2d_measure(const char *text, float *width, int *lines) {
  float line = 0, widest = 0;
  int n = 1;
  for (const char *p = text ? text : ""; *p; p++) {
    if (*p == '\n') {
      widest = line > widest ? line : widest;
      line = 0;
      n++;
    } else {
      line += draw2d_advance(*p);
    }
  }
  *width = line > widest ? line : widest;
  *lines = n;
}

float mr_draw2d_text_width(float size, const char *text) {
  float w;
  int lines;
  draw2d_measure(text, &w, &lines);
  return w * size / MR_FONT_CAP_HEIGHT;
}

/* Lines times the line pitch, minus the blank space under the last line's capitals. */
float mr_draw2d_text_height(float size, const char *text) {
  float w;
  int lines;
  draw2d_measure(text, &w, &lines);
  if (!text || !*text) return 0;
  float units = (float)((lines - 1) * MR_FONT_LINE_HEIGHT + MR_FONT_CAP_HEIGHT + 2);
  return units * size / MR_FONT_CAP_HEIGHT;
}

/* One glyph with its origin at font units (pen_x, pen_y), scaled and placed at (x, y). */
static void draw2d_glyph(mr_draw2d *g, char c, float x, float y, float pen_x, float pen_y,
                         float scale, const unsigned char rgba[4]) {
  char glyph[2] = {draw2d_printable(c), 0};
  char quads[MR_FONT_MAX_QUADS * MR_FONT_QUAD_BYTES];
  int nquad = stb_easy_font_print(0, 0, glyph, NULL, quads, sizeof quads);
  if (nquad <= 0 || !draw2d_reserve(g, 6 * nquad)) return;
  for (int k = 0; k < nquad; k++) {
    float q[8];
    for (int j = 0; j < 4; j++) {
      float fx, fy;
      memcpy(&fx, quads + k * MR_FONT_QUAD_BYTES + 16 * j, sizeof fx);
      memcpy(&fy, quads + k * MR_FONT_QUAD_BYTES + 16 * j + 4, sizeof fy);
      q[2 * j] = x + (pen_x + fx) * scale;
      q[2 * j + 1] = y + (pen_y + fy) * scale;
    }
    draw2d_quad(g, q, rgba);
  }
}

float mr_draw2d_text(mr_draw2d *g, float x, float y, float size, const float rgba[4],
                     const char *text) {
  if (!text) return 0;
  unsigned char c[4];
  draw2d_pack(rgba, c);
  float scale = size / MR_FONT_CAP_HEIGHT;
  float pen_x = 0, pen_y = 0;
  for (const char *p = text; *p; p++) {
    if (*p == '\n') {
      pen_x = 0;
      pen_y += MR_FONT_LINE_HEIGHT;
      continue;
    }
    if (*p != ' ') draw2d_glyph(g, *p, x, y, pen_x, pen_y, scale, c);
    pen_x += draw2d_advance(*p);
  }
  return mr_draw2d_text_width(size, text);
}

/* ------------------------------------------------------------------ flush */

void mr_draw2d_end(mr_draw2d *g) {
  if (g->nvert == 0) return;
  GLboolean depth = glIsEnabled(GL_DEPTH_TEST), cull = glIsEnabled(GL_CULL_FACE);
  GLboolean blend = glIsEnabled(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_CULL_FACE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glViewport(0, 0, g->fb_width, g->fb_height);

  glUseProgram(g->program);
  glUniform2f(g->loc_viewport, (float)g->fb_width / g->ui_scale,
              (float)g->fb_height / g->ui_scale);
  glBindVertexArray(g->vao);
  glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
  size_t bytes = (size_t)g->nvert * sizeof(mr_vertex2d);
  if (bytes > g->vbo_bytes) g->vbo_bytes = bytes * 2;
  /* Orphaning the old storage spares the driver a wait for last frame's draw. */
  glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)g->vbo_bytes, NULL, GL_STREAM_DRAW);
  glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, g->vert);
  glDrawArrays(GL_TRIANGLES, 0, g->nvert);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  glUseProgram(0);

  if (depth) glEnable(GL_DEPTH_TEST);
  if (cull) glEnable(GL_CULL_FACE);
  if (!blend) glDisable(GL_BLEND);
}
