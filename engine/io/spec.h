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
  int mesh;        /* index into spec meshes, -1 if none */
  int material;    /* index into spec materials, -1 if none */
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
  const char *path; /* resolved file path (STL, OBJ, DAE) */
  double scale[3];
} mr_spec_mesh;

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
  int kind;   /* mr_actuator_kind */
  int joint;  /* joint index */
  double gear;
  int ctrllimited, forcelimited;
  double ctrlrange[2], forcerange[2];
  double gainprm[3], biasprm[3];
} mr_spec_actuator;

typedef struct mr_spec_equality {
  mr_source src;
  const char *name;
  int type;  /* mr_eq_type */
  int obj1, obj2; /* bodies (connect, weld; obj2 = 0 for world) or joints (joint; obj2 -1 = none) */
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
  int nqpos, nqvel, nctrl;
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
  int quiet;           /* suppress warnings */

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

/* Lookups by name (hashed, spec_names.c; used while parsing): -1 if absent. */
int mr_spec_find_body(const mr_spec *s, const char *name);
int mr_spec_find_joint(const mr_spec *s, const char *name);
int mr_spec_find_geom(const mr_spec *s, const char *name);
int mr_spec_find_mesh(const mr_spec *s, const char *name);
int mr_spec_find_material(const mr_spec *s, const char *name);
int mr_spec_find_texture(const mr_spec *s, const char *name);
void mr_spec_names_free(mr_spec *s);

/* MuJoCo's rule: no two bodies (joints, geoms, sites, cameras, lights, meshes, materials,
 * textures, actuators, equalities, keyframes) share a name. 0, or -1 with "FILE:LINE:
 * repeated name 'x' in body (first at FILE:LINE)" in err. */
int mr_spec_check_unique_names(const mr_spec *s, char *err, int errlen);

/* Turns the spec into a model. On error returns NULL and writes "FILE:LINE: message". */
mr_model *mr_spec_compile(mr_spec *s, char *err, int errlen);

/* Format-specific front ends (engine/mjcf*.c, engine/io/urdf.c). Return 0 or -1 with err set. */
int mr_mjcf_parse(mr_spec *s, const char *path, char *err, int errlen);
int mr_urdf_parse(mr_spec *s, const char *path, const mr_load_options *opt, char *err, int errlen);

#endif /* MR_SPEC_H */
