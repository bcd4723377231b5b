/* Every kind, every guarantee: one table of the kinds readerd reads (text, pictures, a tall
 * picture sent as tiles, PDFs, SVGs as text and rendered, notebooks, DOCX, XLSX, PPTX, and a
 * folder holding them all), each run through the same seven guarantees on each face of readerd:
 * the daemon over its Unix socket, the one-shot `readerd read`, and `readerd mcp`'s read_files
 * on stdio. (The VS Code
 * extension's face is left to the extension's own suite under vscode-client/, which drives the
 * daemon through the extension.)
 *
 * The guarantees, one function each:
 *   fence         a file of the kind outside the root, one reached by a symbolic link from
 *                 inside it and an excluded one are ACCESS_DENIED, nothing of them said
 *   hostile       a damaged copy gets its own per-file code, and the next read on the same
 *                 daemon (the same process, for the one-shot CLI) is answered
 *   price         the tokens the answer states for the file are within 10% of o200k_base's count
 *                 of the texts written for it (plus the providers' formula for its pictures)
 *   budget        with budget.tokens N, the answer's real tokens (o200k_base's count of what the
 *                 model reads, and its pictures) are at most 1.1 N
 *   plan          plan: true answers no content, the kind's type, and a whole-file estimate
 *                 within 10% of the real cost of the whole file as a read shows it
 *   continuation  following the continuation each answer names (offset, pages, skip) reads the
 *                 file to its end (a tall picture: its last tile) in a bounded number of
 *                 requests, nothing repeated or missed
 *   size          copies of the file after text that brings the answer near the face's cap: the
 *                 answer stays within the cap, the copies past it FILE_TOO_LARGE naming it
 *
 * One check case per (kind, face, guarantee), its test case named "kind.face.guarantee", so
 * that a failure names its cell. Then one per output format, "mix.FORMAT.answer" (cell_answer):
 * over a mix of kinds under budgets of 500 to 25,000, answerTokens within 5% of the answer's
 * real tokens in that format, and the answer within 1.1 times its budget. The o200k_base counts come from `node tests/tokens/count.mjs`
 * (the cells that need them skip, 77, without node or tests/tokens/node_modules) and are kept
 * by content in the run's folder, so that the faces share them. A row whose file comes from a
 * package that is not installed skips its cells, naming the package. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <libxml/parser.h>
#include <zlib.h>

#include "ipc/mcp/mcp.h"
#include "ipc/read-params.h"
#include "tests/lib/rd.h"
#include "tests/lib/skip.h"

/* The pattern every face excludes: the rows' "private-" copies. */
#define EXCLUDE "private-*"
/* images.maxTotalBytes at its maximum, and a budget nothing passes (for MCP, whose default is
 * 25,000 tokens), where a read must show whole files. */
#define BIG_IMAGES 1073741824
#define BIG_BUDGET 1000000000

/* How a row counts what an answer shows of its file, for the continuation guarantee. */
typedef enum {
  U_LINES,   /* shown='a-b' lines; `lines` the whole file's, when stated */
  U_CELLS,   /* shown='a-b' cells of a notebook; `cells` */
  U_SLIDES,  /* shown='a-b' slides; `slides` */
  U_ROWS,    /* "N: ..." rows of each <Sheet> */
  U_PAGES,   /* <Page number='n'>; `pages` */
  U_WHOLE,   /* a picture: all or nothing */
  U_TILES,   /* a tall picture's <Tile> elements, by where each starts; `tiles` */
  U_ENTRIES, /* a folder's files, listed or shown */
} Units;

/* One row of the table: a kind of file. */
typedef struct {
  const char *name;    /* in the cells' names */
  const char *file;    /* its name in the root, and in the folder */
  const char *source;  /* absolute, or under the source tree; NULL: written here */
  const char *package; /* the Debian package that ships the source, for a skip */
  const char *type;    /* the type its <Content> states */
  const char *option;  /* JSON members of its path object, or NULL */
  void (*corrupt)(const char *data, size_t len, const char *dst);
  const char *broken_code; /* what the damaged copy is answered */
  Units units;
  int64_t budget;      /* the budget guarantee's N */
  int64_t cont_budget; /* the budget the continuation is followed under (0: none) */
  int max_requests;    /* the continuation's bound */
} Kind;

static void corrupt_truncate(const char *data, size_t len, const char *dst);
static void corrupt_nul(const char *data, size_t len, const char *dst);

/* The table. Budgets are below each file's whole cost, so that they cut it (the small office
 * documents and the notebook cost 150 to 310 tokens as a whole answer); a picture sent whole is
 * never cut, so its continuation is a read without a budget, and its budget row leaves it out;
 * a tall one (written here) is sent as tiles and cut by tiles. */
static const Kind kinds[] = {
    {"text", "main.go", "/usr/share/go-1.19/src/fmt/print.go", "golang-1.19-src", "text", NULL,
     corrupt_nul, "UNSUPPORTED_FORMAT", U_LINES, 1500, 1500, 16},
    /* A name that is not UTF-8: named by its pathBytes (the CLI by its bytes). */
    {"text-bytes", "print\xff.go", "/usr/share/go-1.19/src/fmt/print.go", "golang-1.19-src", "text",
     NULL, corrupt_nul, "UNSUPPORTED_FORMAT", U_LINES, 1500, 1500, 16},
    {"png", "picture.png", "samples/readerd.png", NULL, "image", NULL, corrupt_truncate,
     "CORRUPTED_FILE", U_WHOLE, 150, 0, 1},
    {"jpeg", "photo.jpg", "/usr/libexec/installed-tests/gdk-pixbuf/bug725582-testrotate.jpg",
     "gdk-pixbuf-tests", "image", NULL, corrupt_truncate, "CORRUPTED_FILE", U_WHOLE, 300, 0, 1},
    {"pdf", "manual.pdf", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
     "shared-mime-info", "pdf", NULL, corrupt_truncate, "CORRUPTED_FILE", U_PAGES, 3000, 3000, 12},
    {"svg", "drawing.svg", NULL, NULL, "text", NULL, corrupt_nul, "UNSUPPORTED_FORMAT", U_LINES,
     800, 800, 12},
    {"svg-render", "drawing.svg", NULL, NULL, "image", "\"render\":true", corrupt_truncate,
     "CORRUPTED_FILE", U_WHOLE, 300, 0, 1},
    {"tiles", "scroll.png", NULL, NULL, "image", NULL, corrupt_truncate, "CORRUPTED_FILE", U_TILES,
     3000, 2000, 10},
    {"notebook", "analysis.ipynb", "tests/data/notebook/analysis.ipynb", NULL, "notebook", NULL,
     corrupt_truncate, "CORRUPTED_FILE", U_CELLS, 250, 250, 8},
    {"docx", "report.docx", "tests/data/office/report.docx", NULL, "document", NULL,
     corrupt_truncate, "CORRUPTED_FILE", U_LINES, 150, 150, 12},
    {"xlsx", "fruit.xlsx", "tests/data/office/fruit.xlsx", NULL, "document", NULL, corrupt_truncate,
     "CORRUPTED_FILE", U_ROWS, 150, 150, 8},
    {"pptx", "roadmap.pptx", "tests/data/office/roadmap.pptx", NULL, "document", NULL,
     corrupt_truncate, "CORRUPTED_FILE", U_SLIDES, 150, 150, 4},
    {"folder", "all", NULL, NULL, NULL, NULL, NULL, NULL, U_ENTRIES, 4000, 4000, 30},
};
#define FOLDER (&kinds[G_N_ELEMENTS(kinds) - 1])

typedef enum { FACE_DAEMON, FACE_CLI, FACE_MCP, N_FACES } Face;
static const char *const face_names[N_FACES] = {"daemon", "cli", "mcp"};

/* The run's files, made once in main() before the cells fork: root/ (the fence every face
 * reads in: each row's file, its damaged, excluded and linked copies, the folder, the filler),
 * outside/ (what the links point at), o200k/ (counts kept by content). */
static char *root, *outside, *o200k_dir;
/* The cell running, for messages. */
static char cell[96];

#define CELL_ASSERT(cond, ...) ck_assert_msg((cond), "%s: %s", cell, g_strdup_printf(__VA_ARGS__))

/* ---- the files ---------------------------------------------------------------------------- */

static void put(const char *path, const char *data, size_t len) {
  GError *err = NULL;

  if (!g_file_set_contents(path, data, (gssize)len, &err)) {
    fprintf(stderr, "cannot write %s: %s\n", path, err->message);
    exit(EXIT_FAILURE);
  }
}

/* The first half of the file: an archive, a picture, a PDF or a notebook cut off midway. */
static void corrupt_truncate(const char *data, size_t len, const char *dst) {
  put(dst, data, len / 2);
}

/* NUL bytes over part of the head: a text that is no longer text. */
static void corrupt_nul(const char *data, size_t len, const char *dst) {
  g_autofree char *copy = g_memdup2(data, len);

  memset(copy + 64, 0, MIN(len - 64, 32));
  put(dst, copy, len);
}

/* A drawing of some 90 lines: a bar chart with labels. */
static char *svg_drawing(void) {
  GString *s =
      g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"480\" height=\"320\" "
                   "viewBox=\"0 0 480 320\">\n"
                   "  <title>Requests served per hour</title>\n"
                   "  <rect x=\"0\" y=\"0\" width=\"480\" height=\"320\" fill=\"#fafafa\"/>\n");

  for (int i = 0; i < 28; i++) {
    int h = 40 + (i * 37) % 220;

    g_string_append_printf(
        s,
        "  <rect x=\"%d\" y=\"%d\" width=\"12\" height=\"%d\" fill=\"#%02x6fa8\"/>\n"
        "  <text x=\"%d\" y=\"312\" font-size=\"8\">%02d:00</text>\n"
        "  <!-- hour %d: %d requests -->\n",
        16 + i * 16, 290 - h, h, (i * 9) % 256, 16 + i * 16, i % 24, i, h * 13);
  }
  g_string_append(s, "</svg>\n");
  return g_string_free(s, FALSE);
}

