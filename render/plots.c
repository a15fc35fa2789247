/* The plots panel: a grid of small charts over the last N seconds of simulated time, plus
 * the convergence curve of the latest solve. Everything is batched into draw2d, so the
 * whole panel costs the caller's one draw call. Long histories are reduced to at most two
 * points (the min and max) per pixel column, which keeps spikes visible and the vertex
 * count bounded by the chart width, not the number of steps. */
#include "plots.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { MAX_CHART_SERIES = 5, MAX_COLUMNS = 2048 };

static const float TEXT_SIZE = 7;   /* stb_easy_font's native size: crisp pixels */
static const float LINE_PITCH = 11; /* header line spacing */
static const float PAD = 6;
static const float LINE_WIDTH = 1.5f;

static const float panel_rgba[4] = {0.06f, 0.06f, 0.08f, 0.80f};
static const float chart_rgba[4] = {0.0f, 0.0f, 0.0f, 0.35f};
static const float grid_rgba[4] = {1.0f, 1.0f, 1.0f, 0.10f};
static const float label_rgba[4] = {0.72f, 0.72f, 0.75f, 1.0f};
static const float text_rgba[4] = {0.95f, 0.95f, 0.95f, 1.0f};
static const float mark_rgba[4] = {0.95f, 0.85f, 0.55f, 0.70f};
static const float cursor_rgba[4] = {1.0f, 1.0f, 1.0f, 0.40f};

static const float series_rgba[MR_SERIES_COUNT][4] = {
    [MR_SERIES_PRIMAL] = {1.00f, 0.33f, 0.33f, 1},
    [MR_SERIES_DUAL] = {0.30f, 0.70f, 1.00f, 1},
    [MR_SERIES_COMPLEMENTARITY] = {0.35f, 0.95f, 0.35f, 1},
    [MR_SERIES_NATURAL_MAP] = {1.00f, 0.85f, 0.20f, 1},
    [MR_SERIES_SIGNORINI] = {1.00f, 0.45f, 0.95f, 1},
    [MR_SERIES_DISSIPATION] = {0.60f, 0.50f, 1.00f, 1},
    [MR_SERIES_PENETRATION] = {1.00f, 0.60f, 0.15f, 1},
    [MR_SERIES_ITERATIONS] = {0.25f, 0.95f, 0.90f, 1},
    [MR_SERIES_SOLVER_TIME] = {0.75f, 0.95f, 0.30f, 1},
    [MR_SERIES_ENERGY] = {1.00f, 0.70f, 0.55f, 1},
    [MR_SERIES_CONTACTS] = {0.55f, 0.80f, 1.00f, 1},
    [MR_SERIES_RESIDUAL] = {0.85f, 0.85f, 0.85f, 1},
    [MR_SERIES_SENSOR0] = {1.00f, 0.40f, 0.40f, 1},
    [MR_SERIES_SENSOR1] = {0.45f, 0.95f, 0.45f, 1},
    [MR_SERIES_SENSOR2] = {0.45f, 0.60f, 1.00f, 1},
    [MR_SERIES_SENSOR3] = {0.95f, 0.90f, 0.40f, 1},
};
static const float curve_rgba[4] = {1.0f, 1.0f, 0.45f, 1};

void mr_series_color(mr_series s, float rgba[4]) {
  int i = s >= 0 && s < MR_SERIES_COUNT ? (int)s : 0;
  memcpy(rgba, series_rgba[i], 4 * sizeof(float));
}

void mr_plots_curve_color(float rgba[4]) { memcpy(rgba, curve_rgba, 4 * sizeof(float)); }

/* ------------------------------------------------------------------ chart table */

typedef struct chart_def {
  const char *title;
  int log;                          /* log10 y axis */
  int nseries;                      /* 0: the convergence curve; the sensor chart shows as
                                       many as its sensor has numbers */
  mr_series series[MAX_CHART_SERIES];
} chart_def;

