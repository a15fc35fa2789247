/* Keyboard: one function for every key, called by the GLFW callback, scripted keys and
 * tests alike. */
#define GLFW_INCLUDE_NONE
#include "glfw_api.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sensor_menu.h"
#include "viewer.h"

#include "engine/robot/robot.h"

static const char HELP[] =
    "Simulation\n"
    "  space        pause / run\n"
    "  right        one step (paused); replay: next row\n"
    "  left         replay: previous row (home / end: first / last)\n"
    "  backspace    reset to qpos0 (or the keyframe [ ] chose)\n"
    "  [  ]         previous / next keyframe\n"
    "  -  =         slower / faster (x0.5 / x2)\n"
    "  1..9         solver (see moreau solvers)\n"
    "  I            integrator: euler / midpoint\n"
    "Display\n"
    "  P            plots panel\n"
    "  N  shift+N   plot the next / previous sensor\n"
    "  E            list the sensors to plot one\n"
    "  C            contact points and normals\n"
    "  F            contact forces\n"
    "  K            friction cones\n"
    "  B            body frames\n"
    "  J            joint axes\n"
    "  M            centres of mass\n"
    "  V            convex hulls of meshes\n"
    "  G            ground grid\n"
    "  U            tendons\n"
    "  O            collision geoms (URDF)\n"
    "Camera and mouse\n"
    "  left drag    orbit;  right drag: pan;  scroll / middle drag: zoom\n"
    "  double-click select a body (again on empty space: none)\n"
    "  ctrl+drag    pull the selected body with a spring\n"
    "  T            track the selected body (a floating robot's root from the start)\n"
    "  tab          next camera (free, then the model's)\n"
    "  A            frame the whole model\n"
    "Files\n"
    "  R            start / stop recording <model>-<time>.csv\n"
    "  S            screenshot <model>-<time>.png\n"
    "  ctrl+L       reload the model (keeps the camera); drop a file to open it\n"
    "  H  F1        this help;  esc: close help, deselect;  ctrl+Q: quit";

const char *mr_viewer_help_text(void) { return HELP; }

void mr_viewer_reset(mr_viewer *v) {
  if (v->replaying) {
    mr_viewer_replay_seek(v, 0);
    return;
  }
  if (v->keyframe >= 0 && mr_data_reset_keyframe(v->m, v->d, v->keyframe) == 0)
    mr_viewer_message(v, 0, "reset to keyframe %d", v->keyframe);
  else
    mr_data_reset(v->m, v->d);
  if (v->config.load.hold) mr_robot_hold_targets(v->m, v->d);
  mr_forward(v->m, v->d);
  v->diverged = 0;
  v->sim_lag = 0;
  v->perturbing = 0;
  mr_plot_history_clear(v->plots);
  if (v->message_is_error) v->message[0] = 0;
}

static void key_keyframe(mr_viewer *v, int delta) {
  int n = v->m->nkey;
  if (n == 0) {
    mr_viewer_message(v, 0, "the model has no keyframes");
    return;
  }
  /* -1 (qpos0) is part of the cycle. */
  v->keyframe = (v->keyframe + 1 + delta + (n + 1)) % (n + 1) - 1;
  if (v->keyframe < 0) mr_viewer_message(v, 0, "reset to qpos0");
  mr_viewer_reset(v);
}

static void key_solver(mr_viewer *v, int index) {
  v->d->opt.solver = index;
  mr_plot_history_mark(v->plots, mr_solver_name(index));
  /* restitution is a run setting; a solver whose model has none says so instead of
   * silently ignoring it */
  if (v->d->opt.restitution > 0 && mr_solver_no_restitution(index))
    mr_viewer_message(v, 0, "solver %s: no restitution in its model, --restitution %g ignored",
                      mr_solver_name(index), v->d->opt.restitution);
  else
    mr_viewer_message(v, 0, "solver %s", mr_solver_name(index));
}

static void key_integrator(mr_viewer *v) {
  int midpoint = v->d->opt.integrator != MR_INT_MIDPOINT;
  v->d->opt.integrator = midpoint ? MR_INT_MIDPOINT : MR_INT_EULER;
  mr_plot_history_mark(v->plots, midpoint ? "midpoint" : "euler");
  mr_viewer_message(v, 0, "integrator %s", midpoint ? "midpoint" : "euler");
}

