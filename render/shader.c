/* GLSL programs of the 3D scene.
 *
 * Geoms are drawn in one call: every vertex carries the index of its geom, and the vertex
 * shader fetches that geom's pose (3 texels: rows of [R | p]) from a buffer texture updated
 * once per frame, and its look (5 texels: rgba, material, texture mode, two texture colours)
 * from a second buffer texture that changes only on selection. */
#include "shader.h"

#include <stdio.h>

const char *const mr_shader_geom_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in int a_geom;\n"
    "uniform mat4 u_viewproj;\n"
    "uniform samplerBuffer u_pose;\n"
    "uniform samplerBuffer u_look;\n"
    "out vec3 v_world;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_local;\n"
    "flat out int v_geom;\n"
    "void main() {\n"
    "  vec4 r0 = texelFetch(u_pose, 3 * a_geom);\n"
    "  vec4 r1 = texelFetch(u_pose, 3 * a_geom + 1);\n"
    "  vec4 r2 = texelFetch(u_pose, 3 * a_geom + 2);\n"
    "  vec4 p = vec4(a_pos, 1.0);\n"
    "  v_world = vec3(dot(r0, p), dot(r1, p), dot(r2, p));\n"
    "  v_normal = vec3(dot(r0.xyz, a_normal), dot(r1.xyz, a_normal), dot(r2.xyz, a_normal));\n"
    "  v_local = a_pos;\n"
    "  v_geom = a_geom;\n"
    "  gl_Position = u_viewproj * vec4(v_world, 1.0);\n"
    "}\n";

/* Two directional lights (a key light from above and a headlight), Blinn-Phong specular,
 * and MuJoCo's builtin textures computed in place: checker (2x2 checks per repeat) and
 * gradient. In pick mode the fragment's colour is the geom index + 1. */
const char *const mr_shader_geom_fs =
    "#version 330 core\n"
    "in vec3 v_world;\n"
    "in vec3 v_normal;\n"
    "in vec3 v_local;\n"
    "flat in int v_geom;\n"
    "uniform samplerBuffer u_look;\n"
    "uniform vec3 u_eye;\n"
    "uniform vec3 u_light_dir;\n"
    "uniform int u_pick;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "  if (u_pick != 0) {\n"
    "    int id = v_geom + 1;\n"
    "    frag = vec4(float(id & 255), float((id >> 8) & 255), float((id >> 16) & 255), 255.0) / 255.0;\n"
    "    return;\n"
    "  }\n"
    "  vec4 rgba = texelFetch(u_look, 5 * v_geom);\n"
    "  vec4 mat = texelFetch(u_look, 5 * v_geom + 1);\n"
    "  vec4 tex = texelFetch(u_look, 5 * v_geom + 2);\n"
    "  vec3 rgb1 = texelFetch(u_look, 5 * v_geom + 3).rgb;\n"
    "  vec3 rgb2 = texelFetch(u_look, 5 * v_geom + 4).rgb;\n"
    "  vec3 base = rgba.rgb;\n"
    "  if (tex.x > 0.5 && tex.x < 1.5) {\n"
    "    vec2 uv = v_local.xy * tex.yz;\n"
    "    float check = mod(floor(2.0 * uv.x) + floor(2.0 * uv.y), 2.0);\n"
    "    base *= mix(rgb1, rgb2, check);\n"
    "  } else if (tex.x > 1.5 && tex.x < 2.5) {\n"
    "    float s = clamp(0.5 + 0.5 * normalize(v_local).z, 0.0, 1.0);\n"
    "    base *= mix(rgb2, rgb1, s);\n"
    "  } else if (tex.x > 2.5) {\n"
    "    base *= rgb1;\n"
    "  }\n"
    "  vec3 n = normalize(v_normal);\n"
    "  vec3 view = normalize(u_eye - v_world);\n"
    "  if (dot(n, view) < 0.0) n = -n;\n"
    "  vec3 l = normalize(-u_light_dir);\n"
    "  float key = max(dot(n, l), 0.0);\n"
    "  float head = max(dot(n, view), 0.0);\n"
    "  float spec = pow(max(dot(n, normalize(l + view)), 0.0), 1.0 + 127.0 * mat.y) * mat.x;\n"
    "  vec3 lit = base * (0.25 + 0.5 * key + 0.35 * head) + vec3(spec) * 0.5 + base * mat.z;\n"
    "  frag = vec4(min(lit, vec3(1.0)), rgba.a);\n"
    "}\n";

/* A full-screen triangle shaded from the skybox's top colour to its bottom colour. */
const char *const mr_shader_sky_vs =
    "#version 330 core\n"
    "out float v_height;\n"
    "void main() {\n"
    "  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;\n"
    "  v_height = 0.5 + 0.5 * p.y;\n"
    "  gl_Position = vec4(p, 1.0, 1.0);\n"
    "}\n";

const char *const mr_shader_sky_fs =
    "#version 330 core\n"
    "in float v_height;\n"
    "uniform vec3 u_top;\n"
    "uniform vec3 u_bottom;\n"
    "out vec4 frag;\n"
    "void main() { frag = vec4(mix(u_bottom, u_top, clamp(v_height, 0.0, 1.0)), 1.0); }\n";

const char *const mr_shader_line_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_pos;\n"
    "layout(location = 1) in vec4 a_color;\n"
    "uniform mat4 u_viewproj;\n"
    "uniform float u_point_size;\n"
    "out vec4 v_color;\n"
    "void main() {\n"
    "  v_color = a_color;\n"
    "  gl_PointSize = u_point_size;\n"
    "  gl_Position = u_viewproj * vec4(a_pos, 1.0);\n"
    "}\n";

const char *const mr_shader_line_fs =
    "#version 330 core\n"
    "in vec4 v_color;\n"
    "out vec4 frag;\n"
    "void main() { frag = v_color; }\n";

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
