/*
 * arch.c: the CPU model tables behind sc_arch_identify() (see arch.h).
 *
 * Sources for the Intel lists:
 *  - Intel, "Disclosure of Hardware Prefetcher Control on Some Intel Processors" (2014):
 *    MSR 0x1A4 bits 0-3 (L2 streamer, L2 adjacent line, DCU, DCU IP; 1 = disabled) on
 *    Nehalem, Westmere, Sandy Bridge, Ivy Bridge, Haswell and Broadwell.
 *  - Intel's pepc (github.com/intel/pepc, pepclibs/msr/MiscFeatureControl.py with the model
 *    numbers of pepclibs/CPUModels.py): the four bits on Westmere .. Granite Rapids, and only
 *    bits 0 (L2) and 2 (DCU) on Tremont, Goldmont, Goldmont Plus and Silvermont-D; Xeon Phi
 *    (KNL/KNM) has the L2 and DCU bits swapped (bit 1 L2, bit 0 DCU).
 * Crestmont (Sierra Forest 0xAF, Grand Ridge 0xB6) is refused: pepc first listed it with
 * bits 0 and 2 only, later with all four, so we do not know which bits are real. Silvermont
 * other than -D, Airmont, Bonnell and Saltwell are in neither list and are refused.
 *
 * AMD: PrefetchControl MSRC000_0108 is documented in the PPRs of family 19h (Zen 3, Zen 3+,
 * Zen 4) and 1Ah (Zen 5); likwid-sysfeatures uses the same register. Family 17h (Zen 1/2)
 * has no documented prefetch control and is refused.
 *
 * Arm: the Neoverse technical reference manuals (N1, V1, N2, V2) place the prefetchers'
 * enable bits in CPUECTLR_EL1, an IMPLEMENTATION DEFINED register writable at EL1 and above;
 * Fujitsu's A64FX controls its hardware prefetch through IMP_PF_* registers its own driver
 * writes. Every Arm part is refused, each known one with its reason.
 */
#include "sc_arch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct sc__model {
    int model;
    const char *uarch;
} sc__model;

/* Intel family 6 Core/Xeon models with MSR 0x1A4 bits 0-3. */
static const sc__model sc__intel_core[] = {
    {0x1a, "Nehalem-EP"},       {0x1e, "Nehalem"},
    {0x1f, "Nehalem-G"},        {0x2e, "Nehalem-EX"},
    {0x25, "Westmere"},         {0x2c, "Westmere-EP"},
    {0x2f, "Westmere-EX"},      {0x2a, "Sandy Bridge"},
    {0x2d, "Sandy Bridge-X"},   {0x3a, "Ivy Bridge"},
    {0x3e, "Ivy Bridge-X"},     {0x3c, "Haswell"},
    {0x45, "Haswell-L"},        {0x46, "Haswell-G"},
    {0x3f, "Haswell-X"},        {0x3d, "Broadwell"},
    {0x47, "Broadwell-G"},      {0x56, "Broadwell-D"},
    {0x4f, "Broadwell-X"},      {0x5e, "Skylake"},
    {0x4e, "Skylake-L"},        {0x55, "Skylake-X/Cascade Lake/Cooper Lake"},
    {0x9e, "Kaby Lake"},        {0x8e, "Kaby Lake-L"},
    {0x66, "Cannon Lake-L"},    {0xa5, "Comet Lake"},
    {0xa6, "Comet Lake-L"},     {0x7d, "Ice Lake"},
    {0x7e, "Ice Lake-L"},       {0x6a, "Ice Lake-X"},
    {0x6c, "Ice Lake-D"},       {0x8d, "Tiger Lake"},
    {0x8c, "Tiger Lake-L"},     {0xa7, "Rocket Lake"},
    {0x97, "Alder Lake"},       {0x9a, "Alder Lake-L"},
    {0xbe, "Alder Lake-N"},     {0xb7, "Raptor Lake"},
    {0xba, "Raptor Lake-P"},    {0xbf, "Raptor Lake-S"},
    {0xac, "Meteor Lake"},      {0xaa, "Meteor Lake-L"},
    {0x8f, "Sapphire Rapids"},  {0xcf, "Emerald Rapids"},
    {0xad, "Granite Rapids-X"}, {0xae, "Granite Rapids-D"},
};

/* Intel family 6 Atom models with MSR 0x1A4 bits 0 (L2) and 2 (DCU) only. */
static const sc__model sc__intel_atom[] = {
    {0x4d, "Silvermont-D (Avoton/Rangeley)"}, {0x5c, "Goldmont (Apollo Lake)"},
    {0x5f, "Goldmont-D (Denverton)"},         {0x7a, "Goldmont Plus (Gemini Lake)"},
    {0x96, "Tremont (Elkhart Lake)"},         {0x9c, "Tremont-L (Jasper Lake)"},
    {0x86, "Tremont-D (Snow Ridge)"},
};