static void png_chunk(GByteArray *out, const char *type, const uint8_t *data, size_t len) {
  uint8_t be[4] = {(uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
  uLong crc = crc32(0, (const Bytef *)type, 4);

  if (len > 0) /* a NULL buffer would restart the CRC */
    crc = crc32(crc, data, (uInt)len);
  g_byte_array_append(out, be, 4);
  g_byte_array_append(out, (const guint8 *)type, 4);
  g_byte_array_append(out, data, (guint)len);
  be[0] = (uint8_t)(crc >> 24), be[1] = (uint8_t)(crc >> 16), be[2] = (uint8_t)(crc >> 8);
  be[3] = (uint8_t)crc;
  g_byte_array_append(out, be, 4);
}

/* A scrolled page of text as a 600x6000 grey PNG: lines of glyph-like marks, 20 px apart, each
 * line's marks placed otherwise, so that a tile put in the wrong place would show. */
static char *tall_png(size_t *ret_len) {
  enum { W = 600, H = 6000 };
  static const uint8_t sig[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  uint8_t ihdr[13] = {0, 0, W >> 8, W & 0xff, 0, 0, H >> 8, H & 0xff, 8, 0, 0, 0, 0};
  size_t raw_len = (size_t)(W + 1) * H;
  g_autofree uint8_t *raw = g_malloc(raw_len), *z = NULL;
  uLongf z_len = compressBound((uLong)raw_len);
  GByteArray *out = g_byte_array_new();

  for (int y = 0; y < H; y++) {
    uint8_t *row = raw + (size_t)y * (W + 1);

    row[0] = 0;
    for (int x = 0; x < W; x++)
      row[1 + x] = y % 20 >= 4 && y % 20 < 15 && x % 6 < 4 && (x / 6 * 7 + y / 20 * 13) % 11 < 7
                       ? 30
                       : 250;
  }
  z = g_malloc(z_len);
  if (compress2(z, &z_len, raw, (uLong)raw_len, 6) != Z_OK) {
    fprintf(stderr, "the tall picture could not be compressed\n");
    exit(EXIT_FAILURE);
  }
  g_byte_array_append(out, sig, sizeof sig);
  png_chunk(out, "IHDR", ihdr, sizeof ihdr);
  png_chunk(out, "IDAT", z, z_len);
  png_chunk(out, "IEND", NULL, 0);
  *ret_len = out->len;
  return (char *)g_byte_array_free(out, FALSE);
}

/* The bytes of a row's file, or NULL when its package is not installed. g_free. */
static char *kind_data(const Kind *k, size_t *ret_len) {
  g_autofree char *path = NULL;
  char *data = NULL;
  gsize len = 0;

  if (k->units == U_TILES)
    return tall_png(ret_len);
  if (k->source == NULL) {
    data = svg_drawing();
    *ret_len = strlen(data);
    return data;
  }
  path = g_path_is_absolute(k->source)
             ? g_strdup(k->source)
             : g_build_filename(g_getenv("READERD_SOURCE_ROOT"), k->source, NULL);
  if (!g_file_get_contents(path, &data, &len, NULL))
    return NULL;
  *ret_len = len;
  return data;
}

static bool kind_present(const Kind *k) {
  g_autofree char *path = g_build_filename(root, k->file, NULL);

  return g_file_test(path, G_FILE_TEST_EXISTS);
}

/* "prefix-kind-file": the row's damaged, excluded or linked copy. g_free. */
static char *copy_name(const char *prefix, const Kind *k) {
  return g_strdup_printf("%s-%s-%s", prefix, k->name, k->file);
}

static void mkdirs(const char *path) {
  if (g_mkdir_with_parents(path, 0700) != 0) {
    perror(path);
    exit(EXIT_FAILURE);
  }
}

static void put_in(const char *dir, const char *name, const char *data, size_t len) {
  g_autofree char *path = g_build_filename(dir, name, NULL);

  put(path, data, len);
}

/* A row's file in the root (once: the svg rows share theirs), its excluded copy, a copy outside
 * and a link to it, its damaged copy, and the same in the folder and the damaged folder (the
 * first svg row's damage there: as text). */
static void world_add(const Kind *k, const char *data, size_t len) {
  g_autofree char *broken = copy_name("broken", k), *private = copy_name("private", k);
  g_autofree char *link = copy_name("link", k);
  g_autofree char *out_name = g_strdup_printf("%s-%s", k->name, k->file);
  g_autofree char *link_path = g_build_filename(root, link, NULL);
  g_autofree char *target = g_build_filename(outside, out_name, NULL);
  g_autofree char *broken_path = g_build_filename(root, broken, NULL);
  g_autofree char *path = g_build_filename(root, k->file, NULL);
  g_autofree char *folder = g_build_filename(root, FOLDER->file, k->file, NULL);
  g_autofree char *broken_folder =
      g_strdup_printf("%s/broken-folder-%s/%s", root, FOLDER->file, k->file);

  if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
    put(path, data, len);
    put(folder, data, len);
    k->corrupt(data, len, broken_folder);
  }
  put_in(root, private, data, len);
  put(target, data, len);
  if (symlink(target, link_path) != 0) {
    perror(link_path);
    exit(EXIT_FAILURE);
  }
  k->corrupt(data, len, broken_path);
}

/* Copies every file of the folder src into dst. */
static void copy_folder(const char *src, const char *dst) {
  g_autoptr(GDir) d = g_dir_open(src, 0, NULL);
  const char *name;

  mkdirs(dst);
  while (d != NULL && (name = g_dir_read_name(d)) != NULL) {
    g_autofree char *path = g_build_filename(src, name, NULL), *data = NULL;
    gsize len = 0;

    if (g_file_get_contents(path, &data, &len, NULL))
      put_in(dst, name, data, len);
  }
}

/* The folder's excluded copy (its name matches the exclude pattern), a copy outside the root
 * and a link to that from inside. */
static void world_add_folder(void) {
  g_autofree char *folder = g_build_filename(root, FOLDER->file, NULL);
  g_autofree char *private = g_strdup_printf("%s/private-folder-%s", root, FOLDER->file);
  g_autofree char *link = g_strdup_printf("%s/link-folder-%s", root, FOLDER->file);
  g_autofree char *target = g_strdup_printf("%s/folder-%s", outside, FOLDER->file);

  copy_folder(folder, private);
  copy_folder(folder, target);
  if (symlink(target, link) != 0) {
    perror(link);
    exit(EXIT_FAILURE);
  }
}

/* The filler of the size guarantee: a text file whose numbered lines fill a file's 100 KiB. */
static void world_add_filler(void) {
  GString *s = g_string_new(NULL);

  for (int i = 0; i < 2000; i++)
    g_string_append_printf(s, "%04d the quick brown fox jumps over the lazy dog once more\n", i);
  put_in(root, "zz-filler.txt", s->str, s->len);
  g_string_free(s, TRUE);
}

/* The mix of kinds the answer cells read (cell_answer): Go, English prose, JSON and Japanese
 * text from installed packages, and the table's notebook, office documents, PDF and pictures. A
 * file whose package is not installed is left out, named. */
#define MIX "mix"

static void world_add_mix(void) {
  static const char *const texts[][2] = {
      {"print.go", "/usr/share/go-1.19/src/fmt/print.go"},
      {"license.txt", "/usr/share/common-licenses/GPL-3"},
      {"synopsis.json", "/usr/share/doc/nodejs/api/synopsis.json"},
      {"tutor.ja.txt", "/usr/share/vim/vim90/tutor/tutor.ja.utf-8"},
  };
  static const char *const copies[] = {"picture.png", "photo.jpg",   "manual.pdf", "analysis.ipynb",
                                       "report.docx", "fruit.xlsx", "roadmap.pptx"};
  g_autofree char *dir = g_build_filename(root, MIX, NULL);

  mkdirs(dir);
  for (size_t i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autofree char *data = NULL;
    gsize len = 0;

    if (g_file_get_contents(texts[i][1], &data, &len, NULL))
      put_in(dir, texts[i][0], data, len);
    else
      printf("mix: %s is missing: left out of the mix\n", texts[i][1]);
  }
  for (size_t i = 0; i < G_N_ELEMENTS(copies); i++) {
    g_autofree char *src = g_build_filename(root, copies[i], NULL), *data = NULL;
    gsize len = 0;

    if (g_file_get_contents(src, &data, &len, NULL))
      put_in(dir, copies[i], data, len);
  }
}

static void world_make(const char *base) {
  g_autofree char *folder = NULL, *broken_folder = NULL;

  root = g_build_filename(base, "root", NULL);
  outside = g_build_filename(base, "outside", NULL);
  o200k_dir = g_build_filename(base, "o200k", NULL);
  folder = g_build_filename(root, FOLDER->file, NULL);
  broken_folder = g_strdup_printf("%s/broken-folder-%s", root, FOLDER->file);
  mkdirs(folder);
  mkdirs(broken_folder);
  mkdirs(outside);
  mkdirs(o200k_dir);
  for (size_t i = 0; i + 1 < G_N_ELEMENTS(kinds); i++) {
    size_t len = 0;
    g_autofree char *data = kind_data(&kinds[i], &len);

    if (data == NULL) {
      printf("%s: %s is missing (package %s): its cells will skip\n", kinds[i].name,
             kinds[i].source, kinds[i].package);
      continue;
    }
    world_add(&kinds[i], data, len);
  }
  world_add_folder();
  world_add_filler();
  world_add_mix();
}

/* The row of a file of the folder (the first row with that name: svg as text), by its path as
 * an answer spells it (a byte that is not UTF-8 as U+FFFD). */
static const Kind *kind_of_file(const char *path) {
  const char *name = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;

  for (size_t i = 0; i + 1 < G_N_ELEMENTS(kinds); i++) {
    g_autofree char *spelled = g_utf8_make_valid(kinds[i].file, -1);

    if (strcmp(spelled, name) == 0)
      return &kinds[i];
  }
  ck_abort_msg("%s: %s is no file of the table", cell, path);
  return NULL;
}

/* The files of the folder. */
static guint folder_files(void) {
  g_autofree char *folder = g_build_filename(root, FOLDER->file, NULL);
  g_autoptr(GDir) d = g_dir_open(folder, 0, NULL);
  guint n = 0;

  while (d != NULL && g_dir_read_name(d) != NULL)
    n++;
  return n;
}

/* ---- requests ------------------------------------------------------------------------------ */

/* One read: its paths (relative to the root, or absolute) and params. The first `plain` paths
 * take no per-path members; the others take the kind's option, offset and pages. */
typedef struct {
  const char *const *paths;
  guint n;
  guint plain;
  const Kind *kind;
  int64_t offset;    /* 0: none */
  const char *pages; /* NULL: none */
  int64_t budget;    /* 0: none (MCP: its default, or BIG_BUDGET with big) */
  int64_t skip;
  bool plan;
  bool big;   /* images.maxTotalBytes at its maximum; for MCP a budget nothing passes */
  bool light; /* a huge answer: taken apart without the library's checks */
  const char *format; /* NULL: the face's own (xml; MCP's blocks) */
} Req;

/* A path's member: "path":"..." or, for a name that is not UTF-8, "pathBytes":"..." (the
 * table's names hold no UTF-8 beyond ASCII: every other byte is spelled \xHH). g_free. */
static char *path_member(const char *path) {
  GString *b;

  if (g_utf8_validate(path, -1, NULL)) {
    g_autofree char *q = rd_json_quote(path);

    return g_strdup_printf("\"path\":%s", q);
  }
  b = g_string_new(NULL);
  for (const unsigned char *c = (const unsigned char *)path; *c != '\0'; c++)
    if (*c == '\\')
      g_string_append(b, "\\\\");
    else if (*c >= 0x80 || *c < 0x20)
      g_string_append_printf(b, "\\x%02x", *c);
    else
      g_string_append_c(b, (char)*c);
  g_autofree char *spelled = g_string_free(b, FALSE), *q = rd_json_quote(spelled);
  return g_strdup_printf("\"pathBytes\":%s", q);
}

static char *req_params(const Req *q, Face f) {
  GString *s = g_string_new("{\"paths\":[");

  for (guint i = 0; i < q->n; i++) {
    g_autofree char *path = path_member(q->paths[i]);
    bool members = i >= q->plain && (q->kind->option != NULL || q->offset > 0 || q->pages != NULL);

    if (i > 0)
      g_string_append_c(s, ',');
    if (!members && g_str_has_prefix(path, "\"path\":")) {
      g_string_append(s, path + strlen("\"path\":"));
      continue;
    }
    g_string_append_printf(s, "{%s", path);
    if (q->kind->option != NULL)
      g_string_append_printf(s, ",%s", q->kind->option);
    if (q->offset > 0)
      g_string_append_printf(s, ",\"offset\":%" G_GINT64_FORMAT, q->offset);
    if (q->pages != NULL)
      g_string_append_printf(s, ",\"pages\":\"%s\"", q->pages);
    g_string_append_c(s, '}');
  }
  g_string_append_c(s, ']');
  if (f == FACE_DAEMON)
    g_string_append(s, ",\"expand\":true");
  if (q->budget > 0)
    g_string_append_printf(s, ",\"budget\":{\"tokens\":%" G_GINT64_FORMAT "}", q->budget);
  else if (q->big && f == FACE_MCP)
    g_string_append_printf(s, ",\"budget\":{\"tokens\":%d}", BIG_BUDGET);
  if (q->skip > 0)
    g_string_append_printf(s, ",\"skip\":%" G_GINT64_FORMAT, q->skip);
  if (q->plan)
    g_string_append(s, ",\"plan\":true");
  if (q->format != NULL)
    g_string_append_printf(s, ",\"format\":\"%s\"", q->format);
  if (q->big)
    g_string_append_printf(s, ",\"images\":{\"maxTotalBytes\":%d}", BIG_IMAGES);
  g_string_append_c(s, '}');
  return g_string_free(s, FALSE);
}

/* `readerd read --json` with the same request: the kind's options apply to every path. */
static GPtrArray *req_argv(const Req *q) {
  GPtrArray *a = g_ptr_array_new_with_free_func(g_free);

  g_ptr_array_add(a, g_strdup(rd_readerd()));
  g_ptr_array_add(a, g_strdup("read"));
  g_ptr_array_add(a, g_strdup("--json"));
  g_ptr_array_add(a, g_strdup("--root"));
  g_ptr_array_add(a, g_strdup(root));
  g_ptr_array_add(a, g_strdup("--exclude"));
  g_ptr_array_add(a, g_strdup(EXCLUDE));
  if (q->budget > 0)
    g_ptr_array_add(a, g_strdup_printf("--budget=%" G_GINT64_FORMAT, q->budget));
  if (q->skip > 0)
    g_ptr_array_add(a, g_strdup_printf("--skip=%" G_GINT64_FORMAT, q->skip));
  if (q->plan)
    g_ptr_array_add(a, g_strdup("--plan"));
  if (q->offset > 0)
    g_ptr_array_add(a, g_strdup_printf("--offset=%" G_GINT64_FORMAT, q->offset));
  if (q->pages != NULL)
    g_ptr_array_add(a, g_strdup_printf("--pages=%s", q->pages));
  if (q->kind->option != NULL && strstr(q->kind->option, "\"render\":true") != NULL)
    g_ptr_array_add(a, g_strdup("--render"));
  if (q->big)
    g_ptr_array_add(a, g_strdup_printf("--max-image-bytes=%d", BIG_IMAGES));
  g_ptr_array_add(a, g_strdup("--"));
  for (guint i = 0; i < q->n; i++)
    g_ptr_array_add(a, g_strdup(q->paths[i]));
  g_ptr_array_add(a, NULL);
  return a;
}

/* ---- answers ------------------------------------------------------------------------------- */

/* What a face answered, in the same shape whatever the face. */
typedef struct {
  RdResult *res;       /* daemon and CLI: the result, checked by the test library; else NULL */
  JsonNode *msg;       /* MCP: the response */
  char *text;          /* what the model reads: result.xml, or MCP's text blocks joined */
  size_t wire;         /* the answer's bytes as sent */
  xmlDocPtr doc;       /* MCP: its text blocks in a root element of this test's */
  GPtrArray *contents; /* the <Content> elements, in order (into res or doc) */
  xmlNodePtr summary;  /* the budget's <Omitted> summary, or NULL */
  GPtrArray *pictures; /* GBytes: the pictures sent, by image index (none when read light) */
  GArray *b64;         /* size_t: each picture's base64 length, by image index */
  int64_t meta_chars;  /* MCP: _meta["anthropic/maxResultSizeChars"], 0 when absent */
} Answer;

static void answer_free(Answer *a) {
  if (a == NULL)
    return;
  rd_result_free(a->res);
  if (a->msg != NULL)
    json_node_unref(a->msg);
  if (a->doc != NULL)
    xmlFreeDoc(a->doc);
  if (a->res == NULL && a->contents != NULL)
    g_ptr_array_free(a->contents, TRUE);
  g_ptr_array_free(a->pictures, TRUE);
  g_array_free(a->b64, TRUE);
  g_free(a->text);
  g_free(a);
}

static Answer *answer_of_result(RdResult *res, size_t wire) {
  Answer *a = g_new0(Answer, 1);

  a->res = res;
  a->text = g_strdup(json_object_get_string_member(res->result, "xml"));
  a->wire = wire;
  a->contents = res->contents;
  a->summary = res->summary;
  a->pictures = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  a->b64 = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (guint k = 0; k < json_array_get_length(res->images); k++) {
    JsonObject *img = json_array_get_object_element(res->images, k);
    size_t len = strlen(json_object_get_string_member(img, "data"));

    g_ptr_array_add(a->pictures, rd_image_bytes(res, k));
    g_array_append_val(a->b64, len);
  }
  return a;
}

/* The <Content> elements and the summary under the XML's root. */
static void answer_elements(Answer *a) {
  a->contents = g_ptr_array_new();
  for (xmlNodePtr n = xmlDocGetRootElement(a->doc)->children; n != NULL; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (strcmp((const char *)n->name, "Content") == 0)
      g_ptr_array_add(a->contents, n);
    else if (strcmp((const char *)n->name, "Omitted") == 0)
      a->summary = n;
  }
}

/* A result object of tens of MiB taken apart without the library's checks (schema, mirror),
 * which would cost seconds: its XML parsed, its pictures' base64 measured, not decoded. */
static Answer *answer_light(JsonNode *msg, JsonObject *result, size_t wire) {
  Answer *a = g_new0(Answer, 1);
  JsonArray *images = json_object_get_array_member(result, "images");

  a->msg = msg;
  a->wire = wire;
  a->text = g_strdup(json_object_get_string_member(result, "xml"));
  a->pictures = g_ptr_array_new();
  a->b64 = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (guint k = 0; k < json_array_get_length(images); k++) {
    size_t len =
        strlen(json_object_get_string_member(json_array_get_object_element(images, k), "data"));

    g_array_append_val(a->b64, len);
  }
  a->doc = xmlReadMemory(a->text, (int)strlen(a->text), "result.xml", NULL,
                         XML_PARSE_NONET | XML_PARSE_HUGE);
  CELL_ASSERT(a->doc != NULL, "the result's xml does not parse");
  answer_elements(a);
  return a;
}

/* An MCP tools/call response: its text blocks joined, each image block decoded. */
static Answer *answer_of_mcp(JsonNode *msg, size_t wire, bool light) {
  Answer *a = g_new0(Answer, 1);
  JsonObject *result = rd_result_of(msg);
  JsonArray *blocks = json_object_get_array_member(result, "content");
  GString *text = g_string_new(NULL);
  g_autofree char *xml = NULL;

  a->msg = msg;
  a->wire = wire;
  a->pictures = g_ptr_array_new_with_free_func((GDestroyNotify)g_bytes_unref);
  a->b64 = g_array_new(FALSE, FALSE, sizeof(size_t));
  for (guint i = 0; i < json_array_get_length(blocks); i++) {
    JsonObject *b = json_array_get_object_element(blocks, i);
    const char *type = json_object_get_string_member(b, "type");

    if (strcmp(type, "text") == 0) {
      g_string_append(text, json_object_get_string_member(b, "text"));
    } else {
      const char *data = json_object_get_string_member(b, "data");
      size_t len = strlen(data);
      gsize n = 0;

      CELL_ASSERT(strcmp(type, "image") == 0, "a content block of type %s", type);
      g_array_append_val(a->b64, len);
      if (!light) {
        guchar *bytes = g_base64_decode(data, &n);

        g_ptr_array_add(a->pictures, g_bytes_new_take(bytes, n));
      }
    }
  }
  a->text = g_string_free(text, FALSE);
  CELL_ASSERT(!json_object_get_boolean_member_with_default(result, "isError", FALSE),
              "read_files answered an error: %.400s", a->text);
  if (json_object_has_member(result, "_meta"))
    a->meta_chars = json_object_get_int_member_with_default(
        json_object_get_object_member(result, "_meta"), "anthropic/maxResultSizeChars", 0);
  xml = g_strdup_printf("<ReadResults>%s</ReadResults>", a->text);
  a->doc = xmlReadMemory(xml, (int)strlen(xml), "mcp.xml", NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
  CELL_ASSERT(a->doc != NULL, "read_files' text blocks are not XML elements: %.400s", a->text);
  answer_elements(a);
  return a;
}

/* ---- the faces ---------------------------------------------------------------------------- */

/* A face ready to read: a daemon and a connection fenced to the root, the CLI (nothing kept), or
 * a `readerd mcp --root` process spoken to over pipes. */
typedef struct {
  Face face;
  RdDaemon *dmn;
  RdConn *conn;
  GPid pid;  /* MCP */
  char *dir; /* MCP: its stderr's folder */
  char *log;
} Session;

/* Fails the cell when a sanitizer or UBSan reported on a face's stderr. */
static void check_stderr_clean(const char *what, const char *err) {
  CELL_ASSERT(strstr(err, "Sanitizer") == NULL && strstr(err, "runtime error:") == NULL,
              "%s reported on stderr:\n%s", what, err);
}

static void mcp_open(Session *s) {
  int in_p[2], out_p[2], log_fd;
  const char *argv[] = {rd_readerd(), "mcp", "--root", root, "--exclude", EXCLUDE, NULL};
  JsonNode *m;

  s->dir = rd_tmpdir();
  s->log = g_build_filename(s->dir, "stderr.log", NULL);
  log_fd = open(s->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge(log_fd, 0);
  ck_assert_int_eq(pipe2(in_p, O_CLOEXEC), 0);
  ck_assert_int_eq(pipe2(out_p, O_CLOEXEC), 0);
  s->pid = rd_spawn(root, argv, in_p[0], out_p[1], log_fd);
  close(in_p[0]);
  close(out_p[1]);
  close(log_fd);
  s->conn = rd_conn_new_fds(out_p[0], in_p[1]);
  m = rd_conn_call(s->conn, "initialize",
                   "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                   "\"clientInfo\":{\"name\":\"test-kinds\",\"version\":\"1\"}}");
  rd_result_of(m);
  json_node_unref(m);
  rd_conn_notify(s->conn, "notifications/initialized", NULL);
}

static Session *session_open(Face f) {
  Session *s = g_new0(Session, 1);
  g_autofree char *q = rd_json_quote(root);
  g_autofree char *params = NULL;
  JsonNode *m;

  s->face = f;
  if (f == FACE_MCP) {
    mcp_open(s);
  } else if (f == FACE_DAEMON) {
    s->dmn = rd_daemon_start();
    s->conn = rd_conn_new(s->dmn->sock);
    params = g_strdup_printf(
        "{\"rootPath\":%s,\"confineToRoot\":true,\"exclude\":[\"" EXCLUDE "\"]}", q);
    m = rd_conn_call(s->conn, "initialize", params);
    rd_result_of(m);
    json_node_unref(m);
  }
  return s;
}

/* Ends the session: the daemon stopped (exit 0, no sanitizer report), readerd mcp's stdin
 * closed (exit 0, a clean stderr). */
static void session_close(Session *s) {
  if (s->face == FACE_DAEMON) {
    rd_conn_free(s->conn);
    rd_daemon_stop(s->dmn);
    rd_daemon_free(s->dmn);
  } else if (s->face == FACE_MCP) {
    int status = 0;
    g_autofree char *err = NULL;

    rd_conn_close_write(s->conn);
    CELL_ASSERT(rd_wait_pid(s->pid, 30000, &status), "readerd mcp did not exit with its stdin");
    CELL_ASSERT(rd_exit_code(status) == 0, "readerd mcp exited %d", rd_exit_code(status));
    g_file_get_contents(s->log, &err, NULL, NULL);
    check_stderr_clean("readerd mcp", err != NULL ? err : "");
    rd_conn_free(s->conn);
    rd_rmtree(s->dir);
    g_free(s->dir);
    g_free(s->log);
  }
  g_free(s);
}

/* The raw line answering request `key` (nothing else is in flight on these sessions but the
 * notifications a server may send). */
static char *recv_answer(RdConn *c, const char *key) {
  for (;;) {
    char *line = NULL;
    int r = rd_conn_recv_line(c, 120000, &line);
    g_autofree char *id = NULL;
    JsonNode *m;

    CELL_ASSERT(r == 1, "no answer to %s: %s", key, r == 0 ? "end of stream" : g_strerror(-r));
    if (strstr(line, "\"id\"") == NULL) {
      g_free(line);
      continue;
    }
    m = rd_json_parse(line, strlen(line));
    id = rd_msg_id_key(m);
    json_node_unref(m);
    if (strcmp(id, key) == 0)
      return line;
    g_free(line);
  }
}

static Answer *session_read(Session *s, const Req *q) {
  if (s->face == FACE_CLI) {
    g_autoptr(GPtrArray) argv = req_argv(q);
    RdRun run;
    RdResult *res;

    rd_run(root, (const char *const *)argv->pdata, NULL, 0, 120000, &run);
    check_stderr_clean("readerd read", run.err);
    CELL_ASSERT(run.code == 0 || run.code == 1, "readerd read exited %d: %s", run.code, run.err);
    if (q->light) {
      JsonNode *msg = rd_json_parse(run.out, run.out_len);
      Answer *a = answer_light(msg, json_node_get_object(msg), run.out_len);

      rd_run_clear(&run);
      return a;
    }
    res = rd_result_from_json(run.out, run.out_len);
    Answer *a = answer_of_result(res, run.out_len);
    rd_run_clear(&run);
    return a;
  }
  g_autofree char *params = req_params(q, s->face);
  g_autofree char *call = NULL, *key = NULL, *line = NULL;

  if (s->face == FACE_DAEMON) {
    key = rd_conn_request(s->conn, "read", params, NULL);
    line = recv_answer(s->conn, key);
    if (q->light) {
      JsonNode *msg = rd_json_parse(line, strlen(line));

      return answer_light(msg, rd_result_of(msg), strlen(line));
    }
    return answer_of_result(rd_result_new(rd_json_parse(line, strlen(line))), strlen(line));
  }
  call = g_strdup_printf("{\"name\":\"read_files\",\"arguments\":%s}", params);
  key = rd_conn_request(s->conn, "tools/call", call, NULL);
  line = recv_answer(s->conn, key);
  return answer_of_mcp(rd_json_parse(line, strlen(line)), strlen(line), q->light);
}

/* Reads one path with the kind's options. */
static Answer *read_one(Session *s, const Kind *k, const char *path, Req q) {
  const char *paths[] = {path};

  q.paths = paths;
  q.n = 1;
  q.kind = k;
  return session_read(s, &q);
}

/* ---- what an answer says ------------------------------------------------------------------ */

static xmlNodePtr content(Answer *a, guint i) {
  CELL_ASSERT(i < a->contents->len, "no <Content> %u in: %.600s", i, a->text);
  return g_ptr_array_index(a->contents, i);
}

/* An attribute, g_free'd by the caller; NULL when absent. */
static char *attr(xmlNodePtr n, const char *name) {
  xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
  char *s = v != NULL ? g_strdup((const char *)v) : NULL;

  xmlFree(v);
  return s;
}

static int64_t attr_int(xmlNodePtr n, const char *name, int64_t dflt) {
  g_autofree char *v = attr(n, name);

  return v != NULL ? g_ascii_strtoll(v, NULL, 10) : dflt;
}

static bool has_attr(xmlNodePtr n, const char *name) {
  return xmlHasProp(n, (const xmlChar *)name) != NULL;
}

static bool attr_is(xmlNodePtr n, const char *name, const char *want) {
  g_autofree char *v = attr(n, name);

  return v != NULL && want != NULL && strcmp(v, want) == 0;
}

/* The element as the model reads it, for messages. g_free. */
static char *element_text(xmlNodePtr n) {
  xmlBufferPtr b = xmlBufferCreate();
  char *s;

  xmlNodeDump(b, n->doc, n, 0, 0);
  s = g_strndup((const char *)xmlBufferContent(b), 600);
  xmlBufferFree(b);
  return s;
}

static bool blank(const xmlChar *s) {
  for (; s != NULL && *s != '\0'; s++)
    if (!g_ascii_isspace(*s))
      return false;
  return true;
}

/* The texts written for the file: every CDATA section and text under its element but the line
 * breaks between tags (markup). */
static void text_pieces(xmlNodePtr n, GPtrArray *out) {
  for (xmlNodePtr c = n->children; c != NULL; c = c->next) {
    if ((c->type == XML_CDATA_SECTION_NODE || c->type == XML_TEXT_NODE) && !blank(c->content))
      g_ptr_array_add(out, g_strdup((const char *)c->content));
    else if (c->type == XML_ELEMENT_NODE)
      text_pieces(c, out);
  }
}

static bool has_children(xmlNodePtr n) {
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);

  text_pieces(n, texts);
  for (xmlNodePtr c = n->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE)
      return true;
  return texts->len > 0;
}

/* The image indexes under an element (its own, its pages', outputs' and tiles'), once each. */
static void image_indexes(xmlNodePtr n, GArray *ks) {
  int64_t k = attr_int(n, "image", -1);
  bool seen = false;

  for (guint i = 0; i < ks->len; i++)
    seen = seen || g_array_index(ks, int64_t, i) == k;
  if (k >= 0 && !seen)
    g_array_append_val(ks, k);
  for (xmlNodePtr c = n->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE)
      image_indexes(c, ks);
}

/* A picture's tokens by Anthropic's formula on the picture as sent (its header's size). */
static int64_t picture_cost(Answer *a, int64_t k) {
  GBytes *b;
  gsize len = 0;
  const unsigned char *data;
  int w = 0, h = 0;

  CELL_ASSERT(k >= 0 && (guint)k < a->pictures->len, "image='%" G_GINT64_FORMAT "' but %u pictures",
              k, a->pictures->len);
  b = g_ptr_array_index(a->pictures, k);
  data = g_bytes_get_data(b, &len);
  CELL_ASSERT(rd_image_size(data, len, &w, &h), "picture %" G_GINT64_FORMAT " has no size", k);
  return ((int64_t)w * h + 749) / 750;
}

static int64_t pictures_cost(Answer *a, xmlNodePtr n) {
  g_autoptr(GArray) ks = g_array_new(FALSE, FALSE, sizeof(int64_t));
  int64_t sum = 0;

  image_indexes(n, ks);
  for (guint i = 0; i < ks->len; i++)
    sum += picture_cost(a, g_array_index(ks, int64_t, i));
  return sum;
}

/* ---- o200k_base ---------------------------------------------------------------------------- */

static char *count_script(void) {
  return g_build_filename(g_getenv("READERD_SOURCE_ROOT"), "tests", "tokens", "count.mjs", NULL);
}

static bool o200k_ready(void) {
  g_autofree char *node = g_find_program_in_path("node");
  g_autofree char *modules = g_build_filename(g_getenv("READERD_SOURCE_ROOT"), "tests", "tokens",
                                              "node_modules", "gpt-tokenizer", NULL);

  return node != NULL && g_file_test(modules, G_FILE_TEST_IS_DIR);
}

/* o200k_base's count of each text (as UTF-8), ret[i] for texts[i]; counts are kept by content in
 * the run's folder, so that a text another cell counted costs no node run. */
static void o200k_counts(GPtrArray *texts, int64_t *ret) {
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(guint));
  g_auto(GStrv) lines = NULL;
  RdRun run;

  g_ptr_array_add(argv, g_find_program_in_path("node"));
  g_ptr_array_add(argv, count_script());
  for (guint i = 0; i < texts->len; i++) {
    const char *t = g_ptr_array_index(texts, i);
    g_autofree char *sum = g_compute_checksum_for_string(G_CHECKSUM_SHA256, t, -1);
    g_autofree char *kept = g_strdup_printf("%s/%s.count", o200k_dir, sum), *v = NULL;

    if (g_file_get_contents(kept, &v, NULL, NULL)) {
      ret[i] = g_ascii_strtoll(v, NULL, 10);
      continue;
    }
    g_ptr_array_add(argv, g_strdup_printf("%s/%s.txt", o200k_dir, sum));
    put(g_ptr_array_index(argv, argv->len - 1), t, strlen(t));
    g_array_append_val(todo, i);
  }
  if (todo->len == 0)
    return;
  g_ptr_array_add(argv, NULL);
  rd_run(NULL, (const char *const *)argv->pdata, NULL, 0, 120000, &run);
  CELL_ASSERT(run.code == 0, "node tests/tokens/count.mjs failed: %s", run.err);
  lines = g_strsplit(run.out, "\n", -1);
  for (guint j = 0; j < todo->len; j++) {
    guint i = g_array_index(todo, guint, j);
    const char *path = g_ptr_array_index(argv, j + 2);
    g_autofree char *kept = g_strdup_printf("%.*s.count", (int)(strlen(path) - 4), path);

    CELL_ASSERT(lines[j] != NULL && *lines[j] != '\0', "count.mjs printed too few lines");
    ret[i] = g_ascii_strtoll(lines[j], NULL, 10);
    put(kept, lines[j], strcspn(lines[j], "\t"));
  }
  rd_run_clear(&run);
}

static int64_t o200k_text(const char *text) {
  g_autoptr(GPtrArray) one = g_ptr_array_new();
  int64_t n = 0;

  g_ptr_array_add(one, (gpointer)text);
  o200k_counts(one, &n);
  return n;
}

/* The real cost of what an element shows: o200k_base's count of its texts, each apart (the
 * estimate is additive over them), and its pictures by the providers' formula. */
static int64_t real_cost(Answer *a, xmlNodePtr n) {
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
  g_autofree int64_t *counts = NULL;
  int64_t sum = pictures_cost(a, n);

  text_pieces(n, texts);
  counts = g_new0(int64_t, texts->len + 1);
  o200k_counts(texts, counts);
  for (guint i = 0; i < texts->len; i++)
    sum += counts[i];
  return sum;
}

/* |estimate - real| within 10% of real (and a token for the estimate's one rounding up). */
static bool within_10(int64_t estimate, int64_t real) {
  return llabs(estimate - real) * 10 <= real + 10;
}

/* ---- the guarantees ------------------------------------------------------------------------ */

/* The path a row reads: its file, or the folder. */
static const char *good_path(const Kind *k) {
  return k->file;
}

/* Entry i is ACCESS_DENIED and says nothing of the file: no type, size, time, etag or content,
 * no picture, and not where it lies (its name as asked, pathBytes too, is no news). */
static void check_denied(Answer *a, guint i) {
  static const char *const allowed[] = {"path", "pathBytes", "code", "error", "tokens", "from"};
  xmlNodePtr n = content(a, i);
  g_autofree char *error = attr(n, "error");

  CELL_ASSERT(attr_is(n, "code", "ACCESS_DENIED"), "not ACCESS_DENIED: %s", element_text(n));
  for (xmlAttrPtr p = n->properties; p != NULL; p = p->next) {
    bool ok = false;

    for (size_t j = 0; j < G_N_ELEMENTS(allowed); j++)
      ok = ok || strcmp((const char *)p->name, allowed[j]) == 0;
    CELL_ASSERT(ok, "a refused file says its %s: %s", (const char *)p->name, element_text(n));
  }
  CELL_ASSERT(attr_int(n, "tokens", 0) == 0, "a refused file costs tokens: %s", element_text(n));
  CELL_ASSERT(!has_children(n), "a refused file has content: %s", element_text(n));
  CELL_ASSERT(error != NULL && strstr(error, outside) == NULL,
              "the refusal names where it lies: %s", element_text(n));
  if (a->res != NULL) {
    JsonObject *f = rd_file(a->res, i);
    g_autoptr(GList) members = json_object_get_members(f);

    for (GList *m = members; m != NULL; m = m->next) {
      bool ok = false;

      for (size_t j = 0; j < G_N_ELEMENTS(allowed); j++)
        ok = ok || strcmp(m->data, allowed[j]) == 0;
      CELL_ASSERT(ok, "files[%u] of a refused file has %s", i, (const char *)m->data);
    }
  }
}

/* (a) Outside the root, through a link from inside, excluded: refused, nothing said. */
static void cell_fence(Session *s, const Kind *k) {
  g_autofree char *out = g_strdup_printf("%s/%s-%s", outside, k->name, k->file);
  g_autofree char *link = copy_name("link", k), *private = copy_name("private", k);
  const char *paths[] = {out, link, private};
  Req q = {.paths = paths, .n = 3, .kind = k};
  Answer *a = session_read(s, &q);

  CELL_ASSERT(a->contents->len == 3 && a->summary == NULL,
              "3 paths refused are answered by %u entries: %.800s", a->contents->len, a->text);
  for (guint i = 0; i < 3; i++)
    check_denied(a, i);
  CELL_ASSERT(a->pictures->len == 0, "%u pictures of refused files sent", a->pictures->len);
  answer_free(a);
}

/* Entry i is read: its kind's type, no code, not left out. */
static void check_read(Answer *a, guint i, const char *type) {
  xmlNodePtr n = content(a, i);

  CELL_ASSERT(!has_attr(n, "code"), "not read: %s", element_text(n));
  CELL_ASSERT(!has_attr(n, "omitted"), "left out: %s", element_text(n));
  CELL_ASSERT(attr_is(n, "type", type), "not of type %s: %s", type, element_text(n));
}

/* Entry i is refused with the damaged kind's code (a folder's walk lists a binary file instead,
 * as documented), an error message and no content. */
static void check_broken(Answer *a, guint i, const Kind *k) {
  xmlNodePtr n = content(a, i);
  g_autofree char *error = attr(n, "error");
  bool listed_binary =
      attr_is(n, "omitted", "binary") && strcmp(k->broken_code, "UNSUPPORTED_FORMAT") == 0;

  CELL_ASSERT(attr_is(n, "code", k->broken_code) || listed_binary, "a damaged %s is not %s: %s",
              k->name, k->broken_code, element_text(n));
  CELL_ASSERT(listed_binary || (error != NULL && *error != '\0'), "no error message: %s",
              element_text(n));
  CELL_ASSERT(!has_children(n), "a damaged file shows content: %s", element_text(n));
  CELL_ASSERT(pictures_cost(a, n) == 0, "a damaged file sends a picture: %s", element_text(n));
}

/* Every entry answers a file of the folder, each read (or, damaged, refused). */
static void check_folder(Answer *a, bool broken) {
  CELL_ASSERT(a->contents->len == folder_files() && a->summary == NULL,
              "the folder's %u files answered by %u entries: %.600s", folder_files(),
              a->contents->len, a->text);
  for (guint i = 0; i < a->contents->len; i++) {
    g_autofree char *path = attr(content(a, i), "path");
    const Kind *k = kind_of_file(path);

    if (broken)
      check_broken(a, i, k);
    else
      check_read(a, i, k->type);
  }
}

/* (b) A damaged copy gets its code; the next read on the same daemon is answered. */
static void cell_hostile(Session *s, const Kind *k) {
  g_autofree char *broken = copy_name("broken", k);
  Req big = {.big = true};
  Answer *a, *b;

  if (s->face == FACE_CLI) {
    /* One process: the damaged file, then the good one. */
    const char *paths[] = {broken, good_path(k)};
    Req q = {.paths = paths, .n = 2, .kind = k, .big = true};

    a = session_read(s, &q);
    if (k == FOLDER) {
      CELL_ASSERT(a->contents->len == 2 * folder_files(), "%u entries for two folders: %.600s",
                  a->contents->len, a->text);
      for (guint i = 0; i < a->contents->len; i++) {
        g_autofree char *path = attr(content(a, i), "path");

        if (i < folder_files())
          check_broken(a, i, kind_of_file(path));
        else
          check_read(a, i, kind_of_file(path)->type);
      }
    } else {
      CELL_ASSERT(a->contents->len == 2, "2 paths, %u entries", a->contents->len);
      check_broken(a, 0, k);
      check_read(a, 1, k->type);
    }
    answer_free(a);
    return;
  }
  a = read_one(s, k, broken, big);
  if (k == FOLDER) {
    check_folder(a, true);
  } else {
    CELL_ASSERT(a->contents->len == 1, "1 path, %u entries", a->contents->len);
    check_broken(a, 0, k);
  }
  b = read_one(s, k, good_path(k), big);
  if (k == FOLDER) {
    check_folder(b, false);
  } else {
    CELL_ASSERT(b->contents->len == 1, "1 path, %u entries", b->contents->len);
    check_read(b, 0, k->type);
  }
  answer_free(b);
  answer_free(a);
}

/* (c) The tokens stated for each file read against o200k_base's count of what is written. */
static void cell_price(Session *s, const Kind *k) {
  Answer *a = read_one(s, k, good_path(k), (Req){0});
  guint priced = 0;

  for (guint i = 0; i < a->contents->len; i++) {
    xmlNodePtr n = content(a, i);
    g_autofree char *path = attr(n, "path");
    int64_t stated = attr_int(n, "tokens", -1), real;

    if (has_attr(n, "code") || has_attr(n, "omitted"))
      continue;
    real = real_cost(a, n);
    printf("%s: %s states %" G_GINT64_FORMAT " tokens, o200k %" G_GINT64_FORMAT "\n", cell, path,
           stated, real);
    CELL_ASSERT(within_10(stated, real),
                "%s states %" G_GINT64_FORMAT
                " tokens for what o200k_base counts %" G_GINT64_FORMAT,
                path, stated, real);
    priced++;
  }
  CELL_ASSERT(priced > 0, "nothing read to price: %.600s", a->text);
  answer_free(a);
}

/* (d) A budget of N: the answer's real tokens at most 1.1 N, for every N of 500 or more (a
 * smaller budget than the frame and one entry's markup is answered all the same, its first
 * piece shown so that a continuation moves on, and answerTokens says by how much it passes:
 * docs/protocol.md). The row's continuation budget below 500 is held at 500. */
static void cell_budget(Session *s, const Kind *k) {
  const int64_t budget = MAX(k->budget, (int64_t)500);
  Answer *a = read_one(s, k, good_path(k), (Req){.budget = budget});
  int64_t real = o200k_text(a->text);

  for (guint i = 0; i < a->pictures->len; i++)
    real += picture_cost(a, i);
  printf("%s: budget %" G_GINT64_FORMAT ", the answer's real tokens %" G_GINT64_FORMAT "\n", cell,
         budget, real);
  CELL_ASSERT(real * 10 <= budget * 11,
              "a budget of %" G_GINT64_FORMAT " tokens answered with %" G_GINT64_FORMAT
              " real tokens: %.600s",
              budget, real, a->text);
  answer_free(a);
}

/* (e) A plan: no content, the kind's type, a whole-file estimate near the real cost of the
 * whole file as a read shows it. */
static void cell_plan(Session *s, const Kind *k) {
  Answer *p = read_one(s, k, good_path(k), (Req){.plan = true});
  Answer *r = read_one(s, k, good_path(k), (Req){.big = true});

  CELL_ASSERT(p->pictures->len == 0, "a plan sends %u pictures", p->pictures->len);
  CELL_ASSERT(p->contents->len == r->contents->len && p->contents->len > 0,
              "the plan has %u entries, the read %u: %.600s", p->contents->len, r->contents->len,
              p->text);
  for (guint i = 0; i < p->contents->len; i++) {
    xmlNodePtr n = content(p, i), whole = content(r, i);
    g_autofree char *path = attr(n, "path"), *read_path = attr(whole, "path");
    const char *type = k == FOLDER ? kind_of_file(path)->type : k->type;
    int64_t total = attr_int(n, "tokensTotal", -1), real;

    CELL_ASSERT(g_strcmp0(path, read_path) == 0, "the plan's entry %u is %s, the read's %s", i,
                path, read_path);
    CELL_ASSERT(!has_children(n), "a plan shows content: %s", element_text(n));
    CELL_ASSERT(attr_is(n, "type", type), "the plan does not say type %s: %s", type,
                element_text(n));
    CELL_ASSERT(total >= 0, "the plan states no tokensTotal: %s", element_text(n));
    check_read(r, i, type);
    real = real_cost(r, whole);
    printf("%s: %s planned %" G_GINT64_FORMAT " tokens, the whole read's o200k %" G_GINT64_FORMAT
           "\n",
           cell, path, total, real);
    CELL_ASSERT(within_10(total, real),
                "%s planned at %" G_GINT64_FORMAT " tokens, its whole read costs %" G_GINT64_FORMAT,
                path, total, real);
  }
  answer_free(r);
  answer_free(p);
}

/* ---- (f) continuation ---------------------------------------------------------------------- */

/* Where a chain of reads stands: the next request's position, and what was shown so far. */
typedef struct {
  int64_t offset, skip;
  char *pages;
  GHashTable *seen; /* units shown (int64 keys) */
  int64_t total;    /* units in the file when an answer stated them, else -1 */
} Chain;

static void seen_add(Chain *c, int64_t unit, const char *what) {
  int64_t *key = g_new(int64_t, 1);

  *key = unit;
  CELL_ASSERT(!g_hash_table_contains(c->seen, key),
              "unit %" G_GINT64_FORMAT " shown again (%s, offset %" G_GINT64_FORMAT
              ", skip %" G_GINT64_FORMAT ", pages %s)",
              unit, what, c->offset, c->skip, c->pages != NULL ? c->pages : "-");
  g_hash_table_add(c->seen, key);
}

static void seen_range(Chain *c, xmlNodePtr n, const char *total_attr) {
  g_autofree char *shown = attr(n, "shown");
  int64_t a = 0, b = -1;

  c->total = attr_int(n, total_attr, c->total);
  if (shown != NULL && sscanf(shown, "%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT, &a, &b) == 2)
    for (int64_t u = a; u <= b; u++)
      seen_add(c, u, shown);
}

/* Each sheet's rows, as "N: ..." lines of its text: sheet * 10^6 + N. */
static void seen_rows(Chain *c, xmlNodePtr n) {
  for (xmlNodePtr sh = n->children; sh != NULL; sh = sh->next) {
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    int64_t sheet = attr_int(sh, "number", 0);

    if (sh->type != XML_ELEMENT_NODE || strcmp((const char *)sh->name, "Sheet") != 0)
      continue;
    text_pieces(sh, texts);
    for (guint t = 0; t < texts->len; t++) {
      g_auto(GStrv) lines = g_strsplit(g_ptr_array_index(texts, t), "\n", -1);

      for (guint l = 0; lines[l] != NULL; l++)
        if (g_ascii_isdigit(lines[l][0]) && strstr(lines[l], ": ") != NULL)
          seen_add(c, sheet * 1000000 + g_ascii_strtoll(lines[l], NULL, 10), lines[l]);
    }
  }
}

static void seen_pages(Chain *c, xmlNodePtr n) {
  c->total = attr_int(n, "pages", c->total);
  for (xmlNodePtr p = n->children; p != NULL; p = p->next)
    if (p->type == XML_ELEMENT_NODE && strcmp((const char *)p->name, "Page") == 0)
      seen_add(c, attr_int(p, "number", 0), "page");
}

/* A tall picture's tiles, by the row each starts at: every tile once, all `tiles` of them. */
static void seen_tiles(Chain *c, xmlNodePtr n) {
  c->total = attr_int(n, "tiles", c->total);
  for (xmlNodePtr t = n->children; t != NULL; t = t->next)
    if (t->type == XML_ELEMENT_NODE && strcmp((const char *)t->name, "Tile") == 0)
      seen_add(c, attr_int(t, "y", -1), "tile");
}

/* What one answer shows of the row's file (a folder: of its entries). */
static void chain_note(Chain *c, const Kind *k, Answer *a) {
  if (k == FOLDER) {
    c->total = folder_files();
    for (guint i = 0; i < a->contents->len; i++) {
      g_autofree char *path = attr(content(a, i), "path");

      seen_add(c, c->skip + i, path);
    }
    return;
  }
  for (guint i = 0; i < a->contents->len; i++) {
    xmlNodePtr n = content(a, i);

    if (has_attr(n, "code") || has_attr(n, "omitted"))
      continue;
    switch (k->units) {
    case U_LINES:
      seen_range(c, n, "lines");
      break;
    case U_CELLS:
      seen_range(c, n, "cells");
      break;
    case U_SLIDES:
      seen_range(c, n, "slides");
      break;
    case U_ROWS:
      seen_rows(c, n);
      break;
    case U_PAGES:
      seen_pages(c, n);
      break;
    case U_TILES:
      seen_tiles(c, n);
      break;
    default:
      c->total = 1;
      seen_add(c, 1, "the picture");
      break;
    }
  }
}

/* The continuation the answer names: the summary's skip, else the smallest offset its notices
 * name (not a long line's column marker), else a PDF's pages. Returns false when it names none. */
static bool chain_next(Chain *c, const Kind *k, Answer *a) {
  g_autoptr(GRegex) offset_re = g_regex_new(
      "(?:continue with offset=|read on with offset )([0-9]+)(?![0-9]|, column)", 0, 0, NULL);
  g_autoptr(GRegex) pages_re = g_regex_new("continue with pages=\"?([0-9]+)-", 0, 0, NULL);
  int64_t offset = -1;
  char *pages = NULL;

  if (a->summary != NULL) {
    c->skip = attr_int(a->summary, "skip", -1);
    return true;
  }
  /* A folder's files read on by name; its own continuation is the summary's alone. */
  if (k == FOLDER)
    return false;
  for (guint i = 0; i < a->contents->len; i++) {
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);

    text_pieces(content(a, i), texts);
    for (guint t = 0; t < texts->len; t++) {
      g_autoptr(GMatchInfo) m = NULL;

      g_regex_match(offset_re, g_ptr_array_index(texts, t), 0, &m);
      for (; g_match_info_matches(m); g_match_info_next(m, NULL)) {
        g_autofree char *v = g_match_info_fetch(m, 1);
        int64_t o = g_ascii_strtoll(v, NULL, 10);

        offset = offset < 0 || o < offset ? o : offset;
      }
      g_match_info_free(g_steal_pointer(&m));
      if (g_regex_match(pages_re, g_ptr_array_index(texts, t), 0, &m)) {
        g_autofree char *v = g_match_info_fetch(m, 1);

        g_free(pages);
        pages = g_strdup_printf("%s-", v);
      }
    }
  }
  if (offset > 0) {
    c->offset = offset;
    g_free(pages);
    return true;
  }
  if (pages != NULL) {
    g_free(c->pages);
    c->pages = pages;
    return true;
  }
  return false;
}

/* (f) Following each answer's continuation reads the file to its end: every unit once, in a
 * bounded number of requests, never the same request twice. */
static void cell_continuation(Session *s, const Kind *k) {
  Chain c = {.seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL), .total = -1};
  int requests = 0;

  for (;;) {
    Req q = {.offset = c.offset, .skip = c.skip, .pages = c.pages, .budget = k->cont_budget};
    Answer *a = read_one(s, k, good_path(k), q);
    int64_t was_offset = c.offset, was_skip = c.skip;
    g_autofree char *was_pages = g_strdup(c.pages);
    bool more;

    requests++;
    chain_note(&c, k, a);
    more = chain_next(&c, k, a);
    if (more)
      CELL_ASSERT(c.offset != was_offset || c.skip != was_skip ||
                      g_strcmp0(c.pages, was_pages) != 0,
                  "request %d names itself as its continuation (offset %" G_GINT64_FORMAT
                  ", skip %" G_GINT64_FORMAT ", pages %s): it loops: %.600s",
                  requests, c.offset, c.skip, c.pages != NULL ? c.pages : "-", a->text);
    else
      CELL_ASSERT(g_hash_table_size(c.seen) > 0 || requests > 1,
                  "nothing shown and no continuation named: %.600s", a->text);
    answer_free(a);
    if (!more)
      break;
    CELL_ASSERT(requests < k->max_requests, "not at the end after %d requests (%u units shown)",
                requests, g_hash_table_size(c.seen));
  }
  /* Nothing missed: every unit from the first to the last, and to the file's end when stated. */
  {
    g_autoptr(GList) keys = g_hash_table_get_keys(c.seen);
    int64_t lo = INT64_MAX, hi = 0, n = g_hash_table_size(c.seen);

    for (GList *l = keys; l != NULL; l = l->next) {
      int64_t u = *(int64_t *)l->data;

      if (k->units == U_ROWS)
        u %= 1000000;
      lo = MIN(lo, u);
      hi = MAX(hi, u);
    }
    printf("%s: %d requests, %" G_GINT64_FORMAT " units shown of %" G_GINT64_FORMAT "\n", cell,
           requests, n, c.total);
    CELL_ASSERT(n > 0, "nothing shown in %d requests", requests);
    if (k->units != U_ROWS && k->units != U_TILES)
      CELL_ASSERT(hi - lo + 1 == n && lo == (k == FOLDER ? 0 : 1),
                  "units %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT " shown, but %" G_GINT64_FORMAT
                  " of them",
                  lo, hi, n);
    if (c.total >= 0)
      CELL_ASSERT(n == c.total, "%" G_GINT64_FORMAT " of %" G_GINT64_FORMAT " units shown", n,
                  c.total);
  }
  g_hash_table_unref(c.seen);
  g_free(c.pages);
}

/* ---- (g) size ------------------------------------------------------------------------------ */

static size_t face_cap(Face f) {
  return f == FACE_MCP ? MCP_MAX_ANSWER_BYTES : READ_MAX_ANSWER_BYTES;
}

/* Bytes of s[0..len) written in a JSON string, as the faces write their pieces. */
static size_t json_len(const char *s, size_t len) {
  size_t n = 0;

  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];

    n += c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f' ? 2
         : c < 0x20                                                                             ? 6
                                                                                                : 1;
  }
  return n;
}

