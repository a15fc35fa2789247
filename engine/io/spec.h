/* The model specification: what a parser fills in, element by element, before compile.
 *
 * Both parsers (MJCF and URDF) write fully resolved values here (defaults classes applied,
 * orientations converted to quaternions, fromto converted to pos/quat/size, angles in
 * radians), and mr_spec_compile turns the specification into a flat mr_model: it orders
 * dofs, computes body inertia from geoms where asked, loads meshes and their hulls, and
 * checks what a simulation needs (positive masses, unit axes, finite numbers).
 *
 * Keeping the parsers ignorant of mr_model's flat layout is what lets two very different
 * formats share one compiler, as MuJoCo's mjCModel does for MJCF and URDF.
 */
#ifndef MR_SPEC_H
#define MR_SPEC_H

#include "engine/core/error.h"
#include "moreau.h"


typedef struct mr_spec_body {
  mr_source src;
  const char *name; /* NULL or interned */
  int parent;       /* index of the parent body; bodies are added parents first; world = 0 */
  double pos[3];    /* in the parent frame */
  double quat[4];
  int has_inertial; /* explicit inertial: mass/ipos/iquat/inertia below are used */
  double mass;
  double ipos[3];
  double iquat[4];
  double inertia[3]; /* principal moments in the iquat frame */
  const char *skipped; /* NULL, or the first element inside the body that is outside the
                          supported subset and was skipped (named in errors about the body:
                          a <composite>'s bodies and geoms are what would give it mass) */
} mr_spec_body;

typedef struct mr_spec_joint {
  mr_source src;
  const char *name;
  int body;
  int type;        /* mr_joint_type */
  double pos[3];   /* anchor in body frame */
  double axis[3];  /* body frame; normalized by compile */
  int limited;
  double range[2]; /* radians for hinge, meters for slide */
  double stiffness, springref, damping, armature, frictionloss, margin;
  double ref;      /* qpos0 for hinge/slide */
  double solref_lim[2], solimp_lim[5]; /* MJCF solreflimit, solimplimit */
  double effort;   /* URDF <limit effort>: the force range of actuators on it; 0: none */
} mr_spec_joint;

typedef struct mr_spec_geom {
  mr_source src;
  const char *name;
  int body;
  int type;        /* mr_geom_type */
  double size[3];  /* MuJoCo semantics */
  double pos[3];
  double quat[4];
  int contype, conaffinity, condim, group;
  double friction[3];
  double margin, gap, solmix;
  double solref[2], solimp[5];
  double density;  /* used when mass < 0 */
  double mass;     /* < 0: from density and volume */
  float rgba[4];
  int mesh;        /* index into spec meshes, -1 if none; a primitive type with a mesh is
                      fitted to the mesh by the compiler (MuJoCo's rule) */
  int hfield;      /* index into spec hfields for type hfield, -1 otherwise */
  int material;    /* index into spec materials, -1 if none */
  double fitscale; /* scale of a primitive fitted to a mesh (1) */
} mr_spec_geom;

typedef struct mr_spec_site {
  mr_source src;
  const char *name;
  int body, type;
  double pos[3], quat[4], size[3];
  float rgba[4];
} mr_spec_site;

typedef struct mr_spec_camera {
  mr_source src;
  const char *name;
  int body;
  double pos[3], quat[4], fovy;
} mr_spec_camera;

typedef struct mr_spec_light {
  mr_source src;
  const char *name;
  int body, directional;
  double pos[3], dir[3];
  float diffuse[3];
} mr_spec_light;

typedef struct mr_spec_mesh {
  mr_source src;
  const char *name;
  const char *path; /* resolved file path (STL, OBJ, DAE, MuJoCo's .msh); NULL: inline data */
  double scale[3];
  const double *vert; /* inline vertices (nvert x3), or NULL */
  const int *face;    /* inline triangles (nface x3), or NULL: the vertices' convex hull */
  int nvert, nface;
} mr_spec_mesh;

/* A heightfield: elevation from a PNG (grey levels), MuJoCo's binary file, inline values,
 * or zeros (nrow x ncol given alone); normalized to [0, 1] by the compiler as MuJoCo does. */
