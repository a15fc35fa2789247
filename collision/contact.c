/* Contact assembly: see contact.h for the mixing rules. */
#include "contact.h"

#include <string.h>

#include "engine/core/mr_math.h"

static double mix_max(double a, double b) { return a > b ? a : b; }

/* MuJoCo's solmix weight of geom 1. */
static double contact_solmix_weight(double mix1, double mix2) {
  if (mix1 >= MR_MINVAL && mix2 >= MR_MINVAL) return mix1 / (mix1 + mix2);
  if (mix1 < MR_MINVAL && mix2 < MR_MINVAL) return 0.5;
  return mix1 < MR_MINVAL ? 0 : 1;
}

double mr_contact_margin_auto(const mr_model *m, int g1, int g2) {
  return mix_max(m->geom_margin[g1], m->geom_margin[g2]);
}

void mr_contact_params_auto(const mr_model *m, int g1, int g2, mr_contact *c) {
  const double *f1 = m->geom_friction + 3 * g1, *f2 = m->geom_friction + 3 * g2;
  double slide = mix_max(f1[0], f2[0]), spin = mix_max(f1[1], f2[1]), roll = mix_max(f1[2], f2[2]);
  c->friction[0] = c->friction[1] = slide;
  c->friction[2] = spin;
  c->friction[3] = c->friction[4] = roll;
  c->dim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
  c->margin = mr_contact_margin_auto(m, g1, g2);
  c->gap = mix_max(m->geom_gap[g1], m->geom_gap[g2]);

  double w = contact_solmix_weight(m->geom_solmix[g1], m->geom_solmix[g2]);
  const double *r1 = m->geom_solref + 2 * g1, *r2 = m->geom_solref + 2 * g2;
  int direct = r1[0] <= 0 || r2[0] <= 0;
  for (int k = 0; k < 2; k++)
    c->solref[k] = direct ? (r1[k] < r2[k] ? r1[k] : r2[k]) : w * r1[k] + (1 - w) * r2[k];
  const double *i1 = m->geom_solimp + 5 * g1, *i2 = m->geom_solimp + 5 * g2;
  for (int k = 0; k < 5; k++) c->solimp[k] = w * i1[k] + (1 - w) * i2[k];
}

void mr_contact_params_pair(const mr_model *m, int p, mr_contact *c) {
  memcpy(c->friction, m->pair_friction + 5 * p, 5 * sizeof(double));
  c->dim = m->pair_condim[p];
  c->margin = m->pair_margin[p];
  memcpy(c->solref, m->pair_solref + 2 * p, 2 * sizeof(double));
  memcpy(c->solimp, m->pair_solimp + 5 * p, 5 * sizeof(double));
}

/* ------------------------------------------------------------------ frames */

static void frame_complete(const double normal[3], double t1[3], double frame[9]) {
  mr_copy3(frame, normal);
  mr_copy3(frame + 3, t1);
  mr_cross3(frame + 6, normal, t1); /* n x t1 = t2 makes (n, t1, t2) right-handed */
}

void mr_contact_frame_default(const double normal[3], double frame[9]) {
  int axis = 0;
  for (int k = 1; k < 3; k++)
    if (fabs(normal[k]) < fabs(normal[axis])) axis = k;
  double t1[3] = {0, 0, 0};
  t1[axis] = 1;
  mr_addscl3(t1, normal, -normal[axis]);
  mr_normalize3(t1);
  frame_complete(normal, t1, frame);
}

void mr_contact_frame_from_hint(const double normal[3], const double hint[3], double frame[9]) {
  double t1[3];
  mr_copy3(t1, hint);
  mr_addscl3(t1, normal, -mr_dot3(hint, normal));
  /* below ~0.1 the hint is within ~6 degrees of the normal: its projection is unreliable */
  if (mr_normalize3(t1) < 0.1) {
    mr_contact_frame_default(normal, frame);
    return;
  }
  frame_complete(normal, t1, frame);
}

void mr_contact_set_point(const mr_model *m, int g1, int g2, const mr_contact_point *pt,
                          mr_contact *c) {
  mr_copy3(c->pos, pt->pos);
  double n[3];
  mr_copy3(n, pt->normal);
  if (mr_normalize3(n) < MR_MINVAL) n[0] = 0, n[1] = 0, n[2] = 1; /* never a zero frame */
  /* the normal only: persistence completes the frame (persist.c), from last step's
   * tangents where the contact continues (most of a resting scene's, whose normal is
   * unchanged and whose frame is then copied), else by mr_contact_frame_default */
  memset(c->frame, 0, sizeof c->frame);
  mr_copy3(c->frame, n);
  c->dist = pt->dist;
  c->geom1 = g1;
  c->geom2 = g2;
  c->body1 = m->geom_bodyid[g1];
  c->body2 = m->geom_bodyid[g2];
  c->impulse[0] = c->impulse[1] = c->impulse[2] = 0;
  c->age = 0;
  c->id = 0;
}
