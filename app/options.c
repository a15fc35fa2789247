#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/robot/robot.h"
#include "sensor_summary.h"

enum option_id {
  OPT_FLOATING, OPT_PACKAGE_PATH, OPT_SRDF, OPT_FLOOR, OPT_NO_FLOOR, OPT_SELF_COLLISION,
  OPT_STRICT, OPT_HOLD,
  OPT_QUIET, OPT_JSON,
  OPT_STEPS, OPT_DURATION, OPT_DT, OPT_SOLVER, OPT_INTEGRATOR, OPT_NO_CONTACT,
  OPT_NO_CONSTRAINTS, OPT_NO_GRAVITY, OPT_KEYFRAME, OPT_RECORD, OPT_CONTACTS, OPT_RECORD_EVERY, OPT_TOL,
  OPT_MAX_ITER, OPT_RESTITUTION, OPT_CTRL, OPT_INIT, OPT_SEED,
  OPT_FRAMES, OPT_SCREENSHOT, OPT_CAMERA, OPT_REPLAY, OPT_WIDTH, OPT_HEIGHT, OPT_PLOTS, OPT_KEYS,
  OPT_JOBS, OPT_OUT, OPT_RESUME, OPT_SUMMARY_SENSORS, OPT_HELP
};

typedef struct option_spec {
  const char *name;
  enum option_id id;
  int group;      /* MR_OPTS_* bit; 0 = every subcommand */
  int has_value;  /* 0 none, 1 required, 2 optional (taken when it parses: --hold KP,KD) */
} option_spec;

static const option_spec option_table[] = {
    {"--floating", OPT_FLOATING, MR_OPTS_LOAD, 0},
    {"--package-path", OPT_PACKAGE_PATH, MR_OPTS_LOAD, 1},
    {"--srdf", OPT_SRDF, MR_OPTS_LOAD, 1},
    {"--floor", OPT_FLOOR, MR_OPTS_LOAD, 0},
    {"--no-floor", OPT_NO_FLOOR, MR_OPTS_LOAD, 0},
    {"--self-collision", OPT_SELF_COLLISION, MR_OPTS_LOAD, 1},
    {"--strict", OPT_STRICT, MR_OPTS_LOAD, 0},
    {"--hold", OPT_HOLD, MR_OPTS_SIM, 2},
    {"--quiet", OPT_QUIET, MR_OPTS_OUTPUT, 0},
    {"--json", OPT_JSON, MR_OPTS_OUTPUT, 0},
    {"--steps", OPT_STEPS, MR_OPTS_SIM, 1},
    {"--duration", OPT_DURATION, MR_OPTS_SIM, 1},
    {"--dt", OPT_DT, MR_OPTS_SIM, 1},
    {"--solver", OPT_SOLVER, MR_OPTS_SIM, 1},
    {"--integrator", OPT_INTEGRATOR, MR_OPTS_SIM, 1},
    {"--no-contact", OPT_NO_CONTACT, MR_OPTS_SIM, 0},
    {"--no-constraints", OPT_NO_CONSTRAINTS, MR_OPTS_SIM, 0},
    {"--no-gravity", OPT_NO_GRAVITY, MR_OPTS_SIM, 0},
    {"--keyframe", OPT_KEYFRAME, MR_OPTS_SIM, 1},
    {"--record", OPT_RECORD, MR_OPTS_SIM, 1},
    {"--contacts", OPT_CONTACTS, MR_OPTS_SIM, 1},
    {"--record-every", OPT_RECORD_EVERY, MR_OPTS_SIM, 1},
    {"--tol", OPT_TOL, MR_OPTS_SIM, 1},
    {"--max-iter", OPT_MAX_ITER, MR_OPTS_SIM, 1},
    {"--restitution", OPT_RESTITUTION, MR_OPTS_SIM, 1},
    {"--ctrl", OPT_CTRL, MR_OPTS_SIM, 1},
    {"--init", OPT_INIT, MR_OPTS_SIM, 1},
    {"--seed", OPT_SEED, MR_OPTS_SIM, 1},
    {"--frames", OPT_FRAMES, MR_OPTS_VIEW, 1},
    {"--screenshot", OPT_SCREENSHOT, MR_OPTS_VIEW, 1},
    {"--camera", OPT_CAMERA, MR_OPTS_VIEW, 1},
    {"--replay", OPT_REPLAY, MR_OPTS_VIEW, 1},
    {"--width", OPT_WIDTH, MR_OPTS_VIEW, 1},
    {"--height", OPT_HEIGHT, MR_OPTS_VIEW, 1},
    {"--plots", OPT_PLOTS, MR_OPTS_VIEW, 0},
    {"--keys", OPT_KEYS, MR_OPTS_VIEW, 1},
    {"--jobs", OPT_JOBS, MR_OPTS_BATCH, 1},
    {"--out", OPT_OUT, MR_OPTS_BATCH, 1},
    {"--resume", OPT_RESUME, MR_OPTS_BATCH, 0},
    {"--summary-sensors", OPT_SUMMARY_SENSORS, MR_OPTS_SUMMARY, 1},
    {"--help", OPT_HELP, 0, 0},
    {"-h", OPT_HELP, 0, 0},
};

