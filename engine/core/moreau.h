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
  MR_GEOM_HFIELD = 1, /* heightfield: static bodies only, geom_hfieldid names its data */
  MR_GEOM_SPHERE = 2,
  MR_GEOM_CAPSULE = 3,
  MR_GEOM_ELLIPSOID = 4,
  MR_GEOM_CYLINDER = 5,
  MR_GEOM_BOX = 6,
  MR_GEOM_MESH = 7,
  MR_GEOM_NTYPES = 8
} mr_geom_type;

/* The MJCF element an actuator came from (informational: the dynamics read the types and
 * parameters below, which every kind sets as MuJoCo's shortcuts do). */
typedef enum mr_actuator_kind {
  MR_ACT_MOTOR = 0,
  MR_ACT_POSITION = 1,
  MR_ACT_VELOCITY = 2,
  MR_ACT_GENERAL = 3,
  MR_ACT_MUSCLE = 4,
  MR_ACT_CYLINDER = 5,
  MR_ACT_DAMPER = 6,
  MR_ACT_INTVELOCITY = 7
} mr_actuator_kind;

/* Actuator transmission, activation dynamics, gain and bias: MuJoCo's mjtTrn, mjtDyn,
 * mjtGain, mjtBias numbering. */
typedef enum mr_trn_type {
  MR_TRN_JOINT = 0,         /* hinge or slide joint: length = gear[0] q */
  MR_TRN_JOINTINPARENT = 1, /* the same for hinge and slide joints */
  MR_TRN_SLIDERCRANK = 2,   /* slider-crank linkage between two sites */
  MR_TRN_TENDON = 3,        /* length = gear[0] ten_length */
  MR_TRN_SITE = 4           /* 6-D force/torque gear in the site frame; length 0 */
} mr_trn_type;

typedef enum mr_dyn_type {
  MR_DYN_NONE = 0,       /* no activation: the control drives the force */
  MR_DYN_INTEGRATOR = 1, /* act_dot = ctrl */
  MR_DYN_FILTER = 2,     /* act_dot = (ctrl - act) / dynprm[0] */
  MR_DYN_MUSCLE = 3      /* MuJoCo's muscle activation (time constants dynprm[0..1]) */
} mr_dyn_type;

typedef enum mr_gain_type {
  MR_GAIN_FIXED = 0,  /* gainprm[0] */
  MR_GAIN_AFFINE = 1, /* gainprm[0] + gainprm[1] length + gainprm[2] velocity */
  MR_GAIN_MUSCLE = 2  /* MuJoCo's force-length-velocity curve */
} mr_gain_type;

typedef enum mr_bias_type {
  MR_BIAS_NONE = 0,
  MR_BIAS_AFFINE = 1, /* biasprm[0] + biasprm[1] length + biasprm[2] velocity */
  MR_BIAS_MUSCLE = 2  /* MuJoCo's passive muscle force */
} mr_bias_type;

/* Parameters per actuator (MuJoCo's mjNDYN, mjNGAIN, mjNBIAS). */
#define MR_NDYN 10
#define MR_NGAIN 10
#define MR_NBIAS 10

/* Objects along a tendon's path: MuJoCo's mjtWrap numbering. */
typedef enum mr_wrap_type {
  MR_WRAP_NONE = 0,
  MR_WRAP_JOINT = 1,   /* fixed tendon: coef (wrap_prm) times a joint's position */
  MR_WRAP_PULLEY = 2,  /* starts a branch whose length is divided by wrap_prm */
  MR_WRAP_SITE = 3,    /* the path passes through the site */
  MR_WRAP_SPHERE = 4,  /* the path wraps around the sphere geom (wrap_prm: side site or -1) */
  MR_WRAP_CYLINDER = 5 /* ... around the (infinite) cylinder geom */
} mr_wrap_type;

