/* Mimic joints that mimic each other, directly (j1 <-> j2) or around a longer loop, would
 * make equality rows that only restate one another: no joint of the loop has a value of its
 * own to follow. Refused, as a cycle of links is. Each joint mimics at most one other, so
 * following the targets from any joint either ends or enters a loop: one pass, O(joints). */
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "urdf.h"
#include "xml.h"

/* The joint's <mimic joint="..."/> target, or -1. */
static int mimic_target(const mr_urdf *u, int j) {
  const xmlNode *m = mr_urdf_child(u->joints[j].node, "mimic");
  const char *other = m ? mr_xml_attr(m, "joint") : NULL;
  return other && *other ? mr_urdf_find_joint(u, other) : -1;
}

static int mimic_cycle_error(mr_urdf *u, int start) {
  char path[512] = "";
  int j = start;
  for (int k = 0; k < 8; k++) {
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "'%.60s' -> ", u->joints[j].name);
    j = mimic_target(u, j);
    if (j == start) break;
  }
  size_t n = strlen(path);
  snprintf(path + n, sizeof path - n, j == start ? "'%.60s'" : "...", u->joints[start].name);
  const xmlNode *m = mr_urdf_child(u->joints[start].node, "mimic");
  return mr_errorf(u->err, u->errlen, mr_urdf_src(u, m), "mimic cycle: %s", path);
}

int mr_urdf_check_mimic_cycles(mr_urdf *u) {
  /* 0 unvisited, 1 on the walk now, 2 known to end */
  unsigned char *state = calloc((size_t)u->njoint + 1, 1);
  if (!state) return mr_errorf(u->err, u->errlen, (mr_source){u->file, 1}, "out of memory");
  int rc = 0;
  for (int i = 0; i < u->njoint && rc == 0; i++) {
    int j = i;
    while (j >= 0 && state[j] == 0) {
      state[j] = 1;
      j = mimic_target(u, j);
    }
    if (j >= 0 && state[j] == 1) rc = mimic_cycle_error(u, j);
    for (int k = i; k >= 0 && state[k] == 1; k = mimic_target(u, k)) state[k] = 2;
  }
  free(state);
  return rc;
}
