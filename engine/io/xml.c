#include "xml.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "engine/core/error.h"
#include "engine/core/file_read.h"

/* libxml2 reports some problems (a lying encoding declaration) through its global error
 * handlers, straight to stderr, whatever the parser options say. While a file is parsed
 * they are caught here instead; the first message is kept for the error line. */
typedef struct xml_messages {
  char first[256];
  size_t len;
} xml_messages;

static void xml_catch_generic(void *ctx, const char *fmt, ...) {
  xml_messages *m = ctx;
  /* one message is enough: it may come in pieces, up to its newline */
  if (m->len + 1 >= sizeof m->first || (m->len > 0 && m->first[m->len - 1] == '\n')) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->first + m->len, sizeof m->first - m->len, fmt, ap);
  va_end(ap);
  m->len = strlen(m->first);
}

/* The message, on one line, without libxml2's "name : " padding or trailing newline. */
static void xml_clean_message(char *msg) {
  for (char *c = msg; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  size_t n = strlen(msg);
  while (n > 0 && msg[n - 1] == ' ') msg[--n] = 0;
  /* "FILE:LINE: parser error : what": the place is ours to give */
  char *kind = strstr(msg, "parser error : ");
  if (kind) memmove(msg, kind + 15, strlen(kind + 15) + 1);
  char *pad = strstr(msg, " : ");
  if (pad) memmove(pad, pad + 1, strlen(pad + 1) + 1);
}

/* An upper bound on elements and attributes: every '<' that opens a tag and every '='. */
static long xml_count_nodes(const char *text, size_t size) {
  long n = 0;
  for (size_t i = 0; i < size; i++) {
    if (text[i] == '=') n++;
    else if (text[i] == '<' && i + 1 < size && text[i + 1] != '/') n++;
  }
  return n;
}

/* The line of the first occurrence of needle in the text (1 if none). */
static int xml_line_of(const char *text, size_t size, const char *needle) {
  size_t k = strlen(needle);
  int line = 1;
  for (size_t i = 0; i + k <= size; i++) {
    if (memcmp(text + i, needle, k) == 0) return line;
    line += text[i] == '\n';
  }
  return 1;
}

static xmlDoc *xml_parse(const char *path, const char *text, size_t size, char *err, int errlen) {
  mr_source src = {path, 1};
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    mr_errorf(err, errlen, src, "out of memory creating the XML parser");
    return NULL;
  }
  xml_messages caught;
  memset(&caught, 0, sizeof caught);
  xmlGenericErrorFunc old_generic = xmlGenericError;
  void *old_generic_ctx = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(&caught, xml_catch_generic);
  /* No NOENT (entities stay unexpanded), no DTDLOAD/DTDATTR (nothing external is read),
   * NONET (never the network); NOERROR/NOWARNING because we report the error ourselves;
   * NOBLANKS and COMPACT keep the tree small; BIG_LINES keeps line numbers past 65535. */
  int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA |
                XML_PARSE_NOBLANKS | XML_PARSE_COMPACT | XML_PARSE_BIG_LINES;
  xmlDoc *doc = size > (size_t)INT_MAX ? NULL : xmlCtxtReadMemory(ctxt, text, (int)size, path, NULL, options);
  xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
  if (!doc || !ctxt->wellFormed) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    mr_source at = {path, e && e->line > 0 ? e->line : 1};
    char msg[300] = "";
    /* A caught message comes first: it is the cause (an encoding error), the parser's
     * last error only its consequence. */
    snprintf(msg, sizeof msg, "%s", caught.first[0] ? caught.first : e && e->message ? e->message : "");
    xml_clean_message(msg);
    mr_errorf(err, errlen, at, "malformed XML%s%s", msg[0] ? ": " : "", msg);
    if (doc) xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return NULL;
  }
  xmlFreeParserCtxt(ctxt);
  /* Entities are never expanded, so a document that declares them (an external entity
   * reaching for a local file or the network, a billion laughs) would load with holes
   * where the references stand: refused instead, at the declaration. */
  if (doc->intSubset && (doc->intSubset->entities || doc->intSubset->pentities)) {
    mr_errorf(err, errlen, (mr_source){path, xml_line_of(text, size, "<!ENTITY")},
              "entity declarations (<!ENTITY>) are not supported");
    xmlFreeDoc(doc);
    return NULL;
  }
  if (!xmlDocGetRootElement(doc)) {
    mr_errorf(err, errlen, src, "empty XML document");
    xmlFreeDoc(doc);
    return NULL;
  }
  return doc;
}

xmlDoc *mr_xml_read_budget(const char *path, mr_source blame, mr_xml_budget *budget, char *err,
                           int errlen) {
  char why[256], *text = NULL;
  size_t size = 0;
  long limit = budget->bytes < MR_XML_MAX_BYTES ? budget->bytes : MR_XML_MAX_BYTES;
  if (mr_file_read_all(path, limit, &text, &size, why, (int)sizeof why)) {
    if (limit < MR_XML_MAX_BYTES && strncmp(why, "file too large", 14) == 0)
      mr_errorf(err, errlen, blame, "'%.200s': the model's files exceed %ld bytes in all", path,
                (long)MR_XML_MAX_BYTES);
    else if (blame.file == path || (blame.file && strcmp(blame.file, path) == 0))
      mr_errorf(err, errlen, blame, "%s", why);
    else
      mr_errorf(err, errlen, blame, "'%.200s' %s", path, why);
    return NULL;
  }
  budget->bytes -= (long)size;
  long nodes = xml_count_nodes(text, size);
  if (nodes > budget->nodes) {
    mr_errorf(err, errlen, blame.file == path ? (mr_source){path, 1} : blame,
              "more than %ld elements and attributes in the model (the limit)", MR_XML_MAX_NODES);
    free(text);
    return NULL;
  }
  budget->nodes -= nodes;
  xmlDoc *doc = xml_parse(path, text, size, err, errlen);
  free(text);
  return doc;
}

xmlDoc *mr_xml_read(const char *path, char *err, int errlen) {
  mr_xml_budget budget = {MR_XML_MAX_BYTES, MR_XML_MAX_NODES};
  return mr_xml_read_budget(path, (mr_source){path, 1}, &budget, err, errlen);
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
    /* strtod also reads C's hexadecimal floats ("0x1p3" is 8); MuJoCo reads decimals only */
    const char *digits = p + (*p == '-' || *p == '+');
    if (end == p || (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')))
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