typedef enum mr_eq_type {
  MR_EQ_CONNECT = 0, /* ball joint between two bodies: 3 rows */
  MR_EQ_WELD = 1,    /* 6 rows */
  MR_EQ_JOINT = 2,   /* q1 = poly(q2): 1 row (URDF mimic) */
  MR_EQ_TENDON = 3   /* L1 = poly(L2) on tendon lengths: 1 row */
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
  MR_OBJ_TENDON,
  MR_OBJ_SENSOR,
  MR_OBJ_HFIELD,
  MR_OBJ_XBODY, /* a body's own frame (xpos, xmat) rather than its inertial frame; names
                   are the bodies' */
  MR_OBJ_NTYPES
} mr_obj_type;

/* Sensor types, with MuJoCo 2.2's numbering (mjtSensor). Values are written to
 * d->sensordata at the pipeline stage each needs (sensor_needstage): position sensors after
 * the kinematics, velocity sensors after the velocity stage, acceleration and force sensors
 * once the constraint forces and qacc are known. */
typedef enum mr_sensor_type {
  MR_SENS_TOUCH = 0,      /* 1: normal contact force inside the site's volume */
  MR_SENS_ACCELEROMETER,  /* 3: linear acceleration of a site (gravity included), site frame */
  MR_SENS_VELOCIMETER,    /* 3: linear velocity of a site, site frame */
  MR_SENS_GYRO,           /* 3: angular velocity of a site, site frame */
  MR_SENS_FORCE,          /* 3: force the parent exerts on the site's body, site frame */
  MR_SENS_TORQUE,         /* 3: torque of the same interaction about the site, site frame */
  MR_SENS_MAGNETOMETER,   /* 3: the magnetic field option in the site frame */
  MR_SENS_RANGEFINDER,    /* 1: distance along the site's +z to the nearest geom, -1 if none */
  MR_SENS_JOINTPOS,       /* 1: hinge/slide position */
  MR_SENS_JOINTVEL,       /* 1: hinge/slide velocity */
  MR_SENS_TENDONPOS,      /* 1: tendon length */
  MR_SENS_TENDONVEL,      /* 1: tendon velocity */
  MR_SENS_ACTUATORPOS,    /* 1: actuator length */
  MR_SENS_ACTUATORVEL,    /* 1: actuator velocity */
  MR_SENS_ACTUATORFRC,    /* 1: actuator force */
  MR_SENS_BALLQUAT,       /* 4: ball joint quaternion */
  MR_SENS_BALLANGVEL,     /* 3: ball joint angular velocity */
  MR_SENS_JOINTLIMITPOS,  /* 1: distance to the nearer active limit minus the margin, else 0 */
  MR_SENS_JOINTLIMITVEL,  /* 1: velocity along that limit's constraint, else 0 */
  MR_SENS_JOINTLIMITFRC,  /* 1: force of the joint's limit, else 0 */
  MR_SENS_TENDONLIMITPOS, /* 1: the same for tendons */
  MR_SENS_TENDONLIMITVEL,
  MR_SENS_TENDONLIMITFRC,
  MR_SENS_FRAMEPOS,       /* 3: position of an object's frame (in a reference frame if given) */
  MR_SENS_FRAMEQUAT,      /* 4: orientation quaternion */
  MR_SENS_FRAMEXAXIS,     /* 3: x axis of the frame */
  MR_SENS_FRAMEYAXIS,
  MR_SENS_FRAMEZAXIS,
  MR_SENS_FRAMELINVEL,    /* 3: linear velocity of the frame's origin */
  MR_SENS_FRAMEANGVEL,    /* 3: angular velocity */
  MR_SENS_FRAMELINACC,    /* 3: linear acceleration (gravity included), world frame */
  MR_SENS_FRAMEANGACC,    /* 3: angular acceleration, world frame */
  MR_SENS_SUBTREECOM,     /* 3: center of mass of a body's subtree */
  MR_SENS_SUBTREELINVEL,  /* 3: linear velocity of that center of mass */
  MR_SENS_SUBTREEANGMOM,  /* 3: angular momentum of the subtree about its center of mass */
  MR_SENS_CLOCK,          /* 1: simulated time */
  MR_SENS_NTYPES
} mr_sensor_type;

