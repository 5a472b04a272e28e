/*
 * study_extra.h: what a study's table says of each row beside its figure (doc/contracts/card.md,
 * "Ablation studies"): the counters its bundle measured (IPC, the SIMD share of the FP
 * instructions, the machine's cross-NUMA share of allocations during the run) and, against the
 * row it is compared with, whether its step did anything on this machine at all ("no effect:
 * why"): one_per_core where no two CPUs of cpu_list share a core; an OpenMP variable the
 * runtime read back the same (OMP_DISPLAY_ENV, which a study's runs set); a blas: that loaded
 * the same library. Everything is read back from the bundles, as the figures are.
 */
#ifndef SC_STUDY_EXTRA_H
#define SC_STUDY_EXTRA_H

#include "sc_card.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_study_extra {
    bool read;                    /* the bundle was read */
    double ipc, simd, cross_numa; /* medians over the runs; < 0 when not measured */
    char display[65];             /* SHA-256 of the runtime's OMP_DISPLAY_ENV block, or "" */
    char blas[512];               /* build.json's blas_library, or "" */
    bool one_per_core_noop;       /* one_per_core kept every CPU of cpu_list */
} sc_study_extra;

/* Reads the extras of the bundle at path (NULL: none) for row_card (its run's card). */
void sc_study_extra_read(const char *path, const sc_card *row_card, sc_study_extra *e);

/*
 * Whether step, taking row from ref, changed nothing on this machine: "" when it may have, else
 * one line why ("one_per_core: no two CPUs of cpu_list 0-1 share a core here (no SMT)").
 */
void sc_study_no_effect(const sc_card_step *step, const sc_study_extra *row,
                        const sc_study_extra *ref, char *why, size_t len);

/* "IPC 3.65, SIMD 68%, cross-NUMA 0.0%": the measured ones, "" when none. */
void sc_study_extra_cell(const sc_study_extra *e, char *buf, size_t len);

#endif
