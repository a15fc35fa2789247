/* bench_fidelity's shared pieces: the table a scene fills (one row per solver, a cell per
 * measured quantity with the value the method predicts and the verdict), the per-step
 * observers both engines feed (Moreau's solvers and MuJoCo 2.2, the reference for `soft`),
 * and the predictions that need a computation of their own. */
#ifndef MR_BENCH_FIDELITY_H
#define MR_BENCH_FIDELITY_H

#include <stdio.h>

enum { FID_MAXROW = 16, FID_MAXCOL = 7 };
#define FID_PI 3.14159265358979323846

/* How a cell's measured value is judged against its prediction. */
typedef enum fid_kind {
  FID_NONE = 0, /* no prediction: the value alone */
  FID_EQ,       /* |measured - predicted| <= abs + rel |predicted| */
  FID_LE,       /* measured <= predicted (a bound the method guarantees) */
  FID_BAND      /* predicted / rel <= measured <= predicted * rel (a magnitude estimate) */
} fid_kind;

typedef struct fid_cell {
  int set;          /* 0: empty (the run did not get there) */
  double value, predicted;
  int kind;         /* fid_kind */
  int agree;        /* 1, 0; -1 when there is no verdict */
  char text[24];    /* shown instead of the value when not empty ("refused", "yes") */
  char ptext[24];   /* shown instead of the prediction when not empty */
} fid_cell;

typedef struct fid_table {
  const char *id;  /* --scene name */
  char title[96];
  char intro[4096]; /* the scene, the predictions and the tolerances (markdown) */
  int ncol;
  char col[FID_MAXCOL][48];
  char fmt[FID_MAXCOL][8]; /* printf format of the column's numbers */
  int nrow;
  char row[FID_MAXROW][40];
  int reference[FID_MAXROW]; /* a reference row (MuJoCo): values only, no verdicts */
  fid_cell cell[FID_MAXROW][FID_MAXCOL];
  char note[FID_MAXROW][200];
} fid_table;

/* Tables: a new row (returns its index), a column, the cells. */
int fid_add_row(fid_table *t, const char *name, int reference);
void fid_add_col(fid_table *t, const char *name, const char *fmt);
void fid_value(fid_table *t, int row, int col, double value);
void fid_text(fid_table *t, int row, int col, const char *text, int agree);
void fid_judge(fid_table *t, int row, int col, double value, fid_kind kind, double predicted,
               double abs_tol, double rel_tol);
void fid_note(fid_table *t, int row, const char *fmt, ...);
void fid_intro(fid_table *t, const char *fmt, ...);

/* The whole document: summary of the verdicts per solver, then one section per table.
 * Returns 0, or -1 if the stream failed. */
int fid_write_markdown(FILE *f, const fid_table *tables, int ntables, const char *command);

/* ---------------------------------------------------------------- observers */

/* A free body sliding on a plane with unit normal n, launched along the unit vector u. */
typedef struct fid_slide {
  double n[3], u[3], p0[3], q0[4];
  double disp[3];      /* com displacement so far */
  double hop;          /* largest rise of the com along n (m) */
  double vn;           /* largest |velocity along n| (m/s) */
  double rotation;     /* largest angle from the start orientation (rad) */
  double speed;        /* tangential speed at the last step (m/s) */
  double frame[9];     /* the first contact's frame (normal, t1, t2) when it first touched */
  int touched;
} fid_slide;

void fid_slide_begin(fid_slide *s, const double n[3], const double u[3], const double *qpos);
struct fid_state;
void fid_slide_observe(fid_slide *s, const struct fid_state *st);
double fid_slide_along(const fid_slide *s);    /* displacement along u */
double fid_slide_across(const fid_slide *s);   /* tangential displacement off u */

/* A stack of free bodies (each qpos block 7 wide from qadr0). */
typedef struct fid_stack {
  int nbody;
  double p0[8][3], q0[8][4];
  double drift, tilt, top_error; /* at the last observation (m, rad, m) */
  double bottom_error;           /* the bottom box's height minus its start (m) */
  int collapsed;
} fid_stack;

void fid_stack_begin(fid_stack *s, int nbody, const double *qpos);
void fid_stack_observe(fid_stack *s, const double *qpos);

/* Angle between two unit quaternions (rad). */
double fid_quat_angle(const double a[4], const double b[4]);

/* ---------------------------------------------------------------- predictions */

/* Distance a body sliding at v0 travels under a constant deceleration a with semi-implicit
 * Euler at step dt, Coulomb friction solved exactly each step (the velocity stops at 0). */
double fid_discrete_stop(double v0, double a, double dt);

/* CCP's launch on the first step of a cube of half size h and mass m resting on a plane
 * (normal +z, four corner contacts, friction mu) while sliding at v0 along the unit
 * horizontal u: the end-of-step velocity of the convex relaxation, the velocity closest
 * in the kinetic metric to the free velocity (v0 u, -g dt) such that each corner's velocity
 * lies in the dual cone (c_N >= mu |c_T|), papers/002 eq. (18)-(19). Returns the vertical
 * velocity (m/s); the hop is its square over 2 g. */
double fid_ccp_launch(double h, double m, double mu, double v0, const double u[2], double g,
                      double dt);

/* ---------------------------------------------------------------- the engines */

/* What an observer sees after each step, from either engine. */
typedef struct fid_state {
  const double *qpos, *qvel;
  const double *xpos, *xmat; /* bodies' frames (x3, x9) for the qpos the step started from */
  double penetration;        /* max(0, -dist) over the step's contacts (m) */
  int ncon;
  const double *frame;       /* the first contact's frame (rows: normal, t1, t2), if ncon */
} fid_state;

typedef void (*fid_observer)(void *ctx, const fid_state *s);

/* How a run starts: the timestep (0: the file's), a keyframe by name (NULL: qpos0) and
 * then an initial linear velocity of the first free body (NULL: the keyframe's). */
typedef struct fid_setup {
  double dt;
  const char *key;
  const double *v0; /* 3 */
  double duration;
  double restitution; /* d->opt.restitution when above 0 (Moreau only: MuJoCo has none) */
} fid_setup;

/* Runs MuJoCo 2.2 on path with elliptic friction cones (the model `soft` implements), one
 * observer call per step. Returns the steps run, or -1 if the file does not load (a line on
 * stderr). */
int fid_mujoco_run(const char *path, const fid_setup *setup, fid_observer observe, void *ctx);

/* MuJoCo's loop closure for a connect to the world: |anchor of body1 - its qpos0 position|
 * after each step, max over the run (m); -1 if the file does not load. */
double fid_mujoco_closure(const char *path, const fid_setup *setup);

#endif
