/* Contact recording: see record_contacts.h. */
#include "record_contacts.h"

#include <stdlib.h>

#include "part_file.h"

struct mr_contact_recorder {
  mr_part_file out;
  long rows;
};

int mr_contact_recorder_check_path(const char *path, char *err, int errlen) {
  if (mr_path_has_extension(path, ".csv") == 0) return 0;
  snprintf(err, (size_t)errlen, "%s: contacts are recorded as CSV (use a .csv name)", path);
  return -1;
}

mr_contact_recorder *mr_contact_recorder_open(const char *path, char *err, int errlen) {
  if (mr_contact_recorder_check_path(path, err, errlen)) return NULL;
  mr_contact_recorder *r = calloc(1, sizeof *r);
  if (!r) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    return NULL;
  }
  if (mr_part_file_open(&r->out, path, err, errlen)) {
    free(r);
    return NULL;
  }
  fputs("step,time,geom1,geom2,pos_x,pos_y,pos_z,normal_x,normal_y,normal_z,dist,id\n",
        r->out.file);
  if (mr_part_file_check(&r->out, err, errlen)) {
    mr_contact_recorder_abort(r);
    return NULL;
  }
  return r;
}

int mr_contact_recorder_write(mr_contact_recorder *r, long step, double time, const mr_data *d,
                              char *err, int errlen) {
  for (int i = 0; i < d->ncon; i++) {
    const mr_contact *c = &d->contact[i];
    const double *p = c->pos, *n = c->frame;
    fprintf(r->out.file, "%ld,%.17g,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%u\n", step, time,
            c->geom1, c->geom2, p[0], p[1], p[2], n[0], n[1], n[2], c->dist, c->id);
    r->rows++;
  }
  return mr_part_file_check(&r->out, err, errlen);
}

int mr_contact_recorder_finish(mr_contact_recorder *r, char *err, int errlen) {
  int rc = mr_part_file_commit(&r->out, err, errlen);
  free(r);
  return rc;
}

void mr_contact_recorder_keep(mr_contact_recorder *r) {
  if (!r) return;
  mr_part_file_keep(&r->out);
  free(r);
}

void mr_contact_recorder_abort(mr_contact_recorder *r) {
  if (!r) return;
  mr_part_file_abort(&r->out);
  free(r);
}

long mr_contact_recorder_rows(const mr_contact_recorder *r) { return r ? r->rows : 0; }