static const chart_def chart_defs[] = {
    /* the NCP measures every solver is judged by, and the solver's own stopping measure */
    {"NCP residuals", 1, 5,
     {MR_SERIES_PRIMAL, MR_SERIES_DUAL, MR_SERIES_COMPLEMENTARITY, MR_SERIES_NATURAL_MAP,
      MR_SERIES_RESIDUAL}},
    {"Physical violations", 1, 3,
     {MR_SERIES_SIGNORINI, MR_SERIES_DISSIPATION, MR_SERIES_PENETRATION}},
    {"iterations per step", 0, 1, {MR_SERIES_ITERATIONS}},
    {"solver time per step", 1, 1, {MR_SERIES_SOLVER_TIME}},
    {"mechanical energy", 0, 1, {MR_SERIES_ENERGY}},
    {"contacts", 0, 1, {MR_SERIES_CONTACTS}},
    {"latest step convergence", 1, 0, {0}},
    {"sensor", 0, 4, {MR_SERIES_SENSOR0, MR_SERIES_SENSOR1, MR_SERIES_SENSOR2, MR_SERIES_SENSOR3}},
};
enum { NCHARTS = sizeof chart_defs / sizeof chart_defs[0] };

static int chart_is_sensor(const chart_def *c) { return c->series[0] == MR_SERIES_SENSOR0; }

/* The chart as drawn now: the sensor chart takes its sensor's width. */
static chart_def chart_now(const chart_def *c, const mr_plot_history *h) {
  chart_def out = *c;
  if (chart_is_sensor(c)) out.nseries = mr_plot_history_sensor_dim(h);
  return out;
}

/* ------------------------------------------------------------------ geometry */

typedef struct rect {
  float x, y, w, h;
} rect;

static int rect_contains(rect r, float x, float y) {
  return x >= r.x && x <= r.x + r.w && y >= r.y && y <= r.y + r.h;
}

/* The samples in view: [first, count) with times in [t0, t1]; cursor is the sample under
 * the mouse (-1: none) and cursor_iter the curve iteration under it (-1: none). */
typedef struct plot_view {
  int first, count;
  double t0, t1;
  int cursor;
  int cursor_iter;
} plot_view;

/* y axis: lo..hi in value units, or in log10 units when log. */
typedef struct axis {
  int log;
  double lo, hi;
  int clamped; /* some value was at or below the log floor */
} axis;

static float axis_y(const axis *a, rect plot, double v) {
  double u = v;
  if (a->log) u = log10(v > MR_PLOTS_LOG_FLOOR ? v : MR_PLOTS_LOG_FLOOR);
  double f = (u - a->lo) / (a->hi - a->lo);
  if (!(f >= 0)) f = 0; /* also NaN */
  if (f > 1) f = 1;
  return plot.y + plot.h - (float)f * plot.h;
}

static float view_x(const plot_view *v, rect plot, double t) {
  double f = (t - v->t0) / (v->t1 - v->t0);
  return plot.x + (float)(f < 0 ? 0 : f > 1 ? 1 : f) * plot.w;
}

