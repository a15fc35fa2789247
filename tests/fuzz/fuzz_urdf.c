/* The URDF loader with its SRDF: the input is robot.urdf, then robot.srdf after a
 * "\n--SRDF--\n" separator. Loaded fixed-base or floating (the last byte decides), and
 * stepped when it loads. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *part[2];
  size_t len[2];
  int n = fuzz_split(data, size, "\n--SRDF--\n", part, len, 2);
  char urdf[600], srdf[600];
  fuzz_write("robot.urdf", part[0], len[0], urdf, sizeof urdf);
  mr_load_options opt = {0};
  if (n > 1) opt.srdf = fuzz_write("robot.srdf", part[1], len[1], srdf, sizeof srdf);
  else fuzz_remove("robot.srdf");
  opt.floating = size > 0 && (data[size - 1] & 1);
  fuzz_load_and_step(urdf, &opt, 5);
  return 0;
}
