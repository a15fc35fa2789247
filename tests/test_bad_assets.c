/* Bad input in sensors, heightfields and meshes (issue 19), end to end: `moreau info` on
 * each broken model prints one line "moreau: FILE:LINE: what is wrong" naming the element
 * at fault, and exits with status 2 (DESIGN.md sec. 5). The models and their binary files
 * are written at run time into a scratch directory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

static char tmpdir[256];

typedef struct bad_case {
  const char *name;  /* the model's file name */
  const char *xml;   /* its text; the element at fault is on line `line` */
  int line;
  const char *words; /* a word the message must hold */
} bad_case;

#define HEAD "<mujoco>\n"
#define WORLD "<worldbody>\n<body name=\"b\"><freejoint/><geom size=\"0.1\"/><site name=\"s\"/></body>\n</worldbody>\n"

static const bad_case CASES[] = {
  /* sensors */
  {"sensor_body.xml", HEAD WORLD "<sensor>\n<framepos objtype=\"body\" objname=\"nobody\"/>\n</sensor>\n</mujoco>\n", 6, "nobody"},
  {"sensor_site.xml", HEAD WORLD "<sensor>\n<touch site=\"nosite\"/>\n</sensor>\n</mujoco>\n", 6, "nosite"},
  {"sensor_joint.xml", HEAD WORLD "<sensor>\n<jointpos joint=\"nojoint\"/>\n</sensor>\n</mujoco>\n", 6, "nojoint"},
  {"sensor_actuator.xml", HEAD WORLD "<sensor>\n<actuatorfrc actuator=\"nomotor\"/>\n</sensor>\n</mujoco>\n", 6, "nomotor"},
  {"sensor_noattr.xml", HEAD WORLD "<sensor>\n<accelerometer/>\n</sensor>\n</mujoco>\n", 6, "site"},
  {"sensor_ref.xml", HEAD WORLD "<sensor>\n<framepos objtype=\"site\" objname=\"s\" reftype=\"body\" refname=\"nobody\"/>\n</sensor>\n</mujoco>\n", 6, "nobody"},
  {"sensor_cutoff.xml", HEAD WORLD "<sensor>\n<gyro site=\"s\" cutoff=\"-1\"/>\n</sensor>\n</mujoco>\n", 6, "cutoff"},
  /* heightfields */
  {"hfield_size.xml", HEAD "<asset>\n<hfield name=\"h\" nrow=\"3\" ncol=\"3\" size=\"1 1 0\"/>\n</asset>\n</mujoco>\n", 3, "size"},
  {"hfield_zero.xml", HEAD "<asset>\n<hfield name=\"h\" nrow=\"3\" ncol=\"3\" size=\"1 1 1 0\"/>\n</asset>\n</mujoco>\n", 3, "size"},
  {"hfield_count.xml", HEAD "<asset>\n<hfield name=\"h\" nrow=\"2\" ncol=\"3\" size=\"1 1 1 1\" elevation=\"1 2 3 4 5\"/>\n</asset>\n</mujoco>\n", 3, "elevation"},
  {"hfield_rows.xml", HEAD "<asset>\n<hfield name=\"h\" nrow=\"1\" ncol=\"3\" size=\"1 1 1 1\"/>\n</asset>\n</mujoco>\n", 3, "nrow"},
  {"hfield_both.xml", HEAD "<asset>\n<hfield name=\"h\" file=\"good.bin\" nrow=\"2\" ncol=\"2\" size=\"1 1 1 1\"/>\n</asset>\n</mujoco>\n", 3, "file"},
  {"hfield_truncated.xml", HEAD "<asset>\n<hfield name=\"h\" file=\"truncated.bin\" size=\"1 1 1 1\"/>\n</asset>\n<worldbody><geom type=\"hfield\" hfield=\"h\"/></worldbody>\n</mujoco>\n", 3, "truncated.bin"},
  {"hfield_png.xml", HEAD "<asset>\n<hfield name=\"h\" file=\"notapng.png\" size=\"1 1 1 1\"/>\n</asset>\n<worldbody><geom type=\"hfield\" hfield=\"h\"/></worldbody>\n</mujoco>\n", 3, "notapng.png"},
  {"hfield_missing.xml", HEAD "<asset>\n<hfield name=\"h\" file=\"nosuch.png\" size=\"1 1 1 1\"/>\n</asset>\n</mujoco>\n", 3, "nosuch.png"},
  {"hfield_geom.xml", HEAD "<worldbody>\n<geom type=\"hfield\" hfield=\"noterrain\"/>\n</worldbody>\n</mujoco>\n", 3, "noterrain"},
  {"hfield_moving.xml", HEAD "<asset><hfield name=\"h\" nrow=\"2\" ncol=\"2\" size=\"1 1 1 1\"/></asset>\n<worldbody>\n<body><freejoint/><geom size=\"0.1\"/>\n<geom type=\"hfield\" hfield=\"h\"/>\n</body>\n</worldbody>\n</mujoco>\n", 5, "heightfield"},
  /* meshes */
  {"mesh_truncated.xml", HEAD "<asset>\n<mesh name=\"m\" file=\"truncated.msh\"/>\n</asset>\n<worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody>\n</mujoco>\n", 3, "truncated.msh"},
  {"mesh_vertex.xml", HEAD "<asset>\n<mesh name=\"m\" vertex=\"0 0 0  1 0 0  0 1 0  0 0\"/>\n</asset>\n</mujoco>\n", 3, "vertex"},
  {"mesh_face.xml", HEAD "<asset>\n<mesh name=\"m\" vertex=\"0 0 0  1 0 0  0 1 0  0 0 1\" face=\"0 1 2  0 1 7\"/>\n</asset>\n</mujoco>\n", 3, "face"},
  {"mesh_fitscale.xml", HEAD "<asset>\n<mesh name=\"m\" vertex=\"0 0 0  1 0 0  0 1 0  0 0 1\"/>\n</asset>\n<worldbody>\n<geom type=\"box\" mesh=\"m\" fitscale=\"-1\"/>\n</worldbody>\n</mujoco>\n", 6, "fitscale"},
};

