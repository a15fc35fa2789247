/* Bounded work per byte of input: a model file that loads takes time about proportional to
 * its size. Two MJCF files of the same shape, 20,000 and 200,000 bodies (each named, with a
 * geom; a contact exclude naming two of every 20, so name lookups are exercised: searched
 * linearly, the excludes alone would cost 2e9 comparisons), are
 * loaded by `moreau info`; the larger must cost at most 25 times the CPU time of the
 * smaller (linear is 10; the quadratic name lookups this replaced made it 100 and more) and
 * load within 1 GB. CPU time of the child (wait4), not wall time, so a busy machine does
 * not decide the result. The include bomb's bound is in test_hostile_input.c. */
#define _DEFAULT_SOURCE /* wait4 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mr_run.h"
#include "mr_test.h"

#ifdef MOREAU_SANITIZED
enum { RSS_LIMIT_KB = 3L * 1024 * 1024 }; /* ASan's shadow and redzones */
#else
enum { RSS_LIMIT_KB = 1024L * 1024 };
#endif

static char dir[256];

static void write_model(const char *path, int n) {
  FILE *f = fopen(path, "w");
  MR_REQUIRE(f != NULL);
  fputs("<mujoco model=\"scaling\">\n  <worldbody>\n", f);
  for (int i = 0; i < n; i++)
    fprintf(f, "    <body name=\"b%d\"><geom size=\".1\"/></body>\n", i);
  fputs("  </worldbody>\n  <contact>\n", f);
  for (int i = 0; i + 1 < n; i += 20) fprintf(f, "    <exclude body1=\"b%d\" body2=\"b%d\"/>\n", i, i + 1);
  fputs("  </contact>\n</mujoco>\n", f);
  fclose(f);
}

typedef struct measured {
  int status;
  double cpu_s;
  long rss_kb;
  long nbody;
} measured;

static measured info(const char *path) {
  char out[400];
  snprintf(out, sizeof out, "%s/info.json", dir);
  const char *args[] = {"info", path, "--json", NULL};
  mr_child c = mr_run_moreau(args, out, NULL, 600);
  measured m = {c.status, c.cpu_s, c.rss_kb, -1};
  char *json = mr_test_read_file(out);
  const char *key = json ? strstr(json, "\"nbody\": ") : NULL;
  if (key) m.nbody = strtol(key + 9, NULL, 10);
  free(json);
  unlink(out);
  return m;
}

int main(void) {
  mr_test_tmpdir(dir, sizeof dir, "scaling");
  const int sizes[2] = {20000, 200000};
  measured m[2];
  for (int k = 0; k < 2; k++) {
    char path[400];
    snprintf(path, sizeof path, "%s/bodies_%d.xml", dir, sizes[k]);
    write_model(path, sizes[k]);
    m[k] = info(path);
    printf("%7d bodies: exit %d, %.3f s CPU, %ld KB peak, nbody %ld\n", sizes[k], m[k].status,
           m[k].cpu_s, m[k].rss_kb, m[k].nbody);
    MR_CHECK_MSG(m[k].status == 0, "%d bodies: exit status %d", sizes[k], m[k].status);
    MR_CHECK_MSG(m[k].nbody == sizes[k] + 1, "%d bodies: info says nbody %ld", sizes[k], m[k].nbody);
    unlink(path);
  }
  double ratio = m[1].cpu_s / (m[0].cpu_s > 1e-3 ? m[0].cpu_s : 1e-3);
  printf("10x the bodies: %.1fx the CPU time\n", ratio);
  MR_CHECK_MSG(ratio < 25, "10x the bodies cost %.1fx the CPU time (linear: 10)", ratio);
  MR_CHECK_MSG(m[1].rss_kb < RSS_LIMIT_KB, "200k bodies: %ld KB peak", m[1].rss_kb);
  rmdir(dir);
  MR_TEST_END();
}
