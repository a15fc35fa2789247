/* The plots panel (issue 5): the plotted series equal the metrics the engine returned for
 * the same steps, the ring buffer keeps the newest samples in order, the convergence curve
 * is the latest step's, solver switches leave labelled marks; then the panel and text are
 * drawn into an offscreen framebuffer (hidden GLFW window, GL 3.3 core, run under Xvfb)
 * and the pixels are checked. */
#include <glad/gl.h>
#include "render/glfw_api.h" /* libglfw through the viewer's table */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/draw2d.h"
#include "moreau.h"
#include "mr_test.h"
#include "render/plot_history.h"
#include "render/plots.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"

enum { NSTEPS = 300, SWITCH_STEP = 150, SMALL_CAPACITY = 50 };

/* What the engine reported after each step, for comparison with the history. */
typedef struct step_record {
  double time;
  double value[MR_SERIES_COUNT];
} step_record;

static void record_step(step_record *r, const mr_data *d) {
  r->time = d->time;
  r->value[MR_SERIES_PRIMAL] = d->metrics.primal;
  r->value[MR_SERIES_DUAL] = d->metrics.dual;
  r->value[MR_SERIES_COMPLEMENTARITY] = d->metrics.complementarity;
  r->value[MR_SERIES_NATURAL_MAP] = d->metrics.natural_map;
  r->value[MR_SERIES_SIGNORINI] = d->metrics.signorini;
  r->value[MR_SERIES_DISSIPATION] = d->metrics.dissipation;
  r->value[MR_SERIES_PENETRATION] = d->metrics.penetration;
  r->value[MR_SERIES_ITERATIONS] = d->solver_iters;
  r->value[MR_SERIES_SOLVER_TIME] = d->metrics.solver_time;
  r->value[MR_SERIES_ENERGY] = d->metrics.energy;
  r->value[MR_SERIES_CONTACTS] = d->ncon;
  r->value[MR_SERIES_RESIDUAL] = d->solver_residual;
}

/* Every sample of h equals the record of the same step; h holds the last count records. */
static void check_history_matches(const mr_plot_history *h, const step_record *rec, int nrec) {
  int n = mr_plot_history_count(h);
  int mismatches = 0;
  for (int i = 0; i < n; i++) {
    const step_record *r = &rec[nrec - n + i];
    if (mr_plot_history_time(h, i) != r->time) mismatches++;
    for (int s = 0; s < MR_SERIES_SENSOR0; s++) /* the metrics; sensors: test_view_sensors */
      if (mr_plot_history_value(h, (mr_series)s, i) != r->value[s]) {
        if (mismatches++ < 5)
          fprintf(stderr, "sample %d series %s: %g != %g\n", i, mr_series_name((mr_series)s),
                  mr_plot_history_value(h, (mr_series)s, i), r->value[s]);
      }
  }
  MR_CHECK_MSG(mismatches == 0, "%d stored values differ from the engine's", mismatches);
}

static step_record records[NSTEPS];
static mr_plot_history *full_history; /* capacity above NSTEPS: keeps every step */

/* ------------------------------------------------------------------ data tests */