/* Where each <Content> element of the text the model reads starts and ends: each begins a
 * line (a file's own lines are numbered, or inside CDATA after a tag) and runs to the next
 * element of the answer's top level. Returns (start, end) offsets, two per element. */
/* True when text[i] follows an MCP tile's label on its line ("tile 2 of 4: x 0-600, y ..."): the
 * text blocks are joined as they come, and the next element's block follows the label's. */
static bool after_tile_label(const char *text, size_t i) {
  size_t j = i;

  while (j > 0 && text[j - 1] != '\n')
    j--;
  return i - j > 5 && strncmp(text + j, "tile ", 5) == 0 && text[i - 1] >= '0' &&
         text[i - 1] <= '9';
}

static GArray *element_spans(const char *text) {
  static const char *const tops[] = {"<Content ", "<Omitted ", "<Notice ", "</ReadResults>"};
  GArray *spans = g_array_new(FALSE, FALSE, sizeof(size_t));
  size_t len = strlen(text), start = G_MAXSIZE;

  for (size_t i = 0; i < len; i++) {
    bool top = false;

    if (text[i] != '<' || (i > 0 && text[i - 1] != '\n' && !after_tile_label(text, i)))
      continue;
    for (size_t t = 0; t < G_N_ELEMENTS(tops); t++)
      top = top || strncmp(text + i, tops[t], strlen(tops[t])) == 0;
    if (!top)
      continue;
    if (start != G_MAXSIZE) {
      g_array_append_val(spans, start);
      g_array_append_val(spans, i);
    }
    start = strncmp(text + i, "<Content ", 9) == 0 ? i : G_MAXSIZE;
  }
  if (start != G_MAXSIZE) {
    g_array_append_val(spans, start);
    g_array_append_val(spans, len);
  }
  return spans;
}

