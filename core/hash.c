/* hash.c: SHA-256 with OpenSSL's EVP interface (see sc_hash.h). */
#include "sc_hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
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
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
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
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    unsigned char chunk[1 << 16];
    int rc = -EIO;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();

    if (!ctx)
        return -ENOMEM;
    if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
        goto out_free_ctx;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            goto out_free_ctx;
        }
        if (n == 0)
            break;
        total += (size_t)n;
        if (total > max) {
            rc = -EFBIG;
            goto out_free_ctx;
        }
        if (!EVP_DigestUpdate(ctx, chunk, (size_t)n))
            goto out_free_ctx;
    }
    if (!EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32)
        goto out_free_ctx;
    sc__hash_hex(md, hex);
    rc = 0;
out_free_ctx:
    EVP_MD_CTX_free(ctx);
    return rc;
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
