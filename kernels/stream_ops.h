/*
 * stream_ops.h: the four STREAM loops over one thread's chunk, with plain stores or with
 * non-temporal (streaming) stores of a given width.
 */
#ifndef SC_KERNELS_STREAM_OPS_H
#define SC_KERNELS_STREAM_OPS_H

#include <stddef.h>

#include "buildinfo.h"

/* What the loop computes; s is the STREAM scalar. */
enum sct_stream_op {
    SCT_OP_COPY,  /* dst = x          (STREAM: c = a) */
    SCT_OP_SCALE, /* dst = s * x      (STREAM: b = s * c) */
    SCT_OP_ADD,   /* dst = x + y      (STREAM: c = a + b) */
    SCT_OP_TRIAD, /* dst = x + s * y  (STREAM: a = b + s * c) */
};

/*
 * Compute dst[i] for i in [lo, hi) on the calling thread. With stores == SCT_NT_NONE the
 * stores are plain; otherwise the aligned middle of the range is written with streaming
 * stores of that ISA (the head and tail that are not aligned to the vector width are
 * written plainly) and the thread's write-combining buffers are drained with sfence before
 * returning. The caller must only pass an ISA that sct_nt_isa_detect() allows; y is
 * unused (may be NULL) for copy and scale.
 */
void sct_stream_range(enum sct_nt_isa stores, enum sct_stream_op op, double *restrict dst,
                      const double *restrict x, const double *restrict y, double s, size_t lo,
                      size_t hi);

#endif
