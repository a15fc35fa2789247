/* Command-line options of the moreau command, shared by info, run, view and batch.
 *
 * Parsing only checks spelling and numbers; what depends on the model (a keyframe name, a
 * step count from a duration and the model's timestep) is resolved once the model is
 * loaded, by mr_cli_apply. Settings land in mr_data's options, never in the model, so one
 * loaded model can serve differently configured runs (batch). */
#ifndef MR_APP_OPTIONS_H
#define MR_APP_OPTIONS_H

#include <stdio.h>

#include "moreau.h"

/* Exit statuses (DESIGN.md sec. 5). */
enum { MR_EXIT_OK = 0, MR_EXIT_FAILURE = 1, MR_EXIT_BAD_INPUT = 2 };

/* Which option groups a subcommand accepts. */
enum {
  MR_OPTS_LOAD = 1 << 0,   /* --floating --package-path --srdf --floor --no-floor
                              --self-collision --strict */
  MR_OPTS_OUTPUT = 1 << 1, /* --quiet --json */
  MR_OPTS_SIM = 1 << 2,    /* --steps ... --max-iter: everything that configures a run */
  MR_OPTS_VIEW = 1 << 3,   /* --frames --screenshot --camera --replay --width --height */
  MR_OPTS_BATCH = 1 << 4,  /* --jobs --out --resume */
  MR_OPTS_SUMMARY = 1 << 5 /* --summary-sensors (run and batch) */
};

typedef struct mr_cli_options {
  const char *model_path;
  mr_load_options load;
  int quiet, json, help;

  long steps;         /* -1: not given */
  double duration;    /* < 0: not given */
  double dt;          /* 0: the model's timestep */
  const char *solver; /* NULL: the default */
  int integrator;     /* -1: the model's */
  int disable;        /* MR_DISABLE_* bits to add to the model's */
  const char *keyframe;
  const char *record;
  const char *contacts; /* --contacts FILE.csv: every contact of every recorded step */
  long record_every;
  double tol;   /* 0: the model's */
  double restitution; /* < 0: the model's (0) */
  int max_iter; /* 0: the model's */
  const char *ctrl_file; /* --ctrl FILE.csv: time column + one column per actuator name */
  const char *init_file; /* --init FILE: qpos/qvel to start from (last row of a recording) */
  long seed;             /* --seed N: reproducible perturbation of the initial state; 0 none */
  const char *summary_sensors; /* --summary-sensors NAME,...: final and max values reported */

  /* view */
  long frames;            /* --frames N: render N frames then exit; 0: interactive */
  const char *screenshot; /* --screenshot FILE.png: the last frame */
  const char *camera;     /* --camera SPEC: a model camera name/index, or "free" */
  const char *replay;     /* --replay FILE: play a recording instead of simulating */
  int width, height;      /* window size (default 1280x720) */
  int plots;              /* --plots: open with the plots panel shown */
  const char *keys;       /* --keys SPEC: scripted key presses, "FRAME:KEY,..." (e.g. "60:3") */

  /* batch */
  int jobs;               /* --jobs N: worker threads; 0: the core count */
  const char *out_dir;    /* --out DIR */
  int resume;             /* --resume: skip jobs whose outputs are complete */
} mr_cli_options;

/* Parses argv[0..argc) (the words after the subcommand). On bad input writes one line
 * into err (no "moreau: " prefix) and returns -1. */
int mr_cli_parse(int argc, char **argv, int groups, mr_cli_options *o, char *err, int errlen);

/* Loads the model named by o, printing the loader's one-line error on failure. Warnings go
 * to stderr unless o->quiet. */
mr_model *mr_cli_load_model(const mr_cli_options *o);

/* Solver index in the registry, or -1 if there is no solver by that name. */
int mr_cli_solver_index(const char *name);
const char *mr_cli_integrator_name(int integrator);

/* Puts d in its initial state (keyframe) and copies the run settings into d->opt. Returns
 * the number of steps to run, or -1 with one line in err for input the model rejects. */
long mr_cli_apply(const mr_cli_options *o, const mr_model *m, mr_data *d, char *err, int errlen);

/* Prints "moreau: " and the message on stderr, one line. */
void mr_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Usage text of every subcommand. */
void mr_cli_print_usage(FILE *out);

/* The subcommands: each gets the words after its own name. Return the exit status. */
int mr_cmd_info(int argc, char **argv);
int mr_cmd_run(int argc, char **argv);
int mr_cmd_view(int argc, char **argv);
int mr_cmd_batch(int argc, char **argv);

#endif