/* The content an answer's entries i.. put against the cap: each element as a JSON string holds
 * it, and its pictures' base64. */
static size_t entry_bytes(Answer *a, GArray *spans, guint i) {
  g_autoptr(GArray) ks = g_array_new(FALSE, FALSE, sizeof(int64_t));
  size_t from = g_array_index(spans, size_t, 2 * i), to = g_array_index(spans, size_t, 2 * i + 1);
  size_t n = json_len(a->text + from, to - from);

  image_indexes(content(a, i), ks);
  for (guint j = 0; j < ks->len; j++) {
    int64_t k = g_array_index(ks, int64_t, j);

    CELL_ASSERT(k >= 0 && (guint)k < a->b64->len, "image='%" G_GINT64_FORMAT "' of %u", k,
                a->b64->len);
    n += g_array_index(a->b64, size_t, k);
  }
  return n;
}

/* A lower bound of what one read of the row's file puts against the cap: its elements' text. */
static size_t piece_lower(Answer *a) {
  g_autoptr(GArray) spans = element_spans(a->text);
  size_t n = 0;

  CELL_ASSERT(spans->len == 2 * a->contents->len, "%u elements found in the text of %u entries",
              spans->len / 2, a->contents->len);
  for (guint i = 0; i < a->contents->len; i++)
    n += MAX(entry_bytes(a, spans, i), (size_t)65) - 64;
  return MAX(n, 1);
}

