/* Bad input in tendons, actuators and their equalities and keyframes, end to end: each
 * broken file makes `moreau info` print exactly one line "moreau: FILE:LINE: ..." naming the
 * offending element's line, and exit 2 (DESIGN.md sec. 5). Every file is the same small
 * model with one thing broken; the broken element always sits on line 12. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mr_cli.h"
#include "mr_test.h"

static char dir[256];

/* Lines 1-11 are a valid model (two hinges, sites, a sphere and a box); `body` is line 12
 * (what is broken) and everything after it. */
static const char *head =
    "<mujoco>\n"                                                      /* 1 */
    "  <worldbody>\n"                                                 /* 2 */
    "    <site name='s0' pos='0 0 1'/>\n"                             /* 3 */
    "    <body name='b1'><joint name='j1'/><joint name='j3' type='slide'/>\n" /* 4 */
    "      <geom name='ball' size='0.1'/><geom name='box' type='box' size='.1 .1 .1'/>\n" /* 5 */
    "      <site name='s1' pos='0.3 0 0'/>\n"                         /* 6 */
    "      <body name='b2' pos='0.5 0 0'><joint name='j2' type='ball'/>\n" /* 7 */
    "        <geom size='0.1'/><site name='s2' pos='0.2 0 0'/>\n"     /* 8 */
    "      </body>\n"                                                 /* 9 */
    "    </body>\n"                                                   /* 10 */
    "  </worldbody>\n";                                               /* 11 */

static const char *const tendon_ok =
    "  <tendon><spatial name='t'><site site='s0'/><site site='s1'/></spatial></tendon>\n";

typedef struct bad_case {
  const char *what;
  const char *body;     /* from line 12 on */
  const char *expect;   /* a word the message must contain */
} bad_case;

static const bad_case cases[] = {
    {"tendon through a missing site",
     "  <tendon><spatial><site site='s0'/><site site='nowhere'/></spatial></tendon>\n",
     "nowhere"},
    {"tendon around a missing geom",
     "  <tendon><spatial><site site='s0'/><geom geom='ghost'/><site site='s1'/></spatial></tendon>\n",
     "ghost"},
    {"missing side site",
     "  <tendon><spatial><site site='s0'/><geom geom='ball' sidesite='x'/><site site='s1'/>"
     "</spatial></tendon>\n",
     "'x'"},
    {"wrapping a box",
     "  <tendon><spatial><site site='s0'/><geom geom='box'/><site site='s1'/></spatial></tendon>\n",
     "sphere and cylinder"},
    {"a geom at the end of a branch",
     "  <tendon><spatial><site site='s0'/><site site='s1'/><geom geom='ball'/></spatial></tendon>\n",
     "between two sites"},
    {"a pulley first", "  <tendon><spatial><pulley divisor='2'/><site site='s0'/><site site='s1'/>"
     "</spatial></tendon>\n",
     "pulley"},
    {"a branch of one site",
     "  <tendon><spatial><site site='s0'/><pulley divisor='2'/><site site='s1'/></spatial></tendon>\n",
     "two sites"},
    {"a zero pulley divisor",
     "  <tendon><spatial><site site='s0'/><site site='s1'/><pulley divisor='0'/></spatial></tendon>\n",
     "divisor"},
    {"an empty tendon", "  <tendon><spatial name='void'/></tendon>\n", "empty"},
    {"a fixed tendon on a ball joint",
     "  <tendon><fixed><joint joint='j2' coef='1'/></fixed></tendon>\n", "hinge and slide"},
    {"a fixed tendon without coef", "  <tendon><fixed><joint joint='j1'/></fixed></tendon>\n",
     "coef"},
    {"a fixed tendon with a site", "  <tendon><fixed><site site='s0'/></fixed></tendon>\n",
     "fixed tendon"},
    {"a tendon range without limited",
     "  <tendon><spatial range='0 1'><site site='s0'/><site site='s1'/></spatial></tendon>\n",
     "limited"},
    {"a non-finite stiffness",
     "  <tendon><spatial stiffness='nan'><site site='s0'/><site site='s1'/></spatial></tendon>\n",
     "stiffness"},
    {"an actuator on a missing tendon",
     "  <actuator><motor tendon='nothing'/></actuator>\n", "nothing"},
    {"an actuator on a missing site", "  <actuator><motor site='nothing'/></actuator>\n",
     "nothing"},
    {"an actuator with two transmissions",
     "  <actuator><motor joint='j1' site='s1'/></actuator>\n", "one transmission"},
    {"a slider-crank without slider", "  <actuator><motor cranksite='s1'/></actuator>\n",
     "slidersite"},
    {"a slider-crank without rod",
     "  <actuator><motor cranksite='s1' slidersite='s0'/></actuator>\n", "cranklength"},
    {"a stateless actuator after a stateful one",
     "  <actuator><cylinder joint='j1'/>\n  <motor joint='j1'/></actuator>\n", "stateless"},
    {"a damper without ctrlrange", "  <actuator><damper joint='j1'/></actuator>\n", "ctrlrange"},
    {"a muscle with an empty range",
     "  <actuator><muscle joint='j1' range='1 0.5' lengthrange='0 1'/></actuator>\n", "range"},
    {"an actrange without actlimited",
     "  <actuator><general joint='j1' dyntype='integrator' actrange='-1 1'/></actuator>\n",
     "limited"},
    {"user-defined dynamics", "  <actuator><general joint='j1' dyntype='user'/></actuator>\n",
     "user"},
    {"a muscle whose length range cannot settle (an unlimited hinge)",
     "  <actuator><muscle joint='j1'/></actuator>\n", "length range"},
    {"a tendon equality on a missing tendon",
     "  <equality><tendon tendon1='nothing'/></equality>\n", "nothing"},
    {"keyframe activations of the wrong length",
     "  <actuator><cylinder joint='j1'/></actuator>\n  <keyframe><key act='1 2'/></keyframe>\n",
     "act"},
};

