/* Fast loading: what each command reads (info: no hull, no visual mesh; run: no visual
 * mesh), and the disk cache of compiled meshes: a warm load gives the model a cold load
 * gives, bit for bit; a damaged entry is a miss and is rewritten; concurrent writers leave
 * whole entries and no temporary files; MOREAU_CACHE_DIR=off writes nothing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_cli.h"
#include "mr_test.h"
#include "mr_test_model.h"
#include "moreau.h"

#define SOLO MOREAU_SHARED_DIR "/models/example-robot-data/robots/solo_description/robots/solo12.urdf"
#define UR5 MOREAU_SHARED_DIR "/models/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
#define BROKEN MOREAU_SOURCE_DIR "/tests/data/robot/visual_only_broken.urdf"

static char tmpdir[256], cache[600];

static mr_model *load(const char *path, int meshes) {
  return mr_test_load(path, &(mr_load_options){.meshes = meshes, .package_path = MOREAU_SHARED_DIR "/models"});
}

/* Entries (and temporary files) in the cache folder. */
static int count_files(const char *prefix) {
  DIR *d = opendir(cache);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

static int same_array(const void *a, const void *b, size_t bytes) {
  return bytes == 0 || memcmp(a, b, bytes) == 0;
}

/* Every mesh-derived array of two loads of one file, bit for bit. */
static int same_meshes(const mr_model *a, const mr_model *b) {
  if (a->nmesh != b->nmesh || a->nmeshvert != b->nmeshvert || a->nhullvert != b->nhullvert ||
      a->nmeshface != b->nmeshface || a->nhullface != b->nhullface || a->ngeom != b->ngeom)
    return 0;
  return same_array(a->mesh_vert, b->mesh_vert, sizeof(double) * 3 * (size_t)a->nmeshvert) &&
         same_array(a->mesh_normal, b->mesh_normal, sizeof(float) * 3 * (size_t)a->nmeshvert) &&
         same_array(a->mesh_face, b->mesh_face, sizeof(int) * 3 * (size_t)a->nmeshface) &&
         same_array(a->mesh_hullvert, b->mesh_hullvert, sizeof(double) * 3 * (size_t)a->nhullvert) &&
         same_array(a->mesh_hullface, b->mesh_hullface, sizeof(int) * 3 * (size_t)a->nhullface) &&
         same_array(a->geom_pos, b->geom_pos, sizeof(double) * 3 * (size_t)a->ngeom) &&
         same_array(a->geom_quat, b->geom_quat, sizeof(double) * 4 * (size_t)a->ngeom) &&
         same_array(a->geom_rbound, b->geom_rbound, sizeof(double) * (size_t)a->ngeom);
}

static unsigned char *read_bytes(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *buf = malloc(1 << 22);
  *n = buf ? fread(buf, 1, 1 << 22, f) : 0;
  fclose(f);
  return buf;
}

/* The first entry's path into path. */
static int first_entry(char *path, size_t len) {
  DIR *d = opendir(cache);
  MR_REQUIRE(d);
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d)) != NULL)
    if (strstr(e->d_name, ".mesh")) found = snprintf(path, len, "%s/%s", cache, e->d_name) > 0;
  closedir(d);
  return found;
}

static void test_what_is_read(void) {
  setenv("MOREAU_CACHE_DIR", "off", 1);
  /* ur5: .dae meshes to look at, .stl meshes to collide */
  mr_model *all = load(UR5, MR_MESHES_ALL), *run = load(UR5, MR_MESHES_COLLISION),
           *info = load(UR5, MR_MESHES_INSPECT);
  MR_REQUIRE(all && run && info);
  int visual_only = 0, collision = 0;
  for (int k = 0; k < all->nmesh; k++) {
    int collides = 0;
    for (int g = 0; g < all->ngeom; g++)
      collides |= all->geom_meshid[g] == k && all->geom_contype[g] != 0;
    visual_only += !collides;
    collision += collides;
    MR_CHECK(all->mesh_vertnum[k] > 0);
    MR_CHECK_MSG((run->mesh_vertnum[k] > 0) == collides, "mesh %d", k);
    MR_CHECK((info->mesh_vertnum[k] > 0) == collides);
    MR_CHECK((run->mesh_hullvertnum[k] > 0) == collides);
    MR_CHECK((all->mesh_hullvertnum[k] > 0) == collides); /* nothing hulls a drawn-only mesh */
  }
  MR_CHECK_MSG(visual_only > 0 && collision > 0, "ur5: %d visual, %d collision meshes", visual_only, collision);
  MR_CHECK(info->nhullvert == 0);
  /* what is read is the same either way */
  for (int k = 0; k < all->nmesh; k++)
    if (run->mesh_vertnum[k])
      MR_CHECK(same_array(all->mesh_vert + 3 * all->mesh_vertadr[k],
                          run->mesh_vert + 3 * run->mesh_vertadr[k],
                          sizeof(double) * 3 * (size_t)all->mesh_vertnum[k]));
  mr_model_free(all);
  mr_model_free(run);
  mr_model_free(info);

  /* a visual mesh no reader understands: info and run load, the viewer could not */
  char args[1024];
  snprintf(args, sizeof args, "info '%s'", BROKEN);
  cli_result r = mr_cli_run(tmpdir, "", args);
  MR_CHECK_MSG(r.status == 0, "info: %d %s", r.status, r.err);
  cli_free(&r);
  snprintf(args, sizeof args, "run '%s' --steps 10", BROKEN);
  r = mr_cli_run(tmpdir, "", args);
  MR_CHECK_MSG(r.status == 0, "run: %d %s", r.status, r.err);
  cli_free(&r);
  char err[1024];
  mr_load_options opt = {.quiet = 1};
  mr_model *m = mr_model_load(BROKEN, &opt, err, sizeof err);
  MR_CHECK(m == NULL && strstr(err, "broken_visual") != NULL);
  mr_model_free(m);
}

