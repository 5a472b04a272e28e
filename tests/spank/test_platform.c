/*
 * test_platform.c: the privileged writes against fake sysroots: masked read-modify-write,
 * the allowlist, CPU validation, symlinks planted under the root, governors.
 */
#include "fake_node.h"
#include "openat2_util.h"
#include "platform.h"
#include "sc_test.h"

typedef struct rmw_case {
    const char *name;
    fake_node node;
    sc_msr_request req;
    uint64_t expect; /* the register afterwards */
} rmw_case;

static const rmw_case rmw_cases[] = {
    {"intel off keeps other bits",
     {INTEL_CORE, 4, MSR_I, 0xdeadbeef00000040ull, NULL, NULL},
     {2, MSR_I, 0xf, 0xf},
     0xdeadbeef0000004full},
    {"intel on keeps other bits",
     {INTEL_CORE, 4, MSR_I, 0xdeadbeef0000004full, NULL, NULL},
     {1, MSR_I, 0xf, 0x0},
     0xdeadbeef00000040ull},
    {"intel one bit",
     {INTEL_CORE, 2, MSR_I, 0xfffffffffffffff0ull, NULL, NULL},
     {0, MSR_I, 0x4, 0x4},
     0xfffffffffffffff4ull},
    {"atom bits 0 and 2 only",
     {INTEL_ATOM, 2, MSR_I, 0xa0ull, NULL, NULL},
     {1, MSR_I, 0x5, 0x5},
     0xa5ull},
    {"amd zen4 off from reset value",
     {AMD_ZEN4, 4, MSR_A, 0x3c0ull, NULL, NULL},
     {3, MSR_A, 0x2f, 0x2f},
     0x3efull},
    {"amd zen4 on keeps bit 4 and the profile",
     {AMD_ZEN4, 4, MSR_A, 0xffffull, NULL, NULL},
     {0, MSR_A, 0x2f, 0x0},
     0xffd0ull},
};

static void test_rmw_table(void)
{
    for (size_t i = 0; i < sizeof(rmw_cases) / sizeof(rmw_cases[0]); i++) {
        const rmw_case *c = &rmw_cases[i];
        char *root = fake_node_make(&c->node), why[512] = "";
        uint64_t old = 0, rb = 0;
        sc_platform p;

        SC_CHECK_MSG(root, "%s: no sysroot", c->name);
        SC_CHECK_MSG(sc_platform_open(&p, root, why, sizeof(why)) == 0, "%s: %s", c->name, why);
        int rc = sc_platform_msr_write(&p, &c->req, &old, &rb, why, sizeof(why));
        sc_platform_close(&p);
        SC_CHECK_MSG(rc == 0, "%s: rc %d: %s", c->name, rc, why);
        SC_CHECK_MSG(old == c->node.seed && rb == c->expect, "%s: old 0x%llx readback 0x%llx",
                     c->name, (unsigned long long)old, (unsigned long long)rb);
        for (unsigned cpu = 0; cpu < c->node.ncpus; cpu++) {
            uint64_t want = cpu == c->req.cpu ? c->expect : c->node.seed;
            uint64_t got = fake_msr_get(root, cpu, c->node.reg);
            SC_CHECK_MSG(got == want, "%s: cpu %u holds 0x%llx, expected 0x%llx", c->name, cpu,
                         (unsigned long long)got, (unsigned long long)want);
        }
        sysroot_remove(root);
    }
}

typedef struct refuse_case {
    const char *name;
    fake_node node;
    sc_msr_request req;
    int rc;
    const char *why;
} refuse_case;

