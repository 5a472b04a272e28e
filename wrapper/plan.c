/*
 * plan.c: from a checked card to the exact command and environment of the workload,
 * shared by --dry-run (which prints it) and the executors (which carry it out).
 */
#include "plan.h"
#include "sc_text.h"
#include "sc_file.h"
#include "sc_cpulist.h"
#include "sc_hostlist.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Variables streamcard sets itself; inherited values would contradict the card. */
static const char *const sc__owned_env[] = {"OMP_NUM_THREADS",   "OMP_PLACES",   "OMP_PROC_BIND",
                                            "GOMP_CPU_AFFINITY", "KMP_AFFINITY", NULL};

/* Whether path is a file this process may use as asked (X_OK: run it; R_OK: load it). */
static bool sc__is_file(const char *path, int mode)
{
    return access(path, mode) == 0;
}

/* The file name (e.g. "streamcard-stream") in dir, else in STREAMCARD_KERNEL_DIR, else next
   to this program or under libexec, usable by mode (X_OK for a program; R_OK for the MPI
   probe, a library: installs give shared objects mode 0644): a malloc'd absolute path, or
   NULL when not found. */
static char *sc__find_in_kernels(const char *name, const char *dir, int mode)
{
    char exe[PATH_MAX], candidate[PATH_MAX * 2];

    if (!dir)
        dir = getenv("STREAMCARD_KERNEL_DIR");

    if (dir && *dir) {
        snprintf(candidate, sizeof(candidate), "%s/%s", dir, name);
        return sc__is_file(candidate, mode) ? realpath(candidate, NULL) : NULL;
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
    if (sc__is_file(candidate, mode))
        return realpath(candidate, NULL);
    snprintf(candidate, sizeof(candidate), "%s/../libexec/streamcard/%s", exe, name);
    if (sc__is_file(candidate, mode))
        return realpath(candidate, NULL);
    return NULL;
}

/* A kernel program: sc__find_in_kernels() for running it. */
static char *sc__find_kernel(const char *name, const char *dir)
{
    return sc__find_in_kernels(name, dir, X_OK);
}

/* The program of workload w, NULL for none. */
static const char *sc__program(sc_workload w)
{
    const sc_workload_ops *ops = sc_workload_ops_of(w);

    return ops ? ops->program : NULL;
}

char *sc_plan_find_kernel(sc_workload workload)
{
    const char *program = sc__program(workload);

    return program ? sc__find_kernel(program, NULL) : NULL;
}

#ifndef SC_MULTIARCH_LIBDIR
#define SC_MULTIARCH_LIBDIR "/usr/lib"
#endif

char *sc_plan_blas_dir(const sc_card *card)
{
    char *dir = NULL;

    if (!sc_workload_reads(card->workload, SC_CF_BLAS) || !card->blas ||
        !strcmp(card->blas, "default") || card->blas[0] == '/')
        return NULL;
    /* Debian installs each OpenBLAS build in its own directory; the library path picks one
       ahead of the alternatives' link, and build.json records the one really loaded. */
    return asprintf(&dir, "%s/%s", SC_MULTIARCH_LIBDIR, card->blas) < 0 ? NULL : dir;
}

const char *sc_plan_blas_preload(const sc_card *card)
{
    return sc_workload_reads(card->workload, SC_CF_BLAS) && card->blas && card->blas[0] == '/'
               ? card->blas
               : NULL;
}

/* Whether streamcard sets OMP_DISPLAY_ENV=true for this run: a study's OpenMP workload whose
   card does not set it. */
static bool sc__display_env(const sc_card *card, const sc_run_opts *opts)
{
    if (!opts->display_env || sc_workload_mpi(card))
        return false;
    for (size_t i = 0; i < card->n_env; i++)
        if (!strcmp(card->env[i].key, "OMP_DISPLAY_ENV"))
            return false;
    return true;
}

/* An MPI program we did not write: the probe is preloaded into its ranks (plan.h). */
static bool sc__foreign_mpi(const sc_card *card)
{
    return sc_workload_mpi(card) && sc_workload_foreign(card);
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
        strcmp(card->blas, "default") != 0 && card->blas[0] != '/' &&
        sc_workload_reads(card->workload, SC_CF_BLAS))
        return true;
    /* blas: a path, or an MPI program's probe: preloaded first (the inherited preloads
       follow them). */
    if (n == 10 && !strncmp(entry, "LD_PRELOAD", n) &&
        (sc_plan_blas_preload(card) || sc__foreign_mpi(card)))
        return true;
    /* Where the probe writes transport.log: the run's own (execute.c). */
    if (n == strlen(SC_TRACE_TRANSPORT_LOG_ENV) &&
        !strncmp(entry, SC_TRACE_TRANSPORT_LOG_ENV, n))
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

/* NAME=first, then after a ':' the card's value of NAME or else the inherited one (a
   library path or a list of preloads, searched in order). */
static void sc__env_first(sc_strv *env, const sc_card *c, const char *name, const char *first)
{
    const char *rest = sc__card_env(c, name);

    if (!rest)
        rest = getenv(name);
    sc_strv_addf(env, "%s=%s%s%s", name, first, rest && *rest ? ":" : "",
                 rest && *rest ? rest : "");
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
static int sc__mpi_launcher(sc_strv *a, const sc_plan *plan, bool in_slurm)
{
    const sc_card *c = plan->card;
    char *launcher = sc_file_which(in_slurm ? "srun" : "mpirun");
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
    sc_strv_addf(a, "%s", launcher ? launcher : (in_slurm ? "srun" : "mpirun"));
    if (in_slurm) {
        sc_strv_addf(a, "--mpi=pmix");
        long ranks = sc__mpi_ranks(c, in_slurm);
        sc_strv_addf(a, "--ntasks=%ld", ranks);
        if (sc__pairs_all(c)) /* one rank per node, over as many nodes as ranks */
            sc_strv_addf(a, "--nodes=%ld", ranks);
        else
            sc_strv_addf(a, "--nodes=%lu", nodes ? nodes : 1);
        if (sc__pairs_all(c))
            sc_strv_addf(a, "--ntasks-per-node=1");
        sc_strv_addf(a, "--cpu-bind=map_cpu:%s", list ? list : "0");
        sc_strv_addf(a, "--kill-on-bad-exit=1");
    } else {
        long ranks = sc__mpi_ranks(c, in_slurm);
        /* pairs: all on one host (a rehearsal of the matrix): more ranks than CPUs share the
           card's CPUs, as one host has no node per rank */
        bool shared = sc__pairs_all(c) && ranks > hwloc_bitmap_weight(c->cpus);
        sc_strv_opt(a, "-np", "%ld", ranks);
        if (shared)
            sc_strv_addf(a, "--oversubscribe");
        sc_strv_opt(a, "--cpu-list", "%s", list ? list : "0");
        sc_strv_opt(a, "--bind-to", "%s", shared ? "cpu-list" : "cpu-list:ordered");
        if (geteuid() == 0)
            sc_strv_addf(a, "--allow-run-as-root");
    }
    free(list);
    int found = launcher != NULL;
    free(launcher);
    return found ? 0 : -ENOENT;
}

char *sc_plan_kernel_dir(sc_workload w, const char *kernel_dir)
{
    char *path;

    if (!sc__program(w) || !(path = sc__find_kernel(sc__program(w), kernel_dir)))
        return NULL;
    *strrchr(path, '/') = '\0';
    return path;
}

/* Nothing of plan can run: why, in one line (printed after "streamcard: "). */
static void sc__refuse(sc_plan *plan, const char *why)
{
    plan->binary_found = false;
    if (plan->binary_why)
        return; /* the first reason stands */
    plan->binary_why = strdup(why);
}

/* A workload without a program of ours runs the card's command: its program's absolute
   path, or the program as written and the line that says why it cannot run. */
static void sc__program_of_card(sc_plan *plan, const sc_workload_ops *ops)
{
    sc_diag diag;
    const sc_card *c = plan->card;

    sc_diag_init(&diag);
    plan->binary_found = ops->program_path && ops->program_path(c, &plan->binary, &diag) == 0;
    if (!plan->binary_found) {
        free(plan->binary);
        free(plan->binary_why);
        plan->binary = strdup(c->n_command ? c->command[0] : "");
        plan->binary_why = diag.count ? strdup(diag.lines[0]) : NULL;
    }
    sc_diag_free(&diag);
}

/* Fills argv, envp and binary of plan from its checked card. Returns 0 or -errno. */
static int sc__plan_build(sc_plan *plan, char **parent_env)
{
    const sc_card *c = plan->card;
    const sc_workload_ops *ops = sc_workload_ops_of(c->workload);
    sc_strv argv = {0}, env = {0};
    char *places = sc__omp_places(c);

    if (!places)
        return -ENOMEM;
    if (!ops) { /* a checked card names its workload */
        free(places);
        return -EINVAL;
    }
    if (!ops->program) {
        sc__program_of_card(plan, ops);
    } else if (!(plan->binary = sc__find_kernel(ops->program, plan->kernel_dir))) {
        char *exe = realpath("/proc/self/exe", NULL);
        char *slash = exe ? strrchr(exe, '/') : NULL;
        if (slash)
            *slash = '\0';
        if (asprintf(&plan->binary, "%s/%s", exe ? exe : ".", ops->program) < 0)
            plan->binary = NULL;
        free(exe);
    } else {
        plan->binary_found = true;
    }
    bool in_slurm = getenv("SLURM_JOB_ID") != NULL;
    bool mpi = sc_workload_mpi(c);
    plan->ranks_under_observer = mpi && !in_slurm;
    if (mpi && sc__mpi_launcher(&argv, plan, in_slurm) < 0)
        sc__refuse(plan, in_slurm ? "ranks: no MPI launcher: srun is not an executable file on "
                                    "PATH (valid: Slurm's srun on PATH inside the allocation)"
                                  : "ranks: no MPI launcher: mpirun is not an executable file "
                                    "on PATH (valid: Open MPI's mpirun on PATH, from "
                                    "openmpi-bin, or a run inside a Slurm allocation)");
    char *probe = NULL;
    if (mpi && ops->foreign && !(probe = sc__find_in_kernels(SC_MPIPROBE_LIBRARY, plan->kernel_dir, R_OK)))
        sc__refuse(plan, "ranks: the MPI transport probe " SC_MPIPROBE_LIBRARY
                         " was not found (valid: streamcard built with MPI, the probe next to "
                         "its kernels, or STREAMCARD_KERNEL_DIR naming their folder)");
    sc_strv_addf(&argv, "%s", plan->binary ? plan->binary : "");
    if (ops->args)
        ops->args(c, &argv);
    for (char **e = parent_env; e && *e; e++)
        if (!sc__env_owned(*e, c, plan->opts))
            sc_strv_addf(&env, "%s", *e);
    /* Each name once: the runtimes read the first of two (glibc's getenv), so a card's value
       after streamcard's own would be recorded and never read. The card's OMP_PROC_BIND is
       honoured in place of close; the variables that would contradict the card's CPUs are
       refused by the card check (sc_card_check: OMP_NUM_THREADS, OMP_PLACES,
       GOMP_CPU_AFFINITY, KMP_AFFINITY). */
    const char *bind = sc__card_env(c, "OMP_PROC_BIND");
    sc_strv_addf(&env, "OMP_NUM_THREADS=%ld", c->threads);
    sc_strv_addf(&env, "OMP_PLACES=%s", places);
    sc_strv_addf(&env, "OMP_PROC_BIND=%s", bind ? bind : "close");
    if (sc__display_env(c, plan->opts)) /* a study: what the runtime read, in its words */
        sc_strv_addf(&env, "OMP_DISPLAY_ENV=true");
    if (mpi && !in_slurm && geteuid() == 0) {
        /* Open MPI refuses root without both (a test machine; clusters run as users). */
        if (!sc__card_env(c, "OMPI_ALLOW_RUN_AS_ROOT"))
            sc_strv_addf(&env, "OMPI_ALLOW_RUN_AS_ROOT=1");
        if (!sc__card_env(c, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"))
            sc_strv_addf(&env, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
    }
    char *blas_dir = sc_plan_blas_dir(c);
    const char *preload = sc_plan_blas_preload(c);
    for (size_t i = 0; i < c->n_env; i++)
        if (strcmp(c->env[i].key, "OMP_PROC_BIND") != 0 &&
            !(blas_dir && !strcmp(c->env[i].key, "LD_LIBRARY_PATH")) &&
            !((preload || probe) && !strcmp(c->env[i].key, "LD_PRELOAD")))
            sc_strv_addf(&env, "%s=%s", c->env[i].key, c->env[i].value);
    /* The card's blas: first, then the card's value or the inherited one; an MPI program's
       probe before them, and the file its rank 0 writes transport.log to (each run's,
       execute.c). */
    if (probe) {
        char *first = NULL;
        if (asprintf(&first, "%s%s%s", probe, preload ? ":" : "", preload ? preload : "") < 0)
            first = NULL;
        sc__env_first(&env, c, "LD_PRELOAD", first ? first : probe);
        sc_strv_addf(&env, "%s=", SC_TRACE_TRANSPORT_LOG_ENV);
        free(first);
        free(probe);
    } else if (preload) {
        sc__env_first(&env, c, "LD_PRELOAD", preload);
    }
    if (blas_dir)
        sc__env_first(&env, c, "LD_LIBRARY_PATH", blas_dir);
    free(blas_dir);
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
    const char *preload = sc_plan_blas_preload(c);

    if (!dir && !preload && sc_workload_foreign(c))
        return; /* a program of its own: which BLAS it loads, if any, is its own */
    if (preload) {
        fputs("  blas:        ", out);
        sc__print_text(out, preload, " (preloaded: LD_PRELOAD; ");
        sc__print_text(out, realpath(preload, real) ? real : "NOT FOUND", ")\n");
        return;
    }
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
    const sc_workload_ops *ops = sc_workload_ops_of(c->workload);

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
                   : plan->binary_why ? "  (NOT FOUND: "
                                      : "  (NOT FOUND: build it, or set STREAMCARD_KERNEL_DIR)\n");
    if (!plan->binary_found && plan->binary_why)
        sc__print_text(out, plan->binary_why, ")\n");
    fprintf(out, "  CPUs:        %s (%d CPUs)\n", c->cpu_list, hwloc_bitmap_weight(c->cpus));
    if (sc_workload_mpi(c)) {
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
    if (sc_workload_reads(c->workload, SC_CF_BLAS))
        sc__print_blas(out, c);
    if (c->memory_node >= 0)
        fprintf(out, "  memory node: %ld (membind, strict)\n", c->memory_node);
    else
        fprintf(out, "  memory node: not bound (the kernel's default policy)\n");
    /* As root outside a job the platform is read before and after; set only with
       --platform apply (platform_apply.h). */
    const char *set = plan->opts->platform_apply
                          ? " (set by the CLI as root before the workload and restored after "
                            "it: --platform apply; read back, not attested)"
                          : " (expected, not set: read back by the CLI as root before and after "
                            "the workload, not attested)";
    const char *readback = !plan->opts->cli_readback ? ""
                           : c->prefetch == SC_PREFETCH_UNCHANGED
                               ? " (its registers read by the CLI as root before and after)"
                               : set;
    fprintf(out, "  prefetch:    %s%s\n", sc_prefetch_name(c->prefetch), readback);
    fputs("  governor:    ", out);
    sc__print_text(out, c->governor,
                   plan->opts->cli_readback && strcmp(c->governor, "unchanged") != 0 ? set : "");
    fputs("\n", out);
    if (ops && ops->describe)
        ops->describe(c, out);
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
    free(plan->binary_why);
    sc_strv_free(plan->argv);
    sc_strv_free(plan->envp);
    free(plan->omp_summary);
    free(plan->json_path);
    free(plan->transport_log_path);
    free(plan->bundle_path);
    memset(plan, 0, sizeof(*plan));
}

/*
 * hwloc's plugins find I/O devices (PCI, OpenCL, GL, GPUs) and read XML with libxml2: a run
 * asks none of that (hwloc keeps no I/O object unless asked, and the CPUs and caches come
 * from its built-in Linux and x86 discovery), yet loading them, libxml2's ICU with it, took
 * 2-10 ms of every `streamcard run` of a STREAM card on a 2-vCPU VM (init 0.3 ms without).
 * hwloc reads the list when its components start, at a process's first topology init
 * (HWLOC_PLUGINS_BLACKLIST, hwloc(7)); a list the caller set is theirs and kept.
 */
static const char sc__hwloc_io_plugins[] = "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_xml_libxml,"
                                           "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero";

/* hwloc_topology_init() with the I/O plugins left out; the variable is unset again at once,
   so that no environment made later (the workload's) holds it. */
static int sc__topology_init(hwloc_topology_t *topo)
{
    bool set = !getenv("HWLOC_PLUGINS_BLACKLIST") &&
               setenv("HWLOC_PLUGINS_BLACKLIST", sc__hwloc_io_plugins, 1) == 0;
    int rc = hwloc_topology_init(topo);

    if (set)
        unsetenv("HWLOC_PLUGINS_BLACKLIST");
    return rc;
}

hwloc_topology_t sc_topology_get(sc_topology *t)
{
    if (t->rc == 1) {
        t->rc = sc__topology_init(&t->topo) < 0 ? -ENOMEM : 0;
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
    sc_strv_free(opts->sbatch_args);
    memset(opts, 0, sizeof(*opts));
}
