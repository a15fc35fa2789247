/* libglfw, loaded when a window is first opened rather than when the process starts
 * (engine/core/lazy_lib.h says why: GLFW brings the X11 client libraries, a fifth of the
 * time every moreau command took to start, though only `view` opens a window). The
 * viewer's files include this header instead of <GLFW/glfw3.h>: it includes that for the
 * types and constants, then turns every function they call into an entry of one table,
 * which mr_glfw_load fills with dlopen and dlsym. As with h5_api.h, a function called but
 * not listed is an undefined symbol at link time (moreau does not link libglfw). */
#ifndef MR_GLFW_API_H
#define MR_GLFW_API_H

#include <GLFW/glfw3.h>

#define MR_GLFW_FUNCTIONS(X)                                                                   \
  X(glfwCreateWindow) X(glfwDestroyWindow) X(glfwGetFramebufferSize) X(glfwGetProcAddress)  \
  X(glfwGetTime) X(glfwGetWindowContentScale) X(glfwGetWindowSize)                          \
  X(glfwGetWindowUserPointer) X(glfwInit) X(glfwMakeContextCurrent) X(glfwPollEvents)       \
  X(glfwSetCursorPosCallback) X(glfwSetDropCallback) X(glfwSetErrorCallback)                \
  X(glfwSetFramebufferSizeCallback) X(glfwSetKeyCallback) X(glfwSetMouseButtonCallback)     \
  X(glfwSetScrollCallback) X(glfwSetWindowUserPointer) X(glfwSwapBuffers)                   \
  X(glfwSwapInterval) X(glfwTerminate) X(glfwWindowHint) X(glfwWindowShouldClose)

#define MR_GLFW_POINTER(name) __typeof__(name) *name;
typedef struct mr_glfw_api {
  MR_GLFW_FUNCTIONS(MR_GLFW_POINTER)
} mr_glfw_api;
#undef MR_GLFW_POINTER

extern mr_glfw_api mr_glfw;

/* Loads libglfw once per process (thread-safe). 0, or -1 and one line in err. */
int mr_glfw_load(char *err, int errlen);

#ifndef MR_GLFW_API_IMPL
#define glfwCreateWindow (mr_glfw.glfwCreateWindow)
#define glfwDestroyWindow (mr_glfw.glfwDestroyWindow)
#define glfwGetFramebufferSize (mr_glfw.glfwGetFramebufferSize)
#define glfwGetProcAddress (mr_glfw.glfwGetProcAddress)
#define glfwGetTime (mr_glfw.glfwGetTime)
#define glfwGetWindowContentScale (mr_glfw.glfwGetWindowContentScale)
#define glfwGetWindowSize (mr_glfw.glfwGetWindowSize)
#define glfwGetWindowUserPointer (mr_glfw.glfwGetWindowUserPointer)
#define glfwInit (mr_glfw.glfwInit)
#define glfwMakeContextCurrent (mr_glfw.glfwMakeContextCurrent)
#define glfwPollEvents (mr_glfw.glfwPollEvents)
#define glfwSetCursorPosCallback (mr_glfw.glfwSetCursorPosCallback)
#define glfwSetDropCallback (mr_glfw.glfwSetDropCallback)
#define glfwSetErrorCallback (mr_glfw.glfwSetErrorCallback)
#define glfwSetFramebufferSizeCallback (mr_glfw.glfwSetFramebufferSizeCallback)
#define glfwSetKeyCallback (mr_glfw.glfwSetKeyCallback)
#define glfwSetMouseButtonCallback (mr_glfw.glfwSetMouseButtonCallback)
#define glfwSetScrollCallback (mr_glfw.glfwSetScrollCallback)
#define glfwSetWindowUserPointer (mr_glfw.glfwSetWindowUserPointer)
#define glfwSwapBuffers (mr_glfw.glfwSwapBuffers)
#define glfwSwapInterval (mr_glfw.glfwSwapInterval)
#define glfwTerminate (mr_glfw.glfwTerminate)
#define glfwWindowHint (mr_glfw.glfwWindowHint)
#define glfwWindowShouldClose (mr_glfw.glfwWindowShouldClose)
#endif

#endif
