/* Per-step physical error measures, computed once here for every solver from the problem
 * and the impulses it returned. The NCP terms (primal, dual, complementarity, natural map,
 * Signorini, dissipation) are those of engine/solver/ncp.c, on c = G lambda + g recomputed
 * here from lambda (never taken from the solver); the rows add
 *
 *   penetration       max(0, -dist) over the contact rows (m), at the start of the step
 *   loop_closure      max |phi| over equality rows at the start of the step (m or rad)
 *   energy            kinetic + potential at the start of the step (set by the pipeline)
 *   solver_time       seconds spent in the solver (set by mr_constraint_solve)
 */
#include <math.h>

#include "constraint.h"
#include "engine/solver/ncp.h"

static void mr_metrics_from_c(const mr_problem *p, const mr_rows *r, const double *lambda,
                              const double *c, mr_metrics *out) {
  mr_ncp_errors acc;
  mr_ncp_errors_compute(p, lambda, c, &acc);
  out->primal = acc.primal;
  out->dual = acc.dual;
  out->complementarity = acc.compl;
  out->natural_map = acc.natural;
  out->signorini = acc.signorini;
  out->dissipation = acc.dissipation;
  out->penetration = 0;
  /* the rows' own distances: a solver may have been given them clipped (delassus.c) */
  const double *dist = r && r->dist ? r->dist : p->dist;
  for (int k = 0; k < p->ncon; k++) out->penetration = mr_maxd(out->penetration, -dist[k]);
  out->loop_closure = 0;
  for (int i = 0; i < r->neq; i++) out->loop_closure = mr_maxd(out->loop_closure, fabs(r->phi[i]));
}

void mr_metrics_compute(const mr_problem *p, const mr_rows *r, const double *lambda, double *c,
                        mr_metrics *out) {
  const int n = p->nrow;
  for (int i = 0; i < n; i++) {
    const double *Gi = p->G + (size_t)i * n;
    double s = p->g[i];
    for (int j = 0; j < n; j++) s += Gi[j] * lambda[j];
    c[i] = s;
  }
  mr_metrics_from_c(p, r, lambda, c, out);
}

void mr_metrics_compute_dv(const mr_problem *p, const mr_rows *r, const double *lambda,
                           const double *dv, double *c, mr_metrics *out) {
  for (int i = 0; i < p->nrow; i++) c[i] = mr_problem_row_velocity(p, dv, i);
  mr_metrics_from_c(p, r, lambda, c, out);
}