void mr_cli_error(const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* One line, whatever the message carries; no terminal escapes from a hostile file. */
  for (char *c = line; *c; c++) {
    if (*c == '\n' || *c == '\r') *c = ' ';
    else if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f) *c = '?';
  }
  fflush(stdout);
  fprintf(stderr, "moreau: %s\n", line);
}

static int parse_long(const char *text, long min, long *out);

static void options_defaults(mr_cli_options *o) {
  memset(o, 0, sizeof *o);
  o->steps = -1;
  o->duration = -1;
  o->integrator = -1;
  o->restitution = -1;
  o->record_every = 1;
  o->width = 1280;
  o->height = 720;
}

/* A whole number in [min, max] into an int. */
static int parse_int_range(const char *text, long min, long max, int *out) {
  long v;
  if (parse_long(text, min, &v) || v > max) return -1;
  *out = (int)v;
  return 0;
}

/* "--name=value" or "--name value": the option's spec, and its name length. */
static const option_spec *options_find(const char *word, size_t *name_len) {
  const char *eq = strchr(word, '=');
  size_t n = eq ? (size_t)(eq - word) : strlen(word);
  for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++) {
    if (strlen(option_table[i].name) == n && strncmp(option_table[i].name, word, n) == 0) {
      *name_len = n;
      return &option_table[i];
    }
  }
  return NULL;
}

static int parse_long(const char *text, long min, long *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < min) return -1;
  *out = v;
  return 0;
}

/* A finite number; strictly positive when positive is set, else >= 0. */
static int parse_double(const char *text, int positive, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(v)) return -1;
  if (positive ? !(v > 0) : !(v >= 0)) return -1;
  *out = v;
  return 0;
}

static int bad_value(char *err, int errlen, const char *name, const char *value, const char *want) {
  snprintf(err, (size_t)errlen, "bad value '%s' for %s: expected %s", value, name, want);
  return -1;
}

static int parse_integrator(const char *name) {
  if (strcmp(name, "euler") == 0) return MR_INT_EULER;
  if (strcmp(name, "midpoint") == 0) return MR_INT_MIDPOINT;
  return -1;
}

const char *mr_cli_integrator_name(int integrator) {
  return integrator == MR_INT_MIDPOINT ? "midpoint" : "euler";
}

/* --solver NAME through the engine's registry (moreau solvers lists it). */
int mr_cli_solver_index(const char *name) { return mr_solver_find(name); }

/* "KP,KD": two numbers > 0. */
static int parse_gains(const char *text, double *kp, double *kd) {
  char *end;
  errno = 0;
  double a = strtod(text, &end);
  if (errno || end == text || *end != ',') return -1;
  const char *second = end + 1;
  double b = strtod(second, &end);
  if (errno || end == second || *end || !isfinite(a) || !isfinite(b) || !(a > 0) || !(b >= 0))
    return -1;
  *kp = a;
  *kd = b;
  return 0;
}

