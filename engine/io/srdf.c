/* SRDF (MoveIt's semantic robot description): only <disable_collisions> is used, as
 * contact exclusions between the bodies the two links ended up in.
 *
 * Which file: mr_load_options.srdf when given (a missing file is then an error); otherwise
 * the first that exists of DIR/NAME.srdf and DIR/../srdf/NAME.srdf, where DIR is the URDF's
 * folder and NAME its file name without extension (the layout of ROS description packages:
 * PKG/urdf/robot.urdf beside PKG/srdf/robot.srdf). No default SRDF is fine.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/core/error.h"
#include "urdf.h"
#include "xml.h"

#define MR_SRDF_PATH_MAX 4096

static int mr_srdf_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The default SRDF beside the URDF, or 0 if there is none. */
static int mr_srdf_default(const char *urdf, char *out, size_t outlen) {
  const char *slash = strrchr(urdf, '/');
  int dirlen = slash ? (int)(slash - urdf) : 1;
  const char *dir = slash ? urdf : ".";
  if (slash == urdf) dirlen = 0; /* a URDF directly under "/" */
  const char *base = slash ? slash + 1 : urdf;
  char stem[1024];
  snprintf(stem, sizeof stem, "%s", base);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = 0;
  int n = snprintf(out, outlen, "%.*s/%s.srdf", dirlen, dir, stem);
  if (n > 0 && (size_t)n < outlen && mr_srdf_exists(out)) return 1;
  n = snprintf(out, outlen, "%.*s/../srdf/%s.srdf", dirlen, dir, stem);
  return n > 0 && (size_t)n < outlen && mr_srdf_exists(out);
}

/* The body a link name maps to, or -1 with a warning. */
static int mr_srdf_body(mr_urdf *u, const char *name, mr_source src) {
  int l = name ? mr_urdf_find_link(u, name) : -1;
  if (l >= 0) return u->links[l].body;
  mr_warnf(u->s->quiet, src, "disable_collisions: unknown link '%s'; skipped", name ? name : "");
  return -1;
}

static int mr_srdf_disable(mr_urdf *u, const xmlNode *node, const char *file) {
  mr_source src = mr_xml_source(file, node);
  int b1 = mr_srdf_body(u, mr_xml_attr(node, "link1"), src);
  int b2 = b1 >= 0 ? mr_srdf_body(u, mr_xml_attr(node, "link2"), src) : -1;
  if (b1 < 0 || b2 < 0 || b1 == b2) return 0;
  int e = mr_spec_add_exclude(u->s, src);
  if (e < 0) return mr_errorf(u->err, u->errlen, src, "out of memory");
  u->s->excludes[e].body1 = b1 < b2 ? b1 : b2;
  u->s->excludes[e].body2 = b1 < b2 ? b2 : b1;
  return 0;
}

int mr_srdf_apply(mr_urdf *u) {
  char found[MR_SRDF_PATH_MAX];
  const char *path = u->opt->srdf;
  if (!path || !*path) {
    if (!mr_srdf_default(u->file, found, sizeof found)) return 0;
    path = found;
  }
  const char *file = mr_spec_strdup(u->s, path);
  if (!file) {
    mr_source src = {u->file, 1};
    return mr_errorf(u->err, u->errlen, src, "out of memory");
  }
  xmlDoc *doc = mr_xml_read(file, u->err, u->errlen);
  if (!doc) return -1;
  const xmlNode *robot = xmlDocGetRootElement(doc);
  int rc = 0;
  if (!mr_xml_is(robot, "robot")) {
    rc = mr_errorf(u->err, u->errlen, mr_xml_source(file, robot),
                   "root element is <%s>, expected <robot> (SRDF)", (const char *)robot->name);
  } else {
    for (const xmlNode *c = robot->children; c && rc == 0; c = c->next)
      if (mr_xml_is(c, "disable_collisions")) rc = mr_srdf_disable(u, c, file);
  }
  xmlFreeDoc(doc);
  return rc;
}
