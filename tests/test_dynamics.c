/* Dynamics unit tests: spatial and quaternion helpers, the mass matrix against an
 * independent brute force, the sparse L^T D L solve against a dense solve, the bias forces
 * against Newton-Euler from finite differences of the kinematics, and integrate_pos.
 *
 * The brute-force references use only mr_kinematics' body poses (xipos, ximat/xquat) and
 * mr_integrate_pos, never cdof, cinert or the recursions under test. */
#include <string.h>

#include "moreau.h"
#include "mr_test.h"
#include "engine/core/spatial.h"
#include "engine/io/spec.h"

static unsigned long long rng_state = 12345;
static double urand(void) { /* uniform in [-1, 1) */
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static void random_quat(double q[4]) {
  for (int k = 0; k < 4; k++) q[k] = urand();
  mr_quat_normalize(q);
}

static double max_abs(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i]));
  return s;
}

/* ------------------------------------------------------------------ helpers */

static void test_spatial_helpers(void) {
  for (int t = 0; t < 20; t++) {
    double q[4], v[3], r1[3], r2[3], R[9];
    random_quat(q);
    for (int k = 0; k < 3; k++) v[k] = urand();
    mr_quat_rotvec(r1, q, v);
    mr_quat_to_mat(R, q);
    mr_mulmat3(r2, R, v);
    for (int k = 0; k < 3; k++) MR_CHECK_NEAR(r1[k], r2[k], 1e-14);

    /* exp and log are inverse for angles below pi */
    double w[3] = {urand(), urand(), urand()}, e[4], back[3];
    mr_quat_exp(e, w);
    MR_CHECK_NEAR(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3], 1, 1e-14);
    mr_quat_log(back, e);
    for (int k = 0; k < 3; k++) MR_CHECK_NEAR(back[k], w[k], 1e-13);

    /* quat_sub(a, b) = w with b * exp(w) = a */
    double a[4], b[4], dif[3], bexp[4];
    random_quat(a);
    random_quat(b);
    mr_quat_sub(dif, a, b);
    mr_quat_exp(e, dif);
    mr_quat_mul(bexp, b, e);
    double sign = bexp[0] * a[0] + bexp[1] * a[1] + bexp[2] * a[2] + bexp[3] * a[3] < 0 ? -1 : 1;
    for (int k = 0; k < 4; k++) MR_CHECK_NEAR(sign * bexp[k], a[k], 1e-13);

    /* duality of the cross products: (v x m) . f = -m . (v x* f) */
    double vel[6], mot[6], frc[6], vm[6], vf[6];
    for (int k = 0; k < 6; k++) vel[k] = urand(), mot[k] = urand(), frc[k] = urand();
    mr_cross_motion(vm, vel, mot);
    mr_cross_force(vf, vel, frc);
    MR_CHECK_NEAR(mr_dot6(vm, frc), -mr_dot6(mot, vf), 1e-14);
    mr_cross_motion(vm, vel, vel);
    MR_CHECK(max_abs(vm, 6) < 1e-15);

    /* spatial inertia: symmetric, and 1/2 v.Iv equals the kinetic energy of the body */
    double inertia[3] = {1 + fabs(urand()), 1 + fabs(urand()), 1 + fabs(urand())}, off[3], I10[10];
    double mass = 2 + urand();
    for (int k = 0; k < 3; k++) off[k] = urand();
    mr_inert_com(I10, inertia, R, off, mass);
    double Iv[6], Iu[6], u[6];
    for (int k = 0; k < 6; k++) u[k] = urand();
    mr_inert_mul(Iv, I10, vel);
    mr_inert_mul(Iu, I10, u);
    MR_CHECK_NEAR(mr_dot6(u, Iv), mr_dot6(vel, Iu), 1e-13);
    /* velocity of the com: v_ref + w x off; rotational energy with the world inertia */
    double vcom[3], wxo[3], Iw[3], Rt_w[3];
    mr_cross3(wxo, vel, off);
    mr_add3(vcom, vel + 3, wxo);
    mr_mulmatT3(Rt_w, R, vel);
    for (int k = 0; k < 3; k++) Iw[k] = inertia[k] * Rt_w[k];
    double energy = 0.5 * mass * mr_dot3(vcom, vcom) + 0.5 * mr_dot3(Rt_w, Iw);
    MR_CHECK_NEAR(0.5 * mr_dot6(vel, Iv), energy, 1e-12);
  }
}

