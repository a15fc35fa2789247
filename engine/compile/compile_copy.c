/* The parts of the model that the compiler passes through unchanged: sites, cameras,
 * lights, materials, textures, actuators, equalities, contact filters and keyframes. */
#include <string.h>

#include "compile.h"
#include "engine/core/mr_math.h"

static void mr_copy_attached(const mr_spec *s, mr_model *m) {
  for (int i = 0; i < m->nsite; i++) {
    const mr_spec_site *t = &s->sites[i];
    m->site_bodyid[i] = t->body;
    m->site_type[i] = t->type;
    mr_copy3(m->site_pos + 3 * i, t->pos);
    memcpy(m->site_quat + 4 * i, t->quat, 4 * sizeof(double));
    mr_quat_normalize(m->site_quat + 4 * i);
    mr_copy3(m->site_size + 3 * i, t->size);
    memcpy(m->site_rgba + 4 * i, t->rgba, 4 * sizeof(float));
  }
  for (int i = 0; i < m->ncam; i++) {
    const mr_spec_camera *k = &s->cameras[i];
    m->cam_bodyid[i] = k->body;
    mr_copy3(m->cam_pos + 3 * i, k->pos);
    memcpy(m->cam_quat + 4 * i, k->quat, 4 * sizeof(double));
    mr_quat_normalize(m->cam_quat + 4 * i);
    m->cam_fovy[i] = k->fovy;
  }
  for (int i = 0; i < m->nlight; i++) {
    const mr_spec_light *l = &s->lights[i];
    m->light_bodyid[i] = l->body;
    m->light_directional[i] = l->directional;
    mr_copy3(m->light_pos + 3 * i, l->pos);
    mr_copy3(m->light_dir + 3 * i, l->dir);
    mr_normalize3(m->light_dir + 3 * i);
    memcpy(m->light_diffuse + 3 * i, l->diffuse, 3 * sizeof(float));
  }
}

static void mr_copy_assets(const mr_spec *s, mr_model *m) {
  for (int i = 0; i < m->nmat; i++) {
    const mr_spec_material *a = &s->materials[i];
    memcpy(m->mat_rgba + 4 * i, a->rgba, 4 * sizeof(float));
    m->mat_emission[i] = a->emission;
    m->mat_specular[i] = a->specular;
    m->mat_shininess[i] = a->shininess;
    m->mat_reflectance[i] = a->reflectance;
    memcpy(m->mat_texrepeat + 2 * i, a->texrepeat, 2 * sizeof(float));
    m->mat_texid[i] = a->texture;
  }
  for (int i = 0; i < m->ntex; i++) {
    const mr_spec_texture *t = &s->textures[i];
    m->tex_type[i] = t->type;
    m->tex_builtin[i] = t->builtin;
    m->tex_width[i] = t->width;
    m->tex_height[i] = t->height;
    memcpy(m->tex_rgb1 + 3 * i, t->rgb1, 3 * sizeof(float));
    memcpy(m->tex_rgb2 + 3 * i, t->rgb2, 3 * sizeof(float));
  }
}

static void mr_copy_actuators(const mr_spec *s, mr_model *m) {
  for (int i = 0; i < m->nu; i++) {
    const mr_spec_actuator *a = &s->actuators[i];
    m->actuator_kind[i] = a->kind;
    m->actuator_trntype[i] = a->trntype;
    m->actuator_dyntype[i] = a->dyntype;
    m->actuator_gaintype[i] = a->gaintype;
    m->actuator_biastype[i] = a->biastype;
    m->actuator_trnid[2 * i] = a->joint;
    m->actuator_trnid[2 * i + 1] = a->trnid2;
    m->actuator_group[i] = a->group;
    m->actuator_ctrllimited[i] = a->ctrllimited;
    m->actuator_forcelimited[i] = a->forcelimited;
    m->actuator_actlimited[i] = a->actlimited;
    memcpy(m->actuator_dynprm + MR_NDYN * i, a->dynprm, MR_NDYN * sizeof(double));
    memcpy(m->actuator_gainprm + MR_NGAIN * i, a->gainprm, MR_NGAIN * sizeof(double));
    memcpy(m->actuator_biasprm + MR_NBIAS * i, a->biasprm, MR_NBIAS * sizeof(double));
    memcpy(m->actuator_ctrlrange + 2 * i, a->ctrlrange, 2 * sizeof(double));
    memcpy(m->actuator_forcerange + 2 * i, a->forcerange, 2 * sizeof(double));
    memcpy(m->actuator_actrange + 2 * i, a->actrange, 2 * sizeof(double));
    memcpy(m->actuator_lengthrange + 2 * i, a->lengthrange, 2 * sizeof(double));
    memcpy(m->actuator_gear + 6 * i, a->gear, 6 * sizeof(double));
    m->actuator_cranklength[i] = a->cranklength;
  }
}

