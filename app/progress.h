/* A progress bar on stderr for long runs: percentage, steps per second, time left.
 *
 * It appears only when stderr is a terminal and the run has already taken a second, is
 * redrawn at most ten times a second, and is erased at the end, so logs and pipes never
 * see it and short runs never flicker. */
#ifndef MR_PROGRESS_H
#define MR_PROGRESS_H

typedef struct mr_progress {
  int enabled; /* stderr is a terminal and output is not quiet */
  int shown;   /* a bar is on screen and must be erased */
  long total;
  double start, last_draw;
} mr_progress;

/* Monotonic wall-clock seconds. */
double mr_wall_seconds(void);

void mr_progress_begin(mr_progress *p, long total_steps, int quiet);
void mr_progress_update(mr_progress *p, long done_steps);
void mr_progress_end(mr_progress *p);

#endif
