/*
 * envhazard.c: the inherited variables that change a workload's performance and what each
 * does on this CPU (sc_envhazard.h). Variation as data: one row per variable or family, the
 * most specific first, an effect function where the value and the CPU say more than the row.
 */
#include "sc_envhazard.h"
#include "sc_bundle.h"
#include "sc_kv.h"
#include "sc_runenv.h"
#include "sc_runs.h"
#include "sc_text.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct sc__ctx {
    const char *name, *value, *simd;
    const sc_card *card;
} sc__ctx;

typedef void (*sc__effect_fn)(const sc__ctx *x, const char *changes, char *out, size_t len);

typedef struct sc__hazard {
    const char *pattern; /* a name, or a prefix ending in '*' */
    const char *changes;
    sc__effect_fn effect; /* NULL: the row's words */
} sc__hazard;

/* Vector instruction sets, narrowest first per family, with a name for messages. */
static const struct {
    const char *isa, *shown;
    int rank;
} sc__isas[] = {
    {"sse2", "SSE2", 1}, {"sse3", "SSE3", 2},  {"sse4_1", "SSE4.1", 3},   {"sse4_2", "SSE4.2", 4},
    {"avx", "AVX", 5},   {"avx2", "AVX2", 6},  {"avx512f", "AVX-512", 7}, {"asimd", "ASIMD", 11},
    {"sve", "SVE", 12},  {"sve2", "SVE2", 13},
};

static int sc__isa_rank(const char *isa, const char **shown)
{
    for (size_t i = 0; isa && i < sizeof(sc__isas) / sizeof(sc__isas[0]); i++)
        if (!strcasecmp(isa, sc__isas[i].isa)) {
            if (shown)
                *shown = sc__isas[i].shown;
            return sc__isas[i].rank;
        }
    return 0;
}

/* OpenBLAS's core types (its TARGET names) and the widest vectors their kernels use. */
static const struct {
    const char *core, *isa;
} sc__cores[] = {
    {"SAPPHIRERAPIDS", "avx512f"}, {"COOPERLAKE", "avx512f"}, {"SKYLAKEX", "avx512f"},
    {"HASWELL", "avx2"},           {"ZEN", "avx2"},           {"EXCAVATOR", "avx2"},
    {"SANDYBRIDGE", "avx"},        {"BULLDOZER", "avx"},      {"PILEDRIVER", "avx"},
    {"STEAMROLLER", "avx"},        {"NEHALEM", "sse4_2"},     {"PENRYN", "sse4_1"},
    {"DUNNINGTON", "sse4_1"},      {"CORE2", "sse3"},         {"ATOM", "sse3"},
    {"BARCELONA", "sse3"},         {"PRESCOTT", "sse3"},      {"NEOVERSEV2", "sve2"},
    {"NEOVERSEN2", "sve2"},        {"NEOVERSEV1", "sve"},     {"A64FX", "sve"},
    {"ARMV8SVE", "sve"},           {"NEOVERSEN1", "asimd"},   {"TSV110", "asimd"},
    {"THUNDERX2T99", "asimd"},     {"CORTEXA72", "asimd"},    {"ARMV8", "asimd"},
};

/* "kernels for X (AVX2) on a CPU with AVX-512: its widest vectors unused", said of a library's
   fixed code path against this CPU's widest vectors. */
static void sc__isa_against(const sc__ctx *x, const char *what, const char *isa, char *out,
                            size_t len)
{
    const char *want = "?", *have = "?";
    int w = sc__isa_rank(isa, &want), h = sc__isa_rank(x->simd, &have);

    if (!w)
        snprintf(out, len, "%s=%s: %s instead of the ones it detects", x->name, x->value, what);
    else if (!h || (w > 10) != (h > 10))
        snprintf(out, len,
                 "%s=%s: %s (%s) instead of the ones it detects; this CPU's vectors "
                 "are not recorded",
                 x->name, x->value, what, want);
    else if (w < h)
        snprintf(out, len, "%s=%s: %s (%s) on a CPU with %s: its widest vectors unused", x->name,
                 x->value, what, want, have);
    else if (w > h)
        snprintf(out, len, "%s=%s: %s (%s) on a CPU without them (%s at most): they fault", x->name,
                 x->value, what, want, have);
    else
        snprintf(out, len, "%s=%s: %s (%s), this CPU's widest, fixed instead of detected", x->name,
                 x->value, what, want);
}

