/* The viewer's scripted mode fails the way `run` does (issue 18): a screenshot that cannot be
 * written is one line and exit 1 with no file left behind (never a 0-byte PNG), a name that
 * is not .png is refused before any window opens (exit 2), and a simulation that diverges
 * ends --frames with its one line and exit 1. Runs under Xvfb (ctest wraps test_view_*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

#define PENDULUM MOREAU_SOURCE_DIR "/models/pendulum.xml"

static char dir[256];

static void check(const char *what, const char *prefix, const char *args, int status,
                  const char *says) {
  cli_result r = mr_cli_run(dir, prefix, args);
  MR_CHECK_MSG(r.status == status, "%s: exit status %d, expected %d (stderr: %s)", what, r.status,
               status, r.err);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strncmp(r.err, "moreau: ", 8) == 0 &&
                   strstr(r.err, says),
               "%s: stderr is not one line saying '%s':\n%s", what, says, r.err);
  printf("%-28s %d  %s", what, r.status, r.err);
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "view_fail");
  char args[2048], shot[600], part[620];

  snprintf(shot, sizeof shot, "%s/shot.jpg", dir);
  snprintf(args, sizeof args, "view '%s' --frames 2 --quiet --screenshot '%s'", PENDULUM, shot);
  check("--screenshot x.jpg", "", args, 2, "PNG");
  MR_CHECK(!file_exists(shot));

  /* a full disk: every write past 4 KB fails (a 1280x720 PNG is far larger) */
  snprintf(shot, sizeof shot, "%s/shot.png", dir);
  snprintf(part, sizeof part, "%s.part", shot);
  snprintf(args, sizeof args, "view '%s' --frames 2 --quiet --screenshot '%s'", PENDULUM, shot);
  check("screenshot, full disk", "trap '' XFSZ; ulimit -f 8;", args, 1, "cannot write");
  MR_CHECK_MSG(!file_exists(shot) && !file_exists(part), "a failed screenshot left a file");

  /* the same screenshot with room for it */
  cli_result r = mr_cli_run(dir, "", args);
  MR_CHECK_MSG(r.status == 0 && file_exists(shot), "screenshot: exit %d: %s", r.status, r.err);
  cli_free(&r);

  /* gravity of 1e300 overflows the state within a few steps */
  char model[600];
  snprintf(model, sizeof model, "%s/diverge.xml", dir);
  mr_test_write_file(model, "<mujoco>\n  <option gravity=\"0 0 -1e300\"/>\n  <worldbody>\n"
                            "    <body pos=\"0 0 1\"><freejoint/><geom size=\".1\"/></body>\n"
                            "  </worldbody>\n</mujoco>\n");
  snprintf(args, sizeof args, "view '%s' --frames 30 --quiet", model);
  check("--frames, diverging", "", args, 1, "diverged");

  MR_REQUIRE(mr_test_rmdir(dir) == 0);
  MR_TEST_END();
}
