/* The plots panel's data: a ring buffer of per-step samples, the latest convergence curve
 * and a short ring of labelled marks. All memory is taken at creation. */
#include "plot_history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mr_plot_mark {
  double time;
  char label[MR_PLOT_MARK_LABEL];
} mr_plot_mark;

struct mr_plot_history {
  int capacity, start, count; /* samples live at (start + i) % capacity */
  double *time;               /* capacity */
  double *value;              /* MR_SERIES_COUNT x capacity, one row per series */
  double *curve;              /* MR_PLOT_CURVE_MAX */
  int ncurve;
  int last_solver;            /* solver of the latest push; -2 before the first */
  mr_plot_mark mark[MR_PLOT_MARK_MAX];
  int mark_start, mark_count;
  int sensor, sensor_adr, sensor_dim; /* the plotted sensor (-1: none) */
  char sensor_label[96];
};

static const char *series_names[MR_SERIES_COUNT] = {
    "primal",      "dual",        "complementarity", "natural map",
    "signorini",   "dissipation", "penetration",     "iterations",
    "solver time", "energy",      "contacts",        "own residual",
    "[0]",         "[1]",         "[2]",             "[3]"};

const char *mr_series_name(mr_series s) {
  return s >= 0 && s < MR_SERIES_COUNT ? series_names[s] : "?";
}

mr_plot_history *mr_plot_history_create(int capacity_steps) {
  if (capacity_steps < 2) capacity_steps = 2;
  mr_plot_history *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->capacity = capacity_steps;
  h->time = malloc((size_t)capacity_steps * sizeof(double));
  h->value = malloc((size_t)capacity_steps * MR_SERIES_COUNT * sizeof(double));
  h->curve = malloc(MR_PLOT_CURVE_MAX * sizeof(double));
  if (!h->time || !h->value || !h->curve) {
    mr_plot_history_free(h);
    return NULL;
  }
  mr_plot_history_clear(h);
  mr_plot_history_set_sensor(h, NULL, -1);
  return h;
}

void mr_plot_history_free(mr_plot_history *h) {
  if (!h) return;
  free(h->time);
  free(h->value);
  free(h->curve);
  free(h);
}

void mr_plot_history_clear(mr_plot_history *h) {
  h->start = h->count = 0;
  h->ncurve = 0;
  h->mark_start = h->mark_count = 0;
  h->last_solver = -2;
}

void mr_plot_history_set_sensor(mr_plot_history *h, const mr_model *m, int sensor) {
  if (!m || sensor < 0 || sensor >= m->nsensor) sensor = -1;
  h->sensor = sensor;
  h->sensor_adr = sensor >= 0 ? m->sensor_adr[sensor] : 0;
  h->sensor_dim = sensor >= 0 ? m->sensor_dim[sensor] : 0;
  if (h->sensor_dim > MR_PLOT_SENSOR_DIM) h->sensor_dim = MR_PLOT_SENSOR_DIM;
  h->sensor_label[0] = 0;
  if (sensor >= 0) {
    const char *name = mr_id2name(m, MR_OBJ_SENSOR, sensor);
    if (name && name[0]) snprintf(h->sensor_label, sizeof h->sensor_label, "%s (%s)", name, mr_sensor_type_name(m->sensor_type[sensor]));
    else snprintf(h->sensor_label, sizeof h->sensor_label, "sensor %d (%s)", sensor, mr_sensor_type_name(m->sensor_type[sensor]));
  }
  /* what was stored for another sensor must not pass for this one's */
  for (int k = 0; k < MR_PLOT_SENSOR_DIM; k++)
    for (int i = 0; i < h->capacity; i++) h->value[(size_t)(MR_SERIES_SENSOR0 + k) * h->capacity + i] = NAN;
}

int mr_plot_history_sensor(const mr_plot_history *h) { return h->sensor; }
int mr_plot_history_sensor_dim(const mr_plot_history *h) { return h->sensor_dim; }
const char *mr_plot_history_sensor_label(const mr_plot_history *h) { return h->sensor_label; }

int mr_plot_history_count(const mr_plot_history *h) { return h->count; }
int mr_plot_history_capacity(const mr_plot_history *h) { return h->capacity; }

static int history_slot(const mr_plot_history *h, int i) {
  return (h->start + i) % h->capacity;
}

double mr_plot_history_time(const mr_plot_history *h, int i) {
  if (i < 0 || i >= h->count) return 0;
  return h->time[history_slot(h, i)];
}

double mr_plot_history_value(const mr_plot_history *h, mr_series s, int i) {
  if (i < 0 || i >= h->count || s < 0 || s >= MR_SERIES_COUNT) return 0;
  return h->value[(size_t)s * h->capacity + history_slot(h, i)];
}

int mr_plot_history_curve(const mr_plot_history *h, const double **values) {
  if (values) *values = h->curve;
  return h->ncurve;
}

/* ------------------------------------------------------------------ marks */

/* 1 if a mark with this time and label exists (the viewer may mark a solver switch itself
 * before the push that would mark it too). */