/* (g) The row's file repeated after filler text that brings the answer near the face's cap (64
 * MiB of content for the daemon and the CLI, 8 MiB for MCP): the content sent stays within the
 * cap, the copies past it are summed up in one <Omitted> element naming the cap and the skip
 * that reads them next (files[] marks each FILE_TOO_LARGE), none read after the first past it; an MCP
 * answer stays under the 10 MiB the MCP TypeScript SDK reads of one message (docs/mcp.md), and
 * says its size in _meta when it passes 50,000 characters. The daemon's and CLI's answers may
 * pass their cap by what they say of each file besides its content (files[], the refusals):
 * at most 1 KiB a file here. */
static void cell_size(Session *s, const Kind *k) {
  const char *cap_name = s->face == FACE_MCP ? "8 MiB" : "64 MiB";
  size_t cap = face_cap(s->face), filler, piece, room, fill, copies, sent = 0;
  g_autoptr(GPtrArray) paths = g_ptr_array_new();
  g_autoptr(GArray) spans = NULL;
  Answer *a = read_one(s, k, "zz-filler.txt", (Req){.big = true});
  guint refused = 0, first_refused = G_MAXUINT, entries = 0;

  /* The filler's piece from above (its element as a JSON string, and a wrapper of at most 64
   * bytes), the file's from below. */
  spans = element_spans(a->text);
  filler = entry_bytes(a, spans, 0) + 64;
  g_array_unref(g_steal_pointer(&spans));
  answer_free(a);
  a = read_one(s, k, good_path(k), (Req){.big = true});
  piece = piece_lower(a);
  entries = a->contents->len;
  answer_free(a);
  room = MAX(2 * piece, (size_t)16 * 1024);
  fill = (cap - room) / filler;
  /* What the filler leaves: room, the remainder of the division, and at most 64 bytes a filler
   * the estimate is above the real piece. */
  copies = (room + filler + fill * 64 + 16 * 1024) / piece + 2;
  CELL_ASSERT(fill + copies <= 10000, "%zu paths needed", fill + copies);
  for (size_t i = 0; i < fill; i++)
    g_ptr_array_add(paths, "zz-filler.txt");
  for (size_t i = 0; i < copies; i++)
    g_ptr_array_add(paths, (gpointer)good_path(k));
  a = session_read(s, &(Req){.paths = (const char *const *)paths->pdata,
                             .n = paths->len,
                             .plain = (guint)fill,
                             .kind = k,
                             .big = true,
                             .light = true});
  spans = element_spans(a->text);
  /* The entries before the cap, one each; the rest summed up in one <Omitted> element naming the
   * cap and the skip that reads them next. */
  CELL_ASSERT(a->summary != NULL, "%zu paths past the cap of %s, and no <Omitted> summary: %.300s",
              fill + copies * entries, cap_name, a->text);
  refused = (guint)attr_int(a->summary, "files", -1);
  first_refused = (guint)attr_int(a->summary, "skip", -1);
  CELL_ASSERT(a->contents->len + refused == fill + copies * entries &&
                  first_refused == a->contents->len && spans->len == 2 * a->contents->len,
              "%zu paths answered by %u entries and a summary of %u from %u (%u elements found)",
              fill + copies * entries, a->contents->len, refused, first_refused, spans->len / 2);
  {
    g_autofree char *said = (char *)xmlNodeGetContent(a->summary);

    CELL_ASSERT(said != NULL && strstr(said, cap_name) != NULL, "the summary names no cap: %s",
                said);
  }
  CELL_ASSERT(first_refused >= fill, "filler entries past the cap: the test's arithmetic is wrong");
  for (guint i = 0; i < a->contents->len; i++) {
    xmlNodePtr n = content(a, i);

    CELL_ASSERT(!has_attr(n, "code"), "entry %u refused: %s", i, element_text(n));
    sent += entry_bytes(a, spans, i);
  }
  printf("%s: %zu filler files and %zu copies (%zu bytes each at least): %zu bytes of content, "
         "%zu bytes answered, %u refused\n",
         cell, fill, copies, piece, sent, a->wire, refused);
  CELL_ASSERT(refused > 0, "%zu copies after %zu filler files, none refused for the cap", copies,
              fill);
  CELL_ASSERT(sent <= cap, "%zu bytes of content sent, past the cap of %s", sent, cap_name);
  if (s->face == FACE_MCP) {
    glong chars = g_utf8_strlen(a->text, -1);

    CELL_ASSERT(a->wire < (size_t)10 * 1024 * 1024,
                "a message of %zu bytes: the MCP SDK reads 10 MiB at most", a->wire);
    if (chars > 50000)
      CELL_ASSERT(a->meta_chars >= MIN(chars, 500000) && a->meta_chars <= 500000,
                  "%ld characters of text, maxResultSizeChars %" G_GINT64_FORMAT, chars,
                  a->meta_chars);
  } else {
    CELL_ASSERT(a->wire <= cap + (size_t)1024 * a->contents->len,
                "an answer of %zu bytes for %u files past the cap of %s", a->wire, a->contents->len,
                cap_name);
  }
  answer_free(a);
}

