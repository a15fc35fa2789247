/* The viewer: model lifecycle, the simulation clock, drawing a frame, recording. Keys are in
 * viewer_keys.c, mouse and perturbation in interaction.c. */
#include "viewer.h"

#define GLFW_INCLUDE_NONE
#include "glfw_api.h"
#include <glad/gl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "plots.h"
#include "sensor_menu.h"
#include "engine/record/record.h"
#include "window.h"

enum { PLOT_CAPACITY = 20000 };
static const double MESSAGE_SECONDS = 4.0;

void mr_viewer_message(mr_viewer *v, int is_error, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->message, sizeof v->message, fmt, ap);
  va_end(ap);
  v->message_is_error = is_error;
  v->message_until = is_error ? -1 : mr_window_time() + MESSAGE_SECONDS;
  if (!v->config.visible) fprintf(stderr, "moreau: %s\n", v->message);
}

static int model_has_plane(const mr_model *m) {
  for (int g = 0; g < m->ngeom; g++)
    if (m->geom_type[g] == MR_GEOM_PLANE) return 1;
  return 0;
}

static void viewer_finish_recording(mr_viewer *v) {
  if (!v->recorder) return;
  char err[MR_VIEWER_MESSAGE];
  long rows = mr_recorder_rows(v->recorder);
  if (mr_recorder_finish(v->recorder, err, (int)sizeof err)) mr_viewer_message(v, 1, "%s", err);
  else mr_viewer_message(v, 0, "recorded %ld rows to %s", rows, v->record_path);
  v->recorder = NULL;
}

static void viewer_stop_replay(mr_viewer *v) {
  if (!v->replaying) return;
  mr_recording_free(&v->replay);
  memset(&v->replay, 0, sizeof v->replay);
  v->replaying = 0;
}

/* The body of the model's only free joint (a floating robot's root), or 0: a scene of many
 * free bodies (a pile, a hundred humanoids) has no one body to follow. */
static int viewer_floating_root(const mr_model *m) {
  int root = 0, nfree = 0;
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] == MR_JOINT_FREE) root = m->jnt_bodyid[j], nfree++;
  return nfree == 1 ? root : 0;
}

/* Loads path into fresh model, data and scene, and swaps them in only when all succeeded. */
static int viewer_load_model(mr_viewer *v, const char *path, int keep_camera, char *err,
                             int errlen) {
  mr_load_options load = v->config.load;
  load.quiet = 1;
  err[0] = 0;
  mr_model *m = mr_model_load(path, &load, err, errlen);
  if (!m) {
    if (!err[0]) snprintf(err, (size_t)errlen, "%s: cannot load the model", path);
    return -1;
  }
  mr_data *d = mr_data_create(m);
  if (!d) {
    snprintf(err, (size_t)errlen, "%s: out of memory for the simulation data", path);
    mr_model_free(m);
    return -1;
  }
  int rc = v->config.configure ? v->config.configure(v->config.user, m, d, err, errlen) : (mr_data_reset(m, d), 0);
  mr_scene scene;
  mr_camera framing;
  if (rc == 0) {
    mr_forward(m, d);
    mr_camera_frame_model(&framing, m, d);
    if (!mr_scene_create(&scene, m, framing.extent, err, errlen)) rc = -1;
  }
  if (rc) {
    mr_data_free(d);
    mr_model_free(m);
    return -1;
  }
  /* Success: the old model goes. A recording belongs to the model it started with; the
   * plotted sensor stays if the new model has one of that name. */
  char plotted[256] = "";
  if (v->m && mr_plot_history_sensor(v->plots) >= 0)
    snprintf(plotted, sizeof plotted, "%s", mr_id2name(v->m, MR_OBJ_SENSOR, mr_plot_history_sensor(v->plots)));
  viewer_finish_recording(v);
  viewer_stop_replay(v);
  if (v->m) mr_scene_free(&v->scene);
  mr_data_free(v->d);
  mr_model_free(v->m);
  v->m = m, v->d = d, v->scene = scene;
  if (!keep_camera) {
    v->camera = framing;
    int root = viewer_floating_root(m);
    if (root > 0) { /* a floating robot stays in view as it falls or walks away */
      v->camera.track_body = root;
      memcpy(v->camera.track_prev, d->xipos + 3 * root, 3 * sizeof(double));
    }
  } else {
    if (v->camera.fixed >= m->ncam) v->camera.fixed = -1;
    if (v->camera.track_body >= m->nbody) v->camera.track_body = 0;
    v->camera.extent = framing.extent;
  }
  if (v->model_path != path) snprintf(v->model_path, sizeof v->model_path, "%s", path);
  v->selected_body = 0;
  v->perturbing = 0;
  v->keyframe = -1;
  v->diverged = 0;
  v->sim_lag = 0;
  if (model_has_plane(m)) v->overlay_flags &= ~MR_OVERLAY_GRID;
  else v->overlay_flags |= MR_OVERLAY_GRID;
  v->overlay_flags |= MR_OVERLAY_TENDONS; /* shown unless hidden, as MuJoCo shows them */
  mr_scene_set_visibility(&v->scene, m, v->show_collision);
  mr_plot_history_clear(v->plots);
  mr_plot_history_set_sensor(v->plots, m, mr_name2id(m, MR_OBJ_SENSOR, plotted));
  v->sensor_menu = 0;
  return 0;
}