/* Intel family 6 models refused for a known reason (the rest: "not in the allowlist"). */
static const struct sc__refusal {
    int model;
    const char *uarch, *why;
} sc__intel_refused[] = {
    {0x57, "Xeon Phi Knights Landing",
     "Xeon Phi swaps the bits of MSR 0x1A4 (bit 1 L2, bit 0 DCU); refusing to write it"},
    {0x85, "Xeon Phi Knights Mill",
     "Xeon Phi swaps the bits of MSR 0x1A4 (bit 1 L2, bit 0 DCU); refusing to write it"},
    {0x0f, "Core 2 (Merom)",
     "Core 2 and older have no MSR 0x1A4 prefetch control; refusing to write it"},
    {0x16, "Core 2 (Merom-L)",
     "Core 2 and older have no MSR 0x1A4 prefetch control; refusing to write it"},
    {0x17, "Core 2 (Penryn)",
     "Core 2 and older have no MSR 0x1A4 prefetch control; refusing to write it"},
    {0x1d, "Core 2 (Dunnington)",
     "Core 2 and older have no MSR 0x1A4 prefetch control; refusing to write it"},
    {0xaf, "Crestmont-X (Sierra Forest)",
     "the MSR 0x1A4 bits of Crestmont differ between sources; refusing to write it"},
    {0xb6, "Crestmont (Grand Ridge)",
     "the MSR 0x1A4 bits of Crestmont differ between sources; refusing to write it"},
};

#define SC__COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const sc__model *sc__find(const sc__model *table, size_t n, int model)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].model == model)
            return &table[i];
    return NULL;
}

/* Marks arch unsupported; the reason reads "<cpu>: <why>". */
static void sc__refuse(sc_arch *arch, const char *why)
{
    arch->kind = SC_ARCH_UNSUPPORTED;
    snprintf(arch->reason, sizeof(arch->reason), "%s: %s", arch->cpu, why);
}

static void sc__identify_intel(const sc_cpu_identity *id, sc_arch *arch)
{
    const sc__model *m;

    if (id->family != 6) {
        sc__refuse(arch, "only Intel family 6 has a known prefetch control; refusing");
        return;
    }
    if ((m = sc__find(sc__intel_core, SC__COUNT(sc__intel_core), id->model))) {
        arch->kind = SC_ARCH_INTEL_CORE;
        snprintf(arch->uarch, sizeof(arch->uarch), "%s", m->uarch);
        return;
    }
    if ((m = sc__find(sc__intel_atom, SC__COUNT(sc__intel_atom), id->model))) {
        arch->kind = SC_ARCH_INTEL_ATOM;
        snprintf(arch->uarch, sizeof(arch->uarch), "%s", m->uarch);
        return;
    }
    for (size_t i = 0; i < SC__COUNT(sc__intel_refused); i++) {
        if (sc__intel_refused[i].model == id->model) {
            snprintf(arch->uarch, sizeof(arch->uarch), "%s", sc__intel_refused[i].uarch);
            sc__refuse(arch, sc__intel_refused[i].why);
            return;
        }
    }
    sc__refuse(arch, "this model is not in the list of CPUs with a known MSR 0x1A4 layout; "
                     "refusing to write it");
}

static void sc__identify_amd(const sc_cpu_identity *id, sc_arch *arch)
{
    if (id->family == 0x19 || id->family == 0x1a) {
        arch->kind = SC_ARCH_AMD_ZEN3_5;
        snprintf(arch->uarch, sizeof(arch->uarch), "%s",
                 id->family == 0x19 ? "Zen 3/Zen 4" : "Zen 5");
    } else if (id->family == 0x17) {
        snprintf(arch->uarch, sizeof(arch->uarch), "Zen 1/2");
        arch->kind = SC_ARCH_UNSUPPORTED;
        snprintf(arch->reason, sizeof(arch->reason),
                 "%s (Zen 1/2): its prefetch control registers are undocumented; refusing to "
                 "write them",
                 arch->cpu);
    } else {
        sc__refuse(arch, "only AMD families 0x19 and 0x1a (Zen 3/4/5) have a documented "
                         "prefetch control; refusing");
    }
}

/*
 * Arm (arm64 cpuinfo: the vendor is the implementer's name, family the implementer, model
 * the part; core/host/sysstate.c). No Arm part has a prefetch control Linux lets user space or a
 * root process write: the controls are IMPLEMENTATION DEFINED system registers that only
 * code at EL1 or above (firmware, the kernel) can write, and arm64 Linux has no msr driver.
 * What a node shows of them is read (cpuinfo, cpufreq); a change is refused, saying why.
 */
