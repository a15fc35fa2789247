#include "mesh_file_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/core/file_read.h"

typedef struct mesh_file {
  struct aiFile file; /* first: the callbacks get it back */
  char *data;
  size_t size, pos;
} mesh_file;

static size_t mesh_file_read(struct aiFile *f, char *buf, size_t size, size_t count) {
  mesh_file *m = (mesh_file *)f;
  if (size == 0 || count == 0) return 0;
  size_t items = (m->size - m->pos) / size;
  if (items > count) items = count;
  memcpy(buf, m->data + m->pos, items * size);
  m->pos += items * size;
  return items;
}

static size_t mesh_file_write(struct aiFile *f, const char *buf, size_t size, size_t count) {
  (void)f, (void)buf, (void)size, (void)count;
  return 0;
}

static size_t mesh_file_tell(struct aiFile *f) { return ((mesh_file *)f)->pos; }

static size_t mesh_file_size(struct aiFile *f) { return ((mesh_file *)f)->size; }

static void mesh_file_flush(struct aiFile *f) { (void)f; }

static enum aiReturn mesh_file_seek(struct aiFile *f, size_t offset, enum aiOrigin origin) {
  mesh_file *m = (mesh_file *)f;
  size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->pos : m->size;
  if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END) return aiReturn_FAILURE;
  if (offset > m->size - base) return aiReturn_FAILURE;
  m->pos = base + offset;
  return aiReturn_SUCCESS;
}

/* The line of offset in text. */
static int mesh_line_of(const char *text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset; i++) line += text[i] == '\n';
  return line;
}

/* COLLADA index lists (<p>, <h>, <vcount>, <v>) hold whole numbers only. assimp 5.2 reads a
 * <p> with a loop that never advances past a character that is not a digit, appending to
 * its index array until memory runs out (12 GB and minutes for "<p>0 RK4 ...</p>", found
 * by the fuzzer): such a file is refused before assimp sees it. 0, or -1 with why. */
static int mesh_check_collada(const char *path, const char *text, size_t size, char *why, size_t n) {
  static const char *const tags[] = {"<p>", "<h>", "<vcount>", "<v>", "<p ", "<h ", "<vcount ", "<v ", NULL};
  for (int t = 0; tags[t]; t++) {
    size_t k = strlen(tags[t]);
    for (const char *p = text; (p = strstr(p, tags[t])) != NULL; p += k) {
      const char *c = strchr(p + k - 1, '>');
      if (!c || c[-1] == '/') continue;
      for (c++; *c && *c != '<'; c++) {
        if ((*c >= '0' && *c <= '9') || *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r' ||
            *c == '-' || *c == '+')
          continue;
        snprintf(why, n, "'%.200s' line %d: COLLADA index list %.*s> holds '%c', not a number", path,
                 mesh_line_of(text, (size_t)(c - text)), (int)k - 1, tags[t], *c);
        return -1;
      }
    }
  }
  (void)size;
  return 0;
}

static int mesh_is_collada(const char *path) {
  size_t n = strlen(path);
  return n >= 4 && strcasecmp(path + n - 4, ".dae") == 0;
}

static struct aiFile *mesh_file_open(struct aiFileIO *io, const char *path, const char *mode) {
  mr_mesh_file_io *f = (mr_mesh_file_io *)io;
  if (!path || !mode || strpbrk(mode, "wa+")) return NULL;
  char why[200], *data = NULL;
  size_t size = 0;
  long limit = f->bytes_left > 0 ? f->bytes_left : 0;
  if (mr_file_read_all(path, limit, &data, &size, why, (int)sizeof why)) {
    if (!f->why[0]) snprintf(f->why, sizeof f->why, "'%.200s' %s", path, why);
    return NULL;
  }
  if (mesh_is_collada(path) && mesh_check_collada(path, data, size, f->why, sizeof f->why)) {
    free(data);
    return NULL;
  }
  mesh_file *m = calloc(1, sizeof *m);
  if (!m) {
    free(data);
    return NULL;
  }
  f->bytes_left -= (long)size;
  f->bytes_read += (long)size;
  m->data = data;
  m->size = size;
  m->file.ReadProc = mesh_file_read;
  m->file.WriteProc = mesh_file_write;
  m->file.TellProc = mesh_file_tell;
  m->file.FileSizeProc = mesh_file_size;
  m->file.SeekProc = mesh_file_seek;
  m->file.FlushProc = mesh_file_flush;
  return &m->file;
}

static void mesh_file_close(struct aiFileIO *io, struct aiFile *file) {
  (void)io;
  mesh_file *m = (mesh_file *)file;
  if (!m) return;
  free(m->data);
  free(m);
}

void mr_mesh_file_io_init(mr_mesh_file_io *f, long max_bytes) {
  memset(f, 0, sizeof *f);
  f->io.OpenProc = mesh_file_open;
  f->io.CloseProc = mesh_file_close;
  f->bytes_left = max_bytes;
}