static void sc__coretype(const sc__ctx *x, const char *changes, char *out, size_t len)
{
    char what[96];

    (void)changes;
    for (size_t i = 0; i < sizeof(sc__cores) / sizeof(sc__cores[0]); i++)
        if (!strcasecmp(x->value, sc__cores[i].core)) {
            snprintf(what, sizeof(what), "OpenBLAS's %s kernels", x->value);
            sc__isa_against(x, what, sc__cores[i].isa, out, len);
            return;
        }
    snprintf(what, sizeof(what), "OpenBLAS's %s kernels", x->value);
    sc__isa_against(x, what, NULL, out, len);
}

static void sc__mkl_isa(const sc__ctx *x, const char *changes, char *out, size_t len)
{
    static const struct {
        const char *value, *isa;
    } map[] = {{"AVX512", "avx512f"},
               {"AVX512_E1", "avx512f"},
               {"AVX2", "avx2"},
               {"AVX", "avx"},
               {"SSE4_2", "sse4_2"}};
    const char *isa = NULL;

    (void)changes;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcasecmp(x->value, map[i].value))
            isa = map[i].isa;
    sc__isa_against(x, "MKL's code paths", isa, out, len);
}

static void sc__blas_threads(const sc__ctx *x, const char *changes, char *out, size_t len)
{
    long n = strtol(x->value, NULL, 10), cpus = x->card ? hwloc_bitmap_weight(x->card->cpus) : 0;

    if (n > 1 && x->card && x->card->threads > 0)
        snprintf(
            out, len,
            "%s=%s: %ld threads per BLAS call, made from each of the card's %ld threads: up to "
            "%ld threads on %ld CPUs",
            x->name, x->value, n, x->card->threads, n * x->card->threads, cpus);
    else
        snprintf(out, len, "%s=%s: %s", x->name, x->value, changes);
}

static void sc__wait_policy(const sc__ctx *x, const char *changes, char *out, size_t len)
{
    if (!strcasecmp(x->value, "passive"))
        snprintf(out, len,
                 "%s=%s: idle OpenMP threads sleep between parallel regions; every "
                 "region wakes them again (slower short regions)",
                 x->name, x->value);
    else if (!strcasecmp(x->value, "active"))
        snprintf(out, len, "%s=%s: idle OpenMP threads spin between regions and keep their CPUs",
                 x->name, x->value);
    else
        snprintf(out, len, "%s=%s: %s", x->name, x->value, changes);
}

static void sc__thread_limit(const sc__ctx *x, const char *changes, char *out, size_t len)
{
    long n = strtol(x->value, NULL, 10);

    if (x->card && n > 0 && n < x->card->threads)
        snprintf(out, len, "%s=%s: at most %ld OpenMP threads, fewer than the card's %ld", x->name,
                 x->value, n, x->card->threads);
    else
        snprintf(out, len, "%s=%s: %s", x->name, x->value, changes);
}

