/* GLFW window, OpenGL context via glad, and input callbacks. */
#include "window.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include "glfw_api.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char glfw_last_error[256];

static void on_glfw_error(int code, const char *text) {
  (void)code;
  snprintf(glfw_last_error, sizeof glfw_last_error, "%s", text ? text : "unknown error");
}

static mr_viewer *viewer_of(GLFWwindow *w) { return (mr_viewer *)glfwGetWindowUserPointer(w); }

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
  (void)scancode;
  if (action == GLFW_PRESS || action == GLFW_REPEAT) mr_viewer_key(viewer_of(w), key, mods);
}

static void on_mouse_button(GLFWwindow *w, int button, int action, int mods) {
  mr_viewer_mouse_button(viewer_of(w), button, action == GLFW_PRESS, mods);
}

static void on_cursor(GLFWwindow *w, double x, double y) { mr_viewer_mouse_move(viewer_of(w), x, y); }

static void on_scroll(GLFWwindow *w, double dx, double dy) {
  (void)dx;
  mr_viewer_scroll(viewer_of(w), dy);
}

static void on_drop(GLFWwindow *w, int count, const char **paths) {
  if (count > 0) mr_viewer_drop(viewer_of(w), paths[count - 1]);
}

static void on_framebuffer(GLFWwindow *w, int width, int height) {
  mr_viewer_resize(viewer_of(w), width, height);
}

/* Offscreen target of hidden windows; 0 for visible ones. */
static GLuint offscreen_fbo, offscreen_color, offscreen_depth;

static int offscreen_create(int width, int height, char *err, int errlen) {
  glGenFramebuffers(1, &offscreen_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, offscreen_fbo);
  glGenRenderbuffers(1, &offscreen_color);
  glBindRenderbuffer(GL_RENDERBUFFER, offscreen_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, offscreen_color);
  glGenRenderbuffers(1, &offscreen_depth);
  glBindRenderbuffer(GL_RENDERBUFFER, offscreen_depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, offscreen_depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    snprintf(err, (size_t)errlen, "cannot render offscreen: a %dx%d framebuffer is not supported",
             width, height);
    return -1;
  }
  return 0;
}

static void offscreen_free(void) {
  if (offscreen_fbo) glDeleteFramebuffers(1, &offscreen_fbo);
  if (offscreen_color) glDeleteRenderbuffers(1, &offscreen_color);
  if (offscreen_depth) glDeleteRenderbuffers(1, &offscreen_depth);
  offscreen_fbo = offscreen_color = offscreen_depth = 0;
}

static void window_callbacks(GLFWwindow *w) {
  glfwSetKeyCallback(w, on_key);
  glfwSetMouseButtonCallback(w, on_mouse_button);
  glfwSetCursorPosCallback(w, on_cursor);
  glfwSetScrollCallback(w, on_scroll);
  glfwSetDropCallback(w, on_drop);
  glfwSetFramebufferSizeCallback(w, on_framebuffer);
}

static int window_fail(char *err, int errlen, int *status, const char *what) {
  snprintf(err, (size_t)errlen, "cannot open a window: %s", what);
  *status = 1;
  return -1;
}

int mr_window_open(mr_viewer *v, int width, int height, int visible, char *err, int errlen,
                   int *status) {
  const char *display = getenv("DISPLAY"), *wayland = getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland))
    return window_fail(err, errlen, status, "no display (set DISPLAY or run under xvfb-run)");
  char why[400];
  if (mr_glfw_load(why, (int)sizeof why)) return window_fail(err, errlen, status, why);
  glfwSetErrorCallback(on_glfw_error);
  glfw_last_error[0] = 0;
  if (!glfwInit()) return window_fail(err, errlen, status, glfw_last_error[0] ? glfw_last_error : "GLFW cannot start");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SAMPLES, visible ? 4 : 0);
  GLFWwindow *w = glfwCreateWindow(width, height, "Moreau", NULL, NULL);
  if (!w) {
    char what[400];
    snprintf(what, sizeof what, "an OpenGL 3.3 core profile context is not available (%s)",
             glfw_last_error[0] ? glfw_last_error : "no reason given");
    glfwTerminate();
    return window_fail(err, errlen, status, what);
  }
  glfwMakeContextCurrent(w);
  int version = gladLoadGL((GLADloadfunc)glfwGetProcAddress);
  if (!version || !GLAD_GL_VERSION_3_3) {
    glfwDestroyWindow(w);
    glfwTerminate();
    return window_fail(err, errlen, status, "OpenGL 3.3 is missing (the driver offers less)");
  }
  v->window = w;
  glfwSetWindowUserPointer(w, v);
  glfwSwapInterval(visible ? 1 : 0);
  if (!visible) {
    if (offscreen_create(width, height, err, errlen)) {
      *status = 1;
      mr_window_close(v);
      return -1;
    }
    v->fb_width = width, v->fb_height = height;
  } else {
    glfwGetFramebufferSize(w, &v->fb_width, &v->fb_height);
    window_callbacks(w);
  }
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(w, &sx, &sy);
  v->ui_scale = visible && sx > 0 ? sx : 1;
  return 0;
}

void mr_window_close(mr_viewer *v) {
  if (!v->window) return;
  offscreen_free();
  glfwDestroyWindow(v->window);
  v->window = NULL;
  glfwTerminate();
}

void mr_window_bind_target(mr_viewer *v) {
  (void)v;
  glBindFramebuffer(GL_FRAMEBUFFER, offscreen_fbo);
}

void mr_window_present(mr_viewer *v) {
  if (!offscreen_fbo) glfwSwapBuffers(v->window);
  glfwPollEvents();
}

double mr_window_time(void) { return glfwGetTime(); }

int mr_window_should_close(mr_viewer *v) { return glfwWindowShouldClose(v->window) || v->quit; }
