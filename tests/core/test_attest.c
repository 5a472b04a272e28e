/*
 * test_attest.c: node keys, DSSE envelopes and the statement reader (sc_attest.h), with
 * real OpenSSL keys made in a temporary directory.
 */
#include "sc_attest.h"
#include "sc_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char sc__dir[64], sc__dir2[64], sc__ring_dir[64];

static void sc__claims(sc_attest_claims *c)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->phase, sizeof(c->phase), "apply");
    snprintf(c->role, sizeof(c->role), "main");
    c->job_id = 42;
    snprintf(c->step, sizeof(c->step), "batch");
    c->uid = 1000;
    snprintf(c->user, sizeof(c->user), "alice");
    snprintf(c->node, sizeof(c->node), "n01");
    snprintf(c->time, sizeof(c->time), "2026-12-01T19:00:00Z");
    snprintf(c->card_sha256, sizeof(c->card_sha256), "%064d", 7);
    snprintf(c->job_cpus, sizeof(c->job_cpus), "0-1");
    snprintf(c->job_mems, sizeof(c->job_mems), "0");
    snprintf(c->kernel_tainted, sizeof(c->kernel_tainted), "0");
    snprintf(c->microcode, sizeof(c->microcode), "0xa201016");
    snprintf(c->plugin_version, sizeof(c->plugin_version), "0.1.0");
    snprintf(c->plugin_build, sizeof(c->plugin_build), "%064d", 9);
    sc_attest_claims_subject(c, "card.yaml", "version: 1\n");
    sc_attest_claims_state(c, "REQUESTED_PREFETCH=off\nOBSERVED_STATE=off\nSTATE_VALID=1\n");
}

/* An envelope of the claims signed with the key of dir. */
static char *sc__signed(const char *dir)
{
    char path[128], *json = NULL, *env = NULL, why[256] = "";
    sc_attest_key *k = NULL;
    sc_attest_claims c;

    snprintf(path, sizeof(path), "%s/node.key", dir);
    sc__claims(&c);
    if (sc_attest_key_load_private(path, &k, why, sizeof(why)) == 0 &&
        sc_attest_statement_make(&c, &json) == 0)
        sc_attest_sign(k, json, strlen(json), &env);
    sc_attest_key_free(k);
    free(json);
    return env;
}