int mr_viewer_load(mr_viewer *v, const char *path, int keep_camera) {
  char err[MR_VIEWER_MESSAGE];
  if (viewer_load_model(v, path, keep_camera, err, (int)sizeof err)) {
    mr_viewer_message(v, 1, "%s", err);
    return -1;
  }
  mr_viewer_message(v, 0, "loaded %s", path);
  return 0;
}

static int viewer_setup(mr_viewer *v, char *err, int errlen, int *status) {
  *status = 1;
  if (mr_window_open(v, v->config.width, v->config.height, v->config.visible, err, errlen, status))
    return -1;
  v->draw2d = mr_draw2d_create();
  if (!v->draw2d) {
    snprintf(err, (size_t)errlen, "cannot draw text: %s", mr_draw2d_error());
    return -1;
  }
  if (!mr_overlay_create(&v->overlay, err, errlen)) return -1;
  v->plots = mr_plot_history_create(PLOT_CAPACITY);
  if (!v->plots) {
    snprintf(err, (size_t)errlen, "out of memory for the plots");
    return -1;
  }
  *status = 2;
  if (viewer_load_model(v, v->config.model_path, 0, err, errlen)) return -1;
  int cam = mr_camera_find(v->m, v->config.camera);
  if (cam == -2) {
    snprintf(err, (size_t)errlen, "%s: no camera '%s' (the model has %d; use a name, an index or 'free')",
             v->config.model_path, v->config.camera, v->m->ncam);
    return -1;
  }
  v->camera.fixed = cam;
  if (v->config.replay) {
    if (mr_recording_load(v->config.replay, v->m, &v->replay, err, errlen)) return -1;
    if (v->replay.nrows < 1) {
      snprintf(err, (size_t)errlen, "%s: the recording has no rows", v->config.replay);
      mr_recording_free(&v->replay);
      return -1;
    }
    v->replaying = 1;
    v->replay_row = 0;
    v->replay_clock = v->replay.time[0];
    mr_viewer_replay_show(v);
  }
  *status = 0;
  return 0;
}

mr_viewer *mr_viewer_create(const mr_viewer_config *config, char *err, int errlen, int *status) {
  mr_viewer *v = calloc(1, sizeof *v);
  if (!v) {
    snprintf(err, (size_t)errlen, "out of memory");
    *status = 1;
    return NULL;
  }
  v->config = *config;
  v->config.model_path = NULL; /* owned copy in model_path */
  snprintf(v->model_path, sizeof v->model_path, "%s", config->model_path);
  v->config.model_path = v->model_path;
  v->speed = 1;
  v->keyframe = -1;
  v->show_plots = config->show_plots;
  v->ui_scale = 1;
  if (viewer_setup(v, err, errlen, status)) {
    mr_viewer_free(v);
    return NULL;
  }
  return v;
}

