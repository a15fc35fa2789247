/* The viewer's input handling (issue 5), in-process: a hidden window under Xvfb, keys and
 * mouse events injected through mr_viewer_key / mr_viewer_mouse_*, the functions the GLFW
 * callbacks call. Solver hotkeys, pause, single step, reset, keyframes, speed, integrator,
 * recording, reload, file drop, selection and the perturbation spring. */
#include <dirent.h>
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_test.h"
#include "engine/record/recording.h"
#include "render/viewer.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"
#define BALLS MOREAU_SOURCE_DIR "/models/balls_in_box.xml"

static void frames(mr_viewer *v, int n) {
  for (int i = 0; i < n; i++) {
    mr_viewer_advance(v, 1.0 / 60.0, 0);
    mr_viewer_render(v);
  }
}

static mr_viewer *open_viewer(const char *path) {
  mr_viewer_config c = {0};
  c.model_path = path;
  c.width = 320;
  c.height = 240;
  c.visible = 0;
  char err[1024];
  int status = 0;
  mr_viewer *v = mr_viewer_create(&c, err, (int)sizeof err, &status);
  if (!v) fprintf(stderr, "cannot open the viewer (%d): %s\n", status, err);
  return v;
}

static void test_solvers_and_integrator(mr_viewer *v) {
  for (int i = 0; i < mr_solver_count(); i++) {
    char h = mr_solver_hotkey(i);
    MR_REQUIRE(h >= '0' && h <= '9');
    mr_viewer_key(v, GLFW_KEY_0 + (h - '0'), 0);
    MR_CHECK_MSG(v->d->opt.solver == i, "hotkey %c chose %d, not %d", h, v->d->opt.solver, i);
    frames(v, 1); /* the chosen solver steps */
    MR_CHECK(isfinite(v->d->qpos[2]));
  }
  /* a solver whose model has no restitution says so when chosen with restitution set */
  v->d->opt.restitution = 0.5;
  for (int i = 0; i < mr_solver_count(); i++) {
    mr_viewer_key(v, GLFW_KEY_0 + (mr_solver_hotkey(i) - '0'), 0);
    int notice = strstr(v->message, "restitution") != NULL;
    MR_CHECK_MSG(notice == (mr_solver_no_restitution(i) != NULL), "%s: message \"%s\"",
                 mr_solver_name(i), v->message);
  }
  v->d->opt.restitution = 0;
  mr_viewer_key(v, GLFW_KEY_1, 0);
  int integrator = v->d->opt.integrator;
  mr_viewer_key(v, GLFW_KEY_I, 0);
  MR_CHECK(v->d->opt.integrator != integrator);
  MR_CHECK(v->d->opt.integrator == MR_INT_MIDPOINT || v->d->opt.integrator == MR_INT_EULER);
  frames(v, 1);
  mr_viewer_key(v, GLFW_KEY_I, 0);
  MR_CHECK(v->d->opt.integrator == integrator);
}

static void test_clock(mr_viewer *v) {
  mr_viewer_key(v, GLFW_KEY_BACKSPACE, 0);
  MR_CHECK(v->d->time == 0);
  double dt = v->d->opt.timestep;
  frames(v, 30);
  MR_CHECK_NEAR(v->d->time, 0.5, dt); /* 1/60 s of simulated time per frame */
  MR_CHECK(mr_plot_history_count(v->plots) == (int)v->d->nstep);
  int moved = 0;
  for (int i = 0; i < v->m->nq; i++) moved |= v->d->qpos[i] != v->m->qpos0[i];
  MR_CHECK(moved);
  /* Space pauses: time stands still over frames; right arrow steps once. */
  mr_viewer_key(v, GLFW_KEY_SPACE, 0);
  MR_CHECK(v->paused);
  double t = v->d->time;
  frames(v, 20);
  MR_CHECK(v->d->time == t);
  mr_viewer_key(v, GLFW_KEY_RIGHT, 0);
  MR_CHECK_NEAR(v->d->time, t + dt, 1e-12);
  /* Backspace restores qpos0 and time 0. */
  mr_viewer_key(v, GLFW_KEY_BACKSPACE, 0);
  MR_CHECK(v->d->time == 0);
  int same = 1;
  for (int i = 0; i < v->m->nq; i++) same &= v->d->qpos[i] == v->m->qpos0[i];
  for (int i = 0; i < v->m->nv; i++) same &= v->d->qvel[i] == 0;
  MR_CHECK(same);
  MR_CHECK(mr_plot_history_count(v->plots) == 0);
  mr_viewer_key(v, GLFW_KEY_SPACE, 0);
  MR_CHECK(!v->paused);
  /* Speed: half as fast, then back. */
  mr_viewer_key(v, GLFW_KEY_MINUS, 0);
  frames(v, 30);
  MR_CHECK_NEAR(v->d->time, 0.25, dt);
  mr_viewer_key(v, GLFW_KEY_EQUAL, 0);
  MR_CHECK(v->speed == 1);
}

