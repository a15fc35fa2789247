/* bench_fidelity's tables and their markdown, the per-step observers and the predictions
 * that need a computation (fidelity.h). */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "fidelity.h"

/* ---------------------------------------------------------------- tables */

int fid_add_row(fid_table *t, const char *name, int reference) {
  if (t->nrow >= FID_MAXROW) return FID_MAXROW - 1;
  int r = t->nrow++;
  snprintf(t->row[r], sizeof t->row[r], "%s", name);
  t->reference[r] = reference;
  return r;
}

void fid_add_col(fid_table *t, const char *name, const char *fmt) {
  if (t->ncol >= FID_MAXCOL) return;
  snprintf(t->col[t->ncol], sizeof t->col[0], "%s", name);
  snprintf(t->fmt[t->ncol], sizeof t->fmt[0], "%s", fmt);
  t->ncol++;
}

static fid_cell *fid_at(fid_table *t, int row, int col) {
  fid_cell *c = &t->cell[row][col];
  memset(c, 0, sizeof *c);
  c->set = 1;
  c->agree = -1;
  return c;
}

void fid_value(fid_table *t, int row, int col, double value) { fid_at(t, row, col)->value = value; }

void fid_text(fid_table *t, int row, int col, const char *text, int agree) {
  fid_cell *c = fid_at(t, row, col);
  snprintf(c->text, sizeof c->text, "%s", text);
  c->agree = t->reference[row] ? -1 : agree;
}

void fid_judge(fid_table *t, int row, int col, double value, fid_kind kind, double predicted,
               double abs_tol, double rel_tol) {
  fid_cell *c = fid_at(t, row, col);
  c->value = value;
  c->predicted = predicted;
  c->kind = isfinite(predicted) && !t->reference[row] ? (int)kind : FID_NONE;
  if (c->kind == FID_NONE) return;
  int ok = 0;
  if (!isfinite(value)) ok = 0;
  else if (kind == FID_EQ) ok = fabs(value - predicted) <= abs_tol + rel_tol * fabs(predicted);
  else if (kind == FID_LE) ok = value <= predicted + abs_tol;
  else ok = value >= predicted / rel_tol - abs_tol && value <= predicted * rel_tol + abs_tol;
  c->agree = ok;
}

void fid_note(fid_table *t, int row, const char *fmt, ...) {
  size_t n = strlen(t->note[row]);
  if (n && n + 2 < sizeof t->note[row]) {
    strcat(t->note[row], "; ");
    n += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->note[row] + n, sizeof t->note[row] - n, fmt, ap);
  va_end(ap);
}

void fid_intro(fid_table *t, const char *fmt, ...) {
  size_t n = strlen(t->intro);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->intro + n, sizeof t->intro - n, fmt, ap);
  va_end(ap);
}

/* ---------------------------------------------------------------- markdown */

static void fid_number(char *buf, size_t n, const char *fmt, double v) {
  if (!isfinite(v)) snprintf(buf, n, "%s", isnan(v) ? "nan" : "inf");
  else snprintf(buf, n, fmt, v);
}

static void fid_cell_text(const fid_table *t, int r, int c, char *buf, size_t n) {
  const fid_cell *x = &t->cell[r][c];
  char v[48], p[48];
  if (!x->set) {
    snprintf(buf, n, "-");
    return;
  }
  if (x->text[0]) snprintf(v, sizeof v, "%s", x->text);
  else fid_number(v, sizeof v, t->fmt[c], x->value);
  const char *mark = x->agree == 1 ? " ✓" : x->agree == 0 ? " ✗" : "";
  if (x->kind == FID_NONE) {
    snprintf(buf, n, "%s%s", v, mark);
    return;
  }
  if (x->ptext[0]) snprintf(p, sizeof p, "%s", x->ptext);
  else fid_number(p, sizeof p, t->fmt[c], x->predicted);
  const char *rel = x->kind == FID_LE ? "≤ " : x->kind == FID_BAND ? "~" : "";
  snprintf(buf, n, "%s / %s%s%s", v, rel, p, mark);
}

/* The per-solver summary: how many judged cells agree, and which do not. */
static void fid_write_summary(FILE *f, const fid_table *tables, int ntables) {
  fprintf(f, "## Summary\n\n| solver | agree | disagree | cells that disagree |\n");
  fprintf(f, "|---|---|---|---|\n");
  const fid_table *first = NULL;
  for (int k = 0; k < ntables && !first; k++)
    if (tables[k].nrow) first = &tables[k];
  if (!first) return;
  for (int r = 0; r < first->nrow; r++) {
    if (first->reference[r]) continue;
    const char *name = first->row[r];
    int agree = 0, disagree = 0;
    char list[2048] = "";
    for (int k = 0; k < ntables; k++) {
      const fid_table *t = &tables[k];
      for (int rr = 0; rr < t->nrow; rr++) {
        if (t->reference[rr] || strcmp(t->row[rr], name)) continue;
        for (int c = 0; c < t->ncol; c++) {
          const fid_cell *x = &t->cell[rr][c];
          if (x->agree == 1) agree++;
          if (x->agree != 0) continue;
          disagree++;
          size_t n = strlen(list);
          snprintf(list + n, sizeof list - n, "%s%s: %s", n ? ", " : "", t->id, t->col[c]);
        }
      }
    }
    fprintf(f, "| %s | %d | %d | %s |\n", name, agree, disagree, list[0] ? list : "-");
  }
  fprintf(f, "\n");
}

