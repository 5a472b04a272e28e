/* codec.c: base64 with Nettle's base64 functions (see sc_codec.h). */
#include "sc_codec.h"

#include <errno.h>
#include <nettle/base64.h>
#include <stdlib.h>
#include <string.h>

char *sc_base64_encode(const void *data, size_t len)
{
    if (len > (size_t)1 << 30)
        return NULL;
    size_t outlen = BASE64_ENCODE_RAW_LENGTH(len);
    char *out = malloc(outlen + 1);

    if (!out)
        return NULL;
    base64_encode_raw(out, len, data); /* with '=' padding, no line breaks */
    out[outlen] = '\0';
    return out;
}

int sc_base64_decode(const char *text, char **out, size_t *len)
{
    size_t n = strlen(text), got = 0;
    struct base64_decode_ctx ctx;

    /* Whole groups of four only: Nettle would also take unpadded text, and spaces. */
    if (n % 4 != 0 || n > (size_t)1 << 30 ||
        strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != n)
        return -EINVAL;
    char *buf = malloc(BASE64_DECODE_LENGTH(n) + 1);
    if (!buf)
        return -ENOMEM;
    base64_decode_init(&ctx);
    got = BASE64_DECODE_LENGTH(n);
    if (!base64_decode_update(&ctx, &got, (uint8_t *)buf, n, text) || !base64_decode_final(&ctx)) {
        free(buf);
        return -EINVAL;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return 0;
}
