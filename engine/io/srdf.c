/* SRDF (MoveIt's semantic robot description): <disable_collisions> become contact
 * exclusions between the bodies the two links ended up in, and <group_state>s become
 * keyframes named as in the SRDF (srdf_state.c).
 *
 * Which file: mr_load_options.srdf when given (a missing file is then an error); otherwise
 * the first that exists, in DIR and then in DIR/../srdf (the layout of ROS description
 * packages: PKG/urdf/robot.urdf beside PKG/srdf/robot.srdf), of
 *   STEM.srdf  the URDF's file name without its extension,
 *   NAME.srdf  the <robot name> of the URDF (solo12.urdf is robot "solo": srdf/solo.srdf),
 *   SHORT.srdf the stem with a trailing number or "_suffix" taken off, again and again
 *              (talos_reduced, talos_full_v2 -> talos), accepted only when its own <robot
 *              name> is the URDF's, so that a guess never applies another robot's file.
 * No default SRDF is fine.
 */
#include <ctype.h>
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

/* The <robot name> of an SRDF file, into name (empty if unreadable). */
static void mr_srdf_robot_name(const char *path, char *name, size_t len) {
  name[0] = 0;
  char err[256];
  xmlDoc *doc = mr_xml_read(path, err, (int)sizeof err);
  if (!doc) return;
  const xmlNode *robot = xmlDocGetRootElement(doc);
  const char *n = mr_xml_is(robot, "robot") ? mr_xml_attr(robot, "name") : NULL;
  snprintf(name, len, "%s", n ? n : "");
  xmlFreeDoc(doc);
}

/* DIR/NAME.srdf or DIR/../srdf/NAME.srdf into out; with robot set, only an SRDF of that
 * robot. 1 if found. */
static int mr_srdf_try(const char *dir, int dirlen, const char *name, const char *robot,
                       char *out, size_t outlen) {
  static const char *const layouts[] = {"%.*s/%s.srdf", "%.*s/../srdf/%s.srdf"};
  for (int k = 0; k < 2; k++) {
    int n = snprintf(out, outlen, layouts[k], dirlen, dir, name);
    if (n <= 0 || (size_t)n >= outlen || !mr_srdf_exists(out)) continue;
    if (!robot) return 1;
    char found[256];
    mr_srdf_robot_name(out, found, sizeof found);
    if (strcmp(found, robot) == 0) return 1;
  }
  return 0;
}

/* Takes a trailing number ("solo12") or "_suffix" ("talos_reduced") off stem; 0 when
 * nothing is left to take. */
static int mr_srdf_shorten(char *stem) {
  size_t n = strlen(stem);
  size_t k = n;
  while (k > 0 && isdigit((unsigned char)stem[k - 1])) k--;
  if (k == n) {
    char *us = strrchr(stem, '_');
    if (!us || us == stem) return 0;
    k = (size_t)(us - stem);
  }
  while (k > 0 && (stem[k - 1] == '_' || stem[k - 1] == '-')) k--;
  if (k == 0) return 0;
  stem[k] = 0;
  return 1;
}

/* The default SRDF of the URDF, or 0 if there is none. */
static int mr_srdf_default(const mr_urdf *u, char *out, size_t outlen) {
  const char *urdf = u->file;
  const char *slash = strrchr(urdf, '/');
  int dirlen = slash ? (int)(slash - urdf) : 1;
  const char *dir = slash ? urdf : ".";
  if (slash == urdf) dirlen = 0; /* a URDF directly under "/" */
  char stem[1024];
  snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : urdf);
  char *dot = strrchr(stem, '.');
  if (dot && dot != stem) *dot = 0;
  if (mr_srdf_try(dir, dirlen, stem, NULL, out, outlen)) return 1;
  const char *robot = u->s->model_name;
  if (robot && *robot && !strchr(robot, '/') &&
      mr_srdf_try(dir, dirlen, robot, NULL, out, outlen))
    return 1;
  while (mr_srdf_shorten(stem))
    if (mr_srdf_try(dir, dirlen, stem, robot ? robot : "", out, outlen)) return 1;
  return 0;
}

void mr_srdf_unknown(mr_urdf *u, const char *name, mr_source src) {
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", name ? name : "");
  if (strstr(u->srdf_unknown_names, quoted)) return; /* named again by another state */
  if (u->srdf_unknown++ == 0) u->srdf_unknown_src = src;
  size_t len = strlen(u->srdf_unknown_names), room = sizeof u->srdf_unknown_names - len;
  if (u->srdf_unknown > 6 || room < strlen(quoted) + 3) return;
  snprintf(u->srdf_unknown_names + len, room, "%s%s", len ? ", " : "", quoted);
}

/* One SRDF is often shared by several variants of a robot (solo.srdf serves the 8- and the
 * 12-joint solo): names the URDF lacks are skipped, as Pinocchio does, with one warning. */
static void mr_srdf_report_unknown(mr_urdf *u) {
  if (!u->srdf_unknown) return;
  mr_warnf(u->s->quiet, u->srdf_unknown_src, "%d link or joint name%s not in the URDF (%s%s); "
           "skipped", u->srdf_unknown, u->srdf_unknown > 1 ? "s" : "", u->srdf_unknown_names,
           u->srdf_unknown > 6 ? ", ..." : "");
}

/* The body a link name maps to, or -1 (noted as unknown). */
static int mr_srdf_body(mr_urdf *u, const char *name, mr_source src) {
  int l = name ? mr_urdf_find_link(u, name) : -1;
  if (l >= 0) return u->links[l].body;
  mr_srdf_unknown(u, name, src);
  return -1;
}

static int mr_srdf_disable(mr_urdf *u, const xmlNode *node, const char *file) {
  if (u->opt->self_collision == MR_ON) return 0; /* every pair but parent-child collides */
  mr_source src = mr_xml_source(file, node);
  int b1 = mr_srdf_body(u, mr_xml_attr(node, "link1"), src);
  int b2 = mr_srdf_body(u, mr_xml_attr(node, "link2"), src);
  if (b1 < 0 || b2 < 0 || b1 == b2) return 0;
  return mr_urdf_exclude(u, b1, b2, src);
}

int mr_srdf_apply(mr_urdf *u) {
  char found[MR_SRDF_PATH_MAX];
  const char *path = u->opt->srdf;
  if (!path || !*path) {
    if (!mr_srdf_default(u, found, sizeof found)) return 0;
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
    for (const xmlNode *c = robot->children; c && rc == 0; c = c->next) {
      if (mr_xml_is(c, "disable_collisions")) rc = mr_srdf_disable(u, c, file);
      if (mr_xml_is(c, "group_state")) rc = mr_srdf_group_state(u, c, file);
    }
  }
  xmlFreeDoc(doc);
  if (rc == 0) mr_srdf_report_unknown(u);
  return rc;
}
