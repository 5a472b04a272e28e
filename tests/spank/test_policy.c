/* test_policy.c: the plugin's plugstack.conf arguments, table-driven. */
#include "policy.h"
#include "sc_test.h"
#include "tmpdir_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct policy_case {
    const char *args[4];
    int ok;
    int prefetch, governor, exclusive;
    const char *state_dir, *sysroot, *why;
} policy_case;

static const policy_case cases[] = {
    {{NULL}, 1, 0, 0, 1, "/run/streamcard", "/", NULL},
    {{"allow=prefetch,governor", NULL}, 1, 1, 1, 1, "/run/streamcard", "/", NULL},
    {{"allow=governor", "require_exclusive=no", NULL}, 1, 0, 1, 0, "/run/streamcard", "/", NULL},
    {{"allow=none", "state_dir=/var/lib/sc", "sysroot=/tmp/fake", NULL},
     1,
     0,
     0,
     1,
     "/var/lib/sc",
     "/tmp/fake",
     NULL},
    {{"allow=msr", NULL}, 0, 0, 0, 0, NULL, NULL, "\"msr\" is not a setting"},
    {{"require_exclusive=maybe", NULL}, 0, 0, 0, 0, NULL, NULL, "not yes or no"},
    {{"state_dir=relative", NULL}, 0, 0, 0, 0, NULL, NULL, "not an absolute path"},
    {{"sysroot=/a/../etc", NULL}, 0, 0, 0, 0, NULL, NULL, "without \"..\""},
    {{"colour=red", NULL}, 0, 0, 0, 0, NULL, NULL, "unknown argument \"colour=red\""},
    {{"key=keys/node.key", NULL}, 0, 0, 0, 0, NULL, NULL, "key=keys/node.key: not an absolute"},
    {{"check_user=", NULL}, 0, 0, 0, 0, NULL, NULL, "check_user=: not a user name"},
    {{"check_user=a/b", NULL}, 0, 0, 0, 0, NULL, NULL, "check_user=a/b: not a user name"},
    {{"check_user=-x", NULL}, 0, 0, 0, 0, NULL, NULL, "not starting with '-'"},
    {{"attest_keep=0", NULL}, 0, 0, 0, 0, NULL, NULL, "attest_keep=0: not a whole number from 1"},
    {{"attest_keep=10x", NULL}, 0, 0, 0, 0, NULL, NULL, "attest_keep=10x: not a whole number"},
    {{"attest_days=99999", NULL}, 0, 0, 0, 0, NULL, NULL, "attest_days=99999: not a whole number"},
};

