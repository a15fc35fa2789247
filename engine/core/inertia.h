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

/* Full inertia matrix (row-major) from principal moments d and frame quat: R diag(d) R^T. */
void mr_inertia_matrix(double I[9], const double d[3], const double quat[4]);

#endif