static const refuse_case refuse_cases[] = {
    {"TSC is not allowlisted",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {0, 0x10, 0x1, 0x1},
     -EPERM,
     "MSR 0x10 of cpu 0 refused: not in the allowlist of intel-core (valid: 0x1a4)"},
    {"IA32_MISC_ENABLE is not allowlisted",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {1, 0x1a0, 0x200, 0x200},
     -EPERM,
     "not in the allowlist"},
    {"bit 4 of 0x1a4 is not writable",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {0, MSR_I, 0x1f, 0x1f},
     -EPERM,
     "mask 0x1f is not within the writable bits"},
    {"empty mask",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {0, MSR_I, 0x0, 0x0},
     -EPERM,
     "mask 0x0"},
    {"value outside the mask",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {0, MSR_I, 0x1, 0x3},
     -EINVAL,
     "value 0x3 has bits outside mask 0x1"},
    {"atom has no bit 1",
     {INTEL_ATOM, 2, MSR_I, 0x0, NULL, NULL},
     {0, MSR_I, 0xf, 0xf},
     -EPERM,
     "valid: a non-empty subset of 0x5"},
    {"amd register on intel",
     {INTEL_CORE, 2, MSR_I, 0x0, NULL, NULL},
     {0, MSR_A, 0x2f, 0x2f},
     -EPERM,
     "not in the allowlist"},
    {"intel register on amd",
     {AMD_ZEN4, 2, MSR_A, 0x0, NULL, NULL},
     {0, MSR_I, 0xf, 0xf},
     -EPERM,
     "valid: 0xc0000108"},
    {"offline cpu",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {4, MSR_I, 0xf, 0xf},
     -EINVAL,
     "cpu 4 refused: it is not online"},
    {"huge cpu",
     {INTEL_CORE, 4, MSR_I, 0x40, NULL, NULL},
     {4000000000u, MSR_I, 0xf, 0xf},
     -EINVAL,
     "not online"},
    {"zen 2 has no allowlist",
     {AMD_ZEN2, 4, MSR_A, 0x0, NULL, NULL},
     {0, MSR_A, 0x2f, 0x2f},
     -EPERM,
     "(Zen 1/2): its prefetch control registers are undocumented"},
};

static void test_refused_table(void)
{
    for (size_t i = 0; i < sizeof(refuse_cases) / sizeof(refuse_cases[0]); i++) {
        const refuse_case *c = &refuse_cases[i];
        char *root = fake_node_make(&c->node), why[512] = "";
        long long sizes[8];
        sc_platform p;

        SC_CHECK_MSG(root, "%s: no sysroot", c->name);
        for (unsigned cpu = 0; cpu < c->node.ncpus; cpu++)
            sizes[cpu] = fake_msr_size(root, cpu);
        SC_CHECK_MSG(sc_platform_open(&p, root, why, sizeof(why)) == 0, "%s: %s", c->name, why);
        int rc = sc_platform_msr_write(&p, &c->req, NULL, NULL, why, sizeof(why));
        sc_platform_close(&p);
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, expected %d (%s)", c->name, rc, c->rc, why);
        SC_CHECK_MSG(strstr(why, c->why), "%s: \"%s\" lacks \"%s\"", c->name, why, c->why);
        /* sizes[] holds every cpu below ncpus (the loop above); the analyzer assumes that loop
           ran fewer times. NOLINTBEGIN(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        for (unsigned cpu = 0; cpu < c->node.ncpus; cpu++) {
            SC_CHECK_MSG(fake_msr_get(root, cpu, c->node.reg) == c->node.seed, "%s: cpu %u changed",
                         c->name, cpu);
            SC_CHECK_MSG(fake_msr_size(root, cpu) == sizes[cpu], "%s: cpu %u file grew", c->name,
                         cpu);
        }
        /* NOLINTEND(clang-analyzer-core.UndefinedBinaryOperatorResult) */
        sysroot_remove(root);
    }
}

