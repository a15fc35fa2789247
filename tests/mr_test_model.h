/* Models a test loads, from a file or written inline: quietly, through the real loader
 * (mr_model_load), as a user's file would be. A model that does not load is a failed check
 * naming the file with the loader's message, and NULL: a test that goes over many models
 * goes on with the next, one that needs the model stops with MR_REQUIRE(m). */
#ifndef MR_TEST_MODEL_H
#define MR_TEST_MODEL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "moreau.h"
#include "mr_test.h"

/* A model of the repository's models/ folder. */
#define MR_TEST_MODEL(name) MOREAU_SOURCE_DIR "/models/" name

/* The model in path, loaded with opt's settings (NULL: the defaults) and no warnings. */
static inline mr_model *mr_test_load(const char *path, const mr_load_options *opt) {
  mr_load_options quiet = opt ? *opt : (mr_load_options){0};
  quiet.quiet = 1;
  char err[2048] = "";
  mr_model *m = mr_model_load(path, &quiet, err, (int)sizeof err);
  MR_CHECK_MSG(m != NULL, "%s: %s", path, err);
  return m;
}

/* The model the MJCF or URDF text describes (through a temporary file). */
static inline mr_model *mr_test_load_xml(const char *xml) {
  char path[] = "/tmp/moreau_test_model_XXXXXX";
  int fd = mkstemp(path);
  MR_REQUIRE(fd >= 0);
  MR_REQUIRE(write(fd, xml, strlen(xml)) == (ssize_t)strlen(xml));
  close(fd);
  mr_model *m = mr_test_load(path, NULL);
  unlink(path);
  return m;
}

#endif
