/* bench_fidelity: every registered solver on small scenes whose right answer is known,
 * each measured quantity next to what the solver's own method predicts, written as the
 * markdown of docs/fidelity.md.
 *
 *   build/bench/bench_fidelity --out docs/fidelity.md
 *   build/bench/bench_fidelity --quick --scene slide_x --out /tmp/f.md
 *
 * Scenes (bench/README.md): slide_x, slide_diag, incline_stick, incline_slide, stack_1ms,
 * stack_10ms, ball, fourbar, humanoid. Predictions by method family: the NCP solvers (pgs,
 * admm, raisim, implicit, stagproj, newton and any solver not named below) claim exact
 * Coulomb friction and Signorini contact; lcp the 4-facet pyramid; ccp the convex
 * relaxation (papers/002); sap its regularized compliant model (papers/004); soft MuJoCo's
 * model, so MuJoCo 2.2 on the same file is its prediction. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/constraint/constraint.h" /* the resting band every solver's rows share */
#include "fidelity.h"
#include "moreau.h"

#define SCENE_DIR MOREAU_SOURCE_DIR "/bench/scenes/"
#define MODEL_DIR MOREAU_SOURCE_DIR "/models/"

typedef enum fid_family { FAM_EXACT, FAM_LCP, FAM_CCP, FAM_SAP, FAM_SOFT, FAM_RAISIM } fid_family;

typedef struct fid_options {
  int quick;
  double budget; /* CPU seconds per solver and scene */
} fid_options;

static fid_family fid_family_of(int solver) {
  const char *n = mr_solver_name(solver);
  if (!strcmp(n, "lcp")) return FAM_LCP;
  if (!strcmp(n, "ccp")) return FAM_CCP;
  if (!strcmp(n, "sap")) return FAM_SAP;
  if (!strcmp(n, "soft")) return FAM_SOFT;
  if (!strcmp(n, "raisim")) return FAM_RAISIM;
  return FAM_EXACT;
}

/* RaiSim's bisection on the cone/plane ellipse turns a sliding contact's friction sideways
 * by -(3/8) mu^2 lambda_N (papers/002 eq. 21): what remains along the slip is the Coulomb
 * force times this factor. */
static double fid_raisim_factor(double mu) { return sqrt(1.0 - (3.0 * mu / 8.0) * (3.0 * mu / 8.0)); }

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static mr_model *fid_load(const char *path) {
  char err[512] = "";
  mr_load_options lo = {0};
  lo.quiet = 1;
  mr_model *m = mr_model_load(path, &lo, err, sizeof err);
  if (!m) fprintf(stderr, "bench_fidelity: %s\n", err);
  return m;
}

/* ---------------------------------------------------------------- one Moreau run */

typedef struct fid_run {
  const mr_model *m;
  mr_data *d;
  int steps, done;
  int failed;       /* mr_step reported a non-finite state */
  int out_of_time;  /* the CPU budget ran out first */
  double deadline;
} fid_run;

static int fid_run_start(fid_run *r, const mr_model *m, int solver, const fid_setup *setup,
                         const fid_options *o) {
  memset(r, 0, sizeof *r);
  r->m = m;
  r->d = mr_data_create(m);
  if (!r->d) return -1;
  int key = setup->key ? mr_name2id(m, MR_OBJ_KEY, setup->key) : -1;
  if (key >= 0) mr_data_reset_keyframe(m, r->d, key);
  if (setup->v0) memcpy(r->d->qvel, setup->v0, 3 * sizeof(double));
  r->d->opt.solver = solver;
  if (setup->restitution > 0) r->d->opt.restitution = setup->restitution;
  if (setup->dt > 0) r->d->opt.timestep = setup->dt;
  r->steps = (int)lround(setup->duration / r->d->opt.timestep);
  r->deadline = cpu_seconds() + o->budget;
  return 0;
}

/* One step; 0 when the run is over (done, failed or out of time). */
static int fid_run_step(fid_run *r) {
  if (r->done >= r->steps || r->failed || r->out_of_time) return 0;
  if ((r->done & 15) == 0 && cpu_seconds() > r->deadline) {
    r->out_of_time = 1;
    return 0;
  }
  if (mr_step(r->m, r->d) != 0) r->failed = 1;
  r->done++;
  return !r->failed;
}

static void fid_run_state(const fid_run *r, fid_state *s) {
  const mr_data *d = r->d;
  s->qpos = d->qpos;
  s->qvel = d->qvel;
  s->xpos = d->xpos;
  s->xmat = d->xmat;
  s->ncon = d->ncon;
  s->frame = d->ncon ? d->contact[0].frame : NULL;
  s->penetration = 0;
  for (int c = 0; c < d->ncon; c++)
    if (-d->contact[c].dist > s->penetration) s->penetration = -d->contact[c].dist;
}

/* Notes what cut a run short; returns 1 if it did. */
static int fid_run_finish(fid_run *r, fid_table *t, int row) {
  int cut = r->failed || r->out_of_time;
  if (r->failed) fid_note(t, row, "non-finite state at t = %.3f s", r->done * r->d->opt.timestep);
  else if (r->out_of_time)
    fid_note(t, row, "stopped at t = %.2f s of %.2f s (CPU budget)",
             r->done * r->d->opt.timestep, r->steps * r->d->opt.timestep);
  mr_data_free(r->d);
  r->d = NULL;
  return cut;
}

/* Runs solver `row` to the end of setup, feeding every step's state to observe. Returns
 * the steps done, or -1 if the run could not start; *cut says whether it was cut short. */