static void mr_copy_equalities(const mr_spec *s, mr_model *m) {
  for (int i = 0; i < m->neq; i++) {
    const mr_spec_equality *e = &s->equalities[i];
    m->eq_type[i] = e->type;
    m->eq_obj1id[i] = e->obj1;
    /* The spec names the world body 0; the model says -1 for "the world" / "none". */
    int body_pair = e->type == MR_EQ_CONNECT || e->type == MR_EQ_WELD;
    m->eq_obj2id[i] = body_pair && e->obj2 == 0 ? -1 : e->obj2; /* joints, tendons: -1 none */
    m->eq_active[i] = e->active;
    memcpy(m->eq_data + 11 * i, e->data, 11 * sizeof(double));
    memcpy(m->eq_solref + 2 * i, e->solref, 2 * sizeof(double));
    memcpy(m->eq_solimp + 5 * i, e->solimp, 5 * sizeof(double));
  }
}

static void mr_copy_filters(const mr_compiler *c, mr_model *m) {
  const mr_spec *s = c->s;
  for (int i = 0; i < m->nexclude; i++) {
    m->exclude_body1[i] = s->excludes[i].body1;
    m->exclude_body2[i] = s->excludes[i].body2;
  }
  for (int i = 0; i < m->npair; i++) {
    const mr_spec_pair *p = &s->pairs[i];
    m->pair_geom1[i] = c->geom_new[p->geom1];
    m->pair_geom2[i] = c->geom_new[p->geom2];
    m->pair_condim[i] = p->condim;
    memcpy(m->pair_friction + 5 * i, p->friction, 5 * sizeof(double));
    m->pair_margin[i] = p->margin;
    memcpy(m->pair_solref + 2 * i, p->solref, 2 * sizeof(double));
    memcpy(m->pair_solimp + 5 * i, p->solimp, 5 * sizeof(double));
  }
}

static void mr_copy_keys(const mr_spec *s, mr_model *m) {
  for (int i = 0; i < m->nkey; i++) {
    const mr_spec_key *k = &s->keys[i];
    m->key_time[i] = k->time;
    double *qpos = m->key_qpos + (size_t)i * m->nq;
    if (k->qpos)
      memcpy(qpos, k->qpos, sizeof(double) * (size_t)m->nq);
    else
      memcpy(qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
    if (k->qvel) memcpy(m->key_qvel + (size_t)i * m->nv, k->qvel, sizeof(double) * (size_t)m->nv);
    if (k->ctrl) memcpy(m->key_ctrl + (size_t)i * m->nu, k->ctrl, sizeof(double) * (size_t)m->nu);
    if (k->act) memcpy(m->key_act + (size_t)i * m->na, k->act, sizeof(double) * (size_t)m->na);
  }
}

void mr_compile_copy(mr_compiler *c, mr_model *m) {
  mr_copy_attached(c->s, m);
  mr_copy_assets(c->s, m);
  mr_copy_actuators(c->s, m);
  mr_copy_equalities(c->s, m);
  mr_copy_filters(c, m);
  mr_copy_keys(c->s, m);
}
