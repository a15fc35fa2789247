/* The viewer's GLSL programs: sources from assets/shaders/ (embedded at build time), and
 * their compilation. */
#include "shader.h"

#include <stdio.h>

#include "mr_assets.h"

/* The sources live in assets/shaders/ and are compiled into the binary (mr_assets.h). */
const char *const mr_shader_geom_vs = (const char *)mr_asset_shaders_geom_vert;
const char *const mr_shader_geom_fs = (const char *)mr_asset_shaders_geom_frag;
const char *const mr_shader_sky_vs = (const char *)mr_asset_shaders_sky_vert;
const char *const mr_shader_sky_fs = (const char *)mr_asset_shaders_sky_frag;
const char *const mr_shader_line_vs = (const char *)mr_asset_shaders_line_vert;
const char *const mr_shader_line_fs = (const char *)mr_asset_shaders_line_frag;
const char *const mr_shader_ui_vs = (const char *)mr_asset_shaders_ui_vert;
const char *const mr_shader_ui_fs = (const char *)mr_asset_shaders_ui_frag;

static GLuint shader_compile(GLenum kind, const char *src, char *err, int errlen) {
  GLuint s = glCreateShader(kind);
  glShaderSource(s, 1, &src, NULL);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (ok) return s;
  char log[512] = "";
  glGetShaderInfoLog(s, (GLsizei)sizeof log, NULL, log);
  for (char *c = log; *c; c++)
    if (*c == '\n') *c = ' ';
  snprintf(err, (size_t)errlen, "cannot compile a %s shader: %s",
           kind == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
  glDeleteShader(s);
  return 0;
}

GLuint mr_shader_build(const char *vertex_src, const char *fragment_src, char *err, int errlen) {
  GLuint vs = shader_compile(GL_VERTEX_SHADER, vertex_src, err, errlen);
  if (!vs) return 0;
  GLuint fs = shader_compile(GL_FRAGMENT_SHADER, fragment_src, err, errlen);
  if (!fs) {
    glDeleteShader(vs);
    return 0;
  }
  GLuint p = glCreateProgram();
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (ok) return p;
  char log[512] = "";
  glGetProgramInfoLog(p, (GLsizei)sizeof log, NULL, log);
  for (char *c = log; *c; c++)
    if (*c == '\n') *c = ' ';
  snprintf(err, (size_t)errlen, "cannot link a shader program: %s", log);
  glDeleteProgram(p);
  return 0;
}