static int fid_run_observed(fid_table *t, int row, const mr_model *m, const fid_setup *setup,
                            const fid_options *o, fid_observer observe, void *ctx, int *cut) {
  fid_run r;
  if (fid_run_start(&r, m, row, setup, o) < 0) return -1;
  fid_state st;
  while (fid_run_step(&r)) {
    fid_run_state(&r, &st);
    observe(ctx, &st);
  }
  int done = r.done, c = fid_run_finish(&r, t, row);
  if (cut) *cut = c;
  return done;
}

/* The solver rows, then MuJoCo's. */
static void fid_rows(fid_table *t) {
  for (int s = 0; s < mr_solver_count() && s < FID_MAXROW - 1; s++)
    fid_add_row(t, mr_solver_name(s), 0);
  fid_add_row(t, "MuJoCo 2.2 (elliptic)", 1);
}

static int fid_mujoco_row(const fid_table *t) { return t->nrow - 1; }

/* ---------------------------------------------------------------- sliding box */

static void fid_slide_cb(void *ctx, const fid_state *s) { fid_slide_observe((fid_slide *)ctx, s); }

/* The angle of u to the first contact's t1 axis, folded into [0, 45] degrees. */
static double fid_pyramid_angle(const fid_slide *s, const double u[3]) {
  if (!s->touched) return NAN;
  const double *t1 = s->frame + 3, *t2 = s->frame + 6;
  double a = fabs(atan2(u[0] * t2[0] + u[1] * t2[1] + u[2] * t2[2],
                        u[0] * t1[0] + u[1] * t1[1] + u[2] * t1[2])) * 180.0 / FID_PI;
  a = fmod(a, 90.0);
  return a > 45.0 ? 90.0 - a : a;
}

/* lcp's deceleration factor at an angle of the pyramid's facets: 1 along a facet axis,
 * sqrt(2) along the diagonal (the corner); elsewhere the path bends (no prediction). */
static double fid_pyramid_factor(double angle) {
  if (angle < 1e-6) return 1.0;
  if (fabs(angle - 45.0) < 1e-6) return sqrt(2.0);
  return NAN;
}

