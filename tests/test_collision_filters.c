/* Collision filters: parent/child, welded bodies, contype/conaffinity, <exclude>, SRDF
 * disabled pairs, explicit <pair>s, and the parameter mixing of automatic contacts. Each
 * rule is checked with a scene where the geoms do overlap (the narrowphase alone reports a
 * contact), so a missing contact is the filter's doing. Expected values come from MuJoCo
 * 2.2.2 (see collision/filter.h and contact.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_test.h"
#include "moreau.h"
#include "mr_test_model.h"
#include "collision/filter.h"
#include "collision/narrowphase.h"

static char tmpdir[256];

static const char *write_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, name);
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static mr_model *load_mode(const char *path, const char *srdf, int self_collision) {
  mr_model *m = mr_test_load(path, &(mr_load_options){.srdf = srdf, .self_collision = self_collision});
  MR_REQUIRE(m);
  return m;
}

static mr_model *load(const char *path, const char *srdf) { return load_mode(path, srdf, MR_AUTO); }

static mr_model *load_text(const char *xml) { return load(write_file("m.xml", xml), NULL); }

/* Contacts at the model's initial pose. */
static mr_data *collide(const mr_model *m) {
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d);
  mr_kinematics(m, d);
  mr_collide(m, d);
  return d;
}

static int has_pair(const mr_data *d, int g1, int g2) {
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    if ((c->geom1 == g1 && c->geom2 == g2) || (c->geom1 == g2 && c->geom2 == g1)) return 1;
  }
  return 0;
}

/* The narrowphase on its own finds the pair touching. */
static int touching(const mr_model *m, const mr_data *d, int g1, int g2) {
  mr_contact_point pts[MR_MAX_MANIFOLD];
  return mr_narrowphase(m, d, g1, g2, 0, pts) > 0;
}

static int geom(const mr_model *m, const char *name) {
  int g = mr_name2id(m, MR_OBJ_GEOM, name);
  MR_REQUIRE(g >= 0);
  return g;
}

/* A free capsule with a chain of four hinged capsules, each overlapping its parent at the
 * joint: parent/child pairs never collide. The last link is folded back onto the root
 * capsule (its great-great-grandparent), which must still collide. */
static void test_parent_child(void) {
  mr_model *m = load_text(
      "<mujoco><worldbody><body pos='0 0 1'><freejoint/>"
      "<geom name='c0' type='capsule' fromto='0 0 0 0.3 0 0' size='0.05'/>"
      "<body pos='0.3 0 0'><joint type='hinge' axis='0 0 1'/>"
      "<geom name='c1' type='capsule' fromto='-0.02 0 0 0.3 0 0' size='0.05'/>"
      "<body pos='0.3 0 0'><joint type='hinge' axis='0 0 1'/>"
      "<geom name='c2' type='capsule' fromto='-0.02 0 0 0 0.3 0' size='0.05'/>"
      "<body pos='0 0.3 0'><joint type='hinge' axis='0 0 1'/>"
      "<geom name='c3' type='capsule' fromto='0.02 0 0 -0.3 0 0' size='0.05'/>"
      "<body pos='-0.3 0 0'><joint type='hinge' axis='0 0 1'/>"
      "<geom name='c4' type='capsule' fromto='0.02 0 0 -0.2 -0.27 0' size='0.05'/>"
      "</body></body></body></body></body></worldbody></mujoco>");
  mr_data *d = collide(m);
  const char *names[] = {"c0", "c1", "c2", "c3", "c4"};
  for (int i = 0; i + 1 < 5; i++) {
    int a = geom(m, names[i]), b = geom(m, names[i + 1]);
    MR_CHECK_MSG(touching(m, d, a, b), "%s and %s should overlap at their joint", names[i], names[i + 1]);
    MR_CHECK_MSG(!has_pair(d, a, b), "parent %s and child %s collided", names[i], names[i + 1]);
  }
  int c0 = geom(m, "c0"), c4 = geom(m, "c4");
  MR_CHECK(touching(m, d, c0, c4));
  MR_CHECK_MSG(has_pair(d, c0, c4), "c0 and c4 are not parent and child: they must collide");
  MR_CHECK_MSG(d->ncon == 1, "%d contacts: only c0-c4 may touch", d->ncon);
  mr_data_free(d);
  mr_model_free(m);
}

/* A link hinged to the world still collides with the world's geoms (MuJoCo's exception),
 * and so does the hinged child of a body welded to the world. */
