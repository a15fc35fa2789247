/* The viewer's offscreen screenshots (issue 5), through the command line as a script would
 * use it: `moreau view MODEL --frames N --screenshot FILE.png`. Run under Xvfb with Mesa's
 * software renderer. Checks that the model covers a plausible share of the picture, that
 * its colours come from its materials, that a moving model's picture changes over one
 * second, that a heightfield is drawn, and the one-line errors with their exit statuses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mr_test.h"

#include <stb/stb_image.h> /* its implementation is in the engine library (engine/io/stb_impl.c) */

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"
#define PENDULUM_URDF \
  MOREAU_SHARED_DIR "/models/example-robot-data/robots/double_pendulum_description/urdf/double_pendulum.urdf"
#define BALLS MOREAU_SOURCE_DIR "/models/balls_in_box.xml"
#define QUADRUPED MOREAU_SOURCE_DIR "/models/quadruped.urdf"

enum { W = 480, H = 320 };

static char tmpdir[256];

typedef struct image {
  int w, h;
  unsigned char *rgb;
} image;

/* Runs the moreau command with args; returns its exit status, stderr in err. */
static int view(const char *args, char *err, size_t errlen) {
  char cmd[4096], err_path[300];
  snprintf(err_path, sizeof err_path, "%s/stderr", tmpdir);
  snprintf(cmd, sizeof cmd, "'%s' view %s 2>'%s' >/dev/null", MOREAU_BIN, args, err_path);
  int raw = system(cmd);
  err[0] = 0;
  FILE *f = fopen(err_path, "r");
  if (f) {
    size_t n = fread(err, 1, errlen - 1, f);
    err[n] = 0;
    fclose(f);
  }
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

/* Screenshot of MODEL after `frames` frames with extra options; exits the test on failure. */
static image shoot(const char *model, int frames, const char *extra, const char *name) {
  char args[2048], path[512], err[4096];
  snprintf(path, sizeof path, "%s/%s.png", tmpdir, name);
  snprintf(args, sizeof args, "'%s' --frames %d --screenshot '%s' --width %d --height %d %s", model,
           frames, path, W, H, extra);
  int status = view(args, err, sizeof err);
  MR_CHECK_MSG(status == 0, "view %s exited %d: %s", args, status, err);
  image im = {0, 0, NULL};
  int n = 0;
  im.rgb = stbi_load(path, &im.w, &im.h, &n, 3);
  MR_REQUIRE(im.rgb != NULL);
  MR_CHECK(im.w == W && im.h == H);
  return im;
}

static const unsigned char *pixel(const image *im, int x, int y) { return im->rgb + 3 * ((size_t)y * (size_t)im->w + (size_t)x); }

/* Pixels whose colour differs from the background of their row, the left-most pixel of the
 * row: the sky is a vertical gradient, so with the grid off only the model stands out. */
static double share_unlike_row_background(const image *im, int rows_from, int rows_to) {
  long n = 0, total = 0;
  for (int y = rows_from; y < rows_to; y++) {
    const unsigned char *bg = pixel(im, 0, y);
    for (int x = 0; x < im->w; x++, total++) {
      const unsigned char *p = pixel(im, x, y);
      n += abs(p[0] - bg[0]) + abs(p[1] - bg[1]) + abs(p[2] - bg[2]) > 40;
    }
  }
  return total ? (double)n / (double)total : 0;
}

/* Pixels close in hue to an rgb colour (ratios of channels after shading), and the mean
 * colour of those pixels. The shading scales a colour, so the channel ratios survive it. */
static double share_of_hue(const image *im, const float rgb[3], double tol, double mean[3]) {
  long n = 0;
  mean[0] = mean[1] = mean[2] = 0;
  double ref = rgb[0] + rgb[1] + rgb[2];
  for (int y = 0; y < im->h - 20; y++) /* the status line at the bottom is text */
    for (int x = 0; x < im->w; x++) {
      const unsigned char *p = pixel(im, x, y);
      double sum = p[0] + p[1] + p[2];
      if (sum < 60) continue;
      int close = 1;
      for (int k = 0; k < 3; k++) close &= fabs(p[k] / sum - rgb[k] / ref) < tol;
      if (!close) continue;
      n++;
      for (int k = 0; k < 3; k++) mean[k] += p[k];
    }
  if (n)
    for (int k = 0; k < 3; k++) mean[k] /= (double)n;
  return (double)n / ((double)im->w * (im->h - 20));
}

static double share_changed(const image *a, const image *b) {
  long n = 0;
  for (int y = 0; y < a->h - 20; y++)
    for (int x = 0; x < a->w; x++) {
      const unsigned char *p = pixel(a, x, y), *q = pixel(b, x, y);
      n += abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > 30;
    }
  return (double)n / ((double)a->w * (a->h - 20));
}

static void test_humanoid(void) {
  /* The body material is rgba (0.8, 0.6, 0.4); the floor a blue checker, the sky blue. */
  const float body[3] = {0.8f, 0.6f, 0.4f};
  image first = shoot(HUMANOID, 1, "", "humanoid_1");
  image later = shoot(HUMANOID, 60, "", "humanoid_60");
  double mean[3];
  double share = share_of_hue(&first, body, 0.04, mean);
  MR_CHECK_MSG(share > 0.01 && share < 0.5, "humanoid covers %.4f of the picture", share);
  MR_CHECK_MSG(mean[0] > mean[1] && mean[1] > mean[2], "mean colour %g %g %g", mean[0], mean[1], mean[2]);
  double changed = share_changed(&first, &later);
  MR_CHECK_MSG(changed > 0.003, "frame 60 differs from frame 1 in %.4f of the pixels", changed);
  /* Scripted pause from the first frame: nothing moves. */
  image paused1 = shoot(HUMANOID, 1, "--keys 0:space", "humanoid_paused1");
  image paused = shoot(HUMANOID, 60, "--keys 0:space", "humanoid_paused");
  double still = share_changed(&paused1, &paused);
  MR_CHECK_MSG(still < 0.001, "a paused humanoid changed %.4f of the pixels", still);
  /* A model camera sees the scene from elsewhere. */
  image cam = shoot(HUMANOID, 1, "--camera 0", "humanoid_cam0");
  MR_CHECK(share_changed(&first, &cam) > 0.05);
  /* The plots panel covers the right part of the window with its own colours. */
  image plots = shoot(HUMANOID, 30, "--plots", "humanoid_plots");
  image noplots = shoot(HUMANOID, 30, "", "humanoid_noplots");
  MR_CHECK(share_changed(&plots, &noplots) > 0.1);
  stbi_image_free(first.rgb);
  stbi_image_free(later.rgb);
  stbi_image_free(paused.rgb);
  stbi_image_free(paused1.rgb);
  stbi_image_free(cam.rgb);
  stbi_image_free(plots.rgb);
  stbi_image_free(noplots.rgb);
}

static void test_urdf(void) {
  /* The pendulum's base mesh is yellow (0.96, 1, 0) in the URDF's materials, its links
   * grey. It hangs at rest, so the moving picture is of it falling with --floating. */
  const float yellow[3] = {0.96f, 1.0f, 0.0f};
  image first = shoot(PENDULUM_URDF, 1, "--keys 0:g", "urdf_1");
  image falling = shoot(PENDULUM_URDF, 1, "--floating --keys 0:g", "urdf_float_1");
  image later = shoot(PENDULUM_URDF, 60, "--floating --keys 0:g", "urdf_float_60");
  double share = share_unlike_row_background(&first, 30, H - 30);
  MR_CHECK_MSG(share > 0.01 && share < 0.6, "URDF robot covers %.4f of the picture", share);
  double mean[3];
  double yshare = share_of_hue(&first, yellow, 0.06, mean);
  MR_CHECK_MSG(yshare > 0.05 * share, "yellow pixels %.4f of %.4f", yshare, share);
  MR_CHECK_MSG(share_changed(&falling, &later) > 0.003, "the pendulum falls: %.4f changed",
               share_changed(&falling, &later));
  stbi_image_free(first.rgb);
  stbi_image_free(falling.rgb);
  stbi_image_free(later.rgb);
}

static void test_sample_model(void) {
  /* Blue balls (0.2, 0.5, 0.85) falling into a box on a light grey floor. */
  const float blue[3] = {0.2f, 0.5f, 0.85f};
  image first = shoot(BALLS, 1, "", "balls_1");
  image later = shoot(BALLS, 60, "--keys 1:c,1:f,1:k", "balls_60");
  double mean[3];
  double share = share_of_hue(&first, blue, 0.04, mean);
  MR_CHECK_MSG(share > 0.003 && share < 0.5, "balls cover %.4f", share);
  MR_CHECK(mean[2] > mean[1] && mean[1] > mean[0]);
  MR_CHECK(share_changed(&first, &later) > 0.003);
  stbi_image_free(first.rgb);
  stbi_image_free(later.rgb);
}

/* The camera follows a floating robot's root from the start: the quadruped falling through
 * where a floor would be (--no-floor) for 2 s, 20 m down, is still in the picture; with
 * tracking turned off (T) it is long gone. On its floor it lands in view, on a checker. */
static void test_tracking(void) {
  const float blue[3] = {0.20f, 0.45f, 0.75f}; /* models/quadruped.urdf's body */
  const char *opts = "--floating --keyframe drop --hold";
  char extra[256];
  double mean[3];
  snprintf(extra, sizeof extra, "%s --no-floor", opts);
  image tracked = shoot(QUADRUPED, 120, extra, "quad_tracked");
  snprintf(extra, sizeof extra, "%s --no-floor --keys 0:t", opts);
  image lost = shoot(QUADRUPED, 120, extra, "quad_lost");
  image landed = shoot(QUADRUPED, 120, opts, "quad_landed");
  double s_tracked = share_of_hue(&tracked, blue, 0.04, mean);
  double s_lost = share_of_hue(&lost, blue, 0.04, mean);
  double s_landed = share_of_hue(&landed, blue, 0.04, mean);
  MR_CHECK_MSG(s_tracked > 0.01, "a tracked falling robot covers %.4f", s_tracked);
  MR_CHECK_MSG(s_lost < 0.001, "untracked, it still covers %.4f", s_lost);
  MR_CHECK_MSG(s_landed > 0.01, "landed, it covers %.4f", s_landed);
  /* the floor's checker: the bottom rows hold two greys in alternation */
  int changes = 0;
  const int y = H - 30;
  for (int x = 1; x < W; x++) {
    const unsigned char *a = pixel(&landed, x - 1, y), *b = pixel(&landed, x, y);
    changes += abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]) > 20;
  }
  MR_CHECK_MSG(changes >= 2, "%d edges of the checker along a row", changes);
  stbi_image_free(tracked.rgb);
  stbi_image_free(lost.rgb);
  stbi_image_free(landed.rgb);
}

