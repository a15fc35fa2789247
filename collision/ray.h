/* Ray casting against geoms (MuJoCo's mj_ray and mju_rayGeom): the rangefinder sensor and
 * the touch sensor's zone test.
 *
 * A ray is p + x v with x >= 0 (v need not be unit: distances come back in units of v).
 * Every function returns the smallest x >= 0 at which the ray meets the shape's surface, or
 * -1 when it does not: a ray that starts inside a solid meets it where it leaves. Planes
 * are one-sided (a ray must come down onto their front face), as in MuJoCo. */
#ifndef MR_RAY_H
#define MR_RAY_H

#include "moreau.h"

/* A primitive (plane, sphere, capsule, ellipsoid, cylinder, box) of MuJoCo size semantics
 * at pos with orientation mat (row-major, axes in columns); -1 for other types. */
double mr_ray_primitive(int type, const double size[3], const double pos[3], const double mat[9],
                        const double p[3], const double v[3]);

/* Geom g at its current pose (needs mr_kinematics): primitives, meshes (their triangles)
 * and heightfields (their surface, sides and base). */
double mr_ray_geom(const mr_model *m, const mr_data *d, int g, const double p[3], const double v[3]);

/* The nearest geom along the ray, skipping geoms of body bodyexclude (-1: none) and
 * invisible ones (alpha 0 in their rgba or material), as MuJoCo's rangefinder does. Writes
 * the geom (or -1) into *geomid when not NULL. */
double mr_ray(const mr_model *m, const mr_data *d, const double p[3], const double v[3],
              int bodyexclude, int *geomid);

#endif
