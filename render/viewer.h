/* The viewer's state machine: one model and its data, the simulation clock, the camera,
 * selection and perturbation, overlays, plots, recording and replay.
 *
 * Every input goes through the mr_viewer_key / mr_viewer_mouse_* functions below: the
 * GLFW callbacks (window.c) call them, and so do scripted keys (--keys) and tests, so what
 * a test injects is exactly what a person's key press does. Key codes are GLFW's
 * (GLFW_KEY_*), modifiers GLFW's (GLFW_MOD_*). */
#ifndef MR_RENDER_VIEWER_H
#define MR_RENDER_VIEWER_H

#include "camera.h"
#include "draw2d.h"
#include "moreau.h"
#include "overlay.h"
#include "plot_history.h"
#include "engine/record/recording.h"
#include "scene.h"

struct GLFWwindow;
struct mr_recorder;

typedef struct mr_viewer_config {
  const char *model_path;
  mr_load_options load;
  int width, height;   /* window size in pixels */
  int visible;         /* 0: a hidden window, for scripted screenshots and tests */
  int show_plots;      /* open with the plots panel shown */
  const char *camera;  /* a model camera's name or index, or NULL / "free" */
  const char *replay;  /* a recording to play instead of simulating, or NULL */
  /* Puts a fresh mr_data in its initial state with the run settings (dt, solver,
   * keyframe...); called on every load and reload. 0, or -1 with one line in err. NULL:
   * mr_data_reset only. */
  int (*configure)(void *user, const mr_model *m, mr_data *d, char *err, int errlen);
  void *user;
} mr_viewer_config;

enum { MR_VIEWER_MESSAGE = 512, MR_VIEWER_PATH = 4096 };

typedef struct mr_viewer {
  mr_viewer_config config;
  char model_path[MR_VIEWER_PATH];
  struct GLFWwindow *window;
  int fb_width, fb_height;  /* framebuffer pixels; 0 while minimized */
  float ui_scale;

  mr_model *m;
  mr_data *d;
  mr_scene scene;
  mr_overlay overlay;
  mr_draw2d *draw2d;
  mr_plot_history *plots;
  mr_camera camera;

  /* simulation clock */
  int paused;
  double speed;       /* simulated seconds per wall second */
  double sim_lag;     /* simulated time owed to the clock */
  double rtf;         /* measured real-time factor */
  double rtf_wall, rtf_sim; /* accumulators of the current measurement window */
  int keyframe;       /* -1: reset goes to qpos0; else the keyframe [ and ] selected */
  int diverged;       /* the state became non-finite: paused until reset */

  /* display */
  int overlay_flags;  /* MR_OVERLAY_* */
  int show_help, show_plots, show_collision;
  int sensor_menu, sensor_menu_cursor; /* the sensor list (E) and its highlighted entry */
  char message[MR_VIEWER_MESSAGE]; /* one line shown over the scene (errors in red) */
  int message_is_error;
  double message_until;            /* wall time at which the message fades; < 0: stays */

  /* mouse, selection, perturbation */
  double mouse_x, mouse_y;         /* window coordinates */
  int button_left, button_right, button_middle, mods;
  double last_click_time;
  int selected_body;               /* 0: none */
  int perturbing;
  double perturb_local[3];         /* grabbed point in the body frame */
  double perturb_target[3];        /* where the mouse pulls it (world) */
  double perturb_anchor[3];        /* grabbed point in world at the last step */
  double perturb_depth;            /* distance of the grab plane along the view axis */

  /* recording (R) and replay (--replay) */
  struct mr_recorder *recorder;
  char record_path[MR_VIEWER_PATH];
  mr_recording replay;
  int replaying;
  long replay_row;
  double replay_clock;             /* simulated time of the replay cursor */

  int quit;
  long frame;                      /* frames drawn */
} mr_viewer;

/* Opens the window (hidden unless config->visible), loads the model and, when asked, the
 * recording. NULL on failure with one line in err and *status set to 2 for bad input (the
 * model, the camera, the recording) or 1 for a failure of the machine (no display, no
 * OpenGL 3.3). */
mr_viewer *mr_viewer_create(const mr_viewer_config *config, char *err, int errlen, int *status);
void mr_viewer_free(mr_viewer *v);

/* Loads a model file in place of the current one. On failure keeps the current model and
 * shows the one-line error in the window; returns -1 (the error is also in v->message). */
int mr_viewer_load(mr_viewer *v, const char *path, int keep_camera);

/* Input: key press (GLFW key code and modifier bits), mouse, scroll, file drop. */
void mr_viewer_key(mr_viewer *v, int key, int mods);
void mr_viewer_mouse_button(mr_viewer *v, int button, int press, int mods);
void mr_viewer_mouse_move(mr_viewer *v, double x, double y);
void mr_viewer_scroll(mr_viewer *v, double dy);
void mr_viewer_drop(mr_viewer *v, const char *path);
void mr_viewer_resize(mr_viewer *v, int fb_width, int fb_height);

/* Advances the simulation (or the replay) by wall_seconds x speed of simulated time, in
 * whole steps. max_steps > 0 caps the steps of this call and drops the backlog when the
 * cap is hit, so a slow model slows down instead of falling ever further behind; 0 steps
 * exactly as many as the time asks (deterministic scripted runs). */
void mr_viewer_advance(mr_viewer *v, double wall_seconds, int max_steps);

/* One simulation step with perturbation, plots and recording. */
int mr_viewer_step(mr_viewer *v);

/* Draws the frame into the back buffer (skipped while minimized). */
void mr_viewer_render(mr_viewer *v);

/* Writes the back buffer (the frame mr_viewer_render drew) to a PNG. 0, or -1 and err. */
int mr_viewer_screenshot(mr_viewer *v, const char *path, char *err, int errlen);

/* The interactive loop: until the window closes. Returns an exit status. */
int mr_viewer_run(mr_viewer *v);

/* Starts or stops recording to "<model>-<YYYYmmdd-HHMMSS>.csv" in the current directory. */
void mr_viewer_toggle_record(mr_viewer *v);

/* Shows one line over the scene for a few seconds (errors in red until the next action). */
void mr_viewer_message(mr_viewer *v, int is_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The help text: every key, one per line. */
const char *mr_viewer_help_text(void);

/* Key names of --keys scripts ("space", "right", "ctrl+l", "3", "F1"...): the GLFW key
 * code and modifiers, or -1 if the name is unknown. */
int mr_viewer_key_from_name(const char *name, int *mods);

/* Shared by the viewer's own files (viewer.c, viewer_keys.c, interaction.c, replay.c). */
int mr_viewer_scene_width(const mr_viewer *v);     /* framebuffer pixels of the 3D view */
void mr_viewer_reset(mr_viewer *v);                 /* to qpos0 or the selected keyframe */
void mr_viewer_save_screenshot(mr_viewer *v);       /* S: "<model>-<time>.png" */
void mr_viewer_apply_perturbation(mr_viewer *v);    /* the spring into d->xfrc_applied */
int mr_viewer_spring(const mr_viewer *v, double spring[6]); /* anchor, target; 0 if none */
void mr_viewer_replay_show(mr_viewer *v);           /* the current row into d */
void mr_viewer_replay_seek(mr_viewer *v, long row);
void mr_viewer_replay_advance(mr_viewer *v, double sim_seconds);

#endif