/* ------------------------------------------------------------------ test model */

/* A random tree: a free-floating base with branches of ball, hinge and slide joints
 * (some bodies with two joints, one with none), plus a fixed-base arm. */
static mr_model *build_random_model(int damping) {
  mr_spec *s = mr_spec_create("random_tree");
  mr_source src = {"random_tree", 0};
  s->opt.gravity[0] = 0.3;
  s->opt.gravity[1] = -0.2;
  const int joint_kinds[][2] = {{MR_JOINT_FREE, -1}, {MR_JOINT_BALL, -1},  {MR_JOINT_HINGE, MR_JOINT_SLIDE},
                                {MR_JOINT_HINGE, -1}, {MR_JOINT_SLIDE, -1}, {-1, -1},
                                {MR_JOINT_HINGE, MR_JOINT_BALL}, {MR_JOINT_HINGE, -1}, {MR_JOINT_HINGE, -1}};
  const int parents[] = {0, 1, 2, 1, 4, 5, 5, 0, 8};
  int nb = (int)(sizeof parents / sizeof parents[0]);
  for (int i = 0; i < nb; i++) {
    int b = mr_spec_add_body(s, parents[i], src);
    mr_spec_body *body = &s->bodies[b];
    for (int k = 0; k < 3; k++) body->pos[k] = 0.3 * urand();
    random_quat(body->quat);
    body->has_inertial = 1;
    body->mass = 1 + fabs(urand());
    for (int k = 0; k < 3; k++) body->ipos[k] = 0.1 * urand();
    random_quat(body->iquat);
    double a = 0.05 + 0.05 * fabs(urand()), c = 0.05 + 0.05 * fabs(urand());
    body->inertia[0] = a;
    body->inertia[1] = c;
    body->inertia[2] = 0.5 * (a + c); /* triangle inequality holds */
    for (int k = 0; k < 2; k++) {
      int type = joint_kinds[i][k];
      if (type < 0) continue;
      int j = mr_spec_add_joint(s, b, src);
      mr_spec_joint *jn = &s->joints[j];
      jn->type = type;
      if (type != MR_JOINT_FREE)
        for (int c3 = 0; c3 < 3; c3++) jn->pos[c3] = 0.1 * urand(), jn->axis[c3] = urand();
      jn->armature = 0.01 * (i % 3);
      jn->damping = damping ? 0.1 * (i % 4) : 0;
      jn->stiffness = 0.5 * (i % 2);
      jn->ref = type == MR_JOINT_HINGE ? 0.2 : 0;
      jn->springref = 0.1;
    }
  }
  char err[512];
  mr_model *m = mr_spec_compile(s, err, sizeof err);
  if (!m) fprintf(stderr, "compile: %s\n", err);
  mr_spec_free(s);
  return m;
}

static void random_state(const mr_model *m, mr_data *d) {
  for (int i = 0; i < m->nq; i++) d->qpos[i] = m->qpos0[i] + 0.7 * urand();
  mr_normalize_quats(m, d->qpos);
  for (int i = 0; i < m->nv; i++) d->qvel[i] = urand();
}

/* ------------------------------------------------------------------ mass matrix */

/* Body com positions and orientations at qpos. */
static void body_poses(const mr_model *m, mr_data *d, const double *qpos, double *com, double *quat) {
  memcpy(d->qpos, qpos, (size_t)m->nq * sizeof(double));
  mr_kinematics(m, d);
  memcpy(com, d->xipos, 3 * (size_t)m->nbody * sizeof(double));
  for (int b = 0; b < m->nbody; b++) {
    double iq[4];
    mr_mat_to_quat(iq, d->ximat + 9 * b);
    memcpy(quat + 4 * b, iq, sizeof iq);
  }
}

/* World angular velocity taking orientation q0 to q1 over time dt. */
static void angular_velocity(double w[3], const double q1[4], const double q0[4], double dt) {
  double c[4], dq[4];
  mr_quat_conj(c, q0);
  mr_quat_mul(dq, q1, c);
  mr_quat_log(w, dq);
  mr_scale3(w, w, 1 / dt);
}

/* Jacobians by central differences of the kinematics along each dof:
 * Jv (nbody x 3 x nv) of the com, Jw (nbody x 3 x nv) of the world angular velocity. */
