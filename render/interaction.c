/* Mouse: orbit, pan and zoom the camera; double-click to select a body; ctrl+drag to pull
 * the selected body with a spring, as MuJoCo's simulate does. */
#define GLFW_INCLUDE_NONE
#include "glfw_api.h"
#include <glad/gl.h>
#include <math.h>
#include <string.h>

#include "engine/core/mr_math.h"
#include "sensor_menu.h"
#include "viewer.h"
#include "window.h"

static const double DOUBLE_CLICK_SECONDS = 0.35;
/* The spring pulls the selected subtree like a 2 Hz critically damped oscillator,
 * whatever its mass. */
static const double SPRING_OMEGA = 2 * MR_PI * 2.0;

/* Window coordinates to framebuffer pixels from the bottom-left. */
static void window_to_pixel(const mr_viewer *v, double x, double y, int *px, int *py) {
  int ww = v->fb_width, wh = v->fb_height;
  if (v->config.visible) glfwGetWindowSize(v->window, &ww, &wh);
  double sx = ww > 0 ? (double)v->fb_width / ww : 1, sy = wh > 0 ? (double)v->fb_height / wh : 1;
  *px = (int)(x * sx);
  *py = v->fb_height - 1 - (int)(y * sy);
}

/* The geom under window point (x, y) and the world point hit there; -1 if none. */
static int viewer_pick(mr_viewer *v, double x, double y, double point[3]) {
  if (v->fb_width <= 0 || v->fb_height <= 0) return -1;
  int px, py;
  window_to_pixel(v, x, y, &px, &py);
  int sw = mr_viewer_scene_width(v);
  if (px < 0 || py < 0 || px >= sw || py >= v->fb_height) return -1;
  float view[16], proj[16], viewproj[16];
  mr_kinematics(v->m, v->d);
  mr_camera_matrices(&v->camera, v->m, v->d, (double)sw / v->fb_height, view, proj);
  mr_mat4_mul(viewproj, proj, view);
  mr_window_bind_target(v);
  glViewport(0, 0, sw, v->fb_height);
  float depth = 1;
  int g = mr_scene_pick(&v->scene, v->d, viewproj, px, py, &depth);
  if (g < 0 || depth >= 1) return -1;
  /* Depth buffer value to distance along the view axis, from the projection matrix. */
  double zndc = 2.0 * depth - 1.0, along = proj[14] / (zndc + proj[10]);
  double eye[3], dir[3], right[3], up[3], back[3];
  mr_camera_ray(&v->camera, v->m, v->d, sw, v->fb_height, px + 0.5,
                v->fb_height - py - 0.5, eye, dir);
  mr_camera_pose(&v->camera, v->m, v->d, eye, right, up, back);
  double cosine = -mr_dot3(dir, back);
  for (int k = 0; k < 3; k++) point[k] = eye[k] + dir[k] * along / (cosine > 1e-6 ? cosine : 1e-6);
  return g;
}

static void viewer_select(mr_viewer *v, double x, double y) {
  double point[3];
  int g = viewer_pick(v, x, y, point);
  int body = g >= 0 ? v->m->geom_bodyid[g] : 0;
  v->selected_body = body;
  mr_scene_set_highlight(&v->scene, v->m, body);
  if (body > 0) {
    const char *name = mr_id2name(v->m, MR_OBJ_BODY, body);
    mr_viewer_message(v, 0, "selected body %d %s (ctrl+drag pulls it, T tracks it)", body,
                      name ? name : "");
  }
}

/* Starts a pull at the point of the selected body under the cursor, or at its com. */
static void perturb_start(mr_viewer *v) {
  int b = v->selected_body;
  if (b <= 0 || v->replaying) return;
  double point[3];
  int g = viewer_pick(v, v->mouse_x, v->mouse_y, point);
  if (g < 0 || v->m->geom_bodyid[g] != b) mr_copy3(point, v->d->xipos + 3 * b);
  double rel[3];
  mr_sub3(rel, point, v->d->xpos + 3 * b);
  mr_mulmatT3(v->perturb_local, v->d->xmat + 9 * b, rel);
  mr_copy3(v->perturb_target, point);
  mr_copy3(v->perturb_anchor, point);
  double eye[3], right[3], up[3], back[3], to[3];
  mr_camera_pose(&v->camera, v->m, v->d, eye, right, up, back);
  mr_sub3(to, point, eye);
  v->perturb_depth = -mr_dot3(to, back);
  v->perturbing = 1;
}

static void perturb_stop(mr_viewer *v) {
  if (v->perturbing && v->selected_body > 0 && v->selected_body < v->m->nbody)
    memset(v->d->xfrc_applied + 6 * v->selected_body, 0, 6 * sizeof(double));
  v->perturbing = 0;
}

