/*
 * plan.c: from a checked card to the exact command and environment of the workload,
 * shared by --dry-run (which prints it) and the executors (which carry it out).
 */
#include "plan.h"
#include "sc_text.h"
#include "sc_cpulist.h"
#include "sc_hostlist.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Variables streamcard sets itself; inherited values would contradict the card. */
static const char *const sc__owned_env[] = {"OMP_NUM_THREADS",   "OMP_PLACES",   "OMP_PROC_BIND",
                                            "GOMP_CPU_AFFINITY", "KMP_AFFINITY", NULL};

static bool sc__is_file(const char *path)
{
    return access(path, X_OK) == 0;
}

/* The executable name (e.g. "streamcard-stream") in dir, else in STREAMCARD_KERNEL_DIR,
   else next to this program or under libexec: a malloc'd absolute path, or NULL when not
   found. */
static char *sc__find_kernel(const char *name, const char *dir)
{
    char exe[PATH_MAX], candidate[PATH_MAX * 2];

    if (!dir)
        dir = getenv("STREAMCARD_KERNEL_DIR");

    if (dir && *dir) {
        snprintf(candidate, sizeof(candidate), "%s/%s", dir, name);
        return sc__is_file(candidate) ? realpath(candidate, NULL) : NULL;
    }
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    /* The build tree keeps kernels next to the command; an install puts them in libexec. */
    snprintf(candidate, sizeof(candidate), "%s/%s", exe, name);
    if (sc__is_file(candidate))
        return realpath(candidate, NULL);
    snprintf(candidate, sizeof(candidate), "%s/../libexec/streamcard/%s", exe, name);
    if (sc__is_file(candidate))
        return realpath(candidate, NULL);
    return NULL;
}

static const char *const sc__kernel_names[] = {
    [SC_WORKLOAD_STREAM] = "streamcard-stream",
    [SC_WORKLOAD_IPSEARCH] = "streamcard-ipsearch",
    [SC_WORKLOAD_MPI_PINGPONG] = "streamcard-pingpong",
};

char *sc_plan_find_kernel(sc_workload workload)
{
    if ((size_t)workload >= sizeof(sc__kernel_names) / sizeof(sc__kernel_names[0]) ||
        !sc__kernel_names[workload])
        return NULL;
    return sc__find_kernel(sc__kernel_names[workload], NULL);
}

#ifndef SC_MULTIARCH_LIBDIR
#define SC_MULTIARCH_LIBDIR "/usr/lib"
#endif

char *sc_plan_blas_dir(const sc_card *card)
{
    char *dir = NULL;

    if (card->workload != SC_WORKLOAD_IPSEARCH || !card->blas || !strcmp(card->blas, "default"))
        return NULL;
    /* Debian installs each OpenBLAS build in its own directory; the library path picks one
       ahead of the alternatives' link, and build.json records the one really loaded. */
    return asprintf(&dir, "%s/%s", SC_MULTIARCH_LIBDIR, card->blas) < 0 ? NULL : dir;
}

/* A growing NULL-terminated array of malloc'd strings. */
typedef struct sc__strv {
    char **v;
    size_t n, cap;
    int failed;
} sc__strv;