static int options_store(mr_cli_options *o, const option_spec *spec, const char *value, char *err,
                         int errlen) {
  const char *name = spec->name;
  long n;
  switch (spec->id) {
    case OPT_FLOATING: o->load.floating = 1; break;
    case OPT_FLOOR: o->load.floor = MR_ON; break;
    case OPT_NO_FLOOR: o->load.floor = MR_OFF; break;
    case OPT_STRICT: o->load.strict = 1; break;
    case OPT_SELF_COLLISION:
      if (strcmp(value, "on") == 0) o->load.self_collision = MR_ON;
      else if (strcmp(value, "off") == 0) o->load.self_collision = MR_OFF;
      else if (strcmp(value, "auto") == 0) o->load.self_collision = MR_AUTO;
      else return bad_value(err, errlen, name, value, "on, off or auto");
      break;
    case OPT_HOLD:
      o->load.hold = 1;
      if (value && parse_gains(value, &o->load.hold_kp, &o->load.hold_kd))
        return bad_value(err, errlen, name, value, "KP,KD (numbers, KP > 0, KD >= 0)");
      break;
    case OPT_PACKAGE_PATH: o->load.package_path = value; break;
    case OPT_SRDF: o->load.srdf = value; break;
    case OPT_QUIET: o->quiet = 1; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_HELP: o->help = 1; break;
    case OPT_NO_CONTACT: o->disable |= MR_DISABLE_CONTACT; break;
    /* Smooth dynamics only: no constraint rows at all, hence no collision work either. */
    case OPT_NO_CONSTRAINTS: o->disable |= MR_DISABLE_CONSTRAINT | MR_DISABLE_CONTACT; break;
    case OPT_NO_GRAVITY: o->disable |= MR_DISABLE_GRAVITY; break;
    case OPT_KEYFRAME: o->keyframe = value; break;
    case OPT_RECORD: o->record = value; break;
    case OPT_CONTACTS: o->contacts = value; break;
    case OPT_CTRL: o->ctrl_file = value; break;
    case OPT_INIT: o->init_file = value; break;
    case OPT_SCREENSHOT: o->screenshot = value; break;
    case OPT_CAMERA: o->camera = value; break;
    case OPT_REPLAY: o->replay = value; break;
    case OPT_OUT: o->out_dir = value; break;
    case OPT_RESUME: o->resume = 1; break;
    case OPT_SUMMARY_SENSORS:
      if (mr_sensor_summary_check_list(value, err, errlen)) return -1;
      o->summary_sensors = value;
      break;
    case OPT_PLOTS: o->plots = 1; break;
    case OPT_KEYS: o->keys = value; break;
    case OPT_SEED:
      if (parse_long(value, 0, &o->seed)) return bad_value(err, errlen, name, value, "a whole number >= 0");
      break;
    case OPT_FRAMES:
      if (parse_long(value, 1, &o->frames)) return bad_value(err, errlen, name, value, "a whole number >= 1");
      break;
    case OPT_WIDTH:
      if (parse_int_range(value, 16, 8192, &o->width)) return bad_value(err, errlen, name, value, "pixels, 16 to 8192");
      break;
    case OPT_HEIGHT:
      if (parse_int_range(value, 16, 8192, &o->height)) return bad_value(err, errlen, name, value, "pixels, 16 to 8192");
      break;
    case OPT_JOBS:
      if (parse_int_range(value, 1, 4096, &o->jobs)) return bad_value(err, errlen, name, value, "a whole number from 1 to 4096");
      break;
    case OPT_STEPS:
      if (parse_long(value, 0, &o->steps)) return bad_value(err, errlen, name, value, "a whole number >= 0");
      break;
    case OPT_DURATION:
      if (parse_double(value, 0, &o->duration)) return bad_value(err, errlen, name, value, "seconds >= 0");
      break;
    case OPT_DT:
      if (parse_double(value, 1, &o->dt)) return bad_value(err, errlen, name, value, "seconds > 0");
      break;
    case OPT_TOL:
      if (parse_double(value, 1, &o->tol)) return bad_value(err, errlen, name, value, "a number > 0");
      break;
    case OPT_RESTITUTION:
      if (parse_double(value, 0, &o->restitution) || o->restitution > 1)
        return bad_value(err, errlen, name, value, "a coefficient from 0 to 1");
      break;
    case OPT_RECORD_EVERY:
      if (parse_long(value, 1, &o->record_every)) return bad_value(err, errlen, name, value, "a whole number >= 1");
      break;
    case OPT_MAX_ITER:
      if (parse_long(value, 1, &n) || n > 1000000000L) return bad_value(err, errlen, name, value, "a whole number >= 1");
      o->max_iter = (int)n;
      break;
    case OPT_INTEGRATOR:
      o->integrator = parse_integrator(value);
      if (o->integrator < 0) return bad_value(err, errlen, name, value, "euler or midpoint");
      break;
    case OPT_SOLVER:
      if (mr_cli_solver_index(value) < 0) {
        snprintf(err, (size_t)errlen, "unknown solver '%s' (moreau solvers lists them)", value);
        return -1;
      }
      o->solver = value;
      break;
  }
  return 0;
}

static int options_positional(mr_cli_options *o, const char *word, char *err, int errlen) {
  if (o->model_path) {
    snprintf(err, (size_t)errlen, "unexpected argument '%s' (one model at a time)", word);
    return -1;
  }
  o->model_path = word;
  return 0;
}

