/*
 * ipsearch_x86_emulated.h: included before kernels/ipsearch_scan_x86.c and
 * ipsearch_topk_x86.c when the test test_kernel_ipsearch_x86_emulated builds them with
 * SCT_IPS_X86_EMULATED: their AVX2 and AVX-512 code on SIMDe's portable intrinsics (Debian:
 * libsimde-dev), so the AVX-512 variants' logic runs on a CPU without AVX-512 (correctness only:
 * its speed needs the real instructions). The masked loads are replaced with ones that read only
 * the lanes of the mask (SIMDe's read the whole vector; the kernels promise never to read past a
 * row, and a sanitized build of the test holds them to it), and the three intrinsics SIMDe 0.7.4
 * lacks are made of its own (one more has no native alias).
 */
#ifndef SC_TESTS_IPSEARCH_X86_EMULATED_H
#define SC_TESTS_IPSEARCH_X86_EMULATED_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx2.h>
#include <simde/x86/avx512.h>
#include <simde/x86/fma.h>

/* SIMDe names the type but gives it no alias. */
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
typedef simde__mmask16 __mmask16;

#include <stddef.h>
#include <stdint.h>

struct sct_ips_scan_job;
void sct_ips_scan_avx2_emulated(const struct sct_ips_scan_job *job);
void sct_ips_scan_avx512_emulated(const struct sct_ips_scan_job *job);
void sct_ips_topk_avx2_emulated(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                                size_t k);
void sct_ips_topk_avx512_emulated(const float *s, size_t n, int64_t base, float *hs, int64_t *hi,
                                  size_t k);

/* Lanes whose mask is set are read, the others are zero and untouched in memory. */
static inline simde__m256 sct_emu_maskload_ps(const float *p, simde__m256i mask)
{
    simde__m256i_private m = simde__m256i_to_private(mask);
    simde__m256_private r;

    for (int i = 0; i < 8; i++)
        r.f32[i] = m.i32[i] < 0 ? p[i] : 0.0f;
    return simde__m256_from_private(r);
}

static inline simde__m512 sct_emu_maskz_loadu_ps(simde__mmask16 k, const float *p)
{
    simde__m512_private r;

    for (int i = 0; i < 16; i++)
        r.f32[i] = (k >> i) & 1 ? p[i] : 0.0f;
    return simde__m512_from_private(r);
}

/* The intrinsics' own names: what the kernel calls (as SIMDe's native aliases do). */
// NOLINTBEGIN(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#undef _mm256_maskload_ps
#define _mm256_maskload_ps(p, mask) sct_emu_maskload_ps((p), (mask))
#undef _mm512_maskz_loadu_ps
#define _mm512_maskz_loadu_ps(k, p) sct_emu_maskz_loadu_ps((k), (p))
#define _mm512_mask_cmp_ps_mask(k, a, b, imm)                                                      \
    ((simde__mmask16)((k)&simde_mm512_cmp_ps_mask((a), (b), (imm))))
#define _mm512_cmplt_epi32_mask(a, b) simde_mm512_cmpgt_epi32_mask((b), (a))
#define _mm512_shuffle_f32x4(a, b, imm) simde_mm512_shuffle_f32x4((a), (b), (imm))
// NOLINTEND(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)

#endif
