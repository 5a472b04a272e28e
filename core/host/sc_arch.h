/*
 * arch.h: which prefetch control a CPU has, decided from its identity (proc/cpuinfo).
 *
 * This file only classifies; it never touches a register. The registers and the bits that
 * may be written for each class are the allowlist in platform.c, the one privileged file.
 * Anything not positively identified is refused with a one-line reason (fail closed):
 *
 *   class        CPUs                                           register      bits
 *   intel-core   Intel family 6 Core/Xeon, Nehalem .. Granite   0x1A4         0-3
 *                Rapids (model list in arch.c)
 *   intel-atom   Intel family 6 Atom: Silvermont-D, Goldmont,   0x1A4         0, 2
 *                Goldmont Plus, Tremont (model list in arch.c)
 *   amd-zen3-5   AMD family 0x19 (Zen 3, 3+, 4), 0x1A (Zen 5)   0xC0000108    0-3, 5
 *   (refused)    Xeon Phi, Core 2 and older, other Atoms, AMD family 0x17 (Zen 1/2) and
 *                older, other vendors, models not in the lists
 */
#ifndef SC_ARCH_H
#define SC_ARCH_H

#include "sc_fsroot.h"
#include "sc_sysstate.h"

#include <stdbool.h>

typedef enum sc_arch_kind {
    SC_ARCH_UNSUPPORTED = 0,
    SC_ARCH_INTEL_CORE, /* MSR 0x1A4 MISC_FEATURE_CONTROL, bits 0-3 */
    SC_ARCH_INTEL_ATOM, /* MSR 0x1A4 MISC_FEATURE_CONTROL, bits 0 and 2 */
    SC_ARCH_AMD_ZEN3_5, /* MSR 0xC0000108 PrefetchControl, bits 0-3 and 5 */
} sc_arch_kind;

typedef struct sc_arch {
    sc_arch_kind kind;
    char cpu[64];     /* "GenuineIntel family 0x6 model 0x55", for messages */
    char uarch[64];   /* "Skylake-X/Cascade Lake/Cooper Lake", "" when unknown */
    char reason[256]; /* why unsupported (one line); "" when supported */
} sc_arch;

/* Classifies an identity read with sc_cpu_identity_read(). Never fails. */
void sc_arch_identify(const sc_cpu_identity *id, sc_arch *arch);

/*
 * Reads proc/cpuinfo under root and classifies it. Returns 0, or -errno when cpuinfo cannot
 * be read (arch is then SC_ARCH_UNSUPPORTED with the reason filled in).
 */
int sc_arch_read(const sc_fsroot *root, sc_arch *arch);

/* "intel-core", "intel-atom", "amd-zen3-5", "unsupported": the ARCH value of state.env. */
const char *sc_arch_name(sc_arch_kind kind);

#endif