static void fid_scene_slide(fid_table *t, int diagonal, const fid_options *o) {
  const char *path = MODEL_DIR "sliding_cube.xml";
  const double mu = 0.4, v0 = 1.0, h = 0.1, c = sqrt(0.5);
  double u[3] = {diagonal ? c : 1, diagonal ? c : 0, 0}, n[3] = {0, 0, 1}, vel[3];
  for (int k = 0; k < 3; k++) vel[k] = v0 * u[k];
  mr_model *m = fid_load(path);
  if (!m) return;
  double dt = m->opt.timestep, g = fabs(m->opt.gravity[2]);
  double analytic = v0 * v0 / (2 * mu * g), discrete = fid_discrete_stop(v0, mu * g, dt);
  double ccp_vz = fid_ccp_launch(h, 1.0, mu, v0, u, g, dt);
  double tau_d = m->opt.sap_tau_d > 0 ? m->opt.sap_tau_d : dt / FID_PI; /* sap's default */
  double sap_hop = (dt + tau_d) * mu * v0; /* (dt + tau_d) mu |v_t| */
  fid_setup setup = {0, "slide", vel, 0.6, 0};
  snprintf(t->title, sizeof t->title, "Sliding box along %s", diagonal ? "the diagonal" : "x");
  fid_intro(t,
            "models/sliding_cube.xml: a 0.2 m, 1 kg cube launched at 1 m/s along %s on a "
            "plane with mu = 0.4, dt = 1 ms, 0.6 s. Coulomb friction stops it after "
            "v^2/(2 mu g) = %.5f m (analytic); semi-implicit Euler with exact friction each "
            "step stops it after %.5f m (discrete answer, the prediction for every solver "
            "with exact Coulomb friction; ✓ within 0.5%%). `stop vs analytic` is "
            "measured/analytic - 1. Hop: the largest rise of the centre of mass; max v_z: "
            "the largest vertical speed; drift: the displacement across the launch "
            "direction. Exact methods predict none of the three (✓ under 0.05 mm, 0.01 m/s, "
            "0.1 mm).\n\n"
            "- lcp: the 4-facet pyramid |lambda_t1|, |lambda_t2| <= mu lambda_N "
            "(papers/002 sec. 3.1): sliding along a facet axis it is exact; along the "
            "diagonal the friction sits in the pyramid's corner, sqrt(2) mu lambda_N, and "
            "the stop distance shrinks by 1/sqrt(2) (the discrete answer at sqrt(2) mu). "
            "The axis is read from the contact frame.\n"
            "- ccp: the convex relaxation makes the end-of-step velocity the one closest "
            "to the free velocity with every corner's c_N >= mu |c_T| (papers/002 eq. "
            "18-19): on the first step the cube leaves the floor at %.4f m/s (this "
            "program's 5-unknown QP on the cube's four corners), a ballistic hop of "
            "%.3f mm (✓ within 30%%); its stop distance is not predicted.\n"
            "- sap: its convex model is Anitescu's relaxation made compliant, so a sudden "
            "slide launches the box as ccp's does (same prediction, ✓ within 30%%); once "
            "it slides steadily it glides on the offset (dt + tau_d) mu |v_t| = %.3f mm "
            "with tau_d = %.3g ms (the default dt/pi unless opt.sap_tau_d sets it; "
            "papers/004 sec. 10.2 item 7).\n"
            "- raisim: its friction along the slip is Coulomb's times sqrt(1 - (3 mu/8)^2) "
            "(papers/002 eq. 21: the bisection turns part of it sideways), so it stops "
            "further: the discrete answer at that friction (✓ within 0.5%%).\n"
            "- soft: MuJoCo 2.2 on the same file (elliptic cones): ✓ within 1%% for the "
            "stop distance, 30%% (or 0.01 mm, 0.001 m/s) for hop, speed and drift.",
            diagonal ? "the diagonal (1, 1, 0)/sqrt(2)" : "x", analytic, discrete, ccp_vz,
            ccp_vz * ccp_vz / (2 * g) * 1e3, sap_hop * 1e3, tau_d * 1e3);
  fid_add_col(t, "stop (m)", "%.5f");
  fid_add_col(t, "stop vs analytic", "%+.2f%%");
  fid_add_col(t, "hop (mm)", "%.3f");
  fid_add_col(t, "max v_z (m/s)", "%.4f");
  fid_add_col(t, "drift (mm)", "%.3f");
  fid_rows(t);
  fid_slide ref;
  fid_slide_begin(&ref, n, u, m->qpos0);
  int mj_ok = fid_mujoco_run(path, &setup, fid_slide_cb, &ref) > 0;
  for (int row = 0; row < t->nrow; row++) {
    int is_mj = row == fid_mujoco_row(t);
    fid_slide s;
    fid_slide_begin(&s, n, u, m->qpos0);
    if (is_mj ? !mj_ok : fid_run_observed(t, row, m, &setup, o, fid_slide_cb, &s, NULL) < 0)
      continue;
    if (is_mj) s = ref;
    double angle = fid_pyramid_angle(&s, u);
    fid_family fam = is_mj ? FAM_EXACT : fid_family_of(row);
    double stop = fid_slide_along(&s), drift = fid_slide_across(&s);
    double p_stop = discrete, p_hop = 0, p_vz = 0, p_drift = 0;
    fid_kind k_hop = FID_EQ;
    double hop_abs = 5e-5, hop_rel = 0, vz_abs = 0.01, vz_rel = 0, drift_abs = 1e-4, drift_rel = 0;
    double stop_rel = 0.005;
    if (fam == FAM_LCP) {
      p_stop = fid_discrete_stop(v0, fid_pyramid_factor(angle) * mu * g, dt);
    } else if (fam == FAM_RAISIM) {
      p_stop = fid_discrete_stop(v0, fid_raisim_factor(mu) * mu * g, dt);
    } else if (fam == FAM_CCP || fam == FAM_SAP) {
      if (fam == FAM_CCP) p_stop = NAN; /* sap lands again and slides on exact friction */
      p_hop = ccp_vz * ccp_vz / (2 * g);
      p_vz = ccp_vz;
      hop_rel = vz_rel = 0.3;
      hop_abs = vz_abs = 0;
    } else if (fam == FAM_SOFT) {
      p_stop = mj_ok ? fid_slide_along(&ref) : NAN;
      stop_rel = 0.01;
      p_hop = mj_ok ? ref.hop : NAN;
      p_vz = mj_ok ? ref.vn : NAN;
      p_drift = mj_ok ? fid_slide_across(&ref) : NAN;
      hop_abs = 1e-5, vz_abs = 1e-3, drift_abs = 1e-5;
      hop_rel = vz_rel = drift_rel = 0.3;
    }
    fid_judge(t, row, 0, stop, FID_EQ, p_stop, 0, stop_rel);
    fid_value(t, row, 1, 100.0 * (stop / analytic - 1.0));
    fid_judge(t, row, 2, s.hop * 1e3, k_hop, p_hop * 1e3, hop_abs * 1e3, hop_rel);
    fid_judge(t, row, 3, s.vn, FID_EQ, p_vz, vz_abs, vz_rel);
    fid_judge(t, row, 4, drift * 1e3, FID_EQ, p_drift * 1e3, drift_abs * 1e3, drift_rel);
    if (s.speed > 1e-3) fid_note(t, row, "still sliding at %.3f m/s", s.speed);
    if (fam == FAM_LCP && isnan(p_stop))
      fid_note(t, row, "slides at %.1f deg to the pyramid's axes: no prediction", angle);
  }
  mr_model_free(m);
}

/* ---------------------------------------------------------------- incline */

