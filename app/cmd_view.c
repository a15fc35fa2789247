/* moreau view MODEL: the viewer (render/). */
#include "options.h"

int mr_cmd_view(int argc, char **argv) {
  (void)argc;
  (void)argv;
  mr_cli_error("'view' is not available in this build yet");
  return MR_EXIT_BAD_INPUT;
}