static void test_parent_world(void) {
  mr_model *m = load_text(
      "<mujoco><worldbody><geom name='w' size='.1'/>"
      "<body pos='.15 0 0'><joint type='hinge'/><geom name='a' size='.1'/></body>"
      "<body pos='0 .15 0'><geom name='welded' size='.05'/>"
      "<body pos='0 .05 0'><joint type='hinge'/><geom name='b' size='.1'/></body></body>"
      "</worldbody></mujoco>");
  mr_data *d = collide(m);
  MR_CHECK(has_pair(d, geom(m, "w"), geom(m, "a")));
  MR_CHECK(has_pair(d, geom(m, "welded"), geom(m, "b")));
  MR_CHECK(touching(m, d, geom(m, "w"), geom(m, "welded")));
  MR_CHECK_MSG(!has_pair(d, geom(m, "w"), geom(m, "welded")), "geoms welded to the world collided");
  mr_data_free(d);
  mr_model_free(m);
}

/* Geoms of one body, and of bodies welded together (no joint between them), never touch;
 * the parent rule goes through weld bodies: a hinged body below a welded child of a free
 * body is the free body's child. */
static void test_welded(void) {
  mr_model *m = load_text(
      "<mujoco><worldbody><body><freejoint/>"
      "<geom name='a1' size='.1'/><geom name='a2' pos='.1 0 0' size='.1'/>"
      "<body pos='.15 0 0'><geom name='w' type='box' size='.1 .1 .1'/>"
      "<body pos='.1 0 0'><joint type='hinge'/><geom name='h' size='.1'/></body>"
      "</body></body></worldbody></mujoco>");
  mr_data *d = collide(m);
  int a1 = geom(m, "a1"), a2 = geom(m, "a2"), w = geom(m, "w"), h = geom(m, "h");
  MR_CHECK(touching(m, d, a1, a2));
  MR_CHECK(touching(m, d, a2, h));
  MR_CHECK(!has_pair(d, a1, a2));
  MR_CHECK(!has_pair(d, a1, w));
  MR_CHECK(!has_pair(d, a2, w));
  MR_CHECK(!has_pair(d, w, h));
  MR_CHECK(!has_pair(d, a2, h));
  MR_CHECK_MSG(d->ncon == 0, "%d contacts in a welded body with a hinged child", d->ncon);
  mr_data_free(d);
  mr_model_free(m);
}

/* Every combination of the two low bits of contype and conaffinity on two overlapping free
 * spheres: contact iff (ct1 & ca2) || (ct2 & ca1). */
static void test_contype_conaffinity(void) {
  int checked = 0;
  for (int ct1 = 0; ct1 < 4; ct1++)
    for (int ca1 = 0; ca1 < 4; ca1++)
      for (int ct2 = 0; ct2 < 4; ct2++)
        for (int ca2 = 0; ca2 < 4; ca2++) {
          if ((ct1 | ca1 | ct2 | ca2) > 1 && (ct1 + ca1 + ct2 + ca2) % 3) continue; /* sample the 2-bit cases */
          char xml[1024];
          snprintf(xml, sizeof xml,
                   "<mujoco><worldbody><body><freejoint/><geom size='.1' contype='%d' "
                   "conaffinity='%d'/></body><body pos='.15 0 0'><freejoint/><geom size='.1' "
                   "contype='%d' conaffinity='%d'/></body></worldbody></mujoco>",
                   ct1, ca1, ct2, ca2);
          mr_model *m = load_text(xml);
          mr_data *d = collide(m);
          int want = (ct1 & ca2) || (ct2 & ca1);
          MR_CHECK_MSG(d->ncon == want, "contype %d conaffinity %d vs contype %d conaffinity %d: %d contacts",
                       ct1, ca1, ct2, ca2, d->ncon);
          checked++;
          mr_data_free(d);
          mr_model_free(m);
        }
  MR_CHECK(checked >= 16);
}

static const char *two_spheres =
    "<mujoco><worldbody><body name='A'><freejoint/><geom name='a' size='.1'/></body>"
    "<body name='B' pos='.15 0 0'><freejoint/><geom name='b' size='.1'/></body>"
    "<body name='C' pos='.075 .1 0'><freejoint/><geom name='c' size='.1'/></body>"
    "</worldbody><contact>%s</contact></mujoco>";

