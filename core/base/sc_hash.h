/*
 * sc_hash.h: SHA-256 through Nettle (hash.c says why not OpenSSL), as lowercase hex.
 */
#ifndef SC_HASH_H
#define SC_HASH_H

#include <stddef.h>

#define SC_HASH_HEX_LEN 64 /* hex digits of a SHA-256; buffers need one more for NUL */

/* Hashes len bytes of buf. Returns 0. */
int sc_hash_buf(const void *buf, size_t len, char hex[SC_HASH_HEX_LEN + 1]);
/* Hashes everything readable from fd (from its current offset). Returns 0 or -errno. */
int sc_hash_fd(int fd, char hex[SC_HASH_HEX_LEN + 1]);
/* As sc_hash_fd(), streamed in 64 KiB chunks, but -EFBIG once more than max bytes come
   (a file that grows while it is hashed). */
int sc_hash_fd_max(int fd, size_t max, char hex[SC_HASH_HEX_LEN + 1]);
/* Hashes the regular file rel under dirfd, never following a final symlink and never
   waiting on a fifo (-EINVAL: not a regular file). Returns 0 or -errno. */
int sc_hash_file_at(int dirfd, const char *rel, char hex[SC_HASH_HEX_LEN + 1]);

#endif
