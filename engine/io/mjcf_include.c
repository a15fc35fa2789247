/* <include file="..."/>: the included file's <mujoco> children replace the include element,
 * wherever it stands. Paths are relative to the top-level model's directory, as in MuJoCo.
 *
 * Spliced nodes are copies made in the main document (so they share its lifetime and
 * dictionary); each remembers its own file in node->_private so that errors inside an
 * included file name that file and its line.
 *
 * The work is bounded however the includes are arranged: besides the depth of nesting and
 * loops along the current chain, all includes of one model share one budget of files
 * (MJCF_MAX_INCLUDES), bytes read (MR_XML_MAX_BYTES, the main file counted) and nodes
 * (MR_XML_MAX_NODES: every element and attribute read, and every copy spliced in), so a
 * file included three times at each of 16 levels fails in milliseconds instead of
 * building 43 million bodies. Nesting depth is counted across files as well.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

enum { MJCF_MAX_INCLUDES = 1000, MJCF_MAX_NESTING = 256 };

typedef struct mjcf_include_chain {
  const char *shown[MJCF_MAX_INCLUDE_DEPTH + 2]; /* file names as written, for messages */
  char *real[MJCF_MAX_INCLUDE_DEPTH + 2];        /* canonical paths, for loop detection */
  int n;
  int includes;         /* files included so far, all chains */
  mr_xml_budget budget; /* what all files and copies may still add up to */
} mjcf_include_chain;

static const char *mjcf_base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Gives every node of a freshly read included tree its file (nested includes already
 * tagged keep theirs). */
static void mjcf_tag_file(xmlNode *n, const char *file) {
  for (; n; n = n->next) {
    if (!n->_private) n->_private = (void *)file;
    if (n->type == XML_ELEMENT_NODE) mjcf_tag_file(n->children, file);
  }
}

/* Copies of nodes lose _private (and, in some libxml2 versions, line numbers): carry them
 * over by walking the original and the copy side by side. */
static void mjcf_copy_tags(xmlNode *copy, const xmlNode *orig) {
  for (; copy && orig; copy = copy->next, orig = orig->next) {
    copy->_private = orig->_private;
    copy->line = orig->line;
    if (copy->type == XML_ELEMENT_NODE) mjcf_copy_tags(copy->children, orig->children);
  }
}

static long mjcf_expand_in(mjcf_ctx *c, xmlNode *parent, mjcf_include_chain *chain, int depth);

/* Charges n nodes to the model's budget; -1 (err set at node) once it is spent. */
static int mjcf_charge(mjcf_ctx *c, const xmlNode *node, mjcf_include_chain *chain, long n) {
  chain->budget.nodes -= n;
  if (chain->budget.nodes >= 0) return 0;
  return mjcf_fail(c, node, "the model exceeds %ld elements and attributes (includes counted)",
                   MR_XML_MAX_NODES);
}

static long mjcf_attribute_count(const xmlNode *n) {
  long k = 0;
  for (const xmlAttr *a = n->properties; a; a = a->next) k++;
  return k;
}

static int mjcf_loop_error(mjcf_ctx *c, const xmlNode *inc, const mjcf_include_chain *chain,
                           const char *file) {
  char msg[1024] = "include loop: ";
  for (int i = 0; i < chain->n; i++) {
    size_t len = strlen(msg);
    snprintf(msg + len, sizeof msg - len, "%s -> ", mjcf_base(chain->shown[i]));
  }
  size_t len = strlen(msg);
  snprintf(msg + len, sizeof msg - len, "%s", mjcf_base(file));
  return mjcf_fail(c, inc, "%s", msg);
}

/* Reads the include's file, expands its own includes, and splices its content before inc.
 * Returns the number of nodes spliced in, or -1. */