static void fid_scene_incline(fid_table *t, int stick, const fid_options *o) {
  const char *path = stick ? SCENE_DIR "incline_stick.xml" : SCENE_DIR "incline_slide.xml";
  const double theta = 20.0 * FID_PI / 180.0, mu = stick ? 0.5 : 0.3, sigma = 1e-3;
  double n[3] = {sin(theta), 0, cos(theta)}, down[3] = {cos(theta), 0, -sin(theta)};
  double duration = stick ? (o->quick ? 1.0 : 5.0) : (o->quick ? 1.0 : 2.0);
  mr_model *m = fid_load(path);
  if (!m) return;
  double dt = m->opt.timestep, g = fabs(m->opt.gravity[2]);
  double accel = g * (sin(theta) - mu * cos(theta));
  double sap_creep = sigma * mu * g * dt * duration; /* slip speed sigma mu g dt, papers/004 */
  fid_setup setup = {0, NULL, NULL, duration, 0};
  if (stick) {
    snprintf(t->title, sizeof t->title, "Box on a 20 degree incline that must stick (mu = 0.5)");
    fid_intro(t,
              "bench/scenes/incline_stick.xml: a 0.2 m, 1 kg box at rest on a 20 degree "
              "incline with mu = 0.5 > tan 20 = 0.364, dt = 1 ms, %.0f s. Creep: the box's "
              "displacement along the incline's surface; rotation: the largest angle from "
              "its start orientation. Every method with exact Coulomb friction (and lcp's "
              "pyramid, which contains the cone, and ccp, whose relaxation is exact in "
              "stiction) predicts no creep (✓ under 0.1 mm) and no rotation (✓ under "
              "0.5 deg).\n\n"
              "- sap: regularized friction slips at about sigma mu g dt in stiction (papers/004 "
              "sec. 9.2 and 10.2 item 8, sigma = 1e-3): at most %.4f mm over the run (✓ up to "
              "twice that).\n"
              "- soft: MuJoCo 2.2 on the same file (✓ within 30%% or 0.001 mm, 0.05 deg).",
              duration, sap_creep * 1e3);
    fid_add_col(t, "creep (mm)", "%.4f");
  } else {
    snprintf(t->title, sizeof t->title, "Box on a 20 degree incline that must slide (mu = 0.3)");
    fid_intro(t,
              "bench/scenes/incline_slide.xml: the same box and incline with mu = 0.3 < tan "
              "20, released at rest, dt = 1 ms, %.0f s. Acceleration: from the displacement "
              "s after n steps, 2 s / (dt^2 n (n + 1)), which semi-implicit Euler makes "
              "exactly g (sin 20 - mu cos 20) = %.4f m/s^2 under exact friction (✓ within "
              "1%%). Rotation: the largest angle from the start orientation; tipping needs mu "
              "> 1, so every method predicts none (✓ under 0.5 deg).\n\n"
              "- ccp: the relaxation lifts a sliding box (see the sliding box), which lowers "
              "its friction by an amount papers/002 does not give: no acceleration "
              "prediction.\n"
              "- raisim: friction along the slip at Coulomb's times sqrt(1 - (3 mu/8)^2) "
              "(papers/002 eq. 21; see the sliding box): g sin 20 - that friction.\n"
              "- soft: MuJoCo 2.2 on the same file (acceleration ✓ within 1%%, rotation "
              "within 30%% or 0.05 deg).",
              duration, accel);
    fid_add_col(t, "acceleration (m/s^2)", "%.4f");
  }
  fid_add_col(t, "rotation (deg)", "%.3f");
  fid_rows(t);
  fid_slide ref;
  fid_slide_begin(&ref, n, down, m->qpos0);
  int mj_ok = fid_mujoco_run(path, &setup, fid_slide_cb, &ref) > 0;
  int mj_steps = (int)lround(duration / dt);
  for (int row = 0; row < t->nrow; row++) {
    int is_mj = row == fid_mujoco_row(t), steps = mj_steps;
    fid_slide s;
    fid_slide_begin(&s, n, down, m->qpos0);
    if (!is_mj) steps = fid_run_observed(t, row, m, &setup, o, fid_slide_cb, &s, NULL);
    if (is_mj ? !mj_ok : steps < 1) continue;
    if (is_mj) s = ref;
    fid_family fam = is_mj ? FAM_EXACT : fid_family_of(row);
    double along = fid_slide_along(&s), across = fid_slide_across(&s);
    double creep = sqrt(along * along + across * across), rot = s.rotation * 180.0 / FID_PI;
    double meas = stick ? creep : 2.0 * along / (dt * dt * steps * (steps + 1.0));
    double ref_creep = sqrt(fid_slide_along(&ref) * fid_slide_along(&ref) +
                            fid_slide_across(&ref) * fid_slide_across(&ref));
    double ref_accel = 2.0 * fid_slide_along(&ref) / (dt * dt * mj_steps * (mj_steps + 1.0));
    double ref_rot = ref.rotation * 180.0 / FID_PI;
    if (stick) {
      if (fam == FAM_SAP) fid_judge(t, row, 0, creep * 1e3, FID_LE, sap_creep * 1e3, sap_creep * 1e3, 0);
      else if (fam == FAM_SOFT)
        fid_judge(t, row, 0, creep * 1e3, FID_EQ, mj_ok ? ref_creep * 1e3 : NAN, 1e-3, 0.3);
      else fid_judge(t, row, 0, meas * 1e3, FID_EQ, 0, 0.1, 0);
    } else {
      double p = fam == FAM_CCP      ? NAN
                 : fam == FAM_SOFT   ? (mj_ok ? ref_accel : NAN)
                 : fam == FAM_RAISIM ? accel + (1 - fid_raisim_factor(mu)) * mu * g * cos(theta)
                                     : accel;
      fid_judge(t, row, 0, meas, FID_EQ, p, 0, 0.01);
    }
    if (fam == FAM_SOFT) fid_judge(t, row, 1, rot, FID_EQ, mj_ok ? ref_rot : NAN, 0.05, 0.3);
    else fid_judge(t, row, 1, rot, FID_EQ, 0, 0.5, 0);
  }
  mr_model_free(m);
}

/* ---------------------------------------------------------------- five-box stack */

static void fid_stack_cb(void *ctx, const fid_state *s) {
  fid_stack_observe((fid_stack *)ctx, s->qpos);
}