static int history_has_mark(const mr_plot_history *h, double time, const char *label) {
  for (int i = h->mark_count - 1; i >= 0; i--) {
    const mr_plot_mark *mk = &h->mark[(h->mark_start + i) % MR_PLOT_MARK_MAX];
    if (mk->time < time) return 0;
    if (mk->time == time && strncmp(mk->label, label, MR_PLOT_MARK_LABEL - 1) == 0) return 1;
  }
  return 0;
}

static void history_add_mark(mr_plot_history *h, double time, const char *label) {
  if (!label) label = "";
  if (history_has_mark(h, time, label)) return;
  int slot;
  if (h->mark_count < MR_PLOT_MARK_MAX) {
    slot = (h->mark_start + h->mark_count++) % MR_PLOT_MARK_MAX;
  } else {
    slot = h->mark_start;
    h->mark_start = (h->mark_start + 1) % MR_PLOT_MARK_MAX;
  }
  h->mark[slot].time = time;
  snprintf(h->mark[slot].label, MR_PLOT_MARK_LABEL, "%s", label);
}

void mr_plot_history_mark(mr_plot_history *h, const char *label) {
  double t = h->count > 0 ? mr_plot_history_time(h, h->count - 1) : 0;
  history_add_mark(h, t, label);
}

int mr_plot_history_mark_count(const mr_plot_history *h) { return h->mark_count; }

double mr_plot_history_mark_time(const mr_plot_history *h, int i) {
  if (i < 0 || i >= h->mark_count) return 0;
  return h->mark[(h->mark_start + i) % MR_PLOT_MARK_MAX].time;
}

const char *mr_plot_history_mark_label(const mr_plot_history *h, int i) {
  if (i < 0 || i >= h->mark_count) return "";
  return h->mark[(h->mark_start + i) % MR_PLOT_MARK_MAX].label;
}

static const char *history_solver_label(int solver) {
  int index = solver < 0 ? mr_solver_default() : solver;
  if (index < 0 || index >= mr_solver_count()) return "?";
  return mr_solver_name(index);
}

/* The step just taken began where the previous sample ended (or one timestep before its
 * end, for the first sample): that is where a solver switch shows. */
static void history_note_solver(mr_plot_history *h, const mr_data *d) {
  if (d->opt.solver == h->last_solver) return;
  double boundary = h->count > 0 ? mr_plot_history_time(h, h->count - 1)
                                 : d->time - d->opt.timestep;
  history_add_mark(h, boundary, history_solver_label(d->opt.solver));
  h->last_solver = d->opt.solver;
}

/* ------------------------------------------------------------------ push */

static void history_store(mr_plot_history *h, int slot, const mr_data *d) {
  const mr_metrics *mt = &d->metrics;
  const double v[MR_SERIES_COUNT] = {
      [MR_SERIES_PRIMAL] = mt->primal,
      [MR_SERIES_DUAL] = mt->dual,
      [MR_SERIES_COMPLEMENTARITY] = mt->complementarity,
      [MR_SERIES_NATURAL_MAP] = mt->natural_map,
      [MR_SERIES_SIGNORINI] = mt->signorini,
      [MR_SERIES_DISSIPATION] = mt->dissipation,
      [MR_SERIES_PENETRATION] = mt->penetration,
      [MR_SERIES_ITERATIONS] = d->solver_iters,
      [MR_SERIES_SOLVER_TIME] = mt->solver_time,
      [MR_SERIES_ENERGY] = mt->energy,
      [MR_SERIES_CONTACTS] = d->ncon,
      [MR_SERIES_RESIDUAL] = d->solver_residual,
  };
  h->time[slot] = d->time;
  for (int s = 0; s < MR_SERIES_SENSOR0; s++) h->value[(size_t)s * h->capacity + slot] = v[s];
  for (int k = 0; k < MR_PLOT_SENSOR_DIM; k++)
    h->value[(size_t)(MR_SERIES_SENSOR0 + k) * h->capacity + slot] =
        k < h->sensor_dim && d->sensordata ? d->sensordata[h->sensor_adr + k] : NAN;
}

static void history_store_curve(mr_plot_history *h, const mr_data *d) {
  int n = d->solver_iters;
  if (n < 0 || !d->solver_history) n = 0;
  if (n > MR_PLOT_CURVE_MAX) n = MR_PLOT_CURVE_MAX;
  if (n > 0) memcpy(h->curve, d->solver_history, (size_t)n * sizeof(double));
  h->ncurve = n;
}

void mr_plot_history_push(mr_plot_history *h, const mr_data *d) {
  if (h->count > 0 && d->time < mr_plot_history_time(h, h->count - 1))
    mr_plot_history_clear(h);
  history_note_solver(h, d);
  int slot;
  if (h->count < h->capacity) {
    slot = history_slot(h, h->count++);
  } else {
    slot = h->start; /* the oldest sample makes room */
    h->start = (h->start + 1) % h->capacity;
  }
  history_store(h, slot, d);
  history_store_curve(h, d);
}