static long mjcf_splice(mjcf_ctx *c, xmlNode *inc, mjcf_include_chain *chain, int depth) {
  const char *file = mr_xml_attr(inc, "file");
  if (!file || !file[0]) return mjcf_fail(c, inc, "<include> needs a file attribute");
  if (++chain->includes > MJCF_MAX_INCLUDES)
    return mjcf_fail(c, inc, "more than %d included files in one model", MJCF_MAX_INCLUDES);
  char path[MJCF_PATH_MAX];
  mjcf_join_path(path, sizeof path, c->dir, NULL, file);
  char *real = realpath(path, NULL);
  if (!real) return mjcf_fail(c, inc, "cannot open included file '%.200s'", path);
  for (int i = 0; i < chain->n; i++) {
    if (strcmp(chain->real[i], real) == 0) {
      free(real);
      return mjcf_loop_error(c, inc, chain, file);
    }
  }
  if (chain->n > MJCF_MAX_INCLUDE_DEPTH) {
    free(real);
    return mjcf_fail(c, inc, "includes nested deeper than %d files", MJCF_MAX_INCLUDE_DEPTH);
  }
  const char *interned = mr_spec_strdup(c->s, path);
  xmlDoc *sub = interned ? mr_xml_read_budget(interned, mjcf_src(c, inc), &chain->budget, c->err,
                                              c->errlen)
                         : NULL;
  if (!sub) {
    free(real);
    return interned ? -1 : mjcf_fail(c, inc, "out of memory");
  }
  xmlNode *root = xmlDocGetRootElement(sub);
  long nodes = 0;
  if (!mr_xml_is(root, "mujoco")) {
    nodes = mr_errorf(c->err, c->errlen, mr_xml_source(interned, root),
                      "included file's root element is <%s>, expected <mujoco>",
                      (const char *)root->name);
  } else {
    chain->shown[chain->n] = file;
    chain->real[chain->n] = real;
    chain->n++;
    mjcf_tag_file(root->children, interned); /* before expanding: errors there name it */
    /* the children take the include's place, at its depth */
    nodes = mjcf_expand_in(c, root, chain, depth);
    chain->n--;
    /* the copies below cost as much again */
    if (nodes > 0 && mjcf_charge(c, inc, chain, nodes) < 0) nodes = -1;
  }
  for (xmlNode *ch = nodes >= 0 ? root->children : NULL; ch; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    xmlNode *copy = xmlDocCopyNode(ch, inc->doc, 1);
    if (!copy) {
      nodes = mjcf_fail(c, inc, "out of memory copying included content");
      break;
    }
    /* copy_tags walks siblings: give it the copy alone, then restore */
    xmlNode *next = ch->next;
    ch->next = NULL;
    mjcf_copy_tags(copy, ch);
    ch->next = next;
    if (!xmlAddPrevSibling(inc, copy)) {
      xmlFreeNode(copy);
      nodes = mjcf_fail(c, inc, "cannot splice included content");
      break;
    }
  }
  free(real);
  xmlFreeDoc(sub);
  return nodes;
}

/* Expands the includes among parent's descendants, whose children sit at nesting depth
 * depth. Returns how many elements and attributes the expanded content holds, or -1. */
static long mjcf_expand_in(mjcf_ctx *c, xmlNode *parent, mjcf_include_chain *chain, int depth) {
  if (depth > MJCF_MAX_NESTING)
    return mjcf_fail(c, parent, "elements nested deeper than %d levels (includes counted)",
                     MJCF_MAX_NESTING);
  long total = 0;
  xmlNode *ch = parent->children;
  while (ch) {
    xmlNode *next = ch->next;
    if (mr_xml_is(ch, "include")) {
      long n = mjcf_splice(c, ch, chain, depth);
      if (n < 0) return -1;
      total += n;
      xmlUnlinkNode(ch);
      xmlFreeNode(ch);
    } else if (ch->type == XML_ELEMENT_NODE) {
      long own = 1 + mjcf_attribute_count(ch);
      if (mjcf_charge(c, ch, chain, own) < 0) return -1;
      long n = mjcf_expand_in(c, ch, chain, depth + 1);
      if (n < 0) return -1;
      total += own + n;
    }
    ch = next;
  }
  return total;
}

int mjcf_expand_includes(mjcf_ctx *c) {
  mjcf_include_chain chain;
  memset(&chain, 0, sizeof chain);
  char *real = realpath(c->file, NULL);
  if (!real) return mr_errorf(c->err, c->errlen, (mr_source){c->file, 1}, "cannot resolve path");
  chain.shown[0] = c->file;
  chain.real[0] = real;
  chain.n = 1;
  struct stat st;
  chain.budget.bytes = MR_XML_MAX_BYTES - (stat(c->file, &st) == 0 ? (long)st.st_size : 0);
  chain.budget.nodes = MR_XML_MAX_NODES;
  long rc = mjcf_expand_in(c, xmlDocGetRootElement(c->doc), &chain, 1);
  free(real);
  return rc < 0 ? -1 : 0;
}
