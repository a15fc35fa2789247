/* libhdf5 and libassimp are opened when first needed (engine/core/lazy_lib.h), not when a
 * program linked with libmoreau starts: a meshless model loads, steps and records CSV with
 * neither in the process; recording HDF5 opens libhdf5 and the file reads back through the
 * same table; a model with an OBJ mesh opens libassimp. The moreau command starts without
 * them, and without libmpi, which only a batch under mpirun opens (app/mpi_api.h; its use
 * is test_batch_mpi's), and libglfw, which only a window opens (render/glfw_api.h; the
 * test_view_* tests use it). A library that cannot be opened ends the run with one line
 * before any file is written: exit status 2, or 1 for libglfw, as for any window that
 * cannot open. This test links none of them itself. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/record/record.h"
#include "engine/record/recording.h"
#include "moreau.h"
#include "mr_cli.h"
#include "mr_test.h"

#define HUMANOID MUJOCO_MODEL_DIR "/humanoid/humanoid.xml"
#define MESHES MOREAU_SOURCE_DIR "/tests/data/mjcf/mj_meshes.xml"

static char tmpdir[256];

static int object_named(struct dl_phdr_info *info, size_t size, void *part) {
  (void)size;
  return info->dlpi_name && strstr(info->dlpi_name, (const char *)part) != NULL;
}

/* Whether a shared object whose path holds `part` is loaded in this process. */
static int loaded(const char *part) { return dl_iterate_phdr(object_named, (void *)part); }

/* Steps the model, recording every state to path; the last state's qpos into last. */
static void record_run(const mr_model *m, const char *path, int steps, double *last) {
  char err[512];
  mr_data *d = mr_data_create(m);
  MR_REQUIRE(d != NULL);
  mr_recorder *r = mr_recorder_open(m, d, path, err, (int)sizeof err);
  MR_REQUIRE_MSG(r != NULL, "%s", err);
  MR_CHECK(mr_recorder_write(r, d, 0, err, (int)sizeof err) == 0);
  for (int s = 0; s < steps; s++) {
    mr_step(m, d);
    MR_CHECK(mr_recorder_write(r, d, 0, err, (int)sizeof err) == 0);
  }
  MR_CHECK_MSG(mr_recorder_finish(r, err, (int)sizeof err) == 0, "%s", err);
  memcpy(last, d->qpos, sizeof *last * (size_t)m->nq);
  mr_data_free(d);
}

static void check_library_use(void) {
  char err[512], csv[300], h5[300];
  mr_load_options lo = {0};
  lo.quiet = 1;
  MR_CHECK(!loaded("libhdf5") && !loaded("libassimp"));
  mr_model *m = mr_model_load(HUMANOID, &lo, err, (int)sizeof err);
  MR_REQUIRE_MSG(m != NULL, "%s", err);
  double *last = calloc((size_t)m->nq, sizeof *last);
  MR_REQUIRE(last != NULL);
  snprintf(csv, sizeof csv, "%s/humanoid.csv", tmpdir);
  record_run(m, csv, 50, last);
  MR_CHECK_MSG(!loaded("libhdf5"), "a CSV recording opened libhdf5");
  MR_CHECK_MSG(!loaded("libassimp"), "a meshless model opened libassimp");

  snprintf(h5, sizeof h5, "%s/humanoid.h5", tmpdir);
  record_run(m, h5, 50, last);
  MR_CHECK(loaded("libhdf5"));
  mr_recording rec;
  MR_CHECK_MSG(mr_recording_load(h5, m, &rec, err, (int)sizeof err) == 0, "%s", err);
  MR_CHECK(rec.nrows == 51 && rec.nq == m->nq);
  if (rec.nrows == 51 && rec.nq == m->nq)
    MR_CHECK(memcmp(rec.qpos + 50 * m->nq, last, sizeof *last * (size_t)m->nq) == 0);
  mr_recording_free(&rec);
  free(last);
  mr_model_free(m);

  MR_CHECK(!loaded("libassimp"));
  setenv("MOREAU_CACHE_DIR", "off", 1); /* the mesh is read from its file, not a cache */
  m = mr_model_load(MESHES, &lo, err, (int)sizeof err);
  MR_CHECK_MSG(m != NULL, "%s", err);
  MR_CHECK(loaded("libassimp"));
  mr_model_free(m);
}

