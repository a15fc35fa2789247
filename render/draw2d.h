/* render/draw2d.h: batched 2D drawing in window pixels (origin top-left, y down) over the
 * 3D scene: filled rectangles, lines and text (stb_easy_font). Needs a current GL 3.3 core
 * context.
 *
 * Everything drawn between mr_draw2d_begin and mr_draw2d_end is collected into one vertex
 * array of coloured triangles and sent to the GPU in a single buffer upload and a single
 * draw call at mr_draw2d_end, so overlays cost one draw per frame however much text they
 * hold. Coordinates are UI pixels: a point (x, y) lands on framebuffer pixel
 * (x * ui_scale, y * ui_scale), so a HiDPI window passes its content scale and keeps its
 * layout in window units. Later calls draw over earlier ones. */
#ifndef MR_DRAW2D_H
#define MR_DRAW2D_H

typedef struct mr_draw2d mr_draw2d;

/* NULL if GL setup fails (shader compile or link); the reason is then returned by
 * mr_draw2d_error() as one line. */
mr_draw2d *mr_draw2d_create(void);
void mr_draw2d_free(mr_draw2d *g);
/* The reason the last mr_draw2d_create failed ("" if it did not). */
const char *mr_draw2d_error(void);

void mr_draw2d_begin(mr_draw2d *g, int fb_width, int fb_height, float ui_scale);
void mr_draw2d_rect(mr_draw2d *g, float x, float y, float w, float h, const float rgba[4]);
void mr_draw2d_line(mr_draw2d *g, float x0, float y0, float x1, float y1, float width,
                    const float rgba[4]);
/* n points (x0, y0, x1, y1, ...) joined by n - 1 segments. */
void mr_draw2d_polyline(mr_draw2d *g, const float *xy, int n, float width, const float rgba[4]);
/* Draws text with its top-left at (x, y); size in pixels of a capital letter's height
 * (stb_easy_font's native ~7 px scaled). Returns the advance width in pixels (of the widest
 * line). '\n' starts a new line; characters outside printable ASCII are drawn as '?'. */
float mr_draw2d_text(mr_draw2d *g, float x, float y, float size, const float rgba[4],
                     const char *text);
float mr_draw2d_text_width(float size, const char *text);
float mr_draw2d_text_height(float size, const char *text);
/* Flushes everything batched since begin: one upload, one draw. Leaves depth test, culling
 * and blending as it found them. */
void mr_draw2d_end(mr_draw2d *g);

/* Vertices batched since begin (tests and statistics). */
int mr_draw2d_vertex_count(const mr_draw2d *g);

#endif
