/* Moreau: a rigid-body simulator for robotics.
 *
 * The one public header. Everything is prefixed mr_. The model (mr_model) is immutable
 * after loading and may be shared read-only between threads; all per-run state lives in
 * mr_data, including the run-time settings (dt, solver, integrator, disable flags) so that
 * one loaded model can serve many differently configured runs at once.
 *
 * Layout conventions follow MuJoCo so that states can be compared and swapped by index:
 * quaternions are (w, x, y, z); a free joint has qpos (x, y, z, qw, qx, qy, qz) and qvel
 * (linear velocity in the world frame, angular velocity in the body frame); a ball joint
 * has 4 / 3 (angular velocity in the body frame); hinge and slide 1 / 1.
 */
#ifndef MOREAU_H
#define MOREAU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MR_VERSION_STRING "0.1.0"

/* The smallest timestep a model or --dt may set (s): below it the stabilization terms,
 * which divide by dt, overflow. */
#define MR_MIN_TIMESTEP 1e-9

/* ------------------------------------------------------------------ enums */

typedef enum mr_joint_type {
  MR_JOINT_FREE = 0, /* 7 qpos, 6 dofs */
  MR_JOINT_BALL = 1, /* 4 qpos, 3 dofs */
  MR_JOINT_SLIDE = 2,
  MR_JOINT_HINGE = 3
} mr_joint_type;

/* Same numbering as MuJoCo's mjtGeom. */
typedef enum mr_geom_type {
  MR_GEOM_PLANE = 0,
  MR_GEOM_HFIELD = 1, /* reserved, not loaded */
  MR_GEOM_SPHERE = 2,
  MR_GEOM_CAPSULE = 3,
  MR_GEOM_ELLIPSOID = 4,
  MR_GEOM_CYLINDER = 5,
  MR_GEOM_BOX = 6,
  MR_GEOM_MESH = 7,
  MR_GEOM_NTYPES = 8
} mr_geom_type;

typedef enum mr_actuator_kind {
  MR_ACT_MOTOR = 0,
  MR_ACT_POSITION = 1,
  MR_ACT_VELOCITY = 2,
  MR_ACT_GENERAL = 3
} mr_actuator_kind;

typedef enum mr_eq_type {
  MR_EQ_CONNECT = 0, /* ball joint between two bodies: 3 rows */
  MR_EQ_WELD = 1,    /* 6 rows */
  MR_EQ_JOINT = 2    /* q1 = poly(q2): 1 row (URDF mimic) */
} mr_eq_type;

typedef enum mr_integrator {
  MR_INT_EULER = 0,   /* semi-implicit Euler, implicit joint damping */
  MR_INT_MIDPOINT = 1 /* two-stage theta-method, papers/004 */
} mr_integrator;

typedef enum mr_obj_type {
  MR_OBJ_BODY = 0,
  MR_OBJ_JOINT,
  MR_OBJ_GEOM,
  MR_OBJ_SITE,
  MR_OBJ_CAMERA,
  MR_OBJ_LIGHT,
  MR_OBJ_MESH,
  MR_OBJ_MATERIAL,
  MR_OBJ_TEXTURE,
  MR_OBJ_ACTUATOR,
  MR_OBJ_EQUALITY,
  MR_OBJ_KEY,
  MR_OBJ_NTYPES
} mr_obj_type;

/* Disable flags (mr_option.disable). */
enum {
  MR_DISABLE_CONTACT = 1 << 0,     /* no collision detection */
  MR_DISABLE_CONSTRAINT = 1 << 1,  /* no contacts, limits or equalities: smooth dynamics */
  MR_DISABLE_GRAVITY = 1 << 2,
  MR_DISABLE_PASSIVE = 1 << 3,     /* joint springs and damping */
  MR_DISABLE_ACTUATION = 1 << 4,
  MR_DISABLE_CLAMPCTRL = 1 << 5
};

/* ------------------------------------------------------------------ options */

typedef struct mr_option {
  double timestep;
  double gravity[3];
  int integrator;  /* mr_integrator */
  int disable;     /* MR_DISABLE_* bits */
  int solver;      /* index into the solver registry; -1 = default */
  double tol;      /* solver tolerance */
  int max_iter;    /* solver iteration cap */
  double restitution; /* Newton restitution coefficient of contacts (MJCF has none: 0) */
  double sap_tau_d;   /* sap's dissipation time scale tau_d (s); 0: beta dt / pi, critical
                         damping (papers/004 sec. V-B; its Clutter runs use tau_d = dt) */
} mr_option;

/* ------------------------------------------------------------------ model */