static void test_keyframes(mr_viewer *v) {
  if (v->m->nkey == 0) return;
  mr_viewer_key(v, GLFW_KEY_RIGHT_BRACKET, 0);
  MR_CHECK(v->keyframe == 0);
  int same = 1;
  for (int i = 0; i < v->m->nq; i++) same &= v->d->qpos[i] == v->m->key_qpos[i];
  MR_CHECK(same);
  mr_viewer_key(v, GLFW_KEY_LEFT_BRACKET, 0); /* back to qpos0 */
  MR_CHECK(v->keyframe == -1);
  MR_CHECK(v->d->qpos[2] == v->m->qpos0[2]);
}

static int find_recording(const char *dir, const char *prefix, char *out, size_t outlen) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int found = 0;
  while ((e = readdir(d)))
    if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strstr(e->d_name, ".csv") &&
        !strstr(e->d_name, ".part")) {
      snprintf(out, outlen, "%s/%s", dir, e->d_name);
      found = 1;
    }
  closedir(d);
  return found;
}

static void test_recording(mr_viewer *v, const char *dir) {
  mr_viewer_key(v, GLFW_KEY_BACKSPACE, 0);
  long before = v->d->nstep;
  mr_viewer_key(v, GLFW_KEY_R, 0);
  MR_REQUIRE(v->recorder != NULL);
  frames(v, 12);
  long steps = v->d->nstep - before;
  mr_viewer_key(v, GLFW_KEY_R, 0);
  MR_CHECK(v->recorder == NULL);
  char path[1024];
  MR_REQUIRE(find_recording(dir, "humanoid-", path, sizeof path));
  mr_recording r;
  char err[512];
  MR_REQUIRE(mr_recording_load(path, v->m, &r, err, (int)sizeof err) == 0);
  MR_CHECK_MSG(r.nrows == steps + 1, "%ld rows for %ld steps", r.nrows, steps);
  MR_CHECK(r.nq == v->m->nq && r.nv == v->m->nv);
  MR_CHECK(r.time[0] == 0);
  MR_CHECK_NEAR(r.time[r.nrows - 1], v->d->time, 1e-12);
  MR_CHECK(r.qpos[(r.nrows - 1) * r.nq + 2] == v->d->qpos[2]);
  mr_recording_free(&r);
}

static void test_selection_and_spring(mr_viewer *v) {
  mr_viewer_key(v, GLFW_KEY_BACKSPACE, 0);
  mr_viewer_key(v, GLFW_KEY_SPACE, 0); /* paused: the humanoid stays framed */
  frames(v, 1);
  /* Double click on the torso: its com projected to window pixels. */
  float view[16], proj[16], vp[16];
  mr_camera_matrices(&v->camera, v->m, v->d, 320.0 / 240.0, view, proj);
  mr_mat4_mul(vp, proj, view);
  const double *p = v->d->xipos + 3;
  double clip[4];
  for (int r = 0; r < 4; r++) clip[r] = vp[r] * p[0] + vp[4 + r] * p[1] + vp[8 + r] * p[2] + vp[12 + r];
  double px = (clip[0] / clip[3] * 0.5 + 0.5) * 320, py = (0.5 - clip[1] / clip[3] * 0.5) * 240;
  mr_viewer_mouse_move(v, px, py);
  for (int i = 0; i < 2; i++) {
    mr_viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, 1, 0);
    mr_viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, 0, 0);
  }
  MR_CHECK_MSG(v->selected_body > 0, "selected body %d", v->selected_body);
  if (v->selected_body <= 0) return;
  int b = v->selected_body;
  mr_viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, 1, GLFW_MOD_CONTROL);
  MR_CHECK(v->perturbing);
  mr_viewer_mouse_move(v, px, py - 60); /* pull upwards */
  MR_CHECK(v->perturb_target[2] > v->d->xpos[3 * b + 2]);
  mr_viewer_key(v, GLFW_KEY_RIGHT, 0); /* one step with the spring */
  MR_CHECK(v->d->xfrc_applied[6 * b + 2] > 0);
  mr_viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, 0, GLFW_MOD_CONTROL);
  MR_CHECK(!v->perturbing);
  MR_CHECK(v->d->xfrc_applied[6 * b + 2] == 0);
  mr_viewer_key(v, GLFW_KEY_SPACE, 0);
}