static const sc__hazard sc__table[] = {
    {"OPENBLAS_CORETYPE", "OpenBLAS's kernels: the named core's, not the ones it detects",
     sc__coretype},
    {"OPENBLAS_NUM_THREADS", "OpenBLAS's threads per call", sc__blas_threads},
    {"GOTO_NUM_THREADS", "OpenBLAS's threads per call (GotoBLAS's name)", sc__blas_threads},
    {"OPENBLAS_*", "OpenBLAS's threads, buffers and kernels", NULL},
    {"GOTO*", "GotoBLAS's settings, which OpenBLAS reads too", NULL},
    {"MKL_ENABLE_INSTRUCTIONS", "the widest instructions MKL may use", sc__mkl_isa},
    {"MKL_NUM_THREADS", "MKL's threads per call", sc__blas_threads},
    {"MKL_*", "MKL's threads and code paths (MKL_DYNAMIC, MKL_CBWR: reproducible, slower paths)",
     NULL},
    {"OMP_WAIT_POLICY", "what idle OpenMP threads do between regions", sc__wait_policy},
    {"OMP_THREAD_LIMIT", "the most OpenMP threads a program may have", sc__thread_limit},
    {"OMP_DYNAMIC", "whether the OpenMP runtime may run fewer threads than asked", NULL},
    {"OMP_*", "an OpenMP setting: schedule, nesting, stack size, ...", NULL},
    {"GOMP_SPINCOUNT", "how long libgomp's idle threads spin before they sleep", NULL},
    {"GOMP_*", "libgomp's own settings", NULL},
    {"KMP_BLOCKTIME", "how long LLVM and Intel OpenMP threads spin before they sleep (0: at once)",
     NULL},
    {"KMP_*", "the LLVM and Intel OpenMP runtime's settings", NULL},
    {"OMPI_MCA_*", "an Open MPI parameter: the transport's selection, buffers, binding", NULL},
    {"PMIX_MCA_*", "a PMIx parameter", NULL},
    {"FI_*", "libfabric's provider choice and tuning", NULL},
    {"UCX_*", "UCX's transports and tuning", NULL},
    {"I_MPI_*", "Intel MPI's settings", NULL},
    {"MALLOC_*", "glibc malloc's arenas, trimming and mmap threshold: when pages are touched",
     NULL},
    {"GLIBC_TUNABLES",
     "glibc's tunables: malloc, and the variants of memcpy and the string "
     "functions it picks (glibc.cpu.hwcaps)",
     NULL},
    {"LD_PRELOAD",
     "libraries loaded before the workload's own: they may replace malloc, memcpy, "
     "the MPI or BLAS calls",
     NULL},
    {"LD_LIBRARY_PATH",
     "which BLAS, OpenMP and MPI libraries load (build.json names the ones "
     "that did)",
     NULL},
};

static const sc__hazard *sc__lookup(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof(sc__table) / sizeof(sc__table[0]); i++) {
        const char *p = sc__table[i].pattern;
        size_t plen = strlen(p);
        if (p[plen - 1] == '*' ? n >= plen - 1 && !strncmp(name, p, plen - 1)
                               : n == plen && !strncmp(name, p, n))
            return &sc__table[i];
    }
    return NULL;
}

void sc_envhazard_effect(const char *name, const char *value, const sc_card *card, const char *simd,
                         char *out, size_t len)
{
    const sc__hazard *h = sc__lookup(name, strlen(name));
    sc__ctx x = {.name = name, .value = value, .simd = simd, .card = card};

    *out = '\0';
    if (!h)
        return;
    if (h->effect)
        h->effect(&x, h->changes, out, len);
    else
        snprintf(out, len, "%s=%s: %s", name, value, h->changes);
}

/* Whether the card set the variable of entry ("NAME=value", name n bytes, the line len):
   its env:, its blas: a path or its MPI program's probe (sc_runenv_own_preload()). */
static bool sc__card_sets(const sc_card *card, const char *entry, size_t n, size_t len)
{
    for (size_t i = 0; card && i < card->n_env; i++)
        if (strlen(card->env[i].key) == n && !strncmp(card->env[i].key, entry, n))
            return true;
    return sc_runenv_own_preload(card, entry, len);
}

char *sc_envhazard_lines(const char *env, const sc_card *card, const char *simd, size_t *n)
{
    char *text = NULL, name[128], value[512], line[768];
    size_t size = 0, count = 0;
    FILE *mem = open_memstream(&text, &size);

    if (!mem)
        return NULL;
    for (const char *p = env; p && *p;) {
        size_t len = strcspn(p, "\n"), eq = strcspn(p, "=");
        if (eq < len && eq < sizeof(name) && !sc_runenv_placement(p, eq) &&
            !sc__card_sets(card, p, eq, len) && sc__lookup(p, eq)) {
            /* The bundle's words, escaped once (doc/contracts/errors.md): a line each. */
            sc_text_escape(name, sizeof(name), p, eq);
            sc_text_escape(value, sizeof(value), p + eq + 1, len - eq - 1);
            sc_envhazard_effect(name, value, card, simd, line, sizeof(line));
            fprintf(mem, "%s\n", line);
            count++;
        }
        p += len + (p[len] == '\n');
    }
    if (fclose(mem) != 0) {
        free(text);
        return NULL;
    }
    if (n)
        *n = count;
    return text;
}