static void fd_jacobians(const mr_model *m, mr_data *d, const double *qpos, double *Jv, double *Jw) {
  int nv = m->nv, nb = m->nbody;
  double *qp = calloc((size_t)m->nq, sizeof(double)), *qm = calloc((size_t)m->nq, sizeof(double));
  double *dv = calloc((size_t)nv, sizeof(double));
  double *cp = calloc(3 * (size_t)nb, sizeof(double)), *cm = calloc(3 * (size_t)nb, sizeof(double));
  double *rp = calloc(4 * (size_t)nb, sizeof(double)), *rm = calloc(4 * (size_t)nb, sizeof(double));
  const double h = 1e-6;
  for (int i = 0; i < nv; i++) {
    memset(dv, 0, (size_t)nv * sizeof(double));
    dv[i] = 1;
    memcpy(qp, qpos, (size_t)m->nq * sizeof(double));
    memcpy(qm, qpos, (size_t)m->nq * sizeof(double));
    mr_integrate_pos(m, qp, dv, h);
    mr_integrate_pos(m, qm, dv, -h);
    body_poses(m, d, qp, cp, rp);
    body_poses(m, d, qm, cm, rm);
    for (int b = 0; b < nb; b++) {
      double w[3];
      angular_velocity(w, rp + 4 * b, rm + 4 * b, 2 * h);
      for (int k = 0; k < 3; k++) {
        Jv[(size_t)(3 * b + k) * nv + i] = (cp[3 * b + k] - cm[3 * b + k]) / (2 * h);
        Jw[(size_t)(3 * b + k) * nv + i] = w[k];
      }
    }
  }
  free(qp), free(qm), free(dv), free(cp), free(cm), free(rp), free(rm);
}

/* World inertia of body b about its com from ximat. */
static void world_inertia(const mr_model *m, const mr_data *d, int b, double I[9]) {
  const double *R = d->ximat + 9 * b, *p = m->body_inertia + 3 * b;
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 3; c++)
      I[3 * r + c] = R[3 * r] * p[0] * R[3 * c] + R[3 * r + 1] * p[1] * R[3 * c + 1] +
                     R[3 * r + 2] * p[2] * R[3 * c + 2];
}

/* M = sum over bodies of m Jv^T Jv + Jw^T I Jw, plus armature. */
static void brute_force_mass(const mr_model *m, mr_data *d, const double *qpos, double *M) {
  int nv = m->nv, nb = m->nbody;
  double *Jv = calloc(3 * (size_t)nb * nv, sizeof(double)), *Jw = calloc(3 * (size_t)nb * nv, sizeof(double));
  fd_jacobians(m, d, qpos, Jv, Jw);
  memcpy(d->qpos, qpos, (size_t)m->nq * sizeof(double));
  mr_kinematics(m, d);
  memset(M, 0, (size_t)nv * nv * sizeof(double));
  for (int b = 1; b < nb; b++) {
    double I[9];
    world_inertia(m, d, b, I);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) {
          s += m->body_mass[b] * Jv[(size_t)(3 * b + k) * nv + i] * Jv[(size_t)(3 * b + k) * nv + j];
          for (int l = 0; l < 3; l++)
            s += Jw[(size_t)(3 * b + k) * nv + i] * I[3 * k + l] * Jw[(size_t)(3 * b + l) * nv + j];
        }
        M[(size_t)i * nv + j] += s;
      }
  }
  for (int i = 0; i < nv; i++) M[(size_t)i * nv + i] += m->dof_armature[i];
  free(Jv), free(Jw);
}

/* Dense Cholesky; returns 0 if not positive definite. Solves A x = b in place of b. */
static int dense_cholesky_solve(int n, double *A, double *b) {
  for (int j = 0; j < n; j++) {
    double s = A[(size_t)j * n + j];
    for (int k = 0; k < j; k++) s -= A[(size_t)j * n + k] * A[(size_t)j * n + k];
    if (!(s > 0)) return 0;
    A[(size_t)j * n + j] = sqrt(s);
    for (int i = j + 1; i < n; i++) {
      double t = A[(size_t)i * n + j];
      for (int k = 0; k < j; k++) t -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
      A[(size_t)i * n + j] = t / A[(size_t)j * n + j];
    }
  }
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) b[i] -= A[(size_t)i * n + k] * b[k];
    b[i] /= A[(size_t)i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) b[i] -= A[(size_t)k * n + i] * b[k];
    b[i] /= A[(size_t)i * n + i];
  }
  return 1;
}

