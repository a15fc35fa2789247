/* MJCF parser: defaults and childclass, orientation forms, fromto, angle units, includes,
 * warnings and errors. Expected numbers come from MuJoCo 2.2.2 (see test_mj_mjcf.c for the
 * field-by-field comparison on whole models). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_test.h"
#include "engine/io/spec.h"

static char tmpdir[256];

static const char *write_file(const char *name, const char *text) {
  static char path[8][512];
  static int slot = 0;
  char *p = path[slot++ % 8];
  snprintf(p, 512, "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  MR_REQUIRE(f);
  fputs(text, f);
  fclose(f);
  return p;
}

/* Parses text written to name; returns the spec (NULL on error, with err filled). */
static mr_spec *parse(const char *name, const char *text, char *err, int errlen) {
  const char *path = write_file(name, text);
  mr_spec *s = mr_spec_create(path);
  MR_REQUIRE(s);
  s->quiet = 1;
  if (mr_mjcf_parse(s, path, err, errlen) != 0) {
    mr_spec_free(s);
    return NULL;
  }
  return s;
}

static void check_quat(const double *q, double w, double x, double y, double z) {
  MR_CHECK_NEAR(q[0], w, 1e-12);
  MR_CHECK_NEAR(q[1], x, 1e-12);
  MR_CHECK_NEAR(q[2], y, 1e-12);
  MR_CHECK_NEAR(q[3], z, 1e-12);
}

static int contains(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

static void test_defaults(void) {
  char err[512] = "";
  mr_spec *s = parse("defaults.xml",
                     "<mujoco>\n"
                     "  <default>\n"
                     "    <joint damping='0.5'/>\n"
                     "    <geom friction='0.8' rgba='0.2 0.4 0.6 1'/>\n"
                     "    <default class='limb'>\n"
                     "      <joint range='-45 90' limited='true' stiffness='2'/>\n"
                     "      <geom type='capsule' size='0.05' condim='4'/>\n"
                     "      <default class='foot'><geom type='box' size='0.1 0.05 0.02'/></default>\n"
                     "    </default>\n"
                     "    <default class='other'><joint axis='1 0 0'/></default>\n"
                     "  </default>\n"
                     "  <worldbody>\n"
                     "    <body name='a' childclass='limb'>\n"
                     "      <joint name='j0'/>\n"
                     "      <joint name='j1' class='other'/>\n"
                     "      <geom name='g0' fromto='0 0 0 0 0 1'/>\n"
                     "      <geom name='g1' class='main'/>\n"
                     "      <body name='b' childclass='foot'><geom name='g2'/>\n"
                     "        <body name='c'><geom name='g3' size='0.3'/><joint name='j2'/></body>\n"
                     "      </body>\n"
                     "    </body>\n"
                     "  </worldbody>\n"
                     "</mujoco>\n",
                     err, sizeof err);
  MR_REQUIRE(s);
  MR_CHECK(s->nbodies == 4 && s->njoints == 3 && s->ngeoms == 4);
  const mr_spec_joint *j0 = &s->joints[0], *j1 = &s->joints[1], *j2 = &s->joints[2];
  MR_CHECK(j0->limited == 1);
  MR_CHECK_NEAR(j0->range[0], -45 * 3.14159265358979323846 / 180, 1e-12);
  MR_CHECK_NEAR(j0->range[1], 90 * 3.14159265358979323846 / 180, 1e-12);
  MR_CHECK_NEAR(j0->stiffness, 2, 0);
  MR_CHECK_NEAR(j0->damping, 0.5, 0); /* from main through limb */
  MR_CHECK(j1->limited == 0);        /* class other derives from main, not limb */
  MR_CHECK_NEAR(j1->axis[0], 1, 0);
  MR_CHECK_NEAR(j1->damping, 0.5, 0);
  MR_CHECK(j2->limited == 1); /* childclass foot, inherited by c, derives from limb */
  MR_CHECK(s->geoms[0].type == MR_GEOM_CAPSULE && s->geoms[0].condim == 4);
  MR_CHECK_NEAR(s->geoms[0].friction[0], 0.8, 0);
  MR_CHECK(s->geoms[1].type == MR_GEOM_SPHERE && s->geoms[1].condim == 3);
  MR_CHECK(s->geoms[2].type == MR_GEOM_BOX && s->geoms[2].condim == 4);
  MR_CHECK_NEAR(s->geoms[2].size[1], 0.05, 0);
  MR_CHECK(s->geoms[3].type == MR_GEOM_BOX && s->geoms[3].body == 3);
  MR_CHECK_NEAR(s->geoms[3].size[0], 0.3, 0); /* only the first size is overwritten */
  MR_CHECK_NEAR(s->geoms[3].size[2], 0.02, 0);
  MR_CHECK_NEAR(s->geoms[3].rgba[1], 0.4, 1e-6);
  mr_spec_free(s);

  s = parse("badclass.xml", "<mujoco>\n<worldbody>\n<geom class='nope' size='1'/>\n</worldbody>\n</mujoco>\n",
            err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "badclass.xml:3:") && contains(err, "unknown default class 'nope'"),
               "%s", err);
}

