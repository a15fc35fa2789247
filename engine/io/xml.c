#include "xml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "engine/core/error.h"

xmlDoc *mr_xml_read(const char *path, char *err, int errlen) {
  mr_source src = {path, 0};
  struct stat st;
  if (stat(path, &st) != 0) {
    mr_errorf(err, errlen, src, "cannot open file: %s", strerror(errno));
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    mr_errorf(err, errlen, src, "is a directory, not a model file");
    return NULL;
  }
  if (st.st_size > MR_XML_MAX_BYTES) {
    mr_errorf(err, errlen, src, "file too large (%lld bytes; the limit is %ld)",
              (long long)st.st_size, MR_XML_MAX_BYTES);
    return NULL;
  }
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    mr_errorf(err, errlen, src, "out of memory creating the XML parser");
    return NULL;
  }
  /* No NOENT (entities stay unexpanded), no DTDLOAD/DTDATTR (nothing external is read),
   * NONET (never the network); NOERROR/NOWARNING because we report the error ourselves. */
  int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
  xmlDoc *doc = xmlCtxtReadFile(ctxt, path, NULL, options);
  if (!doc || !ctxt->wellFormed) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    mr_source at = {path, e ? e->line : 0};
    char msg[256] = "malformed XML";
    if (e && e->message) {
      snprintf(msg, sizeof msg, "malformed XML: %s", e->message);
      size_t n = strlen(msg);
      while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    }
    mr_errorf(err, errlen, at, "%s", msg);
    if (doc) xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return NULL;
  }
  xmlFreeParserCtxt(ctxt);
  if (!xmlDocGetRootElement(doc)) {
    mr_errorf(err, errlen, src, "empty XML document");
    xmlFreeDoc(doc);
    return NULL;
  }
  return doc;
}

mr_source mr_xml_source(const char *file, const xmlNode *node) {
  mr_source s = {file, node ? (int)xmlGetLineNo(node) : 0};
  return s;
}

const char *mr_xml_attr(const xmlNode *node, const char *name) {
  if (!node) return NULL;
  for (const xmlAttr *a = node->properties; a; a = a->next) {
    if (strcmp((const char *)a->name, name) != 0) continue;
    /* An attribute holding an entity reference has a non-text child: treat as empty so
     * that entities are never expanded behind the parser's back. */
    if (!a->children) return "";
    if (a->children->type != XML_TEXT_NODE || !a->children->content) return "";
    return (const char *)a->children->content;
  }
  return NULL;
}

int mr_xml_is(const xmlNode *node, const char *name) {
  return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

int mr_parse_doubles(const char *text, double *out, int min_count, int max_count,
                     const char *what, mr_source src, char *err, int errlen) {
  int count = 0;
  const char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') p++;
    if (!*p) break;
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p)
      return mr_errorf(err, errlen, src, "%s: '%.40s' is not a number", what, p);
    if (!isfinite(v))
      return mr_errorf(err, errlen, src, "%s: non-finite number '%.*s'", what,
                       (int)(end - p > 40 ? 40 : end - p), p);
    if (count >= max_count)
      return mr_errorf(err, errlen, src, "%s: expected at most %d numbers", what, max_count);
    out[count++] = v;
    p = end;
  }
  if (count < min_count) {
    if (min_count == max_count)
      return mr_errorf(err, errlen, src, "%s: expected %d numbers, got %d", what, min_count,
                       count);
    return mr_errorf(err, errlen, src, "%s: expected at least %d numbers, got %d", what,
                     min_count, count);
  }
  return count;
}

int mr_xml_doubles(const xmlNode *node, const char *name, double *out, int min_count,
                   int max_count, mr_source src, char *err, int errlen) {
  const char *text = mr_xml_attr(node, name);
  if (!text) return 0;
  char what[96];
  snprintf(what, sizeof what, "attribute '%s'", name);
  int n = mr_parse_doubles(text, out, min_count, max_count, what, src, err, errlen);
  if (n == 0 && min_count > 0)
    return mr_errorf(err, errlen, src, "attribute '%s' is empty", name);
  return n;
}

int mr_xml_int(const xmlNode *node, const char *name, int *out, mr_source src, char *err,
               int errlen) {
  const char *text = mr_xml_attr(node, name);
  if (!text) return 0;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  while (*end == ' ' || *end == '\t') end++;
  if (end == text || *end || errno || v < -2147483647L || v > 2147483647L)
    return mr_errorf(err, errlen, src, "attribute '%s': '%.40s' is not an integer", name, text);
  *out = (int)v;
  return 1;
}

int mr_xml_bool(const xmlNode *node, const char *name, int *out, mr_source src, char *err,
                int errlen) {
  static const char *const words[] = {"false", "true", NULL};
  int k = mr_xml_keyword(node, name, words, src, err, errlen);
  if (k == -1) return 0;
  if (k < 0) return -1;
  *out = k;
  return 1;
}

int mr_xml_keyword(const xmlNode *node, const char *name, const char *const *keywords,
                   mr_source src, char *err, int errlen) {
  const char *text = mr_xml_attr(node, name);
  if (!text) return -1;
  for (int i = 0; keywords[i]; i++)
    if (strcmp(text, keywords[i]) == 0) return i;
  char allowed[256] = "";
  for (int i = 0; keywords[i]; i++) {
    size_t n = strlen(allowed);
    snprintf(allowed + n, sizeof allowed - n, "%s%s", i ? ", " : "", keywords[i]);
  }
  mr_errorf(err, errlen, src, "attribute '%s': unknown value '%.40s' (expected one of: %s)",
            name, text, allowed);
  return -2;
}
