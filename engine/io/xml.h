/* Safe XML reading for the MJCF, URDF and SRDF parsers (libxml2).
 *
 * Hostile files must not hurt: the network is never touched, external entities are never
 * loaded or substituted, oversized files are refused before parsing, and every number is
 * checked to be finite. Errors come back as "FILE:LINE: message".
 */
#ifndef MR_XML_H
#define MR_XML_H

#include <libxml/tree.h>

#include "spec.h"

#define MR_XML_MAX_BYTES (64L * 1024 * 1024)
/* Elements and attributes of one model, all of its files together: the document's memory
 * (a few hundred bytes a node) stays well under a gigabyte whatever the file holds. */
#define MR_XML_MAX_NODES 1000000L

/* What the files of one model may still add up to (an MJCF file and all its includes). */
typedef struct mr_xml_budget {
  long bytes;
  long nodes;
} mr_xml_budget;

/* Parses path; NULL with err set on failure (missing file, not a regular file, too large,
 * malformed). Problems with the file as a whole are reported at line 1. */
xmlDoc *mr_xml_read(const char *path, char *err, int errlen);

/* The same, drawing the file's bytes and nodes from budget, and reporting problems with
 * the file as a whole (missing, a directory, too large) at blame, e.g. the <include>
 * element that names it. libxml2's own messages never reach stderr: the first becomes
 * part of the one error line. */
xmlDoc *mr_xml_read_budget(const char *path, mr_source blame, mr_xml_budget *budget, char *err,
                           int errlen);

/* Source location of a node (file must outlive the result, e.g. interned in a spec). */
mr_source mr_xml_source(const char *file, const xmlNode *node);

/* The attribute's text, or NULL if absent. Points into the document. */
const char *mr_xml_attr(const xmlNode *node, const char *name);

/* 1 if node is an element named name. */
int mr_xml_is(const xmlNode *node, const char *name);

/* Reads between min_count and max_count finite numbers from attribute name.
 * Returns how many were read, 0 if the attribute is absent, -1 (err set) if malformed,
 * non-finite, or the count is out of range. */
int mr_xml_doubles(const xmlNode *node, const char *name, double *out, int min_count,
                   int max_count, mr_source src, char *err, int errlen);

/* Parses numbers from a string the same way (for text content). */
int mr_parse_doubles(const char *text, double *out, int min_count, int max_count,
                     const char *what, mr_source src, char *err, int errlen);

/* Integer attribute: 1 read, 0 absent, -1 error. */
int mr_xml_int(const xmlNode *node, const char *name, int *out, mr_source src, char *err,
               int errlen);

/* Boolean attribute ("true"/"false"): 1 read, 0 absent, -1 error. */
int mr_xml_bool(const xmlNode *node, const char *name, int *out, mr_source src, char *err,
                int errlen);

/* Index of the attribute's value in the NULL-terminated list of keywords:
 * >= 0 found, -1 absent, -2 error (err set: names the allowed values). */
int mr_xml_keyword(const xmlNode *node, const char *name, const char *const *keywords,
                   mr_source src, char *err, int errlen);

#endif