/* ---- every format: the answer's tokens --------------------------------------------------- */

/* The formats a read answers in, each checked over the folder by cell_answer. */
static const char *const formats[] = {"xml", "anthropic", "openai", "toolresult", "text"};
/* The budgets it is read under: from a few files' worth to most of the folder. */
static const int64_t answer_budgets[] = {500, 2000, 6000, 25000};

/* 512-pixel tiles along a side of `side` pixels. */
static int64_t tiles_of(double side) {
  int64_t n = (int64_t)(side / 512);

  return (double)n * 512 < side ? n + 1 : n;
}

/* A picture's tokens by OpenAI's formula at detail high (what `auto` is priced as): scaled to
 * fit 2048 x 2048, its short side to at most 768, then 85 and 170 a 512-pixel tile. */
static int64_t openai_cost(int w, int h) {
  double fw = w, fh = h, s;

  if (MAX(fw, fh) > 2048) {
    s = 2048 / MAX(fw, fh);
    fw *= s;
    fh *= s;
  }
  if (MIN(fw, fh) > 768) {
    s = 768 / MIN(fw, fh);
    fw *= s;
    fh *= s;
  }
  return 85 + 170 * tiles_of(fw) * tiles_of(fh);
}

/* A picture's base64 priced by the format's provider: Anthropic's formula, or OpenAI's. */
static int64_t picture_b64_cost(const char *b64, bool openai) {
  gsize n = 0;
  g_autofree guchar *bytes = g_base64_decode(b64, &n);
  int w = 0, h = 0;

  CELL_ASSERT(rd_image_size(bytes, n, &w, &h), "a picture of %zu bytes has no size", (size_t)n);
  return openai ? openai_cost(w, h) : ((int64_t)w * h + 749) / 750;
}

