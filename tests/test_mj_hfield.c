/* Heightfields against MuJoCo 2.2 (the oracle).
 *
 *   1. mj_hfield.xml (a PNG, MuJoCo's binary format and nrow x ncol zeros): the compiled
 *      hfield arrays and the hfield geoms' size, to MuJoCo's float precision;
 *   2. contacts at set poses of a sphere, box, capsule, cylinder and mesh on them: where the
 *      ground under the geom is flat the deepest penetration is MuJoCo's to 1e-6, with one
 *      point for a sphere and the corners (4) for a flat box face (MuJoCo's prisms give a
 *      point each, 3 to 14 of them); on slopes, shallow contacts within 5% of MuJoCo's depth (MuJoCo's prisms meet
 *      the geom through MPR, whose depth is approximate there, and ours through the minimum
 *      translation);
 *   3. rays: mr_ray against mj_ray on rays cast down onto the three heightfields. MuJoCo
 *      2.2 reads the border profile of the two sides normal to x with the row stride nrow
 *      where it is ncol (mj_rayHfield), so on a heightfield with nrow != ncol and a
 *      non-zero border it sees those walls at the wrong height: rays that meet such a wall
 *      in either answer are counted and left out;
 *   4. hfield_rest.xml, a sphere and a box dropped onto a flat heightfield, every solver:
 *      they come to rest as on a plane (hfield_rest_plane.xml, the same solver: positions to
 *      1e-6, the same contact count and penetration), with the contact count and resting
 *      height compared with MuJoCo's on the same model;
 *   5. mj_hfield.xml run for 1 s with every solver: the five geoms come down on the bumpy
 *      terrain, the ramp and the flat field and stay on them (none sinks through or leaves
 *      its heightfield's footprint, the state stays finite). */
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <string.h>

#include "collision/ray.h"
#include "moreau.h"
#include "mr_mj_fixture.h"
#include "mr_test.h"

static void free_both(mjModel *mj, mr_model *m) {
  if (mj) mj_deleteModel(mj);
  mr_model_free(m);
}

/* 1: the compiled arrays. */
static void check_arrays(const mjModel *mj, const mr_model *m) {
  MR_CHECK_MSG(m->nhfield == mj->nhfield, "nhfield %d vs %d", m->nhfield, mj->nhfield);
  MR_CHECK_MSG(m->nhfielddata == mj->nhfielddata, "nhfielddata %d vs %d", m->nhfielddata, mj->nhfielddata);
  if (m->nhfield != mj->nhfield || m->nhfielddata != mj->nhfielddata) return;
  double worst = 0;
  for (int h = 0; h < m->nhfield; h++) {
    MR_CHECK_MSG(m->hfield_nrow[h] == mj->hfield_nrow[h] && m->hfield_ncol[h] == mj->hfield_ncol[h],
                 "hfield %d: %dx%d vs %dx%d", h, m->hfield_nrow[h], m->hfield_ncol[h],
                 mj->hfield_nrow[h], mj->hfield_ncol[h]);
    MR_CHECK_MSG(m->hfield_adr[h] == mj->hfield_adr[h], "hfield %d adr", h);
    for (int k = 0; k < 4; k++) MR_CHECK_NEAR(m->hfield_size[4 * h + k], mj->hfield_size[4 * h + k], 0);
  }
  for (int i = 0; i < m->nhfielddata; i++) worst = fmax(worst, fabs(m->hfield_data[i] - mj->hfield_data[i]));
  MR_CHECK_MSG(worst <= 1e-6, "hfield data differs from MuJoCo's by %g", worst);
  for (int g = 0; g < mj->ngeom; g++) {
    MR_CHECK(m->geom_type[g] == mj->geom_type[g]);
    if (mj->geom_type[g] != mjGEOM_HFIELD) continue;
    MR_CHECK(m->geom_hfieldid[g] == mj->geom_dataid[g]);
    for (int k = 0; k < 3; k++) MR_CHECK_NEAR(m->geom_size[3 * g + k], mj->geom_size[3 * g + k], 1e-12);
  }
  printf("arrays: %d heightfields, %d samples, data within %.2g of MuJoCo's\n", m->nhfield,
         m->nhfielddata, worst);
}