void mr_viewer_free(mr_viewer *v) {
  if (!v) return;
  if (v->recorder) viewer_finish_recording(v);
  viewer_stop_replay(v);
  if (v->window) { /* GL objects go while their context lives */
    if (v->m) mr_scene_free(&v->scene);
    mr_overlay_free(&v->overlay);
    if (v->draw2d) mr_draw2d_free(v->draw2d);
  }
  mr_plot_history_free(v->plots);
  mr_data_free(v->d);
  mr_model_free(v->m);
  mr_window_close(v);
  free(v);
}

/* ------------------------------------------------------------------ stepping */

static double viewer_energy(const mr_model *m, mr_data *d) {
  mr_kinematics(m, d);
  mr_mass_matrix(m, d);
  mr_energy(m, d);
  return d->energy[0] + d->energy[1];
}

int mr_viewer_step(mr_viewer *v) {
  if (v->diverged) return -1;
  mr_viewer_apply_perturbation(v);
  if (mr_step(v->m, v->d)) {
    v->diverged = 1;
    v->paused = 1;
    /* offscreen, the command reports it as its one error line (cmd_view.c) */
    if (v->config.visible)
      mr_viewer_message(v, 1, "the simulation diverged at t = %.4g s (step %ld): press backspace to reset",
                        v->d->time, v->d->nstep);
    return -1;
  }
  mr_plot_history_push(v->plots, v->d);
  if (v->recorder) {
    char err[MR_VIEWER_MESSAGE];
    double energy = viewer_energy(v->m, v->d);
    mr_sensors_state(v->m, v->d); /* a row's sensors, as moreau run records them */
    if (mr_recorder_write(v->recorder, v->d, energy, err, (int)sizeof err)) {
      mr_recorder_keep(v->recorder); /* its rows stay in FILE.part */
      v->recorder = NULL;
      mr_viewer_message(v, 1, "recording stopped: %s", err);
    }
  }
  return 0;
}

void mr_viewer_advance(mr_viewer *v, double wall_seconds, int max_steps) {
  if (v->replaying) {
    mr_viewer_replay_advance(v, v->paused ? 0 : wall_seconds * v->speed);
    return;
  }
  if (v->paused || v->diverged) {
    v->sim_lag = 0;
    return;
  }
  double dt = v->d->opt.timestep;
  v->sim_lag += wall_seconds * v->speed;
  int steps = 0;
  /* Half a step of tolerance: 1/60 s of 0.002 s steps is 8.33 steps, not 8 or 9 by
   * round-off, and the remainder carries to the next frame. */
  while (v->sim_lag > 0.5 * dt) {
    if (max_steps > 0 && steps >= max_steps) {
      v->sim_lag = 0; /* behind the clock: slow down rather than spiral */
      break;
    }
    if (mr_viewer_step(v)) break;
    v->sim_lag -= dt;
    steps++;
  }
}

/* ------------------------------------------------------------------ recording */

void mr_viewer_toggle_record(mr_viewer *v) {
  if (v->recorder) {
    viewer_finish_recording(v);
    return;
  }
  /* "<model>-<YYYYmmdd-HHMMSS>.csv", the model named after its file. */
  const char *base = strrchr(v->model_path, '/');
  base = base ? base + 1 : v->model_path;
  char name[256];
  snprintf(name, sizeof name, "%.200s", base);
  char *dot = strrchr(name, '.');
  if (dot && dot != name) *dot = 0;
  char stamp[32];
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  snprintf(v->record_path, sizeof v->record_path, "%s-%s.csv", name, stamp);
  char err[MR_VIEWER_MESSAGE];
  v->recorder = mr_recorder_open(v->m, v->d, v->record_path, err, (int)sizeof err);
  if (!v->recorder) {
    mr_viewer_message(v, 1, "cannot record: %s", err);
    return;
  }
  /* The first row is the state recording starts from, as `moreau run --record` does. */
  double energy = viewer_energy(v->m, v->d);
  mr_sensors_state(v->m, v->d);
  if (mr_recorder_write(v->recorder, v->d, energy, err, (int)sizeof err)) {
    mr_recorder_abort(v->recorder);
    v->recorder = NULL;
    mr_viewer_message(v, 1, "cannot record: %s", err);
    return;
  }
  mr_viewer_message(v, 0, "recording to %s (R stops)", v->record_path);
}