/* What the model reads of an answer in `format`: its text (xml's document, the text blocks or
 * parts joined, toolresult's content, the text), g_free'd by the caller; and the pictures it
 * sends, priced, in *ret_pictures (text lists them, sends none). */
static char *model_text(JsonObject *result, const char *format, int64_t *ret_pictures) {
  JsonNode *shape = json_object_get_member(result, format);
  GString *text = g_string_new(NULL);
  bool openai = strcmp(format, "openai") == 0;

  *ret_pictures = 0;
  CELL_ASSERT(shape != NULL, "the result has no %s member", format);
  if (strcmp(format, "text") == 0) {
    g_string_append(text, json_node_get_string(shape));
  } else if (strcmp(format, "xml") == 0 || strcmp(format, "toolresult") == 0) {
    JsonObject *o = strcmp(format, "xml") == 0 ? result : json_node_get_object(shape);
    JsonArray *images = json_object_get_array_member(o, "images");

    g_string_append(text, json_object_get_string_member(o, strcmp(format, "xml") == 0 ? "xml"
                                                                                      : "content"));
    for (guint k = 0; images != NULL && k < json_array_get_length(images); k++)
      *ret_pictures += picture_b64_cost(
          json_object_get_string_member(json_array_get_object_element(images, k), "data"), false);
  } else {
    JsonArray *blocks = json_node_get_array(shape);

    for (guint i = 0; i < json_array_get_length(blocks); i++) {
      JsonObject *b = json_array_get_object_element(blocks, i);
      const char *type = json_object_get_string_member(b, "type");

      if (strcmp(type, "text") == 0)
        g_string_append(text, json_object_get_string_member(b, "text"));
      else if (strcmp(type, "image") == 0)
        *ret_pictures += picture_b64_cost(
            json_object_get_string_member(json_object_get_object_member(b, "source"), "data"),
            false);
      else
        *ret_pictures += picture_b64_cost(
            strchr(json_object_get_string_member(json_object_get_object_member(b, "image_url"),
                                                 "url"),
                   ',') + 1,
            openai);
    }
  }
  return g_string_free(text, FALSE);
}

