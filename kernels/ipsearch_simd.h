/*
 * ipsearch_simd.h: the SIMD variants of streamcard-ipsearch's hand-written loops (the
 * single-pass scan, ipsearch_scan.h, and the top-k filter of the sgemm tiles,
 * ipsearch_topk.h), chosen by the CPU at run time (__builtin_cpu_supports): AVX-512F,
 * AVX2 with FMA, or portable C. The x86 variants are compiled with target attributes, so
 * the binary needs no -march flag and runs on any x86-64; elsewhere only the portable one
 * exists.
 */
#ifndef SC_KERNELS_IPSEARCH_SIMD_H
#define SC_KERNELS_IPSEARCH_SIMD_H

/* The variants, from the portable one to the widest. */
enum sct_ips_simd {
    SCT_IPS_SIMD_SCALAR,
    SCT_IPS_SIMD_AVX2,   /* AVX2 + FMA: 8 floats a vector */
    SCT_IPS_SIMD_AVX512, /* AVX-512F: 16 floats a vector */
    SCT_IPS_SIMD_COUNT
};

/* The x86 variants exist only where the compiler targets x86. */
#if defined(__x86_64__) || defined(__i386__)
#define SCT_IPS_SIMD_X86 1
#else
#define SCT_IPS_SIMD_X86 0
#endif

/* "scalar", "avx2-fma", "avx512f". */
const char *sct_ips_simd_name(enum sct_ips_simd v);

/* Parse a variant's name (as sct_ips_simd_name() gives it); 0, or -EINVAL. */
int sct_ips_simd_parse(const char *text, enum sct_ips_simd *v);

/* 1 when v is compiled in and this CPU (and its operating system) runs it. */
int sct_ips_simd_supported(enum sct_ips_simd v);

/* The widest supported variant. */
enum sct_ips_simd sct_ips_simd_best(void);

#endif
