/* Mass properties: volumes and inertias of geom shapes and closed triangle meshes, the
 * parallel-axis sum over a body's geoms, and the principal-axis decomposition. */
#ifndef MR_INERTIA_H
#define MR_INERTIA_H

/* Volume of a primitive geom with MuJoCo size semantics (0 for planes and meshes). */
double mr_geom_volume(int type, const double size[3]);

/* Principal moments of a primitive geom of the given mass about its own frame (its com). */
void mr_geom_inertia(int type, const double size[3], double mass, double inertia[3]);

/* Volume, center of mass and inertia tensor (3x3 row-major, about the com, unit density) of
 * a closed triangle mesh by signed tetrahedra. Returns 0, or -1 if the volume is not
 * positive (open, flat or inside-out mesh). */
int mr_mesh_mass_properties(const double *vert, int nvert, const int *face, int nface,
                            double *volume, double com[3], double inertia[9]);

/* MuJoCo 2.2's legacy estimate (exactmeshinertia="false"): pyramids from the mesh's
 * surface centroid, each counted with a positive volume, which is exact for a convex mesh
 * and overcounts a non-convex one. Same outputs; -1 for a mesh without area or volume. */
int mr_mesh_mass_properties_legacy(const double *vert, int nvert, const int *face, int nface,
                                   double *volume, double com[3], double inertia[9]);

/* Eigen decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations: A = V diag(e) V^T
 * with V a proper rotation (row-major, eigenvectors in its columns), eigenvalues in
 * decreasing order. */
void mr_sym3_eigen(const double A[9], double eigval[3], double V[9]);

/* Combines n rigid parts (mass m[i], com c[3i] and principal moments d[3i] along the axes of
 * quat[4i], all in one frame) into one body: total mass, com, principal moments about the
 * com and the principal frame quaternion. Sums about the com (two passes) to avoid the
 * cancellation of shifting a sum taken about a distant origin. */
void mr_mass_combine(int n, const double *m, const double *c, const double *quat,
                     const double *d, double *mass, double com[3], double inertia[3],
                     double iquat[4]);

/* What mr_inertia_repair did (bits). */
enum {
  MR_INERTIA_ROUNDOFF = 1, /* moments within round-off of valid, made exactly valid */
  MR_INERTIA_NEGATIVE = 2, /* a negative principal moment beyond round-off, set to 0 */
  MR_INERTIA_TRIANGLE = 4  /* A + B < C beyond round-off: the three replaced by their mean */
};
/* Relative tolerance of the round-off rule: 1e-9 of the sum of |moments|. */
#define MR_INERTIA_ROUNDOFF_TOL 1e-9

/* Makes principal moments d (any order) those of a rigid body. Moments below zero by at most
 * MR_INERTIA_ROUNDOFF_TOL of the sum of |d| become 0, and a triangle excess C - (A + B) that
 * small is taken off C: files written with a few digits (a zero moment printed as -2.4e-35)
 * mean no harm, and these changes go unreported (MR_INERTIA_ROUNDOFF). Larger negative moments
 * become 0 (MR_INERTIA_NEGATIVE); a triangle violation left after that replaces the three by
 * their mean (MR_INERTIA_TRIANGLE), as MuJoCo's balanceinertia does. Returns the bits of what
 * was done, 0 when d was already valid. */
int mr_inertia_repair(double d[3]);

/* MuJoCo's boundmass / boundinertia for a moving body: a mass below min_mass becomes
 * min_mass; when every principal moment is below min_inertia (a point mass or a massless
 * link), each becomes at least min_inertia. Returns 1 if anything changed. */
int mr_inertia_bound(double *mass, double d[3], double min_mass, double min_inertia);

/* Full inertia matrix (row-major) from principal moments d and frame quat: R diag(d) R^T. */
void mr_inertia_matrix(double I[9], const double d[3], const double quat[4]);

#endif
