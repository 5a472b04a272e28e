/*
 * sc_hashcache.h: SHA-256 of files that rarely change (the workload binary, its BLAS and
 * OpenMP libraries), remembered between runs so that hashing a 36 MB library does not
 * delay every run.
 *
 * A hash is reused only when the file is the same file with the same contents as far as
 * the kernel can tell without reading it: same path, device, inode, size, modification
 * time and status-change time (nanoseconds). Rewriting a file changes its ctime, which no
 * user can set back, so a changed library is always hashed again. The cache is one text
 * file, <dir>/sha256-v1, one line per file:
 *
 *   v1 <sha256> <dev> <ino> <size> <mtime_s>.<mtime_ns> <ctime_s>.<ctime_ns> <path>
 *
 * It is trusted only when it and its directory belong to the caller and nobody else may
 * write them; a line that does not parse, a file that is too big or not ours, or any
 * error reading or writing it means "not cached": the file is hashed, never refused.
 * Written by replacing the whole file (a temporary file renamed over it): a concurrent
 * run sees the old or the new cache, never half of one.
 */
#ifndef SC_HASHCACHE_H
#define SC_HASHCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "sc_hash.h"

#define SC_HASHCACHE_FILE "sha256-v1"
#define SC_HASHCACHE_MAX_ENTRIES 64
#define SC_HASHCACHE_MAX_BYTES (64u << 10)

/*
 * The default cache directory, $XDG_CACHE_HOME/streamcard or else $HOME/.cache/streamcard
 * (absolute paths only), into buf. Returns 0, or -ENOENT when neither variable gives one
 * (no cache then), -ENAMETOOLONG when it does not fit.
 */
int sc_hashcache_default_dir(char *buf, size_t len);

/*
 * The SHA-256 of the open regular file fd (read from offset 0), whose name is path, using
 * and updating the cache in dir (NULL: no cache). *hit (may be NULL) says whether the hash
 * came from the cache. Returns 0 or the -errno of hashing the file; cache problems are
 * never errors.
 */
int sc_hashcache_fd(const char *dir, int fd, const char *path, char hex[SC_HASH_HEX_LEN + 1],
                    bool *hit);

#endif