static void test_orientations(void) {
  char err[512] = "";
  mr_spec *s = parse("orient.xml",
                     "<mujoco>\n"
                     "  <worldbody>\n"
                     "    <body euler='10 20 30'/>\n"
                     "    <body quat='1 2 3 4'/>\n"
                     "    <geom zaxis='1 1 0' size='1'/>\n"
                     "    <geom zaxis='0 0 -1' size='1'/>\n"
                     "    <geom xyaxes='1 1 0 0 1 1' size='1'/>\n"
                     "    <geom axisangle='1 1 0 30' size='1'/>\n"
                     "  </worldbody>\n"
                     "</mujoco>\n",
                     err, sizeof err);
  MR_REQUIRE(s);
  check_quat(s->bodies[1].quat, 0.9437143641474891, 0.12767944069578066, 0.14487812541736916,
             0.26853582275156918);
  check_quat(s->bodies[2].quat, 0.18257418583505536, 0.36514837167011072, 0.54772255750516607,
             0.73029674334022143);
  check_quat(s->geoms[0].quat, 0.70710678118654757, -0.5, 0.5, 0);
  check_quat(s->geoms[1].quat, 6.123233995736766e-17, 1, 0, 0);
  check_quat(s->geoms[2].quat, 0.82047323857028331, 0.42470820027786693, 0.1759198966061612,
             0.33985114297998731);
  check_quat(s->geoms[3].quat, 0.96592582628906831, 0.1830127018922193, 0.1830127018922193, 0);
  mr_spec_free(s);

  /* uppercase: rotations about the fixed axes */
  s = parse("orient2.xml",
            "<mujoco><compiler eulerseq='XYZ'/><worldbody><body euler='10 20 30'/></worldbody></mujoco>",
            err, sizeof err);
  MR_REQUIRE(s);
  check_quat(s->bodies[1].quat, 0.95154852464378858, 0.038134576474850156, 0.18930785741200001,
             0.23929833774473031);
  mr_spec_free(s);
}