/* Pipeline stage a sensor needs (MuJoCo's mjtStage). */
typedef enum mr_stage { MR_STAGE_NONE = 0, MR_STAGE_POS, MR_STAGE_VEL, MR_STAGE_ACC } mr_stage;

/* How a sensor's cutoff applies (MuJoCo's mjtDataType): real values are clamped to
 * [-cutoff, cutoff], positive ones to at most cutoff; axes and quaternions are not cut. */
typedef enum mr_sensor_datatype {
  MR_DATATYPE_REAL = 0,
  MR_DATATYPE_POSITIVE,
  MR_DATATYPE_AXIS,
  MR_DATATYPE_QUATERNION
} mr_sensor_datatype;

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
  int max_iter;    /* solver iteration cap; 0: the solver's own (mr_solver_max_iter) */
  double restitution; /* Newton restitution coefficient of contacts (MJCF has none: 0) */
  double magnetic[3]; /* global magnetic field (magnetometer sensors); MuJoCo's default
                         (0, -0.5, 0) */
  double sap_tau_d;   /* sap's dissipation time scale tau_d (s); 0: beta dt / pi, critical
                         damping (papers/004 sec. V-B; its Clutter runs use tau_d = dt) */
} mr_option;

/* ------------------------------------------------------------------ model */