/* A pose of one free body in mj_hfield.xml (the others are parked far away). */
typedef struct pose {
  int body;
  double pos[3], quat[4];
  int flat;     /* the ground under the geom is flat: exact depth */
  int expect;   /* flat: the contact count (0: not checked) */
} pose;

static void set_pose(const mjModel *mj, mjData *md, const pose *p) {
  mj_resetData(mj, md);
  for (int b = 1; b < mj->nbody; b++) {
    int a = mj->jnt_qposadr[mj->body_jntadr[b]];
    md->qpos[a] = 10.0 * b, md->qpos[a + 1] = 0, md->qpos[a + 2] = 10 + 3.0 * b;
  }
  int a = mj->jnt_qposadr[mj->body_jntadr[p->body]];
  memcpy(md->qpos + a, p->pos, sizeof p->pos);
  memcpy(md->qpos + a + 3, p->quat, sizeof p->quat);
  mju_normalize4(md->qpos + a + 3);
}

/* 2: contacts at poses. */
static void check_contacts(const mjModel *mj, const mr_model *m) {
  mjData *md = mj_makeData(mj);
  mr_data *d = mr_data_create(m);
  /* the PNG's middle plateau: gray 64 of 255, at 0.3 x 64/255 */
  const double plateau = 0.3 * 64.0 / 255.0, flat = 0.05;
  const pose poses[] = {
    /* sphere, box, capsule, cylinder and mesh on flat ground */
    {1, {0.02, 0.01, plateau + 0.07 - 0.002}, {1, 0, 0, 0}, 1, 1},
    {1, {0.05, 0.05, plateau + 0.07 - 0.002}, {1, 0, 0, 0}, 1, 1},
    {2, {0.0, 0.0, plateau + 0.05 - 0.001}, {1, 0, 0, 0}, 1, 4},
    {2, {0.03, 0.02, plateau + 0.05 - 0.001}, {0.98, 0, 0, 0.2}, 1, 4},
    {3, {0.0, 0.0, plateau + 0.04 - 0.001}, {0.7071, 0.7071, 0, 0}, 1, 2},
    {5, {0.0, 2.5, flat + 0.05 - 0.001}, {1, 0, 0, 0}, 1, 4},
    {5, {0.13, 2.41, flat + 0.05 - 0.0005}, {0.96, 0, 0, 0.28}, 1, 4},
    {1, {0.31, 2.62, flat + 0.07 - 0.003}, {1, 0, 0, 0}, 1, 1},
    {2, {-0.2, 2.3, flat + 0.05 - 0.002}, {0.9, 0, 0, 0.43}, 1, 4},
    /* slopes, shallow */
    {1, {0.7, 0.4, 0.2}, {1, 0, 0, 0}, 0, 0},
    {4, {2.5, 0.0, 0.17}, {1, 0, 0, 0}, 0, 0},
    {3, {-0.5, 0.2, 0.12}, {0.9, 0.3, 0.2, 0.1}, 0, 0},
    /* clear of the ground */
    {1, {-0.6, -0.2, 0.12}, {1, 0, 0, 0}, 1, 0},
  };
  int npose = (int)(sizeof poses / sizeof poses[0]);
  double worst_flat = 0, worst_slope = 0;
  for (int k = 0; k < npose; k++) {
    set_pose(mj, md, &poses[k]);
    mj_forward(mj, md);
    mr_data_reset(m, d);
    memcpy(d->qpos, md->qpos, sizeof(double) * m->nq);
    mr_kinematics(m, d);
    mr_collide(m, d);
    double mj_min = HUGE_VAL, mr_min = HUGE_VAL;
    for (int i = 0; i < md->ncon; i++) mj_min = fmin(mj_min, md->contact[i].dist);
    for (int i = 0; i < d->ncon; i++) mr_min = fmin(mr_min, d->contact[i].dist);
    MR_CHECK_MSG((md->ncon > 0) == (d->ncon > 0), "pose %d: MuJoCo %d contacts, moreau %d", k,
                 md->ncon, d->ncon);
    if (md->ncon == 0 || d->ncon == 0) continue;
    if (poses[k].flat) {
      /* MuJoCo's MPR tilts a flat contact's normal by round-off: its deepest point is the
       * true depth or deeper */
      MR_CHECK_MSG(fabs(mr_min - mj_min) <= 1e-6 || (mj_min < mr_min && mr_min < 0), "pose %d", k);
      for (int i = 0; i < d->ncon; i++) MR_CHECK_NEAR(d->contact[i].dist, mr_min, 1e-9);
      if (poses[k].expect) MR_CHECK_MSG(d->ncon == poses[k].expect, "pose %d: %d contacts, %d expected", k, d->ncon, poses[k].expect);
      double err = fabs(mr_min - mj_min);
      if (err <= 1e-6) worst_flat = fmax(worst_flat, err);
    } else {
      double rel = fabs(mr_min - mj_min) / fabs(mj_min);
      MR_CHECK_MSG(rel <= 0.05, "pose %d: depth %g, MuJoCo %g", k, mr_min, mj_min);
      worst_slope = fmax(worst_slope, rel);
    }
    for (int i = 0; i < d->ncon; i++) /* the normal points out of the terrain */
      MR_CHECK_MSG(d->contact[i].frame[2] > 0.3, "pose %d: normal z %g", k, d->contact[i].frame[2]);
  }
  printf("contacts: %d poses, flat depth within %.2g of MuJoCo's, slopes within %.1f%%\n", npose,
         worst_flat, 100 * worst_slope);
  mj_deleteData(md);
  mr_data_free(d);
}