/* The target follows the cursor on the plane facing the camera through the grab point. */
static void perturb_move(mr_viewer *v) {
  double eye[3], dir[3], right[3], up[3], back[3];
  int ww = v->fb_width, wh = v->fb_height;
  if (v->config.visible) glfwGetWindowSize(v->window, &ww, &wh);
  double scene_ww = v->fb_width > 0 ? (double)ww * mr_viewer_scene_width(v) / v->fb_width : ww;
  mr_camera_ray(&v->camera, v->m, v->d, (int)scene_ww, wh, v->mouse_x, v->mouse_y, eye, dir);
  mr_camera_pose(&v->camera, v->m, v->d, eye, right, up, back);
  double cosine = -mr_dot3(dir, back);
  if (cosine < 1e-6) return;
  for (int k = 0; k < 3; k++) v->perturb_target[k] = eye[k] + dir[k] * v->perturb_depth / cosine;
}

static void anchor_world(const mr_viewer *v, double p[3]) {
  int b = v->selected_body;
  mr_mulmat3(p, v->d->xmat + 9 * b, v->perturb_local);
  mr_add3(p, p, v->d->xpos + 3 * b);
}

int mr_viewer_spring(const mr_viewer *v, double spring[6]) {
  if (!v->perturbing || v->selected_body <= 0 || v->selected_body >= v->m->nbody) return 0;
  anchor_world(v, spring);
  mr_copy3(spring + 3, v->perturb_target);
  return 1;
}

void mr_viewer_apply_perturbation(mr_viewer *v) {
  int b = v->selected_body;
  if (!v->perturbing || b <= 0 || b >= v->m->nbody) return;
  double anchor[3], vel[3], stretch[3], force[3], arm[3], torque[3];
  anchor_world(v, anchor);
  double dt = v->d->opt.timestep;
  mr_sub3(vel, anchor, v->perturb_anchor);
  mr_scale3(vel, vel, 1.0 / dt);
  mr_copy3(v->perturb_anchor, anchor);
  mr_sub3(stretch, v->perturb_target, anchor);
  double mass = v->m->body_subtreemass[b] > 0 ? v->m->body_subtreemass[b] : 1;
  for (int k = 0; k < 3; k++)
    force[k] = mass * (SPRING_OMEGA * SPRING_OMEGA * stretch[k] - 2 * SPRING_OMEGA * vel[k]);
  mr_sub3(arm, anchor, v->d->xipos + 3 * b);
  mr_cross3(torque, arm, force);
  double *x = v->d->xfrc_applied + 6 * b;
  mr_copy3(x, force);
  mr_copy3(x + 3, torque);
}

void mr_viewer_mouse_button(mr_viewer *v, int button, int press, int mods) {
  v->mods = mods;
  int *state = button == GLFW_MOUSE_BUTTON_LEFT ? &v->button_left
               : button == GLFW_MOUSE_BUTTON_RIGHT ? &v->button_right : &v->button_middle;
  *state = press;
  if (!press) {
    if (!v->button_left && !v->button_right) perturb_stop(v);
    return;
  }
  if (mods & GLFW_MOD_CONTROL) {
    if (button != GLFW_MOUSE_BUTTON_MIDDLE) perturb_start(v);
    return;
  }
  if (button != GLFW_MOUSE_BUTTON_LEFT) return;
  if (mr_sensor_menu_click(v, v->mouse_x, v->mouse_y)) return;
  double now = mr_window_time();
  if (now - v->last_click_time < DOUBLE_CLICK_SECONDS) {
    viewer_select(v, v->mouse_x, v->mouse_y);
    v->last_click_time = 0;
  } else {
    v->last_click_time = now;
  }
}

void mr_viewer_mouse_move(mr_viewer *v, double x, double y) {
  int ww = v->fb_width, wh = v->fb_height;
  if (v->config.visible && v->window) glfwGetWindowSize(v->window, &ww, &wh);
  double h = wh > 0 ? wh : 1;
  double dx = (x - v->mouse_x) / h, dy = (y - v->mouse_y) / h;
  v->mouse_x = x, v->mouse_y = y;
  if (v->perturbing) {
    perturb_move(v);
    return;
  }
  if (v->button_left) mr_camera_orbit(&v->camera, dx, dy);
  else if (v->button_right) mr_camera_pan(&v->camera, dx, dy);
  else if (v->button_middle) mr_camera_zoom(&v->camera, -4 * dy);
  if ((v->button_left || v->button_right || v->button_middle) && v->camera.fixed >= 0) {
    v->camera.fixed = -1; /* moving the view leaves a model camera for the free one */
  }
}

void mr_viewer_scroll(mr_viewer *v, double dy) { mr_camera_zoom(&v->camera, 0.15 * dy); }

void mr_viewer_drop(mr_viewer *v, const char *path) { mr_viewer_load(v, path, 0); }
