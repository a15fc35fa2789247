/* The MJCF loader: the input is model.xml, and up to two files it may include, a.xml and
 * b.xml, after "\n--FILE--\n" separators. Loaded, and stepped when it loads. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *part[3];
  size_t len[3];
  int n = fuzz_split(data, size, "\n--FILE--\n", part, len, 3);
  static const char *names[3] = {"model.xml", "a.xml", "b.xml"};
  char path[600], main_path[600];
  for (int i = 0; i < 3; i++) {
    if (i < n) fuzz_write(names[i], part[i], len[i], i == 0 ? main_path : path, sizeof path);
    else fuzz_remove(names[i]);
  }
  fuzz_load_and_step(main_path, NULL, 5);
  return 0;
}