static void test_reload_and_drop(mr_viewer *v, const char *dir) {
  v->camera.distance = 7.25;
  const mr_model *before = v->m;
  mr_viewer_key(v, GLFW_KEY_L, GLFW_MOD_CONTROL);
  MR_CHECK(v->m != before);
  MR_CHECK(v->camera.distance == 7.25);
  MR_CHECK(v->d->time == 0);
  /* A file that does not load: the one-line error is shown, the model stays. */
  char bad[1024];
  snprintf(bad, sizeof bad, "%s/bad.xml", dir);
  FILE *f = fopen(bad, "w");
  MR_REQUIRE(f != NULL);
  fputs("<mujoco><worldbody><geom type='sphere'", f);
  fclose(f);
  const mr_model *kept = v->m;
  mr_viewer_drop(v, bad);
  MR_CHECK(v->m == kept);
  MR_CHECK(v->message_is_error && strstr(v->message, "bad.xml") && !strchr(v->message, '\n'));
  frames(v, 2); /* draws with the error shown */
  mr_viewer_drop(v, BALLS);
  MR_CHECK(v->m != kept && v->m->ngeom > 5);
  MR_CHECK(strcmp(v->model_path, BALLS) == 0);
  frames(v, 5);
  MR_CHECK(v->d->time > 0);
}

static void test_toggles(mr_viewer *v) {
  int plots = v->show_plots, help = v->show_help, flags = v->overlay_flags;
  mr_viewer_key(v, GLFW_KEY_P, 0);
  mr_viewer_key(v, GLFW_KEY_H, 0);
  mr_viewer_key(v, GLFW_KEY_C, 0);
  mr_viewer_key(v, GLFW_KEY_F, 0);
  mr_viewer_key(v, GLFW_KEY_K, 0);
  mr_viewer_key(v, GLFW_KEY_B, 0);
  mr_viewer_key(v, GLFW_KEY_J, 0);
  mr_viewer_key(v, GLFW_KEY_M, 0);
  MR_CHECK(v->show_plots != plots && v->show_help != help);
  MR_CHECK((v->overlay_flags ^ flags) == (MR_OVERLAY_CONTACTS | MR_OVERLAY_FORCES | MR_OVERLAY_CONES |
                                          MR_OVERLAY_FRAMES | MR_OVERLAY_JOINTS | MR_OVERLAY_COM));
  frames(v, 3); /* every overlay, the plots and the help drawn at once */
  mr_viewer_key(v, GLFW_KEY_F1, 0);
  MR_CHECK(v->show_help == help);
  mr_viewer_resize(v, 0, 0); /* minimized: frames go on without drawing */
  frames(v, 2);
  mr_viewer_resize(v, 320, 240);
}

static void test_key_names(void) {
  int mods;
  MR_CHECK(mr_viewer_key_from_name("space", &mods) == GLFW_KEY_SPACE && mods == 0);
  MR_CHECK(mr_viewer_key_from_name("3", &mods) == GLFW_KEY_3);
  MR_CHECK(mr_viewer_key_from_name("r", &mods) == GLFW_KEY_R);
  MR_CHECK(mr_viewer_key_from_name("ctrl+L", &mods) == GLFW_KEY_L && mods == GLFW_MOD_CONTROL);
  MR_CHECK(mr_viewer_key_from_name("]", &mods) == GLFW_KEY_RIGHT_BRACKET);
  MR_CHECK(mr_viewer_key_from_name("F1", &mods) == GLFW_KEY_F1);
  MR_CHECK(mr_viewer_key_from_name("nosuchkey", &mods) == -1);
}

int main(void) {
  char dir[256];
  mr_test_tmpdir(dir, sizeof dir, "view_keys");
  MR_REQUIRE(chdir(dir) == 0); /* recordings land in the current directory */
  test_key_names();
  mr_viewer *v = open_viewer(HUMANOID);
  MR_REQUIRE(v != NULL);
  test_solvers_and_integrator(v);
  test_clock(v);
  test_keyframes(v);
  test_recording(v, dir);
  test_selection_and_spring(v);
  test_toggles(v);
  test_reload_and_drop(v, dir);
  mr_viewer_free(v);
  mr_test_rmdir(dir);
  MR_TEST_END();
}
