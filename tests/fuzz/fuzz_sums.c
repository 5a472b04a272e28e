/*
 * fuzz_sums.c: SHA256SUMS as `streamcard verify` reads it from a bundle that may have been
 * edited by anyone. The input is written as SHA256SUMS into a small fixed bundle (run.conf,
 * stream.log and prefetch/state/state.env) and into an empty one (nothing but SHA256SUMS),
 * and sc_bundle_check_sums() checks both. The seeds hold the real sums of the files, so
 * the fuzzer starts from a clean bundle.
 */
#include "support.h"

#include "sc_bundle.h"
#include "sc_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed bundle: keep in step with the seeds in corpus/sums/. */
static const char *const sc__files[][2] = {
    {"run.conf", "run_name=stream_copy_2thread\nthreads=2\nverdict=ok\n"},
    {"stream.log", "Solution Validates (Copy-only single kernel contract)\n"},
    {"prefetch/state/state.env", "OBSERVED_STATE=off\nSTATE_VALID=1\n"},
};

/* Opens <tmpdir>/<name> as a bundle, with the fixed files when with_files. */
static void sc__open(sc_bundle *b, const char *name, bool with_files)
{
    char dir[4096];

    snprintf(dir, sizeof(dir), "%s/%s", sc_fuzz_tmpdir(), name);
    sc_fuzz_put(dir, SC_BUNDLE_SUMS, "");
    for (size_t i = 0; with_files && i < sizeof(sc__files) / sizeof(sc__files[0]); i++)
        sc_fuzz_put(dir, sc__files[i][0], sc__files[i][1]);
    sc_fuzz_require(sc_bundle_open(b, dir) == 0, "cannot open a fixed bundle");
}

static void sc__check(const sc_bundle *b, const uint8_t *data, size_t size)
{
    sc_diag problems;

    sc_fuzz_require(sc_bundle_write(b, SC_BUNDLE_SUMS, data, size) == 0, "cannot write SHA256SUMS");
    sc_diag_init(&problems);
    sc_bundle_check_sums(b, &problems);
    sc_diag_free(&problems);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sc_bundle full = {.dirfd = -1}, empty = {.dirfd = -1};

    if (full.dirfd < 0) {
        sc__open(&full, "bundle", true);
        sc__open(&empty, "empty", false);
    }
    sc__check(&full, data, size);
    sc__check(&empty, data, size);
    return 0;
}