static void test_fromto_and_units(void) {
  char err[512] = "";
  mr_spec *s = parse("fromto.xml",
                     "<mujoco>\n"
                     "  <compiler angle='radian' autolimits='true'/>\n"
                     "  <worldbody><body>\n"
                     "    <joint range='-1 2' ref='0.5'/>\n"
                     "    <joint type='slide' range='-1 2'/>\n"
                     "    <geom type='capsule' fromto='0 0 0 1 2 3' size='0.1'/>\n"
                     "    <geom type='box' fromto='0 0 0 1 2 3' size='0.1 0.2 0.3'/>\n"
                     "    <geom type='cylinder' fromto='0 0 0 0 0 3' size='0.1 0.2 0.3'/>\n"
                     "  </body></worldbody>\n"
                     "</mujoco>\n",
                     err, sizeof err);
  MR_REQUIRE(s);
  MR_CHECK(s->joints[0].limited && s->joints[1].limited);
  MR_CHECK_NEAR(s->joints[0].range[1], 2, 0);
  MR_CHECK_NEAR(s->joints[0].ref, 0.5, 0);
  MR_CHECK_NEAR(s->joints[1].range[0], -1, 0);
  const mr_spec_geom *cap = &s->geoms[0], *box = &s->geoms[1], *cyl = &s->geoms[2];
  MR_CHECK_NEAR(cap->pos[0], 0.5, 1e-15);
  MR_CHECK_NEAR(cap->pos[2], 1.5, 1e-15);
  MR_CHECK_NEAR(cap->size[1], 1.8708286933869707, 1e-12);
  check_quat(cap->quat, 0.31481444873347764, 0.8489484615068863, -0.42447423075344315, 0);
  MR_CHECK_NEAR(box->size[0], 0.1, 0);
  MR_CHECK_NEAR(box->size[1], 0.1, 0);
  MR_CHECK_NEAR(box->size[2], 1.8708286933869707, 1e-12);
  MR_CHECK_NEAR(cyl->size[1], 1.5, 1e-15);
  MR_CHECK_NEAR(cyl->size[2], 0.3, 0);
  check_quat(cyl->quat, 6.123233995736766e-17, 1, 0, 0);
  mr_spec_free(s);

  /* degrees (the default): hinge range, ref and springref, axisangle; slide range is a length */
  s = parse("degree.xml",
            "<mujoco><compiler autolimits='true'/><worldbody><body>"
            "<joint range='-90 180' ref='90' springref='45'/><joint type='slide' range='-1 2'/>"
            "<joint type='ball' range='0 60'/><geom size='1'/></body></worldbody></mujoco>",
            err, sizeof err);
  MR_REQUIRE(s);
  MR_CHECK_NEAR(s->joints[0].range[0], -3.14159265358979323846 / 2, 1e-15);
  MR_CHECK_NEAR(s->joints[0].ref, 3.14159265358979323846 / 2, 1e-15);
  MR_CHECK_NEAR(s->joints[0].springref, 3.14159265358979323846 / 4, 1e-15);
  MR_CHECK_NEAR(s->joints[1].range[1], 2, 0);
  MR_CHECK_NEAR(s->joints[2].range[1], 1.0471975511965976, 1e-15);
  mr_spec_free(s);

  /* MuJoCo 2.2.2: autolimits is off by default and a bare range is an error */
  s = parse("nolimits.xml",
            "<mujoco>\n<worldbody><body>\n<joint range='0 1'/>\n<geom size='1'/></body></worldbody></mujoco>",
            err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "nolimits.xml:3:") && contains(err, "limited"), "%s", err);
}