static void fid_scene_stack(fid_table *t, double dt, const fid_options *o) {
  const char *path = MODEL_DIR "stack5.xml";
  double duration = o->quick ? 1.0 : 10.0, g = 9.81;
  /* SAP's near-rigid contacts have the stiffness that makes their period dt (beta = 1):
   * layer j (counted from the top) carries j boxes and compresses by j g dt^2 / (4 pi^2),
   * so the top box sits 15 g dt^2 / (4 pi^2) low. */
  double sap_sink = -15.0 * g * dt * dt / (4 * FID_PI * FID_PI);
  /* five contacts, rigid; the position pass stops within its tolerance of the band */
  double lo = -5 * (MR_CONTACT_BAND + MR_DEPENETRATE_TOL), hi = 5 * MR_CONTACT_SLOP;
  mr_model *m = fid_load(path);
  if (!m) return;
  fid_setup setup = {dt, NULL, NULL, duration, 0};
  snprintf(t->title, sizeof t->title, "Five-box stack at dt = %g ms", dt * 1e3);
  fid_intro(t,
            "models/stack5.xml: five 0.2 m, 1 kg boxes stacked exactly in contact, dt = %g "
            "ms, %.0f s. Drift: the largest horizontal displacement of a box at the end; "
            "tilt: the largest rotation of a box; top height error: the top box's final "
            "height minus its start; collapsed: a box fell by more than 5 cm or turned past "
            "20 deg. Rigid contact predicts a stack that stays put (drift ✓ under 0.1 mm, "
            "tilt under 0.1 deg, not collapsed) with each of its five contacts resting "
            "between %.1f mm deep and %.0f um high: the constraint stage leaves penetration "
            "shallower than its resting band MR_CONTACT_BAND unrecovered (its position pass "
            "stops within MR_DEPENETRATE_TOL of it) and closes gaps to MR_CONTACT_SLOP "
            "(engine/constraint/constraint.h, the same rows for every solver), "
            "so the top box ends between %.2f and %+.3f mm.\n\n"
            "- sap: its near-rigid contacts have the stiffness that gives them a period of "
            "dt (papers/004, beta = 1), so under the weight above them the layers compress "
            "and the top box sits 15 g dt^2/(4 pi^2) = %.4f mm low (✓ within 0.1 mm).\n"
            "- soft: MuJoCo 2.2 on the same file and dt (✓ within 30%% or 0.001 mm, 0.01 "
            "deg, and collapsing the same way). Drift: ✓ within 30%% or under 0.01 mm, "
            "issue 15's bar for a body at rest; below it both stacks rest and the "
            "micrometres are each engine's round-off. Top height: MuJoCo 2.2's box-box "
            "collider reports half the overlap as the contact distance (measured: 1 mm deep "
            "gives dist -0.5 mm, on a face or an edge, where its box-plane gives -1 mm), so "
            "its soft box-box contacts rest twice as deep as the same model on the true "
            "depth; the prediction is MuJoCo's floor sink plus half its four box-box "
            "sinks (its bottom box's height error e_b plus (e_top - e_b) / 2).",
            dt * 1e3, duration, MR_CONTACT_BAND * 1e3, MR_CONTACT_SLOP * 1e6, lo * 1e3,
            hi * 1e3, sap_sink * 1e3);
  fid_add_col(t, "drift (mm)", "%.4f");
  fid_add_col(t, "tilt (deg)", "%.4f");
  fid_add_col(t, "top height error (mm)", "%+.4f");
  fid_add_col(t, "collapsed", "%g");
  fid_rows(t);
  fid_stack ref;
  fid_stack_begin(&ref, 5, m->qpos0);
  int mj_ok = fid_mujoco_run(path, &setup, fid_stack_cb, &ref) > 0;
  for (int row = 0; row < t->nrow; row++) {
    int is_mj = row == fid_mujoco_row(t);
    fid_stack s;
    fid_stack_begin(&s, 5, m->qpos0);
    if (is_mj ? !mj_ok : fid_run_observed(t, row, m, &setup, o, fid_stack_cb, &s, NULL) < 0)
      continue;
    if (is_mj) s = ref;
    fid_family fam = is_mj ? FAM_EXACT : fid_family_of(row);
    double tilt = s.tilt * 180.0 / FID_PI;
    if (fam == FAM_SOFT) {
      double top = ref.bottom_error + 0.5 * (ref.top_error - ref.bottom_error);
      fid_judge(t, row, 0, s.drift * 1e3, FID_EQ, mj_ok ? ref.drift * 1e3 : NAN, 1e-2, 0.3);
      fid_judge(t, row, 1, tilt, FID_EQ, mj_ok ? ref.tilt * 180.0 / FID_PI : NAN, 0.01, 0.3);
      fid_judge(t, row, 2, s.top_error * 1e3, FID_EQ, mj_ok ? top * 1e3 : NAN, 1e-3, 0.3);
    } else {
      fid_judge(t, row, 0, s.drift * 1e3, FID_EQ, 0, 0.1, 0);
      fid_judge(t, row, 1, tilt, FID_EQ, 0, 0.1, 0);
      if (fam == FAM_SAP) fid_judge(t, row, 2, s.top_error * 1e3, FID_EQ, sap_sink * 1e3, 0.1, 0);
      else {
        fid_judge(t, row, 2, s.top_error * 1e3, FID_EQ, 0.5e3 * (lo + hi), 0.5e3 * (hi - lo), 0);
        snprintf(t->cell[row][2].ptext, sizeof t->cell[row][2].ptext, "[%.2f, %+.3f]", lo * 1e3,
                 hi * 1e3);
      }
    }
    int expect = fam == FAM_SOFT ? (mj_ok ? ref.collapsed : -1) : 0;
    fid_text(t, row, 3, s.collapsed ? "yes" : "no", expect < 0 ? -1 : s.collapsed == expect);
    snprintf(t->cell[row][3].ptext, sizeof t->cell[row][3].ptext, "%s", expect ? "yes" : "no");
    t->cell[row][3].kind = expect < 0 || is_mj ? FID_NONE : FID_EQ;
  }
  mr_model_free(m);
}

