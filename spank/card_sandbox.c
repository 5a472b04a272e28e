/* card_sandbox.c: the card check's seccomp filters (see card_sandbox.h). */
#include "card_sandbox.h"

#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What would reach beyond the check's own process: killed even before its own filter. */
static const int sc__denied[] = {
    SCMP_SYS(fork),
    SCMP_SYS(vfork),
    SCMP_SYS(clone),
    SCMP_SYS(clone3),
    SCMP_SYS(execve),
    SCMP_SYS(ptrace),
    SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev),
    SCMP_SYS(kill),
    SCMP_SYS(tkill),
    SCMP_SYS(tgkill),
    SCMP_SYS(rt_sigqueueinfo),
    SCMP_SYS(rt_tgsigqueueinfo),
    SCMP_SYS(pidfd_open),
    SCMP_SYS(pidfd_send_signal),
    SCMP_SYS(pidfd_getfd),
    SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter),
    SCMP_SYS(io_uring_register),
    SCMP_SYS(unshare),
    SCMP_SYS(setns),
    SCMP_SYS(userfaultfd),
    SCMP_SYS(bpf),
    SCMP_SYS(perf_event_open),
    SCMP_SYS(add_key),
    SCMP_SYS(request_key),
    SCMP_SYS(keyctl),
};

/* What reading and checking a card needs, without conditions on the arguments. */
static const int sc__allowed[] = {
    SCMP_SYS(brk),          SCMP_SYS(munmap),     SCMP_SYS(mremap),       SCMP_SYS(madvise),
    SCMP_SYS(fstat),        SCMP_SYS(newfstatat), SCMP_SYS(lseek),        SCMP_SYS(close),
    SCMP_SYS(futex),        SCMP_SYS(getuid),     SCMP_SYS(geteuid),      SCMP_SYS(clock_gettime),
    SCMP_SYS(gettimeofday), SCMP_SYS(time),       SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(exit),         SCMP_SYS(exit_group),
};

/* A context whose default is def and whose other architectures are killed. NULL: ENOMEM. */
static scmp_filter_ctx sc__ctx(uint32_t def)
{
    scmp_filter_ctx ctx = seccomp_init(def);

    if (ctx && seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0) {
        seccomp_release(ctx);
        return NULL;
    }
    return ctx;
}

int sc_card_sandbox_prefilter(struct sock_fprog *prog)
{
    scmp_filter_ctx ctx = sc__ctx(SCMP_ACT_ALLOW);
    int rc = ctx ? 0 : -ENOMEM, fd = -1;
    off_t size = 0;

    memset(prog, 0, sizeof(*prog));
    for (size_t i = 0; rc == 0 && i < sizeof(sc__denied) / sizeof(sc__denied[0]); i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, sc__denied[i], 0);
    /* The program as the kernel takes it, through a memory file (libseccomp 2.5 exports to a
       descriptor only). */
    if (rc == 0 && (fd = memfd_create("streamcard-seccomp", MFD_CLOEXEC)) < 0)
        rc = -errno;
    if (rc == 0)
        rc = seccomp_export_bpf(ctx, fd);
    if (rc == 0 && (size = lseek(fd, 0, SEEK_END)) <= 0)
        rc = -EIO;
    if (rc == 0 && (size % (off_t)sizeof(struct sock_filter) != 0 || size > 65536))
        rc = -EINVAL;
    if (rc == 0 && !(prog->filter = malloc((size_t)size)))
        rc = -ENOMEM;
    if (rc == 0 && pread(fd, prog->filter, (size_t)size, 0) != size)
        rc = -EIO;
    if (rc == 0)
        prog->len = (unsigned short)((size_t)size / sizeof(struct sock_filter));
    if (fd >= 0)
        close(fd);
    if (ctx)
        seccomp_release(ctx);
    if (rc < 0)
        sc_card_sandbox_prefilter_free(prog);
    return rc;
}

void sc_card_sandbox_prefilter_free(struct sock_fprog *prog)
{
    free(prog->filter);
    memset(prog, 0, sizeof(*prog));
}

int sc_card_sandbox_install(const struct sock_fprog *prog)
{
    if (!SC_CARD_SANDBOX_SECCOMP)
        return 0;
    if (!prog->filter || !prog->len)
        return -EINVAL;
    return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) == 0 ? 0 : -errno;
}

/* The check's own filter: the allowlist, and read/write/mmap/mprotect with conditions. */
static int sc__check_rules(scmp_filter_ctx ctx)
{
    const uint32_t ok = SCMP_ACT_ALLOW;
    int rc = 0;

    for (size_t i = 0; rc == 0 && i < sizeof(sc__allowed) / sizeof(sc__allowed[0]); i++)
        rc = seccomp_rule_add(ctx, ok, sc__allowed[i], 0);
    if (rc == 0)
        rc = seccomp_rule_add(ctx, ok, SCMP_SYS(read), 1, SCMP_A0(SCMP_CMP_EQ, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, ok, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, 1));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, ok, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, 2));
    if (rc == 0)
        rc =
            seccomp_rule_add(ctx, ok, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    if (rc == 0)
        rc = seccomp_rule_add(ctx, ok, SCMP_SYS(mprotect), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    return rc;
}

int sc_card_sandbox_enter(void)
{
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return -errno;
    if (!SC_CARD_SANDBOX_SECCOMP)
        return 0;
    scmp_filter_ctx ctx = sc__ctx(SCMP_ACT_KILL_PROCESS);
    int rc = ctx ? sc__check_rules(ctx) : -ENOMEM;
    if (rc == 0)
        rc = seccomp_load(ctx);
    if (ctx)
        seccomp_release(ctx);
    return rc;
}