static void write_bytes(const char *name, const void *data, size_t n) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "wb");
  MR_REQUIRE(f != NULL);
  MR_REQUIRE(fwrite(data, 1, n, f) == n);
  fclose(f);
}

/* The binary files the models use: a good 2 x 2 heightfield, a truncated one (3 x 3 with
 * 4 samples), a PNG that is text, and a .msh whose header promises more than it holds. */
static void write_files(void) {
  int32_t head[2] = {2, 2};
  float good[6];
  memcpy(good, head, sizeof head);
  for (int i = 2; i < 6; i++) good[i] = 0.25f * (float)i;
  write_bytes("good.bin", good, sizeof good);
  int32_t thead[2] = {3, 3};
  float trunc[6];
  memcpy(trunc, thead, sizeof thead);
  for (int i = 2; i < 6; i++) trunc[i] = 0.5f;
  write_bytes("truncated.bin", trunc, sizeof trunc);
  write_bytes("notapng.png", "this is not a picture\n", 22);
  int32_t msh[4] = {4, 0, 0, 4}; /* 4 vertices, no normals or texcoords, 4 faces */
  float vert[6] = {0, 0, 0, 1, 0, 0}; /* two of the four vertices, then the end */
  char buf[sizeof msh + sizeof vert];
  memcpy(buf, msh, sizeof msh);
  memcpy(buf + sizeof msh, vert, sizeof vert);
  write_bytes("truncated.msh", buf, sizeof buf);
}

static void check_case(const bad_case *c) {
  char path[512], args[700], where[600];
  snprintf(path, sizeof path, "%s/%s", tmpdir, c->name);
  mr_test_write_file(path, c->xml);
  snprintf(args, sizeof args, "info '%s'", path);
  cli_result r = mr_cli_run(tmpdir, "", args);
  snprintf(where, sizeof where, "%s:%d: ", c->name, c->line);
  MR_CHECK_MSG(r.status == 2, "%s: exit status %d, stderr: %s", c->name, r.status, r.err);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strncmp(r.err, "moreau: ", 8) == 0,
               "%s: not one 'moreau: ' line: %s", c->name, r.err);
  MR_CHECK_MSG(strstr(r.err, where) != NULL, "%s: the error does not name %s: %s", c->name, where, r.err);
  MR_CHECK_MSG(strstr(r.err, c->words) != NULL, "%s: the error does not mention '%s': %s", c->name,
               c->words, r.err);
  printf("%-22s %s", c->name, r.err);
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_bad_assets");
  write_files();
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) check_case(&CASES[i]);
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
