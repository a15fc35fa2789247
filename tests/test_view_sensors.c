/* Plotting a sensor in the viewer (issue 19): N / shift+N cycle through the sensors, E opens
 * a menu (arrows and enter, or a click), the plots history keeps the chosen sensor's values
 * step by step as the engine computed them, and the panel draws them in their colours. A
 * hidden window under Xvfb; keys go through mr_viewer_key as real ones do. */
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_test.h"
#include "render/plots.h"
#include "render/sensor_menu.h"
#include "render/viewer.h"

#define SENSORS MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_contact_sensors.xml"
#define PENDULUM MOREAU_SOURCE_DIR "/models/pendulum.xml"

static mr_viewer *open_viewer(const char *path) {
  mr_viewer_config c = {0};
  c.model_path = path;
  c.width = 1280;
  c.height = 720;
  char err[1024];
  int status = 0;
  mr_viewer *v = mr_viewer_create(&c, err, (int)sizeof err, &status);
  if (!v) fprintf(stderr, "cannot open the viewer (%d): %s\n", status, err);
  return v;
}

/* Steps one at a time and checks that each push stored the step's sensor values. */
static void check_values_follow(mr_viewer *v, int steps) {
  int id = mr_plot_history_sensor(v->plots), dim = mr_plot_history_sensor_dim(v->plots);
  MR_REQUIRE(id >= 0 && dim == v->m->sensor_dim[id]);
  int bad = 0, nonzero = 0;
  for (int k = 0; k < steps; k++) {
    MR_REQUIRE(mr_viewer_step(v) == 0);
    int last = mr_plot_history_count(v->plots) - 1;
    for (int i = 0; i < dim; i++) {
      double x = mr_plot_history_value(v->plots, (mr_series)(MR_SERIES_SENSOR0 + i), last);
      bad += x != v->d->sensordata[v->m->sensor_adr[id] + i];
      nonzero += x != 0;
    }
  }
  MR_CHECK_MSG(bad == 0, "%d plotted values differ from d->sensordata", bad);
  MR_CHECK_MSG(nonzero > 0, "sensor %d read only zeros over %d steps", id, steps);
}

static int count_colour(const float rgba[4], int w, int h) {
  unsigned char *px = malloc((size_t)w * h * 4);
  MR_REQUIRE(px);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px);
  int n = 0;
  for (int i = 0; i < w * h; i++) {
    int match = 1;
    for (int c = 0; c < 3; c++) match &= abs(px[4 * i + c] - (int)lroundf(255 * rgba[c])) <= 6;
    n += match;
  }
  free(px);
  return n;
}

