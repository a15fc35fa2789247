/* Internal to the MJCF parser (engine/mjcf*.c): the parse context, default classes and the
 * per-element "attribute sets" that defaults and elements are layered into.
 *
 * MuJoCo's defaults work by copying: a class starts as a copy of its parent class, each
 * element starts as a copy of its class, and attributes written in the file overwrite the
 * copy. Unit conversions (degrees) and derived quantities (fromto, limited="auto") are
 * applied once, when the element is finished, because a class may set the value while the
 * element sets the joint type that decides how to read it.
 */
#ifndef MR_MJCF_H
#define MR_MJCF_H

#include <libxml/tree.h>

#include "spec.h"

#define MJCF_MAX_INCLUDE_DEPTH 16
#define MJCF_PATH_MAX 4096

typedef struct mjcf_geom_def {
  mr_spec_geom g;
  int has_rgba;
  int has_fromto;
  double fromto[6];
  const char *mesh, *material, *hfield; /* names, resolved when the element is finished */
} mjcf_geom_def;

typedef struct mjcf_joint_def {
  mr_spec_joint j;
  int limited; /* 0 false, 1 true, 2 auto */
} mjcf_joint_def;

typedef struct mjcf_site_def {
  mr_spec_site s;
  int has_fromto;
  double fromto[6];
} mjcf_site_def;

typedef struct mjcf_mesh_def {
  double scale[3];
} mjcf_mesh_def;

typedef struct mjcf_material_def {
  mr_spec_material m;
  const char *texture;
} mjcf_material_def;

/* MuJoCo keeps one actuator default per class; motor, position, velocity, general, muscle,
 * cylinder, damper and intvelocity are shortcuts that write different fields of it. */
typedef struct mjcf_actuator_def {
  int gaintype, biastype, dyntype;             /* mr_gain_type, mr_bias_type, mr_dyn_type */
  int ctrllimited, forcelimited, actlimited;   /* 0 false, 1 true, 2 auto */
  int group;
  double gear[6], cranklength;
  double ctrlrange[2], forcerange[2], actrange[2], lengthrange[2];
  double dynprm[MR_NDYN], gainprm[MR_NGAIN], biasprm[MR_NBIAS];
} mjcf_actuator_def;

/* One tendon default per class, shared by spatial and fixed tendons. */
typedef struct mjcf_tendon_def {
  mr_spec_tendon t;
  int limited;          /* 0 false, 1 true, 2 auto */
  const char *material; /* name, resolved when the tendon is finished */
} mjcf_tendon_def;

typedef struct mjcf_equality_def {
  int active;
  double solref[2], solimp[5];
} mjcf_equality_def;

typedef struct mjcf_class {
  const char *name; /* points into the document */
  mjcf_geom_def geom;
  mjcf_joint_def joint;
  mjcf_site_def site;
  mr_spec_camera camera;
  mr_spec_light light;
  mjcf_mesh_def mesh;
  mjcf_material_def material;
  mjcf_actuator_def actuator;
  mjcf_tendon_def tendon;
  mjcf_equality_def equality;
  mr_spec_pair pair;
} mjcf_class;

typedef struct mjcf_ctx {
  mr_spec *s;
  char *err;
  int errlen;
  const char *file;          /* top-level file, interned */
  char dir[MJCF_PATH_MAX];   /* its directory, with a trailing '/' (or empty) */
  xmlDoc *doc;

  /* <compiler> */
  int degree;
  char eulerseq[4];
  int autolimits;
  const char *meshdir, *texturedir; /* interned, NULL if absent */

  mjcf_class *classes;
  int nclasses, capclasses;

  /* element names already warned about (one warning per name) */
  char **warned;
  int nwarned, capwarned;

  /* for keyframe ctrl: which of MuJoCo's actuators (in file order) were kept */
  unsigned char *act_kept;
  int nact, capact;
  char skipped_act[256]; /* names of actuators skipped for their transmission */
  int nskipped_act;
  mr_source skipped_act_src;
} mjcf_ctx;

