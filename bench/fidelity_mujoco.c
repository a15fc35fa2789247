/* MuJoCo 2.2 on bench_fidelity's scenes: the reference `soft` is judged against (it
 * implements MuJoCo's soft contact model with elliptic cones), and a reference row in each
 * table. */
#include <math.h>
#include <string.h>

#include <mujoco/mujoco.h>

#include "fidelity.h"

static mjModel *fid_mj_load(const char *path, const fid_setup *setup) {
  char err[1000] = "";
  mjModel *m = mj_loadXML(path, NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "bench_fidelity: %s: MuJoCo cannot load it: %s\n", path, err);
    return NULL;
  }
  m->opt.cone = mjCONE_ELLIPTIC;
  if (setup->dt > 0) m->opt.timestep = setup->dt;
  return m;
}

static void fid_mj_start(const mjModel *m, mjData *d, const fid_setup *setup) {
  mj_resetData(m, d);
  int key = setup->key ? mj_name2id(m, mjOBJ_KEY, setup->key) : -1;
  if (key >= 0) mj_resetDataKeyframe(m, d, key);
  if (setup->v0 && m->nv >= 3) memcpy(d->qvel, setup->v0, 3 * sizeof(double));
  mj_forward(m, d);
}

int fid_mujoco_run(const char *path, const fid_setup *setup, fid_observer observe, void *ctx) {
  mjModel *m = fid_mj_load(path, setup);
  if (!m) return -1;
  mjData *d = mj_makeData(m);
  fid_mj_start(m, d, setup);
  int steps = (int)lround(setup->duration / m->opt.timestep);
  for (int k = 0; k < steps; k++) {
    mj_step(m, d);
    fid_state s = {d->qpos, d->qvel, d->xpos, d->xmat, 0, d->ncon,
                   d->ncon ? d->contact[0].frame : NULL};
    for (int c = 0; c < d->ncon; c++)
      if (-d->contact[c].dist > s.penetration) s.penetration = -d->contact[c].dist;
    observe(ctx, &s);
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return steps;
}

static void fid_mj_anchor(const mjData *d, int body, const double *local, double out[3]) {
  const double *R = d->xmat + 9 * body, *p = d->xpos + 3 * body;
  for (int i = 0; i < 3; i++)
    out[i] = p[i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2];
}

double fid_mujoco_closure(const char *path, const fid_setup *setup) {
  mjModel *m = fid_mj_load(path, setup);
  if (!m) return -1;
  mjData *d = mj_makeData(m);
  int body = m->neq > 0 ? m->eq_obj1id[0] : 0;
  double target[3], at[3], worst = 0;
  mj_kinematics(m, d); /* qpos0: the loop is closed there */
  fid_mj_anchor(d, body, m->eq_data, target);
  fid_mj_start(m, d, setup);
  int steps = (int)lround(setup->duration / m->opt.timestep);
  for (int k = 0; k < steps; k++) {
    mj_step(m, d);
    mj_kinematics(m, d);
    fid_mj_anchor(d, body, m->eq_data, at);
    double e = sqrt((at[0] - target[0]) * (at[0] - target[0]) +
                    (at[1] - target[1]) * (at[1] - target[1]) +
                    (at[2] - target[2]) * (at[2] - target[2]));
    if (e > worst) worst = e;
  }
  mj_deleteData(d);
  mj_deleteModel(m);
  return worst;
}
