/*
 * fuzz_cpuinfo.c: the CPU identity from /proc/cpuinfo and the prefetch-control class the
 * plugin derives from it (the gate in front of every MSR write): sc_cpu_identity_parse()
 * and sc_arch_identify() on the text, and the same text as proc/cpuinfo under a sysroot
 * through sc_arch_read(), which must come to the same decision.
 */
#include "support.h"

#include "sc_arch.h"
#include "sc_fsroot.h"
#include "sc_sysstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fake machine the target reads through (see sc_fuzz_sysroot). */
static const sc_fsroot *sc__root(void)
{
    return sc_fuzz_sysroot("proc/cpuinfo", "");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size);
    const sc_fsroot *root = sc__root();
    sc_cpu_identity id;
    sc_arch arch, from_file;

    int rc = sc_cpu_identity_parse(text, &id);
    sc_fuzz_require(rc == 0 || rc == -EINVAL, "sc_cpu_identity_parse: unexpected error");
    sc_fuzz_require(id.family >= -1 && id.model >= -1, "a negative family or model");
    sc_arch_identify(&id, &arch);
    sc_fuzz_require((arch.kind == SC_ARCH_UNSUPPORTED) == (*arch.reason != '\0'),
                    "sc_arch_identify: refused without a reason, or a reason for a CPU it "
                    "supports");
    if (arch.kind != SC_ARCH_UNSUPPORTED)
        sc_fuzz_require(strcmp(id.vendor, "GenuineIntel") == 0 ||
                            strcmp(id.vendor, "AuthenticAMD") == 0,
                        "sc_arch_identify: a prefetch class for an unknown vendor");

    /* The file-level path reads the same text (up to its first NUL byte, as the parser). */
    sc_fuzz_put(root->path, "proc/cpuinfo", text);
    if (sc_arch_read(root, &from_file) == 0 && rc == 0)
        sc_fuzz_require(from_file.kind == arch.kind && strcmp(from_file.cpu, arch.cpu) == 0 &&
                            strcmp(from_file.reason, arch.reason) == 0,
                        "sc_arch_read and sc_arch_identify disagree on the same cpuinfo");
    free(text);
    return 0;
}