/* ------------------------------------------------ mjcf.c: shared helpers */
mr_source mjcf_src(const mjcf_ctx *c, const xmlNode *node);
int mjcf_fail(mjcf_ctx *c, const xmlNode *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mjcf_warn_once(mjcf_ctx *c, const xmlNode *node, const char *what);
int mjcf_elem(const xmlNode *n); /* 1 if n is an element node */
/* Reads between min and max numbers into out (untouched when absent): count, 0 or -1. */
int mjcf_doubles(mjcf_ctx *c, const xmlNode *n, const char *name, double *out, int min,
                 int max);
int mjcf_floats(mjcf_ctx *c, const xmlNode *n, const char *name, float *out, int min, int max);
int mjcf_int(mjcf_ctx *c, const xmlNode *n, const char *name, int *out);
int mjcf_bool(mjcf_ctx *c, const xmlNode *n, const char *name, int *out);
/* false/true/auto into 0/1/2; 0 absent, 1 read, -1 error. */
int mjcf_tristate(mjcf_ctx *c, const xmlNode *n, const char *name, int *out);
/* A list of any length, copied into the spec's pool: 0 (absent or empty: *out NULL) or -1. */
int mjcf_vector(mjcf_ctx *c, const xmlNode *n, const char *name, double **out, int *count);
/* Interned copy of the attribute (NULL if absent). */
const char *mjcf_name(mjcf_ctx *c, const xmlNode *n, const char *name);
/* Any of quat/axisangle/euler/xyaxes/zaxis present sets quat: 1 set, 0 none, -1 error. */
int mjcf_orientation(mjcf_ctx *c, const xmlNode *n, double quat[4]);
/* MuJoCo's minimal rotation taking +z onto vec. */
void mjcf_z_to_quat(double quat[4], const double vec[3]);
/* The class an element uses: its class= attribute, else the inherited childclass. */
int mjcf_class_of(mjcf_ctx *c, const xmlNode *n, int inherited);
/* dir + file unless file is absolute; into out. */
void mjcf_join_path(char *out, size_t n, const char *dir, const char *sub, const char *file);

/* ------------------------------------------------ mjcf_include.c */
int mjcf_expand_includes(mjcf_ctx *c);

/* ------------------------------------------------ mjcf_defaults.c */
void mjcf_class_init_main(mjcf_class *cls);
int mjcf_parse_defaults(mjcf_ctx *c, const xmlNode *node, int parent);
int mjcf_find_class(const mjcf_ctx *c, const char *name);
int mjcf_geom_apply(mjcf_ctx *c, mjcf_geom_def *d, const xmlNode *n);
int mjcf_joint_apply(mjcf_ctx *c, mjcf_joint_def *d, const xmlNode *n);
int mjcf_site_apply(mjcf_ctx *c, mjcf_site_def *d, const xmlNode *n);
int mjcf_camera_apply(mjcf_ctx *c, mr_spec_camera *d, const xmlNode *n);
int mjcf_light_apply(mjcf_ctx *c, mr_spec_light *d, const xmlNode *n);
int mjcf_mesh_apply(mjcf_ctx *c, mjcf_mesh_def *d, const xmlNode *n);
int mjcf_material_apply(mjcf_ctx *c, mjcf_material_def *d, const xmlNode *n);
/* 1 if n names an actuator element (or its default): motor, position, velocity, general,
 * muscle, cylinder, damper, intvelocity. */
int mjcf_is_actuator(const xmlNode *n);
int mjcf_actuator_apply(mjcf_ctx *c, mjcf_actuator_def *d, const xmlNode *n);
int mjcf_tendon_apply(mjcf_ctx *c, mjcf_tendon_def *d, const xmlNode *n);
int mjcf_equality_apply(mjcf_ctx *c, mjcf_equality_def *d, const xmlNode *n);
int mjcf_pair_apply(mjcf_ctx *c, mr_spec_pair *d, const xmlNode *n);

/* ------------------------------------------------ mjcf_body.c */
/* Takes the <mujoco> root: every <worldbody> section is read together. */
int mjcf_parse_worldbody(mjcf_ctx *c, const xmlNode *root);

/* ------------------------------------------------ mjcf_assets.c */
int mjcf_parse_asset(mjcf_ctx *c, const xmlNode *node);

/* ------------------------------------------------ mjcf_actuator.c */
int mjcf_parse_actuator(mjcf_ctx *c, const xmlNode *node);

/* ------------------------------------------------ mjcf_tendon.c */
int mjcf_parse_tendon(mjcf_ctx *c, const xmlNode *node);
/* false/true/auto limited with a range: the resolved 0/1, or -1 (err set) when a range is
 * given without limited and without compiler autolimits, or the range is empty. */
int mjcf_resolve_limited(mjcf_ctx *c, const xmlNode *n, int limited, const double r[2],
                         const char *what);
/* ------------------------------------------------ mjcf_sensor.c */
int mjcf_parse_sensor(mjcf_ctx *c, const xmlNode *node);

/* ------------------------------------------------ mjcf_constraint.c */
int mjcf_parse_equality(mjcf_ctx *c, const xmlNode *node);
int mjcf_parse_contact(mjcf_ctx *c, const xmlNode *node);
int mjcf_parse_keyframe(mjcf_ctx *c, const xmlNode *node);

#endif /* MR_MJCF_H */
