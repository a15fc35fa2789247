/* mr_model_load: picks the front end (MJCF or URDF) for a file, prepares the spec for a
 * robot (floor, --hold, self-collision by the tree), compiles it, finishes the model
 * (poses, self-collision by the poses, servo gains: engine/robot/robot.h), then sets the
 * constants that need the dynamics (setconst.h).
 *
 * Warnings raised while loading are held until the model is known to be good: a bad file
 * gets exactly its one error line. Problems with the file itself (missing, a directory, a
 * FIFO) are reported at line 1, so every message has the FILE:LINE form. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/core/error.h"
#include "engine/core/file_read.h"
#include "engine/io/spec.h"
#include "engine/robot/robot.h"
#include "setconst.h"

enum { MR_FORMAT_UNKNOWN, MR_FORMAT_MJCF, MR_FORMAT_URDF };

static int mr_format_from_extension(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return MR_FORMAT_UNKNOWN;
  if (strcasecmp(dot, ".urdf") == 0) return MR_FORMAT_URDF;
  if (strcasecmp(dot, ".xml") == 0 || strcasecmp(dot, ".mjcf") == 0) return MR_FORMAT_MJCF;
  return MR_FORMAT_UNKNOWN;
}

/* Reads the first element name of an XML file, skipping the prolog and comments. */
static int mr_format_from_content(const char *path) {
  char why[256];
  FILE *f = mr_file_open_regular(path, why, (int)sizeof why);
  if (!f) return MR_FORMAT_UNKNOWN;
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = buf;
  while ((p = strchr(p, '<')) != NULL) {
    p++;
    if (*p == '?' || *p == '!') continue;
    if (strncmp(p, "robot", 5) == 0) return MR_FORMAT_URDF;
    if (strncmp(p, "mujoco", 6) == 0) return MR_FORMAT_MJCF;
    return MR_FORMAT_UNKNOWN;
  }
  return MR_FORMAT_UNKNOWN;
}

static mr_model *mr_model_load_held(const char *path, const mr_load_options *opt, char *err,
                                    int errlen) {
  mr_source where = {path, 1};
  char why[256];
  FILE *f = mr_file_open_regular(path, why, (int)sizeof why);
  if (!f) {
    mr_errorf(err, errlen, where, "%s", why);
    return NULL;
  }
  fclose(f);

  int format = mr_format_from_extension(path);
  if (format == MR_FORMAT_UNKNOWN) format = mr_format_from_content(path);
  if (format == MR_FORMAT_UNKNOWN) {
    mr_errorf(err, errlen, where, "unknown model format (expected <mujoco> or <robot>)");
    return NULL;
  }

  mr_spec *spec = mr_spec_create(path);
  if (!spec) {
    mr_errorf(err, errlen, where, "out of memory");
    return NULL;
  }
  spec->quiet = opt ? opt->quiet : 0;
  mr_load_options defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!opt) opt = &defaults;
  spec->mesh_mode = opt->meshes;
  int rc = format == MR_FORMAT_URDF ? mr_urdf_parse(spec, path, opt, err, errlen)
                                    : mr_mjcf_parse(spec, path, err, errlen);
  if (rc == 0) rc = mr_robot_prepare(spec, opt, err, errlen);
  mr_model *m = rc == 0 ? mr_spec_compile(spec, err, errlen) : NULL;
  if (m) m = mr_robot_finish(spec, m, opt, err, errlen);
  if (m && mr_model_setconst(m, spec, err, errlen) != 0) {
    mr_model_free(m);
    m = NULL;
  }
  mr_spec_free(spec);
  return m;
}

mr_model *mr_model_load(const char *path, const mr_load_options *opt, char *err, int errlen) {
  if (err && errlen > 0) err[0] = 0;
  if (!path) {
    mr_errorf(err, errlen, (mr_source){"(null)", 0}, "no model file given");
    return NULL;
  }
  mr_warning_hold held;
  mr_warnings_hold(&held);
  mr_model *m = mr_model_load_held(path, opt, err, errlen);
  mr_warnings_release(&held, m != NULL);
  return m;
}
