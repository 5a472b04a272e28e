/*
 * hash.c: SHA-256 with Nettle (see sc_hash.h). Not OpenSSL's libcrypto: loading it costs
 * every streamcard process 1.5 ms and its EVP interface 3 ms more at the first digest,
 * measured on a 2-core VM (tests/bench/run_breakdown.sh), on the path of every run, whose
 * added wall time is a budget of milliseconds. Nettle loads in a tenth of that and hashes at
 * 0.96 GB/s there (OpenSSL: 1.2), which the per-user hash cache makes a first run's cost.
 */
#include "sc_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static void sc__hash_hex(const unsigned char *md, char hex[SC_HASH_HEX_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";

    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[md[i] >> 4];
        hex[2 * i + 1] = digits[md[i] & 15];
    }
    hex[SC_HASH_HEX_LEN] = '\0';
}

int sc_hash_buf(const void *buf, size_t len, char hex[SC_HASH_HEX_LEN + 1])
{
    unsigned char md[SHA256_DIGEST_SIZE];
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    sha256_update(&ctx, len, buf);
    sha256_digest(&ctx, sizeof(md), md);
    sc__hash_hex(md, hex);
    return 0;
}

int sc_hash_fd(int fd, char hex[SC_HASH_HEX_LEN + 1])
{
    return sc_hash_fd_max(fd, SIZE_MAX, hex);
}

int sc_hash_fd_max(int fd, size_t max, char hex[SC_HASH_HEX_LEN + 1])
{
    size_t total = 0;
    unsigned char md[SHA256_DIGEST_SIZE];
    unsigned char chunk[1 << 16];
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            break;
        total += (size_t)n;
        if (total > max)
            return -EFBIG;
        sha256_update(&ctx, (size_t)n, chunk);
    }
    sha256_digest(&ctx, sizeof(md), md);
    sc__hash_hex(md, hex);
    return 0;
}

int sc_hash_file_at(int dirfd, const char *rel, char hex[SC_HASH_HEX_LEN + 1])
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    struct stat st;

    if (fd < 0)
        return -errno;
    int rc = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
    if (rc == 0)
        rc = sc_hash_fd(fd, hex);
    close(fd);
    return rc;
}
