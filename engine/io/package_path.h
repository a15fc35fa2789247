/* Resolution of the resource URIs a URDF names (meshes, textures) to files on disk. */
#ifndef MR_PACKAGE_PATH_H
#define MR_PACKAGE_PATH_H

#include <stddef.h>

/* Resolves uri, as written in the file base_file, to an existing regular file.
 *
 *  package://PKG/rest  tries, in order, every directory R of package_path (':'-separated),
 *                      then of the MOREAU_PACKAGE_PATH environment variable, then every
 *                      ancestor directory of base_file (nearest first); for each R it tries
 *                      R/PKG/rest and, when R's own name is PKG, R/rest. Extra slashes
 *                      after "package://" are ignored ("package:///PKG/rest" is seen).
 *  file://path, path   absolute paths as they are; relative ones against base_file's folder.
 *
 * Returns 0 with the canonical path (realpath) in out, or -1 with a human-readable list of
 * the places tried in looked (truncated with "..." if it does not fit). */
int mr_package_resolve(const char *uri, const char *base_file, const char *package_path,
                       char *out, size_t outlen, char *looked, size_t lookedlen);

#endif
