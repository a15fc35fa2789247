/* Corpus: every .urdf under ../shared/models/example-robot-data loads with its meshes, has
 * the dof count, body count and total mass that the XML says, and survives 1 s of passive
 * fixed-base simulation.
 *
 * The expected numbers are computed here from the XML alone, never through the engine's
 * parser, with libxml2 walking the <robot> element's children. The rules, as documented
 * in engine/io/urdf.c:
 *   nv    = sum over joints of revolute/continuous/prismatic 1, planar 3, floating 6
 *   nbody = 1 (world) + links - links whose parent joint is fixed (those merge into their
 *           parent; the fixed-base root stays a body, welded to the world); a root link
 *           named "world" is the world body itself, and the links fixed to it stay bodies
 *   mass  = sum of the links' <inertial><mass value>
 * package:// URIs resolve against MOREAU_SHARED_DIR/models, where example-robot-data lives.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moreau.h"
#include "mr_corpus.h"
#include "mr_test.h"

#include <libxml/parser.h>

#define CORPUS_ROOT MOREAU_SHARED_DIR "/models/example-robot-data"

typedef struct expected {
  int nv, nbody, nmeshelem;
  double mass;
} expected;

static int joint_dofs(const char *type) {
  if (!type) return 0;
  if (!strcmp(type, "revolute") || !strcmp(type, "continuous") || !strcmp(type, "prismatic"))
    return 1;
  if (!strcmp(type, "planar")) return 3;
  if (!strcmp(type, "floating")) return 6;
  return 0;
}

/* ------------------------------------------------------------------ libxml2 */

static const xmlNode *child_named(const xmlNode *n, const char *name) {
  for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name)) return c;
  return NULL;
}

static double mass_of(const xmlNode *link) {
  const xmlNode *m = child_named(child_named(link, "inertial"), "mass");
  xmlChar *v = m ? xmlGetProp(m, (const xmlChar *)"value") : NULL;
  double mass = v ? strtod((const char *)v, NULL) : 0;
  xmlFree(v);
  return mass;
}

static int count_meshes(const xmlNode *n) {
  int k = 0;
  for (const xmlNode *c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE)
      k += !strcmp((const char *)c->name, "mesh") + count_meshes(c);
  return k;
}

static int libxml_expected(const char *path, expected *e) {
  xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) return -1;
  memset(e, 0, sizeof *e);
  int nlink = 0, nfixed = 0, fixed_to_world = 0, has_world = 0, world_is_child = 0;
  for (const xmlNode *c = xmlDocGetRootElement(doc)->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (!strcmp((const char *)c->name, "link")) {
      xmlChar *name = xmlGetProp(c, (const xmlChar *)"name");
      has_world |= name && !strcmp((const char *)name, "world");
      xmlFree(name);
      nlink++;
      e->mass += mass_of(c);
      e->nmeshelem += count_meshes(c);
    } else if (!strcmp((const char *)c->name, "joint")) {
      xmlChar *type = xmlGetProp(c, (const xmlChar *)"type");
      e->nv += joint_dofs((const char *)type);
      int fixed = type && !strcmp((const char *)type, "fixed");
      nfixed += fixed;
      xmlFree(type);
      xmlChar *parent = xmlGetProp((xmlNode *)child_named(c, "parent"), (const xmlChar *)"link");
      xmlChar *child = xmlGetProp((xmlNode *)child_named(c, "child"), (const xmlChar *)"link");
      fixed_to_world += fixed && parent && !strcmp((const char *)parent, "world");
      world_is_child |= child && !strcmp((const char *)child, "world");
      xmlFree(parent);
      xmlFree(child);
    }
  }
  xmlFreeDoc(doc);
  e->nbody = 1 + nlink - nfixed;
  if (has_world && !world_is_child) e->nbody += fixed_to_world - 1;
  return 0;
}

/* ------------------------------------------------------------------ the walk */

static void check_robot(const char *path) {
  const char *shown = path + strlen(CORPUS_ROOT) + 1;
  expected e;
  int readable = libxml_expected(path, &e) == 0;
  MR_CHECK_MSG(readable, "%s: libxml2 cannot read it", shown);
  if (!readable) return;
  char err[2048];
  mr_load_options opt = {.package_path = MOREAU_SHARED_DIR "/models", .quiet = 1};
  mr_model *m = mr_model_load(path, &opt, err, sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  if (!m) return;
  printf("%-60s nv %3d  nbody %3d  mass %9.4f  nmesh %3d\n", shown, m->nv, m->nbody,
         mr_model_total_mass(m), m->nmesh);
  MR_CHECK_MSG(m->nv == e.nv, "%s: nv %d, expected %d", shown, m->nv, e.nv);
  MR_CHECK_MSG(m->nbody == e.nbody, "%s: nbody %d, expected %d", shown, m->nbody, e.nbody);
  MR_CHECK_MSG(fabs(mr_model_total_mass(m) - e.mass) <= 1e-9 * (1 + e.mass),
               "%s: mass %.12g, expected %.12g", shown, mr_model_total_mass(m), e.mass);
  MR_CHECK_MSG((m->nmesh > 0) == (e.nmeshelem > 0) && (m->nmesh == 0 || m->nmeshvert > 0),
               "%s: %d meshes loaded for %d <mesh> elements", shown, m->nmesh, e.nmeshelem);
  MR_CHECK_NEAR(m->opt.timestep, 0.001, 0);

  mr_data *d = mr_data_create(m);
  MR_CHECK(d != NULL);
  if (d) {
    int steps = (int)lround(1.0 / m->opt.timestep), failed = -1;
    for (int k = 0; k < steps && failed < 0; k++)
      if (mr_step(m, d) != 0 || !state_finite(m, d)) failed = k;
    MR_CHECK_MSG(failed < 0, "%s: state not finite at step %d", shown, failed);
    mr_data_free(d);
  }
  mr_model_free(m);
}

int main(void) {
  path_list list = mr_corpus_urdfs(CORPUS_ROOT);
  MR_CHECK_MSG(list.n > 0, "no .urdf under %s", CORPUS_ROOT);
  for (int i = 0; i < list.n; i++) {
    check_robot(list.paths[i]);
    free(list.paths[i]);
  }
  free(list.paths);
  printf("%d URDF files\n", list.n);
  MR_TEST_END();
}
