/*
 * fuzz_base64.c: the codec that carries a card's bytes from sbatch to the compute node in
 * an environment variable (decoded there as root). The input is decoded as base64 text,
 * and, as raw bytes, encoded and decoded again: that round trip must give the bytes back.
 */
#include "support.h"

#include "sc_codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size), *out = NULL, *encoded;
    size_t len = 0;

    if (sc_base64_decode(text, &out, &len) == 0) {
        sc_fuzz_require(len <= strlen(text) / 4 * 3 && out[len] == '\0',
                        "sc_base64_decode: more bytes than the text can hold");
        free(out);
    }
    encoded = sc_base64_encode(data, size);
    sc_fuzz_require(encoded != NULL, "sc_base64_encode: out of memory");
    out = NULL;
    sc_fuzz_require(sc_base64_decode(encoded, &out, &len) == 0 && len == size &&
                        (size == 0 || memcmp(out, data, size) == 0),
                    "base64: encode then decode did not give the bytes back");
    free(out);
    free(encoded);
    free(text);
    return 0;
}