/* ---------------------------------------------------------------- ball */

typedef struct fid_ball {
  int touched;
  double top; /* highest centre after the first contact */
} fid_ball;

static void fid_ball_cb(void *ctx, const fid_state *s) {
  fid_ball *b = ctx;
  b->touched |= s->ncon > 0;
  if (b->touched && s->qpos[2] > b->top) b->top = s->qpos[2];
}

static void fid_scene_ball(fid_table *t, const fid_options *o) {
  const char *path = SCENE_DIR "ball_drop.xml";
  const double es[3] = {0, 0.5, 1}, drop = 1.0, radius = 0.1;
  mr_model *m = fid_load(path);
  if (!m) return;
  fid_setup setup = {0, NULL, NULL, 1.3, 0};
  snprintf(t->title, sizeof t->title, "Ball dropped with restitution 0, 0.5 and 1");
  fid_intro(t,
            "bench/scenes/ball_drop.xml: a 1 kg ball of radius 0.1 m dropped from 1 m, dt "
            "= 1 ms, 1.3 s, d->opt.restitution = e. Each cell is the highest point the ball's "
            "bottom reaches after the first impact over the drop height. Newton restitution "
            "(papers/000 eq. 53-54) predicts e^2 (✓ within 0.005, half a percent of the "
            "drop, which also makes a rebound above 0.5%% at e = 0 a ✗). A solver whose "
            "model has no restitution (mr_solver_no_restitution: its compliance sets the "
            "rebound) refuses e > 0, as `run --restitution` does: \"refused\", which agrees "
            "with its method. MuJoCo has no restitution: its row is its soft contact's own "
            "rebound, shown in the e = 0 column.");
  fid_add_col(t, "e = 0", "%.4f");
  fid_add_col(t, "e = 0.5", "%.4f");
  fid_add_col(t, "e = 1", "%.4f");
  fid_rows(t);
  for (int row = 0; row < t->nrow - 1; row++) {
    for (int k = 0; k < 3; k++) {
      fid_ball b = {0, -INFINITY};
      int cut = 0;
      setup.restitution = es[k];
      if (es[k] > 0 && row < mr_solver_count() && mr_solver_no_restitution(row)) {
        fid_text(t, row, k, "refused", 1);
        continue;
      }
      if (fid_run_observed(t, row, m, &setup, o, fid_ball_cb, &b, &cut) < 0) continue;
      if (!cut && b.touched)
        fid_judge(t, row, k, (b.top - radius) / drop, FID_EQ, es[k] * es[k], 0.005, 0);
      else if (!b.touched) fid_note(t, row, "e = %g: never touched the floor", es[k]);
    }
  }
  fid_ball ref = {0, -INFINITY};
  if (fid_mujoco_run(path, &setup, fid_ball_cb, &ref) > 0 && ref.touched)
    fid_value(t, fid_mujoco_row(t), 0, (ref.top - radius) / drop);
  mr_model_free(m);
}

/* ---------------------------------------------------------------- the rest */

/* ---------------------------------------------------------------- four-bar closure */

/* The loop's error at a configuration: the connect anchor of body1 minus where it is at
 * qpos0 (the world point it is pinned to), by Moreau's kinematics on a scratch mr_data. */
typedef struct fid_loop {
  const mr_model *m;
  mr_data *scratch;
  int body;
  double target[3];
} fid_loop;

static void fid_loop_error(fid_loop *l, const double *qpos, double e[3]) {
  memcpy(l->scratch->qpos, qpos, (size_t)l->m->nq * sizeof(double));
  mr_kinematics(l->m, l->scratch);
  const double *R = l->scratch->xmat + 9 * l->body, *p = l->scratch->xpos + 3 * l->body;
  const double *a = l->m->eq_data;
  for (int i = 0; i < 3; i++)
    e[i] = p[i] + R[3 * i] * a[0] + R[3 * i + 1] * a[1] + R[3 * i + 2] * a[2] - l->target[i];
}

static double fid_norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* After a step from q0 to velocity v: the closure of q0 (+) dt v, the configuration before
 * the projection, and the part of it no velocity-level solver can remove, the second-order
 * term f(q0 (+) dt v) - f(q0) - dt Df(q0) v (Df v by central differences). */
static void fid_loop_measure(fid_loop *l, const double *q0, const double *v, double dt,
                             double *qt, double *measured, double *predicted) {
  const int nq = l->m->nq;
  double e0[3], et[3], ep[3], em[3], eps = 1e-6, s[3];
  memcpy(qt, q0, (size_t)nq * sizeof(double));
  mr_integrate_pos(l->m, qt, v, eps);
  fid_loop_error(l, qt, ep);
  memcpy(qt, q0, (size_t)nq * sizeof(double));
  mr_integrate_pos(l->m, qt, v, -eps);
  fid_loop_error(l, qt, em);
  fid_loop_error(l, q0, e0);
  memcpy(qt, q0, (size_t)nq * sizeof(double));
  mr_integrate_pos(l->m, qt, v, dt);
  fid_loop_error(l, qt, et);
  for (int i = 0; i < 3; i++) s[i] = et[i] - e0[i] - dt * (ep[i] - em[i]) / (2 * eps);
  *measured = fid_norm3(et);
  *predicted = fid_norm3(s);
}