static void test_tendons(void) {
  /* arm26's tendons, shown by default and hidden by U: the pictures differ along them */
  const char *arm = MUJOCO_MODEL_DIR "/tendon_arm/arm26.xml";
  image shown = shoot(arm, 1, "", "tendons_on");
  image hidden = shoot(arm, 1, "--keys 1:u", "tendons_off");
  double changed = share_changed(&shown, &hidden);
  MR_CHECK_MSG(changed > 0.0003 && changed < 0.05, "tendon lines cover %.5f of the picture", changed);
  stbi_image_free(shown.rgb);
  stbi_image_free(hidden.rgb);
}

static void test_hfield(void) {
  /* An orange heightfield with a sphere and a box on it: its surface is drawn, shaded in
   * its colour. */
  const float orange[3] = {0.85f, 0.45f, 0.15f};
  image im = shoot(MOREAU_SOURCE_DIR "/tests/data/mjcf/hfield_rest.xml", 1, "", "hfield_1");
  double mean[3];
  double share = share_of_hue(&im, orange, 0.04, mean);
  MR_CHECK_MSG(share > 0.02 && share < 0.9, "the heightfield covers %.4f", share);
  MR_CHECK(mean[0] > mean[1] && mean[1] > mean[2]);
  stbi_image_free(im.rgb);
}

