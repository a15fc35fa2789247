/* Mesh files through assimp, as a model uses them: the first byte picks the format (STL,
 * OBJ, COLLADA), the rest is the file; an OBJ may bring its .mtl after "\n--MTL--\n". A
 * fixed MJCF model makes the mesh a free body's geom (inertia from the mesh, a hull for
 * collision) over a plane, and is stepped when it loads. */
#include "fuzz_common.h"

static const char *const fuzz_mesh_model =
    "<mujoco>\n"
    "  <asset><mesh name=\"m\" file=\"mesh.%s\" scale=\"0.5 0.5 0.5\"/></asset>\n"
    "  <worldbody>\n"
    "    <geom type=\"plane\" size=\"5 5 0.1\"/>\n"
    "    <body pos=\"0 0 0.3\"><freejoint/><geom type=\"mesh\" mesh=\"m\"/></body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  static const char *ext[3] = {"stl", "obj", "dae"};
  const char *e = ext[data[0] % 3];
  const uint8_t *part[2];
  size_t len[2];
  int n = fuzz_split(data + 1, size - 1, "\n--MTL--\n", part, len, 2);
  char path[600], name[16], text[1024];
  fuzz_remove("mesh.stl"), fuzz_remove("mesh.obj"), fuzz_remove("mesh.dae");
  snprintf(name, sizeof name, "mesh.%s", e);
  fuzz_write(name, part[0], len[0], path, sizeof path);
  if (n > 1) fuzz_write("mesh.mtl", part[1], len[1], path, sizeof path);
  else fuzz_remove("mesh.mtl");
  int k = snprintf(text, sizeof text, fuzz_mesh_model, e);
  fuzz_write("model.xml", (const uint8_t *)text, (size_t)k, path, sizeof path);
  fuzz_load_and_step(path, NULL, 5);
  return 0;
}