/* Immutable after loading. Arrays are flat; "x3" means 3 numbers per element. */
typedef struct mr_model {
  /* sizes */
  int nq, nv, nbody, njnt, ngeom, nsite, ncam, nlight, nmesh, nmat, ntex;
  int nu, neq, nexclude, npair, nkey;
  int nmeshvert, nmeshface, nhullvert, nhullface; /* totals over all meshes */
  int nM;        /* nonzeros of the lower triangle of M (branch sparsity) */
  int nnames;    /* bytes in names */
  int ntexdata;  /* reserved */

  mr_option opt;     /* defaults for every mr_data made from this model */
  int is_urdf;       /* 1 when loaded from URDF */
  char *source_path; /* the file the model was loaded from */

  /* bodies (body 0 is the world) */
  int *body_parentid;   /* nbody */
  int *body_rootid;     /* nbody: top ancestor below the world */
  int *body_weldid;     /* nbody: closest ancestor with a joint (or itself) */
  int *body_jntnum, *body_jntadr;   /* nbody */
  int *body_dofnum, *body_dofadr;   /* nbody (dofadr -1 if none) */
  int *body_geomnum, *body_geomadr; /* nbody */
  double *body_pos;     /* nbody x3: position in parent frame */
  double *body_quat;    /* nbody x4: orientation in parent frame */
  double *body_ipos;    /* nbody x3: center of mass in body frame */
  double *body_iquat;   /* nbody x4: principal inertia frame in body frame */
  double *body_mass;    /* nbody */
  double *body_inertia; /* nbody x3: principal moments about the com */
  double *body_subtreemass; /* nbody */

  /* joints */
  int *jnt_type;     /* njnt: mr_joint_type */
  int *jnt_bodyid;   /* njnt */
  int *jnt_qposadr;  /* njnt */
  int *jnt_dofadr;   /* njnt */
  int *jnt_limited;  /* njnt */
  double *jnt_pos;   /* njnt x3: anchor in body frame */
  double *jnt_axis;  /* njnt x3: axis in body frame (unit) */
  double *jnt_range; /* njnt x2 */
  double *jnt_stiffness; /* njnt */
  double *jnt_margin;    /* njnt */

  /* dofs */
  int *dof_bodyid;   /* nv */
  int *dof_jntid;    /* nv */
  int *dof_parentid; /* nv: parent dof in the tree, -1 at a root */
  int *dof_Madr;     /* nv: address of the diagonal of M in the sparse lower triangle */
  double *dof_armature; /* nv */
  double *dof_damping;  /* nv */
  double *dof_frictionloss; /* nv */

  double *qpos0;       /* nq: reference configuration */
  double *qpos_spring; /* nq: spring reference */

  /* geoms */
  int *geom_type;       /* ngeom: mr_geom_type */
  int *geom_bodyid;     /* ngeom */
  int *geom_contype;    /* ngeom */
  int *geom_conaffinity;/* ngeom */
  int *geom_condim;     /* ngeom */
  int *geom_group;      /* ngeom: 0..5; URDF visuals are group 1, collisions group 0 */
  int *geom_meshid;     /* ngeom: -1 if not a mesh */
  int *geom_matid;      /* ngeom: -1 if none */
  double *geom_size;    /* ngeom x3: MuJoCo semantics (half sizes, radius, half length) */
  double *geom_pos;     /* ngeom x3: in body frame */
  double *geom_quat;    /* ngeom x4: in body frame */
  double *geom_friction;/* ngeom x3: sliding, torsional, rolling */
  double *geom_margin;  /* ngeom */
  double *geom_gap;     /* ngeom */
  double *geom_solref;  /* ngeom x2 */
  double *geom_solimp;  /* ngeom x5 */
  double *geom_solmix;  /* ngeom */
  double *geom_rbound;  /* ngeom: bounding sphere radius about geom origin (0 for planes) */
  float *geom_rgba;     /* ngeom x4 */

  /* sites */
  int *site_bodyid;    /* nsite */
  int *site_type;      /* nsite: mr_geom_type */
  double *site_pos;    /* nsite x3 */
  double *site_quat;   /* nsite x4 */
  double *site_size;   /* nsite x3 */
  float *site_rgba;    /* nsite x4 */

  /* cameras */
  int *cam_bodyid;   /* ncam */
  double *cam_pos;   /* ncam x3 */
  double *cam_quat;  /* ncam x4 */
  double *cam_fovy;  /* ncam: degrees */

  /* lights */
  int *light_bodyid;      /* nlight */
  int *light_directional; /* nlight */
  double *light_pos;      /* nlight x3 */
  double *light_dir;      /* nlight x3 */
  float *light_diffuse;   /* nlight x3 */

  /* meshes: vertices in the mesh frame, already scaled */
  int *mesh_vertadr, *mesh_vertnum; /* nmesh */
  int *mesh_faceadr, *mesh_facenum; /* nmesh */
  int *mesh_hullvertadr, *mesh_hullvertnum; /* nmesh: convex hull (qhull) */
  int *mesh_hullfaceadr, *mesh_hullfacenum; /* nmesh */
  double *mesh_vert;    /* nmeshvert x3 */
  float *mesh_normal;   /* nmeshvert x3 */
  int *mesh_face;       /* nmeshface x3: indices local to the mesh */
  double *mesh_hullvert; /* nhullvert x3 */
  int *mesh_hullface;   /* nhullface x3: indices local to the mesh's hull vertices */
  int *mesh_pathadr;    /* nmesh: address in names of the resolved file path */

  /* materials and textures (the viewer loads texture files itself) */
  float *mat_rgba;      /* nmat x4 */
  float *mat_emission;  /* nmat */
  float *mat_specular;  /* nmat */
  float *mat_shininess; /* nmat */
  float *mat_reflectance; /* nmat */
  float *mat_texrepeat; /* nmat x2 */
  int *mat_texid;       /* nmat: -1 if none */
  int *tex_type;        /* ntex: 0 = 2d, 1 = cube, 2 = skybox */
  int *tex_builtin;     /* ntex: 0 none, 1 gradient, 2 checker, 3 flat */
  int *tex_width, *tex_height; /* ntex */
  float *tex_rgb1, *tex_rgb2;  /* ntex x3 */
  int *tex_pathadr;     /* ntex: address in names of the file path, -1 if builtin */

  /* actuators: force = gain * ctrl + bias[0] + bias[1] * length + bias[2] * velocity,
   * applied through a joint transmission with gear (length = gear * q). */
  int *actuator_kind;      /* nu: mr_actuator_kind */
  int *actuator_trnid;     /* nu: joint id */
  int *actuator_ctrllimited;  /* nu */
  int *actuator_forcelimited; /* nu */
  double *actuator_gear;   /* nu */
  double *actuator_ctrlrange;  /* nu x2 */
  double *actuator_forcerange; /* nu x2 */
  double *actuator_gainprm;    /* nu x3 (only [0] is used: fixed gain) */
  double *actuator_biasprm;    /* nu x3 */

  /* equality constraints */
  int *eq_type;     /* neq: mr_eq_type */
  int *eq_obj1id;   /* neq: body (connect, weld) or joint (joint) */
  int *eq_obj2id;   /* neq: -1 means the world for connect/weld, "none" for joint */
  int *eq_active;   /* neq */
  double *eq_data;  /* neq x11: connect: anchor(3) in body1; weld: anchor(3), relpose(7: pos,
                       quat of body2 in body1... see mjcf), torquescale; joint: polycoef(5) */
  double *eq_solref; /* neq x2 */
  double *eq_solimp; /* neq x5 */

  /* contact filters */
  int *exclude_body1, *exclude_body2; /* nexclude: body pairs that never collide */
  int *pair_geom1, *pair_geom2;       /* npair: explicit pairs */
  int *pair_condim;                   /* npair */
  double *pair_friction;              /* npair x5 */
  double *pair_margin;                /* npair */
  double *pair_solref;                /* npair x2 */
  double *pair_solimp;                /* npair x5 */

  /* keyframes */
  double *key_time; /* nkey */
  double *key_qpos; /* nkey x nq */
  double *key_qvel; /* nkey x nv */
  double *key_ctrl; /* nkey x nu */

  /* names: one buffer of NUL-terminated strings; *_nameadr are offsets into it */
  char *names;
  int *name_adr[MR_OBJ_NTYPES]; /* per object type, one offset per object */
  char *model_name;             /* points into names */

  void *buffer; /* the single allocation behind every array above */
  size_t nbuffer;
} mr_model;