static const struct {
    int implementer, part;
    const char *uarch, *why;
} sc__arm_refused[] = {
    {0x41, 0xd0c, "Neoverse-N1 (Graviton2, Ampere Altra)",
     "its prefetchers are set in CPUECTLR_EL1, an IMPLEMENTATION DEFINED register only EL1 "
     "and above can write; arm64 Linux has no msr device to reach it; refusing"},
    {0x41, 0xd40, "Neoverse-V1 (Graviton3)",
     "its prefetchers are set in CPUECTLR_EL1, an IMPLEMENTATION DEFINED register only EL1 "
     "and above can write; arm64 Linux has no msr device to reach it; refusing"},
    {0x41, 0xd4f, "Neoverse-V2 (Grace, Graviton4)",
     "its prefetchers are set in CPUECTLR_EL1, an IMPLEMENTATION DEFINED register only EL1 "
     "and above can write; arm64 Linux has no msr device to reach it; refusing"},
    {0x41, 0xd49, "Neoverse-N2",
     "its prefetchers are set in CPUECTLR_EL1, an IMPLEMENTATION DEFINED register only EL1 "
     "and above can write; arm64 Linux has no msr device to reach it; refusing"},
    {0x46, 0x001, "A64FX",
     "its hardware prefetch is controlled through Fujitsu's IMP_PF_* system registers, which "
     "only Fujitsu's kernel driver writes (not in mainline Linux); refusing"},
};

static void sc__identify_arm(const sc_cpu_identity *id, sc_arch *arch)
{
    for (size_t i = 0; i < SC__COUNT(sc__arm_refused); i++)
        if (sc__arm_refused[i].implementer == id->family && sc__arm_refused[i].part == id->model) {
            snprintf(arch->uarch, sizeof(arch->uarch), "%s", sc__arm_refused[i].uarch);
            sc__refuse(arch, sc__arm_refused[i].why);
            return;
        }
    sc__refuse(arch, "no Arm part has a prefetch control that Linux lets a process write (they "
                     "are system registers of EL1 and above, and arm64 has no msr device); "
                     "refusing");
}

/* An arm64 identity: its vendor is an implementer's name (sysstate.c), not an x86 one. */
static bool sc__is_arm(const sc_cpu_identity *id)
{
    static const char *const names[] = {"ARM",      "Broadcom", "Cavium", "Fujitsu", "HiSilicon",
                                        "NVIDIA",   "APM",      "Qualcomm", "Apple", "Ampere"};

    if (!strncmp(id->vendor, "Arm implementer ", 16))
        return true;
    for (size_t i = 0; i < SC__COUNT(names); i++)
        if (!strcmp(id->vendor, names[i]))
            return true;
    return false;
}

void sc_arch_identify(const sc_cpu_identity *id, sc_arch *arch)
{
    memset(arch, 0, sizeof(*arch));
    snprintf(arch->cpu, sizeof(arch->cpu),
             sc__is_arm(id) ? "%s implementer 0x%x part 0x%x" : "%s family 0x%x model 0x%x",
             *id->vendor ? id->vendor : "unknown vendor", (unsigned)id->family,
             (unsigned)id->model);
    if (id->family < 0 || id->model < 0)
        sc__refuse(arch, "proc/cpuinfo has no cpu family or model; refusing");
    else if (strcmp(id->vendor, "GenuineIntel") == 0)
        sc__identify_intel(id, arch);
    else if (strcmp(id->vendor, "AuthenticAMD") == 0)
        sc__identify_amd(id, arch);
    else if (sc__is_arm(id))
        sc__identify_arm(id, arch);
    else
        sc__refuse(arch, "no prefetch control is known for this vendor; refusing");
}

int sc_arch_read(const sc_fsroot *root, sc_arch *arch)
{
    sc_cpu_identity id;
    int rc = sc_cpu_identity_read(root, &id);

    if (rc < 0) {
        memset(arch, 0, sizeof(*arch));
        snprintf(arch->cpu, sizeof(arch->cpu), "unknown CPU");
        snprintf(arch->reason, sizeof(arch->reason),
                 "cannot identify the CPU from proc/cpuinfo under %s: %s", root->path,
                 strerror(-rc));
        return rc;
    }
    sc_arch_identify(&id, arch);
    return 0;
}

const char *sc_arch_name(sc_arch_kind kind)
{
    switch (kind) {
    case SC_ARCH_INTEL_CORE:
        return "intel-core";
    case SC_ARCH_INTEL_ATOM:
        return "intel-atom";
    case SC_ARCH_AMD_ZEN3_5:
        return "amd-zen3-5";
    default:
        return "unsupported";
    }
}