int main(void) {
  mr_viewer *v = open_viewer(SENSORS);
  MR_REQUIRE(v);
  MR_CHECK(mr_plot_history_sensor(v->plots) == -1);
  /* N walks forward through the sensors, shift+N back; "none" is part of the cycle. */
  mr_viewer_key(v, GLFW_KEY_N, 0);
  MR_CHECK(mr_plot_history_sensor(v->plots) == 0 && v->show_plots);
  mr_viewer_key(v, GLFW_KEY_N, 0);
  mr_viewer_key(v, GLFW_KEY_N, 0);
  MR_CHECK(mr_plot_history_sensor(v->plots) == 2);
  mr_viewer_key(v, GLFW_KEY_N, GLFW_MOD_SHIFT);
  MR_CHECK(mr_plot_history_sensor(v->plots) == 1);
  for (int k = 0; k < 3; k++) mr_viewer_key(v, GLFW_KEY_N, GLFW_MOD_SHIFT);
  MR_CHECK(mr_plot_history_sensor(v->plots) == v->m->nsensor - 1); /* 1, 0, none, last */
  MR_CHECK(strstr(mr_plot_history_sensor_label(v->plots), "angacc_pole") != NULL);

  /* The menu: E opens it on the plotted sensor, arrows move, enter chooses; keys it takes
   * do not reach the rest of the viewer (down does not step). */
  mr_viewer_key(v, GLFW_KEY_E, 0);
  MR_CHECK(v->sensor_menu && v->sensor_menu_cursor == v->m->nsensor - 1);
  mr_viewer_key(v, GLFW_KEY_DOWN, 0); /* wraps to the first */
  mr_viewer_key(v, GLFW_KEY_DOWN, 0);
  mr_viewer_key(v, GLFW_KEY_DOWN, 0);
  MR_CHECK(v->sensor_menu_cursor == 2);
  mr_viewer_key(v, GLFW_KEY_ENTER, 0);
  MR_CHECK(!v->sensor_menu && mr_plot_history_sensor(v->plots) == 2);
  /* escape closes without choosing; a click outside closes too */
  mr_viewer_key(v, GLFW_KEY_E, 0);
  mr_viewer_key(v, GLFW_KEY_UP, 0);
  mr_viewer_key(v, GLFW_KEY_ESCAPE, 0);
  MR_CHECK(!v->sensor_menu && mr_plot_history_sensor(v->plots) == 2);
  mr_viewer_key(v, GLFW_KEY_E, 0);
  MR_CHECK(mr_sensor_menu_click(v, 1, 1) == 1 && !v->sensor_menu);

  /* acc_block (3 numbers) while the block lands: the history is the engine's values. (Not
   * force_block, the menu's choice: the force a free body's joint transmits is zero, and
   * only round-off made it otherwise under some solvers.) */
  MR_CHECK(strcmp(mr_id2name(v->m, MR_OBJ_SENSOR, 4), "acc_block") == 0);
  mr_sensor_plot_choose(v, 4);
  check_values_follow(v, 150);
  /* touch_bottom, a scalar: the weight of the resting block, to what the solver's tolerance
   * leaves of it. Each step ends with the block's velocity within tol of rest, so from one
   * step to the next it changes by up to 2 tol: a force of mass 2 tol / dt (the mass is
   * 2 kg). */
  mr_sensor_plot_choose(v, 0);
  check_values_follow(v, 100);
  int last = mr_plot_history_count(v->plots) - 1;
  double force_tol = 2 * 2 * v->d->opt.tol / v->d->opt.timestep;
  MR_CHECK(force_tol > 0 && force_tol < 1e-4);
  MR_CHECK_NEAR(mr_plot_history_value(v->plots, MR_SERIES_SENSOR0, last), 2 * 9.81, force_tol);

  /* The panel draws the chosen sensor's lines: force_bob's three colours show up. */
  mr_sensor_plot_choose(v, 5);
  for (int k = 0; k < 120; k++) MR_REQUIRE(mr_viewer_step(v) == 0);
  mr_viewer_render(v);
  if (getenv("MR_TEST_SCREENSHOT")) mr_viewer_screenshot(v, getenv("MR_TEST_SCREENSHOT"), NULL, 0);
  for (int i = 0; i < 3; i++) {
    float rgba[4];
    mr_series_color((mr_series)(MR_SERIES_SENSOR0 + i), rgba);
    int n = count_colour(rgba, v->fb_width, v->fb_height);
    MR_CHECK_MSG(n > 30, "sensor number %d: %d pixels of its colour", i, n);
  }

  /* A reload keeps the sensor by name; a model without it (or without sensors) drops it. */
  MR_CHECK(mr_viewer_load(v, SENSORS, 1) == 0);
  MR_CHECK(mr_plot_history_sensor(v->plots) == 5);
  MR_CHECK(mr_viewer_load(v, PENDULUM, 0) == 0);
  MR_CHECK(mr_plot_history_sensor(v->plots) == -1);
  mr_viewer_key(v, GLFW_KEY_N, 0);
  MR_CHECK(mr_plot_history_sensor(v->plots) == -1 && strstr(v->message, "no sensors"));
  mr_viewer_key(v, GLFW_KEY_E, 0);
  MR_CHECK(!v->sensor_menu);
  mr_viewer_free(v);
  MR_TEST_END();
}