/* ------------------------------------------------------------------ contacts */

/* One contact point. The normal points from geom1 to geom2; dist < 0 is penetration. */
typedef struct mr_contact {
  double pos[3];      /* midway between the two surfaces */
  double frame[9];    /* rows: normal, tangent1, tangent2 (world frame, right-handed) */
  double dist;        /* signed distance */
  double margin;      /* contacts are reported while dist < margin */
  double gap;         /* MuJoCo's gap: the solver acts from dist < margin - gap */
  double friction[5]; /* sliding (2), torsional, rolling (2): MuJoCo's max rule for MJCF */
  double solref[2], solimp[5];
  double impulse[3];  /* last step's impulse of the same persistent contact (warm start), else 0 */
  int geom1, geom2;
  int body1, body2;
  int dim;            /* condim: 1 frictionless, 3 sliding, 4 torsional, 6 rolling */
  int age;            /* steps this contact has persisted (0: new this step) */
  int feature;        /* narrowphase feature id within the pair (persistence matching) */
  unsigned id;        /* persistent id: unchanged from step to step while the contact lasts */
} mr_contact;

/* Per-step physical error measures, computed once in engine/constraint/metrics.c for every solver
 * (L-infinity norms; papers/002 sec. 2, papers/000 sec. 3). Impulses, so velocities in m/s
 * and complementarity in N s m/s. */