static void test_assets_actuators_equality(void) {
  char err[512] = "";
  mr_spec *s = parse(
      "assets.xml",
      "<mujoco>\n"
      "  <compiler meshdir='meshes' autolimits='true'/>\n"
      "  <default><position kp='7'/></default>\n"
      "  <asset>\n"
      "    <mesh file='parts/arm.stl' scale='2 2 2'/>\n"
      "    <material name='red' rgba='1 0 0 1' texture='grid'/>\n"
      "    <texture name='grid' type='2d' builtin='checker' width='8' height='8'/>\n"
      "  </asset>\n"
      "  <worldbody><body name='b'><joint name='j'/><geom size='1' material='red'/>\n"
      "    <geom type='mesh' mesh='arm'/></body></worldbody>\n"
      "  <equality><weld body1='b'/><connect body1='b' anchor='1 2 3'/>\n"
      "    <joint joint1='j' polycoef='0 2 0 0 0'/></equality>\n"
      "  <actuator><motor joint='j' gear='3'/><position joint='j'/>\n"
      "    <velocity joint='j' kv='4'/><adhesion body='b' name='glue'/>\n"
      "    <general joint='j' gainprm='2' biasprm='1 2 3'/></actuator>\n"
      "  <keyframe><key qpos='0.5' ctrl='1 2 3 4 5'/></keyframe>\n"
      "</mujoco>\n",
      err, sizeof err);
  MR_REQUIRE(s);
  MR_CHECK(s->nmeshes == 1 && contains(s->meshes[0].name, "arm") && strlen(s->meshes[0].name) == 3);
  MR_CHECK_MSG(contains(s->meshes[0].path, "/meshes/parts/arm.stl"), "%s", s->meshes[0].path);
  MR_CHECK_NEAR(s->meshes[0].scale[2], 2, 0);
  MR_CHECK(s->materials[0].texture == 0);
  MR_CHECK(s->geoms[0].material == 0);
  MR_CHECK_NEAR(s->geoms[0].rgba[1], 0, 0); /* the material's color */
  MR_CHECK(s->geoms[1].type == MR_GEOM_MESH && s->geoms[1].mesh == 0);
  MR_CHECK(s->nequalities == 3);
  MR_CHECK(s->equalities[0].type == MR_EQ_WELD && s->equalities[0].obj2 == 0);
  MR_CHECK_NEAR(s->equalities[0].data[10], 1, 0);
  MR_CHECK_NEAR(s->equalities[0].data[6], 0, 0); /* zero relpose quat: computed later */
  MR_CHECK_NEAR(s->equalities[1].data[2], 3, 0);
  MR_CHECK(s->equalities[2].type == MR_EQ_JOINT && s->equalities[2].obj2 == -1);
  MR_CHECK_NEAR(s->equalities[2].data[1], 2, 0);
  MR_CHECK(s->nactuators == 4);
  MR_CHECK(s->actuators[0].kind == MR_ACT_MOTOR);
  MR_CHECK_NEAR(s->actuators[0].gear[0], 3, 0);
  MR_CHECK(s->actuators[0].biastype == MR_BIAS_NONE); /* the class's position bias is off */
  MR_CHECK(s->actuators[1].kind == MR_ACT_POSITION);
  MR_CHECK_NEAR(s->actuators[1].gainprm[0], 7, 0);
  MR_CHECK_NEAR(s->actuators[1].biasprm[1], -7, 0);
  MR_CHECK_NEAR(s->actuators[2].biasprm[2], -4, 0);
  MR_CHECK(s->actuators[3].kind == MR_ACT_GENERAL);
  MR_CHECK_NEAR(s->actuators[3].gainprm[0], 2, 0);
  /* the class's <position> made the one actuator default affine: general inherits it */
  MR_CHECK_NEAR(s->actuators[3].biasprm[2], 3, 0);
  MR_CHECK(s->nkeys == 1 && s->keys[0].nqpos == 1 && s->keys[0].nctrl == 4);
  MR_CHECK_NEAR(s->keys[0].ctrl[3], 5, 0); /* the skipped adhesion actuator's control dropped */
  mr_spec_free(s);
}

