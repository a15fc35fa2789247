/* render/plot_history.h: what the plots panel shows, kept as plain data (no GL) so tests
 * can compare it with the engine's metrics.
 *
 * A ring buffer of per-step samples: when full, each push drops the oldest. Values are
 * stored exactly as the engine reported them (no clamping: the log-scale floor is applied
 * only when drawing), so series i of step k equals the engine's number for step k. Nothing
 * is allocated after mr_plot_history_create. */
#ifndef MR_PLOT_HISTORY_H
#define MR_PLOT_HISTORY_H

#include "moreau.h"

typedef enum mr_series {
  MR_SERIES_PRIMAL,          /* d->metrics.primal */
  MR_SERIES_DUAL,            /* d->metrics.dual */
  MR_SERIES_COMPLEMENTARITY, /* d->metrics.complementarity */
  MR_SERIES_NATURAL_MAP,     /* d->metrics.natural_map */
  MR_SERIES_SIGNORINI,       /* d->metrics.signorini */
  MR_SERIES_DISSIPATION,     /* d->metrics.dissipation */
  MR_SERIES_PENETRATION,     /* d->metrics.penetration */
  MR_SERIES_ITERATIONS,      /* d->solver_iters */
  MR_SERIES_SOLVER_TIME,     /* d->metrics.solver_time (s) */
  MR_SERIES_ENERGY,          /* d->metrics.energy (J) */
  MR_SERIES_CONTACTS,        /* d->ncon */
  MR_SERIES_RESIDUAL,        /* d->solver_residual: the solver's own stopping measure */
  MR_SERIES_SENSOR0,         /* the chosen sensor's numbers (mr_plot_history_set_sensor), */
  MR_SERIES_SENSOR1,         /* NaN before it was chosen */
  MR_SERIES_SENSOR2,
  MR_SERIES_SENSOR3,
  MR_SERIES_COUNT
} mr_series;

/* Numbers of one sensor the plots keep (every MuJoCo sensor has at most 4). */
#define MR_PLOT_SENSOR_DIM 4

/* The longest convergence curve kept (the engine's own cap on solver iterations). */
#define MR_PLOT_CURVE_MAX 10000
/* Marks (solver switches and other events) kept; older ones are dropped. */
#define MR_PLOT_MARK_MAX 64
#define MR_PLOT_MARK_LABEL 32

typedef struct mr_plot_history mr_plot_history;

mr_plot_history *mr_plot_history_create(int capacity_steps); /* ring buffer; NULL if out of memory */
void mr_plot_history_free(mr_plot_history *h);
void mr_plot_history_clear(mr_plot_history *h); /* on reset / reload / model change */
/* After each mr_step: d->time and d->metrics, d->solver_iters, d->ncon, and the
 * per-iteration curve d->solver_history[0..solver_iters) of the latest step. If d->time
 * went backwards (a reset the caller did not report) the history is cleared first. When
 * d->opt.solver differs from the previous push's, a mark with the new solver's name is
 * added at the boundary between the two steps (and one for the first solver at the start). */
void mr_plot_history_push(mr_plot_history *h, const mr_data *d);
int mr_plot_history_count(const mr_plot_history *h);
int mr_plot_history_capacity(const mr_plot_history *h);
double mr_plot_history_time(const mr_plot_history *h, int i); /* i = 0 oldest */
double mr_plot_history_value(const mr_plot_history *h, mr_series s, int i);
/* Latest step's convergence curve: its length, and *values pointed at it (valid until the
 * next push or clear). */
int mr_plot_history_curve(const mr_plot_history *h, const double **values);
const char *mr_series_name(mr_series s);

/* The sensor whose values each push stores from now on (-1: none); its earlier samples
 * read NaN (not drawn). Also names the sensor chart: "NAME (type)". */
void mr_plot_history_set_sensor(mr_plot_history *h, const mr_model *m, int sensor);
int mr_plot_history_sensor(const mr_plot_history *h);     /* -1: none */
int mr_plot_history_sensor_dim(const mr_plot_history *h); /* numbers plotted (<= 4) */
const char *mr_plot_history_sensor_label(const mr_plot_history *h);

/* A vertical mark with a label at the time of the latest sample (e.g. "midpoint" when the
 * integrator changes). A mark equal to an existing one (same time and label) is not
 * repeated, so a caller may also mark solver switches itself. */
void mr_plot_history_mark(mr_plot_history *h, const char *label);
int mr_plot_history_mark_count(const mr_plot_history *h);
double mr_plot_history_mark_time(const mr_plot_history *h, int i); /* i = 0 oldest */
const char *mr_plot_history_mark_label(const mr_plot_history *h, int i);

#endif
