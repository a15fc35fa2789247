/* moreau view MODEL: the viewer (render/viewer.h).
 *
 * Interactive by default. With --frames N (or --screenshot FILE) it runs offscreen for
 * scripts and tests: a hidden window, exactly 1/60 s of simulated time per frame (times the
 * speed keys' factor), scripted key presses (--keys "FRAME:KEY,...") through the same code
 * path as real ones, and the last frame saved as a PNG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

#ifndef MOREAU_HAVE_VIEWER

int mr_cmd_view(int argc, char **argv) {
  (void)argc;
  (void)argv;
  mr_cli_error("view: this build has no viewer (GLFW and OpenGL were left out: configure with -DMOREAU_VIEWER=ON)");
  return MR_EXIT_BAD_INPUT;
}

#else

#include <time.h>

#include "render/viewer.h"

enum { MAX_SCRIPTED_KEYS = 256 };

typedef struct scripted_key {
  long frame;
  int key, mods;
} scripted_key;

/* "FRAME:KEY,FRAME:KEY,...": -1 and one line in err on a malformed entry. */
static int parse_keys(const char *spec, scripted_key *keys, int *n, char *err, int errlen) {
  *n = 0;
  if (!spec) return 0;
  char buf[4096];
  if (strlen(spec) >= sizeof buf) {
    snprintf(err, (size_t)errlen, "--keys: the list is too long");
    return -1;
  }
  strcpy(buf, spec);
  char *save = NULL;
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(item, ':'), *end = NULL;
    long frame = colon ? strtol(item, &end, 10) : -1;
    if (!colon || end != colon || frame < 0) {
      snprintf(err, (size_t)errlen, "--keys: '%.100s' is not FRAME:KEY (e.g. 60:3 or 30:space)", item);
      return -1;
    }
    int mods = 0, key = mr_viewer_key_from_name(colon + 1, &mods);
    if (key < 0) {
      snprintf(err, (size_t)errlen, "--keys: unknown key '%.100s' (a letter, a digit, [ ] - =, space, "
               "right, left, home, end, backspace, tab, esc, f1, ctrl+L...)", colon + 1);
      return -1;
    }
    if (*n >= MAX_SCRIPTED_KEYS) {
      snprintf(err, (size_t)errlen, "--keys: more than %d keys", MAX_SCRIPTED_KEYS);
      return -1;
    }
    keys[*n].frame = frame, keys[*n].key = key, keys[*n].mods = mods;
    (*n)++;
  }
  return 0;
}

static int screenshot_name_ok(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  return dot && (!slash || dot > slash) && strcasecmp(dot, ".png") == 0;
}

static int view_configure(void *user, const mr_model *m, mr_data *d, char *err, int errlen) {
  const mr_cli_options *o = user;
  return mr_cli_apply(o, m, d, err, errlen) < 0 ? -1 : 0;
}

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Frames 1..N: keys scripted for frame K are pressed before frame K's simulation. */
static int view_offscreen(mr_viewer *v, const mr_cli_options *o, const scripted_key *keys, int nkeys) {
  double start = now_seconds(), render_s = 0;
  for (long f = 1; f <= o->frames; f++) {
    for (int i = 0; i < nkeys; i++)
      if (keys[i].frame == f || (f == 1 && keys[i].frame == 0)) mr_viewer_key(v, keys[i].key, keys[i].mods);
    mr_viewer_advance(v, 1.0 / 60.0, 0);
    v->rtf = v->paused || v->diverged ? 0 : v->speed; /* the scripted clock, exactly */
    double r0 = now_seconds();
    mr_viewer_render(v);
    render_s += now_seconds() - r0;
  }
  if (o->screenshot) {
    char err[1024];
    if (mr_viewer_screenshot(v, o->screenshot, err, (int)sizeof err)) {
      mr_cli_error("%s", err);
      return MR_EXIT_FAILURE;
    }
  }
  /* A scripted run that diverged failed, as `run` says: the one line, exit 1. */
  if (v->diverged) {
    mr_cli_error("%s: simulation diverged at step %ld (t = %.17g): non-finite state",
                 o->model_path, v->d->nstep, v->d->time);
    return MR_EXIT_FAILURE;
  }
  double wall = now_seconds() - start;
  if (!o->quiet)
    fprintf(stderr, "moreau: %ld frames in %.3f s: %.1f fps (drawing alone %.1f fps), t = %.4g s\n",
            o->frames, wall, (double)o->frames / wall, render_s > 0 ? (double)o->frames / render_s : 0,
            v->d->time);
  return MR_EXIT_OK;
}

int mr_cmd_view(int argc, char **argv) {
  mr_cli_options o;
  char err[1024];
  if (mr_cli_parse(argc, argv, MR_OPTS_LOAD | MR_OPTS_OUTPUT | MR_OPTS_SIM | MR_OPTS_VIEW, &o, err,
                   (int)sizeof err)) {
    mr_cli_error("%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  if (o.help) {
    mr_cli_print_usage(stdout);
    return MR_EXIT_OK;
  }
  if (!o.model_path) {
    mr_cli_error("usage: moreau view MODEL [options] (see moreau --help)");
    return MR_EXIT_BAD_INPUT;
  }
  if (o.screenshot && !screenshot_name_ok(o.screenshot)) {
    mr_cli_error("--screenshot %s: screenshots are PNG files: give a name ending in .png",
                 o.screenshot);
    return MR_EXIT_BAD_INPUT;
  }
  static scripted_key keys[MAX_SCRIPTED_KEYS];
  int nkeys = 0;
  if (parse_keys(o.keys, keys, &nkeys, err, (int)sizeof err)) {
    mr_cli_error("%s", err);
    return MR_EXIT_BAD_INPUT;
  }
  /* A model that does not load is bad input (exit 2, its one line) whether or not a display
   * is there, so it is checked before any window is opened. */
  mr_cli_options probe_options = o;
  probe_options.load.meshes = MR_MESHES_INSPECT; /* whether it loads, not what it looks like */
  probe_options.quiet = 1;                       /* the viewer's own load will say it */
  mr_model *probe = mr_cli_load_model(&probe_options);
  if (!probe) return MR_EXIT_BAD_INPUT;
  mr_model_free(probe);
  if (o.screenshot && o.frames <= 0) o.frames = 1;
  int offscreen = o.frames > 0;
  mr_viewer_config c = {0};
  c.model_path = o.model_path;
  c.load = o.load;
  c.load.keyframe = o.keyframe;
  c.load.quiet = o.quiet;
  c.width = o.width;
  c.height = o.height;
  c.visible = !offscreen;
  c.show_plots = o.plots;
  c.camera = o.camera;
  c.replay = o.replay;
  c.configure = view_configure;
  c.user = &o;
  int status = 0;
  mr_viewer *v = mr_viewer_create(&c, err, (int)sizeof err, &status);
  if (!v) {
    mr_cli_error("%s", err);
    return status ? status : MR_EXIT_FAILURE;
  }
  if (offscreen) status = view_offscreen(v, &o, keys, nkeys);
  else status = mr_viewer_run(v);
  mr_viewer_free(v);
  return status;
}

#endif