static mr_model *load_spheres(const char *contact) {
  char xml[2048];
  snprintf(xml, sizeof xml, two_spheres, contact);
  return load_text(xml);
}

static void test_exclude(void) {
  mr_model *m = load_spheres("<exclude body1='B' body2='A'/>");
  mr_data *d = collide(m);
  int a = geom(m, "a"), b = geom(m, "b"), c = geom(m, "c");
  MR_CHECK(touching(m, d, a, b));
  MR_CHECK(!has_pair(d, a, b));
  MR_CHECK(has_pair(d, a, c));
  MR_CHECK(has_pair(d, b, c));
  mr_data_free(d);
  mr_model_free(m);
}

/* Explicit pairs: checked whatever the filters say, with their own parameters, and they
 * replace the automatic pair of the same geoms (one contact, not two), in either order. */
static void test_explicit_pair(void) {
  mr_model *m = load_text(
      "<mujoco><worldbody><body name='A'><freejoint/>"
      "<geom name='a' size='.1' contype='0' conaffinity='0'/></body>"
      "<body name='B' pos='.15 0 0'><freejoint/><geom name='b' size='.1' contype='0' conaffinity='0'/></body>"
      "</worldbody><contact><exclude body1='A' body2='B'/>"
      "<pair geom1='a' geom2='b' condim='6' friction='0.3 0.3 0.01 0.002 0.002' margin='0.01'/>"
      "</contact></mujoco>");
  mr_data *d = collide(m);
  MR_CHECK(d->ncon == 1);
  if (d->ncon == 1) {
    const mr_contact *c = &d->contact[0];
    MR_CHECK(c->dim == 6);
    MR_CHECK_NEAR(c->friction[0], 0.3, 0);
    MR_CHECK_NEAR(c->friction[2], 0.01, 0);
    MR_CHECK_NEAR(c->friction[4], 0.002, 0);
    MR_CHECK_NEAR(c->margin, 0.01, 0);
    MR_CHECK_NEAR(c->dist, -0.05, 1e-12);
  }
  mr_data_free(d);
  mr_model_free(m);

  m = load_spheres("<pair geom1='b' geom2='a' condim='1'/>");
  d = collide(m);
  int pairs_ab = 0, ga = geom(m, "a"), gb = geom(m, "b");
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    if ((c->geom1 == ga && c->geom2 == gb) || (c->geom1 == gb && c->geom2 == ga)) {
      pairs_ab++;
      MR_CHECK(c->dim == 1);
    }
  }
  MR_CHECK_MSG(pairs_ab == 1, "%d contacts for a pair that is both explicit and automatic", pairs_ab);
  MR_CHECK(d->ncon == 3);
  mr_data_free(d);
  mr_model_free(m);
}

/* The geom of the body named name (one geom per body in overlap.urdf). */
static int geom_of(const mr_model *m, const char *name) {
  for (int g = 0; g < m->ngeom; g++)
    if (!strcmp(mr_id2name(m, MR_OBJ_BODY, m->geom_bodyid[g]), name)) return g;
  MR_REQUIRE(0);
  return -1;
}

/* A URDF chain folded back on itself: every link overlaps its parent, and link3 overlaps
 * link1 (disabled by the SRDF beside the file) and the base (which only the reference-pose
 * rule filters). The three --self-collision modes. */
