/* What a batch reports: one result per job, written as DIR/summary.csv and
 * DIR/summary.json (one row per job, in job order), and read back by --resume.
 *
 * Each row holds the job number and label, the job's options as written in JOBS, then the
 * status (ok, diverged, error, interrupted, not_run), the message of a failure, and the
 * run's numbers: steps, simulated time, wall time, steps per second, mean/max solver
 * iterations, max residuals (solver, primal, dual, complementarity), max penetration, and
 * the energy at start and end with their difference (energy_drift, J), and with
 * --summary-sensors the final and largest value of each named sensor: CSV columns
 * sensor_NAME_final and sensor_NAME_max (sensor_NAME_i_final... for each number i of a
 * vector sensor), JSON "sensors": {NAME: {"final": [...], "max": [...]}}. Both files are
 * written to a temporary name and renamed, so a reader never sees half a summary. */
#ifndef MR_BATCH_SUMMARY_H
#define MR_BATCH_SUMMARY_H

#include "batch_jobs.h"
#include "sensor_summary.h"

typedef enum mr_job_status {
  MR_JOB_NOT_RUN = 0, /* not handed out (interrupted batch) */
  MR_JOB_OK,
  MR_JOB_DIVERGED,
  MR_JOB_ERROR,
  MR_JOB_INTERRUPTED,
  MR_JOB_UNSTABLE     /* ran to its end, but blew up (simulate.h: MR_SIM_UNSTABLE_RESIDUAL) */
} mr_job_status;

/* Plain data of fixed size: MPI ranks (all running the same binary) send it as bytes. */
typedef struct mr_batch_result {
  int status;  /* mr_job_status */
  int resumed; /* carried over from an earlier summary by --resume, not run again */
  int ran;     /* stepping began: the numbers below describe a run (else they are left
                  empty in the summary, not written as zeros) */
  char message[512];
  char solver[32];
  char integrator[16];
  double dt;
  long steps, steps_requested, rows;
  double sim_time, wall_s, steps_per_s;
  double mean_iters, max_iters, max_residual, max_primal, max_dual, max_complementarity;
  double max_penetration, energy_start, energy_end, energy_drift;
  mr_sensor_summary sensors; /* --summary-sensors: columns sensor_NAME[_i]_final and _max */
  /* the solver's own verdicts next to the NCP measure every solver is judged by */
  long steps_not_converged, steps_solver_failed;
  double max_natural_map;
} mr_batch_result;

const char *mr_job_status_name(int status);

/* The result columns of a row (used_solver ... rows), in the order the summary writes them,
 * for writers other than the two files (the Python module's moreau.batch). */
typedef enum mr_result_type {
  MR_RESULT_NONE, /* the job never ran (an error before its first step): null in the JSON */
  MR_RESULT_TEXT,
  MR_RESULT_LONG,
  MR_RESULT_DOUBLE
} mr_result_type;
typedef struct mr_result_value {
  const char *name;
  mr_result_type type;
  const char *text; /* MR_RESULT_TEXT: points into the result */
  long integer;     /* MR_RESULT_LONG */
  double number;    /* MR_RESULT_DOUBLE */
} mr_result_value;
int mr_batch_result_field_count(void);
/* Column k (0 <= k < the count) of r. */
mr_result_value mr_batch_result_field(int k, const mr_batch_result *r);

/* Writes DIR/summary.csv and DIR/summary.json. -1 with one line in err on failure. */
int mr_batch_summary_write(const char *dir, const mr_batch_table *t, const mr_batch_result *r,
                           char *err, int errlen);

/* --resume: reads DIR/summary.csv (absent is fine: nothing done yet) and copies into r[j]
 * every row whose job number and options equal job j's and whose status is ok, marking it
 * resumed. Returns how many rows were taken, or -1 with one line in err for a summary that
 * exists but cannot be read. */
int mr_batch_summary_resume(const char *dir, const mr_batch_table *t, mr_batch_result *r,
                            char *err, int errlen);

#endif