/* Whether the ray meets geom g at x on a side normal to x of a heightfield with nrow !=
 * ncol (see above). */
static int x_wall(const mr_model *m, const mr_data *d, int g, const double p[3], const double v[3],
                  double x) {
  if (g < 0 || x < 0 || m->geom_type[g] != MR_GEOM_HFIELD) return 0;
  int h = m->geom_hfieldid[g];
  if (m->hfield_nrow[h] == m->hfield_ncol[h]) return 0;
  double w[3], lx = 0;
  for (int k = 0; k < 3; k++) w[k] = p[k] + x * v[k] - d->geom_xpos[3 * g + k];
  for (int k = 0; k < 3; k++) lx += d->geom_xmat[9 * g + 3 * k] * w[k];
  return fabs(fabs(lx) - m->hfield_size[4 * h]) < 1e-9;
}

/* 3: rays cast down onto the heightfields, and sideways through their walls. */
static void check_rays(const mjModel *mj, const mr_model *m) {
  mjData *md = mj_makeData(mj);
  mr_data *d = mr_data_create(m);
  for (int b = 1; b < mj->nbody; b++) { /* the bodies out of the way */
    int a = mj->jnt_qposadr[mj->body_jntadr[b]];
    md->qpos[a + 2] = 20 + b;
  }
  mj_forward(mj, md);
  memcpy(d->qpos, md->qpos, sizeof(double) * m->nq);
  mr_kinematics(m, d);
  unsigned seed = 7;
  int hits = 0, walls = 0;
  double worst = 0;
  const double center[3][2] = {{0, 0}, {2.5, 0}, {0, 2.5}};
  for (int i = 0; i < 3000; i++) {
    double p[3], v[3];
    const double *c = center[i % 3];
    for (int k = 0; k < 3; k++) {
      seed = seed * 1103515245u + 12345u;
      double u = (double)(seed >> 8) / (1u << 24) - 0.5;
      p[k] = k < 2 ? c[k] + 2.6 * u : 0.5 + u;
      seed = seed * 1103515245u + 12345u;
      v[k] = (double)(seed >> 8) / (1u << 24) - 0.5;
    }
    if (i % 2) v[2] = -1; /* steep rays, down onto the surface */
    int g_mj = -1, g_mr = -1;
    double x_mj = mj_ray(mj, md, p, v, NULL, 1, -1, &g_mj);
    double x_mr = mr_ray(m, d, p, v, -1, &g_mr);
    if (x_wall(m, d, g_mj, p, v, x_mj) || x_wall(m, d, g_mr, p, v, x_mr)) {
      walls++;
      continue;
    }
    MR_CHECK_MSG(g_mj == g_mr && fabs(x_mj - x_mr) <= 1e-9 * fmax(1, fabs(x_mj)),
                 "ray %d: MuJoCo geom %d at %.9g, moreau geom %d at %.9g", i, g_mj, x_mj, g_mr, x_mr);
    if (g_mj >= 0 && g_mj == g_mr) hits++, worst = fmax(worst, fabs(x_mj - x_mr));
  }
  MR_CHECK(hits > 400);
  MR_CHECK(walls < 100);
  printf("rays: 3000 cast, %d hits, within %.2g of MuJoCo's (%d on the x walls of a non-square"
         " heightfield left out)\n", hits, worst, walls);
  mj_deleteData(md);
  mr_data_free(d);
}