static void test_srdf(void) {
  const char *urdf = MOREAU_SOURCE_DIR "/tests/data/collision/overlap.urdf";
  const char *none = MOREAU_SOURCE_DIR "/tests/data/collision/nothing_disabled.srdf";
  mr_model *m = load_mode(urdf, none, MR_ON);
  MR_REQUIRE(m->ngeom == 4);
  int base = geom_of(m, "base"), link1 = geom_of(m, "link1"), link2 = geom_of(m, "link2"),
      link3 = geom_of(m, "link3");
  mr_data *d = collide(m);
  /* on: everything but parent and child, the fixed base and its first link included (a
   * URDF's base is a body welded to the world, which MuJoCo's own rule would not filter) */
  MR_CHECK(m->nexclude == 3);
  MR_CHECK(touching(m, d, link1, link3) && touching(m, d, base, link3));
  MR_CHECK(touching(m, d, base, link1) && touching(m, d, link1, link2));
  MR_CHECK(has_pair(d, link1, link3));
  MR_CHECK(has_pair(d, base, link3));
  MR_CHECK(!has_pair(d, base, link1));
  MR_CHECK(!has_pair(d, link1, link2));
  MR_CHECK(!has_pair(d, link2, link3));
  mr_data_free(d);
  mr_model_free(m);

  /* on ignores the SRDF too: the same pairs with the one that disables link1-link3 */
  m = load_mode(urdf, NULL, MR_ON);
  d = collide(m);
  MR_CHECK(has_pair(d, link1, link3) && has_pair(d, base, link3));
  mr_data_free(d);
  mr_model_free(m);

  /* auto: the SRDF's pair, and base-link3 touching at qpos0; nothing collides */
  m = load(urdf, NULL);
  MR_CHECK_MSG(m->nexclude == 3 + 1 + 1, "%d exclusions", m->nexclude);
  d = collide(m);
  MR_CHECK(d->ncon == 0);
  mr_data_free(d);
  mr_model_free(m);

  /* auto without the SRDF's pair: link1-link3 touches at qpos0 as well */
  m = load(urdf, none);
  MR_CHECK_MSG(m->nexclude == 3 + 2, "%d exclusions", m->nexclude);
  d = collide(m);
  MR_CHECK(d->ncon == 0);
  mr_data_free(d);
  mr_model_free(m);

  /* off: no pair within the robot, whatever the poses */
  m = load_mode(urdf, none, MR_OFF);
  MR_CHECK(m->nexclude == 6);
  d = collide(m);
  MR_CHECK(d->ncon == 0);
  mr_data_free(d);
  mr_model_free(m);
}

/* MuJoCo 2.2.2 on these two spheres gives condim 4, friction (0.8 0.8 0.1 0.3 0.3), solref
 * (0.035 1.75), solimp (0.825 0.9125 0.00175 0.5 2); margin is the larger, 0.02. */
static void test_mixing(void) {
  mr_model *m = load_text(
      "<mujoco><worldbody><body><freejoint/><geom size='.1' friction='0.5 0.1 0.2' condim='4' "
      "margin='0.01' solmix='1' solref='0.02 1' solimp='0.9 0.95 0.001 0.5 2'/></body>"
      "<body pos='.15 0 0'><freejoint/><geom size='.1' friction='0.8 0.01 0.3' condim='3' "
      "margin='0.02' gap='0.005' solmix='3' solref='0.04 2' solimp='0.8 0.9 0.002 0.5 2'/></body>"
      "</worldbody></mujoco>");
  mr_data *d = collide(m);
  MR_REQUIRE(d->ncon == 1);
  const mr_contact *c = &d->contact[0];
  const double friction[5] = {0.8, 0.8, 0.1, 0.3, 0.3}, solimp[5] = {0.825, 0.9125, 0.00175, 0.5, 2};
  MR_CHECK(c->dim == 4);
  for (int k = 0; k < 5; k++) MR_CHECK_NEAR(c->friction[k], friction[k], 1e-15);
  for (int k = 0; k < 5; k++) MR_CHECK_NEAR(c->solimp[k], solimp[k], 1e-12);
  MR_CHECK_NEAR(c->solref[0], 0.035, 1e-12);
  MR_CHECK_NEAR(c->solref[1], 1.75, 1e-12);
  MR_CHECK_NEAR(c->margin, 0.02, 0);
  /* the frame is right-handed and orthonormal, its normal from geom1 to geom2 */
  const double *n = c->frame, *t1 = c->frame + 3, *t2 = c->frame + 6;
  double cross[3] = {t1[1] * t2[2] - t1[2] * t2[1], t1[2] * t2[0] - t1[0] * t2[2], t1[0] * t2[1] - t1[1] * t2[0]};
  for (int k = 0; k < 3; k++) MR_CHECK_NEAR(cross[k], n[k], 1e-12);
  MR_CHECK_NEAR(n[0] * t1[0] + n[1] * t1[1] + n[2] * t1[2], 0, 1e-12);
  MR_CHECK_NEAR(fabs(n[0]), 1, 1e-12);
  MR_CHECK(c->geom1 == 0 && c->geom2 == 1 ? n[0] > 0 : n[0] < 0);
  mr_data_free(d);
  mr_model_free(m);
}

/* 30 spheres heaped on one spot above a plane: 435 sphere pairs + 30 sphere-plane contacts
 * against a capacity of 8 x 31 + 32 = 280. The deepest are kept, the rest counted, and the
 * command says so once on stderr. */