/* ------------------------------------------------------------------ drawing */

static const float TEXT_COLOR[4] = {0.95f, 0.95f, 0.95f, 1};
static const float ERROR_COLOR[4] = {1.0f, 0.35f, 0.3f, 1};
static const float PANEL_COLOR[4] = {0.0f, 0.0f, 0.0f, 0.6f};

static const char *viewer_solver_name(const mr_viewer *v) {
  int s = v->d->opt.solver >= 0 ? v->d->opt.solver : mr_solver_default();
  const char *name = mr_solver_name(s);
  return name ? name : "?";
}

static void viewer_status_line(mr_viewer *v, float width, float height) {
  char line[512];
  const char *state = v->replaying ? (v->paused ? "replay paused" : "replay")
                      : v->diverged ? "diverged" : v->paused ? "paused" : "running";
  int n = snprintf(line, sizeof line,
                   "%s | %s | dt %.4g s | real time x%.2f (speed x%g) | t %.3f s | contacts %d | %s",
                   viewer_solver_name(v), v->d->opt.integrator == MR_INT_MIDPOINT ? "midpoint" : "euler",
                   v->d->opt.timestep, v->rtf, v->speed, v->d->time, v->d->ncon, state);
  if (v->replaying && n > 0 && n < (int)sizeof line)
    n += snprintf(line + n, sizeof line - (size_t)n, " | row %ld/%ld", v->replay_row + 1, v->replay.nrows);
  if (v->recorder && n > 0 && n < (int)sizeof line)
    snprintf(line + n, sizeof line - (size_t)n, " | REC %.200s", v->record_path);
  float size = 12, pad = 6;
  float h = mr_draw2d_text_height(size, line) + 2 * pad;
  mr_draw2d_rect(v->draw2d, 0, height - h, width, h, PANEL_COLOR);
  mr_draw2d_text(v->draw2d, pad, height - h + pad, size, TEXT_COLOR, line);
  const char *hint = "H: help";
  mr_draw2d_text(v->draw2d, width - mr_draw2d_text_width(size, hint) - pad, height - h + pad, size,
                 TEXT_COLOR, hint);
}

static void viewer_message_line(mr_viewer *v, float width) {
  if (!v->message[0]) return;
  if (v->message_until >= 0 && mr_window_time() > v->message_until) {
    v->message[0] = 0;
    return;
  }
  float size = 13, pad = 6;
  float w = fminf(width, mr_draw2d_text_width(size, v->message) + 2 * pad);
  mr_draw2d_rect(v->draw2d, 0, 0, w, mr_draw2d_text_height(size, v->message) + 2 * pad, PANEL_COLOR);
  mr_draw2d_text(v->draw2d, pad, pad, size, v->message_is_error ? ERROR_COLOR : TEXT_COLOR, v->message);
}

static void viewer_help(mr_viewer *v, float width, float height) {
  const char *text = mr_viewer_help_text();
  float size = 12, pad = 10;
  float w = mr_draw2d_text_width(size, text) + 2 * pad, h = mr_draw2d_text_height(size, text) + 2 * pad;
  float x = fmaxf(0, (width - w) / 2), y = fmaxf(0, (height - h) / 2);
  mr_draw2d_rect(v->draw2d, x, y, w, h, PANEL_COLOR);
  mr_draw2d_text(v->draw2d, x + pad, y + pad, size, TEXT_COLOR, text);
}

/* Width of the plots panel in UI units: the right part of the window. */
static float plots_width(float width) { return fmaxf(fminf(width * 0.42f, 620), fminf(width, 240)); }

int mr_viewer_scene_width(const mr_viewer *v) {
  if (!v->show_plots) return v->fb_width;
  float s = v->ui_scale > 0 ? v->ui_scale : 1;
  int panel = (int)(plots_width((float)v->fb_width / s) * s);
  /* A window too narrow for both keeps the scene whole under the panel. */
  return v->fb_width - panel >= v->fb_width / 3 ? v->fb_width - panel : v->fb_width;
}

