/* Standing on the floor: SRDF states that give no base pose, and floating URDF robots whose
 * qpos0 is buried in the floor (a URDF puts the root link at the origin, so the legs of a
 * walking robot start below z = 0 and the contact solver would throw it out). */
#include <math.h>
#include <string.h>

#include "collision/shape.h"
#include "robot.h"

/* Collision geometry of the robot: collidable, not a plane, not part of the world. */
static int mr_robot_collides(const mr_model *m, int g) {
  return (m->geom_contype[g] | m->geom_conaffinity[g]) != 0 &&
         m->geom_type[g] != MR_GEOM_PLANE && m->geom_bodyid[g] != 0;
}

double mr_robot_geom_lowest(const mr_model *m, const mr_data *d, int g) {
  static const double down[3] = {0, 0, -1};
  if (!mr_robot_collides(m, g)) return HUGE_VAL;
  if (m->geom_type[g] == MR_GEOM_MESH && m->mesh_vertnum[m->geom_meshid[g]] == 0) return HUGE_VAL;
  mr_shape shape;
  mr_shape_make(m, d, g, &shape);
  double p[3];
  mr_shape_support(&shape, down, p);
  return p[2];
}

double mr_robot_lowest_point(const mr_model *m, const mr_data *d) {
  double lowest = HUGE_VAL;
  for (int g = 0; g < m->ngeom; g++) lowest = fmin(lowest, mr_robot_geom_lowest(m, d, g));
  return lowest;
}

int mr_robot_base_qposadr(const mr_model *m) {
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] == MR_JOINT_FREE) return m->jnt_qposadr[j];
  return -1;
}

/* The lowest collision point at qpos: kinematics of qpos in d. */
static double mr_robot_lowest_at(const mr_model *m, mr_data *d, const double *qpos) {
  memcpy(d->qpos, qpos, sizeof(double) * (size_t)m->nq);
  mr_kinematics(m, d);
  return mr_robot_lowest_point(m, d);
}

void mr_robot_place(const mr_spec *s, mr_model *m, mr_data *d) {
  int base = mr_robot_base_qposadr(m);
  if (base < 0) return;
  for (int k = 0; k < m->nkey && k < s->nkeys; k++) {
    if (!s->keys[k].drop_to_floor) continue;
    double *qpos = m->key_qpos + (size_t)k * m->nq;
    double lowest = mr_robot_lowest_at(m, d, qpos);
    if (isfinite(lowest)) qpos[base + 2] -= lowest;
  }
  if (!s->is_urdf) return;
  int has_floor = 0;
  for (int g = 0; g < m->ngeom; g++)
    has_floor |= m->geom_bodyid[g] == 0 && m->geom_type[g] == MR_GEOM_PLANE;
  if (!has_floor) return;
  double lowest = mr_robot_lowest_at(m, d, m->qpos0);
  if (!(lowest < 0) || !isfinite(lowest)) return;
  m->qpos0[base + 2] -= lowest;
  m->qpos_spring[base + 2] = m->qpos0[base + 2];
  int body = m->jnt_bodyid[0];
  for (int j = 0; j < m->njnt; j++)
    if (m->jnt_type[j] == MR_JOINT_FREE) {
      body = m->jnt_bodyid[j];
      break;
    }
  m->body_pos[3 * body + 2] = m->qpos0[base + 2];
}

void mr_robot_floor_squares(mr_model *m, mr_data *d) {
  int mat = mr_name2id(m, MR_OBJ_MATERIAL, MR_FLOOR_MATERIAL);
  if (mat < 0) return;
  memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
  mr_kinematics(m, d);
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == 0 || m->geom_type[g] == MR_GEOM_PLANE) continue;
    for (int k = 0; k < 3; k++) {
      lo[k] = fmin(lo[k], d->geom_xpos[3 * g + k] - m->geom_rbound[g]);
      hi[k] = fmax(hi[k], d->geom_xpos[3 * g + k] + m->geom_rbound[g]);
    }
  }
  double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
  static const double squares[] = {0.1, 0.25, 0.5, 1};
  double square = 0.25;
  if (isfinite(size) && size > 0) {
    square = squares[0];
    for (int i = 1; i < 4; i++)
      if (fabs(log(squares[i] / (size / 4))) < fabs(log(square / (size / 4)))) square = squares[i];
  }
  /* the shader draws two checks per texture repeat */
  m->mat_texrepeat[2 * mat] = m->mat_texrepeat[2 * mat + 1] = (float)(1 / (2 * square));
}
