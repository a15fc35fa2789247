/* The viewer's GLSL programs (geoms, sky, lines, the 2D panel). Their sources are the files
 * in assets/shaders/, compiled into the binary, so the viewer runs from any directory. */
#ifndef MR_RENDER_SHADER_H
#define MR_RENDER_SHADER_H

#include <glad/gl.h>

/* Compiles and links a vertex + fragment program. 0 and one line in err on failure. */
GLuint mr_shader_build(const char *vertex_src, const char *fragment_src, char *err, int errlen);

extern const char *const mr_shader_geom_vs, *const mr_shader_geom_fs;
extern const char *const mr_shader_sky_vs, *const mr_shader_sky_fs;
extern const char *const mr_shader_line_vs, *const mr_shader_line_fs;
extern const char *const mr_shader_ui_vs, *const mr_shader_ui_fs;

#endif