static void test_mass_matrix(const mr_model *m, mr_data *d) {
  int nv = m->nv;
  double *M = calloc((size_t)nv * nv, sizeof(double)), *B = calloc((size_t)nv * nv, sizeof(double));
  double *A = calloc((size_t)nv * nv, sizeof(double)), *qpos = calloc((size_t)m->nq, sizeof(double));
  double *b = calloc(2 * (size_t)nv, sizeof(double)), *x = calloc(2 * (size_t)nv, sizeof(double));
  for (int trial = 0; trial < 5; trial++) {
    random_state(m, d);
    memcpy(qpos, d->qpos, (size_t)m->nq * sizeof(double));
    mr_kinematics(m, d);
    mr_mass_matrix(m, d);
    mr_dense_mass(m, d, M);
    double scale = max_abs(M, nv * nv), asym = 0, err = 0;
    brute_force_mass(m, d, qpos, B);
    for (int i = 0; i < nv; i++)
      for (int j = 0; j < nv; j++) {
        asym = fmax(asym, fabs(M[(size_t)i * nv + j] - M[(size_t)j * nv + i]));
        err = fmax(err, fabs(M[(size_t)i * nv + j] - B[(size_t)i * nv + j]));
      }
    MR_CHECK_MSG(asym == 0, "M not symmetric: %g", asym);
    MR_CHECK_MSG(err < 1e-7 * scale, "M differs from J^T m J by %g (scale %g)", err, scale);

    /* the L^T D L solve (of M and of M + dt diag(damping)) against dense Cholesky */
    for (int pass = 0; pass < 2; pass++) {
      double dt = pass ? 0.01 : 0;
      for (int i = 0; i < 2 * nv; i++) b[i] = urand();
      mr_factor_mass(m, d, dt);
      mr_solve_mass(m, d, x, b, 2);
      for (int c = 0; c < 2; c++) {
        memcpy(A, M, (size_t)nv * nv * sizeof(double));
        for (int i = 0; i < nv; i++) A[(size_t)i * nv + i] += dt * m->dof_damping[i];
        MR_CHECK_MSG(dense_cholesky_solve(nv, A, b + c * nv), "M is not positive definite");
        double e = 0;
        for (int i = 0; i < nv; i++) e = fmax(e, fabs(x[c * nv + i] - b[c * nv + i]));
        MR_CHECK_MSG(e < 1e-10 * fmax(1, max_abs(b + c * nv, nv)), "LTDL solve differs by %g", e);
      }
      /* in place (x == b) */
      for (int i = 0; i < nv; i++) x[i] = urand();
      memcpy(b, x, (size_t)nv * sizeof(double));
      mr_solve_mass(m, d, x, x, 1);
      memcpy(A, M, (size_t)nv * nv * sizeof(double));
      for (int i = 0; i < nv; i++) A[(size_t)i * nv + i] += dt * m->dof_damping[i];
      double r = 0; /* residual of A x = b */
      for (int i = 0; i < nv; i++) {
        double s = -b[i];
        for (int j = 0; j < nv; j++) s += A[(size_t)i * nv + j] * x[j];
        r = fmax(r, fabs(s));
      }
      MR_CHECK_MSG(r < 1e-11 * scale * fmax(1, max_abs(x, nv)), "in-place solve residual %g", r);
    }
  }
  free(M), free(B), free(A), free(qpos), free(b), free(x);
}

/* ------------------------------------------------------------------ bias forces */

/* Newton-Euler by finite differences along q(t) = q (+) t v, the motion with zero qacc
 * (hinge/slide move linearly, quaternions by the exponential map of a constant local
 * angular velocity): bias = sum_b Jv^T m (a - g) + Jw^T (I dw/dt + w x I w). */
