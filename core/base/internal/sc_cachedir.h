/*
 * sc_cachedir.h: the per-user cache directory the caches share (internal to the core: the
 * hash cache, sc_hashcache.h, and the answer cache, sc_answercache.h).
 *
 * A cache directory and its files are trusted only when they belong to the caller and
 * nobody else may write them, and a file only up to a size its cache sets; anything else
 * reads as "no cache", never as an error. A cache file is written by replacing it whole (a
 * temporary file renamed over it, not synced: a cache lost in a crash is only a miss), so
 * a concurrent run sees the old or the new one, never half of one.
 */
#ifndef SC_CACHEDIR_H
#define SC_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/*
 * Opens the cache directory dir (no symlink followed at its last step); with create,
 * makes it and its missing parents (0700) first. Returns the descriptor, -EPERM when it is
 * not one we trust, or another -errno.
 */
int sc_cachedir_open(const char *dir, bool create);

/* The text of the cache file name in dfd (NUL-terminated, malloc'd), or NULL when there is
   none we trust (missing, a symlink, not ours, writable by others, larger than max). */
char *sc_cachedir_read(int dfd, const char *name, size_t max);

/* Replaces the cache file name in dfd with len bytes of text (mode 0600). Best effort. */
void sc_cachedir_replace(int dfd, const char *name, const char *text, size_t len);

/*
 * A file's identity as the caches compare it, " <dev> <ino> <size> <mtime> <ctime> <path>"
 * (times to the nanosecond), into buf. Rewriting a file changes its ctime, which no user
 * can set back. 0, or -ENAMETOOLONG when it does not fit or path holds a newline (a line
 * could not name it).
 */
int sc_cachedir_identity(const struct stat *st, const char *path, char *buf, size_t len);

#endif
