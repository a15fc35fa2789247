/* Models written inline in a test: the XML goes through a temporary file and the real
 * loader (mr_model_load), as a user's file would. */
#ifndef MR_TEST_MODEL_H
#define MR_TEST_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau.h"
#include "mr_test.h"

/* The model the MJCF or URDF text describes; NULL (its error printed) when it does not load. */
static inline mr_model *mr_test_load_xml(const char *xml) {
  char path[] = "/tmp/moreau_test_model_XXXXXX", err[512];
  int fd = mkstemp(path);
  MR_REQUIRE(fd >= 0);
  MR_REQUIRE(write(fd, xml, strlen(xml)) == (ssize_t)strlen(xml));
  close(fd);
  mr_model *m = mr_model_load(path, NULL, err, sizeof err);
  if (!m) fprintf(stderr, "%s\n", err);
  unlink(path);
  return m;
}

#endif
