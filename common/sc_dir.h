/*
 * sc_dir.h: a directory stream opened relative to a directory handle, the way every reader
 * of a /proc tree, a bundle or the plugin's state directory lists its entries (libc only).
 */
#ifndef SC_DIR_H
#define SC_DIR_H

#include <dirent.h>

/*
 * Opens path (relative to dirfd, or "." for dirfd itself) as a directory stream, with
 * O_RDONLY | O_DIRECTORY | O_CLOEXEC and the caller's extra flags (O_NOFOLLOW). Returns the
 * stream (closedir() closes its descriptor), or NULL with errno set and nothing left open.
 */
DIR *sc_dir_openat(int dirfd, const char *path, int flags);

/*
 * Opens rel under the root directory rootfd (hwloc's HWLOC_FSROOT idea: "/" in production,
 * a fake tree in tests) with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so that
 * symlinks inside the tree (/sys/class/... -> ../../devices/...) stay inside it; leading
 * '/' of rel ignored; O_CLOEXEC added. Kernels before 5.6: plain openat, which lets an
 * absolute symlink leave the root. Returns the descriptor or -errno.
 */
int sc_dir_open_in_root(int rootfd, const char *rel, int flags);

#endif