static void key_speed(mr_viewer *v, double factor) {
  v->speed = fmax(1.0 / 64, fmin(16, v->speed * factor));
  mr_viewer_message(v, 0, "speed x%g", v->speed);
}

static void key_overlay(mr_viewer *v, int flag, const char *what) {
  v->overlay_flags ^= flag;
  mr_viewer_message(v, 0, "%s %s", what, v->overlay_flags & flag ? "on" : "off");
}

static void key_camera_next(mr_viewer *v) {
  int n = v->m->ncam;
  v->camera.fixed = v->camera.fixed + 1 >= n ? -1 : v->camera.fixed + 1;
  if (v->camera.fixed < 0) mr_viewer_message(v, 0, "free camera");
  else mr_viewer_message(v, 0, "camera %d %s", v->camera.fixed, mr_id2name(v->m, MR_OBJ_CAMERA, v->camera.fixed));
}

static void key_track(mr_viewer *v) {
  if (v->camera.track_body > 0 || v->selected_body <= 0) {
    v->camera.track_body = 0;
    mr_viewer_message(v, 0, "tracking off");
    return;
  }
  v->camera.fixed = -1;
  v->camera.track_body = v->selected_body;
  memcpy(v->camera.track_prev, v->d->xipos + 3 * v->selected_body, 3 * sizeof(double));
  mr_viewer_message(v, 0, "tracking body %d", v->selected_body);
}

static void key_step(mr_viewer *v, int delta) {
  if (v->replaying) {
    mr_viewer_replay_seek(v, v->replay_row + delta);
    return;
  }
  if (delta > 0 && v->paused) mr_viewer_step(v);
}

static void key_pause(mr_viewer *v) {
  if (v->replaying && v->paused && v->replay_row + 1 >= v->replay.nrows) mr_viewer_replay_seek(v, 0);
  v->paused = !v->paused;
  v->sim_lag = 0;
}

static int key_solver_hotkey(mr_viewer *v, int key) {
  for (int i = 0; i < mr_solver_count(); i++) {
    char h = mr_solver_hotkey(i);
    if (h && toupper((unsigned char)h) == key) {
      key_solver(v, i);
      return 1;
    }
  }
  return 0;
}

/* Keys with ctrl held. */
static void key_with_ctrl(mr_viewer *v, int key) {
  if (key == GLFW_KEY_L) {
    if (mr_viewer_load(v, v->model_path, 1) == 0) mr_viewer_message(v, 0, "reloaded %s", v->model_path);
  } else if (key == GLFW_KEY_Q) {
    v->quit = 1;
  }
}

static int key_display(mr_viewer *v, int key) {
  switch (key) {
    case GLFW_KEY_P: v->show_plots = !v->show_plots; return 1;
    case GLFW_KEY_C: key_overlay(v, MR_OVERLAY_CONTACTS, "contacts"); return 1;
    case GLFW_KEY_F: key_overlay(v, MR_OVERLAY_FORCES, "contact forces"); return 1;
    case GLFW_KEY_K: key_overlay(v, MR_OVERLAY_CONES, "friction cones"); return 1;
    case GLFW_KEY_B: key_overlay(v, MR_OVERLAY_FRAMES, "body frames"); return 1;
    case GLFW_KEY_J: key_overlay(v, MR_OVERLAY_JOINTS, "joint axes"); return 1;
    case GLFW_KEY_M: key_overlay(v, MR_OVERLAY_COM, "centres of mass"); return 1;
    case GLFW_KEY_V: key_overlay(v, MR_OVERLAY_HULLS, "convex hulls"); return 1;
    case GLFW_KEY_G: key_overlay(v, MR_OVERLAY_GRID, "grid"); return 1;
    case GLFW_KEY_U: key_overlay(v, MR_OVERLAY_TENDONS, "tendons"); return 1;
    case GLFW_KEY_O:
      v->show_collision = !v->show_collision;
      mr_scene_set_visibility(&v->scene, v->m, v->show_collision);
      mr_viewer_message(v, 0, "%s geoms", v->show_collision ? "collision" : "visual");
      return 1;
    case GLFW_KEY_H:
    case GLFW_KEY_F1: v->show_help = !v->show_help; return 1;
    case GLFW_KEY_ESCAPE:
      if (v->show_help) v->show_help = 0;
      else v->selected_body = 0, v->perturbing = 0, mr_scene_set_highlight(&v->scene, v->m, 0);
      return 1;
    default: return 0;
  }
}