typedef struct mr_spec_hfield {
  mr_source src;
  const char *name;
  const char *path;        /* PNG or binary file; NULL for inline or zero data */
  int nrow, ncol;          /* 0 when the file gives them */
  double size[4];          /* x, y half-extents, top height, base depth */
  const double *elevation; /* nrow x ncol inline values, first row at +y (as an image) */
} mr_spec_hfield;

/* A sensor: what it senses is an index into the spec's arrays of objtype (bodies, joints,
 * geoms, sites, cameras, actuators; MR_OBJ_XBODY indexes bodies). */
typedef struct mr_spec_sensor {
  mr_source src;
  const char *name;
  int type;         /* mr_sensor_type */
  int objtype, obj; /* mr_obj_type and index; -1 for none (clock) */
  int reftype, ref; /* frame sensors' reference frame; -1 for the world */
  double cutoff, noise;
} mr_spec_sensor;

typedef struct mr_spec_material {
  mr_source src;
  const char *name;
  float rgba[4], emission, specular, shininess, reflectance, texrepeat[2];
  int texture; /* -1 if none */
} mr_spec_material;

typedef struct mr_spec_texture {
  mr_source src;
  const char *name;
  int type, builtin, width, height;
  float rgb1[3], rgb2[3];
  const char *path; /* NULL if builtin */
} mr_spec_texture;

typedef struct mr_spec_actuator {
  mr_source src;
  const char *name;
  int kind;     /* mr_actuator_kind */
  int trntype;  /* mr_trn_type */
  int joint;    /* transmission target: joint, tendon or site index (by trntype) */
  int trnid2;   /* slider site of a slider-crank, else -1 */
  int dyntype, gaintype, biastype; /* mr_dyn_type, mr_gain_type, mr_bias_type */
  double gear[6];
  double cranklength;
  int ctrllimited, forcelimited, actlimited, group;
  double ctrlrange[2], forcerange[2], actrange[2], lengthrange[2];
  double dynprm[MR_NDYN], gainprm[MR_NGAIN], biasprm[MR_NBIAS];
  int auto_gains;  /* a servo whose gains are chosen from the mass matrix once the model is
                      compiled (URDF servos, --hold without gains: engine/robot/) */
} mr_spec_actuator;

/* One object on a tendon's path (mr_wrap_type): a joint with its coefficient (fixed
 * tendons), a site, a sphere or cylinder geom with an optional side site, or a pulley with
 * its divisor. Indices are the spec's. */
typedef struct mr_spec_wrap {
  mr_source src;
  int type;   /* mr_wrap_type; geoms are MR_WRAP_SPHERE until compile reads the geom type */
  int obj;    /* joint, site or geom; -1 for a pulley */
  int side;   /* side site of a geom, else -1 */
  double prm; /* joint coef or pulley divisor */
} mr_spec_wrap;

typedef struct mr_spec_tendon {
  mr_source src;
  const char *name;
  int spatial;           /* 1: spatial (sites, geoms, pulleys); 0: fixed (joints) */
  int wrapadr, nwrap;    /* its objects in spec->wraps */
  int limited, group, material;
  double range[2], margin, stiffness, damping, frictionloss, width;
  double springlength;   /* < 0: the length at qpos_spring */
  double solref_lim[2], solimp_lim[5];
  float rgba[4];
} mr_spec_tendon;

typedef struct mr_spec_equality {
  mr_source src;
  const char *name;
  int type;  /* mr_eq_type */
  int obj1, obj2; /* bodies (connect, weld; obj2 = 0 for world), joints (joint) or tendons
                     (tendon; obj2 -1 = none) */
  int active;
  double data[11];
  double solref[2], solimp[5];
} mr_spec_equality;

typedef struct mr_spec_pair {
  mr_source src;
  int geom1, geom2, condim;
  double friction[5], margin, solref[2], solimp[5];
} mr_spec_pair;

typedef struct mr_spec_exclude {
  mr_source src;
  int body1, body2;
} mr_spec_exclude;

typedef struct mr_spec_key {
  mr_source src;
  const char *name;
  double time;
  double *qpos; /* NULL: qpos0; else length key_nqpos (checked against nq at compile) */
  double *qvel; /* NULL: zeros */
  double *ctrl; /* NULL: zeros */
  double *act;  /* NULL: zeros */
  int nqpos, nqvel, nctrl, nact;
  int drop_to_floor; /* SRDF state of a floating robot without a base pose: lift the base so
                        that the lowest collision geometry touches z = 0 (engine/robot/) */
} mr_spec_key;