/* The command's start loads neither: LD_DEBUG=files lists every object the loader opens. */
static void check_command_start(void) {
  char args[600];
  snprintf(args, sizeof args, "info '%s'", HUMANOID);
  cli_result r = mr_cli_run(tmpdir, "LD_DEBUG=files", args);
  MR_CHECK(r.status == 0);
  MR_CHECK_MSG(strstr(r.err, "libxml2") != NULL, "LD_DEBUG listed no libraries");
  MR_CHECK_MSG(strstr(r.err, "libhdf5") == NULL, "moreau info opened libhdf5");
  MR_CHECK_MSG(strstr(r.err, "libassimp") == NULL, "moreau info opened libassimp");
  MR_CHECK_MSG(strstr(r.err, "libmpi") == NULL, "moreau info opened libmpi");
  MR_CHECK_MSG(strstr(r.err, "libglfw") == NULL, "moreau info opened libglfw");
  cli_free(&r);
}

/* A library that cannot be opened: one line naming the file and the reason, exit 2, and no
 * recording left behind under either name. */
static void check_missing_library(void) {
  char args[800], out[300], part[320];
  snprintf(out, sizeof out, "%s/missing.h5", tmpdir);
  snprintf(part, sizeof part, "%s.part", out);
  snprintf(args, sizeof args, "run '%s' --steps 10 --quiet --record '%s'", HUMANOID, out);
  cli_result r = mr_cli_run(tmpdir, "MOREAU_HDF5_LIBRARY=/nonexistent/libhdf5_none.so", args);
  MR_CHECK(r.status == 2);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 &&
                   strstr(r.err, "missing.h5: cannot record or read HDF5") &&
                   strstr(r.err, "libhdf5_none.so"),
               "%s", r.err);
  MR_CHECK(!file_exists(out) && !file_exists(part));
  cli_free(&r);

  snprintf(args, sizeof args, "info '%s'", MESHES);
  r = mr_cli_run(tmpdir,
                 "MOREAU_CACHE_DIR=off MOREAU_ASSIMP_LIBRARY=/nonexistent/libassimp_none.so",
                 args);
  MR_CHECK(r.status == 2);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 &&
                   strstr(r.err, "hexprism.obj: cannot read mesh files") &&
                   strstr(r.err, "libassimp_none.so"),
               "%s", r.err);
  cli_free(&r);
#if MOREAU_TEST_HAVE_VIEWER
  /* a display named (never reached) and no libglfw: no screenshot either */
  char png[320];
  snprintf(png, sizeof png, "%s/shot.png", tmpdir);
  snprintf(args, sizeof args, "view '%s' --frames 1 --screenshot '%s'", HUMANOID, png);
  r = mr_cli_run(tmpdir, "DISPLAY=:97 MOREAU_GLFW_LIBRARY=/nonexistent/libglfw_none.so", args);
  MR_CHECK(r.status == 1);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strstr(r.err, "cannot open a window: GLFW") &&
                   strstr(r.err, "libglfw_none.so"),
               "%s", r.err);
  MR_CHECK(!file_exists(png));
  cli_free(&r);
#endif
  if (!MOREAU_HAVE_MPI) return;

  /* a batch that finds itself launched by mpirun (its environment says so) and no libmpi */
  char spec[300], dir[300], summary[320];
  snprintf(spec, sizeof spec, "%s/jobs.toml", tmpdir);
  snprintf(dir, sizeof dir, "%s/batch_out", tmpdir);
  FILE *f = fopen(spec, "w");
  MR_REQUIRE(f != NULL);
  fprintf(f, "model = \"%s\"\nsteps = 5\nseed = 1..2\n", HUMANOID);
  fclose(f);
  snprintf(args, sizeof args, "batch '%s' --out '%s'", spec, dir);
  r = mr_cli_run(tmpdir, "OMPI_COMM_WORLD_SIZE=1 MOREAU_MPI_LIBRARY=/nonexistent/libmpi_none.so",
                 args);
  MR_CHECK(r.status == 2);
  MR_CHECK_MSG(count_char(r.err, '\n') == 1 && strstr(r.err, "cannot start MPI") &&
                   strstr(r.err, "libmpi_none.so"),
               "%s", r.err);
  snprintf(summary, sizeof summary, "%s/summary.csv", dir);
  MR_CHECK(!file_exists(summary));
  cli_free(&r);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_lazy_libs");
  check_library_use();
  check_command_start();
  check_missing_library();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
