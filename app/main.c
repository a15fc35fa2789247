/* The moreau command: dispatches to one subcommand per file (cmd_*.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

static int cmd_solvers(int argc, char **argv) {
  (void)argv;
  if (argc > 0) {
    mr_cli_error("usage: moreau solvers");
    return MR_EXIT_BAD_INPUT;
  }
  /* Every registry entry; the default is marked. */
  printf("%-10s %-6s %-8s %s\n", "name", "hotkey", "max-iter", "description");
  for (int i = 0; i < mr_solver_count(); i++)
    printf("%-10s %-6c %-8d %s%s\n", mr_solver_name(i), mr_solver_hotkey(i), mr_solver_max_iter(i),
           mr_solver_description(i), i == mr_solver_default() ? " (default)" : "");
  printf("\ndefault: %s: %s\n", mr_solver_name(mr_solver_default()), mr_solver_default_reason());
  return MR_EXIT_OK;
}

static int is_help(const char *word) {
  return strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0 || strcmp(word, "help") == 0;
}

/* What went to stdout must have arrived: a full disk or a closed stdout turns a run that
 * succeeded into a failed write (exit 1, one line). A command that already failed keeps
 * its own status and its own one error line. */
static int finish_stdout(int status) {
  errno = 0;
  int failed = fflush(stdout) != 0 || ferror(stdout);
  int e = errno ? errno : EIO;
  if (!failed || status != MR_EXIT_OK) return status;
  mr_cli_error("stdout: write error: %s", strerror(e));
  return MR_EXIT_FAILURE;
}

static int run_command(int argc, char **argv) {
  if (argc < 2) {
    mr_cli_error("usage: moreau info|run|view|batch|solvers ... (see moreau --help)");
    return MR_EXIT_BAD_INPUT;
  }
  const char *command = argv[1];
  int rest = argc - 2;
  char **rest_argv = argv + 2;
  if (is_help(command)) {
    mr_cli_print_usage(stdout);
    return MR_EXIT_OK;
  }
  if (strcmp(command, "--version") == 0 || strcmp(command, "version") == 0) {
    printf("moreau %s\n", MR_VERSION_STRING);
    return MR_EXIT_OK;
  }
  if (strcmp(command, "info") == 0) return mr_cmd_info(rest, rest_argv);
  if (strcmp(command, "run") == 0) return mr_cmd_run(rest, rest_argv);
  if (strcmp(command, "solvers") == 0) return cmd_solvers(rest, rest_argv);
  if (strcmp(command, "view") == 0) return mr_cmd_view(rest, rest_argv);
  if (strcmp(command, "batch") == 0) return mr_cmd_batch(rest, rest_argv);
  if (command[0] == '-') mr_cli_error("unknown option '%s' (see moreau --help)", command);
  else mr_cli_error("unknown command '%s' (see moreau --help)", command);
  return MR_EXIT_BAD_INPUT;
}

int main(int argc, char **argv) { return finish_stdout(run_command(argc, argv)); }