/* Growable array: data, count, capacity. */
#define MR_SPEC_ARRAY(type, name) \
  type *name;                     \
  int n##name, cap_##name

typedef struct mr_spec {
  const char *model_name;
  const char *file;  /* top-level file */
  int is_urdf;
  mr_option opt;
  int inertiafromgeom; /* 0 false, 1 true, 2 auto (only bodies without <inertial>) */
  int exactmeshinertia; /* 1 (Moreau's default): exact mesh volume and inertia; 0: MuJoCo
                           2.2's legacy estimate, asked for by exactmeshinertia="false" */
  int fitaabb;          /* primitives fitted to meshes: 0 the equivalent-inertia box, 1 the
                           mesh's bounding box */
  double settotalmass;  /* > 0: every body's mass and inertia scaled to make this total */
  int quiet;           /* suppress warnings */
  int mesh_mode;       /* MR_MESHES_*: which meshes compile reads and what it computes */

  MR_SPEC_ARRAY(mr_spec_body, bodies);
  MR_SPEC_ARRAY(mr_spec_joint, joints);
  MR_SPEC_ARRAY(mr_spec_geom, geoms);
  MR_SPEC_ARRAY(mr_spec_site, sites);
  MR_SPEC_ARRAY(mr_spec_camera, cameras);
  MR_SPEC_ARRAY(mr_spec_light, lights);
  MR_SPEC_ARRAY(mr_spec_mesh, meshes);
  MR_SPEC_ARRAY(mr_spec_material, materials);
  MR_SPEC_ARRAY(mr_spec_texture, textures);
  MR_SPEC_ARRAY(mr_spec_actuator, actuators);
  MR_SPEC_ARRAY(mr_spec_equality, equalities);
  MR_SPEC_ARRAY(mr_spec_pair, pairs);
  MR_SPEC_ARRAY(mr_spec_exclude, excludes);
  MR_SPEC_ARRAY(mr_spec_key, keys);
  MR_SPEC_ARRAY(mr_spec_tendon, tendons);
  MR_SPEC_ARRAY(mr_spec_wrap, wraps); /* every tendon's path, tendon after tendon */

  /* <compiler><lengthrange>: how muscles' length ranges are found (MuJoCo's mjLROpt) */
  struct {
    int mode;        /* 0 none, 1 muscle, 2 muscleuser, 3 all */
    int useexisting, uselimit;
    double accel, maxforce, timeconst, timestep, inttotal, interval, tolrange;
  } lengthrange;
  MR_SPEC_ARRAY(mr_spec_sensor, sensors);
  MR_SPEC_ARRAY(mr_spec_hfield, hfields);

  struct mr_spec_pool *pool; /* interned strings and key arrays */
  struct mr_spec_names *names; /* name lookup tables, built as lookups ask (spec_names.c) */
} mr_spec;

/* Creates a spec with the world body (index 0) and MuJoCo's default options
 * (timestep 0.002, gravity (0, 0, -9.81), Euler). */
mr_spec *mr_spec_create(const char *file);
void mr_spec_free(mr_spec *s);

/* Interns a string (or a copy of n doubles) for the spec's lifetime. */
const char *mr_spec_strdup(mr_spec *s, const char *str);
double *mr_spec_doubles(mr_spec *s, const double *v, int n);
int *mr_spec_ints(mr_spec *s, const int *v, int n);

/* Each adder appends a zero-initialised element with sensible defaults (identity quat,
 * unit rgba, MuJoCo's geom defaults: contype 1, conaffinity 1, condim 3, friction
 * (1, 0.005, 0.0001), density 1000, mass -1, solref (0.02, 1), solimp (0.9, 0.95, 0.001,
 * 0.5, 2), solmix 1) and returns its index; the element is spec->X[index]. */
