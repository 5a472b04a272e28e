/*
 * sc_libcrypto.h: OpenSSL's libcrypto, loaded the first time a signature is made or checked
 * (attest.c), not when a streamcard process starts: loading it (its relocations and pages)
 * cost 1.5 ms of every `streamcard run` on a 2-core VM, 15% of the 10 ms a run may add,
 * and a run outside the plugin signs nothing. SHA-256 and base64 come from
 * Nettle (hash.c, codec.c), which loads in a tenth of that.
 *
 * The prototypes are OpenSSL's own (its headers, typeof), so a call through the table is
 * checked like a direct one. The library is dlopen'd by its soname (libcrypto.so.<major>
 * of the headers built against) from the system's library path only, never from a path a
 * caller names: the plugin loads it as root.
 */
#ifndef SC_LIBCRYPTO_H
#define SC_LIBCRYPTO_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stddef.h>

/* Every libcrypto function streamcard calls. */
#define SC_LIBCRYPTO_FUNCTIONS(X)                                                              \
    X(OPENSSL_init_crypto)                                                                     \
    X(OPENSSL_cleanse)                                                                         \
    X(BIO_new)                                                                                 \
    X(BIO_new_mem_buf)                                                                         \
    X(BIO_s_mem)                                                                               \
    X(BIO_ctrl)                                                                                \
    X(BIO_free)                                                                                \
    X(PEM_read_bio_PrivateKey)                                                                 \
    X(PEM_read_bio_PUBKEY)                                                                     \
    X(PEM_write_bio_PrivateKey)                                                                \
    X(PEM_write_bio_PUBKEY)                                                                    \
    X(EVP_PKEY_Q_keygen)                                                                       \
    X(EVP_PKEY_free)                                                                           \
    X(EVP_PKEY_get_id)                                                                         \
    X(EVP_PKEY_get_raw_public_key)                                                             \
    X(EVP_MD_CTX_new)                                                                          \
    X(EVP_MD_CTX_free)                                                                         \
    X(EVP_DigestSignInit)                                                                      \
    X(EVP_DigestSign)                                                                          \
    X(EVP_DigestVerifyInit)                                                                    \
    X(EVP_DigestVerify)

/* f names a member too: it cannot be parenthesised. */
#define SC__LIBCRYPTO_MEMBER(f) __typeof__(f) *f; /* NOLINT(bugprone-macro-parentheses) */
typedef struct sc_libcrypto {
    SC_LIBCRYPTO_FUNCTIONS(SC__LIBCRYPTO_MEMBER)
} sc_libcrypto;
#undef SC__LIBCRYPTO_MEMBER

/*
 * The table, loaded once per process (thread-safe), OpenSSL initialised without its atexit
 * clean-up (the process ends anyway, and the kernel frees its memory faster). NULL when
 * libcrypto cannot be loaded or lacks a function; sc_libcrypto_error() then says why.
 */
const sc_libcrypto *sc_libcrypto_get(void);
const char *sc_libcrypto_error(void);

#endif
