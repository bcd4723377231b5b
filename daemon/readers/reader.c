#include "daemon/readers/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "daemon/readers/detect.h"
#include "daemon/readers/kinds.h"
#include "daemon/readers/text.h"

#define HEAD_SIZE ((size_t)64 * 1024)

/* One head buffer per worker thread: a file is read by one thread from start to end. */
static __thread uint8_t head_buf[HEAD_SIZE];

static void fail_errno(FileResult *res, int err, const char *what) {
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    file_result_fail(res, CODE_FILE_NOT_FOUND, "no such file");
    break;
  case ELOOP:
    file_result_fail(res, CODE_FILE_NOT_FOUND, "too many levels of symbolic links");
    break;
  case ENAMETOOLONG:
    file_result_fail(res, CODE_FILE_NOT_FOUND, "file name too long");
    break;
  case EACCES:
  case EPERM:
    file_result_fail(res, CODE_ACCESS_DENIED, "permission denied");
    break;
  default:
    file_result_fail(res, CODE_READ_ERROR, "%s failed: %s", what, g_strerror(err));
    break;
  }
}

static const char *file_kind_name(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  return "not a regular file";
}

/* Refuses what is not a regular file, from its mode. Returns true when it may be read. */
static bool check_mode(FileResult *res, const struct stat *st) {
  if (S_ISDIR(st->st_mode)) {
    file_result_fail(res, CODE_IS_DIRECTORY, "is a directory");
    return false;
  }
  if (!S_ISREG(st->st_mode)) {
    file_result_fail(res, CODE_NOT_REGULAR_FILE, "%s, not a regular file",
                     file_kind_name(st->st_mode));
    return false;
  }
  return true;
}

static char *resolve(const ReaderOptions *o, const char *path, const Workspace *ws) {
  const char *base = o->base != NULL ? o->base : workspace_root(ws);

  if (g_path_is_absolute(path) || base == NULL)
    return g_strdup(path);
  return g_build_filename(base, path, NULL);
}

/* The bytes st says its file holds when that size can be trusted to end the file: a regular
 * file with blocks on a disk. 0 when it cannot: procfs, sysfs and their kind make up their
 * files when read (st_size 0 or 4096, no blocks), and an empty file has nothing to trust. */
static size_t trusted_size(const struct stat *st) {
  return S_ISREG(st->st_mode) && st->st_blocks > 0 && st->st_size > 0 ? (size_t)st->st_size : 0;
}

/* Reads up to max (at most HEAD_SIZE) bytes. Returns the count, or a negative errno. A file
 * whose trusted size (trusted_size(), or 0) has come whole is at its end without the read()
 * that would return 0: a file that grows meanwhile is read as fstat described it, as its etag
 * and byte count are. A short read still reads on. */
