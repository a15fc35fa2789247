/* Choosing the plotted sensor (sensor_menu.h). The menu lists every sensor with its type and
 * width in one column; long lists scroll with the cursor. */
#define GLFW_INCLUDE_NONE
#include "sensor_menu.h"

#include "glfw_api.h"
#include <math.h>
#include <stdio.h>

static const float MENU_TEXT = 12, MENU_PAD = 10, MENU_LINE = 16;
static const float MENU_PANEL[4] = {0.0f, 0.0f, 0.0f, 0.75f};
static const float MENU_ROW[4] = {0.35f, 0.55f, 0.95f, 0.55f};
static const float MENU_FG[4] = {0.95f, 0.95f, 0.95f, 1};

void mr_sensor_plot_choose(mr_viewer *v, int id) {
  if (id < -1 || id >= v->m->nsensor) id = -1;
  mr_plot_history_set_sensor(v->plots, v->m, id);
  if (id < 0) {
    mr_viewer_message(v, 0, "no sensor plotted");
    return;
  }
  v->show_plots = 1;
  mr_viewer_message(v, 0, "plotting %s", mr_plot_history_sensor_label(v->plots));
}

void mr_sensor_plot_cycle(mr_viewer *v, int delta) {
  int n = v->m->nsensor;
  if (n == 0) {
    mr_viewer_message(v, 0, "the model has no sensors");
    return;
  }
  /* -1 (none) is part of the cycle */
  int next = (mr_plot_history_sensor(v->plots) + 1 + delta + (n + 1)) % (n + 1) - 1;
  mr_sensor_plot_choose(v, next);
}

void mr_sensor_menu_toggle(mr_viewer *v) {
  if (v->m->nsensor == 0) {
    mr_viewer_message(v, 0, "the model has no sensors");
    v->sensor_menu = 0;
    return;
  }
  v->sensor_menu = !v->sensor_menu;
  int current = mr_plot_history_sensor(v->plots);
  v->sensor_menu_cursor = current >= 0 ? current : 0;
}

int mr_sensor_menu_key(mr_viewer *v, int key) {
  if (!v->sensor_menu) return 0;
  int n = v->m->nsensor;
  switch (key) {
    case GLFW_KEY_UP: v->sensor_menu_cursor = (v->sensor_menu_cursor + n - 1) % n; return 1;
    case GLFW_KEY_DOWN: v->sensor_menu_cursor = (v->sensor_menu_cursor + 1) % n; return 1;
    case GLFW_KEY_ENTER:
    case GLFW_KEY_KP_ENTER:
      v->sensor_menu = 0;
      mr_sensor_plot_choose(v, v->sensor_menu_cursor);
      return 1;
    case GLFW_KEY_ESCAPE: v->sensor_menu = 0; return 1;
    default: return 0;
  }
}

/* The menu's geometry in UI units: its box and the first entry shown. */
typedef struct menu_layout {
  float x, y, w, h;
  int first, rows;
} menu_layout;

/* Columns of an entry (the font is proportional: each starts at its own x). */
static const float COL_NAME = 40, COL_TYPE = 250, COL_DIM = 395, MENU_WIDTH = 420;

static void menu_entry(mr_viewer *v, int i, float x, float y) {
  const mr_model *m = v->m;
  const char *name = mr_id2name(m, MR_OBJ_SENSOR, i);
  char index[16], shown[40], dim[16];
  snprintf(index, sizeof index, "%d", i);
  snprintf(shown, sizeof shown, "%.28s", name && name[0] ? name : "-");
  snprintf(dim, sizeof dim, "%d", m->sensor_dim[i]);
  mr_draw2d_text(v->draw2d, x, y, MENU_TEXT, MENU_FG, index);
  mr_draw2d_text(v->draw2d, x + COL_NAME, y, MENU_TEXT, MENU_FG, shown);
  mr_draw2d_text(v->draw2d, x + COL_TYPE, y, MENU_TEXT, MENU_FG, mr_sensor_type_name(m->sensor_type[i]));
  mr_draw2d_text(v->draw2d, x + COL_DIM, y, MENU_TEXT, MENU_FG, dim);
}

static menu_layout menu_geometry(const mr_viewer *v, float width, float height) {
  menu_layout l;
  int n = v->m->nsensor;
  int fit = (int)((height - 4 * MENU_PAD - 2 * MENU_LINE) / MENU_LINE);
  l.rows = n < fit ? n : (fit > 1 ? fit : 1);
  l.first = v->sensor_menu_cursor - l.rows / 2;
  if (l.first > n - l.rows) l.first = n - l.rows;
  if (l.first < 0) l.first = 0;
  l.w = MENU_WIDTH + 2 * MENU_PAD;
  l.h = (l.rows + 1) * MENU_LINE + 2 * MENU_PAD;
  l.x = fmaxf(0, (width - l.w) / 2);
  l.y = fmaxf(0, (height - l.h) / 2);
  return l;
}

static float menu_scale(const mr_viewer *v) { return v->ui_scale > 0 ? v->ui_scale : 1; }

int mr_sensor_menu_click(mr_viewer *v, double x, double y) {
  if (!v->sensor_menu) return 0;
  float s = menu_scale(v);
  menu_layout l = menu_geometry(v, (float)v->fb_width / s, (float)v->fb_height / s);
  float ux = (float)x, uy = (float)y; /* window coordinates are UI units (see draw2d) */
  int row = (int)floorf((uy - l.y - MENU_PAD - MENU_LINE) / MENU_LINE);
  if (ux >= l.x && ux <= l.x + l.w && row >= 0 && row < l.rows) {
    v->sensor_menu = 0;
    mr_sensor_plot_choose(v, l.first + row);
  } else {
    v->sensor_menu = 0;
  }
  return 1;
}

void mr_sensor_menu_draw(mr_viewer *v, float width, float height) {
  if (!v->sensor_menu || v->m->nsensor == 0) return;
  menu_layout l = menu_geometry(v, width, height);
  mr_draw2d_rect(v->draw2d, l.x, l.y, l.w, l.h, MENU_PANEL);
  mr_draw2d_text(v->draw2d, l.x + MENU_PAD, l.y + MENU_PAD, MENU_TEXT, MENU_FG,
                 "sensor to plot (up/down, enter; esc closes)");
  for (int r = 0; r < l.rows; r++) {
    int i = l.first + r;
    float y = l.y + MENU_PAD + (r + 1) * MENU_LINE;
    if (i == v->sensor_menu_cursor) mr_draw2d_rect(v->draw2d, l.x + 4, y - 2, l.w - 8, MENU_LINE, MENU_ROW);
    menu_entry(v, i, l.x + MENU_PAD, y);
  }
}