/* key=: the default, and a path with %n (the node's name, expanded when signing). */
static void test_key(void)
{
    char *const none[] = {NULL};
    char *const per_node[] = {"key=/etc/streamcard/%n/node.key", NULL};
    sc_policy p;
    char why[256] = "";

    SC_CHECK_INT_EQ(sc_policy_parse(&p, 0, none, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(p.key, "/etc/streamcard/node.key");
    SC_CHECK_INT_EQ(sc_policy_parse(&p, 1, per_node, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(p.key, "/etc/streamcard/%n/node.key");
}

/*
 * Keys are opt-in (doc/contracts/attestation.md): without key= the default is used only when
 * something is at its path, else nothing is configured (one info line at slurmd's start,
 * naming streamcard keygen); key= naming a missing file is an error naming keygen --out DIR.
 * The default path is stood in for by a path under a temporary directory.
 */
static void test_key_opt_in(void)
{
    char *dir = sc_test_tmpdir("sc-policy-key");
    char key[512], arg[600], why[1024], path[512];
    sc_policy p;

    SC_CHECK(dir != NULL);
    snprintf(key, sizeof(key), "%s/node.key", dir);
    snprintf(arg, sizeof(arg), "key=%s/%%n/node.key", dir);
    char *const given[] = {arg, NULL};

    /* No key=, nothing at the default's path: not configured, said as information. */
    SC_CHECK_INT_EQ(sc_policy_parse(&p, 0, given, why, sizeof(why)), 0);
    SC_CHECK(!p.key_given);
    snprintf(p.key, sizeof(p.key), "%s", key);
    SC_CHECK(!sc_policy_key_wanted(&p));
    SC_CHECK_INT_EQ(sc_policy_key_state(&p, "n1", why, sizeof(why)), 1);
    SC_CHECK_STR_CONTAINS(why, "no node key configured");
    SC_CHECK_STR_CONTAINS(why, "streamcard keygen --out /etc/streamcard");
    /* A file at the default's path: it is the node's key. */
    FILE *f = fopen(key, "w");
    SC_CHECK(f != NULL);
    fclose(f);
    SC_CHECK(sc_policy_key_wanted(&p));
    SC_CHECK_INT_EQ(sc_policy_key_state(&p, "n1", why, sizeof(why)), 0);
    unlink(key);

    /* key= given and missing: wanted, and an error naming the command and the directory. */
    SC_CHECK_INT_EQ(sc_policy_parse(&p, 1, given, why, sizeof(why)), 0);
    SC_CHECK(p.key_given);
    SC_CHECK(sc_policy_key_wanted(&p));
    SC_CHECK_INT_EQ(sc_policy_key_path(&p, "n1", path, sizeof(path)), 0);
    SC_CHECK_INT_EQ(sc_policy_key_state(&p, "n1", why, sizeof(why)), -ENOENT);
    char expect[1200];
    snprintf(expect, sizeof(expect),
             "streamcard: key %s: no such file (valid: a node key made as root with streamcard "
             "keygen --out %s/n1, or no key= in plugstack.conf: runs are then not attested)",
             path, dir);
    SC_CHECK_STR_EQ(why, expect);
    sc_test_rmtree(dir);
}

/* check_user=, attest_keep=, attest_days=: the defaults, and set. */
static void test_check_user_and_attest(void)
{
    char *const none[] = {NULL};
    char *const set[] = {"check_user=sc-check", "attest_keep=3", "attest_days=7", NULL};
    sc_policy p;
    char why[256] = "";

    SC_CHECK_INT_EQ(sc_policy_parse(&p, 0, none, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(p.check_user, "streamcard-check");
    SC_CHECK_INT_EQ((int)p.attest_keep, 512);
    SC_CHECK_INT_EQ((int)p.attest_days, 30);
    SC_CHECK_INT_EQ(sc_policy_parse(&p, 3, set, why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(p.check_user, "sc-check");
    SC_CHECK_INT_EQ((int)p.attest_keep, 3);
    SC_CHECK_INT_EQ((int)p.attest_days, 7);
}

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const policy_case *c = &cases[i];
        sc_policy p;
        char why[256] = "";
        int argc = 0;
        while (c->args[argc])
            argc++;
        int rc = sc_policy_parse(&p, argc, (char *const *)c->args, why, sizeof(why));
        SC_CHECK_MSG((rc == 0) == c->ok, "case %zu: rc %d (%s)", i, rc, why);
        if (!c->ok) {
            SC_CHECK_STR_CONTAINS(why, c->why);
            continue;
        }
        SC_CHECK_INT_EQ(p.allow_prefetch, c->prefetch);
        SC_CHECK_INT_EQ(p.allow_governor, c->governor);
        SC_CHECK_INT_EQ(p.require_exclusive, c->exclusive);
        SC_CHECK_STR_EQ(p.state_dir, c->state_dir);
        SC_CHECK_STR_EQ(p.sysroot, c->sysroot);
    }
}

/* The policy file of a node without Slurm: the same words, blanks, newlines and comments. */
static void test_text(void)
{
    char why[256] = "", many[1024] = "";
    sc_policy p;

    SC_CHECK_INT_EQ(sc_policy_parse_text(&p,
                                         "# streamcard run --platform apply\n"
                                         "allow=prefetch,governor  # both\n"
                                         "\tstate_dir=/var/lib/sc\n",
                                         why, sizeof(why)),
                    0);
    SC_CHECK(p.allow_prefetch && p.allow_governor);
    SC_CHECK_STR_EQ(p.state_dir, "/var/lib/sc");
    SC_CHECK_INT_EQ(sc_policy_parse_text(&p, "", why, sizeof(why)), 0);
    SC_CHECK(!p.allow_prefetch && !p.allow_governor); /* no words: the defaults, nothing */
    SC_CHECK_INT_EQ(sc_policy_parse_text(&p, "allow=governor colour=red\n", why, sizeof(why)),
                    -EINVAL);
    SC_CHECK_STR_CONTAINS(why, "unknown argument \"colour=red\"");
    SC_CHECK_INT_EQ(sc_policy_parse_text(&p, "allow=prefetch\rx", why, sizeof(why)), -EINVAL);
    SC_CHECK_STR_CONTAINS(why, "a control character");
    for (int i = 0; i <= SC_POLICY_FILE_ARGS; i++)
        strcat(many, "allow=none ");
    SC_CHECK_INT_EQ(sc_policy_parse_text(&p, many, why, sizeof(why)), -E2BIG);
    SC_CHECK_STR_CONTAINS(why, "more than 32 words");
}

int main(void)
{
    SC_TEST_RUN(test_text);
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_key);
    SC_TEST_RUN(test_key_opt_in);
    SC_TEST_RUN(test_check_user_and_attest);
    return SC_TEST_RESULT();
}