/* Reads are allowlisted too; a missing msr file says what to load. */
static void test_read_checks(void)
{
    fake_node n = {INTEL_CORE, 2, MSR_I, 0x1234, NULL, NULL};
    char *root = fake_node_make(&n), why[512] = "", path[PATH_MAX];
    uint64_t v = 0;
    sc_platform p;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_platform_msr_read(&p, 1, MSR_I, &v, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(v, 0x1234);
    SC_CHECK_INT_EQ(sc_platform_msr_read(&p, 1, 0x10, &v, why, sizeof(why)), -EPERM);
    snprintf(path, sizeof(path), "%s/dev/cpu/1/msr", root);
    unlink(path);
    SC_CHECK_INT_EQ(sc_platform_msr_read(&p, 1, MSR_I, &v, why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "is the msr module loaded?");
    sc_platform_close(&p);
    sysroot_remove(root);
}

/*
 * Symlinks planted under the root must not lead outside it: a final-component symlink is
 * refused (O_NOFOLLOW: ELOOP); a symlinked directory, absolute or climbing with "..", is
 * resolved inside the root (RESOLVE_IN_ROOT), where the target does not exist (ENOENT).
 * In every case the file outside the root keeps its value and its size.
 */
static void test_symlinks_stay_in_root(void)
{
    if (!sc_test_have_openat2("test_symlinks_stay_in_root"))
        return;
    fake_node n = {INTEL_CORE, 4, MSR_I, 0x0, NULL, NULL};
    char *root = fake_node_make(&n), *outside = sysroot_make(), why[512], path[PATH_MAX];
    char target[PATH_MAX];
    static const struct {
        unsigned cpu;
        const char *link; /* created at this path under the root, replacing the real one */
        int rc;
    } cases[] = {
        {0, "dev/cpu/0/msr", -ELOOP}, {1, "dev/cpu/1", -ENOENT}, {2, "dev/cpu/2", -ENOENT}};
    sc_platform p;

    SC_CHECK(root && outside);
    SC_CHECK_INT_EQ(sysroot_put(outside, "dev/cpu/0/.keep", ""), 0);
    SC_CHECK_INT_EQ(fake_msr_put(outside, 0, MSR_I, 0x40), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", root, cases[i].link);
        char cmd[PATH_MAX * 2 + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        SC_CHECK_INT_EQ(system(cmd), 0);
        if (i == 0) /* absolute link to the outside msr file */
            snprintf(target, sizeof(target), "%s/dev/cpu/0/msr", outside);
        else if (i == 1) /* absolute link to the outside directory */
            snprintf(target, sizeof(target), "%s/dev/cpu/0", outside);
        else /* relative link climbing out: ../../../tmp/sc-sysroot-X/dev/cpu/0 */
            snprintf(target, sizeof(target), "../../../../../../../..%s/dev/cpu/0", outside);
        SC_CHECK_INT_EQ(symlink(target, path), 0);
    }
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_msr_request req = {cases[i].cpu, MSR_I, 0xf, 0xf};
        uint64_t v;
        int rc = sc_platform_msr_write(&p, &req, NULL, NULL, why, sizeof(why));
        SC_CHECK_MSG(rc == cases[i].rc, "%s: rc %d (%s)", cases[i].link, rc, why);
        rc = sc_platform_msr_read(&p, cases[i].cpu, MSR_I, &v, why, sizeof(why));
        SC_CHECK_MSG(rc == cases[i].rc, "%s: read rc %d (%s)", cases[i].link, rc, why);
        SC_CHECK_MSG(fake_msr_get(outside, 0, MSR_I) == 0x40, "%s: the outside file changed",
                     cases[i].link);
        SC_CHECK_INT_EQ(fake_msr_size(outside, 0), MSR_I + 8);
    }
    /* The untouched cpu 3 still works, so the refusals above are the symlinks' doing. */
    sc_msr_request ok = {3, MSR_I, 0xf, 0xf};
    SC_CHECK_INT_EQ(sc_platform_msr_write(&p, &ok, NULL, NULL, why, sizeof(why)), 0);
    sc_platform_close(&p);
    sysroot_remove(outside);
    sysroot_remove(root);
}

static void test_governor(void)
{
    fake_node n = {INTEL_CORE, 2, 0, 0, "performance powersave schedutil", "powersave"};
    char *root = fake_node_make(&n), why[512] = "", buf[64], rb[64];
    const char *last = "powersave";
    static const struct {
        const char *name;
        int rc;
        const char *why;
    } offered[] = {
        {"performance", 0, ""},
        {"schedutil", 0, ""},
        {"perf", -ENOTSUP,
         "governor perf is not offered by cpu 1 (valid: performance powersave "
         "schedutil)"},
        {"ondemand", -ENOTSUP, "not offered"},
        {"../../x", -EINVAL, "governor name refused"},
        {"power save", -EINVAL, "governor name refused"},
        {"", -EINVAL, "governor name refused"},
        {"averyveryverylongname", -EINVAL, "1-15 letters"},
    };
    sc_platform p;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_platform_governor_read(&p, 1, buf, sizeof(buf), why, sizeof(why)), 0);
    SC_CHECK_STR_EQ(buf, "powersave");
    for (size_t i = 0; i < sizeof(offered) / sizeof(offered[0]); i++) {
        why[0] = '\0';
        int rc =
            sc_platform_governor_write(&p, 1, offered[i].name, rb, sizeof(rb), why, sizeof(why));
        SC_CHECK_MSG(rc == offered[i].rc, "%s: rc %d (%s)", offered[i].name, rc, why);
        SC_CHECK_MSG(strstr(why, offered[i].why), "%s: \"%s\"", offered[i].name, why);
        if (rc == 0) {
            last = offered[i].name;
            SC_CHECK_STR_EQ(rb, last);
        }
        SC_CHECK_STR_EQ(fake_governor(root, 1, buf, sizeof(buf)), last);
    }
    SC_CHECK_STR_EQ(fake_governor(root, 0, buf, sizeof(buf)), "powersave");
    SC_CHECK_INT_EQ(
        sc_platform_governor_write(&p, 2, "performance", rb, sizeof(rb), why, sizeof(why)),
        -EINVAL);
    sc_platform_close(&p);
    sysroot_remove(root);
}

static void test_no_cpufreq(void)
{
    fake_node n = {INTEL_CORE, 2, 0, 0, NULL, NULL};
    char *root = fake_node_make(&n), why[512] = "", buf[64];
    sc_platform p;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), 0);
    SC_CHECK_INT_EQ(sc_platform_governor_offered(&p, 0, "performance", why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "cpu 0 has no cpufreq governors");
    SC_CHECK_INT_EQ(sc_platform_governor_read(&p, 0, buf, sizeof(buf), why, sizeof(why)), -ENOENT);
    sc_platform_close(&p);
    sysroot_remove(root);
}