static void viewer_draw_2d(mr_viewer *v) {
  float s = v->ui_scale > 0 ? v->ui_scale : 1;
  float width = (float)v->fb_width / s, height = (float)v->fb_height / s;
  float scene_width = (float)mr_viewer_scene_width(v) / s;
  mr_draw2d_begin(v->draw2d, v->fb_width, v->fb_height, s);
  if (v->show_plots) {
    /* The panel takes the right part of the window, above the status line. */
    float pw = plots_width(width);
    mr_plots_draw(v->draw2d, v->plots, width - pw, 0, pw, height - 26, (float)v->mouse_x,
                  (float)v->mouse_y, 10.0);
  }
  viewer_message_line(v, scene_width);
  if (v->show_help) viewer_help(v, width, height);
  mr_sensor_menu_draw(v, width, height);
  viewer_status_line(v, width, height);
  mr_draw2d_end(v->draw2d);
}

void mr_viewer_render(mr_viewer *v) {
  if (v->fb_width <= 0 || v->fb_height <= 0) return; /* minimized: nothing to draw into */
  /* mr_step leaves the poses of the state it started from: bring them up to date. */
  if (!v->replaying) mr_kinematics(v->m, v->d);
  mr_camera_update(&v->camera, v->d);
  mr_window_bind_target(v);
  int scene_width = mr_viewer_scene_width(v);
  glViewport(0, 0, v->fb_width, v->fb_height);
  glClearColor(0.05f, 0.05f, 0.07f, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glViewport(0, 0, scene_width, v->fb_height);
  float view[16], proj[16], viewproj[16];
  double eye[3], right[3], up[3], back[3];
  mr_camera_matrices(&v->camera, v->m, v->d, (double)scene_width / v->fb_height, view, proj);
  mr_mat4_mul(viewproj, proj, view);
  mr_camera_pose(&v->camera, v->m, v->d, eye, right, up, back);
  mr_scene_draw(&v->scene, v->d, viewproj, eye);
  double spring[6];
  int has_spring = mr_viewer_spring(v, spring);
  mr_overlay_draw(&v->overlay, v->m, v->d, v->overlay_flags, v->camera.extent, viewproj,
                  has_spring ? spring : NULL);
  glViewport(0, 0, v->fb_width, v->fb_height);
  viewer_draw_2d(v);
  v->frame++;
}

int mr_viewer_screenshot(mr_viewer *v, const char *path, char *err, int errlen) {
  mr_window_bind_target(v);
  return mr_capture_png(path, v->fb_width, v->fb_height, err, errlen);
}

void mr_viewer_resize(mr_viewer *v, int fb_width, int fb_height) {
  v->fb_width = fb_width;
  v->fb_height = fb_height;
}

/* Screenshot on S in an interactive session: named after the model and the time. */
void mr_viewer_save_screenshot(mr_viewer *v) {
  char path[MR_VIEWER_PATH], err[MR_VIEWER_MESSAGE], stamp[32];
  const char *base = strrchr(v->model_path, '/');
  base = base ? base + 1 : v->model_path;
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  snprintf(path, sizeof path, "%.200s-%s.png", base, stamp);
  mr_viewer_render(v);
  if (mr_viewer_screenshot(v, path, err, (int)sizeof err)) mr_viewer_message(v, 1, "%s", err);
  else mr_viewer_message(v, 0, "saved %s", path);
}

int mr_viewer_run(mr_viewer *v) {
  double last = mr_window_time();
  while (!mr_window_should_close(v)) {
    double now = mr_window_time(), wall = fmin(now - last, 0.1);
    last = now;
    double t0 = v->d->time;
    /* At most a frame's worth of wall time of steps at the model's pace keeps the window
     * responsive when the model is slower than real time. */
    int cap = (int)fmax(1, ceil(v->speed / 30 / v->d->opt.timestep));
    mr_viewer_advance(v, wall, cap);
    v->rtf_wall += wall;
    v->rtf_sim += v->d->time - t0;
    if (v->rtf_wall > 0.5) {
      v->rtf = v->rtf_sim / v->rtf_wall;
      v->rtf_wall = v->rtf_sim = 0;
    }
    mr_viewer_render(v);
    mr_window_present(v);
  }
  return 0;
}