static void test_includes(void) {
  char err[512] = "";
  write_file("inc_body.xml",
             "<mujoco>\n  <body name='inc'>\n    <geom size='0.1'/>\n  </body>\n</mujoco>\n");
  write_file("inc_top.xml",
             "<mujoco><worldbody><include file='inc_body.xml'/></worldbody></mujoco>\n");
  mr_spec *s = parse("inc_main.xml",
                     "<mujoco>\n<include file='inc_top.xml'/>\n<worldbody><body name='after'>"
                     "<geom size='1'/></body></worldbody>\n</mujoco>\n",
                     err, sizeof err);
  MR_REQUIRE(s);
  MR_CHECK(s->nbodies == 3);
  MR_CHECK(contains(s->bodies[1].name, "inc") && contains(s->bodies[2].name, "after"));
  MR_CHECK_MSG(contains(s->geoms[0].src.file, "inc_body.xml") && s->geoms[0].src.line == 3,
               "%s:%d", s->geoms[0].src.file, s->geoms[0].src.line);
  mr_spec_free(s);

  /* an error inside an included file names that file and line */
  write_file("inc_bad.xml", "<mujoco>\n<worldbody>\n<geom size='1 x'/>\n</worldbody>\n</mujoco>\n");
  s = parse("inc_main2.xml", "<mujoco><include file='inc_bad.xml'/></mujoco>", err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "inc_bad.xml:3:") && contains(err, "size"), "%s", err);

  write_file("b.xml", "<mujoco><include file='a.xml'/></mujoco>");
  s = parse("a.xml", "<mujoco><include file='b.xml'/></mujoco>", err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "include loop: a.xml -> b.xml -> a.xml"), "%s", err);

  /* a chain of 20 includes is refused at the 17th file, which the error names */
  for (int i = 1; i < 20; i++) {
    char name[32], text[96];
    snprintf(name, sizeof name, "deep%d.xml", i);
    snprintf(text, sizeof text, "<mujoco><include file='deep%d.xml'/></mujoco>", i + 1);
    write_file(name, text);
  }
  write_file("deep20.xml", "<mujoco/>");
  s = parse("deep0.xml", "<mujoco><include file='deep1.xml'/></mujoco>", err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "deep16.xml:1: includes nested deeper than 16"), "%s", err);

  s = parse("self.xml", "<mujoco>\n<include file='self.xml'/></mujoco>", err, sizeof err);
  MR_CHECK(!s);
  MR_CHECK_MSG(contains(err, "self.xml:2: include loop: self.xml -> self.xml"), "%s", err);
}

/* Runs the parser with stderr captured; returns how many lines contain needle. */
static int count_warnings(const char *name, const char *text, const char *needle) {
  char capture[512];
  snprintf(capture, sizeof capture, "%s/stderr.txt", tmpdir);
  fflush(stderr);
  int saved = dup(2);
  FILE *f = fopen(capture, "w");
  MR_REQUIRE(f && saved >= 0);
  dup2(fileno(f), 2);
  const char *path = write_file(name, text);
  mr_spec *s = mr_spec_create(path);
  char err[512] = "";
  int rc = mr_mjcf_parse(s, path, err, sizeof err);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  fclose(f);
  mr_spec_free(s);
  MR_CHECK_MSG(rc == 0, "%s", err);
  f = fopen(capture, "r");
  MR_REQUIRE(f);
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, needle)) n++;
  fclose(f);
  return n;
}

static void test_warnings(void) {
  int n = count_warnings("warn.xml",
                         "<mujoco>\n<size njmax='10'/><visual/><statistic extent='2'/>\n"
                         "<custom/><sensor><jointpos joint='j'/><user dim='1'/></sensor><custom/>\n"
                         "<worldbody><body><joint name='j'/><geom size='1'/><composite/>"
                         "<composite/></body></worldbody>\n</mujoco>\n",
                         "outside the supported");
  MR_CHECK_MSG(n == 3, "%d warnings (custom, user sensor, composite expected once each)", n);
  n = count_warnings("warn2.xml", "<mujoco><size njmax='10'/><visual/><statistic/></mujoco>",
                     "warning");
  MR_CHECK_MSG(n == 0, "%d warnings for silently ignored sections", n);
}