int mr_spec_add_body(mr_spec *s, int parent, mr_source src);
int mr_spec_add_joint(mr_spec *s, int body, mr_source src);
int mr_spec_add_geom(mr_spec *s, int body, mr_source src);
int mr_spec_add_site(mr_spec *s, int body, mr_source src);
int mr_spec_add_camera(mr_spec *s, int body, mr_source src);
int mr_spec_add_light(mr_spec *s, int body, mr_source src);
int mr_spec_add_mesh(mr_spec *s, mr_source src);
int mr_spec_add_material(mr_spec *s, mr_source src);
int mr_spec_add_texture(mr_spec *s, mr_source src);
int mr_spec_add_actuator(mr_spec *s, mr_source src);
int mr_spec_add_equality(mr_spec *s, mr_source src);
int mr_spec_add_pair(mr_spec *s, mr_source src);
int mr_spec_add_exclude(mr_spec *s, mr_source src);
int mr_spec_add_key(mr_spec *s, mr_source src);
/* A tendon (spatial or fixed) with MuJoCo's defaults (springlength -1, width 0.003, gray);
 * its path objects are appended with mr_spec_add_wrap right after it. */
int mr_spec_add_tendon(mr_spec *s, int spatial, mr_source src);
int mr_spec_add_wrap(mr_spec *s, int tendon, int type, int obj, mr_source src);
int mr_spec_add_sensor(mr_spec *s, mr_source src);
int mr_spec_add_hfield(mr_spec *s, mr_source src);

/* Lookups by name (hashed, spec_names.c; used while parsing): -1 if absent. */
int mr_spec_find_body(const mr_spec *s, const char *name);
int mr_spec_find_joint(const mr_spec *s, const char *name);
int mr_spec_find_geom(const mr_spec *s, const char *name);
int mr_spec_find_mesh(const mr_spec *s, const char *name);
int mr_spec_find_material(const mr_spec *s, const char *name);
int mr_spec_find_texture(const mr_spec *s, const char *name);
int mr_spec_find_site(const mr_spec *s, const char *name);
int mr_spec_find_tendon(const mr_spec *s, const char *name);
int mr_spec_find_camera(const mr_spec *s, const char *name);
int mr_spec_find_actuator(const mr_spec *s, const char *name);
int mr_spec_find_hfield(const mr_spec *s, const char *name);
int mr_spec_find_sensor(const mr_spec *s, const char *name);
void mr_spec_names_free(mr_spec *s);

/* MuJoCo's rule: no two bodies (joints, geoms, sites, cameras, lights, meshes, materials,
 * textures, actuators, equalities, keyframes, tendons, sensors, hfields) share a name. 0, or -1 with "FILE:LINE:
 * repeated name 'x' in body (first at FILE:LINE)" in err. */
int mr_spec_check_unique_names(const mr_spec *s, char *err, int errlen);

/* Turns the spec into a model. On error returns NULL and writes "FILE:LINE: message". The
 * constants that need the dynamics (tendon_length0, a tendon_lengthspring left at -1,
 * actuator_length0, actuator_acc0, muscles' length ranges) are set afterwards by
 * mr_model_setconst (engine/setconst.h), which mr_model_load calls. */
mr_model *mr_spec_compile(mr_spec *s, char *err, int errlen);

/* Appends an actuator named name on joint (gear 1): a motor (ctrl is the force, within
 * +-effort), a position servo (kp; kd is added to the joint's damping, which the
 * integrators treat implicitly) or a velocity servo (kd as its gain). Gains of 0 mark
 * a servo whose gains are chosen from the mass matrix (auto_gains). effort > 0 limits the
 * force to +-effort. Returns the actuator's index, or -1 (out of memory). spec_servo.c */
int mr_spec_add_servo(mr_spec *s, mr_source src, const char *name, int kind, int joint,
                      double kp, double kd, double effort);

/* --hold: replaces the actuators by one position servo per hinge and slide joint, named
 * after the joint, with gains kp, kd (both 0: chosen later from the mass matrix) and the
 * joint's effort limit (else the force range of the actuator it replaces) as force range.
 * Returns 0, or -1 with err set (out of memory). engine/io/spec_servo.c */
int mr_spec_hold(mr_spec *s, double kp, double kd, char *err, int errlen);

/* Format-specific front ends (engine/mjcf*.c, engine/io/urdf.c). Return 0 or -1 with err set. */
int mr_mjcf_parse(mr_spec *s, const char *path, char *err, int errlen);
int mr_urdf_parse(mr_spec *s, const char *path, const mr_load_options *opt, char *err, int errlen);

#endif /* MR_SPEC_H */