static void fid_scene_fourbar(fid_table *t, const fid_options *o) {
  const char *path = MODEL_DIR "fourbar.xml";
  mr_model *m = fid_load(path);
  if (!m) return;
  fid_setup setup = {0, "driven", NULL, o->quick ? 0.5 : 2.0, 0};
  fid_loop l = {m, mr_data_create(m), m->neq > 0 ? m->eq_obj1id[0] : 0, {0, 0, 0}};
  double *q0 = malloc((size_t)m->nq * sizeof(double)), *qt = malloc((size_t)m->nq * sizeof(double));
  if (!l.scratch || !q0 || !qt || m->neq < 1 || m->eq_type[0] != MR_EQ_CONNECT) {
    fprintf(stderr, "bench_fidelity: %s: expected a connect equality\n", path);
    goto done;
  }
  fid_loop_error(&l, m->qpos0, l.target); /* the target is the anchor at qpos0 */
  snprintf(t->title, sizeof t->title, "Four-bar linkage: loop closure before projection");
  fid_intro(t,
            "models/fourbar.xml: a crank-rocker four-bar closed by a connect equality, the "
            "crank driven by a motor (keyframe `driven`), dt = 2 ms, %.1f s. `closure` is "
            "the largest distance, over the steps, between the connect's anchor and its "
            "world point at the configuration q0 (+) dt v, i.e. after the solver's velocity "
            "and before the position projection, computed here with the public kinematics. "
            "A solver that satisfies the loop's velocity rows exactly still leaves the "
            "second-order term f(q0 (+) dt v) - f(q0) - dt Df(q0) v, computed here per step "
            "(Df v by central differences, the start of each step taken as closed): that is "
            "the prediction (✓ within 25%% or 1e-9 m). `metrics.loop_closure` is what "
            "mr_step reports, at the start of the step. soft: MuJoCo 2.2's closure on the "
            "same file (its soft equality, no projection; ✓ within 30%%).",
            setup.duration);
  fid_add_col(t, "closure (m)", "%.3e");
  fid_add_col(t, "metrics.loop_closure (m)", "%.3e");
  fid_rows(t);
  double mj = fid_mujoco_closure(path, &setup);
  if (mj >= 0) fid_value(t, fid_mujoco_row(t), 0, mj);
  for (int row = 0; row < t->nrow - 1; row++) {
    fid_run r;
    if (fid_run_start(&r, m, row, &setup, o) < 0) continue;
    double worst = 0, worst_pred = 0, metric = 0, meas, pred;
    for (;;) {
      memcpy(q0, r.d->qpos, (size_t)m->nq * sizeof(double));
      if (!fid_run_step(&r)) break;
      fid_loop_measure(&l, q0, r.d->qvel, r.d->opt.timestep, qt, &meas, &pred);
      worst = fmax(worst, meas);
      worst_pred = fmax(worst_pred, pred);
      metric = fmax(metric, r.d->metrics.loop_closure);
    }
    fid_run_finish(&r, t, row);
    if (fid_family_of(row) == FAM_SOFT) fid_judge(t, row, 0, worst, FID_EQ, mj >= 0 ? mj : NAN, 0, 0.3);
    else fid_judge(t, row, 0, worst, FID_EQ, worst_pred, 1e-9, 0.25);
    fid_value(t, row, 1, metric);
  }
done:
  free(q0);
  free(qt);
  mr_data_free(l.scratch);
  mr_model_free(m);
}

/* ---------------------------------------------------------------- humanoid */

static void fid_penetration_cb(void *ctx, const fid_state *s) {
  double *worst = ctx;
  if (s->penetration > *worst) *worst = s->penetration;
}

static void fid_scene_humanoid(fid_table *t, const fid_options *o) {
  const char *path = MUJOCO_MODEL_DIR "/humanoid/humanoid.xml";
  mr_model *m = fid_load(path);
  if (!m) return;
  fid_setup setup = {0, NULL, NULL, o->quick ? 2.0 : 20.0, 0};
  snprintf(t->title, sizeof t->title, "MuJoCo's humanoid, %.0f s", setup.duration);
  fid_intro(t,
            "%s: MuJoCo's humanoid falls from qpos0 and lies on the floor, dt = 5 ms, %.0f "
            "s, the model's tolerance and iteration cap. `at the cap` is the share of steps "
            "whose solve ended at the iteration cap or failed (solver_status != 0): every "
            "solver claims to converge within its cap (✓ under 1%%). `max NCP residual` is "
            "metrics.natural_map, max over the steps: the NCP solvers (all but lcp, ccp, "
            "sap and soft, whose models are not the NCP) predict it under 1e-6 N s. "
            "`max penetration` is the deepest contact at the start of a step (a limb "
            "approaching the floor is found at the gap its step closes, collision/sweep.h, "
            "so what remains is what a solver let in): soft is judged against MuJoCo 2.2 "
            "(✓ within 30%%; its rows exist only within the margin, so it lands as MuJoCo "
            "does).",
            "/usr/share/mujoco/model/humanoid/humanoid.xml", setup.duration);
  fid_add_col(t, "at the cap (%)", "%.1f");
  fid_add_col(t, "max NCP residual", "%.2e");
  fid_add_col(t, "max penetration (mm)", "%.2f");
  fid_rows(t);
  double mj_pen = 0;
  int mj_ok = fid_mujoco_run(path, &setup, fid_penetration_cb, &mj_pen) > 0;
  if (mj_ok) fid_value(t, fid_mujoco_row(t), 2, mj_pen * 1e3);
  for (int row = 0; row < t->nrow - 1; row++) {
    fid_run r;
    if (fid_run_start(&r, m, row, &setup, o) < 0) continue;
    int capped = 0;
    double ncp = 0, pen = 0;
    fid_state st;
    while (fid_run_step(&r)) {
      capped += r.d->solver_status != 0;
      ncp = fmax(ncp, r.d->metrics.natural_map);
      fid_run_state(&r, &st);
      pen = fmax(pen, st.penetration);
    }
    int done = r.done;
    fid_run_finish(&r, t, row);
    fid_family fam = fid_family_of(row);
    fid_judge(t, row, 0, done ? 100.0 * capped / done : NAN, FID_EQ, 0, 1.0, 0);
    fid_judge(t, row, 1, ncp, FID_LE, fam == FAM_EXACT ? 1e-6 : NAN, 0, 0);
    fid_judge(t, row, 2, pen * 1e3, FID_EQ, fam == FAM_SOFT && mj_ok ? mj_pen * 1e3 : NAN, 0, 0.3);
  }
  mr_model_free(m);
}