static void test_keygen_modes_and_no_overwrite(void)
{
    char fpr[SC_ATTEST_FPR_LEN + 1], again[SC_ATTEST_FPR_LEN + 1], path[128], why[256] = "";
    struct stat st;

    SC_CHECK_INT_EQ(sc_attest_keygen(sc__dir, fpr, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(strlen(fpr), SC_ATTEST_FPR_LEN);
    snprintf(path, sizeof(path), "%s/node.key", sc__dir);
    SC_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    snprintf(path, sizeof(path), "%s/node.pub", sc__dir);
    SC_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    /* An existing key is never replaced. */
    SC_CHECK_INT_EQ(sc_attest_keygen(sc__dir, again, why, sizeof(why)), -EEXIST);
    SC_CHECK_STR_CONTAINS(why, "never replaced");
    sc_attest_key *k = NULL;
    SC_CHECK_INT_EQ(sc_attest_key_load_public(path, &k, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(sc_attest_key_fingerprint(k), fpr);
    sc_attest_key_free(k);
}

static void test_private_key_readable_by_others_refused(void)
{
    char path[128], why[256] = "";
    sc_attest_key *k = NULL;

    snprintf(path, sizeof(path), "%s/node.key", sc__dir);
    SC_CHECK(chmod(path, 0644) == 0);
    int rc = sc_attest_key_load_private(path, &k, why, sizeof(why));
    chmod(path, 0600);
    SC_CHECK_INT_EQ(rc, -EPERM);
    SC_CHECK_STR_CONTAINS(why, "group or others may read it");
    /* A public key is not a private key. */
    snprintf(path, sizeof(path), "%s/node.pub", sc__dir);
    chmod(path, 0600);
    rc = sc_attest_key_load_private(path, &k, why, sizeof(why));
    chmod(path, 0644);
    SC_CHECK_INT_EQ(rc, -EINVAL);
}

static void test_sign_open_and_tamper(void)
{
    sc_attest_keyring ring;
    char fpr[SC_ATTEST_FPR_LEN + 1], *payload = NULL, why[256] = "";
    char *env = sc__signed(sc__dir);

    SC_CHECK(env != NULL);
    SC_CHECK_STR_CONTAINS(env, "\"payloadType\":\"application/vnd.in-toto+json\"");
    SC_CHECK_INT_EQ(sc_attest_keyring_load(&ring, sc__ring_dir, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(ring.n, 2); /* rotation: two keys trusted at once */
    int rc = sc_attest_open(&ring, env, strlen(env), &payload, fpr, why, sizeof(why));
    SC_CHECK_INT_EQ(rc, 0);
    SC_CHECK_STR_CONTAINS(payload, "\"predicateType\":\"" SC_ATTEST_PREDICATE_TYPE "\"");
    sc_attest_claims c;
    SC_CHECK_INT_EQ(sc_attest_statement_parse(payload, strlen(payload), &c, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(c.job_id, 42);
    SC_CHECK_STR_EQ(sc_attest_claims_get(&c, "OBSERVED_STATE"), "off");
    SC_CHECK_STR_EQ(c.subjects[0].name, "card.yaml");
    free(payload);

    /* One byte of the payload changed: the trusted key's signature no longer holds. */
    char *p = strstr(env, "\"payload\":\"") + 11;
    p[20] = p[20] == 'A' ? 'B' : 'A';
    rc = sc_attest_open(&ring, env, strlen(env), &payload, fpr, why, sizeof(why));
    SC_CHECK_INT_EQ(rc, -EKEYREJECTED);
    SC_CHECK_STR_CONTAINS(why, "does not verify");
    SC_CHECK(payload == NULL);
    free(env);
    sc_attest_keyring_free(&ring);
}

static void test_untrusted_key(void)
{
    sc_attest_keyring ring;
    char fpr[SC_ATTEST_FPR_LEN + 1], *payload = NULL, why[256] = "";
    char *env = sc__signed(sc__dir2); /* dir2's key is not in sc__dir's ring */

    SC_CHECK(env != NULL);
    char ring_only_first[64];
    snprintf(ring_only_first, sizeof(ring_only_first), "%s", sc__dir);
    SC_CHECK_INT_EQ(sc_attest_keyring_load(&ring, ring_only_first, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(ring.n, 1);
    int rc = sc_attest_open(&ring, env, strlen(env), &payload, fpr, why, sizeof(why));
    SC_CHECK_INT_EQ(rc, -ENOKEY);
    SC_CHECK_STR_CONTAINS(why, "signed by no trusted key");
    SC_CHECK_INT_EQ(strlen(fpr), SC_ATTEST_FPR_LEN);
    free(env);
    sc_attest_keyring_free(&ring);
}

static void test_envelope_bounds(void)
{
    sc_attest_keyring ring = {.n = 0};
    char fpr[SC_ATTEST_FPR_LEN + 1], *payload = NULL, why[256] = "";
    size_t big = SC_ATTEST_MAX_ENVELOPE + 1;
    char *text = malloc(big + 1);

    SC_CHECK(text != NULL);
    memset(text, ' ', big);
    text[big] = '\0';
    SC_CHECK_INT_EQ(sc_attest_open(&ring, text, big, &payload, fpr, why, sizeof(why)), -EFBIG);
    free(text);
    const char *deep = "{\"a\":[[[[[[[[[[1]]]]]]]]]]}";
    SC_CHECK_INT_EQ(sc_attest_open(&ring, deep, strlen(deep), &payload, fpr, why, sizeof(why)),
                    -EBADMSG);
    const char *other = "{\"payloadType\":\"text/plain\",\"payload\":\"eA==\",\"signatures\":[]}";
    SC_CHECK_INT_EQ(sc_attest_open(&ring, other, strlen(other), &payload, fpr, why, sizeof(why)),
                    -EBADMSG);
}

static void test_statement_reader_refuses(void)
{
    static const struct {
        const char *from, *to, *why;
    } cases[] = {
        {"\"user\":\"alice\"", "\"user\":\"al\\nice\"", "user: not printable ASCII"},
        {"\"user\":\"alice\"", "\"usr\":\"alice\"", "unknown field usr"},
        {"\"job_id\":42", "\"job_id\":-1", "job_id: not a 32-bit"},
        {"\"job_id\":42", "\"job_id\":\"42\"", "job_id: not a 32-bit"},
        {"\"_type\":\"https://in-toto.io/Statement/v1\"", "\"_type\":\"x\"", "_type is not"},
        {"\"name\":\"card.yaml\"", "\"name\":1", "subject name"},
    };
    sc_attest_claims c;
    char *json = NULL, why[256];

    sc__claims(&c);
    SC_CHECK_INT_EQ(sc_attest_statement_make(&c, &json), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *at = strstr(json, cases[i].from), buf[4096];
        SC_CHECK_MSG(at != NULL, "case %zu: %s not in %s", i, cases[i].from, json);
        snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - json), json, cases[i].to,
                 at + strlen(cases[i].from));
        *why = '\0';
        SC_CHECK_MSG(sc_attest_statement_parse(buf, strlen(buf), &c, why, sizeof(why)) == -EBADMSG,
                     "case %zu accepted", i);
        SC_CHECK_MSG(strstr(why, cases[i].why), "case %zu: %s", i, why);
    }
    /* A long field is refused, not cut. */
    char *at = strstr(json, "\"user\":\"alice\""), buf[4096], longname[200];
    memset(longname, 'a', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    snprintf(buf, sizeof(buf), "%.*s\"user\":\"%s\"%s", (int)(at - json), json, longname,
             at + strlen("\"user\":\"alice\""));
    SC_CHECK_INT_EQ(sc_attest_statement_parse(buf, strlen(buf), &c, why, sizeof(why)), -EBADMSG);
    SC_CHECK_STR_CONTAINS(why, "user: not a string of at most 63");
    free(json);
}

int main(void)
{
    char path[128], why[256], fpr[SC_ATTEST_FPR_LEN + 1];

    snprintf(sc__dir, sizeof(sc__dir), "/tmp/sc-attest-XXXXXX");
    snprintf(sc__dir2, sizeof(sc__dir2), "/tmp/sc-attest-XXXXXX");
    snprintf(sc__ring_dir, sizeof(sc__ring_dir), "/tmp/sc-attest-XXXXXX");
    if (!mkdtemp(sc__dir) || !mkdtemp(sc__dir2) || !mkdtemp(sc__ring_dir))
        return 1;
    SC_TEST_RUN(test_keygen_modes_and_no_overwrite);
    if (sc_attest_keygen(sc__dir2, fpr, why, sizeof(why)) != 0)
        return 1;
    /* A ring of both public keys (rotation), named as an admin would. */
    for (int i = 0; i < 2; i++) {
        char src[128], cmd[512];
        snprintf(src, sizeof(src), "%s/node.pub", i ? sc__dir2 : sc__dir);
        snprintf(path, sizeof(path), "%s/key%d.pub", sc__ring_dir, i);
        snprintf(cmd, sizeof(cmd), "cp %s %s", src, path);
        if (system(cmd) != 0)
            return 1;
    }
    SC_TEST_RUN(test_private_key_readable_by_others_refused);
    SC_TEST_RUN(test_sign_open_and_tamper);
    SC_TEST_RUN(test_untrusted_key);
    SC_TEST_RUN(test_envelope_bounds);
    SC_TEST_RUN(test_statement_reader_refuses);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s", sc__dir, sc__dir2, sc__ring_dir);
    if (system(cmd) != 0)
        return 1;
    return SC_TEST_RESULT();
}
