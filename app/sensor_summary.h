/* --summary-sensors NAME,...: the final and the largest value of chosen sensors over a run,
 * for `moreau run`'s summary and each row of a batch summary.
 *
 * A tracked value is taken from every state the run passes through: the initial state's
 * position and velocity sensors, the sensors after each step (mr_step leaves MuJoCo's
 * values: position and velocity sensors of the state the step started from, acceleration
 * and force sensors of the step), and at the end the final state's (mr_sensors_state).
 * Multi-number sensors are tracked per number. */
#ifndef MR_APP_SENSOR_SUMMARY_H
#define MR_APP_SENSOR_SUMMARY_H

#include <stdio.h>

#include "json.h"
#include "moreau.h"

enum { MR_SUMMARY_SENSORS = 16, MR_SUMMARY_VALUES = 64 };

/* Plain data of fixed size (a batch result goes to rank 0 as bytes). */
typedef struct mr_sensor_summary {
  int count;                        /* sensors tracked (0: none asked for) */
  int id[MR_SUMMARY_SENSORS];       /* their model index */
  int dim[MR_SUMMARY_SENSORS];      /* numbers of each */
  unsigned char seen[MR_SUMMARY_VALUES]; /* a value has been taken */
  double final[MR_SUMMARY_VALUES];  /* the last value of each number, in list order */
  double max[MR_SUMMARY_VALUES];    /* the largest */
} mr_sensor_summary;

/* Checks the spelling of a NAME,... list: at most MR_SUMMARY_SENSORS non-empty names.
 * 0, or -1 and one line in err. */
int mr_sensor_summary_check_list(const char *list, char *err, int errlen);

/* The list's k-th name into buf; 0, or -1 past the end. */
int mr_sensor_summary_name(const char *list, int k, char *buf, int n);

/* Resolves the names against m into s (values cleared). 0, or -1 and one line
 * "MODEL: ..." in err for a name the model has no sensor of, or too many numbers. */
int mr_sensor_summary_begin(mr_sensor_summary *s, const char *list, const mr_model *m,
                            const char *model_path, char *err, int errlen);

/* Takes the tracked sensors' current values from d->sensordata; state_only leaves out the
 * acceleration and force sensors (the initial state, which no step has produced). */
void mr_sensor_summary_take(mr_sensor_summary *s, const mr_model *m, const mr_data *d,
                            int state_only);

/* "sensors": {"NAME": {"final": [...], "max": [...]}, ...} (nothing when none tracked; null
 * arrays for a sensor whose values were never taken). */
void mr_sensor_summary_json(mr_json *j, const mr_sensor_summary *s, const char *list);

/* One line per sensor: "sensor NAME  final ...  max ..." */
void mr_sensor_summary_print(FILE *out, const mr_sensor_summary *s, const char *list);

#endif
