/* test_policy.c: the plugin's plugstack.conf arguments, table-driven. */
#include "policy.h"
#include "sc_test.h"

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

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_key);
    SC_TEST_RUN(test_check_user_and_attest);
    return SC_TEST_RESULT();
}
