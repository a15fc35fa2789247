/* Names in a spec: lookups in constant time, and MuJoCo's rule that two objects of one kind
 * never share a name.
 *
 * Parsers look names up while they read (a geom's mesh, an exclude's bodies, an actuator's
 * joint); a linear search made a file of 100k bodies and 100k excludes quadratic. Each kind
 * gets an open-addressing table that catches up with the spec's array when asked: every
 * element added since the last lookup is indexed then (the first of equal names wins, as a
 * linear search would find it). An element still unnamed when indexed waits on a list that
 * is looked through only when a name is not found. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

/* The kinds that have a lookup: X(kind, spec array). */
#define NAME_KIND_LIST(X) \
  X(BODY, bodies) X(JOINT, joints) X(GEOM, geoms) X(MESH, meshes) X(MATERIAL, materials) \
  X(TEXTURE, textures) X(SITE, sites) X(TENDON, tendons) X(CAMERA, cameras) \
  X(ACTUATOR, actuators) X(HFIELD, hfields) X(SENSOR, sensors)

enum {
#define NAME_ENUM(kind, arr) NAME_##kind,
  NAME_KIND_LIST(NAME_ENUM)
#undef NAME_ENUM
  NAME_KINDS
};

typedef struct name_index {
  int *slot; /* element index + 1; 0 empty */
  int cap;   /* a power of two, at least twice the entries */
  int used;
  int upto;  /* elements [0, upto) have been seen */
  int *pending, npending, cappending; /* seen while unnamed */
} name_index;

struct mr_spec_names {
  name_index kind[NAME_KINDS];
};

static int name_count(const mr_spec *s, int kind) {
  switch (kind) {
#define NAME_COUNT(kind, arr) case NAME_##kind: return s->n##arr;
    NAME_KIND_LIST(NAME_COUNT)
#undef NAME_COUNT
    default: return 0;
  }
}

static const char *name_of(const mr_spec *s, int kind, int i) {
  switch (kind) {
#define NAME_OF(kind, arr) case NAME_##kind: return s->arr[i].name;
    NAME_KIND_LIST(NAME_OF)
#undef NAME_OF
    default: return NULL;
  }
}

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The slot holding name, or the empty slot where it would go. */
static int *index_probe(const mr_spec *s, int kind, const name_index *x, const char *name) {
  uint32_t mask = (uint32_t)x->cap - 1;
  for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
    int *slot = &x->slot[i];
    if (*slot == 0 || strcmp(name_of(s, kind, *slot - 1), name) == 0) return slot;
  }
}

static int index_grow(const mr_spec *s, int kind, name_index *x) {
  int cap = x->cap ? 2 * x->cap : 64;
  int *old = x->slot, oldcap = x->cap;
  x->slot = calloc((size_t)cap, sizeof *x->slot);
  if (!x->slot) {
    x->slot = old;
    return -1;
  }
  x->cap = cap;
  for (int i = 0; i < oldcap; i++)
    if (old[i]) *index_probe(s, kind, x, name_of(s, kind, old[i] - 1)) = old[i];
  free(old);
  return 0;
}

static int index_insert(const mr_spec *s, int kind, name_index *x, int element) {
  if (2 * (x->used + 1) > x->cap && index_grow(s, kind, x)) return -1;
  int *slot = index_probe(s, kind, x, name_of(s, kind, element));
  if (*slot == 0) {
    *slot = element + 1;
    x->used++;
  } else if (element + 1 < *slot) {
    *slot = element + 1;
  }
  return 0;
}

static int index_pend(name_index *x, int element) {
  if (x->npending == x->cappending) {
    int cap = x->cappending ? 2 * x->cappending : 64;
    int *p = realloc(x->pending, (size_t)cap * sizeof *p);
    if (!p) return -1;
    x->pending = p;
    x->cappending = cap;
  }
  x->pending[x->npending++] = element;
  return 0;
}

/* Indexes the elements added since the last call. -1 when out of memory. */
static int index_catch_up(const mr_spec *s, int kind, name_index *x) {
  int n = name_count(s, kind);
  for (; x->upto < n; x->upto++) {
    const char *name = name_of(s, kind, x->upto);
    if (name ? index_insert(s, kind, x, x->upto) : index_pend(x, x->upto)) return -1;
  }
  return 0;
}

/* Indexes the waiting elements that have a name by now. */
static int index_named_pending(const mr_spec *s, int kind, name_index *x) {
  int kept = 0;
  for (int k = 0; k < x->npending; k++) {
    int e = x->pending[k];
    if (!name_of(s, kind, e)) x->pending[kept++] = e;
    else if (index_insert(s, kind, x, e)) return -1;
  }
  x->npending = kept;
  return 0;
}

static int linear_find(const mr_spec *s, int kind, const char *name) {
  int n = name_count(s, kind);
  for (int i = 0; i < n; i++)
    if (name_of(s, kind, i) && strcmp(name_of(s, kind, i), name) == 0) return i;
  return -1;
}