static void brute_force_bias(const mr_model *m, mr_data *d, const double *qpos, const double *qvel,
                             double *bias) {
  int nv = m->nv, nb = m->nbody;
  const double h = 2e-4;
  double *Jv = calloc(3 * (size_t)nb * nv, sizeof(double)), *Jw = calloc(3 * (size_t)nb * nv, sizeof(double));
  double *com = calloc(5 * 3 * (size_t)nb, sizeof(double)), *quat = calloc(5 * 4 * (size_t)nb, sizeof(double));
  double *q = calloc((size_t)m->nq, sizeof(double));
  fd_jacobians(m, d, qpos, Jv, Jw);
  for (int s = 0; s < 5; s++) { /* samples at t = (s - 2) h */
    memcpy(q, qpos, (size_t)m->nq * sizeof(double));
    mr_integrate_pos(m, q, qvel, (s - 2) * h);
    body_poses(m, d, q, com + 3 * nb * s, quat + 4 * nb * s);
  }
  memset(bias, 0, (size_t)nv * sizeof(double));
  for (int b = 1; b < nb; b++) {
    double acc[3], w0[3], wm[3], wp[3], dw[3], I[9], Iw[3], wIw[3], torque[3], force[3];
    for (int k = 0; k < 3; k++) {
      const double *x = com + 3 * b + k;
      acc[k] = (x[3 * nb * 3] - 2 * x[3 * nb * 2] + x[3 * nb * 1]) / (h * h);
      force[k] = m->body_mass[b] * (acc[k] - m->opt.gravity[k]);
    }
    angular_velocity(w0, quat + 4 * (3 * nb + b), quat + 4 * (1 * nb + b), 2 * h);
    angular_velocity(wm, quat + 4 * (2 * nb + b), quat + 4 * (0 * nb + b), 2 * h);
    angular_velocity(wp, quat + 4 * (4 * nb + b), quat + 4 * (2 * nb + b), 2 * h);
    for (int k = 0; k < 3; k++) dw[k] = (wp[k] - wm[k]) / (2 * h);
    memcpy(d->qpos, qpos, (size_t)m->nq * sizeof(double));
    mr_kinematics(m, d);
    world_inertia(m, d, b, I);
    mr_mulmat3(Iw, I, w0);
    mr_cross3(wIw, w0, Iw);
    mr_mulmat3(torque, I, dw);
    mr_add3(torque, torque, wIw);
    for (int i = 0; i < nv; i++)
      for (int k = 0; k < 3; k++)
        bias[i] += Jv[(size_t)(3 * b + k) * nv + i] * force[k] + Jw[(size_t)(3 * b + k) * nv + i] * torque[k];
  }
  free(Jv), free(Jw), free(com), free(quat), free(q);
}

static void test_bias_forces(const mr_model *m, mr_data *d) {
  int nv = m->nv;
  double *ref = calloc((size_t)nv, sizeof(double)), *qpos = calloc((size_t)m->nq, sizeof(double));
  double *qvel = calloc((size_t)nv, sizeof(double));
  for (int trial = 0; trial < 5; trial++) {
    random_state(m, d);
    memcpy(qpos, d->qpos, (size_t)m->nq * sizeof(double));
    memcpy(qvel, d->qvel, (size_t)nv * sizeof(double));
    mr_kinematics(m, d);
    mr_bias_forces(m, d);
    brute_force_bias(m, d, qpos, qvel, ref);
    double scale = max_abs(ref, nv), err = 0;
    for (int i = 0; i < nv; i++) err = fmax(err, fabs(d->qfrc_bias[i] - ref[i]));
    MR_CHECK_MSG(err < 1e-6 * scale, "qfrc_bias differs from finite-difference Newton-Euler by %g (scale %g)",
                 err, scale);
  }
  free(ref), free(qpos), free(qvel);
}

/* ------------------------------------------------------------------ integration */

