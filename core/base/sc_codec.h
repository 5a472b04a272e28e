/*
 * sc_codec.h: base64 through OpenSSL's libcrypto, for carrying a card's bytes in an
 * environment variable from sbatch to the compute node.
 */
#ifndef SC_CODEC_H
#define SC_CODEC_H

#include <stddef.h>

/* Encodes len bytes as one line of base64 (malloc'd, NUL-terminated); NULL on ENOMEM. */
char *sc_base64_encode(const void *data, size_t len);

/*
 * Decodes base64 text (no line breaks) into a malloc'd buffer, NUL-terminated for
 * convenience; *len gets the byte count. Returns 0, -EINVAL for bad input, -ENOMEM.
 */
int sc_base64_decode(const char *text, char **out, size_t *len);

#endif