static void test_errors(void) {
  static const struct {
    const char *text, *expect;
  } cases[] = {
      {"<mujoco>\n<worldbody>\n<geom size='1 abc'/>\n</worldbody></mujoco>", ":3: attribute 'size'"},
      {"<mujoco>\n<worldbody>\n<geom size='nan'/>\n</worldbody></mujoco>", ":3: attribute 'size'"},
      {"<mujoco>\n<worldbody>\n<body pos='1 2'/>\n</worldbody></mujoco>", ":3: attribute 'pos'"},
      {"<mujoco>\n<worldbody>\n<body><joint type='screw'/></body>\n</worldbody></mujoco>",
       ":3: attribute 'type'"},
      {"<mujoco>\n<worldbody>\n<geom type='blob'/>\n</worldbody></mujoco>", ":3: attribute 'type'"},
      {"<mujoco>\n<worldbody>\n<geom type='mesh' mesh='m'/>\n</worldbody></mujoco>",
       ":3: unknown mesh 'm'"},
      {"<mujoco>\n<worldbody>\n<geom material='m'/>\n</worldbody></mujoco>",
       ":3: unknown material 'm'"},
      {"<mujoco>\n<actuator>\n<motor joint='nope'/>\n</actuator></mujoco>", ":3: unknown joint 'nope'"},
      {"<mujoco>\n<equality>\n<connect body1='nope' anchor='0 0 0'/>\n</equality></mujoco>",
       ":3: unknown body 'nope'"},
      {"<mujoco>\n<worldbody><body>\n<inertial mass='1' diaginertia='1 1 1'/>\n</body></worldbody></mujoco>",
       ":3: <inertial> needs a pos"},
      {"<mujoco>\n<compiler coordinate='global'/></mujoco>", ":2: compiler coordinate"},
      {"<mujoco>\n<worldbody>\n<joint/>\n</worldbody></mujoco>", ":3: the world body cannot"},
      {"<robot/>", ":1: root element"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char err[512] = "";
    mr_spec *s = parse("bad.xml", cases[i].text, err, sizeof err);
    MR_CHECK_MSG(!s, "case %zu parsed", i);
    MR_CHECK_MSG(contains(err, "bad.xml") && contains(err, cases[i].expect), "case %zu: '%s'", i,
                 err);
    MR_CHECK_MSG(!strchr(err, '\n'), "case %zu: multi-line error", i);
    mr_spec_free(s);
  }
}

/* A body left massless because an element inside it was skipped (MuJoCo's composite
 * samples: the composite's bodies and geoms were to give it mass) says so in its one line. */
static void test_skipped_in_error(void) {
  const char *path = write_file("composite.xml",
                                "<mujoco>\n<worldbody>\n<body name='cloth'><freejoint/>\n"
                                "<composite type='cloth' count='3 3 1'/></body>\n</worldbody></mujoco>\n");
  mr_load_options opt = {0};
  opt.quiet = 1;
  char err[512] = "";
  mr_model *m = mr_model_load(path, &opt, err, sizeof err);
  MR_CHECK(m == NULL);
  MR_CHECK_MSG(contains(err, "composite.xml:3:") && contains(err, "'cloth' has joints but no mass") &&
                   contains(err, "<composite> is outside the supported MJCF subset") &&
                   !strchr(err, '\n'),
               "'%s'", err);
  mr_model_free(m);
}

static void test_external_entity(void) {
  char err[512] = "";
  mr_spec *s = parse("xxe.xml",
                     "<?xml version='1.0'?>\n"
                     "<!DOCTYPE mujoco [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>\n"
                     "<mujoco model='&e;'><worldbody><geom name='&e;' size='1'/></worldbody></mujoco>\n",
                     err, sizeof err);
  if (s) {
    MR_CHECK(!contains(s->model_name, "root"));
    MR_CHECK(s->ngeoms == 1 && !contains(s->geoms[0].name, "root"));
    mr_spec_free(s);
  } else {
    MR_CHECK_MSG(!contains(err, "root:"), "%s", err);
  }
  /* the same entity as text content is not read either */
  s = parse("xxe2.xml",
            "<?xml version='1.0'?>\n<!DOCTYPE mujoco [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>\n"
            "<mujoco><worldbody><geom size='1'>&e;</geom></worldbody></mujoco>\n",
            err, sizeof err);
  if (s) mr_spec_free(s);
  MR_CHECK(!contains(err, "root:"));
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_mjcf");
  test_defaults();
  test_orientations();
  test_fromto_and_units();
  test_assets_actuators_equality();
  test_includes();
  test_warnings();
  test_errors();
  test_skipped_in_error();
  test_external_entity();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