void mr_viewer_key(mr_viewer *v, int key, int mods) {
  if (mods & GLFW_MOD_CONTROL) {
    key_with_ctrl(v, key);
    return;
  }
  if (mr_sensor_menu_key(v, key)) return;
  if (key == GLFW_KEY_N) {
    mr_sensor_plot_cycle(v, mods & GLFW_MOD_SHIFT ? -1 : 1);
    return;
  }
  if (key == GLFW_KEY_E) {
    mr_sensor_menu_toggle(v);
    return;
  }
  if (key_display(v, key)) return;
  switch (key) {
    case GLFW_KEY_SPACE: key_pause(v); break;
    case GLFW_KEY_RIGHT: key_step(v, 1); break;
    case GLFW_KEY_LEFT: key_step(v, -1); break;
    case GLFW_KEY_HOME: if (v->replaying) mr_viewer_replay_seek(v, 0); break;
    case GLFW_KEY_END: if (v->replaying) mr_viewer_replay_seek(v, v->replay.nrows - 1); break;
    case GLFW_KEY_BACKSPACE: mr_viewer_reset(v); break;
    case GLFW_KEY_LEFT_BRACKET: key_keyframe(v, -1); break;
    case GLFW_KEY_RIGHT_BRACKET: key_keyframe(v, 1); break;
    case GLFW_KEY_MINUS: case GLFW_KEY_KP_SUBTRACT: key_speed(v, 0.5); break;
    case GLFW_KEY_EQUAL: case GLFW_KEY_KP_ADD: key_speed(v, 2); break;
    case GLFW_KEY_I: key_integrator(v); break;
    case GLFW_KEY_T: key_track(v); break;
    case GLFW_KEY_TAB: key_camera_next(v); break;
    case GLFW_KEY_A: mr_camera_frame_model(&v->camera, v->m, v->d); break;
    case GLFW_KEY_R: mr_viewer_toggle_record(v); break;
    case GLFW_KEY_S: mr_viewer_save_screenshot(v); break;
    default: key_solver_hotkey(v, key); break;
  }
}

static const struct {
  const char *name;
  int key;
} KEY_NAMES[] = {
    {"space", GLFW_KEY_SPACE},       {"right", GLFW_KEY_RIGHT},   {"left", GLFW_KEY_LEFT},
    {"up", GLFW_KEY_UP},             {"down", GLFW_KEY_DOWN},     {"home", GLFW_KEY_HOME},
    {"end", GLFW_KEY_END},           {"backspace", GLFW_KEY_BACKSPACE}, {"tab", GLFW_KEY_TAB},
    {"esc", GLFW_KEY_ESCAPE},        {"escape", GLFW_KEY_ESCAPE}, {"enter", GLFW_KEY_ENTER},
    {"f1", GLFW_KEY_F1},             {"minus", GLFW_KEY_MINUS},   {"plus", GLFW_KEY_EQUAL},
    {"equal", GLFW_KEY_EQUAL},
};

int mr_viewer_key_from_name(const char *name, int *mods) {
  *mods = 0;
  while (strncasecmp(name, "ctrl+", 5) == 0 || strncasecmp(name, "shift+", 6) == 0) {
    if (tolower((unsigned char)name[0]) == 'c') *mods |= GLFW_MOD_CONTROL, name += 5;
    else *mods |= GLFW_MOD_SHIFT, name += 6;
  }
  for (size_t i = 0; i < sizeof KEY_NAMES / sizeof KEY_NAMES[0]; i++)
    if (strcasecmp(name, KEY_NAMES[i].name) == 0) return KEY_NAMES[i].key;
  if (strlen(name) != 1) return -1;
  int c = toupper((unsigned char)name[0]);
  if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return c; /* GLFW codes are ASCII */
  switch (c) {
    case '[': return GLFW_KEY_LEFT_BRACKET;
    case ']': return GLFW_KEY_RIGHT_BRACKET;
    case '-': return GLFW_KEY_MINUS;
    case '=': return GLFW_KEY_EQUAL;
    case ' ': return GLFW_KEY_SPACE;
    default: return -1;
  }
}