static void sc__strv_addf(sc__strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sc__strv_addf(sc__strv *s, const char *fmt, ...)
{
    va_list ap;
    char *str = NULL;

    if (s->n + 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 32;
        char **grown = realloc(s->v, cap * sizeof(*grown));
        if (!grown) {
            s->failed = 1;
            return;
        }
        s->v = grown;
        s->cap = cap;
    }
    va_start(ap, fmt);
    if (vasprintf(&str, fmt, ap) < 0) {
        s->failed = 1;
        str = NULL;
    }
    va_end(ap);
    if (!str)
        return;
    s->v[s->n++] = str;
    s->v[s->n] = NULL;
}

/* Appends "--flag" and its formatted value: one option of a workload's command line. */
static void sc__strv_opt(sc__strv *s, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sc__strv_opt(sc__strv *s, const char *flag, const char *fmt, ...)
{
    char *value = NULL;
    va_list ap;

    va_start(ap, fmt);
    int n = vasprintf(&value, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->failed = 1;
        return;
    }
    sc__strv_addf(s, "%s", flag);
    sc__strv_addf(s, "%s", value);
    free(value);
}

static void sc__strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* Whether streamcard sets OMP_DISPLAY_ENV=true for this run: a study's OpenMP workload whose
   card does not set it. */
static bool sc__display_env(const sc_card *card, const sc_run_opts *opts)
{
    if (!opts->display_env || card->workload == SC_WORKLOAD_MPI_PINGPONG)
        return false;
    for (size_t i = 0; i < card->n_env; i++)
        if (!strcmp(card->env[i].key, "OMP_DISPLAY_ENV"))
            return false;
    return true;
}

static bool sc__env_owned(const char *entry, const sc_card *card, const sc_run_opts *opts)
{
    size_t n = strcspn(entry, "=");

    for (const char *const *k = sc__owned_env; *k; k++)
        if (strlen(*k) == n && strncmp(entry, *k, n) == 0)
            return true;
    for (size_t i = 0; i < card->n_env; i++)
        if (strlen(card->env[i].key) == n && strncmp(entry, card->env[i].key, n) == 0)
            return true;
    /* blas: the library path is the card's (the inherited one follows the BLAS's). */
    if (n == 15 && !strncmp(entry, "LD_LIBRARY_PATH", n) && card->blas &&
        strcmp(card->blas, "default") != 0 && card->workload == SC_WORKLOAD_IPSEARCH)
        return true;
    /* A study: streamcard asks the OpenMP runtime to say what it read (plan.h). */
    if (n == 15 && !strncmp(entry, "OMP_DISPLAY_ENV", n) && sc__display_env(card, opts))
        return true;
    /* A study's step removed it (unset:): the workload starts without it. */
    for (size_t i = 0; i < card->n_env_unset; i++)
        if (strlen(card->env_unset[i]) == n && strncmp(entry, card->env_unset[i], n) == 0)
            return true;
    return false;
}

/* The card's value of an env variable, or NULL. */
static const char *sc__card_env(const sc_card *card, const char *name)
{
    for (size_t i = 0; i < card->n_env; i++)
        if (!strcmp(card->env[i].key, name))
            return card->env[i].value;
    return NULL;
}

/* OMP_PLACES with one place per CPU of the card, so thread i binds to the i-th CPU. */
static char *sc__omp_places(const sc_card *card)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    unsigned cpu;
    bool first = true;

    if (!mem)
        return NULL;
    hwloc_bitmap_foreach_begin(cpu, card->cpus)
    {
        fprintf(mem, "%s{%u}", first ? "" : ",", cpu);
        first = false;
    }
    hwloc_bitmap_foreach_end();
    fclose(mem);
    return text;
}

static void sc__stream_argv(sc__strv *a, const sc_plan *plan)
{
    const sc_card *c = plan->card;

    sc__strv_opt(a, "--kernel", "%s", c->kernel);
    sc__strv_opt(a, "--array-size", "%llu", (unsigned long long)c->array_size);
    sc__strv_opt(a, "--iterations", "%ld", c->iterations);
    sc__strv_opt(a, "--nt-stores", "%s", c->nt_stores);
}

static void sc__ipsearch_argv(sc__strv *a, const sc_plan *plan)
{
    const sc_card *c = plan->card;

    sc__strv_opt(a, "--nb", "%llu", (unsigned long long)c->nb);
    sc__strv_opt(a, "--nq", "%llu", (unsigned long long)c->nq);
    sc__strv_opt(a, "--dim", "%llu", (unsigned long long)c->dim);
    sc__strv_opt(a, "--k", "%llu", (unsigned long long)c->k);
    /* Without pool_threads in the card the kernel takes its default layout, which also
       keeps every cpu busy for batches smaller than the thread count. */
    if (c->present[SC_CF_POOL_THREADS])
        sc__strv_opt(a, "--pool-threads", "%ld", c->pool_threads);
    sc__strv_opt(a, "--iterations", "%ld", c->iterations);
}

/* The absolute path of an executable looked up in PATH, malloc'd; NULL when not found. */
static char *sc__which(const char *name)
{
    const char *path = getenv("PATH");
    char candidate[PATH_MAX];

    for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
        size_t n = strcspn(dir, ":");
        snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)n, n ? dir : ".", name);
        if (access(candidate, X_OK) == 0)
            return strdup(candidate);
        dir += n;
        if (*dir == ':')
            dir++;
    }
    return NULL;
}

