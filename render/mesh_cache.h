/* GPU geometry of a model, built once per model load: every drawable geom tessellated at its
 * own size in its own frame into one vertex buffer, each vertex tagged with its geom index,
 * so the whole scene draws in one call (opaque geoms first, then transparent ones). */
#ifndef MR_RENDER_MESH_CACHE_H
#define MR_RENDER_MESH_CACHE_H

#include <glad/gl.h>

#include "moreau.h"

typedef struct mr_mesh_cache {
  GLuint vao, vbo, ebo;
  int nindex_opaque;      /* indices of opaque geoms come first */
  int nindex;             /* all indices */
  int nvert;
  float *geom_rgba;       /* ngeom x4: the colour each geom is drawn with (material resolved) */
} mr_mesh_cache;

/* plane_extent: half size used for infinite planes (MuJoCo's size 0). 0 and one line in err
 * on failure. */
int mr_mesh_cache_build(mr_mesh_cache *c, const mr_model *m, double plane_extent, char *err,
                        int errlen);
void mr_mesh_cache_free(mr_mesh_cache *c);

/* The colour of geom g: the geom's rgba unless it was left at the default and a material
 * gives one (MuJoCo's rule). */
void mr_geom_color(const mr_model *m, int g, float rgba[4]);

#endif
