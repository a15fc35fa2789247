/* <include file="..."/>: the included file's <mujoco> children replace the include element,
 * wherever it stands. Paths are relative to the top-level model's directory, as in MuJoCo.
 *
 * Spliced nodes are copies made in the main document (so they share its lifetime and
 * dictionary); each remembers its own file in node->_private so that errors inside an
 * included file name that file and its line.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/error.h"
#include "mjcf.h"
#include "xml.h"

typedef struct mjcf_include_chain {
  const char *shown[MJCF_MAX_INCLUDE_DEPTH + 2]; /* file names as written, for messages */
  char *real[MJCF_MAX_INCLUDE_DEPTH + 2];        /* canonical paths, for loop detection */
  int n;
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

static int mjcf_expand_in(mjcf_ctx *c, xmlNode *parent, mjcf_include_chain *chain);

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

/* Reads the include's file, expands its own includes, and splices its content before inc. */
static int mjcf_splice(mjcf_ctx *c, xmlNode *inc, mjcf_include_chain *chain) {
  const char *file = mr_xml_attr(inc, "file");
  if (!file || !file[0]) return mjcf_fail(c, inc, "<include> needs a file attribute");
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
  xmlDoc *sub = interned ? mr_xml_read(interned, c->err, c->errlen) : NULL;
  if (!sub) {
    free(real);
    return interned ? -1 : mjcf_fail(c, inc, "out of memory");
  }
  xmlNode *root = xmlDocGetRootElement(sub);
  int rc = 0;
  if (!mr_xml_is(root, "mujoco")) {
    rc = mr_errorf(c->err, c->errlen, mr_xml_source(interned, root),
                   "included file's root element is <%s>, expected <mujoco>",
                   (const char *)root->name);
  } else {
    chain->shown[chain->n] = file;
    chain->real[chain->n] = real;
    chain->n++;
    mjcf_tag_file(root->children, interned); /* before expanding: errors there name it */
    rc = mjcf_expand_in(c, root, chain);
    chain->n--;
  }
  for (xmlNode *ch = rc == 0 ? root->children : NULL; ch; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    xmlNode *copy = xmlDocCopyNode(ch, inc->doc, 1);
    if (!copy) {
      rc = mjcf_fail(c, inc, "out of memory copying included content");
      break;
    }
    /* copy_tags walks siblings: give it the copy alone, then restore */
    xmlNode *next = ch->next;
    ch->next = NULL;
    mjcf_copy_tags(copy, ch);
    ch->next = next;
    if (!xmlAddPrevSibling(inc, copy)) {
      xmlFreeNode(copy);
      rc = mjcf_fail(c, inc, "cannot splice included content");
      break;
    }
  }
  free(real);
  xmlFreeDoc(sub);
  return rc;
}

static int mjcf_expand_in(mjcf_ctx *c, xmlNode *parent, mjcf_include_chain *chain) {
  xmlNode *ch = parent->children;
  while (ch) {
    xmlNode *next = ch->next;
    if (mr_xml_is(ch, "include")) {
      if (mjcf_splice(c, ch, chain) < 0) return -1;
      xmlUnlinkNode(ch);
      xmlFreeNode(ch);
    } else if (ch->type == XML_ELEMENT_NODE) {
      if (mjcf_expand_in(c, ch, chain) < 0) return -1;
    }
    ch = next;
  }
  return 0;
}

int mjcf_expand_includes(mjcf_ctx *c) {
  mjcf_include_chain chain;
  memset(&chain, 0, sizeof chain);
  char *real = realpath(c->file, NULL);
  if (!real) return mr_errorf(c->err, c->errlen, (mr_source){c->file, 0}, "cannot resolve path");
  chain.shown[0] = c->file;
  chain.real[0] = real;
  chain.n = 1;
  int rc = mjcf_expand_in(c, xmlDocGetRootElement(c->doc), &chain);
  free(real);
  return rc;
}
