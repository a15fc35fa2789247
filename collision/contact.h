/* Contact assembly: an mr_contact from a narrowphase point and the two geoms' parameters.
 *
 * Automatic pairs mix the geoms' parameters as MuJoCo 2.2 does (checked with the oracle):
 *   condim   the larger of the two;
 *   friction per component, the larger of the two: (slide, slide, torsion, roll, roll);
 *   margin   the larger of the two;
 *   solref   weighted by solmix: w = solmix1 / (solmix1 + solmix2) (0.5 when both are ~0,
 *            0 or 1 when only one is), solref = w solref1 + (1 - w) solref2; when either
 *            solref is in MuJoCo's direct form (first entry <= 0) the elementwise minimum;
 *   solimp   weighted by the same w.
 * URDF models use the same rule; URDF has no friction tag, so URDF geoms carry MuJoCo's
 * default (1, 0.005, 0.0001) set by the loader (engine/io/urdf_geom.c).
 * Explicit <pair>s use the pair's own condim, friction (5), margin, solref and solimp.
 *
 * The frame built here is the deterministic one from the normal alone; persistence
 * (persist.c) replaces the tangents of a contact that continues from the last step. */
#ifndef MR_CONTACT_H
#define MR_CONTACT_H

#include "moreau.h"
#include "narrowphase.h"

/* Mixed parameters of an automatic pair (everything but the geometry). */
void mr_contact_params_auto(const mr_model *m, int g1, int g2, mr_contact *c);

/* Parameters of explicit pair p. */
void mr_contact_params_pair(const mr_model *m, int p, mr_contact *c);

/* The larger margin of two geoms: an automatic pair is reported while dist < this. */
double mr_contact_margin_auto(const mr_model *m, int g1, int g2);

/* Fills geometry, ids and the frame's normal row from point pt (the tangent rows are left
 * zero: persist.c completes the frame); keeps the parameters already in c. Persistent id,
 * age and impulse are reset (persist.c sets them). */
void mr_contact_set_point(const mr_model *m, int g1, int g2, const mr_contact_point *pt,
                          mr_contact *c);

/* frame rows (normal, t1, t2), right-handed, from a unit normal: t1 is the world axis
 * least aligned with the normal, made orthogonal to it. Deterministic and the same for
 * equal normals. */
void mr_contact_frame_default(const double normal[3], double frame[9]);

/* frame rows (normal, t1, t2) from a unit normal and a tangent hint projected onto the
 * normal's plane; falls back to the default frame when the hint is (nearly) parallel. */
void mr_contact_frame_from_hint(const double normal[3], const double hint[3], double frame[9]);

#endif