static void test_pfstate(void)
{
    static const struct {
        uint64_t value, mask;
        sc_pfstate expect;
    } cases[] = {
        {0x0, 0xf, SC_PFSTATE_ON},
        {0xf, 0xf, SC_PFSTATE_OFF},
        {0x5, 0xf, SC_PFSTATE_MIXED},
        {0xfff0, 0xf, SC_PFSTATE_ON},
        {0xdeadbeef0000004full, 0xf, SC_PFSTATE_OFF},
        {0x5, 0x5, SC_PFSTATE_OFF},
        {0x3c0, 0x2f, SC_PFSTATE_ON},
        {0x3ef, 0x2f, SC_PFSTATE_OFF},
        {0x3e0, 0x2f, SC_PFSTATE_MIXED},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        SC_CHECK_MSG(sc_pfstate_of(cases[i].value, cases[i].mask) == cases[i].expect,
                     "case %zu: 0x%llx under 0x%llx is %s", i, (unsigned long long)cases[i].value,
                     (unsigned long long)cases[i].mask,
                     sc_pfstate_name(sc_pfstate_of(cases[i].value, cases[i].mask)));
    SC_CHECK_INT_EQ(sc_pfstate_merge(SC_PFSTATE_OFF, SC_PFSTATE_OFF), SC_PFSTATE_OFF);
    SC_CHECK_INT_EQ(sc_pfstate_merge(SC_PFSTATE_ON, SC_PFSTATE_OFF), SC_PFSTATE_MIXED);
    SC_CHECK_STR_EQ(sc_pfstate_name(SC_PFSTATE_MIXED), "mixed");
}

static void test_open_errors(void)
{
    char *root = sysroot_make(), why[512] = "";
    sc_platform p;

    SC_CHECK(root);
    SC_CHECK_INT_EQ(sc_platform_open(&p, "/nonexistent/sysroot", why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "cannot open the sysroot /nonexistent/sysroot");
    sc_platform_close(&p);
    SC_CHECK_INT_EQ(sc_platform_open(&p, root, why, sizeof(why)), -ENOENT);
    SC_CHECK_STR_CONTAINS(why, "cannot read sys/devices/system/cpu/online");
    sc_platform_close(&p);
    sysroot_remove(root);
}

int main(void)
{
    SC_TEST_RUN(test_rmw_table);
    SC_TEST_RUN(test_refused_table);
    SC_TEST_RUN(test_read_checks);
    SC_TEST_RUN(test_symlinks_stay_in_root);
    SC_TEST_RUN(test_governor);
    SC_TEST_RUN(test_no_cpufreq);
    SC_TEST_RUN(test_pfstate);
    SC_TEST_RUN(test_open_errors);
    return SC_TEST_RESULT();
}