static void test_history_equals_metrics(void) {
  char err[512] = "";
  mr_load_options lo = {.quiet = 1};
  mr_model *m = mr_model_load(HUMANOID, &lo, err, sizeof err);
  MR_REQUIRE(m != NULL);
  mr_data *d = mr_data_create(m);
  int pgs = mr_solver_find("pgs"), ccp = mr_solver_find("ccp");
  MR_REQUIRE(pgs >= 0 && ccp >= 0);
  d->opt.solver = pgs;

  full_history = mr_plot_history_create(4 * NSTEPS);
  mr_plot_history *small = mr_plot_history_create(SMALL_CAPACITY);
  MR_REQUIRE(full_history && small);
  int max_contacts = 0, pushes_checked = 0, push_mismatch = 0;
  for (int k = 0; k < NSTEPS; k++) {
    if (k == SWITCH_STEP) d->opt.solver = ccp; /* between two steps, as the viewer does */
    MR_REQUIRE(mr_step(m, d) == 0);
    record_step(&records[k], d);
    mr_plot_history_push(full_history, d);
    mr_plot_history_push(small, d);
    max_contacts = d->ncon > max_contacts ? d->ncon : max_contacts;
    /* The newest sample is this step's, right after the push. */
    int last = mr_plot_history_count(full_history) - 1;
    for (int s = 0; s < MR_SERIES_SENSOR0; s++)
      push_mismatch += mr_plot_history_value(full_history, (mr_series)s, last) != records[k].value[s];
    pushes_checked++;
  }
  MR_CHECK(pushes_checked == NSTEPS);
  MR_CHECK_MSG(push_mismatch == 0, "%d values differ right after their push", push_mismatch);
  MR_CHECK_MSG(max_contacts >= 4, "the humanoid should land on the floor (max ncon %d)",
               max_contacts);

  /* Every step kept and equal to what the engine returned. */
  MR_CHECK(mr_plot_history_count(full_history) == NSTEPS);
  check_history_matches(full_history, records, NSTEPS);

  /* The latest convergence curve is the last solve's residual history. */
  const double *curve = NULL;
  int n = mr_plot_history_curve(full_history, &curve);
  MR_CHECK_MSG(n == d->solver_iters && n > 0, "curve length %d, solver_iters %d", n,
               d->solver_iters);
  int curve_diff = 0;
  for (int i = 0; i < n && curve; i++) curve_diff += curve[i] != d->solver_history[i];
  MR_CHECK(curve_diff == 0);

  /* Over capacity: the oldest were dropped, the newest kept in order. */
  MR_CHECK(mr_plot_history_count(small) == SMALL_CAPACITY);
  MR_CHECK(mr_plot_history_capacity(small) == SMALL_CAPACITY);
  check_history_matches(small, records, NSTEPS);
  MR_CHECK(mr_plot_history_time(small, 0) == records[NSTEPS - SMALL_CAPACITY].time);
  MR_CHECK(mr_plot_history_time(small, SMALL_CAPACITY - 1) == records[NSTEPS - 1].time);
  int ordered = 1;
  for (int i = 1; i < SMALL_CAPACITY; i++)
    ordered &= mr_plot_history_time(small, i) > mr_plot_history_time(small, i - 1);
  MR_CHECK(ordered);

  /* Solver marks: the first solver at the start, the switch where it happened. */
  MR_CHECK(mr_plot_history_mark_count(full_history) == 2);
  MR_CHECK(strcmp(mr_plot_history_mark_label(full_history, 0), "pgs") == 0);
  MR_CHECK(strcmp(mr_plot_history_mark_label(full_history, 1), "ccp") == 0);
  MR_CHECK_NEAR(mr_plot_history_mark_time(full_history, 0), 0, 1e-12);
  MR_CHECK(mr_plot_history_mark_time(full_history, 1) == records[SWITCH_STEP - 1].time);
  mr_plot_history_mark(full_history, "ccp");
  mr_plot_history_mark(full_history, "midpoint");
  mr_plot_history_mark(full_history, "ccp");      /* repeated: kept once */
  mr_plot_history_mark(full_history, "midpoint"); /* repeated: kept once */
  MR_CHECK(mr_plot_history_mark_count(full_history) == 4);
  MR_CHECK(mr_plot_history_mark_time(full_history, 3) == records[NSTEPS - 1].time);
  MR_CHECK(strcmp(mr_plot_history_mark_label(full_history, 3), "midpoint") == 0);

  /* Clear empties everything; pushing again starts a fresh history. */
  mr_plot_history_clear(small);
  MR_CHECK(mr_plot_history_count(small) == 0);
  MR_CHECK(mr_plot_history_curve(small, &curve) == 0);
  MR_CHECK(mr_plot_history_mark_count(small) == 0);
  mr_plot_history_push(small, d);
  MR_CHECK(mr_plot_history_count(small) == 1);
  MR_CHECK(mr_plot_history_value(small, MR_SERIES_CONTACTS, 0) == d->ncon);
  MR_CHECK(mr_plot_history_mark_count(small) == 1);

  /* A switch the caller marks itself is not marked twice by the next push. */
  d->opt.solver = pgs;
  mr_plot_history_mark(small, "pgs");
  MR_REQUIRE(mr_step(m, d) == 0);
  mr_plot_history_push(small, d);
  MR_CHECK(mr_plot_history_mark_count(small) == 2);
  MR_CHECK(strcmp(mr_plot_history_mark_label(small, 1), "pgs") == 0);

  /* A reset the caller did not report (time going back) starts over, too. */
  mr_data_reset(m, d);
  MR_REQUIRE(mr_step(m, d) == 0);
  mr_plot_history_push(small, d);
  MR_CHECK(mr_plot_history_count(small) == 1);
  MR_CHECK(mr_plot_history_time(small, 0) == d->time);

  MR_CHECK(strcmp(mr_series_name(MR_SERIES_PRIMAL), "primal") == 0);
  MR_CHECK(strcmp(mr_series_name(MR_SERIES_COUNT), "?") == 0);
  mr_plot_history_free(small);
  mr_data_free(d);
  mr_model_free(m);
}