/* The line the error must name: 12 for most, the second line of a two-line body when the
 * second element is the broken one. */
static int expected_line(const bad_case *c) {
  if (strstr(c->what, "stateless actuator after")) return 13;
  if (strstr(c->what, "keyframe")) return 13;
  return 12;
}

static void run_case(const bad_case *c, int index) {
  char path[300], args[400], text[4096];
  snprintf(path, sizeof path, "%s/bad%02d.xml", dir, index);
  int equality = strstr(c->body, "<equality>") != NULL;
  snprintf(text, sizeof text, "%s%s%s</mujoco>\n", head, c->body, equality ? tendon_ok : "");
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f);
  fputs(text, f);
  fclose(f);
  snprintf(args, sizeof args, "info '%s'", path);
  cli_result r = mr_cli_run(dir, "", args);
  char where[360];
  snprintf(where, sizeof where, "moreau: %s:%d: ", path, expected_line(c));
  MR_CHECK_MSG(r.status == 2, "%s: exit %d", c->what, r.status);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1, "%s: %d lines on stderr: %s", c->what,
               count_char(r.err, '\n'), r.err);
  MR_CHECK_MSG(strncmp(r.err, where, strlen(where)) == 0, "%s: expected '%s...', got %s", c->what,
               where, r.err);
  MR_CHECK_MSG(strstr(r.err, c->expect) != NULL, "%s: the message does not say '%s': %s",
               c->what, c->expect, r.err);
  MR_CHECK_MSG(r.out[0] == 0, "%s: something on stdout", c->what);
  printf("%-62s %s", c->what, r.err);
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "bad_tendon");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], (int)i);
  /* the unbroken model loads */
  char path[300], args[400];
  snprintf(path, sizeof path, "%s/good.xml", dir);
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f);
  fprintf(f, "%s%s</mujoco>\n", head, tendon_ok);
  fclose(f);
  snprintf(args, sizeof args, "info '%s'", path);
  cli_result r = mr_cli_run(dir, "", args);
  MR_CHECK_MSG(r.status == 0 && r.err[0] == 0, "the valid model: exit %d: %s", r.status, r.err);
  cli_free(&r);
  MR_CHECK(mr_test_rmdir(dir) == 0);
  MR_TEST_END();
}