/* Immutable after loading. Arrays are flat; "x3" means 3 numbers per element. */
typedef struct mr_model {
  /* sizes */
  int nq, nv, nbody, njnt, ngeom, nsite, ncam, nlight, nmesh, nmat, ntex;
  int nu, neq, nexclude, npair, nkey;
  int ntendon, nwrap; /* tendons, and the objects along their paths */
  int na;             /* activation states: actuators with dynamics, which come last */
  int nJten, nJmom;   /* entries of the sparse tendon Jacobians and actuator moments */
  int nsensor, nsensordata; /* sensors, and the numbers they write into d->sensordata */
  int nhfield, nhfielddata; /* heightfields, and their elevation samples */
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
  double *body_invweight0;  /* nbody x2: MuJoCo's mean inverse inertia at qpos0, translational
                              and rotational (soft's regularizer weights) */

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
  double *jnt_solref;    /* njnt x2: MJCF solreflimit (soft limits) */
  double *jnt_solimp;    /* njnt x5: MJCF solimplimit */

  /* dofs */
  int *dof_bodyid;   /* nv */
  int *dof_jntid;    /* nv */
  int *dof_parentid; /* nv: parent dof in the tree, -1 at a root */
  int *dof_Madr;     /* nv: address of the diagonal of M in the sparse lower triangle */
  int *M_colind;     /* nM: the dof of each entry of that triangle: row i holds i, then its
                        ancestors nearest first */
  double *dof_armature; /* nv */
  double *dof_damping;  /* nv */
  double *dof_frictionloss; /* nv */
  double *dof_invweight0;   /* nv: M^-1's diagonal at qpos0 (averaged over a free joint's
                               translations and rotations, a ball's 3), as MuJoCo's */

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
  int *geom_hfieldid;   /* ngeom: -1 if not a heightfield */
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

  /* heightfields (MuJoCo's layout): elevation samples in [0, 1], row-major, row r at
   * y = (2 r / (nrow - 1) - 1) size[1], column c at x = (2 c / (ncol - 1) - 1) size[0];
   * the surface is at z = size[2] * elevation in the geom frame, the solid below it reaches
   * down to z = -size[3]. */
  double *hfield_size;  /* nhfield x4: x half-extent, y half-extent, top height, base depth */
  int *hfield_nrow, *hfield_ncol, *hfield_adr; /* nhfield */
  float *hfield_data;   /* nhfielddata */

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

  /* tendons: a fixed tendon is a linear combination of joint positions, a spatial tendon a
   * path through sites, wrapping around sphere and cylinder geoms, in branches started by
   * pulleys. Length limits are constraint rows; stiffness and damping passive forces. */
  int *tendon_adr, *tendon_num; /* ntendon: the tendon's objects in wrap_* */
  int *tendon_limited;          /* ntendon */
  int *tendon_group;            /* ntendon */
  int *tendon_matid;            /* ntendon: -1 if none */
  double *tendon_range;         /* ntendon x2 */
  double *tendon_margin;        /* ntendon */
  double *tendon_stiffness;     /* ntendon */
  double *tendon_damping;       /* ntendon */
  double *tendon_frictionloss;  /* ntendon: read, not simulated (as for joints) */
  double *tendon_lengthspring;  /* ntendon: spring rest length (at qpos_spring if not given) */
  double *tendon_length0;       /* ntendon: length at qpos0 */
  double *tendon_invweight0;    /* ntendon: J M^-1 J^T at qpos0 */
  double *tendon_width;         /* ntendon: drawing radius */
  double *tendon_solref_lim;    /* ntendon x2 */
  double *tendon_solimp_lim;    /* ntendon x5 */
  float *tendon_rgba;           /* ntendon x4 */
  /* The dofs a tendon's Jacobian may touch (the chains of the bodies on its path, or its
   * joints), ascending; d->ten_J holds the values in this order. */
  int *tendon_Jrowadr, *tendon_Jrownnz; /* ntendon */
  int *tendon_Jcolind;                  /* nJten */
  int *wrap_type;     /* nwrap: mr_wrap_type */
  int *wrap_objid;    /* nwrap: joint, site or geom id; -1 for a pulley */
  double *wrap_prm;   /* nwrap: joint coef, pulley divisor, or a geom's side site id (-1) */

  /* actuators (MuJoCo's model): force = gain * (act or ctrl) + bias, applied through the
   * transmission's moment arms; actuators with activation dynamics come after the others,
   * actuator u owning act[u - (nu - na)]. */
  int *actuator_kind;      /* nu: mr_actuator_kind */
  int *actuator_trntype;   /* nu: mr_trn_type */
  int *actuator_dyntype;   /* nu: mr_dyn_type */
  int *actuator_gaintype;  /* nu: mr_gain_type */
  int *actuator_biastype;  /* nu: mr_bias_type */
  int *actuator_trnid;     /* nu x2: joint, tendon or site id; the slider site of a crank */
  int *actuator_group;     /* nu */
  int *actuator_ctrllimited;  /* nu */
  int *actuator_forcelimited; /* nu */
  int *actuator_actlimited;   /* nu */
  double *actuator_dynprm;     /* nu x MR_NDYN */
  double *actuator_gainprm;    /* nu x MR_NGAIN */
  double *actuator_biasprm;    /* nu x MR_NBIAS */
  double *actuator_ctrlrange;  /* nu x2 */
  double *actuator_forcerange; /* nu x2 */
  double *actuator_actrange;   /* nu x2 */
  double *actuator_gear;       /* nu x6 */
  double *actuator_cranklength; /* nu */
  double *actuator_acc0;       /* nu: norm of M^-1 moment at qpos0 (muscle force scale) */
  double *actuator_length0;    /* nu: length at qpos0 */
  double *actuator_lengthrange; /* nu x2: feasible lengths (muscles) */
  /* The dofs an actuator's moment may touch, ascending; d->actuator_moment is aligned. */
  int *actuator_Jrowadr, *actuator_Jrownnz; /* nu */
  int *actuator_Jcolind;                    /* nJmom */

  /* equality constraints */
  int *eq_type;     /* neq: mr_eq_type */
  int *eq_obj1id;   /* neq: body (connect, weld), joint (joint) or tendon (tendon) */
  int *eq_obj2id;   /* neq: -1 means the world for connect/weld, "none" for joint */
  int *eq_active;   /* neq */
  double *eq_data;  /* neq x11: connect: anchor(3) in body1; weld: anchor(3), relpose(7: pos,
                       quat of body2 in body1... see mjcf), torquescale; joint, tendon:
                       polycoef(5) */
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

  /* sensors: sensor i writes sensor_dim[i] numbers at d->sensordata + sensor_adr[i] */
  int *sensor_type;      /* nsensor: mr_sensor_type */
  int *sensor_datatype;  /* nsensor: mr_sensor_datatype */
  int *sensor_needstage; /* nsensor: mr_stage */
  int *sensor_objtype;   /* nsensor: mr_obj_type of the sensed object */
  int *sensor_objid;     /* nsensor */
  int *sensor_reftype;   /* nsensor: frame sensors' reference frame type, -1 for the world */
  int *sensor_refid;     /* nsensor: -1 for the world */
  int *sensor_dim;       /* nsensor */
  int *sensor_adr;       /* nsensor */
  double *sensor_cutoff; /* nsensor: 0 means none */
  double *sensor_noise;  /* nsensor: read from the file and kept, never applied */

  /* keyframes */
  double *key_time; /* nkey */
  double *key_qpos; /* nkey x nq */
  double *key_qvel; /* nkey x nv */
  double *key_ctrl; /* nkey x nu */
  double *key_act;  /* nkey x na */

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
  double loop_closure;    /* max violation of equality constraints at the end of the step,
                             before the position projection repairs it (m or rad) */
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
  double *act;  /* na: actuator activations (state, like qpos and qvel) */

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
  double *qAdiag;      /* nv: the diagonal of the matrix qLD factors (A = qM off the diagonal) */

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
  double *actuator_moment;   /* nJmom: d length / d q over the model's actuator_J* pattern */
  double *act_dot;           /* na: activation derivatives, integrated by the step */

  /* tendons (mr_tendon, called by mr_kinematics) */
  double *ten_length;   /* ntendon */
  double *ten_velocity; /* ntendon: ten_J qvel */
  double *ten_J;        /* nJten: d length / d q over the model's tendon_J* pattern */
  int *ten_wrapadr, *ten_wrapnum; /* ntendon: the tendon's points in wrap_xpos */
  int *wrap_obj;        /* 2 nwrap: per point, the geom wrapped (>= 0), -1 a site, -2 a pulley */
  double *wrap_xpos;    /* 2 nwrap x3: path points in the world frame */
  double *ten_limit_impulse; /* ntendon x2: last step's impulse of each tendon-limit side */
  double *qfrc_smooth;   /* nv: passive + actuator + applied - bias */
  double *qacc_smooth;   /* nv: M^-1 qfrc_smooth */
  double *qfrc_constraint; /* nv */

  /* acceleration-stage body quantities (computed when a sensor needs them), MuJoCo's
   * mj_rnePostConstraint: com-based spatial vectors (angular, linear) about the subtree com
   * of each body's root, like cvel */
  double *cacc;     /* nbody x6: acceleration, gravity included (the world accelerates up) */
  double *cfrc_int; /* nbody x6: force the parent exerts on the body through its joints */
  double *cfrc_ext; /* nbody x6: external force on the body (applied + contact forces) */
  double *subtree_linvel; /* nbody x3: linear velocity of the subtree com */
  double *subtree_angmom; /* nbody x3: angular momentum of the subtree about its com */
  double *sensordata;     /* nsensordata */

  double energy[2]; /* potential, kinetic */

  /* contacts: capacity fixed at mr_data_create; when more are found, a warning is counted
   * and the deepest are kept */
  mr_contact *contact;      /* maxcon */
  mr_contact *contact_prev; /* maxcon: last step's contacts, for persistence and warm start */
  int maxcon, ncon_prev;
  int ncon_dropped;         /* contacts dropped this step for lack of capacity */
  int ncon_degenerate;      /* contacts dropped this step: the mechanism cannot move along
                               their normal (engine/constraint/degenerate.c) */
  int npair_anchored;       /* geom pairs whose penetration this step came from an earlier
                               step's search, within its accuracy bound
                               (collision/depth_cache.h) */
  unsigned next_contact_id;
  struct mr_depth_anchor *depth_anchor; /* 2 maxcon: penetrations kept for the next steps
                                           (collision/depth_cache.h), two generations */
  int ndepth_anchor, depth_anchor_gen; /* the last generation's count and half */
  double *limit_impulse;    /* njnt x2: last step's impulse of each joint-limit side (lower,
                               upper), the limits' warm start */

  /* step statistics */
  int ncon;
  int newton_iters;       /* midpoint stage 1: quasi-Newton evaluations */
  double newton_residual; /* midpoint stage 1: final relative residual */
  int newton_status;      /* midpoint stage 1: 0 converged, 1 not (cap, stall, divergence) */
  int solver_iters;
  int solver_sweeps;      /* of solver_iters, the pgs sweeps newton handed parts of the step to
                             (a start for its warm path, a stall, the fallback) */
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

/* mr_load_options.floor and .self_collision: 0 is the default (auto). */
enum { MR_AUTO = 0, MR_ON = 1, MR_OFF = -1 };

/* mr_load_options.meshes: which mesh files are read and what is computed from them. */
enum {
  MR_MESHES_ALL = 0,       /* every mesh, convex hulls of the colliding ones (the viewer) */
  MR_MESHES_COLLISION = 1, /* no mesh only a visual geom uses (run, batch) */
  MR_MESHES_INSPECT = 2    /* as COLLISION, and no convex hull (info: the model is not stepped) */
};

typedef struct mr_load_options {
  int floating;             /* URDF: add a free joint at the root */
  const char *package_path; /* URDF: extra roots for package:// URIs (':'-separated) */
  const char *srdf;         /* URDF: SRDF file (default: found next to the URDF) */
  int quiet;                /* no warnings on stderr */
  int floor;                /* a ground plane at z = 0: MR_AUTO (URDF models with a floating
                               base get one), MR_ON, MR_OFF */
  int self_collision;       /* MR_AUTO (URDF: no parent-child pairs, none touching at the
                               reference poses, SRDF exclusions; MJCF: MuJoCo's rules), MR_ON
                               (every pair but parent-child), MR_OFF (none within a robot) */
  int strict;               /* URDF inertia repairs and bounds are errors, not warnings */
  int hold;                 /* a position servo on every hinge and slide joint, holding the
                               start pose (replaces the model's actuators) */
  double hold_kp, hold_kd;  /* the servos' gains; 0: per joint from the mass matrix */
  const char *keyframe;     /* the start pose the servo gains are chosen at (NULL: qpos0) */
  int meshes;               /* MR_MESHES_* */
} mr_load_options;

/* Loads an MJCF (.xml) or URDF (.urdf) file. On failure returns NULL and writes one line
 * "FILE:LINE: what is wrong" (no trailing newline) into err. Warnings (elements outside
 * the supported subset) go to stderr unless quiet. */
mr_model *mr_model_load(const char *path, const mr_load_options *opt, char *err, int errlen);
void mr_model_free(mr_model *m);
double mr_model_total_mass(const mr_model *m);

/* The MJCF element name of a sensor type ("jointpos", "framequat", ...), or NULL. */
const char *mr_sensor_type_name(int type);

/* Column name of number k of sensor i in recordings and summaries: "sensor_NAME" for a
 * scalar, "sensor_NAME_k" otherwise; an unnamed sensor is named by its index, and commas,
 * quotes, spaces and control characters in a name become underscores. */
void mr_sensor_column(const mr_model *m, int i, int k, char *buf, size_t n);

/* Name lookup: -1 if absent; "" for unnamed. */
int mr_name2id(const mr_model *m, mr_obj_type type, const char *name);
const char *mr_id2name(const mr_model *m, mr_obj_type type, int id);

/* ------------------------------------------------------------------ simulation */

mr_data *mr_data_create(const mr_model *m);
/* Bytes one mr_data of m takes (its arrays and its per-step arena), without creating it. */
size_t mr_data_bytes(const mr_model *m);
void mr_data_free(mr_data *d);
/* dst <- src, both made for m: the state, the settings (opt), the warm start and the last
 * step's contacts and statistics, so that stepping dst goes on exactly as stepping src
 * would (rollouts from one state, a solver tried on the same problem: bench_replay).
 * dst keeps its own scratch arena. Returns -1, copying nothing, when either was made for
 * another model. */
int mr_data_copy(const mr_model *m, mr_data *dst, const mr_data *src);
/* Back to qpos0, zero velocity, ctrl and act, time 0 (keeps d->opt). */
void mr_data_reset(const mr_model *m, mr_data *d);
/* Reset to keyframe k; returns -1 if k is out of range. */
int mr_data_reset_keyframe(const mr_model *m, mr_data *d, int k);

/* The pipeline stages, callable on their own (tests and tools use them). */
void mr_kinematics(const mr_model *m, mr_data *d);   /* poses, com, cdof, cinert, tendons */
void mr_tendon(const mr_model *m, mr_data *d);       /* tendon lengths, J, velocities, paths */
void mr_mass_matrix(const mr_model *m, mr_data *d);  /* CRBA into qM */
void mr_factor_mass(const mr_model *m, mr_data *d, double dt_damping); /* LTDL of M + dt*diag(damping) */
void mr_solve_mass(const mr_model *m, const mr_data *d, double *x, const double *b, int n); /* x = (LTDL)^-1 b for n vectors */
void mr_bias_forces(const mr_model *m, mr_data *d);  /* RNEA, zero acceleration: qfrc_bias */
void mr_passive_forces(const mr_model *m, mr_data *d);
void mr_actuator_forces(const mr_model *m, mr_data *d);
void mr_dense_mass(const mr_model *m, const mr_data *d, double *dense); /* nv x nv, row-major */

/* Body accelerations and forces after the constraint forces (MuJoCo's
 * mj_rnePostConstraint): cacc from qacc, cfrc_ext from xfrc_applied and the contact
 * impulses of the last solve, cfrc_int by Newton-Euler. Needs the velocity stage. */
void mr_rne_post_constraint(const mr_model *m, mr_data *d);
/* subtree_linvel and subtree_angmom (MuJoCo's mj_subtreeVel). Needs the velocity stage. */
void mr_subtree_vel(const mr_model *m, mr_data *d);

/* Sensors of one stage into d->sensordata (cutoff applied): MR_STAGE_POS needs
 * mr_kinematics, MR_STAGE_VEL the velocity stage (mr_bias_forces, actuator lengths), and
 * MR_STAGE_ACC qacc, the contact impulses of the step and d->limit_impulse. The pipeline
 * calls them; they are public so a tool can evaluate sensors on a state it set itself. */
void mr_sensors(const mr_model *m, mr_data *d, mr_stage stage);

/* Position and velocity sensors of the current state (after a step, or a state the caller
 * set), leaving the acceleration and force sensors the last step computed and the contacts
 * untouched: what recordings and plots show for a state. Runs the kinematics, velocity and
 * actuation stages; nothing when the model has no sensors. */
void mr_sensors_state(const mr_model *m, mr_data *d);

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
const char *mr_solver_default_reason(void); /* one line: why the default is the default */
int mr_solver_default(void);
const char *mr_solver_name(int index);
char mr_solver_hotkey(int index);
const char *mr_solver_description(int index);
/* NULL when the solver applies Newton restitution (opt.restitution), else one line saying
 * why its contact model cannot (run --restitution with it is an error). */
const char *mr_solver_no_restitution(int index);
/* The iteration cap the solver runs with when opt.max_iter is 0 (the default). */
int mr_solver_max_iter(int index);

/* Kinetic + potential (gravity and springs) energy into d->energy. */
void mr_energy(const mr_model *m, mr_data *d);

/* q (+) dt * v on the configuration manifold (quaternions by the exponential map). */
void mr_integrate_pos(const mr_model *m, double *qpos, const double *qvel, double dt);
void mr_normalize_quats(const mr_model *m, double *qpos);

#ifdef __cplusplus
}
#endif
#endif /* MOREAU_H */
