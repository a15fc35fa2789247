#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

enum { PROGRESS_BAR_WIDTH = 30 };
static const double progress_delay_s = 1.0;    /* short runs show no bar */
static const double progress_interval_s = 0.1; /* at most ten redraws a second */

double mr_wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mr_progress_begin(mr_progress *p, long total_steps, int quiet) {
  p->enabled = !quiet && total_steps > 0 && isatty(STDERR_FILENO);
  p->shown = 0;
  p->total = total_steps;
  p->start = mr_wall_seconds();
  p->last_draw = p->start;
}

static void progress_draw(const mr_progress *p, long done, double elapsed) {
  double fraction = (double)done / (double)p->total;
  int filled = (int)(fraction * PROGRESS_BAR_WIDTH);
  char bar[PROGRESS_BAR_WIDTH + 1];
  for (int i = 0; i < PROGRESS_BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '-';
  bar[PROGRESS_BAR_WIDTH] = 0;
  double rate = elapsed > 0 ? (double)done / elapsed : 0;
  double eta = rate > 0 ? (double)(p->total - done) / rate : 0;
  /* \033[K erases what a longer previous line left to the right. */
  fprintf(stderr, "\r[%s] %5.1f%%  %.0f steps/s  ETA %.1f s\033[K", bar, 100 * fraction, rate, eta);
  fflush(stderr);
}

void mr_progress_update(mr_progress *p, long done_steps) {
  if (!p->enabled) return;
  double now = mr_wall_seconds();
  if (now - p->start < progress_delay_s || now - p->last_draw < progress_interval_s) return;
  p->last_draw = now;
  p->shown = 1;
  progress_draw(p, done_steps, now - p->start);
}

void mr_progress_end(mr_progress *p) {
  if (!p->shown) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  p->shown = 0;
}
