/* Lenient, honest inertia (URDF): each repair on its own numbers, then on a URDF through the
 * command, where what the user sees is the point: round-off is clamped without a word, every
 * other repair or bound says so in one warning naming the link, --strict makes it an error
 * (FILE:LINE, exit 2), and only a mass matrix that stays singular is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/inertia.h"
#include "mr_cli.h"
#include "mr_test.h"
#include "moreau.h"

#define URDF_DIR MOREAU_SOURCE_DIR "/tests/data/urdf/"

static char tmpdir[256];

static void test_repair_numbers(void) {
  double d[3] = {0.01, 0.01, -2.4e-35};
  MR_CHECK(mr_inertia_repair(d) == MR_INERTIA_ROUNDOFF);
  MR_CHECK(d[0] == 0.01 && d[1] == 0.01 && d[2] == 0);

  /* -3.5e-8 on a sum of 2e-5 is 1.7e-3 of it: far beyond round-off */
  double n[3] = {1e-5, 1e-5, -3.5e-8};
  MR_CHECK(mr_inertia_repair(n) == MR_INERTIA_NEGATIVE);
  MR_CHECK(n[0] == 1e-5 && n[1] == 1e-5 && n[2] == 0);

  double t[3] = {0.1, 0.1, 0.3};
  MR_CHECK(mr_inertia_repair(t) == MR_INERTIA_TRIANGLE);
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(t[k], 0.5 / 3, 1e-17);

  /* a triangle excess of 1e-12 of the sum is print round-off: C is trimmed to A + B */
  double r[3] = {0.1, 0.2, 0.3 + 6e-13};
  MR_CHECK(mr_inertia_repair(r) == MR_INERTIA_ROUNDOFF);
  MR_CHECK(r[2] == r[0] + r[1]);

  /* a negative moment whose removal still leaves a triangle violation: both repairs */
  double b[3] = {1, -0.5, 0.2};
  MR_CHECK(mr_inertia_repair(b) == (MR_INERTIA_NEGATIVE | MR_INERTIA_TRIANGLE));
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(b[k], 0.4, 1e-16);

  double ok[3] = {0.3, 0.2, 0.1};
  MR_CHECK(mr_inertia_repair(ok) == 0);
  MR_CHECK(ok[0] == 0.3 && ok[1] == 0.2 && ok[2] == 0.1);
}

static void test_bound_numbers(void) {
  double mass = 0, d[3] = {0, 0, 0};
  MR_CHECK(mr_inertia_bound(&mass, d, 1e-4, 1e-8) == 1);
  MR_CHECK(mass == 1e-4 && d[0] == 1e-8 && d[1] == 1e-8 && d[2] == 1e-8);
  /* a rod: one zero moment is a rigid body's, not a point's; left alone */
  double m2 = 1, rod[3] = {0.1, 0.1, 0};
  MR_CHECK(mr_inertia_bound(&m2, rod, 1e-4, 1e-8) == 0);
  MR_CHECK(m2 == 1 && rod[2] == 0);
  /* tiny moments all round: each raised to the bound, the larger kept */
  double m3 = 1, tiny[3] = {3e-9, 1e-12, 0};
  MR_CHECK(mr_inertia_bound(&m3, tiny, 1e-4, 1e-8) == 1);
  MR_CHECK(tiny[0] == 1e-8 && tiny[1] == 1e-8 && tiny[2] == 1e-8 && m3 == 1);
}

static cli_result info(const char *file, const char *extra) {
  char args[1024];
  snprintf(args, sizeof args, "info '%s%s' %s", URDF_DIR, file, extra);
  return mr_cli_run(tmpdir, "", args);
}

/* Loads without a word on stderr. */
static void check_clean(const char *file) {
  cli_result r = info(file, "");
  MR_CHECK_MSG(r.status == 0, "%s: exit %d: %s", file, r.status, r.err);
  MR_CHECK_MSG(r.err[0] == 0, "%s: round-off is clamped silently, got: %s", file, r.err);
  cli_free(&r);
}

/* One warning line naming the link; --strict: one error line at the link's inertia, exit 2. */
static void check_repaired(const char *file, const char *link, const char *what, int line) {
  cli_result r = info(file, "");
  MR_CHECK_MSG(r.status == 0, "%s: exit %d: %s", file, r.status, r.err);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1, "%s: one warning, got: %s", file, r.err);
  MR_CHECK_MSG(strstr(r.err, "warning") && strstr(r.err, link) && strstr(r.err, what),
               "%s: '%s' and '%s' in: %s", file, link, what, r.err);
  cli_free(&r);
  r = info(file, "--strict");
  char where[512];
  snprintf(where, sizeof where, "moreau: %s%s:%d: ", URDF_DIR, file, line);
  MR_CHECK_MSG(r.status == 2, "%s --strict: exit %d", file, r.status);
  MR_CHECK_MSG(strncmp(r.err, where, strlen(where)) == 0 && count_char(r.err, '\n') == 1 &&
                   strstr(r.err, link) && strstr(r.err, "--strict"),
               "%s --strict: got: %s", file, r.err);
  MR_CHECK(r.out[0] == 0);
  cli_free(&r);
}

/* What the repairs give the model, against the numbers worked out by hand. */
static void check_models(void) {
  char err[1024];
  mr_load_options opt = {.quiet = 1};
  mr_model *m = mr_model_load(URDF_DIR "triangle_inertia.urdf", &opt, err, sizeof err);
  MR_REQUIRE(m != NULL);
  int arm = mr_name2id(m, MR_OBJ_BODY, "arm");
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(m->body_inertia[3 * arm + k], 0.5 / 3, 1e-15);
  mr_model_free(m);

  m = mr_model_load(URDF_DIR "zero_mass.urdf", &opt, err, sizeof err);
  MR_REQUIRE(m != NULL);
  int b = mr_name2id(m, MR_OBJ_BODY, "b");
  MR_CHECK(m->body_mass[b] == 1e-4);
  for (int k = 0; k < 3; k++) MR_CHECK(m->body_inertia[3 * b + k] == 1e-8);
  mr_model_free(m);

  opt.strict = 1;
  m = mr_model_load(URDF_DIR "zero_mass.urdf", &opt, err, sizeof err);
  MR_CHECK(m == NULL && strstr(err, "zero_mass.urdf:5: link 'b'") != NULL);
  mr_model_free(m);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_inertia");
  test_repair_numbers();
  test_bound_numbers();
  check_clean("roundoff_inertia.urdf");
  check_repaired("negative_inertia.urdf", "link 'arm'", "negative moment", 10);
  check_repaired("triangle_inertia.urdf", "link 'arm'", "triangle inequality", 10);
  check_repaired("zero_mass.urdf", "link 'b'", "bounded", 5);
  check_models();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
