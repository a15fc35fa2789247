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