static void test_errors(void) {
  char err[4096], args[1024];
  snprintf(args, sizeof args, "'%s/missing.xml' --frames 1", tmpdir);
  MR_CHECK(view(args, err, sizeof err) == 2);
  MR_CHECK_MSG(strstr(err, "missing.xml") && strchr(err, '\n') == strrchr(err, '\n'), "%s", err);
  snprintf(args, sizeof args, "'%s' --frames 1 --camera nosuchcamera", HUMANOID);
  MR_CHECK(view(args, err, sizeof err) == 2);
  MR_CHECK_MSG(strstr(err, "nosuchcamera") != NULL, "%s", err);
  snprintf(args, sizeof args, "'%s' --frames 1 --keys 3:nosuchkey", HUMANOID);
  MR_CHECK(view(args, err, sizeof err) == 2);
  MR_CHECK_MSG(strstr(err, "nosuchkey") != NULL, "%s", err);
  snprintf(args, sizeof args, "'%s' --frames 1 --screenshot '%s/no/such/dir/x.png'", HUMANOID, tmpdir);
  MR_CHECK(view(args, err, sizeof err) == 1);
  MR_CHECK_MSG(strstr(err, "x.png") != NULL, "%s", err);
  /* No display: one clear line, no crash. */
  char cmd[2048], path[300];
  snprintf(path, sizeof path, "%s/nodisplay", tmpdir);
  snprintf(cmd, sizeof cmd, "env -u DISPLAY -u WAYLAND_DISPLAY '%s' view '%s' --frames 1 2>'%s'", MOREAU_BIN,
           HUMANOID, path);
  int raw = system(cmd);
  MR_CHECK(WIFEXITED(raw) && WEXITSTATUS(raw) == 1);
  FILE *f = fopen(path, "r");
  MR_REQUIRE(f != NULL);
  size_t n = fread(err, 1, sizeof err - 1, f);
  err[n] = 0;
  fclose(f);
  MR_CHECK_MSG(strstr(err, "moreau: cannot open a window: no display") == err, "%s", err);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "view_render");
  test_humanoid();
  test_urdf();
  test_sample_model();
  test_tracking();
  test_tendons();
  test_hfield();
  test_errors();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