typedef struct mr_metrics {
  double primal;          /* distance of lambda to the friction cones / limit half-lines */
  double dual;            /* distance of c + Gamma(c) to the dual cones */
  double complementarity; /* |<lambda, c + Gamma(c)>| per contact, max */
  double natural_map;     /* ||lambda - P_K(lambda - (c + Gamma(c)))|| */
  double signorini;       /* |lambda_N c_N| max */
  double dissipation;     /* maximum-dissipation violation */
  double penetration;     /* max(0, -dist) over contacts */
  double loop_closure;    /* max violation of equality constraints (m or rad) */
  double energy;          /* kinetic + potential */
  double solver_time;     /* seconds spent in the solver this step */
} mr_metrics;

/* ------------------------------------------------------------------ data */

typedef struct mr_data {
  mr_option opt; /* run-time settings: copied from the model, free to change between steps */

  double time;
  long nstep;
  double *qpos; /* nq */
  double *qvel; /* nv */
  double *qacc; /* nv */
  double *ctrl; /* nu */

  /* applied forces a user (or the viewer's perturbation) may set */
  double *qfrc_applied; /* nv */
  double *xfrc_applied; /* nbody x6: force (3), torque (3) in world frame at the body com */

  /* position stage */
  double *xpos;        /* nbody x3: body frame origin in world */
  double *xquat;       /* nbody x4 */
  double *xmat;        /* nbody x9: row-major rotation */
  double *xipos;       /* nbody x3: body com in world */
  double *ximat;       /* nbody x9: principal inertia frame in world */
  double *xanchor;     /* njnt x3: joint anchor in world */
  double *xaxis;       /* njnt x3: joint axis in world */
  double *geom_xpos;   /* ngeom x3 */
  double *geom_xmat;   /* ngeom x9 */
  double *site_xpos;   /* nsite x3 */
  double *site_xmat;   /* nsite x9 */
  double *cam_xpos;    /* ncam x3 */
  double *cam_xmat;    /* ncam x9 */
  double *subtree_com; /* nbody x3 */
  double *cdof;        /* nv x6: motion subspace (angular, linear) at the subtree com of the root */
  double *cinert;      /* nbody x10: spatial inertia in the same frame */
  double *crb;         /* nbody x10: composite rigid-body inertia */
  double *qM;          /* nM: mass matrix, sparse lower triangle (with armature) */
  double *qLD;         /* nM: L^T D L factor of M (or of M + dt*D when implicit damping) */
  double *qLDiagInv;   /* nv */

  /* velocity stage */
  double *cvel;     /* nbody x6 */
  double *cdof_dot; /* nv x6 */

  /* forces */
  double *qfrc_bias;     /* nv: Coriolis, centrifugal and gravity (RNEA with zero acceleration) */
  double *qfrc_passive;  /* nv: joint springs and damping */
  double *qfrc_actuator; /* nv */
  double *actuator_force;  /* nu */
  double *actuator_length; /* nu */
  double *actuator_velocity; /* nu */
  double *qfrc_smooth;   /* nv: passive + actuator + applied - bias */
  double *qacc_smooth;   /* nv: M^-1 qfrc_smooth */
  double *qfrc_constraint; /* nv */

  double energy[2]; /* potential, kinetic */

  /* contacts: capacity fixed at mr_data_create; when more are found, a warning is counted
   * and the deepest are kept */
  mr_contact *contact;      /* maxcon */
  mr_contact *contact_prev; /* maxcon: last step's contacts, for persistence and warm start */
  int maxcon, ncon_prev;
  int ncon_dropped;         /* contacts dropped this step for lack of capacity */
  unsigned next_contact_id;
  double *limit_impulse;    /* njnt x2: last step's impulse of each joint-limit side (lower,
                               upper), the limits' warm start */

  /* step statistics */
  int ncon;
  int newton_iters;       /* midpoint stage 1: quasi-Newton evaluations */
  double newton_residual; /* midpoint stage 1: final relative residual */
  int newton_status;      /* midpoint stage 1: 0 converged, 1 not (cap, stall, divergence) */
  int solver_iters;
  int solver_status;      /* 0 converged, 1 hit the iteration cap, 2 failed */
  double solver_residual;
  double *solver_history; /* opt.max_iter: the last solve's residual per iteration */
  int nefc;               /* constraint rows this step (equality + limit + 3 per contact) */
  mr_metrics metrics;
  int warning_count;

  /* per-step scratch: one arena, reset at the start of every step */
  unsigned char *arena;
  size_t narena;
  size_t parena; /* bytes in use */

  void *buffer;
  size_t nbuffer;
} mr_data;

