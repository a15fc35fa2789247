/* Replay of a recording (--replay): the recorded states shown with the usual camera, played
 * at the recording's own pace and scrubbed with the arrow keys, home and end. */
#include <string.h>

#include "viewer.h"

void mr_viewer_replay_show(mr_viewer *v) {
  const mr_recording *r = &v->replay;
  if (!v->replaying || r->nrows < 1) return;
  long i = v->replay_row;
  memcpy(v->d->qpos, r->qpos + (size_t)i * (size_t)r->nq, sizeof(double) * (size_t)r->nq);
  memcpy(v->d->qvel, r->qvel + (size_t)i * (size_t)r->nv, sizeof(double) * (size_t)r->nv);
  if (r->ctrl && r->nu == v->m->nu && r->nu > 0)
    memcpy(v->d->ctrl, r->ctrl + (size_t)i * (size_t)r->nu, sizeof(double) * (size_t)r->nu);
  v->d->time = r->time[i];
  v->d->ncon = 0; /* contacts of the recorded step are not in the file */
  mr_kinematics(v->m, v->d);
}

void mr_viewer_replay_seek(mr_viewer *v, long row) {
  if (!v->replaying) return;
  if (row < 0) row = 0;
  if (row >= v->replay.nrows) row = v->replay.nrows - 1;
  v->replay_row = row;
  v->replay_clock = v->replay.time[row];
  mr_viewer_replay_show(v);
}

void mr_viewer_replay_advance(mr_viewer *v, double sim_seconds) {
  const mr_recording *r = &v->replay;
  if (!v->replaying || sim_seconds <= 0) return;
  v->replay_clock += sim_seconds;
  long i = v->replay_row;
  while (i + 1 < r->nrows && r->time[i + 1] <= v->replay_clock) i++;
  if (i + 1 >= r->nrows) v->paused = 1; /* the end: stays on the last row */
  if (i != v->replay_row) {
    v->replay_row = i;
    mr_viewer_replay_show(v);
  }
}