static void fid_write_table(FILE *f, const fid_table *t) {
  fprintf(f, "## %s\n\n%s\n\n| solver |", t->title, t->intro);
  for (int c = 0; c < t->ncol; c++) fprintf(f, " %s |", t->col[c]);
  fprintf(f, " note |\n|---|");
  for (int c = 0; c < t->ncol; c++) fprintf(f, "---|");
  fprintf(f, "---|\n");
  for (int r = 0; r < t->nrow; r++) {
    fprintf(f, "| %s |", t->row[r]);
    for (int c = 0; c < t->ncol; c++) {
      char buf[128];
      fid_cell_text(t, r, c, buf, sizeof buf);
      fprintf(f, " %s |", buf);
    }
    fprintf(f, " %s |\n", t->note[r][0] ? t->note[r] : "");
  }
  fprintf(f, "\n");
}

int fid_write_markdown(FILE *f, const fid_table *tables, int ntables, const char *command) {
  fprintf(f,
          "# Fidelity: every solver against what its method predicts\n\n"
          "Generated by `%s` (bench/bench_fidelity.c; bench/README.md explains the scenes and "
          "measures). Do not edit by hand: regenerate.\n\n"
          "Each cell reads *measured / predicted* and ✓ when the two agree within the "
          "tolerance the section states, ✗ when they do not. The prediction is what the "
          "solver's own method gives on that scene (exact Coulomb friction and Signorini "
          "contact for the NCP solvers; the 4-facet pyramid for `lcp`; the convex "
          "relaxation for `ccp`; the regularized, compliant model for `sap`; MuJoCo 2.2 "
          "itself for `soft`), so a ✗ is a deviation that is not a property of the method. "
          "`≤ p` is a bound, `~p` a magnitude estimate (agreement within a factor stated "
          "in the section), a cell with no prediction shows the measured value alone, and "
          "`-` means the run did not get there. MuJoCo rows are references, not judged.\n\n",
          command);
  fid_write_summary(f, tables, ntables);
  for (int k = 0; k < ntables; k++)
    if (tables[k].nrow) fid_write_table(f, &tables[k]);
  return ferror(f) ? -1 : 0;
}

/* ---------------------------------------------------------------- observers */

static double fid_dot3(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double fid_quat_angle(const double a[4], const double b[4]) {
  double c = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3]);
  double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
  c /= na * nb;
  return 2.0 * acos(c > 1.0 ? 1.0 : c);
}

void fid_slide_begin(fid_slide *s, const double n[3], const double u[3], const double *qpos) {
  memset(s, 0, sizeof *s);
  memcpy(s->n, n, sizeof s->n);
  memcpy(s->u, u, sizeof s->u);
  memcpy(s->p0, qpos, sizeof s->p0);
  memcpy(s->q0, qpos + 3, sizeof s->q0);
}

void fid_slide_observe(fid_slide *s, const fid_state *st) {
  const double *qpos = st->qpos, *qvel = st->qvel;
  if (!s->touched && st->ncon > 0 && st->frame) {
    memcpy(s->frame, st->frame, sizeof s->frame);
    s->touched = 1;
  }
  for (int k = 0; k < 3; k++) s->disp[k] = qpos[k] - s->p0[k];
  double rise = fid_dot3(s->disp, s->n), vn = fid_dot3(qvel, s->n);
  if (rise > s->hop) s->hop = rise;
  if (fabs(vn) > s->vn) s->vn = fabs(vn);
  double angle = fid_quat_angle(qpos + 3, s->q0);
  if (angle > s->rotation) s->rotation = angle;
  double vt[3];
  for (int k = 0; k < 3; k++) vt[k] = qvel[k] - vn * s->n[k];
  s->speed = sqrt(fid_dot3(vt, vt));
}

double fid_slide_along(const fid_slide *s) { return fid_dot3(s->disp, s->u); }

double fid_slide_across(const fid_slide *s) {
  double along = fid_dot3(s->disp, s->u), rise = fid_dot3(s->disp, s->n), off[3];
  for (int k = 0; k < 3; k++) off[k] = s->disp[k] - along * s->u[k] - rise * s->n[k];
  return sqrt(fid_dot3(off, off));
}

void fid_stack_begin(fid_stack *s, int nbody, const double *qpos) {
  memset(s, 0, sizeof *s);
  s->nbody = nbody > 8 ? 8 : nbody;
  for (int b = 0; b < s->nbody; b++) {
    memcpy(s->p0[b], qpos + 7 * b, sizeof s->p0[b]);
    memcpy(s->q0[b], qpos + 7 * b + 3, sizeof s->q0[b]);
  }
}

