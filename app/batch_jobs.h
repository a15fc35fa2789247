/* The job table of `moreau batch JOBS`: one mr_cli_options per job, read from a CSV file or
 * expanded from a small TOML-like sweep spec.
 *
 * CSV (JOBS ends in .csv): a header row of column names, then one job per row. An empty
 * cell leaves the option unset; lines starting with # and blank lines are skipped; a field
 * may be "quoted" ("" inside is a quote). Fields never span lines.
 *
 * Spec (any other name): one `key = value` per line, # starts a comment. A value is a
 * scalar (`steps = 200`, `model = "models/x.xml"`), a list (`solver = [pgs, admm, sap]`) or
 * an integer range (`seed = 1..10`, both ends included). The jobs are the cross product of
 * every list and range, in nested-loop order: the key written first is the outermost loop
 * and the key written last varies fastest. `solver = [a, b]` then `seed = 1..2` gives
 * (a,1) (a,2) (b,1) (b,2).
 *
 * Column names are the command-line options without the dashes, '-' or '_' alike: model,
 * solver, integrator, dt, steps, duration, seed, tol, max_iter, restitution, keyframe,
 * record, record_every, contacts, ctrl, init, no_contact, no_constraints, no_gravity,
 * floating, package_path, srdf, plus `name` (a label for the job). Flags take 1/0, true/
 * false or yes/no. Input paths (model, ctrl, init, srdf, package_path) that are relative
 * resolve against the JOBS file's directory; output paths (record, contacts) that are
 * relative resolve against --out DIR when given, else the current directory. Output paths
 * may hold placeholders: {index} (the job number, from 1) and {KEY} for any column, e.g.
 * `record = "{solver}_{seed}.csv"`; two jobs writing the same file is an error. */
#ifndef MR_BATCH_JOBS_H
#define MR_BATCH_JOBS_H

#include "options.h"

enum { MR_BATCH_MAX_JOBS = 100000 };

typedef struct mr_batch_job {
  mr_cli_options opt; /* every string it points to is owned by the table */
  const char *label;  /* "solver=pgs dt=0.001 seed=3": the values that vary between jobs */
  int line;           /* line of the JOBS file the job comes from (CSV row, last spec key) */
} mr_batch_job;

typedef struct mr_batch_table {
  char *path; /* the JOBS file as given */
  int ncolumns;
  char **columns; /* canonical names: "solver", "no_contact"... */
  int njobs;
  mr_batch_job *jobs;
  char **values; /* njobs x ncolumns: the text written in JOBS (NULL: not given) */
  const char *summary_sensors; /* --summary-sensors of the batch (NULL: none), for every job */
  /* every other string the jobs point to */
  char **strings;
  int nstrings, capstrings;
} mr_batch_table;

/* Reads JOBS into t. out_dir (may be NULL) is where relative output paths go. quiet sets
 * the jobs' quiet option (loader warnings). On bad input returns -1 with one line
 * "FILE:LINE: what is wrong" in err, and t holds nothing to free. */
int mr_batch_table_load(mr_batch_table *t, const char *path, const char *out_dir, int quiet,
                        char *err, int errlen);
void mr_batch_table_free(mr_batch_table *t);

/* One option of a job given as data: a column name (as in a JOBS file) and its value as
 * text. */
typedef struct mr_batch_cell {
  const char *name;
  const char *value;
} mr_batch_cell;

/* Jobs given as data instead of a file (the Python module's moreau.batch): job j has the
 * ncells[j] cells cells[j]. The columns are every name used, in the order first seen; a job
 * without a cell of some column leaves that option unset. Values are checked, and paths
 * resolved, as for a CSV file in the current directory; a message reads "SOURCE:J: ..."
 * with J the job's number from 1. Returns 0, or -1 with one line in err (t then holds
 * nothing to free). */
int mr_batch_table_from_cells(mr_batch_table *t, const char *source, int njobs,
                              const mr_batch_cell *const *cells, const int *ncells,
                              const char *out_dir, int quiet, char *err, int errlen);

/* The raw value of column `name` for job j, or NULL. */
const char *mr_batch_table_value(const mr_batch_table *t, int j, const char *name);

/* Splits one CSV line in place into at most max fields (quotes removed, "" unescaped).
 * Returns the field count, or -1 for an unterminated quote or too many fields. */
int mr_batch_csv_split(char *line, char **fields, int max);

#endif
