/* codec.c: base64 with OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock (see sc_codec.h). */
#include "sc_codec.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

char *sc_base64_encode(const void *data, size_t len)
{
    size_t outlen = 4 * ((len + 2) / 3);
    char *out = malloc(outlen + 1);

    if (!out || len > (size_t)1 << 30) {
        free(out);
        return NULL;
    }
    EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    out[outlen] = '\0';
    return out;
}

int sc_base64_decode(const char *text, char **out, size_t *len)
{
    size_t n = strlen(text);

    if (n % 4 != 0 || n > (size_t)1 << 30)
        return -EINVAL;
    char *buf = malloc(n / 4 * 3 + 1);
    if (!buf)
        return -ENOMEM;
    int got = EVP_DecodeBlock((unsigned char *)buf, (const unsigned char *)text, (int)n);
    if (got < 0) {
        free(buf);
        return -EINVAL;
    }
    /* EVP_DecodeBlock counts the '=' padding as zero bytes: take them off. */
    if (n >= 1 && text[n - 1] == '=')
        got--;
    if (n >= 2 && text[n - 2] == '=')
        got--;
    buf[got] = '\0';
    *out = buf;
    *len = (size_t)got;
    return 0;
}