/* pairs: all: every pair of the job's nodes, one rank each. */
static bool sc__pairs_all(const sc_card *c)
{
    return c->pairs && strcmp(c->pairs, "all") == 0;
}

/* The ranks to start: the card's, or with pairs: all and no count the allocation's nodes. */
static long sc__mpi_ranks(const sc_card *c, bool in_slurm)
{
    const char *nodes = getenv("SLURM_JOB_NUM_NODES");
    long n = nodes ? strtol(nodes, NULL, 10) : 0;

    if (c->ranks > 0)
        return c->ranks;
    return in_slurm && n >= 2 && n <= 4096 ? n : 2;
}

/*
 * MPI: the launcher first. Inside a Slurm allocation `srun --mpi=pmix` starts the ranks
 * (on as many nodes as the card's nodes: names), each node's ranks bound in order to the
 * card's CPUs; outside, `mpirun` with the same ordered binding.
 */
static int sc__mpi_launcher(sc__strv *a, const sc_plan *plan, bool in_slurm)
{
    const sc_card *c = plan->card;
    char *launcher = sc__which(in_slurm ? "srun" : "mpirun");
    unsigned long nodes = c->nodes ? sc_hostlist_count(c->nodes) : 1;
    /* "0-1,4" as "0,1,4": the launchers bind rank i to the i-th CPU of the list. */
    char *list = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&list, &len);
    unsigned cpu;
    bool first = true;
    if (mem) {
        hwloc_bitmap_foreach_begin(cpu, c->cpus)
        {
            fprintf(mem, "%s%u", first ? "" : ",", cpu);
            first = false;
        }
        hwloc_bitmap_foreach_end();
        fclose(mem);
    }
    sc__strv_addf(a, "%s", launcher ? launcher : (in_slurm ? "srun" : "mpirun"));
    if (in_slurm) {
        sc__strv_addf(a, "--mpi=pmix");
        long ranks = sc__mpi_ranks(c, in_slurm);
        sc__strv_addf(a, "--ntasks=%ld", ranks);
        if (sc__pairs_all(c)) /* one rank per node, over as many nodes as ranks */
            sc__strv_addf(a, "--nodes=%ld", ranks);
        else
            sc__strv_addf(a, "--nodes=%lu", nodes ? nodes : 1);
        if (sc__pairs_all(c))
            sc__strv_addf(a, "--ntasks-per-node=1");
        sc__strv_addf(a, "--cpu-bind=map_cpu:%s", list ? list : "0");
        sc__strv_addf(a, "--kill-on-bad-exit=1");
    } else {
        long ranks = sc__mpi_ranks(c, in_slurm);
        /* pairs: all on one host (a rehearsal of the matrix): more ranks than CPUs share the
           card's CPUs, as one host has no node per rank */
        bool shared = sc__pairs_all(c) && ranks > hwloc_bitmap_weight(c->cpus);
        sc__strv_opt(a, "-np", "%ld", ranks);
        if (shared)
            sc__strv_addf(a, "--oversubscribe");
        sc__strv_opt(a, "--cpu-list", "%s", list ? list : "0");
        sc__strv_opt(a, "--bind-to", "%s", shared ? "cpu-list" : "cpu-list:ordered");
        if (geteuid() == 0)
            sc__strv_addf(a, "--allow-run-as-root");
    }
    free(list);
    int found = launcher != NULL;
    free(launcher);
    return found ? 0 : -ENOENT;
}

