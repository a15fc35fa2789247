/* The per-step metrics (engine/constraint/metrics.c): zero on an exact solution, positive where a
 * perturbed one violates what each measures. */
#include <math.h>
#include <string.h>

#include "engine/constraint/constraint.h"
#include "engine/solver/ncp.h"
#include "mr_test.h"

/* Rows: 1 bilateral, 1 limit, 1 contact (point mass: G = I). */
typedef struct setup {
  double G[25], g[5], mu[1], dist[1], phi[5], c[5];
  mr_problem p;
  mr_rows r;
} setup;

static void setup_init(setup *s) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 5; i++) s->G[i * 5 + i] = 1;
  const double g[5] = {0.2, -0.3, -0.01, 1, 0};
  memcpy(s->g, g, sizeof g);
  s->mu[0] = 0.4;
  s->dist[0] = -0.002;
  s->phi[0] = 1e-4;
  s->p = (mr_problem){.nrow = 5, .neq = 1, .nlim = 1, .ncon = 1, .G = s->G, .g = s->g,
                      .mu = s->mu, .dist = s->dist};
  s->r.nrow = 5;
  s->r.neq = 1;
  s->r.nlim = 1;
  s->r.ncon = 1;
  s->r.phi = s->phi;
}

int main(void) {
  setup s;
  setup_init(&s);
  /* exact: bilateral -0.2, limit 0.3, contact sliding along t1 */
  double exact[5] = {-0.2, 0.3, 0.01, -0.004, 0};
  mr_metrics mt;
  mr_metrics_compute(&s.p, &s.r, exact, s.c, &mt);
  MR_CHECK_NEAR(mt.primal, 0, 1e-15);
  MR_CHECK_NEAR(mt.dual, 0, 1e-15);
  MR_CHECK_NEAR(mt.complementarity, 0, 1e-15);
  MR_CHECK_NEAR(mt.natural_map, 0, 1e-15);
  MR_CHECK_NEAR(mt.signorini, 0, 1e-15);
  MR_CHECK_NEAR(mt.dissipation, 0, 1e-15);
  MR_CHECK_NEAR(mt.penetration, 0.002, 1e-15);
  MR_CHECK_NEAR(mt.loop_closure, 1e-4, 1e-18);
  MR_CHECK_NEAR(s.c[3], 0.996, 1e-15);
  MR_CHECK_NEAR(mr_ncp_residual(&s.p, exact, s.c), 0, 1e-15);

  /* friction turned sideways: same magnitude, not opposing the slip */
  double tilted[5] = {-0.2, 0.3, 0.01, -0.002, 0.002 * sqrt(3)};
  mr_metrics_compute(&s.p, &s.r, tilted, s.c, &mt);
  MR_CHECK(mt.dissipation > 1e-4);
  MR_CHECK(mt.complementarity > 1e-4);
  MR_CHECK(mt.natural_map > 1e-4);
  MR_CHECK_NEAR(mt.primal, 0, 1e-15);

  /* too little normal impulse: the contact sinks (dual, Signorini-free), limit outside */
  double weak[5] = {-0.1, -0.1, 0.005, -0.002, 0};
  mr_metrics_compute(&s.p, &s.r, weak, s.c, &mt);
  MR_CHECK(mt.dual >= 0.1 - 1e-15); /* bilateral velocity 0.1 */
  MR_CHECK(mt.primal >= 0.1 - 1e-15); /* limit impulse -0.1 */
  MR_CHECK(mt.natural_map > 0);
  MR_CHECK(mr_ncp_residual(&s.p, weak, s.c) >= 0.1 - 1e-15);

  /* a contact that pushes while separating: Signorini */
  double pushing[5] = {-0.2, 0.3, 0.02, -0.008, 0};
  mr_metrics_compute(&s.p, &s.r, pushing, s.c, &mt);
  MR_CHECK_NEAR(mt.signorini, 0.02 * 0.01, 1e-15);
  MR_CHECK(mt.complementarity > 1e-4);
  MR_TEST_END();
}