static int spec_find(const mr_spec *cs, int kind, const char *name) {
  if (!name) return -1;
  mr_spec *s = (mr_spec *)cs; /* the index is a cache: finding changes no element */
  if (!s->names) s->names = calloc(1, sizeof *s->names);
  name_index *x = s->names ? &s->names->kind[kind] : NULL;
  if (!x || index_catch_up(s, kind, x)) return linear_find(s, kind, name);
  int *slot = x->cap ? index_probe(s, kind, x, name) : NULL;
  if (slot && *slot) return *slot - 1;
  if (x->npending == 0) return -1;
  if (index_named_pending(s, kind, x)) return linear_find(s, kind, name);
  slot = x->cap ? index_probe(s, kind, x, name) : NULL;
  return slot && *slot ? *slot - 1 : -1;
}

void mr_spec_names_free(mr_spec *s) {
  if (!s->names) return;
  for (int k = 0; k < NAME_KINDS; k++) {
    free(s->names->kind[k].slot);
    free(s->names->kind[k].pending);
  }
  free(s->names);
  s->names = NULL;
}

#define NAME_FIND(kind, fn) \
  int mr_spec_find_##fn(const mr_spec *s, const char *name) { return spec_find(s, NAME_##kind, name); }
NAME_FIND(BODY, body)
NAME_FIND(JOINT, joint)
NAME_FIND(GEOM, geom)
NAME_FIND(MESH, mesh)
NAME_FIND(MATERIAL, material)
NAME_FIND(TEXTURE, texture)
NAME_FIND(SITE, site)
NAME_FIND(TENDON, tendon)
NAME_FIND(CAMERA, camera)
NAME_FIND(ACTUATOR, actuator)
NAME_FIND(HFIELD, hfield)
NAME_FIND(SENSOR, sensor)
#undef NAME_FIND

/* ------------------------------------------------------------------ repeated names */

/* The first element of one kind whose name an earlier one already has: its index and the
 * earlier one's, through a table of its own (the lookup index keeps only the first). */
typedef const char *(*name_getter)(const mr_spec *s, int i);

static int first_repeat(const mr_spec *s, int n, name_getter get, int *earlier) {
  int cap = 64;
  while (cap < 2 * n + 2) cap *= 2;
  int *slot = calloc((size_t)cap, sizeof *slot);
  if (!slot) return -2;
  int found = -1;
  uint32_t mask = (uint32_t)cap - 1;
  for (int e = 0; e < n && found < 0; e++) {
    const char *name = get(s, e);
    if (!name || !*name) continue;
    for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
      if (slot[i] == 0) {
        slot[i] = e + 1;
        break;
      }
      if (strcmp(get(s, slot[i] - 1), name) == 0) {
        found = e;
        *earlier = slot[i] - 1;
        break;
      }
    }
  }
  free(slot);
  return found;
}

#define NAME_GETTER(arr)                                                  \
  static const char *name_of_##arr(const mr_spec *s, int i) { return s->arr[i].name; } \
  static mr_source src_of_##arr(const mr_spec *s, int i) { return s->arr[i].src; }
NAME_GETTER(bodies)
NAME_GETTER(joints)
NAME_GETTER(geoms)
NAME_GETTER(sites)
NAME_GETTER(cameras)
NAME_GETTER(lights)
NAME_GETTER(meshes)
NAME_GETTER(materials)
NAME_GETTER(textures)
NAME_GETTER(actuators)
NAME_GETTER(tendons)
NAME_GETTER(sensors)
NAME_GETTER(hfields)
NAME_GETTER(equalities)
NAME_GETTER(keys)
#undef NAME_GETTER

int mr_spec_check_unique_names(const mr_spec *s, char *err, int errlen) {
  static const struct {
    const char *kind;
    name_getter name;
    mr_source (*src)(const mr_spec *, int);
    size_t count_offset;
  } kinds[] = {
#define KIND(word, arr) {word, name_of_##arr, src_of_##arr, offsetof(mr_spec, n##arr)}
      KIND("body", bodies),         KIND("joint", joints),     KIND("geom", geoms),
      KIND("site", sites),          KIND("camera", cameras),   KIND("light", lights),
      KIND("mesh", meshes),         KIND("material", materials), KIND("texture", textures),
      KIND("actuator", actuators),  KIND("equality", equalities), KIND("keyframe", keys),
      KIND("tendon", tendons),      KIND("sensor", sensors),   KIND("hfield", hfields),
#undef KIND
  };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    int n = *(const int *)(const void *)((const char *)s + kinds[k].count_offset), earlier = -1;
    int e = first_repeat(s, n, kinds[k].name, &earlier);
    if (e == -2) return mr_errorf(err, errlen, (mr_source){s->file, 1}, "out of memory");
    if (e < 0) continue;
    mr_source first = kinds[k].src(s, earlier);
    if (first.line <= 0) /* the world body, which no line declares */
      return mr_errorf(err, errlen, kinds[k].src(s, e), "repeated name '%s' in %s (the world's)",
                       kinds[k].name(s, e), kinds[k].kind);
    return mr_errorf(err, errlen, kinds[k].src(s, e), "repeated name '%s' in %s (first at %s:%d)",
                     kinds[k].name(s, e), kinds[k].kind, first.file ? first.file : s->file,
                     first.line);
  }
  return 0;
}
