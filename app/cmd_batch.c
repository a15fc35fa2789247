/* moreau batch JOBS: many runs in parallel. */
#include "options.h"

int mr_cmd_batch(int argc, char **argv) {
  (void)argc;
  (void)argv;
  mr_cli_error("'batch' is not available in this build yet");
  return MR_EXIT_BAD_INPUT;
}