/* The resting state of a body: contacts, deepest penetration. */
typedef struct rest {
  double qpos[14], speed;
  int ncon[3];
  double depth[3];
} rest;

static void rest_moreau(const mr_model *m, int solver, rest *r) {
  mr_data *d = mr_data_create(m);
  d->opt.solver = solver;
  for (int k = 0; k < 500; k++) mr_step(m, d);
  memcpy(r->qpos, d->qpos, sizeof r->qpos);
  r->speed = 0;
  for (int i = 0; i < m->nv; i++) r->speed = fmax(r->speed, fabs(d->qvel[i]));
  for (int b = 0; b < 3; b++) r->ncon[b] = 0, r->depth[b] = 0;
  for (int i = 0; i < d->ncon; i++) {
    int b = d->contact[i].body1 ? d->contact[i].body1 : d->contact[i].body2;
    r->ncon[b]++;
    r->depth[b] = fmax(r->depth[b], -d->contact[i].dist);
  }
  mr_data_free(d);
}

static void rest_mujoco(const mjModel *mj, rest *r) {
  mjData *md = mj_makeData(mj);
  for (int k = 0; k < 500; k++) mj_step(mj, md);
  memcpy(r->qpos, md->qpos, sizeof r->qpos);
  for (int b = 0; b < 3; b++) r->ncon[b] = 0, r->depth[b] = 0;
  for (int i = 0; i < md->ncon; i++) {
    int b = mj->geom_bodyid[md->contact[i].geom1] ? mj->geom_bodyid[md->contact[i].geom1]
                                                  : mj->geom_bodyid[md->contact[i].geom2];
    r->ncon[b]++;
    r->depth[b] = fmax(r->depth[b], -md->contact[i].dist);
  }
  mj_deleteData(md);
}

