#include "daemon/socket-path.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>

/* Checks the folder that will hold the socket: anyone who can write there could replace the
 * socket with their own, and a folder of someone else's is not ours to listen in. */
static int check_folder(const char *dir, char **ret_error) {
  struct stat st;

  if (lstat(dir, &st) < 0) {
    int r = -errno;

    if (r == -ENOENT || r == -ENOTDIR)
      *ret_error = g_strdup_printf("no such folder: %s", dir);
    else
      *ret_error = g_strdup_printf("cannot use the folder %s: %s", dir, g_strerror(-r));
    return r;
  }
  if (S_ISLNK(st.st_mode)) {
    *ret_error = g_strdup_printf("the folder %s is a symlink; give the real folder", dir);
    return -ELOOP;
  }
  if (!S_ISDIR(st.st_mode)) {
    *ret_error = g_strdup_printf("%s is not a folder", dir);
    return -ENOTDIR;
  }
  if (st.st_uid != geteuid()) {
    *ret_error = g_strdup_printf("the folder %s belongs to uid %u, not to this user (uid %u)", dir,
                                 (unsigned)st.st_uid, (unsigned)geteuid());
    return -EPERM;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    *ret_error = g_strdup_printf("the folder %s is writable by others (mode %04o); use a folder "
                                 "only you can write to",
                                 dir, (unsigned)(st.st_mode & 07777));
    return -EPERM;
  }
  return 0;
}

int socket_path_check(const char *path, char **ret_error) {
  struct sockaddr_un sa;
  g_autofree char *dir = NULL;

  if (path == NULL || *path == '\0') {
    *ret_error = g_strdup("the socket path is empty (an abstract socket, which any user can "
                          "connect to); give a path in a folder of your own");
    return -EINVAL;
  }
  if (*path == '@') {
    *ret_error = g_strdup_printf("%s names an abstract socket, which any user can connect to; "
                                 "give a path in a folder of your own",
                                 path);
    return -EINVAL;
  }
  if (strlen(path) >= sizeof(sa.sun_path)) {
    *ret_error = g_strdup_printf("the socket path is longer than %zu bytes: %s",
                                 sizeof(sa.sun_path) - 1, path);
    return -ENAMETOOLONG;
  }
  dir = g_path_get_dirname(path);
  return check_folder(dir, ret_error);
}