/* ---------------------------------------------------------------- main */

typedef enum fid_scene_id {
  SC_SLIDE_X, SC_SLIDE_DIAG, SC_INCLINE_STICK, SC_INCLINE_SLIDE, SC_STACK_1MS, SC_STACK_10MS,
  SC_BALL, SC_FOURBAR, SC_HUMANOID, SC_COUNT
} fid_scene_id;

static const char *const fid_scene_names[SC_COUNT] = {
    "slide_x", "slide_diag", "incline_stick", "incline_slide", "stack_1ms",
    "stack_10ms", "ball", "fourbar", "humanoid"};

static void fid_run_scene(int id, fid_table *t, const fid_options *o) {
  t->id = fid_scene_names[id];
  switch (id) {
    case SC_SLIDE_X: fid_scene_slide(t, 0, o); break;
    case SC_SLIDE_DIAG: fid_scene_slide(t, 1, o); break;
    case SC_INCLINE_STICK: fid_scene_incline(t, 1, o); break;
    case SC_INCLINE_SLIDE: fid_scene_incline(t, 0, o); break;
    case SC_STACK_1MS: fid_scene_stack(t, 0.001, o); break;
    case SC_STACK_10MS: fid_scene_stack(t, 0.01, o); break;
    case SC_BALL: fid_scene_ball(t, o); break;
    case SC_FOURBAR: fid_scene_fourbar(t, o); break;
    default: fid_scene_humanoid(t, o); break;
  }
}

static int fid_usage(void) {
  fprintf(stderr,
          "usage: bench_fidelity [--out FILE.md] [--quick] [--scene NAME]... [--budget SECONDS]\n"
          "scenes:");
  for (int i = 0; i < SC_COUNT; i++) fprintf(stderr, " %s", fid_scene_names[i]);
  fprintf(stderr, "\n");
  return 2;
}

static int fid_find_scene(const char *name) {
  for (int i = 0; i < SC_COUNT; i++)
    if (!strcmp(name, fid_scene_names[i])) return i;
  return -1;
}

/* Writes the document to path through path.tmp and a rename, so that a failed run never
 * leaves a half-written file in its place. */
static int fid_write(const char *path, const fid_table *tables, int n, const char *command) {
  if (!path) {
    if (fid_write_markdown(stdout, tables, n, command) == 0 && fflush(stdout) == 0) return 0;
    fprintf(stderr, "bench_fidelity: writing to stdout failed\n");
    return 1;
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) {
    fprintf(stderr, "bench_fidelity: %s: cannot write it\n", tmp);
    return 1;
  }
  int bad = fid_write_markdown(f, tables, n, command) != 0;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, "bench_fidelity: %s: writing it failed\n", bad ? tmp : path);
    remove(tmp);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  fid_options o = {0, 0};
  const char *out = NULL;
  int chosen[SC_COUNT] = {0}, nchosen = 0;
  char command[1024] = "build/bench/bench_fidelity";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--quick")) o.quick = 1;
    else if (!strcmp(a, "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(a, "--budget") && i + 1 < argc) {
      char *end;
      o.budget = strtod(argv[++i], &end);
      if (*end || !(o.budget > 0)) return fid_usage();
    } else if (!strcmp(a, "--scene") && i + 1 < argc) {
      int id = fid_find_scene(argv[++i]);
      if (id < 0) return fid_usage();
      nchosen += !chosen[id];
      chosen[id] = 1;
    } else return fid_usage();
  }
  for (int i = 1; i < argc; i++) {
    size_t n = strlen(command);
    snprintf(command + n, sizeof command - n, " %s", argv[i]);
  }
  if (!o.budget) o.budget = o.quick ? 5.0 : 20.0;
  if (!nchosen) {
    static const int quick_set[] = {SC_SLIDE_X, SC_INCLINE_STICK, SC_BALL, SC_FOURBAR};
    if (o.quick)
      for (size_t k = 0; k < sizeof quick_set / sizeof quick_set[0]; k++) chosen[quick_set[k]] = 1;
    else
      for (int i = 0; i < SC_COUNT; i++) chosen[i] = 1;
  }
  static fid_table tables[SC_COUNT];
  int n = 0;
  for (int i = 0; i < SC_COUNT; i++) {
    if (!chosen[i]) continue;
    double t0 = cpu_seconds();
    fid_run_scene(i, &tables[n], &o);
    fprintf(stderr, "%-14s %6.1f s\n", fid_scene_names[i], cpu_seconds() - t0);
    if (!tables[n].nrow) {
      fprintf(stderr, "bench_fidelity: scene %s could not run\n", fid_scene_names[i]);
      return 1;
    }
    n++;
  }
  return fid_write(out, tables, n, command);
}