static void sc__mpi_argv(sc__strv *a, const sc_plan *plan)
{
    const sc_card *c = plan->card;

    sc__strv_opt(a, "--kernel", "%s", c->kernel);
    sc__strv_opt(a, "--min-bytes", "%llu", (unsigned long long)c->min_bytes);
    sc__strv_opt(a, "--max-bytes", "%llu", (unsigned long long)c->max_bytes);
    sc__strv_opt(a, "--iterations", "%ld", c->iterations);
    if (c->window)
        sc__strv_opt(a, "--window", "%ld", c->window);
    if (sc__pairs_all(c)) {
        sc__strv_opt(a, "--pairs", "%s", "all");
        sc__strv_opt(a, "--passes", "%ld", c->passes > 0 ? c->passes : 1);
    }
}

char *sc_plan_kernel_dir(sc_workload w, const char *kernel_dir)
{
    char *path;

    if (w <= SC_WORKLOAD_NONE || w > SC_WORKLOAD_MPI_PINGPONG ||
        !(path = sc__find_kernel(sc__kernel_names[w], kernel_dir)))
        return NULL;
    *strrchr(path, '/') = '\0';
    return path;
}

/* Fills argv, envp and binary of plan from its checked card. Returns 0 or -errno. */
static int sc__plan_build(sc_plan *plan, char **parent_env)
{
    const sc_card *c = plan->card;
    sc__strv argv = {0}, env = {0};
    char *places = sc__omp_places(c);

    if (!places)
        return -ENOMEM;
    plan->binary = sc__find_kernel(sc__kernel_names[c->workload], plan->kernel_dir);
    plan->binary_found = plan->binary != NULL;
    if (!plan->binary) {
        char *exe = realpath("/proc/self/exe", NULL);
        char *slash = exe ? strrchr(exe, '/') : NULL;
        if (slash)
            *slash = '\0';
        if (asprintf(&plan->binary, "%s/%s", exe ? exe : ".", sc__kernel_names[c->workload]) < 0)
            plan->binary = NULL;
        free(exe);
    }
    bool in_slurm = getenv("SLURM_JOB_ID") != NULL;
    if (c->workload == SC_WORKLOAD_MPI_PINGPONG && sc__mpi_launcher(&argv, plan, in_slurm) < 0)
        plan->binary_found = false; /* no launcher: nothing can run (the plan says which) */
    sc__strv_addf(&argv, "%s", plan->binary ? plan->binary : "");
    if (c->workload == SC_WORKLOAD_STREAM)
        sc__stream_argv(&argv, plan);
    else if (c->workload == SC_WORKLOAD_IPSEARCH)
        sc__ipsearch_argv(&argv, plan);
    else
        sc__mpi_argv(&argv, plan);
    for (char **e = parent_env; e && *e; e++)
        if (!sc__env_owned(*e, c, plan->opts))
            sc__strv_addf(&env, "%s", *e);
    /* Each name once: the runtimes read the first of two (glibc's getenv), so a card's value
       after streamcard's own would be recorded and never read. The card's OMP_PROC_BIND is
       honoured in place of close; the variables that would contradict the card's CPUs are
       refused by the card check (sc_card_check: OMP_NUM_THREADS, OMP_PLACES,
       GOMP_CPU_AFFINITY, KMP_AFFINITY). */
    const char *bind = sc__card_env(c, "OMP_PROC_BIND");
    sc__strv_addf(&env, "OMP_NUM_THREADS=%ld", c->threads);
    sc__strv_addf(&env, "OMP_PLACES=%s", places);
    sc__strv_addf(&env, "OMP_PROC_BIND=%s", bind ? bind : "close");
    if (sc__display_env(c, plan->opts)) /* a study: what the runtime read, in its words */
        sc__strv_addf(&env, "OMP_DISPLAY_ENV=true");
    if (c->workload == SC_WORKLOAD_MPI_PINGPONG && !in_slurm && geteuid() == 0) {
        /* Open MPI refuses root without both (a test machine; clusters run as users). */
        if (!sc__card_env(c, "OMPI_ALLOW_RUN_AS_ROOT"))
            sc__strv_addf(&env, "OMPI_ALLOW_RUN_AS_ROOT=1");
        if (!sc__card_env(c, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"))
            sc__strv_addf(&env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    }
    char *blas_dir = sc_plan_blas_dir(c);
    for (size_t i = 0; i < c->n_env; i++)
        if (strcmp(c->env[i].key, "OMP_PROC_BIND") != 0 &&
            !(blas_dir && !strcmp(c->env[i].key, "LD_LIBRARY_PATH")))
            sc__strv_addf(&env, "%s=%s", c->env[i].key, c->env[i].value);
    if (blas_dir) { /* the card's blas: first, then the card's path or the inherited one */
        const char *rest = sc__card_env(c, "LD_LIBRARY_PATH");
        if (!rest)
            rest = getenv("LD_LIBRARY_PATH");
        sc__strv_addf(&env, "LD_LIBRARY_PATH=%s%s%s", blas_dir, rest && *rest ? ":" : "",
                      rest && *rest ? rest : "");
        free(blas_dir);
    }
    if (asprintf(&plan->omp_summary, "OMP_NUM_THREADS=%ld OMP_PLACES=%s OMP_PROC_BIND=%s%s",
                 c->threads, places, bind ? bind : "close", bind ? " (the card's)" : "") < 0)
        plan->omp_summary = NULL;
    free(places);
    plan->argv = argv.v;
    plan->envp = env.v;
    return argv.failed || env.failed || !plan->omp_summary || !plan->binary ? -ENOMEM : 0;
}

/* card.yaml: the card exactly as given, or the resolved card when flags or a sweep changed
   it. */
static int sc__resolve_card_text(sc_plan *plan)
{
    const sc_card *card = plan->card;

    if (card->source && !card->overridden) {
        plan->card_origin = "file";
        plan->card_yaml = strdup(card->source);
    } else {
        plan->card_origin = plan->opts->card_path ? "file+flags" : "flags";
        plan->card_yaml = sc_card_to_yaml(card);
    }
    if (!plan->card_yaml)
        return -ENOMEM;
    return sc_hash_buf(plan->card_yaml, strlen(plan->card_yaml), plan->card_sha256);
}

int sc_plan_init(sc_plan *plan, const sc_run_opts *opts, sc_card *card, char **parent_env)
{
    return sc_plan_init_in(plan, opts, card, parent_env, NULL);
}

int sc_plan_init_in(sc_plan *plan, const sc_run_opts *opts, sc_card *card, char **parent_env,
                    const char *kernel_dir)
{
    memset(plan, 0, sizeof(*plan));
    plan->opts = opts;
    plan->card = card;
    plan->kernel_dir = kernel_dir;
    int rc = sc__resolve_card_text(plan);
    if (rc == 0 && !opts->submit)
        rc = sc__plan_build(plan, parent_env);
    return rc;
}

int sc_plan_append_arg(sc_plan *plan, const char *arg)
{
    size_t n = 0;

    while (plan->argv && plan->argv[n])
        n++;
    char **grown = realloc(plan->argv, (n + 2) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    plan->argv = grown;
    grown[n] = strdup(arg);
    grown[n + 1] = NULL;
    return grown[n] ? 0 : -ENOMEM;
}

/* Text of the card or the command line (a question, an env value with ESC in it), printed
   escaped (sc_text_escape), then end (may be ""). */
static void sc__print_text(FILE *out, const char *text, const char *end)
{
    char buf[2048];

    sc_text_escape(buf, sizeof(buf), text ? text : "", text ? strlen(text) : 0);
    fprintf(out, "%s%s", buf, end);
}

/* one_per_core: what hwloc kept, and when that is every CPU, that it does nothing here. */
static void sc__print_one_per_core(FILE *out, const sc_card *c)
{
    hwloc_bitmap_t from = hwloc_bitmap_alloc();
    bool same = from && sc_cpulist_parse(c->one_per_core_from, from, NULL, 0) == 0 &&
                hwloc_bitmap_isequal(from, c->cpus);

    fputs("  one_per_core: cpu_list ", out);
    sc__print_text(out, c->one_per_core_from, " -> ");
    sc__print_text(out, c->cpu_list,
                   same ? " (no effect here: no two of its CPUs share a core, no SMT)\n" : "\n");
    hwloc_bitmap_free(from);
}

/* The BLAS the workload will load: the card's build, or what the system's alternative is. */
static void sc__print_blas(FILE *out, const sc_card *c)
{
    char *dir = sc_plan_blas_dir(c), path[PATH_MAX], real[PATH_MAX];

    snprintf(path, sizeof(path), "%s/libopenblas.so.0", dir ? dir : SC_MULTIARCH_LIBDIR);
    bool found = realpath(path, real) != NULL;
    fprintf(out, "  blas:        %s (%s%s%s)\n", dir ? c->blas : "default",
            dir ? "" : "the system's alternative: ", found ? real : path,
            found ? "" : ", NOT FOUND");
    free(dir);
}

void sc_plan_print(const sc_plan *plan, FILE *out)
{
    const sc_card *c = plan->card;
    char mem[64];

    snprintf(mem, sizeof(mem), "%.1f MiB", (double)sc_card_memory_bytes(c) / 1048576.0);
    fprintf(out, "streamcard plan\n");
    fputs("  card:        ", out);
    sc__print_text(out, plan->opts->card_path ? plan->opts->card_path : "from flags", "");
    fprintf(out, " (%s, sha256 %.16s...)\n", plan->card_origin, plan->card_sha256);
    if (c->question) {
        fputs("  question:    ", out);
        sc__print_text(out, c->question, "\n");
    }
    fprintf(out, "  workload:    %s%s", sc_workload_name(c->workload),
            c->kernel ? ", kernel " : "");
    sc__print_text(out, c->kernel, "\n");
    fputs("  binary:      ", out);
    sc__print_text(out, plan->binary,
                   plan->binary_found ? "\n"
                                      : "  (NOT FOUND: build it, or set STREAMCARD_KERNEL_DIR)\n");
    fprintf(out, "  CPUs:        %s (%d CPUs)\n", c->cpu_list, hwloc_bitmap_weight(c->cpus));
    if (c->workload == SC_WORKLOAD_MPI_PINGPONG) {
        /* The count the launcher is given (pairs: all without ranks: the allocation's nodes,
           2 on this host outside Slurm), not the card's unset 0. */
        bool in_slurm = getenv("SLURM_JOB_ID") != NULL;
        fprintf(out, "  ranks:       %ld, ", sc__mpi_ranks(c, in_slurm));
        if (sc__pairs_all(c) && c->ranks <= 0)
            fprintf(out, "%s\n",
                    in_slurm ? "one per node of the job (pairs: all)"
                             : "on this host's cpu_list (pairs: all; under Slurm one per node of "
                               "the job)");
        else if (sc__pairs_all(c))
            fprintf(out, "one per node (pairs: all)\n");
        else
            fprintf(out, "rank i on the i-th CPU of cpu_list%s\n",
                    c->nodes ? ", across the card's nodes" : "");
    } else
        fprintf(out, "  threads:     %ld (%s)\n", c->threads, plan->omp_summary);
    if (c->one_per_core_from)
        sc__print_one_per_core(out, c);
    if (c->workload == SC_WORKLOAD_IPSEARCH)
        sc__print_blas(out, c);
    if (c->memory_node >= 0)
        fprintf(out, "  memory node: %ld (membind, strict)\n", c->memory_node);
    else
        fprintf(out, "  memory node: not bound (the kernel's default policy)\n");
    /* As root outside a job the platform is read before and after, never set. */
    const char *readback = !plan->opts->cli_readback ? ""
                           : c->prefetch == SC_PREFETCH_UNCHANGED
                               ? " (its registers read by the CLI as root before and after)"
                               : " (expected, not set: read back by the CLI as root before and "
                                 "after the workload, not attested)";
    fprintf(out, "  prefetch:    %s%s\n", sc_prefetch_name(c->prefetch), readback);
    fputs("  governor:    ", out);
    sc__print_text(out, c->governor,
                   plan->opts->cli_readback && strcmp(c->governor, "unchanged") != 0
                       ? " (expected, not set: read back by the CLI as root before and after "
                         "the workload, not attested)\n"
                       : "\n");
    if (c->workload == SC_WORKLOAD_STREAM && !c->array_size)
        fprintf(out,
                "  sizes:       array_size auto (the cache probe decides when the run starts), "
                "iterations %ld, nt_stores %s\n",
                c->iterations, c->nt_stores);
    else if (c->workload == SC_WORKLOAD_STREAM)
        fprintf(out,
                "  sizes:       array_size %llu (%s for 3 arrays), iterations %ld, "
                "nt_stores %s\n",
                (unsigned long long)c->array_size, mem, c->iterations, c->nt_stores);
    if (c->workload == SC_WORKLOAD_IPSEARCH)
        fprintf(out,
                "  sizes:       nb %llu x dim %llu (database), nq %llu queries, k %llu, "
                "pool_threads %ld%s, iterations %ld (%s)\n",
                (unsigned long long)c->nb, (unsigned long long)c->dim, (unsigned long long)c->nq,
                (unsigned long long)c->k, c->pool_threads,
                c->present[SC_CF_POOL_THREADS] ? "" : " (default layout)", c->iterations, mem);
    if (c->workload == SC_WORKLOAD_MPI_PINGPONG) {
        char window[48] = "";
        if (c->window)
            snprintf(window, sizeof(window), ", window %ld", c->window);
        fprintf(out, "  sizes:       %llu to %llu bytes (doubling), iterations %ld%s%s%s\n",
                (unsigned long long)c->min_bytes, (unsigned long long)c->max_bytes, c->iterations,
                window, c->expect_transport ? ", expected transport " : "",
                c->expect_transport ? c->expect_transport : "");
    }
    for (size_t i = 0; i < c->n_env; i++) {
        fputs("  env:         ", out);
        sc__print_text(out, c->env[i].key, "=");
        sc__print_text(out, c->env[i].value, "\n");
    }
    fputs("  output:      ", out);
    if (plan->opts->adopt_bundle) {
        sc__print_text(out, plan->opts->adopt_bundle, " (prepared by the SPANK plugin)\n");
    } else {
        sc__print_text(out, plan->opts->output_dir, "/");
        sc__print_text(out, c->run_name, "_YYYYMMDD_HHMMSS\n");
    }
    fprintf(out, "  command:    ");
    for (char **a = plan->argv; a && *a; a++) {
        fputc(' ', out);
        sc__print_text(out, *a, "");
    }
    fprintf(out, "\n");
}

void sc_plan_free(sc_plan *plan)
{
    free(plan->card_yaml);
    free(plan->binary);
    sc__strv_free(plan->argv);
    sc__strv_free(plan->envp);
    free(plan->omp_summary);
    free(plan->json_path);
    free(plan->transport_log_path);
    free(plan->bundle_path);
    memset(plan, 0, sizeof(*plan));
}

hwloc_topology_t sc_topology_get(sc_topology *t)
{
    if (t->rc == 1) {
        t->rc = hwloc_topology_init(&t->topo) < 0 ? -ENOMEM : 0;
        if (t->rc == 0 && hwloc_topology_load(t->topo) < 0) {
            t->rc = errno ? -errno : -EIO;
            hwloc_topology_destroy(t->topo);
        }
    }
    errno = t->rc < 0 ? -t->rc : 0;
    return t->rc == 0 ? t->topo : NULL;
}

void sc_topology_free(sc_topology *t)
{
    if (t->rc == 0)
        hwloc_topology_destroy(t->topo);
    t->rc = 1;
}

void sc_run_opts_free(sc_run_opts *opts)
{
    free(opts->card_path);
    free(opts->output_dir);
    free(opts->adopt_bundle);
    sc__strv_free(opts->sbatch_args);
    memset(opts, 0, sizeof(*opts));
}