static void test_capacity(void) {
  char xml[16384];
  int len = snprintf(xml, sizeof xml, "<mujoco><worldbody><geom type='plane' size='1 1 .1'/>");
  for (int i = 0; i < 30; i++)
    len += snprintf(xml + len, sizeof xml - (size_t)len,
                    "<body pos='%g %g %g'><freejoint/><geom size='.1'/></body>", 0.002 * (i % 5),
                    0.003 * (i / 5), 0.05 + 0.001 * i);
  snprintf(xml + len, sizeof xml - (size_t)len, "</worldbody></mujoco>");
  mr_model *m = load_text(xml);
  mr_data *d = collide(m);
  MR_CHECK(d->maxcon == 8 * 31 + 32);
  MR_CHECK(d->ncon == d->maxcon);
  MR_CHECK_MSG(d->ncon + d->ncon_dropped == 435 + 30, "%d kept + %d dropped", d->ncon, d->ncon_dropped);
  /* every dropped contact is at most as deep as the shallowest kept one */
  double shallowest_kept = -1e300;
  for (int i = 0; i < d->ncon; i++) shallowest_kept = fmax(shallowest_kept, d->contact[i].dist);
  int deeper_dropped = 0, total = 0;
  for (int a = 0; a < m->ngeom; a++)
    for (int b = a + 1; b < m->ngeom; b++) {
      mr_contact_point pts[MR_MAX_MANIFOLD];
      int n = mr_narrowphase(m, d, a, b, 0, pts);
      for (int k = 0; k < n; k++, total++) {
        int kept = 0;
        for (int i = 0; i < d->ncon && !kept; i++)
          kept = d->contact[i].geom1 == a && d->contact[i].geom2 == b && d->contact[i].dist == pts[k].dist;
        if (!kept && pts[k].dist < shallowest_kept) deeper_dropped++;
      }
    }
  MR_CHECK(total == 465);
  MR_CHECK_MSG(deeper_dropped == 0, "%d dropped contacts were deeper than a kept one", deeper_dropped);
  mr_data_free(d);
  mr_model_free(m);

  char cmd[1024], errpath[512];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", tmpdir);
  snprintf(cmd, sizeof cmd, "%s run %s/m.xml --steps 3 --no-gravity >/dev/null 2>%s", MOREAU_BIN, tmpdir, errpath);
  MR_CHECK(system(cmd) == 0);
  FILE *f = fopen(errpath, "r");
  MR_REQUIRE(f);
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = 0;
  fclose(f);
  unlink(errpath);
  MR_CHECK_MSG(strstr(text, "warning") && strstr(text, "capacity"), "stderr: %s", text);
  const char *first = strstr(text, "warning");
  MR_CHECK_MSG(first && !strstr(first + 1, "warning"), "the warning must come once: %s", text);
}

static int compare_keys(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* mr_sort_keys against qsort: sizes on both sides of its switch from insertion sort to
 * radix sort, keys with duplicates, keys differing in one byte only (the radix passes skip
 * the others), and keys over all 64 bits. */
static void test_sort_keys(void) {
  enum { MAXN = 700 };
  static uint64_t keys[MAXN], scratch[MAXN], expect[MAXN];
  const int sizes[] = {0, 1, 2, 3, 17, 63, 64, 65, 200, MAXN};
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int kind = 0; kind < 3; kind++) {
      int n = sizes[s];
      for (int i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = state ^ (state >> 29);
        keys[i] = kind == 0 ? r % 23                          /* many duplicates */
                  : kind == 1 ? (uint64_t)(r & 0xff) << 40     /* one byte varies */
                              : r;                              /* all 64 bits */
        expect[i] = keys[i];
      }
      qsort(expect, (size_t)n, sizeof expect[0], compare_keys);
      mr_sort_keys(keys, scratch, n);
      MR_CHECK_MSG(n == 0 || memcmp(keys, expect, (size_t)n * sizeof keys[0]) == 0,
                   "%d keys of kind %d sorted differently from qsort", n, kind);
    }
}

int main(void) {
  test_sort_keys();
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "filters");
  test_parent_child();
  test_parent_world();
  test_welded();
  test_contype_conaffinity();
  test_exclude();
  test_explicit_pair();
  test_srdf();
  test_mixing();
  test_capacity();
  unlink(write_file("m.xml", ""));
  rmdir(tmpdir);
  MR_TEST_END();
}