static ssize_t read_head_max(int fd, size_t max, size_t size, bool *ret_eof) {
  size_t len = 0;

  while (len < max) {
    ssize_t n = read(fd, head_buf + len, max - len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -errno;
    if (n == 0) {
      *ret_eof = true;
      return (ssize_t)len;
    }
    len += (size_t)n;
    if (len == size) {
      *ret_eof = true;
      return (ssize_t)len;
    }
  }
  *ret_eof = false;
  return (ssize_t)len;
}

/* Reads the open file by its kind (kinds.h). Returns false, having read nothing into res, when
 * the file needs blocking work and text_only forbids it. */
static bool read_open_file(const ReaderOptions *o, int fd, const struct stat *st, bool text_only,
                           const atomic_bool *cancelled, FileResult *res) {
  bool eof = false;
  size_t size = trusted_size(st);
  ssize_t n = read_head_max(fd, HEAD_SIZE, size, &eof);
  KindFile file = {.fd = fd, .st = st, .head = head_buf, .size = size};
  const Kind *kind;

  if (n < 0) {
    fail_errno(res, (int)-n, "read");
    return true;
  }
  file.head_len = (size_t)n;
  file.eof = eof;
  file.magic = detect_magic(head_buf, (size_t)n);
  kind = kinds_detect(o, file.magic, head_buf, (size_t)n);
  /* Pictures, PDFs and SVG renders wait on a decoder or a worker process: not on a text lane.
   * Nor do notebooks (their pictures may need the worker; json-glib holds the whole tree) and
   * office documents (a zip is decompressed whole, up to hundreds of MiB): both cost far more
   * than a text file of their size. */
  if (text_only && kind->blocking)
    return false;
  /* Every reader sets its per-file failure in res. */
  kind->read(o, &file, cancelled, res);
  return true;
}

/* Samples the open file for the measure phase (reader_measure). */
static bool sample_open_file(const ReaderOptions *o, int fd, const struct stat *st, size_t max,
                             FileResult *res, ReaderSample *ret) {
  bool eof = false;
  ssize_t n = read_head_max(fd, MIN(max, (size_t)READER_SAMPLE_SIZE), trusted_size(st), &eof);

  memset(ret, 0, sizeof *ret);
  if (n < 0) {
    fail_errno(res, (int)-n, "read");
    ret->head_refused = true;
    return false;
  }
  ret->head = head_buf;
  ret->head_len = (size_t)n;
  ret->eof = eof;
  ret->kind = detect_magic(head_buf, (size_t)n);
  ret->row = kinds_detect(o, ret->kind, head_buf, (size_t)n);
  ret->svg_render = ret->row->type == FILE_TYPE_IMAGE && ret->kind == DETECT_UNKNOWN;
  res->type = ret->row->type;
  if (ret->row->type == FILE_TYPE_TEXT) {
    /* A binary file is refused here as a read would refuse it. */
    if (text_sniff(head_buf, (size_t)n, eof, o->encoding, &ret->encoding, res) < 0) {
      ret->head_refused = true;
      return false;
    }
  }
  return true;
}

/* res's size, time and etag from st; true when that etag is the one the client has. */
static bool stat_metadata(const ReaderOptions *o, FileResult *res, const struct stat *st) {
  res->bytes = (int64_t)st->st_size;
  res->modified_ms = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
  file_result_set_etag(res, (uint64_t)st->st_dev, (uint64_t)st->st_ino, (int64_t)st->st_size,
                       (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec);
  /* The status change time too: a rewrite of the same size with its mtime put back (touch -d,
   * an unpacked archive) moves it, and nobody can set it. */
  file_result_etag_add_time(res, (int64_t)st->st_ctim.tv_sec, (int64_t)st->st_ctim.tv_nsec);
  return o->client_etag != NULL && strcmp(o->client_etag, res->etag) == 0;
}

/* The end of read_file() once fd is open and allowed, st its fstat: the etag, then the sample
 * of a measure or the read. Returns what read_file() returns. */
static bool read_opened(const ReaderOptions *o, int fd, const struct stat *st, bool text_only,
                        const atomic_bool *cancelled, FileResult *res, ReaderSample *sample,
                        size_t sample_size) {
  /* From the descriptor that would be read: a file replaced since the path was checked has
   * the new file's etag. */
  if (stat_metadata(o, res, st)) {
    res->unchanged = true;
    return true;
  }
  if (sample != NULL)
    return sample_size > 0 ? sample_open_file(o, fd, st, sample_size, res, sample) : true;
  if (!read_open_file(o, fd, st, text_only, cancelled, res)) {
    file_result_clear(res);
    return false;
  }
  return true;
}

/* read_file() in a fenced workspace by the short way, when full is plain and reaches its file
 * without a symlink (workspace_open_plain): the fence judges the path itself, so no name is
 * looked up, and the path is walked once for a stat, twice for a read, where resolving it
 * takes three walks and two lookups of a descriptor's name. With o->probe (the expansion
 * found it so) the first walk is not made again. Returns false, res untouched, when
 * it cannot be taken (read_file() then goes the long way); else true with *ret_done. */
static bool read_plain(const ReaderOptions *o, const Workspace *ws, const char *full,
                       bool text_only, const atomic_bool *cancelled, FileResult *res,
                       ReaderSample *sample, size_t sample_size, bool *ret_done) {
  struct stat st;
  int fd, r;

  if (o->probe != NULL) {
    st = *o->probe;
  } else {
    fd = workspace_open_plain(full, O_PATH | O_CLOEXEC);
    if (fd < 0)
      return false;
    r = fstat(fd, &st);
    close(fd);
    if (r < 0) {
      *ret_done = true;
      fail_errno(res, errno, "stat");
      return true;
    }
  }
  *ret_done = true;
  /* What read_file() checks in this order: the fence, the mode, then the .git of an
   * expansion. O_PATH opened nothing of the file itself. */
  if (!workspace_allows_plain(ws, full, res) || !check_mode(res, &st) ||
      (o->expanded && !workspace_allows_expanded_plain(full, res)))
    return true;
  if (sample != NULL && sample_size == 0) {
    res->unchanged = stat_metadata(o, res, &st);
    return true;
  }
  /* Walked again with no symlink allowed: whatever is found there now has the same real path,
   * so the fence's verdict holds; the mode is checked on the descriptor. A path changed in
   * between (a symlink put on the way, the file gone) goes the long way. */
  fd = workspace_open_plain(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return false;
  if (fstat(fd, &st) < 0)
    fail_errno(res, errno, "fstat");
  else if (check_mode(res, &st))
    *ret_done = read_opened(o, fd, &st, text_only, cancelled, res, sample, sample_size);
  close(fd);
  return true;
}

/* reader_read(), or with text_only, false (res cleared) for a file that needs blocking work;
 * with sample, reader_measure() (sample_size bytes of head, none when 0). */
static bool read_file(const ReaderOptions *o, const Workspace *ws, bool text_only,
                      const atomic_bool *cancelled, FileResult *res, ReaderSample *sample,
                      size_t sample_size) {
  g_autofree char *full = NULL, *checked = NULL;
  struct stat st;
  bool done = true;
  int fd = -1;

  res->path = g_strdup(o->path);
  res->bytes = -1;
  res->modified_ms = RESULT_TIME_UNKNOWN;
  if (cancelled != NULL && atomic_load(cancelled)) {
    file_result_fail(res, CODE_CANCELLED, "request cancelled");
    return true;
  }
  full = resolve(o, o->path, ws);
  if (workspace_fenced(ws) &&
      read_plain(o, ws, full, text_only, cancelled, res, sample, sample_size, &done))
    return done;
  /* Outside the workspace: refused before anything else is said of it. */
  if (!workspace_allows_path_real(ws, full, res, &checked))
    return true;
  /* stat before open: a FIFO or a device is refused without ever being opened. */
  if (o->probe != NULL) {
    st = *o->probe;
  } else if (stat(full, &st) < 0) {
    fail_errno(res, errno, "stat");
    return true;
  }
  if (!check_mode(res, &st))
    return true;
  /* A measure without a sample (a file past what a budget can admit): nothing of it is read,
   * so it is opened as a path only (O_PATH: no open of the file itself, nothing a watcher
   * sees), which the fence checks by what it names and fstat describes. */
  if (sample != NULL && sample_size == 0 && !workspace_fenced(ws) && !o->expanded) {
    /* No fence: the stat says all there is to say. */
    res->unchanged = stat_metadata(o, res, &st);
    return true;
  }
  if (sample != NULL && sample_size == 0) {
    fd = open(full, O_PATH | O_CLOEXEC);
    if (fd < 0) {
      fail_errno(res, errno, "open");
      return true;
    }
    if (fstat(fd, &st) < 0)
      fail_errno(res, errno, "fstat");
    else if (check_mode(res, &st) && workspace_allows_checked(ws, fd, o->path, checked, res) &&
             (!o->expanded || workspace_allows_expanded(fd, res)))
      res->unchanged = stat_metadata(o, res, &st);
    goto finish;
  }
  fd = open(full, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    fail_errno(res, errno, "open");
    return true;
  }
  /* The path may have been swapped between stat and open: trust only the descriptor. */
  if (fstat(fd, &st) < 0) {
    fail_errno(res, errno, "fstat");
    goto finish;
  }
  if (!check_mode(res, &st) || !workspace_allows_checked(ws, fd, o->path, checked, res) ||
      (o->expanded && !workspace_allows_expanded(fd, res)))
    goto finish;
  done = read_opened(o, fd, &st, text_only, cancelled, res, sample, sample_size);

finish:
  close(fd);
  return done;
}

void reader_read(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                 FileResult *res) {
  (void)read_file(o, ws, false, cancelled, res, NULL, 0);
}

bool reader_read_text(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                      FileResult *res) {
  return read_file(o, ws, true, cancelled, res, NULL, 0);
}

bool reader_measure(const ReaderOptions *o, const Workspace *ws, const atomic_bool *cancelled,
                    size_t sample, FileResult *res, ReaderSample *ret) {
  memset(ret, 0, sizeof *ret);
  return read_file(o, ws, false, cancelled, res, ret, sample) && res->code == NULL;
}