/* A solver whose contact model has no restitution coefficient (the registry says why)
 * cannot honour --restitution: an error rather than a run that silently ignores it. */
static int options_check_restitution(const mr_cli_options *o, char *err, int errlen) {
  if (!(o->restitution > 0)) return 0;
  int solver = o->solver ? mr_cli_solver_index(o->solver) : mr_solver_default();
  const char *why = mr_solver_no_restitution(solver);
  if (!why) return 0;
  snprintf(err, (size_t)errlen, "option --restitution: solver %s cannot apply it: %s",
           mr_solver_name(solver), why);
  return -1;
}

int mr_cli_parse(int argc, char **argv, int groups, mr_cli_options *o, char *err, int errlen) {
  options_defaults(o);
  err[0] = 0;
  int only_positional = 0;
  for (int i = 0; i < argc; i++) {
    const char *word = argv[i];
    if (only_positional || word[0] != '-' || word[1] == 0) {
      if (options_positional(o, word, err, errlen)) return -1;
      continue;
    }
    if (strcmp(word, "--") == 0) {
      only_positional = 1;
      continue;
    }
    size_t name_len;
    const option_spec *spec = options_find(word, &name_len);
    if (!spec) {
      snprintf(err, (size_t)errlen, "unknown option '%s' (see moreau --help)", word);
      return -1;
    }
    if (spec->group && !(spec->group & groups)) {
      snprintf(err, (size_t)errlen, "option %s does not apply to this command (see moreau --help)",
               spec->name);
      return -1;
    }
    const char *value = NULL;
    if (word[name_len] == '=') {
      value = word + name_len + 1;
      if (!spec->has_value) {
        snprintf(err, (size_t)errlen, "option %s takes no value", spec->name);
        return -1;
      }
    } else if (spec->has_value == 2) {
      double kp, kd; /* an optional value is taken only when it is one */
      if (i + 1 < argc && parse_gains(argv[i + 1], &kp, &kd) == 0) value = argv[++i];
    } else if (spec->has_value) {
      if (i + 1 >= argc) {
        snprintf(err, (size_t)errlen, "option %s needs a value", spec->name);
        return -1;
      }
      value = argv[++i];
    }
    if (options_store(o, spec, value, err, errlen)) return -1;
  }
  if (o->steps >= 0 && o->duration >= 0) {
    snprintf(err, (size_t)errlen, "give either --steps or --duration, not both");
    return -1;
  }
  return options_check_restitution(o, err, errlen);
}

mr_model *mr_cli_load_model(const mr_cli_options *o) {
  char err[1024] = "";
  mr_load_options load = o->load;
  load.quiet = o->quiet;
  load.keyframe = o->keyframe; /* servo gains are chosen at the start pose */
  mr_model *m = mr_model_load(o->model_path, &load, err, (int)sizeof err);
  if (!m) {
    if (err[0]) mr_cli_error("%s", err);
    else mr_cli_error("%s: cannot load the model", o->model_path);
  }
  return m;
}

static int keyframe_index(const mr_model *m, const char *text) {
  long k;
  if (parse_long(text, 0, &k) == 0) return k < m->nkey ? (int)k : -1;
  return mr_name2id(m, MR_OBJ_KEY, text);
}

static long steps_for_duration(double duration, double dt, const char *path, char *err, int errlen) {
  double n = ceil(duration / dt - 1e-9); /* the 1e-9 keeps 1 s / 0.005 s at 200, not 201 */
  if (n > 1e12) {
    snprintf(err, (size_t)errlen, "%s: %g s at dt = %g s is too many steps", path, duration, dt);
    return -1;
  }
  return n < 0 ? 0 : (long)n;
}

long mr_cli_apply(const mr_cli_options *o, const mr_model *m, mr_data *d, char *err, int errlen) {
  if (o->keyframe) {
    int k = keyframe_index(m, o->keyframe);
    if (k < 0 || mr_data_reset_keyframe(m, d, k) != 0) {
      snprintf(err, (size_t)errlen, "%s: no keyframe '%s' (the model has %d)", o->model_path,
               o->keyframe, m->nkey);
      return -1;
    }
  } else {
    mr_data_reset(m, d);
  }
  if (o->load.hold) mr_robot_hold_targets(m, d);
  if (o->dt > 0) d->opt.timestep = o->dt;
  if (o->integrator >= 0) d->opt.integrator = o->integrator;
  if (o->solver) d->opt.solver = mr_cli_solver_index(o->solver);
  if (o->tol > 0) d->opt.tol = o->tol;
  if (o->restitution >= 0) d->opt.restitution = o->restitution;
  if (o->max_iter > 0) d->opt.max_iter = o->max_iter;
  d->opt.disable |= o->disable;
  if (!(d->opt.timestep >= MR_MIN_TIMESTEP) || !isfinite(d->opt.timestep)) {
    snprintf(err, (size_t)errlen, "%s: timestep %g is below the smallest step, %g s", o->model_path,
             d->opt.timestep, MR_MIN_TIMESTEP);
    return -1;
  }
  if (o->steps >= 0) return o->steps;
  double duration = o->duration >= 0 ? o->duration : 1.0;
  return steps_for_duration(duration, d->opt.timestep, o->model_path, err, errlen);
}