/* The OpenBLAS core type that uses a CPU's widest x86 vectors, for the advice. */
static const struct {
    const char *isa, *core;
} sc__core_for[] = {{"avx512f", "SkylakeX"}, {"avx2", "Haswell"}, {"avx", "Sandybridge"}};

/* The line of a BLAS core type narrower than the CPU, chosen by the library; false when
   none is due (told by OPENBLAS_CORETYPE, unknown, or as wide as the CPU). */
static bool sc__blas_core_line(const char *env, const char *corename, const char *simd,
                               char *out, size_t len)
{
    const char *isa = NULL, *want = "?", *have = "?", *advice = NULL;

    if (!corename || !simd)
        return false;
    for (const char *p = env; p && *p;) {
        size_t l = strcspn(p, "\n");
        if (!strncmp(p, "OPENBLAS_CORETYPE=", 18) && l > 18)
            return false;
        p += l + (p[l] == '\n');
    }
    for (size_t i = 0; i < sizeof(sc__cores) / sizeof(sc__cores[0]); i++)
        if (!strcasecmp(corename, sc__cores[i].core))
            isa = sc__cores[i].isa;
    int w = sc__isa_rank(isa, &want), h = sc__isa_rank(simd, &have);
    if (!w || !h || (w > 10) != (h > 10) || w >= h)
        return false;
    for (size_t i = 0; i < sizeof(sc__core_for) / sizeof(sc__core_for[0]); i++)
        if (!strcasecmp(simd, sc__core_for[i].isa))
            advice = sc__core_for[i].core;
    char core[64];
    sc_text_escape(core, sizeof(core), corename, strlen(corename));
    snprintf(out, len,
             "blas_core=%s: OpenBLAS's %s kernels (%s) on a CPU with %s: its widest vectors "
             "unused; chosen by the library itself (it does not know this CPU%s%s%s)",
             core, core, want, have, advice ? "; OPENBLAS_CORETYPE=" : "",
             advice ? advice : "", advice ? " would use them" : "");
    return true;
}

char *sc_envhazard_with_blas(char *lines, size_t *n, const char *env, const char *corename,
                             const char *simd)
{
    char line[512];

    if (!sc__blas_core_line(env, corename, simd, line, sizeof(line)))
        return lines ? lines : strdup("");
    size_t have = lines ? strlen(lines) : 0;
    char *grown = realloc(lines, have + strlen(line) + 2);
    if (!grown) {
        free(lines);
        return NULL;
    }
    snprintf(grown + have, strlen(line) + 2, "%s\n", line);
    if (n)
        (*n)++;
    return grown;
}

char *sc_envhazard_of_bundle(const struct sc_bundle *b, const sc_card *card, size_t *n)
{
    char rel[64], simd[32] = "";
    char *env =
        sc_bundle_read_opt(b, sc_runs_path(card, 0, "environ_at_ready.txt", rel, sizeof(rel)));
    char *before = sc_bundle_read_opt(b, "platform/before.txt");
    char *lines = NULL;

    *n = 0;
    if (before)
        sc_kv_get(before, SC_ENVHAZARD_SIMD_KEY, simd, sizeof(simd));
    if (env)
        lines = sc_envhazard_lines(env, card, simd, n);
    if (lines) {
        char *build = sc_bundle_read_opt(b, "build.json");
        json_object *root = build ? json_tokener_parse(build) : NULL, *core = NULL;
        if (root && json_object_object_get_ex(root, "blas_corename", &core) &&
            json_object_is_type(core, json_type_string))
            lines = sc_envhazard_with_blas(lines, n, env, json_object_get_string(core), simd);
        json_object_put(root);
        free(build);
    }
    free(env);
    free(before);
    return lines;
}

const char *sc_envhazard_row(size_t i, const char **changes)
{
    if (i >= sizeof(sc__table) / sizeof(sc__table[0]))
        return NULL;
    if (changes)
        *changes = sc__table[i].changes;
    return sc__table[i].pattern;
}
