/*
 * attest.c: node keys and DSSE envelopes with OpenSSL 3's EVP interface (sc_attest.h):
 * Ed25519 signs the message itself (EVP_DigestSign with no digest), so nothing here
 * hashes before signing; the fingerprint is SHA-256 (sc_hash.h). libcrypto is loaded by
 * the first call that needs it (internal/sc_libcrypto.h): C below is its table.
 */
#include "sc_attest.h"
#include "sc_dir.h"
#include "sc_codec.h"
#include "sc_file.h"
#include "sc_hash.h"
#include "internal/sc_libcrypto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sc_attest_key {
    EVP_PKEY *pkey;
    char fpr[SC_ATTEST_FPR_LEN + 1];
};

static void sc__why(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sc__why(char *why, size_t whylen, const char *fmt, ...)
{
    va_list ap;

    if (!why || !whylen)
        return;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
}

/* Wraps pkey (taken over) when it is an Ed25519 key; computes its fingerprint. */
static int sc__key_wrap(EVP_PKEY *pkey, sc_attest_key **out)
{
    const sc_libcrypto *C = sc_libcrypto_get(); /* loaded: pkey came from it */
    unsigned char raw[32];
    size_t len = sizeof(raw);
    sc_attest_key *k;

    *out = NULL;
    if (!pkey || !C)
        return -EINVAL;
    if (C->EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519 ||
        C->EVP_PKEY_get_raw_public_key(pkey, raw, &len) != 1 || len != sizeof(raw)) {
        C->EVP_PKEY_free(pkey);
        return -EINVAL;
    }
    k = calloc(1, sizeof(*k));
    if (!k || sc_hash_buf(raw, len, k->fpr) < 0) {
        free(k);
        C->EVP_PKEY_free(pkey);
        return -ENOMEM;
    }
    k->pkey = pkey;
    *out = k;
    return 0;
}

void sc_attest_key_free(sc_attest_key *k)
{
    const sc_libcrypto *C = sc_libcrypto_get(); /* loaded: a key came from it */

    if (!k)
        return;
    if (C)
        C->EVP_PKEY_free(k->pkey);
    free(k);
}

const char *sc_attest_key_fingerprint(const sc_attest_key *k)
{
    return k->fpr;
}

/* Reads a key file: a regular file, not a symlink, bounded; private: not readable by
   group or others. */
static int sc__read_keyfile(const char *path, bool private, char **text, size_t *len, char *why,
                            size_t whylen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    int rc = fd < 0 ? -errno : 0;

    if (rc == 0 && fstat(fd, &st) < 0)
        rc = -errno;
    if (rc == 0 && !S_ISREG(st.st_mode))
        rc = -EINVAL;
    if (rc == 0 && private && (st.st_mode & 077))
        rc = -EPERM;
    if (rc == 0)
        rc = sc_file_read_fd(fd, SC_ATTEST_MAX_KEYFILE, text, len);
    if (fd >= 0)
        close(fd);
    if (rc == -EPERM)
        sc__why(why, whylen,
                "streamcard: key %s: group or others may read it (valid: mode 0600, root's)", path);
    else if (rc < 0)
        sc__why(why, whylen, "streamcard: key %s: %s (valid: a PEM file of at most %d bytes)", path,
                rc == -EINVAL ? "not a regular file" : strerror(-rc), SC_ATTEST_MAX_KEYFILE);
    return rc;
}

static int sc__load(const char *path, bool private, sc_attest_key **out, char *why, size_t whylen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = sc__read_keyfile(path, private, &text, &len, why, whylen);
    const sc_libcrypto *C = rc < 0 ? NULL : sc_libcrypto_get();

    *out = NULL;
    if (rc < 0)
        return rc;
    if (!C) {
        sc__why(why, whylen, "streamcard: key %s: %s", path, sc_libcrypto_error());
        free(text);
        return -ENOSYS;
    }
    BIO *bio = C->BIO_new_mem_buf(text, (int)len);
    EVP_PKEY *pkey = !bio      ? NULL
                     : private ? C->PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
                               : C->PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    C->BIO_free(bio);
    C->OPENSSL_cleanse(text, len);
    free(text);
    rc = sc__key_wrap(pkey, out);
    if (rc == -EINVAL)
        sc__why(why, whylen,
                "streamcard: key %s: not an Ed25519 %s key in PEM (valid: what "
                "streamcard keygen writes)",
                path, private ? "private" : "public");
    return rc;
}

int sc_attest_key_load_private(const char *path, sc_attest_key **out, char *why, size_t whylen)
{
    return sc__load(path, true, out, why, whylen);
}

int sc_attest_key_load_public(const char *path, sc_attest_key **out, char *why, size_t whylen)
{
    return sc__load(path, false, out, why, whylen);
}

/* Writes a BIO's PEM text to dir/name, created exclusively with mode. */
static int sc__write_pem(const sc_libcrypto *C, int dirfd, const char *name, int mode, BIO *bio)
{
    char *data = NULL;
    long len = C->BIO_ctrl(bio, BIO_CTRL_INFO, 0, (char *)&data); /* BIO_get_mem_data */
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    int rc = fd < 0 ? -errno : 0;

    if (rc == 0 && fchmod(fd, (mode_t)mode) < 0) /* whatever the umask */
        rc = -errno;
    if (rc == 0)
        rc = sc_file_write_all(fd, data, (size_t)len);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

int sc_attest_keygen(const char *dir, char fpr[SC_ATTEST_FPR_LEN + 1], char *why, size_t whylen)
{
    const sc_libcrypto *C = sc_libcrypto_get();

    if (!C) {
        sc__why(why, whylen, "streamcard: keygen: %s", sc_libcrypto_error());
        return -ENOSYS;
    }
    EVP_PKEY *pkey = C->EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    BIO *priv = C->BIO_new(C->BIO_s_mem()), *pub = C->BIO_new(C->BIO_s_mem());
    sc_attest_key *k = NULL;
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = dirfd < 0 ? -errno : 0;

    if (rc < 0)
        sc__why(why, whylen, "streamcard: keygen: %s: %s (valid: an existing directory)", dir,
                strerror(-rc));
    else if (!pkey || !priv || !pub ||
             C->PEM_write_bio_PrivateKey(priv, pkey, NULL, NULL, 0, NULL, NULL) != 1 ||
             C->PEM_write_bio_PUBKEY(pub, pkey) != 1)
        rc = -ENOMEM;
    if (rc == 0) {
        rc = sc__write_pem(C, dirfd, "node.key", 0600, priv);
        if (rc < 0)
            sc__why(why, whylen,
                    "streamcard: keygen: %s/node.key: %s (valid: a directory "
                    "without a key; an existing key is never replaced)",
                    dir, strerror(-rc));
    }
    if (rc == 0) {
        rc = sc__write_pem(C, dirfd, "node.pub", 0644, pub);
        if (rc < 0) {
            unlinkat(dirfd, "node.key", 0);
            sc__why(why, whylen, "streamcard: keygen: %s/node.pub: %s", dir, strerror(-rc));
        }
    }
    if (rc == 0) {
        rc = sc__key_wrap(pkey, &k); /* takes pkey over */
        pkey = NULL;
        if (rc == 0)
            memcpy(fpr, k->fpr, SC_ATTEST_FPR_LEN + 1);
    }
    C->EVP_PKEY_free(pkey);
    sc_attest_key_free(k);
    C->BIO_free(priv);
    C->BIO_free(pub);
    if (dirfd >= 0)
        close(dirfd);
    return rc;
}

/* ---- trusted keys ---- */

int sc_attest_keyring_load(sc_attest_keyring *ring, const char *dir, char *why, size_t whylen)
{
    struct dirent *e;
    char path[4096];
    int rc = 0;

    memset(ring, 0, sizeof(*ring));
    DIR *d = sc_dir_openat(AT_FDCWD, dir, O_NOFOLLOW);
    if (!d)
        return -errno;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        sc_attest_key *k = NULL;
        if (n < 5 || strcmp(e->d_name + n - 4, ".pub") != 0 || e->d_name[0] == '.')
            continue;
        if (ring->n == SC_ATTEST_MAX_KEYS) {
            sc__why(why, whylen, "streamcard: keys %s: more than %d keys: the rest is ignored", dir,
                    SC_ATTEST_MAX_KEYS);
            break;
        }
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        rc = sc__load(path, false, &k, why, whylen);
        if (rc == -ENOMEM)
            break;
        rc = 0; /* a file that is not a key is skipped; why names it */
        if (k)
            ring->keys[ring->n++] = k;
    }
    closedir(d);
    return rc;
}

void sc_attest_keyring_free(sc_attest_keyring *ring)
{
    for (size_t i = 0; ring && i < ring->n; i++)
        sc_attest_key_free(ring->keys[i]);
    if (ring)
        memset(ring, 0, sizeof(*ring));
}

/* ---- DSSE ---- */

/* DSSE's pre-authentication encoding of the payload (malloc'd, *len bytes). */
static unsigned char *sc__pae(const char *payload, size_t len, size_t *out_len)
{
    const char *type = SC_ATTEST_PAYLOAD_TYPE;
    char head[128];
    int n = snprintf(head, sizeof(head), "DSSEv1 %zu %s %zu ", strlen(type), type, len);
    unsigned char *buf = n > 0 ? malloc((size_t)n + len) : NULL;

    if (!buf)
        return NULL;
    memcpy(buf, head, (size_t)n);
    memcpy(buf + n, payload, len);
    *out_len = (size_t)n + len;
    return buf;
}

int sc_attest_sign(const sc_attest_key *k, const char *payload, size_t len, char **envelope)
{
    const sc_libcrypto *C = sc_libcrypto_get(); /* loaded: k came from it */
    size_t pae_len = 0, sig_len = 0;
    unsigned char *pae = sc__pae(payload, len, &pae_len), sig[64];
    EVP_MD_CTX *ctx = C ? C->EVP_MD_CTX_new() : NULL;
    char *b64_payload = sc_base64_encode(payload, len), *b64_sig = NULL;
    json_object *env = NULL, *sigs, *one;
    int rc = pae && ctx && b64_payload ? 0 : -ENOMEM;

    *envelope = NULL;
    sig_len = sizeof(sig);
    if (rc == 0 && (C->EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) != 1 ||
                    C->EVP_DigestSign(ctx, sig, &sig_len, pae, pae_len) != 1))
        rc = -EIO;
    if (rc == 0 && !(b64_sig = sc_base64_encode(sig, sig_len)))
        rc = -ENOMEM;
    if (rc == 0) {
        env = json_object_new_object();
        sigs = json_object_new_array();
        one = json_object_new_object();
        json_object_object_add(one, "keyid", json_object_new_string(k->fpr));
        json_object_object_add(one, "sig", json_object_new_string(b64_sig));
        json_object_array_add(sigs, one);
        json_object_object_add(env, "payloadType", json_object_new_string(SC_ATTEST_PAYLOAD_TYPE));
        json_object_object_add(env, "payload", json_object_new_string(b64_payload));
        json_object_object_add(env, "signatures", sigs);
        const char *text = json_object_to_json_string_ext(env, JSON_C_TO_STRING_PLAIN |
                                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
        *envelope = text ? malloc(strlen(text) + 2) : NULL;
        if (*envelope)
            sprintf(*envelope, "%s\n", text);
        else
            rc = -ENOMEM;
    }
    json_object_put(env);
    if (C)
        C->EVP_MD_CTX_free(ctx);
    free(pae);
    free(b64_payload);
    free(b64_sig);
    return rc;
}

/* The envelope's JSON: an object, at most SC_ATTEST_MAX_ENVELOPE bytes, nesting 4. */
static int sc__parse_envelope(const char *text, size_t len, json_object **out)
{
    json_tokener *tok;

    *out = NULL;
    if (len > SC_ATTEST_MAX_ENVELOPE)
        return -EFBIG;
    tok = json_tokener_new_ex(4);
    if (!tok)
        return -ENOMEM;
    *out = json_tokener_parse_ex(tok, text, (int)len);
    if (*out && json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(*out);
        *out = NULL;
    }
    json_tokener_free(tok);
    if (*out && !json_object_is_type(*out, json_type_object)) {
        json_object_put(*out);
        *out = NULL;
    }
    return *out ? 0 : -EBADMSG;
}

/* A string member of obj, or NULL. */
static const char *sc__str(json_object *obj, const char *key)
{
    json_object *v;

    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

static int sc__envelope_payload(json_object *env, char **payload, size_t *len)
{
    const char *type = sc__str(env, "payloadType"), *b64 = sc__str(env, "payload");

    if (!type || strcmp(type, SC_ATTEST_PAYLOAD_TYPE) != 0 || !b64)
        return -EBADMSG;
    int rc = sc_base64_decode(b64, payload, len);
    return rc == -EINVAL ? -EBADMSG : rc;
}

int sc_attest_payload(const char *envelope, size_t len, char **payload)
{
    json_object *env;
    size_t n;
    int rc = sc__parse_envelope(envelope, len, &env);

    *payload = NULL;
    if (rc == 0)
        rc = sc__envelope_payload(env, payload, &n);
    json_object_put(env);
    return rc;
}

static const sc_attest_key *sc__ring_find(const sc_attest_keyring *ring, const char *fpr)
{
    for (size_t i = 0; ring && i < ring->n; i++)
        if (strcmp(ring->keys[i]->fpr, fpr) == 0)
            return ring->keys[i];
    return NULL;
}

static bool sc__sig_verifies(const sc_attest_key *k, const char *b64_sig, const unsigned char *pae,
                             size_t pae_len)
{
    const sc_libcrypto *C = sc_libcrypto_get(); /* loaded: k came from it */
    char *sig = NULL;
    size_t sig_len = 0;
    EVP_MD_CTX *ctx = C ? C->EVP_MD_CTX_new() : NULL;
    bool ok = ctx && sc_base64_decode(b64_sig, &sig, &sig_len) == 0 && sig_len == 64 &&
              C->EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
              C->EVP_DigestVerify(ctx, (unsigned char *)sig, sig_len, pae, pae_len) == 1;

    if (C)
        C->EVP_MD_CTX_free(ctx);
    free(sig);
    return ok;
}

int sc_attest_open(const sc_attest_keyring *ring, const char *envelope, size_t len, char **payload,
                   char fpr[SC_ATTEST_FPR_LEN + 1], char *why, size_t whylen)
{
    json_object *env = NULL, *sigs = NULL;
    size_t plen = 0, pae_len = 0;
    unsigned char *pae = NULL;
    int rc = sc__parse_envelope(envelope, len, &env);

    *payload = NULL;
    *fpr = '\0';
    if (rc == 0)
        rc = sc__envelope_payload(env, payload, &plen);
    if (rc == 0 && (!json_object_object_get_ex(env, "signatures", &sigs) ||
                    !json_object_is_type(sigs, json_type_array)))
        rc = -EBADMSG;
    if (rc == 0 && !(pae = sc__pae(*payload, plen, &pae_len)))
        rc = -ENOMEM;
    if (rc < 0) {
        sc__why(why, whylen, "%s",
                rc == -EFBIG    ? "larger than 64 KiB"
                : rc == -ENOMEM ? strerror(ENOMEM)
                                : "not a DSSE envelope of an in-toto statement");
        goto out;
    }
    rc = -ENOKEY;
    size_t n = json_object_array_length(sigs);
    for (size_t i = 0; i < n && i < SC_ATTEST_MAX_SIGNATURES && rc != 0; i++) {
        json_object *s = json_object_array_get_idx(sigs, i);
        const char *keyid = json_object_is_type(s, json_type_object) ? sc__str(s, "keyid") : NULL;
        const char *sig = keyid ? sc__str(s, "sig") : NULL;
        const sc_attest_key *k = keyid ? sc__ring_find(ring, keyid) : NULL;
        if (keyid && !*fpr && strlen(keyid) == SC_ATTEST_FPR_LEN &&
            strspn(keyid, "0123456789abcdef") == SC_ATTEST_FPR_LEN)
            memcpy(fpr, keyid, SC_ATTEST_FPR_LEN + 1);
        if (!k || !sig)
            continue;
        if (sc__sig_verifies(k, sig, pae, pae_len)) {
            memcpy(fpr, k->fpr, SC_ATTEST_FPR_LEN + 1);
            rc = 0;
        } else {
            rc = -EKEYREJECTED; /* a trusted key's signature that does not hold */
            memcpy(fpr, k->fpr, SC_ATTEST_FPR_LEN + 1);
            break;
        }
    }
    if (rc == -ENOKEY)
        sc__why(why, whylen, "signed by no trusted key (%s%s)", *fpr ? "key " : "no key named",
                fpr);
    else if (rc == -EKEYREJECTED)
        sc__why(why, whylen, "the signature of key %s does not verify: the statement was changed",
                fpr);
out:
    if (rc < 0) {
        free(*payload);
        *payload = NULL;
    }
    free(pae);
    json_object_put(env);
    return rc;
}