/* ------------------------------------------------------------------ loading */

typedef struct mr_load_options {
  int floating;             /* URDF: add a free joint at the root */
  const char *package_path; /* URDF: extra roots for package:// URIs (':'-separated) */
  const char *srdf;         /* URDF: SRDF file (default: found next to the URDF) */
  int quiet;                /* no warnings on stderr */
} mr_load_options;

/* Loads an MJCF (.xml) or URDF (.urdf) file. On failure returns NULL and writes one line
 * "FILE:LINE: what is wrong" (no trailing newline) into err. Warnings (elements outside
 * the supported subset) go to stderr unless quiet. */
mr_model *mr_model_load(const char *path, const mr_load_options *opt, char *err, int errlen);
void mr_model_free(mr_model *m);
double mr_model_total_mass(const mr_model *m);

/* Name lookup: -1 if absent; "" for unnamed. */
int mr_name2id(const mr_model *m, mr_obj_type type, const char *name);
const char *mr_id2name(const mr_model *m, mr_obj_type type, int id);

/* ------------------------------------------------------------------ simulation */

mr_data *mr_data_create(const mr_model *m);
void mr_data_free(mr_data *d);
/* Back to qpos0, zero velocity, zero ctrl, time 0 (keeps d->opt). */
void mr_data_reset(const mr_model *m, mr_data *d);
/* Reset to keyframe k; returns -1 if k is out of range. */
int mr_data_reset_keyframe(const mr_model *m, mr_data *d, int k);

/* The pipeline stages, callable on their own (tests and tools use them). */
void mr_kinematics(const mr_model *m, mr_data *d);   /* poses, com, cdof, cinert */
void mr_mass_matrix(const mr_model *m, mr_data *d);  /* CRBA into qM */
void mr_factor_mass(const mr_model *m, mr_data *d, double dt_damping); /* LTDL of M + dt*diag(damping) */
void mr_solve_mass(const mr_model *m, const mr_data *d, double *x, const double *b, int n); /* x = (LTDL)^-1 b for n vectors */
void mr_bias_forces(const mr_model *m, mr_data *d);  /* RNEA, zero acceleration: qfrc_bias */
void mr_passive_forces(const mr_model *m, mr_data *d);
void mr_actuator_forces(const mr_model *m, mr_data *d);
void mr_dense_mass(const mr_model *m, const mr_data *d, double *dense); /* nv x nv, row-major */

/* Full forward dynamics without integrating: qacc. */
void mr_forward(const mr_model *m, mr_data *d);
/* One step. Returns 0, or -1 if the state became non-finite (d->warning_count incremented). */
int mr_step(const mr_model *m, mr_data *d);
/* Collision detection for the current poses (needs mr_kinematics): fills d->contact and
 * d->ncon. Called by the pipeline unless MR_DISABLE_CONTACT or MR_DISABLE_CONSTRAINT. */
void mr_collide(const mr_model *m, mr_data *d);

/* The contact solver registry: index by name (-1 if none), and each entry's name, viewer
 * hotkey and one-line description. mr_solver_default is the index used when opt.solver
 * is -1. */
int mr_solver_count(void);
int mr_solver_find(const char *name);
int mr_solver_default(void);
const char *mr_solver_name(int index);
char mr_solver_hotkey(int index);
const char *mr_solver_description(int index);

/* Kinetic + potential (gravity and springs) energy into d->energy. */
void mr_energy(const mr_model *m, mr_data *d);

/* q (+) dt * v on the configuration manifold (quaternions by the exponential map). */
void mr_integrate_pos(const mr_model *m, double *qpos, const double *qvel, double dt);
void mr_normalize_quats(const mr_model *m, double *qpos);

#ifdef __cplusplus
}
#endif
#endif /* MOREAU_H */