/* In each format, over the mix of kinds (world_add_mix), at budgets from 500 to 25,000 tokens: the
 * answerTokens the answer states is within 5% of its real tokens (o200k_base's count of the
 * text the model reads, and its pictures by the format's provider's formula), and the real
 * tokens are at most 1.1 times the budget. */
static void cell_answer(Session *s, const char *format) {
  const char *paths[] = {MIX};

  for (size_t b = 0; b < G_N_ELEMENTS(answer_budgets); b++) {
    Req q = {
        .paths = paths, .n = 1, .kind = FOLDER, .budget = answer_budgets[b], .format = format};
    g_autofree char *params = req_params(&q, s->face), *key = NULL, *line = NULL;
    g_autofree char *text = NULL;
    JsonNode *msg;
    JsonObject *result;
    int64_t pictures, stated, real;

    key = rd_conn_request(s->conn, "read", params, NULL);
    line = recv_answer(s->conn, key);
    msg = rd_json_parse(line, strlen(line));
    result = rd_result_of(msg);
    text = model_text(result, format, &pictures);
    stated = json_object_get_int_member_with_default(result, "answerTokens", -1);
    real = o200k_text(text) + pictures;
    printf("%s: budget %" G_GINT64_FORMAT ": answerTokens %" G_GINT64_FORMAT ", real %" G_GINT64_FORMAT
           " (%+.1f%%), %.2f of the budget\n",
           cell, answer_budgets[b], stated, real, 100.0 * (double)(stated - real) / (double)real,
           (double)real / (double)answer_budgets[b]);
    CELL_ASSERT(llabs(stated - real) * 20 <= real,
                "budget %" G_GINT64_FORMAT ": answerTokens %" G_GINT64_FORMAT
                " for an answer of %" G_GINT64_FORMAT " real tokens: %.600s",
                answer_budgets[b], stated, real, text);
    CELL_ASSERT(real * 10 <= answer_budgets[b] * 11,
                "a budget of %" G_GINT64_FORMAT " answered with %" G_GINT64_FORMAT " real tokens",
                answer_budgets[b], real);
    json_node_unref(msg);
  }
}

/* ---- the cells ----------------------------------------------------------------------------- */

typedef void (*Guarantee)(Session *s, const Kind *k);

static const struct {
  const char *name;
  Guarantee run;
  bool o200k; /* needs node and tests/tokens/node_modules */
} guarantees[] = {
    {"fence", cell_fence, false}, {"hostile", cell_hostile, false},
    {"price", cell_price, true},  {"budget", cell_budget, true},
    {"plan", cell_plan, true},    {"continuation", cell_continuation, false},
    {"size", cell_size, false},
};

#define N_GUARANTEES G_N_ELEMENTS(guarantees)
#define N_KIND_CELLS (G_N_ELEMENTS(kinds) * N_FACES * N_GUARANTEES)
/* Then one cell per format: "mix.FORMAT.answer", on the daemon. */
#define N_CELLS (N_KIND_CELLS + G_N_ELEMENTS(formats))

static void cell_name(int i, char *buf, size_t size) {
  const Kind *k = &kinds[i / (N_FACES * N_GUARANTEES)];

  if ((size_t)i >= N_KIND_CELLS) {
    snprintf(buf, size, "mix.%s.answer", formats[(size_t)i - N_KIND_CELLS]);
    return;
  }
  snprintf(buf, size, "%s.%s.%s", k->name, face_names[(i / N_GUARANTEES) % N_FACES],
           guarantees[i % N_GUARANTEES].name);
}

START_TEST(kinds_cell) {
  const Kind *k = &kinds[MIN((size_t)_i, N_KIND_CELLS - 1) / (N_FACES * N_GUARANTEES)];
  Face f = (Face)((_i / N_GUARANTEES) % N_FACES);
  guint g = _i % N_GUARANTEES;
  Session *s;

  cell_name(_i, cell, sizeof cell);
  if ((size_t)_i >= N_KIND_CELLS) {
    if (!o200k_ready())
      SKIP_CASE("%s: node or tests/tokens/node_modules is missing (scripts/deps.sh installs them)",
                cell);
    s = session_open(FACE_DAEMON);
    cell_answer(s, formats[(size_t)_i - N_KIND_CELLS]);
    session_close(s);
    return;
  }
  if (k != FOLDER && !kind_present(k))
    SKIP_CASE("%s: %s is not installed (package %s)", cell, k->source, k->package);
  if (guarantees[g].o200k && !o200k_ready())
    SKIP_CASE("%s: node or tests/tokens/node_modules is missing (scripts/deps.sh installs them)",
              cell);
  s = session_open(f);
  guarantees[g].run(s, k);
  session_close(s);
}
END_TEST

static char *names[N_CELLS];

static Suite *kinds_suite(void) {
  Suite *s = suite_create("kinds");

  for (guint i = 0; i < N_CELLS; i++) {
    char name[96];
    TCase *tc;

    cell_name((int)i, name, sizeof name);
    names[i] = g_strdup(name);
    tc = tcase_create(names[i]);
    tcase_set_timeout(tc, 240);
    tcase_add_loop_test(tc, kinds_cell, (int)i, (int)i + 1);
    suite_add_tcase(s, tc);
  }
  return s;
}

int main(void) {
  g_autofree char *base = NULL;
  int status;

  rd_init();
  skip_init();
  /* Made here, before any cell runs (check's assertions work inside cells only). */
  base = g_dir_make_tmp("readerd-kinds-XXXXXX", NULL);
  if (base == NULL) {
    perror("g_dir_make_tmp");
    return EXIT_FAILURE;
  }
  world_make(base);
  status = skip_status(rd_run_suite(kinds_suite()));
  if (getenv("READERD_TEST_KEEP") != NULL)
    printf("the kinds' files kept in %s\n", base);
  else
    rd_rmtree(base);
  for (guint i = 0; i < N_CELLS; i++)
    g_free(names[i]);
  g_free(root);
  g_free(outside);
  g_free(o200k_dir);
  return status;
}