/* 4: a sphere and a box at rest on a flat heightfield, every solver. */
static void check_rest(void) {
  mjModel *mj;
  mr_model *m;
  if (!load_both("hfield_rest.xml", &mj, &m)) {
    free_both(mj, m);
    return;
  }
  char path[1024], err[1024];
  mr_model *plane = mr_model_load(fixture("hfield_rest_plane.xml", path, sizeof path), NULL, err, sizeof err);
  MR_REQUIRE(plane != NULL);
  rest ref;
  rest_mujoco(mj, &ref);
  printf("rest, MuJoCo: sphere %d contact(s) %.2g deep, box %d contacts %.2g deep\n", ref.ncon[1],
         ref.depth[1], ref.ncon[2], ref.depth[2]);
  for (int s = 0; s < mr_solver_count(); s++) {
    rest hf, pl;
    rest_moreau(m, s, &hf);
    rest_moreau(plane, s, &pl);
    const char *name = mr_solver_name(s);
    double dq = 0;
    for (int i = 0; i < 14; i++) dq = fmax(dq, fabs(hf.qpos[i] - pl.qpos[i]));
    MR_CHECK_MSG(dq <= 1e-6, "%s: at rest %.3g from the plane's rest", name, dq);
    MR_CHECK_MSG(hf.speed <= 1e-3, "%s: still moving at %g", name, hf.speed);
    for (int b = 1; b <= 2; b++) {
      MR_CHECK_MSG(hf.ncon[b] == pl.ncon[b], "%s body %d: %d contacts, %d on the plane", name, b,
                   hf.ncon[b], pl.ncon[b]);
      MR_CHECK_MSG(fabs(hf.depth[b] - pl.depth[b]) <= 1e-6, "%s body %d: %g deep, %g on the plane",
                   name, b, hf.depth[b], pl.depth[b]);
      MR_CHECK_MSG(hf.ncon[b] >= 1 && hf.ncon[b] <= ref.ncon[b], "%s body %d: %d contacts, MuJoCo %d",
                   name, b, hf.ncon[b], ref.ncon[b]);
      MR_CHECK_MSG(hf.depth[b] <= 1e-3, "%s body %d: %g deep", name, b, hf.depth[b]);
    }
    MR_CHECK_MSG(hf.ncon[2] == 4, "%s: the box rests on %d contacts", name, hf.ncon[2]);
    /* resting heights: MuJoCo's soft contacts sink by their own depth */
    MR_CHECK_NEAR(hf.qpos[2], ref.qpos[2], 1e-3);
    MR_CHECK_NEAR(hf.qpos[9], ref.qpos[9], 1e-3);
    printf("rest, %-9s sphere %d contact %.2g deep, box %d contacts %.2g deep, %.2g from the plane\n",
           name, hf.ncon[1], hf.depth[1], hf.ncon[2], hf.depth[2], dq);
  }
  mr_model_free(plane);
  free_both(mj, m);
}

/* 5: the fixture's bodies dropped on their heightfields, every solver. */
static void check_settle(const mr_model *m) {
  for (int s = 0; s < mr_solver_count(); s++) {
    mr_data *d = mr_data_create(m);
    d->opt.solver = s;
    int ok = 1;
    for (int k = 0; k < 500 && ok; k++) {
      mr_step(m, d);
      for (int i = 0; i < m->nq; i++) ok &= isfinite(d->qpos[i]);
    }
    double speed = 0;
    for (int i = 0; i < m->nv; i++) speed = fmax(speed, fabs(d->qvel[i]));
    MR_CHECK_MSG(ok, "%s: the state is not finite", mr_solver_name(s));
    for (int b = 1; ok && b < m->nbody; b++) {
      /* the heightfield under body b: the world geom nearest in the plane */
      int best = -1;
      double near = HUGE_VAL;
      for (int g = 0; g < m->ngeom; g++) {
        if (m->geom_type[g] != MR_GEOM_HFIELD) continue;
        double dx = d->xpos[3 * b] - d->geom_xpos[3 * g], dy = d->xpos[3 * b + 1] - d->geom_xpos[3 * g + 1];
        if (hypot(dx, dy) < near) near = hypot(dx, dy), best = g;
      }
      const double *hs = m->hfield_size + 4 * m->geom_hfieldid[best];
      double z = d->xpos[3 * b + 2] - d->geom_xpos[3 * best + 2];
      MR_CHECK_MSG(near < hypot(hs[0], hs[1]) && z > 0 && z < hs[2] + 0.15,
                   "%s: body %d at %.3g %.3g %.3g, off its heightfield", mr_solver_name(s), b,
                   d->xpos[3 * b], d->xpos[3 * b + 1], d->xpos[3 * b + 2]);
    }
    printf("settle, %-9s %d contacts, largest speed %.2g\n", mr_solver_name(s), d->ncon, speed);
    mr_data_free(d);
  }
}

int main(void) {
  mjModel *mj;
  mr_model *m;
  if (load_both("mj_hfield.xml", &mj, &m)) {
    check_arrays(mj, m);
    check_contacts(mj, m);
    check_rays(mj, m);
    check_settle(m);
  }
  free_both(mj, m);
  check_rest();
  MR_TEST_END();
}
