/*
 * hash.c: SHA-256 with OpenSSL's libcrypto (see sc_hash.h), through its SHA256_* functions
 * rather than EVP. Same implementation (the CPU's SHA extensions where it has them), but
 * EVP's first digest loads the configuration and initialises the default provider: 3 ms of
 * every streamcard process measured on a 2-core VM (tests/bench/run_breakdown.sh), more than
 * hashing a whole bundle, on the path of every run (issue 22: <= 10 ms added per run).
 * OpenSSL 3 marks these functions deprecated but keeps them through 3.x; signatures
 * (attest.c) stay on EVP.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "sc_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/sha.h>
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
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256_CTX ctx;

    /* Not SHA256(): OpenSSL 3 implements that one through EVP. */
    if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, buf, len) || !SHA256_Final(md, &ctx))
        return -EIO;
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
    unsigned char md[SHA256_DIGEST_LENGTH];
    unsigned char chunk[1 << 16];
    SHA256_CTX ctx;

    if (!SHA256_Init(&ctx))
        return -EIO;
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
        if (!SHA256_Update(&ctx, chunk, (size_t)n))
            return -EIO;
    }
    if (!SHA256_Final(md, &ctx))
        return -EIO;
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