static void test_integrate_pos(const mr_model *m, mr_data *d) {
  double *q = calloc((size_t)m->nq, sizeof(double));
  for (int trial = 0; trial < 10; trial++) {
    random_state(m, d);
    for (int i = 0; i < m->nv; i++) d->qvel[i] = 5 * urand();
    memcpy(q, d->qpos, (size_t)m->nq * sizeof(double));
    double dt = 0.01 + 0.1 * fabs(urand());
    mr_integrate_pos(m, q, d->qvel, dt);
    for (int j = 0; j < m->njnt; j++) {
      int qa = m->jnt_qposadr[j], da = m->jnt_dofadr[j], type = m->jnt_type[j];
      const double *q0 = d->qpos + qa, *v = d->qvel + da;
      const double *q1 = q + qa;
      if (type == MR_JOINT_HINGE || type == MR_JOINT_SLIDE) {
        MR_CHECK_NEAR(q1[0], q0[0] + dt * v[0], 1e-14);
        continue;
      }
      if (type == MR_JOINT_FREE) {
        for (int k = 0; k < 3; k++) MR_CHECK_NEAR(q1[k], q0[k] + dt * v[k], 1e-14);
        q0 += 3, q1 += 3, v += 3;
      }
      /* q1 = q0 * (cos(|w| dt / 2), sin(|w| dt / 2) w / |w|): rotation in the local frame */
      double speed = mr_norm3(v), half = 0.5 * speed * dt, e[4], expect[4];
      e[0] = cos(half);
      for (int k = 0; k < 3; k++) e[k + 1] = sin(half) * v[k] / speed;
      mr_quat_mul(expect, q0, e);
      MR_CHECK_NEAR(q1[0] * q1[0] + q1[1] * q1[1] + q1[2] * q1[2] + q1[3] * q1[3], 1, 1e-15);
      for (int k = 0; k < 4; k++) MR_CHECK_NEAR(q1[k], expect[k], 1e-14);
    }
  }
  /* many small steps keep quaternions unit without explicit normalization */
  random_state(m, d);
  for (int s = 0; s < 10000; s++) mr_integrate_pos(m, d->qpos, d->qvel, 1e-3);
  for (int j = 0; j < m->njnt; j++) {
    const double *qq = d->qpos + m->jnt_qposadr[j] + (m->jnt_type[j] == MR_JOINT_FREE ? 3 : 0);
    if (m->jnt_type[j] == MR_JOINT_FREE || m->jnt_type[j] == MR_JOINT_BALL)
      MR_CHECK_NEAR(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3], 1, 1e-14);
  }
  /* mr_normalize_quats */
  for (int i = 0; i < m->nq; i++) q[i] = 2 * urand();
  mr_normalize_quats(m, q);
  for (int j = 0; j < m->njnt; j++) {
    const double *qq = q + m->jnt_qposadr[j] + (m->jnt_type[j] == MR_JOINT_FREE ? 3 : 0);
    if (m->jnt_type[j] == MR_JOINT_FREE || m->jnt_type[j] == MR_JOINT_BALL)
      MR_CHECK_NEAR(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3], 1, 1e-15);
  }
  free(q);
}

/* ------------------------------------------------------------------ data and step */

static void test_data_and_step(const mr_model *m, mr_data *d) {
  mr_data_reset(m, d);
  for (int i = 0; i < m->nq; i++) MR_CHECK(d->qpos[i] == m->qpos0[i]);
  MR_CHECK(d->time == 0 && d->opt.timestep == m->opt.timestep);
  MR_CHECK(mr_data_reset_keyframe(m, d, m->nkey) == -1);

  /* mr_forward: M qacc = qfrc_smooth and the constraint stage is empty */
  random_state(m, d);
  mr_forward(m, d);
  MR_CHECK(d->ncon == 0 && d->solver_iters == 0);
  double *Mq = calloc((size_t)m->nv, sizeof(double)), *M = calloc((size_t)m->nv * m->nv, sizeof(double));
  mr_dense_mass(m, d, M);
  double err = 0;
  for (int i = 0; i < m->nv; i++) {
    for (int j = 0; j < m->nv; j++) Mq[i] += M[(size_t)i * m->nv + j] * d->qacc[j];
    err = fmax(err, fabs(Mq[i] - d->qfrc_smooth[i]));
  }
  MR_CHECK_MSG(err < 1e-10 * fmax(1, max_abs(d->qfrc_smooth, m->nv)), "M qacc - qfrc_smooth = %g", err);

  /* steps stay finite and advance time; a NaN makes mr_step report it */
  int bad = 0;
  for (int s = 0; s < 100; s++) bad |= mr_step(m, d);
  MR_CHECK(bad == 0 && d->nstep == 100);
  MR_CHECK_NEAR(d->time, 100 * m->opt.timestep, 1e-12);
  d->qvel[0] = NAN;
  MR_CHECK(mr_step(m, d) == -1 && d->warning_count == 1);
  free(Mq), free(M);
}

int main(void) {
  test_spatial_helpers();
  for (int damping = 0; damping < 2; damping++) {
    mr_model *m = build_random_model(damping);
    MR_REQUIRE(m != NULL);
    MR_REQUIRE(m->nv == 6 + 3 + 2 + 1 + 1 + 4 + 1 + 1);
    mr_data *d = mr_data_create(m);
    MR_REQUIRE(d != NULL);
    test_mass_matrix(m, d);
    test_bias_forces(m, d);
    test_integrate_pos(m, d);
    test_data_and_step(m, d);
    mr_data_free(d);
    mr_model_free(m);
  }
  MR_TEST_END();
}
