/* The GLFW window and its OpenGL 3.3 core context, and the callbacks that turn GLFW events
 * into viewer input. A hidden window renders into an offscreen framebuffer of the asked
 * size, so scripted screenshots do not depend on the screen's size or on a window manager. */
#ifndef MR_RENDER_WINDOW_H
#define MR_RENDER_WINDOW_H

#include "viewer.h"

/* Opens v's window with a current context. 0, or -1 with one line in err and *status 1. */
int mr_window_open(mr_viewer *v, int width, int height, int visible, char *err, int errlen,
                   int *status);
void mr_window_close(mr_viewer *v);

/* Binds the framebuffer frames are drawn into (the offscreen one for hidden windows). */
void mr_window_bind_target(mr_viewer *v);

/* Shows the frame (visible windows) and handles pending events. */
void mr_window_present(mr_viewer *v);

double mr_window_time(void);
int mr_window_should_close(mr_viewer *v);

#endif
