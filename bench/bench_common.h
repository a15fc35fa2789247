/* What every benchmark shares: a monotonic clock, the median of the rounds, and the
 * command line (--steps N --rounds R [--long | --seeded] [MODEL.xml ...]). Header-only: each bench_*.c is its
 * own program. */
#ifndef MR_BENCH_COMMON_H
#define MR_BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_ROUNDS = 101, MAX_MODELS = 32 };

static inline double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static inline int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median (sorts v). */
static inline double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare_doubles);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The nudge of a seeded start: qvel[i] of run `seed`, within 1e-3 (bench_batch's jobs and
 * bench_contact --seeded, for MuJoCo and Moreau alike). */
static inline double bench_seed_nudge(int seed, int i) {
  return 1e-3 * ((seed * 7919 + i * 104729) % 2001 - 1000) / 1000.0;
}

typedef struct bench_args {
  int steps, rounds; /* steps: the caller's default unless --steps */
  const char *models[MAX_MODELS];
  int nmodels;       /* 0: the caller fills its defaults */
  int long_horizon;  /* --long: the caller's long-horizon scenes */
  int seeded;        /* --seeded: only their seeded runs */
} bench_args;

/* Parses --steps N, --rounds R and model paths; prints usage and exits 2 on anything else
 * or on out-of-range values (steps below min_steps). */
static inline void bench_parse_args(int argc, char **argv, const char *name, int min_steps,
                                    bench_args *a) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--steps") && i + 1 < argc) a->steps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--long")) a->long_horizon = 1;
    else if (!strcmp(argv[i], "--seeded")) a->long_horizon = a->seeded = 1;
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) a->rounds = atoi(argv[++i]);
    else if (argv[i][0] != '-' && a->nmodels < MAX_MODELS) a->models[a->nmodels++] = argv[i];
    else a->rounds = -1;
  }
  if (a->steps < min_steps || a->rounds < 1 || a->rounds > MAX_ROUNDS) {
    fprintf(stderr, "usage: %s [--steps N] [--rounds R] [--long | --seeded] [MODEL.xml ...]\n", name);
    exit(2);
  }
}

#endif