void mr_cli_print_usage(FILE *out) {
  fputs(
      "usage: moreau COMMAND [arguments]\n"
      "\n"
      "commands:\n"
      "  moreau info MODEL [--json] [--floating] [--package-path DIR] [--srdf FILE] [--quiet]\n"
      "             [--floor|--no-floor] [--self-collision on|off|auto] [--strict]\n"
      "      model summary: sizes, mass, timestep, actuators, keyframes, joints, geoms, bodies\n"
      "  moreau run MODEL [options]\n"
      "      headless simulation; prints a summary (--json: one JSON object)\n"
      "  moreau view MODEL [options] [--frames N --screenshot FILE.png] [--camera NAME|free]\n"
      "             [--width W] [--height H] [--plots] [--keys FRAME:KEY,...] [--replay FILE]\n"
      "      the viewer (H in the window lists the keys); --frames renders N frames offscreen\n"
      "      and exits, --replay plays a recording\n"
      "  moreau batch JOBS [--jobs N] [--out DIR] [--resume] [--summary-sensors NAME,...]\n"
      "      many runs in parallel (JOBS: CSV or sweep spec); under mpirun, shared across ranks\n"
      "  moreau solvers\n"
      "      the contact solver registry: name, hotkey, description\n"
      "  moreau --help | --version\n"
      "\n"
      "options of run, view and batch jobs:\n"
      "  --steps N            number of steps\n"
      "  --duration S         simulated seconds (default 1 s when neither is given)\n"
      "  --dt S               timestep (default: the model's)\n"
      "  --solver NAME        contact solver (see moreau solvers)\n"
      "  --integrator NAME    euler or midpoint\n"
      "  --no-contact         no collision detection\n"
      "  --no-constraints     smooth dynamics: no contacts, joint limits or equalities\n"
      "  --no-gravity         zero gravity\n"
      "  --keyframe K         start from keyframe K (index or name)\n"
      "  --record FILE        trajectory (.csv or .h5)\n"
      "  --record-every K     record one row every K steps (default 1)\n"
      "  --contacts FILE.csv  every contact of every recorded step (step, geoms, position,\n"
      "                       normal, distance, id)\n"
      "  --ctrl FILE.csv      controls: a time column and one column per actuator name,\n"
      "                       linearly interpolated, held outside the range\n"
      "  --init FILE          start from the last row of a recording (.csv or .h5)\n"
      "  --seed N             reproducible perturbation of the initial state (+-1e-3)\n"
      "  --tol X              solver tolerance\n"
      "  --restitution E      Newton restitution of contacts, 0 to 1 (default 0)\n"
      "  --max-iter N         solver iteration cap (default: the solver's own, `moreau\n"
      "                       solvers` lists them)\n"
      "  --floating           URDF: free joint at the root\n"
      "  --package-path DIR   URDF: roots for package:// URIs (':'-separated)\n"
      "  --srdf FILE          URDF: SRDF file (its group_states are keyframes)\n"
      "  --floor, --no-floor  a ground plane at z = 0 (default: URDF with a floating base)\n"
      "  --hold [KP,KD]       position servos holding the start pose on every joint; gains\n"
      "                       per joint from the mass matrix unless given; --ctrl columns\n"
      "                       named by joint are position targets\n"
      "  --self-collision on|off|auto  URDF auto: no parent-child pairs, none touching at\n"
      "                       qpos0 or an SRDF state, SRDF exclusions; on: all but\n"
      "                       parent-child; off: none within a robot\n"
      "  --strict             URDF inertia repairs and bounds are errors\n"
      "  --summary-sensors NAME,...  run and batch: each sensor's final and largest value\n"
      "  --quiet              no warnings, no progress bar\n"
      "  --json               machine-readable summary\n"
      "\n"
      "errors: one line on stderr; exit 2 for bad input, 1 for a failed run.\n",
      out);
}
