/*
 * ipsearch_simd.c: which SIMD variant this CPU runs (see ipsearch_simd.h).
 */
#include "ipsearch_simd.h"

#include <errno.h>
#include <string.h>

static const char *const sct__simd_names[SCT_IPS_SIMD_COUNT] = {"scalar", "avx2-fma", "avx512f"};

const char *sct_ips_simd_name(enum sct_ips_simd v)
{
    return (unsigned)v < SCT_IPS_SIMD_COUNT ? sct__simd_names[v] : "unknown";
}

int sct_ips_simd_parse(const char *text, enum sct_ips_simd *v)
{
    for (int i = 0; i < SCT_IPS_SIMD_COUNT; i++) {
        if (strcmp(text, sct__simd_names[i]) == 0) {
            *v = (enum sct_ips_simd)i;
            return 0;
        }
    }
    return -EINVAL;
}

int sct_ips_simd_supported(enum sct_ips_simd v)
{
    switch (v) {
    case SCT_IPS_SIMD_SCALAR:
        return 1;
#if SCT_IPS_SIMD_X86
    /* libgcc's checks include the operating system's support (XCR0) for the registers. */
    case SCT_IPS_SIMD_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SCT_IPS_SIMD_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
               __builtin_cpu_supports("fma");
#endif
    default:
        return 0;
    }
}

enum sct_ips_simd sct_ips_simd_best(void)
{
    enum sct_ips_simd best = SCT_IPS_SIMD_SCALAR;

    for (int v = 0; v < SCT_IPS_SIMD_COUNT; v++)
        if (sct_ips_simd_supported((enum sct_ips_simd)v))
            best = (enum sct_ips_simd)v;
    return best;
}