/* ------------------------------------------------------------------ pixels */

enum { FB_W = 900, FB_H = 640 };
static unsigned char pixels[FB_W * FB_H * 4];

static void read_framebuffer(void) {
  glReadPixels(0, 0, FB_W, FB_H, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
}

static const unsigned char *pixel_at(int x, int y) { /* y down, like draw2d */
  return pixels + 4 * ((size_t)(FB_H - 1 - y) * FB_W + x);
}

static int colour_byte(float c) { return (int)(c * 255.0f + 0.5f); }

/* Pixels within +-2 of the opaque colour rgba, inside the rectangle. */
static int count_colour(const float rgba[4], int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++) {
      const unsigned char *p = pixel_at(x, y);
      int close = 1;
      for (int c = 0; c < 3; c++) close &= abs(p[c] - colour_byte(rgba[c])) <= 2;
      n += close;
    }
  return n;
}

static void clear_black(void) {
  glClearColor(0, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
}

static void test_text_metrics(mr_draw2d *g) {
  float a = mr_draw2d_text_width(14, "abc"), b = mr_draw2d_text_width(14, "abcdef");
  MR_CHECK(a > 0 && b > a);
  MR_CHECK_NEAR(mr_draw2d_text_width(28, "abc"), 2 * a, 1e-4);
  MR_CHECK(mr_draw2d_text_width(14, "") == 0);
  MR_CHECK_NEAR(mr_draw2d_text_width(14, "abc\nabcdef\nab"), b, 1e-4);
  float h1 = mr_draw2d_text_height(14, "abc"), h2 = mr_draw2d_text_height(14, "abc\nabc");
  MR_CHECK(h1 >= 14 && h2 > h1 + 10);
  MR_CHECK_NEAR(mr_draw2d_text_height(28, "abc"), 2 * h1, 1e-4);
  /* Bytes outside printable ASCII neither crash nor vanish from the measure. */
  MR_CHECK(mr_draw2d_text_width(14, "a\x01\xff") > mr_draw2d_text_width(14, "a"));

  /* Drawn text lands inside the box its measures promise, and fills most of its width. */
  const float white[4] = {1, 1, 1, 1};
  const char *text = "HELLO plots 123";
  const float x = 40, y = 30, size = 14;
  clear_black();
  mr_draw2d_begin(g, FB_W, FB_H, 1);
  float advance = mr_draw2d_text(g, x, y, size, white, text);
  int nvert = mr_draw2d_vertex_count(g);
  mr_draw2d_end(g);
  read_framebuffer();
  MR_CHECK_NEAR(advance, mr_draw2d_text_width(size, text), 1e-4);
  MR_CHECK(nvert > 0 && nvert % 3 == 0);
  float w = mr_draw2d_text_width(size, text), h = mr_draw2d_text_height(size, text);
  int minx = FB_W, maxx = -1, miny = FB_H, maxy = -1, lit = 0;
  for (int py = 0; py < FB_H; py++)
    for (int px = 0; px < FB_W; px++)
      if (pixel_at(px, py)[0] > 128) {
        lit++;
        minx = px < minx ? px : minx, maxx = px > maxx ? px : maxx;
        miny = py < miny ? py : miny, maxy = py > maxy ? py : maxy;
      }
  MR_CHECK_MSG(lit > 100, "%d lit pixels", lit);
  MR_CHECK_MSG(minx >= x - 1 && maxx <= x + w + 1 && miny >= y - 1 && maxy <= y + h + 1,
               "ink [%d %d]x[%d %d] outside [%g %g]x[%g %g]", minx, maxx, miny, maxy, x, x + w,
               y, y + h);
  MR_CHECK_MSG(maxx - minx > 0.8f * w, "ink width %d of %g", maxx - minx, w);
  MR_CHECK_MSG(maxy - miny >= size - 1, "ink height %d for size %g", maxy - miny, size);

  /* Scaled UI: the same text at ui_scale 2 covers twice the pixels across. */
  clear_black();
  mr_draw2d_begin(g, FB_W, FB_H, 2);
  mr_draw2d_text(g, x / 2, y / 2, size / 2, white, text);
  mr_draw2d_end(g);
  read_framebuffer();
  int maxx2 = -1;
  for (int py = 0; py < FB_H; py++)
    for (int px = 0; px < FB_W; px++)
      if (pixel_at(px, py)[0] > 128 && px > maxx2) maxx2 = px;
  MR_CHECK_MSG(abs(maxx2 - maxx) <= 2, "ui_scale 2: right edge %d vs %d", maxx2, maxx);
}

/* Draws the panel over black into the framebuffer; returns draw2d's vertex count. */
static int draw_panel(mr_draw2d *g, const mr_plot_history *h, float cx, float cy) {
  clear_black();
  mr_draw2d_begin(g, FB_W, FB_H, 1);
  mr_plots_draw(g, h, 0, 0, FB_W, FB_H, cx, cy, 10.0);
  int n = mr_draw2d_vertex_count(g);
  mr_draw2d_end(g);
  read_framebuffer();
  return n;
}

static void test_panel_pixels(mr_draw2d *g) {
  draw_panel(g, full_history, -1, -1);
  /* Not blank: the translucent background covers the panel and there is bright ink. */
  int covered = 0, bright = 0;
  for (int y = 0; y < FB_H; y++)
    for (int x = 0; x < FB_W; x++) {
      const unsigned char *p = pixel_at(x, y);
      covered += p[0] + p[1] + p[2] > 0;
      bright += p[0] + p[1] + p[2] > 300;
    }
  MR_CHECK_MSG(covered > 0.95 * FB_W * FB_H, "panel covers %d of %d pixels", covered,
               FB_W * FB_H);
  MR_CHECK_MSG(bright > 2000, "%d bright pixels", bright);

  /* Every series' colour shows (its legend swatch at least); the series drawn on top in
   * each chart shows as a line: many more pixels than a swatch. */
  for (int s = 0; s < MR_SERIES_SENSOR0; s++) { /* the humanoid has no sensor to plot */
    float rgba[4];
    mr_series_color((mr_series)s, rgba);
    int n = count_colour(rgba, 0, 0, FB_W, FB_H);
    MR_CHECK_MSG(n >= 16, "series %s: %d pixels of its colour", mr_series_name((mr_series)s), n);
  }
  const mr_series on_top[] = {MR_SERIES_NATURAL_MAP, MR_SERIES_PENETRATION,
                              MR_SERIES_ITERATIONS,  MR_SERIES_SOLVER_TIME,
                              MR_SERIES_ENERGY,      MR_SERIES_CONTACTS};
  for (size_t k = 0; k < sizeof on_top / sizeof on_top[0]; k++) {
    float rgba[4];
    mr_series_color(on_top[k], rgba);
    int n = count_colour(rgba, 0, 0, FB_W, FB_H);
    MR_CHECK_MSG(n > 150, "series %s line: %d pixels", mr_series_name(on_top[k]), n);
  }
  float curve[4];
  mr_plots_curve_color(curve);
  MR_CHECK_MSG(count_colour(curve, 0, 0, FB_W, FB_H) > 100, "the convergence curve is drawn");

  /* The cursor over a chart changes what the legends print (values at the cursor). */
  static unsigned char no_cursor[FB_W * FB_H * 4];
  memcpy(no_cursor, pixels, sizeof pixels);
  draw_panel(g, full_history, FB_W * 0.25f, FB_H * 0.15f);
  MR_CHECK(memcmp(no_cursor, pixels, sizeof pixels) != 0);
}

/* A long history costs vertices by chart width, not by step count. */
static void test_panel_decimation(mr_draw2d *g) {
  mr_plot_history *big = mr_plot_history_create(40000);
  MR_REQUIRE(big);
  mr_data fake;
  memset(&fake, 0, sizeof fake);
  double residuals[3] = {1, 0.1, 0.01};
  fake.solver_history = residuals;
  fake.opt.timestep = 2.5e-4;
  for (int k = 0; k < 40000; k++) {
    fake.time = (k + 1) * fake.opt.timestep;
    fake.metrics.primal = 1e-3 * (1 + sin(k * 0.01));
    fake.metrics.energy = cos(k * 0.003);
    fake.ncon = k % 7;
    fake.solver_iters = 3;
    mr_plot_history_push(big, &fake);
  }
  int nvert = draw_panel(g, big, -1, -1);
  MR_CHECK_MSG(nvert < 150000, "%d vertices for 40000 steps", nvert);
  /* Zeros on log axes are drawn at the floor, and the chart says so. */
  MR_CHECK(mr_plot_history_value(big, MR_SERIES_DUAL, 0) == 0);
  mr_plot_history_free(big);

  /* An empty history and degenerate rectangles draw without trouble. */
  mr_plot_history *empty = mr_plot_history_create(10);
  MR_CHECK(draw_panel(g, empty, 5, 5) > 0);
  mr_draw2d_begin(g, FB_W, FB_H, 1);
  mr_plots_draw(g, full_history, 0, 0, 30, 20, 10, 10, 10.0);
  mr_plots_draw(g, full_history, 0, 0, 0, 0, 0, 0, 0);
  mr_draw2d_end(g);
  mr_plot_history_free(empty);
}

static int test_gl(void) {
  char err[400];
  if (mr_glfw_load(err, (int)sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 0;
  }
  if (!glfwInit()) {
    fprintf(stderr, "glfwInit failed: no display (run under xvfb-run)\n");
    return 0;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow *win = glfwCreateWindow(64, 64, "test_view_plots", NULL, NULL);
  if (!win) {
    glfwTerminate();
    fprintf(stderr, "no GL 3.3 core context\n");
    return 0;
  }
  glfwMakeContextCurrent(win);
  MR_REQUIRE(gladLoadGL(glfwGetProcAddress) != 0);

  /* An offscreen target: the default framebuffer of a hidden window is not reliably
   * readable. */
  GLuint fbo, rbo;
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &rbo);
  glBindRenderbuffer(GL_RENDERBUFFER, rbo);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, FB_W, FB_H);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rbo);
  MR_REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);

  mr_draw2d *g = mr_draw2d_create();
  MR_REQUIRE(g != NULL);
  MR_CHECK(strcmp(mr_draw2d_error(), "") == 0);
  test_text_metrics(g);
  test_panel_pixels(g);
  test_panel_decimation(g);
  MR_CHECK(glGetError() == GL_NO_ERROR);

  if (getenv("MR_PLOTS_PNG")) { /* debugging aid: dump the last panel as a PPM */
    clear_black();
    mr_draw2d_begin(g, FB_W, FB_H, 1);
    mr_plots_draw(g, full_history, FB_W - 620, 0, 620, FB_H - 26, FB_W - 400, 100, 10.0);
    mr_draw2d_end(g);
    read_framebuffer();
    FILE *f = fopen(getenv("MR_PLOTS_PNG"), "wb");
    if (f) {
      fprintf(f, "P6 %d %d 255\n", FB_W, FB_H);
      for (int y = 0; y < FB_H; y++)
        for (int x = 0; x < FB_W; x++) fwrite(pixel_at(x, y), 1, 3, f);
      fclose(f);
    }
  }
  mr_draw2d_free(g);
  glDeleteFramebuffers(1, &fbo);
  glDeleteRenderbuffers(1, &rbo);
  glfwDestroyWindow(win);
  glfwTerminate();
  return 1;
}

int main(void) {
  test_history_equals_metrics();
  MR_REQUIRE(test_gl());
  mr_plot_history_free(full_history);
  MR_TEST_END();
}
