/* Blow-ups are reported (issue 15): a run whose solver residual passes 1 says so in one
 * line on stderr, sets "unstable": true in its JSON summary and exits 1; the same scene
 * solved properly does none of that; a batch job that blows up has status "unstable" and
 * makes the batch exit 1. The blow-up is provoked honestly: a 50 kg ball slammed at
 * 30 m/s into a stack of boxes with the solver allowed one iteration per step. */
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"

static const char *slam_xml =
    "<mujoco model='slam'>\n"
    "  <option timestep='0.002'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='5 5 .1'/>\n"
    "    <body pos='0 0 0.1'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.3'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 0.5'><freejoint/><geom type='box' size='.1 .1 .1' mass='1'/></body>\n"
    "    <body pos='0 0 1.2'><freejoint/><geom type='sphere' size='.1' mass='50'/></body>\n"
    "  </worldbody>\n"
    "  <keyframe><key qvel='0 0 0 0 0 0  0 0 0 0 0 0  0 0 0 0 0 0  0 0 -30 0 0 0'/></keyframe>\n"
    "</mujoco>\n";

static char dir[256];
static char model[300];

static void test_run_reports(void) {
  char args[1024];
  snprintf(args, sizeof args, "run '%s' --keyframe 0 --duration 0.1 --max-iter 1 --json", model);
  cli_result r = mr_cli_run(dir, "", args);
  MR_CHECK_MSG(r.status == 1, "exit %d", r.status);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strstr(r.err, "unstable from step"), "stderr: %s", r.err);
  MR_CHECK(strstr(r.out, "\"unstable\": true") != NULL);
  MR_CHECK(strstr(r.out, "\"unstable_step\"") != NULL);
  cli_free(&r);
  /* the same scene with the default iteration cap: no blow-up, no report */
  snprintf(args, sizeof args, "run '%s' --keyframe 0 --duration 0.1 --json", model);
  r = mr_cli_run(dir, "", args);
  MR_CHECK_MSG(r.status == 0, "exit %d: %s", r.status, r.err);
  MR_CHECK(strstr(r.out, "\"unstable\": false") != NULL);
  cli_free(&r);
}

static void test_batch_reports(void) {
  char jobs[400], args[1024];
  snprintf(jobs, sizeof jobs, "%s/jobs.csv", dir);
  FILE *f = fopen(jobs, "w");
  MR_REQUIRE(f);
  fprintf(f, "model,keyframe,duration,max_iter\n%s,0,0.1,1\n%s,0,0.1,100\n", model, model);
  fclose(f);
  snprintf(args, sizeof args, "batch '%s' --jobs 1 --out '%s/out' --quiet", jobs, dir);
  cli_result r = mr_cli_run(dir, "", args);
  MR_CHECK_MSG(r.status == 1, "exit %d", r.status);
  cli_free(&r);
  char path[400];
  snprintf(path, sizeof path, "%s/out/summary.json", dir);
  char *summary = mr_test_read_file(path);
  MR_REQUIRE(summary);
  MR_CHECK(strstr(summary, "\"status\": \"unstable\"") != NULL);
  MR_CHECK(strstr(summary, "\"status\": \"ok\"") != NULL);
  MR_CHECK(strstr(summary, "\"unstable\": 1") != NULL);
  free(summary);
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "test_unstable");
  snprintf(model, sizeof model, "%s/slam.xml", dir);
  FILE *f = fopen(model, "w");
  MR_REQUIRE(f);
  fputs(slam_xml, f);
  fclose(f);
  test_run_reports();
  test_batch_reports();
  MR_CHECK(mr_test_rmdir(dir) == 0);
  MR_TEST_END();
}