/* First sample with time >= t (times increase along the ring). */
static int history_lower_bound(const mr_plot_history *h, double t) {
  int lo = 0, hi = mr_plot_history_count(h);
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (mr_plot_history_time(h, mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The window ends at the latest sample once it is full; before that it starts at the
 * first sample, so curves grow from the left edge. */
static plot_view view_make(const mr_plot_history *h, double window) {
  plot_view v = {0};
  v.count = mr_plot_history_count(h);
  if (!(window > 0)) window = 10;
  double first = mr_plot_history_time(h, 0), last = mr_plot_history_time(h, v.count - 1);
  v.t1 = last > first + window ? last : first + window;
  v.t0 = v.t1 - window;
  v.first = history_lower_bound(h, v.t0);
  v.cursor = v.cursor_iter = -1;
  return v;
}

/* ------------------------------------------------------------------ text helpers */

static void format_value(char *buf, size_t n, mr_series s, double v) {
  switch (s) {
    case MR_SERIES_ITERATIONS:
    case MR_SERIES_CONTACTS: snprintf(buf, n, "%.0f", v); break;
    case MR_SERIES_ENERGY: snprintf(buf, n, "%.5g J", v); break;
    case MR_SERIES_SOLVER_TIME: snprintf(buf, n, "%.2e s", v); break;
    case MR_SERIES_PENETRATION: snprintf(buf, n, "%.2e m", v); break;
    case MR_SERIES_SENSOR0: case MR_SERIES_SENSOR1: case MR_SERIES_SENSOR2: case MR_SERIES_SENSOR3:
      snprintf(buf, n, "%.5g", v);
      break;
    default: snprintf(buf, n, "%.2e", v); break;
  }
}

/* Width reserved for one legend entry, independent of its current value so the layout
 * does not jump from frame to frame. */
static float legend_entry_width(mr_series s) {
  return 11 + mr_draw2d_text_width(TEXT_SIZE, mr_series_name(s)) +
         mr_draw2d_text_width(TEXT_SIZE, " -0.00e+00 s") + 8;
}

static int legend_lines(const chart_def *c, float width) {
  int lines = 1;
  float used = 0;
  for (int k = 0; k < c->nseries; k++) {
    float e = legend_entry_width(c->series[k]);
    if (used > 0 && used + e > width) {
      lines++;
      used = 0;
    }
    used += e;
  }
  return lines;
}

static float header_height(const chart_def *c, float width) {
  int lines = c->nseries == 1 ? 1 : 1 + legend_lines(c, width);
  return 4 + lines * LINE_PITCH;
}

/* ------------------------------------------------------------------ layout */

typedef struct chart_layout {
  rect cell, plot;
} chart_layout;

static float axis_label_width(void) { return mr_draw2d_text_width(TEXT_SIZE, "-1.00e+00") + 4; }

/* The charts shown: all but the sensor chart while no sensor is chosen. */
static int chart_shown(int i, const mr_plot_history *h) {
  return !chart_is_sensor(&chart_defs[i]) || mr_plot_history_sensor(h) >= 0;
}

/* Cells of the shown charts; a hidden chart gets an empty cell. */
static void layout_charts(rect panel, const mr_plot_history *h, chart_layout out[NCHARTS]) {
  int shown = 0;
  for (int i = 0; i < NCHARTS; i++) shown += chart_shown(i, h);
  int cols = panel.w >= 540 ? 2 : 1;
  int rows = (shown + cols - 1) / cols;
  float top = panel.y + LINE_PITCH + PAD; /* the panel's own header line */
  float cell_w = (panel.w - PAD * (cols + 1)) / cols;
  float cell_h = (panel.y + panel.h - top - PAD * rows) / rows;
  for (int i = 0, k = 0; i < NCHARTS; i++) {
    memset(&out[i], 0, sizeof out[i]);
    if (!chart_shown(i, h)) continue;
    rect cell = {panel.x + PAD + (k % cols) * (cell_w + PAD), top + (k / cols) * (cell_h + PAD),
                 cell_w, cell_h};
    k++;
    float head = header_height(&chart_defs[i], cell.w - 8);
    float left = axis_label_width();
    out[i].cell = cell;
    out[i].plot = (rect){cell.x + left, cell.y + head, cell.w - left - 6, cell.h - head - 6};
  }
}

/* The sample (or curve iteration) under the cursor, if it is over a chart's plot area. */
static void view_find_cursor(plot_view *v, const mr_plot_history *h,
                             const chart_layout lay[NCHARTS], float cx, float cy) {
  for (int i = 0; i < NCHARTS; i++) {
    rect p = lay[i].plot;
    if (p.w <= 0 || p.h <= 0 || !rect_contains(p, cx, cy)) continue;
    double f = (cx - p.x) / p.w;
    if (chart_defs[i].nseries == 0) {
      int n = mr_plot_history_curve(h, NULL);
      if (n > 0) v->cursor_iter = (int)lround(f * (n > 1 ? n - 1 : 0));
      return;
    }
    int k = history_lower_bound(h, v->t0 + f * (v->t1 - v->t0));
    if (k >= v->count) k = v->count - 1;
    if (k > v->first && k > 0) { /* nearer of the two neighbours */
      double t = v->t0 + f * (v->t1 - v->t0);
      if (t - mr_plot_history_time(h, k - 1) < mr_plot_history_time(h, k) - t) k--;
    }
    v->cursor = k >= v->first ? k : -1;
    return;
  }
}

/* ------------------------------------------------------------------ axes */

static void axis_include(axis *a, double v, int *any) {
  if (!isfinite(v)) return;
  if (a->log) {
    if (v <= MR_PLOTS_LOG_FLOOR) {
      a->clamped = 1;
      v = MR_PLOTS_LOG_FLOOR;
    }
    v = log10(v);
  }
  if (!*any || v < a->lo) a->lo = v;
  if (!*any || v > a->hi) a->hi = v;
  *any = 1;
}

/* Log axes snap to whole decades; linear axes get a margin, and counts start at zero. */
static void axis_finish(axis *a, int any, int counts) {
  if (!any) a->lo = 0, a->hi = 1;
  if (a->log) {
    a->lo = floor(a->lo);
    a->hi = ceil(a->hi);
    if (a->hi - a->lo < 1) a->hi = a->lo + 1;
    return;
  }
  if (counts && a->lo > 0) a->lo = 0;
  double span = a->hi - a->lo;
  double m = span > 0 ? 0.08 * span : fmax(1e-9, 0.01 * fabs(a->hi));
  if (counts && span == 0) m = 1;
  a->hi += m;
  if (counts) a->hi = ceil(a->hi);
  if (!(counts && a->lo == 0)) a->lo -= m;
}

static axis axis_for_series(const chart_def *c, const mr_plot_history *h, const plot_view *v) {
  axis a = {.log = c->log};
  int any = 0;
  for (int k = 0; k < c->nseries; k++)
    for (int i = v->first; i < v->count; i++)
      axis_include(&a, mr_plot_history_value(h, c->series[k], i), &any);
  int counts = c->nseries == 1 &&
               (c->series[0] == MR_SERIES_ITERATIONS || c->series[0] == MR_SERIES_CONTACTS);
  axis_finish(&a, any, counts);
  return a;
}

static axis axis_for_curve(const double *curve, int n) {
  axis a = {.log = 1};
  int any = 0;
  for (int i = 0; i < n; i++) axis_include(&a, curve[i], &any);
  axis_finish(&a, any, 0);
  return a;
}

static void format_tick(char *buf, size_t n, const axis *a, double u) {
  if (a->log) snprintf(buf, n, "1e%d", (int)lround(u));
  else snprintf(buf, n, "%.3g", u);
}

/* Grid lines with their values at the left: whole decades on log axes (at most ~5),
 * bottom, middle and top on linear ones. */
static void draw_axis(mr_draw2d *g, const axis *a, rect plot) {
  double ticks[64];
  int n = 0;
  if (a->log) {
    int decades = (int)lround(a->hi - a->lo);
    int room = (int)(plot.h / (2 * TEXT_SIZE)); /* labels a line apart at least */
    int most = room < 1 ? 1 : room > 5 ? 5 : room;
    int step = (decades + most - 1) / most;
    step = step < 1 ? 1 : step;
    for (int k = 0; k <= decades && n < 64; k += step) ticks[n++] = a->lo + k;
  } else {
    ticks[n++] = a->lo;
    ticks[n++] = 0.5 * (a->lo + a->hi);
    ticks[n++] = a->hi;
  }
  for (int k = 0; k < n; k++) {
    float y = plot.y + plot.h - (float)((ticks[k] - a->lo) / (a->hi - a->lo)) * plot.h;
    char label[32];
    format_tick(label, sizeof label, a, ticks[k]);
    mr_draw2d_line(g, plot.x, y, plot.x + plot.w, y, 1, grid_rgba);
    float tw = mr_draw2d_text_width(TEXT_SIZE, label);
    mr_draw2d_text(g, plot.x - tw - 4, y - TEXT_SIZE / 2, TEXT_SIZE, label_rgba, label);
  }
}

/* ------------------------------------------------------------------ series */

/* The extremes of one pixel column, with the sample index each came from. */
typedef struct column {
  float x, ytop, ybot; /* screen y: top is the larger value */
  int itop, ibot;
} column;

static int column_emit(const column *c, float *pts, int npts) {
  float first = c->itop <= c->ibot ? c->ytop : c->ybot;
  float second = c->itop <= c->ibot ? c->ybot : c->ytop;
  pts[npts++] = c->x, pts[npts++] = first;
  if (c->itop != c->ibot) pts[npts++] = c->x, pts[npts++] = second;
  return npts;
}

/* One series reduced to at most two points per pixel column (its extremes in the order
 * they occurred), so spikes stay visible however many steps share a column. */
static void draw_series(mr_draw2d *g, const mr_plot_history *h, const plot_view *v,
                        const axis *a, rect plot, mr_series s) {
  float pts[4 * MAX_COLUMNS + 4];
  int npts = 0, ncol = (int)plot.w, col = -1;
  ncol = ncol < 1 ? 1 : ncol > MAX_COLUMNS ? MAX_COLUMNS : ncol;
  column cur = {0};
  for (int i = v->first; i < v->count; i++) {
    double t = mr_plot_history_time(h, i), value = mr_plot_history_value(h, s, i);
    if (isnan(value)) continue; /* a sensor chosen after this sample */
    int c = (int)((t - v->t0) / (v->t1 - v->t0) * ncol);
    c = c < 0 ? 0 : c >= ncol ? ncol - 1 : c;
    float y = axis_y(a, plot, value);
    if (c == col) {
      if (y < cur.ytop) cur.ytop = y, cur.itop = i;
      if (y > cur.ybot) cur.ybot = y, cur.ibot = i;
      continue;
    }
    if (col >= 0 && npts + 4 <= 4 * MAX_COLUMNS) npts = column_emit(&cur, pts, npts);
    col = c;
    cur = (column){view_x(v, plot, t), y, y, i, i};
  }
  if (col >= 0) npts = column_emit(&cur, pts, npts);
  if (npts == 2) mr_draw2d_rect(g, pts[0] - 1, pts[1] - 1, 2, 2, series_rgba[s]);
  else mr_draw2d_polyline(g, pts, npts / 2, LINE_WIDTH, series_rgba[s]);
}

/* Mark labels go in up to three rows at the top of a chart, each label in the first row
 * where it does not overlap the previous one; a label with no room is left out (its line
 * stays). */
enum { MARK_ROWS = 3 };

static void draw_mark_label(mr_draw2d *g, rect plot, float x, const char *label,
                            float row_end[MARK_ROWS]) {
  float tw = mr_draw2d_text_width(TEXT_SIZE, label);
  float lx = x + 3 + tw <= plot.x + plot.w ? x + 3 : x - 3 - tw; /* keep it inside */
  for (int r = 0; r < MARK_ROWS; r++) {
    if (lx < row_end[r]) continue;
    mr_draw2d_text(g, lx, plot.y + 2 + r * LINE_PITCH, TEXT_SIZE, mark_rgba, label);
    row_end[r] = lx + tw + 4;
    return;
  }
}

/* Solver switches and other events: a vertical line and the label beside it. The last
 * mark before the window (the solver in effect when the window starts) is labelled at its
 * left edge. */
static void draw_marks(mr_draw2d *g, const mr_plot_history *h, const plot_view *v, rect plot) {
  int n = mr_plot_history_mark_count(h), before = -1;
  float row_end[MARK_ROWS];
  for (int r = 0; r < MARK_ROWS; r++) row_end[r] = plot.x;
  for (int k = 0; k < n; k++)
    if (mr_plot_history_mark_time(h, k) < v->t0) before = k;
  if (before >= 0) draw_mark_label(g, plot, plot.x - 3, mr_plot_history_mark_label(h, before), row_end);
  for (int k = before + 1; k < n; k++) {
    double t = mr_plot_history_mark_time(h, k);
    if (t > v->t1) break;
    float x = view_x(v, plot, t);
    mr_draw2d_line(g, x, plot.y, x, plot.y + plot.h, 1, mark_rgba);
    draw_mark_label(g, plot, x, mr_plot_history_mark_label(h, k), row_end);
  }
}

/* A swatch, the name and the value; returns the x after the entry's reserved width. */
static float draw_legend_entry(mr_draw2d *g, float x, float y, mr_series s, double value,
                               const char *name) {
  char text[96], num[48];
  format_value(num, sizeof num, s, value);
  snprintf(text, sizeof text, "%s %s", name, num);
  mr_draw2d_rect(g, x, y + 2, 8, 3, series_rgba[s]);
  mr_draw2d_text(g, x + 11, y, TEXT_SIZE, text_rgba, text);
  return x + legend_entry_width(s);
}

static void draw_header(mr_draw2d *g, const chart_def *c, const chart_layout *lay,
                        const mr_plot_history *h, const plot_view *v, const axis *a) {
  int at = v->cursor >= 0 ? v->cursor : v->count - 1;
  const char *note = a->clamped ? "  (0 at 1e-16)" : "";
  float x = lay->cell.x + 4, y = lay->cell.y + 4;
  if (c->nseries == 1) {
    char num[48], text[200];
    mr_series s = c->series[0];
    format_value(num, sizeof num, s, mr_plot_history_value(h, s, at));
    snprintf(text, sizeof text, "%s %s", chart_is_sensor(c) ? mr_plot_history_sensor_label(h) : c->title, num);
    mr_draw2d_rect(g, x, y + 2, 8, 3, series_rgba[s]);
    x += 11 + mr_draw2d_text(g, x + 11, y, TEXT_SIZE, text_rgba, text);
    mr_draw2d_text(g, x, y, TEXT_SIZE, label_rgba, note);
    return;
  }
  char title[200];
  const char *name = chart_is_sensor(c) ? mr_plot_history_sensor_label(h) : c->title;
  if (v->cursor >= 0)
    snprintf(title, sizeof title, "%s at t = %.4f s%s", name, mr_plot_history_time(h, at), note);
  else snprintf(title, sizeof title, "%s%s", name, note);
  mr_draw2d_text(g, x, y, TEXT_SIZE, text_rgba, title);
  float right = lay->cell.x + lay->cell.w - 4;
  y += LINE_PITCH;
  for (int k = 0; k < c->nseries; k++) {
    mr_series s = c->series[k];
    if (x > lay->cell.x + 4 && x + legend_entry_width(s) > right) x = lay->cell.x + 4, y += LINE_PITCH;
    x = draw_legend_entry(g, x, y, s, mr_plot_history_value(h, s, at), mr_series_name(s));
  }
}

static void draw_cursor_line(mr_draw2d *g, const mr_plot_history *h, const plot_view *v, rect plot) {
  if (v->cursor < 0) return;
  float x = view_x(v, plot, mr_plot_history_time(h, v->cursor));
  mr_draw2d_line(g, x, plot.y, x, plot.y + plot.h, 1, cursor_rgba);
}

static void draw_series_chart(mr_draw2d *g, const chart_def *c, const chart_layout *lay,
                              const mr_plot_history *h, const plot_view *v) {
  axis a = axis_for_series(c, h, v);
  draw_header(g, c, lay, h, v, &a);
  if (lay->plot.w < 8 || lay->plot.h < 8) return;
  draw_axis(g, &a, lay->plot);
  draw_marks(g, h, v, lay->plot);
  for (int k = 0; k < c->nseries; k++) draw_series(g, h, v, &a, lay->plot, c->series[k]);
  draw_cursor_line(g, h, v, lay->plot);
}

/* ------------------------------------------------------------------ convergence curve */

static void draw_curve_points(mr_draw2d *g, const double *curve, int n, const axis *a, rect plot) {
  float pts[4 * MAX_COLUMNS + 4];
  int npts = 0;
  /* Long curves are subsampled to about one point per pixel column (log-y, monotone-ish). */
  int stride = n > MAX_COLUMNS ? (n + MAX_COLUMNS - 1) / MAX_COLUMNS : 1;
  for (int i = 0; i < n; i += stride) {
    pts[npts++] = plot.x + (n > 1 ? (float)i / (n - 1) : 0.5f) * plot.w;
    pts[npts++] = axis_y(a, plot, curve[i]);
  }
  if (npts == 2) mr_draw2d_rect(g, pts[0] - 2, pts[1] - 2, 4, 4, curve_rgba);
  else mr_draw2d_polyline(g, pts, npts / 2, LINE_WIDTH, curve_rgba);
}

static void draw_curve_chart(mr_draw2d *g, const chart_def *c, const chart_layout *lay,
                             const mr_plot_history *h, const plot_view *v) {
  const double *curve = NULL;
  int n = mr_plot_history_curve(h, &curve);
  axis a = axis_for_curve(curve, n);
  char title[200];
  int at = v->cursor_iter >= 0 && v->cursor_iter < n ? v->cursor_iter : n - 1;
  if (n == 0) snprintf(title, sizeof title, "%s: no solve (no constraints)", c->title);
  else snprintf(title, sizeof title, "%s: %d iterations, residual %.2e at %d%s", c->title, n,
                curve[at], at + 1, a.clamped ? "  (0 at 1e-16)" : "");
  mr_draw2d_rect(g, lay->cell.x + 4, lay->cell.y + 6, 8, 3, curve_rgba);
  mr_draw2d_text(g, lay->cell.x + 15, lay->cell.y + 4, TEXT_SIZE, text_rgba, title);
  if (n == 0 || lay->plot.w < 8 || lay->plot.h < 8) return;
  draw_axis(g, &a, lay->plot);
  draw_curve_points(g, curve, n, &a, lay->plot);
  if (v->cursor_iter >= 0 && n > 1) {
    float x = lay->plot.x + (float)at / (n - 1) * lay->plot.w;
    mr_draw2d_line(g, x, lay->plot.y, x, lay->plot.y + lay->plot.h, 1, cursor_rgba);
  }
}

/* ------------------------------------------------------------------ panel */

static void draw_panel_header(mr_draw2d *g, rect panel, const mr_plot_history *h,
                              const plot_view *v) {
  char text[160];
  snprintf(text, sizeof text, "plots: last %.3g s of simulated time, t = %.3f s, %d steps kept",
           v->t1 - v->t0, mr_plot_history_time(h, v->count - 1), v->count);
  mr_draw2d_text(g, panel.x + PAD, panel.y + PAD, TEXT_SIZE, text_rgba, text);
}

void mr_plots_draw(mr_draw2d *g, const mr_plot_history *h, float x, float y, float w, float h_px,
                   float cursor_x, float cursor_y, double window_seconds) {
  if (!g || !h || !(w > 0) || !(h_px > 0)) return;
  rect panel = {x, y, w, h_px};
  mr_draw2d_rect(g, x, y, w, h_px, panel_rgba);
  if (mr_plot_history_count(h) == 0) {
    mr_draw2d_text(g, x + PAD, y + PAD, TEXT_SIZE, text_rgba, "plots: no steps yet");
    return;
  }
  plot_view v = view_make(h, window_seconds);
  chart_layout lay[NCHARTS];
  layout_charts(panel, h, lay);
  if (rect_contains(panel, cursor_x, cursor_y)) view_find_cursor(&v, h, lay, cursor_x, cursor_y);
  draw_panel_header(g, panel, h, &v);
  for (int i = 0; i < NCHARTS; i++) {
    if (lay[i].cell.w <= 0 || lay[i].cell.h <= 0) continue;
    mr_draw2d_rect(g, lay[i].cell.x, lay[i].cell.y, lay[i].cell.w, lay[i].cell.h, chart_rgba);
    chart_def c = chart_now(&chart_defs[i], h);
    if (c.nseries == 0 && !chart_is_sensor(&c)) draw_curve_chart(g, &c, &lay[i], h, &v);
    else draw_series_chart(g, &c, &lay[i], h, &v);
  }
}