/* Collapsed: a box fell by more than a quarter of its size or turned past 20 degrees. */
void fid_stack_observe(fid_stack *s, const double *qpos) {
  s->drift = s->tilt = 0;
  for (int b = 0; b < s->nbody; b++) {
    const double *p = qpos + 7 * b;
    double dx = p[0] - s->p0[b][0], dy = p[1] - s->p0[b][1];
    double drift = sqrt(dx * dx + dy * dy), tilt = fid_quat_angle(p + 3, s->q0[b]);
    if (drift > s->drift) s->drift = drift;
    if (tilt > s->tilt) s->tilt = tilt;
    if (s->p0[b][2] - p[2] > 0.05 || tilt > 20.0 * FID_PI / 180.0 || !isfinite(p[2]))
      s->collapsed = 1;
  }
  int top = s->nbody - 1;
  s->top_error = qpos[7 * top + 2] - s->p0[top][2];
  s->bottom_error = qpos[2] - s->p0[0][2];
}

/* ---------------------------------------------------------------- predictions */

double fid_discrete_stop(double v0, double a, double dt) {
  double v = v0, x = 0;
  while (v > 0) {
    v = v - a * dt > 0 ? v - a * dt : 0;
    x += dt * v;
  }
  return x;
}

/* Solves the n x n system A x = b in place (partial pivoting); -1 if singular. */
static int fid_solve(int n, double A[4][4], double b[4]) {
  for (int k = 0; k < n; k++) {
    int p = k;
    for (int i = k + 1; i < n; i++)
      if (fabs(A[i][k]) > fabs(A[p][k])) p = i;
    if (fabs(A[p][k]) < 1e-12) return -1;
    for (int j = 0; j < n; j++) {
      double t = A[k][j];
      A[k][j] = A[p][j];
      A[p][j] = t;
    }
    double t = b[k];
    b[k] = b[p];
    b[p] = t;
    for (int i = k + 1; i < n; i++) {
      double f = A[i][k] / A[k][k];
      for (int j = k; j < n; j++) A[i][j] -= f * A[k][j];
      b[i] -= f * b[k];
    }
  }
  for (int k = n - 1; k >= 0; k--) {
    for (int j = k + 1; j < n; j++) b[k] -= A[k][j] * b[j];
    b[k] /= A[k][k];
  }
  return 0;
}

/* Unknowns x = (vx, vy, vz, wx, wy): by symmetry the cube neither spins about z nor slips
 * sideways, so every corner's slip is along u and the cone constraint c_N >= mu |c_T| is
 * the linear a_i x >= 0. The QP min 1/2 (x - xf)^T M (x - xf), A x >= 0 is solved by
 * trying every active set (16) and keeping the KKT point. */
double fid_ccp_launch(double h, double m, double mu, double v0, const double u[2], double g,
                      double dt) {
  double inertia = m * (2 * h) * (2 * h) / 6.0;
  double minv[5] = {1 / m, 1 / m, 1 / m, 1 / inertia, 1 / inertia};
  double xf[5] = {v0 * u[0], v0 * u[1], -g * dt, 0, 0}, a[4][5];
  for (int i = 0; i < 4; i++) {
    double rx = i & 1 ? h : -h, ry = i & 2 ? h : -h;
    double row[5] = {-mu * u[0], -mu * u[1], 1, ry - mu * u[1] * h, -rx + mu * u[0] * h};
    memcpy(a[i], row, sizeof row);
  }
  double best = NAN, best_cost = INFINITY;
  for (int set = 0; set < 16; set++) {
    int idx[4], n = 0;
    for (int i = 0; i < 4; i++)
      if (set & (1 << i)) idx[n++] = i;
    double K[4][4] = {{0}}, lam[4] = {0};
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++)
        for (int k = 0; k < 5; k++) K[i][j] += a[idx[i]][k] * minv[k] * a[idx[j]][k];
      for (int k = 0; k < 5; k++) lam[i] -= a[idx[i]][k] * xf[k];
    }
    if (n && fid_solve(n, K, lam) < 0) continue;
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= lam[i] >= -1e-12;
    double x[5];
    for (int k = 0; k < 5; k++) {
      x[k] = xf[k];
      for (int i = 0; i < n; i++) x[k] += minv[k] * a[idx[i]][k] * lam[i];
    }
    for (int i = 0; i < 4; i++) {
      double s = 0;
      for (int k = 0; k < 5; k++) s += a[i][k] * x[k];
      ok &= s >= -1e-9;
    }
    double cost = 0;
    for (int k = 0; k < 5; k++) cost += 0.5 * (x[k] - xf[k]) * (x[k] - xf[k]) / minv[k];
    if (ok && cost < best_cost) {
      best_cost = cost;
      best = x[2];
    }
  }
  return best;
}