/* Where entries go: MOREAU_CACHE_DIR, else $XDG_CACHE_HOME/moreau; "off" writes nothing. */
static void test_location(void) {
  char xdg[400], dir[500], args[1024];
  snprintf(xdg, sizeof xdg, "%s/xdg", tmpdir);
  snprintf(dir, sizeof dir, "%s/moreau", xdg);
  snprintf(args, sizeof args, "XDG_CACHE_HOME='%s' MOREAU_CACHE_DIR=off", xdg);
  cli_result r = mr_cli_run(tmpdir, args, "info '" BROKEN "'");
  MR_CHECK(r.status == 0 && !file_exists(dir));
  cli_free(&r);
  snprintf(args, sizeof args, "XDG_CACHE_HOME='%s' env -u MOREAU_CACHE_DIR", xdg);
  r = mr_cli_run(tmpdir, args, "info '" BROKEN "'");
  MR_CHECK(r.status == 0 && file_exists(dir));
  cli_free(&r);
  char saved[sizeof cache];
  memcpy(saved, cache, sizeof cache);
  snprintf(cache, sizeof cache, "%s", dir);
  MR_CHECK(count_files("") == 1); /* the collision cube: info reads no visual mesh */
  /* info's entry has no hull; a run adds it to the same entry */
  setenv("MOREAU_CACHE_DIR", "off", 1);
  mr_model *cold = load(BROKEN, MR_MESHES_COLLISION);
  setenv("MOREAU_CACHE_DIR", dir, 1);
  mr_model *warm = load(BROKEN, MR_MESHES_COLLISION), *again = load(BROKEN, MR_MESHES_COLLISION);
  MR_CHECK(cold && warm && again && cold->nhullvert > 0);
  MR_CHECK(warm && same_meshes(cold, warm) && again && same_meshes(cold, again));
  MR_CHECK(count_files("") == 1);
  mr_model_free(cold);
  mr_model_free(warm);
  mr_model_free(again);
  memcpy(cache, saved, sizeof cache);
}

static void test_cache(void) {
  setenv("MOREAU_CACHE_DIR", "off", 1);
  mr_model *cold = load(SOLO, MR_MESHES_ALL);
  setenv("MOREAU_CACHE_DIR", cache, 1);
  mr_model *first = load(SOLO, MR_MESHES_ALL); /* writes the entries */
  int entries = count_files("");
  MR_CHECK_MSG(cold && entries == cold->nmesh, "%d entries for %d meshes", entries, cold ? cold->nmesh : -1);
  mr_model *warm = load(SOLO, MR_MESHES_ALL);
  MR_REQUIRE(cold && first && warm);
  MR_CHECK(same_meshes(cold, first));
  MR_CHECK(same_meshes(cold, warm));
  MR_CHECK_NEAR(mr_model_total_mass(warm), mr_model_total_mass(cold), 0);

  /* a flipped byte, then a truncated entry: misses, rewritten whole */
  char entry[600];
  MR_REQUIRE(first_entry(entry, sizeof entry));
  size_t ngood = 0, nfixed = 0;
  unsigned char *good = read_bytes(entry, &ngood);
  FILE *f = fopen(entry, "r+b");
  MR_REQUIRE(f && fseek(f, 200, SEEK_SET) == 0);
  fputc(0x5a ^ fgetc(f), f);
  fclose(f);
  mr_model *again = load(SOLO, MR_MESHES_ALL);
  MR_CHECK(again && same_meshes(cold, again));
  mr_model_free(again);
  unsigned char *fixed = read_bytes(entry, &nfixed);
  MR_CHECK(good && fixed && ngood > 200 && ngood == nfixed && memcmp(good, fixed, ngood) == 0);
  free(fixed);
  MR_REQUIRE(truncate(entry, 100) == 0);
  again = load(SOLO, MR_MESHES_ALL);
  MR_CHECK(again && same_meshes(cold, again));
  mr_model_free(again);
  free(good);
  mr_model_free(cold);
  mr_model_free(first);
  mr_model_free(warm);
}

/* Four commands filling an empty cache at once: every one succeeds, every entry is whole
 * (a later load hits and matches), nothing temporary is left. */
static void test_concurrent(void) {
  char cmd[4096];
  MR_REQUIRE(mr_test_rmdir(cache) == 0);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && for i in 1 2 3 4; do MOREAU_CACHE_DIR='%s' '%s' run '%s' --steps 1 --quiet "
           "--package-path '%s' >out$i 2>&1 & done; fail=0; for i in 1 2 3 4; do wait %%$i || fail=1; "
           "done; exit $fail",
           tmpdir, cache, MOREAU_BIN, SOLO, MOREAU_SHARED_DIR "/models");
  MR_CHECK(system(cmd) == 0);
  MR_CHECK(count_files(".") == 0); /* no .entry-XXXXXX left behind */
  setenv("MOREAU_CACHE_DIR", "off", 1);
  mr_model *cold = load(SOLO, MR_MESHES_COLLISION);
  setenv("MOREAU_CACHE_DIR", cache, 1);
  mr_model *warm = load(SOLO, MR_MESHES_COLLISION);
  MR_CHECK(cold && warm && same_meshes(cold, warm));
  mr_model_free(cold);
  mr_model_free(warm);
}

int main(void) {
  mr_test_tmpdir(tmpdir, sizeof tmpdir, "test_cache");
  snprintf(cache, sizeof cache, "%s/cache", tmpdir);
  test_what_is_read();
  test_location();
  test_cache();
  test_concurrent();
  mr_test_rmdir(tmpdir);
  MR_TEST_END();
}
