/*
 * facts_vars.c: the controlled variables of a bundle (see sc_facts.h): what a comparison
 * holds constant and where each value is read. The card's keys come from the card's table
 * (card_keys.c, each row's role: a variable named after the key, or part of "expect"), the
 * rest (the build, the platform, the MPI stack) from the tables below; sc__vars_of() joins
 * them once, in that order.
 */
#include "sc_facts_src.h"
#include "sc_card_schema.h"
#include "sc_cpulist.h"
#include "sc_kv.h"
#include "sc_platform_gate.h"
#include "sc_mpistack.h"
#include "sc_text.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*sc__reader)(const sc__src *s, const char *arg);

#define SC__ENV_UNRECORDED "(inherited: not recorded)"
/* Which runs a variable that is not a card key applies to. */
enum {
    SC__VAR_ALL = 0, /* every run */
    SC__VAR_BLAS,    /* a workload that reads blas: (its BLAS library) */
    SC__VAR_MPI,     /* a workload whose processes are MPI ranks (its MPI stack) */
};

static char *sc__rd_build(const sc__src *s, const char *arg);
static char *sc__rd_card(const sc__src *s, const char *arg);
static char *sc__rd_expect(const sc__src *s, const char *arg);
static char *sc__rd_platform(const sc__src *s, const char *arg);
static char *sc__rd_governor(const sc__src *s, const char *arg);
static char *sc__rd_prefetch(const sc__src *s, const char *arg);
static char *sc__rd_host(const sc__src *s, const char *arg);
static char *sc__rd_blas_core(const sc__src *s, const char *arg);
static char *sc__rd_mpi(const sc__src *s, const char *arg);

struct sc__var {
    const char *name, *group, *source;
    sc__reader read;
    const char *arg;    /* keys for the reader */
    unsigned applies;   /* SC__VAR_*; a card key's: the workload modules' (sc_workload_reads) */
    sc_card_field card; /* the card key a variable is named after, else SC_CF_COUNT */
};

/* The build's variables, before the card's. */
static const struct sc__var sc__build_vars[] = {
    {"binary_sha256", "build", "build.json sha256 (the ELF that ran)", sc__rd_build, "sha256", 0, SC_CF_COUNT},
    {"compiler", "build", "build.json compiler, compiler_version", sc__rd_build,
     "compiler compiler_version", 0, SC_CF_COUNT},
    {"flags", "build", "build.json flags", sc__rd_build, "flags", 0, SC_CF_COUNT},
    {"openmp_runtime", "build", "build.json openmp_runtime, openmp_version (the one loaded)",
     sc__rd_build, "openmp_runtime openmp_version", 0, SC_CF_COUNT},
    {"openmp_runtime_sha256", "build", "build.json openmp_runtime_sha256", sc__rd_build,
     "openmp_runtime_sha256", 0, SC_CF_COUNT},
    {"streamcard_version", "build", "build.json streamcard_version", sc__rd_build,
     "streamcard_version", 0, SC_CF_COUNT},
    {"blas", "build",
     "build.json blas_library, blas_library_sha256 (the BLAS loaded; its configuration string "
     "names the core type, which is blas_core)",
     sc__rd_build, "blas_library blas_library_sha256", SC__VAR_BLAS, SC_CF_COUNT},
    {"blas_core", "build",
     "results.json evidence.blas.corename (the core type the BLAS chose in the run), else "
     "build.json blas_corename",
     sc__rd_blas_core, NULL, SC__VAR_BLAS, SC_CF_COUNT},
};

/* The node's variables, after the card's. */
static const struct sc__var sc__node_vars[] = {
    {"host", "platform", "results.json host (run.conf host)", sc__rd_host, NULL, 0, SC_CF_COUNT},
    {"os_kernel", "platform", "platform/ kernel.osrelease", sc__rd_platform, "kernel.osrelease", 0, SC_CF_COUNT},
    {"cpu_model", "platform", "platform/ cpu.vendor, cpu.family, cpu.model, cpu.model_name",
     sc__rd_platform, "cpu.vendor cpu.family cpu.model cpu.model_name", 0, SC_CF_COUNT},
    {"microcode", "platform", "platform/ cpu.microcode", sc__rd_platform, "cpu.microcode", 0, SC_CF_COUNT},
    {"cpus_online", "platform", "platform/ cpus.online", sc__rd_platform, "cpus.online", 0, SC_CF_COUNT},
    {"smt", "platform", "platform/ smt.control", sc__rd_platform, "smt.control", 0, SC_CF_COUNT},
    {"thp", "platform", "platform/ thp.enabled", sc__rd_platform, "thp.enabled", 0, SC_CF_COUNT},
    {"thp_defrag", "platform", "platform/ thp.defrag", sc__rd_platform, "thp.defrag", 0, SC_CF_COUNT},
    {"numa_balancing", "platform", "platform/ kernel.numa_balancing", sc__rd_platform,
     "kernel.numa_balancing", 0, SC_CF_COUNT},
    {"governor", "platform",
     "prefetch/state/state.env OBSERVED_GOVERNOR when the plugin set it, else platform/ "
     "cpuN.governor over cpu_list",
     sc__rd_governor, NULL, 0, SC_CF_COUNT},
    {"prefetch", "platform",
     "prefetch/state/state.env OBSERVED_STATE (MSR readback: the plugin's, or streamcard run's "
     "as root); \"unchanged (not read back)\" without one",
     sc__rd_prefetch, NULL, 0, SC_CF_COUNT},
    /* The MPI stack as the ranks loaded it (run.conf, from stream.log; sc_mpistack.h). */
    {"mpi_library", "build", "run.conf mpi_library libmpi: version and SHA-256 of the one loaded",
     sc__rd_mpi, "libmpi", SC__VAR_MPI, SC_CF_COUNT},
    {"libfabric", "build",
     "run.conf mpi_library libfabric: version and SHA-256 of the one libmpi loaded", sc__rd_mpi,
     "libfabric", SC__VAR_MPI, SC_CF_COUNT},
    {"libcxi", "build",
     "run.conf mpi_library libcxi: SHA-256 of the one libfabric loaded (Slingshot)", sc__rd_mpi,
     "libcxi", SC__VAR_MPI, SC_CF_COUNT},
    {"ucx", "build", "run.conf mpi_library libucp, libucs: version and SHA-256 of the ones loaded",
     sc__rd_mpi, "libucp libucs", SC__VAR_MPI, SC_CF_COUNT},
    {"mpi_settings", "run",
     "run.conf mpi_param: rank 0's MCA, FI_* and UCX_* settings, sources; not the card's env",
     sc__rd_mpi, "settings", SC__VAR_MPI, SC_CF_COUNT},
    {"fabric_providers", "platform",
     "run.conf transport_rank fi_info: libfabric's providers per node", sc__rd_mpi, "providers",
     SC__VAR_MPI, SC_CF_COUNT},
};

#define SC__NBUILD (sizeof(sc__build_vars) / sizeof(sc__build_vars[0]))
#define SC__NNODE (sizeof(sc__node_vars) / sizeof(sc__node_vars[0]))

/* What a card key's variable reads besides the card, said in its source. */
static const struct {
    sc_card_field field;
    const char *also;
} sc__card_also[] = {
    {SC_CF_NT_STORES, "and the stores stream.log says were used"},
    {SC_CF_CPU_LIST, "normalised: 0,1 = 0-1"},
    {SC_CF_ENV,
     "and environ_at_ready.txt: every variable the runtimes read (OMP_*, GOMP_*, KMP_*, "
     "OPENBLAS_*, GOTO*, MKL_*, OMPI_*, PMIX_MCA_*, FI_*, UCX_*, I_MPI_*, MALLOC_*, "
     "GLIBC_TUNABLES, LD_PRELOAD, LD_LIBRARY_PATH), set by the card or inherited; not the "
     "OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND streamcard sets from threads and cpu_list"},
};

/* The joined table: the build's, a variable per card key of role variable (in the card
   table's order), "expect" (the keys of role expect), the node's. Built once. */
static struct {
    struct sc__var vars[SC_FACTS_MAX_VARS];
    char sources[SC_CF_COUNT][512];
    size_t n;
} sc__table;
static pthread_once_t sc__table_once = PTHREAD_ONCE_INIT;

static void sc__add(const struct sc__var *v)
{
    if (sc__table.n < SC_FACTS_MAX_VARS)
        sc__table.vars[sc__table.n++] = *v;
}

static void sc__build_table(void)
{
    for (size_t i = 0; i < SC__NBUILD; i++)
        sc__add(&sc__build_vars[i]);
    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        const char *also = NULL;
        if (key->role != SC__ROLE_VARIABLE)
            continue;
        for (size_t j = 0; j < sizeof(sc__card_also) / sizeof(sc__card_also[0]); j++)
            if (sc__card_also[j].field == key->field)
                also = sc__card_also[j].also;
        snprintf(sc__table.sources[i], sizeof(sc__table.sources[i]), "card.yaml %s (%s)%s%s",
                 sc__card_key_name(key), key->help, also ? ", " : "", also ? also : "");
        sc__add(&(struct sc__var){sc__card_key_name(key), "run", sc__table.sources[i],
                                  sc__rd_card, key->path, 0, key->field});
    }
    sc__add(&(struct sc__var){"expect", "run",
                              "card.yaml expect (the outcome the card asks for: every key of "
                              "expect: but max_interference_pct, a gate's bound)",
                              sc__rd_expect, NULL, 0, SC_CF_COUNT});
    for (size_t i = 0; i < SC__NNODE; i++)
        sc__add(&sc__node_vars[i]);
}

static const struct sc__var *sc__vars_of(size_t *n)
{
    pthread_once(&sc__table_once, sc__build_table);
    *n = sc__table.n;
    return sc__table.vars;
}

static char *sc__dup(const char *s)
{
    return strdup(s ? s : "unavailable");
}

static char *sc__fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sc__fmt(const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;

    va_start(ap, fmt);
    int n = vasprintf(&out, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : out;
}

/* The space-separated keys of arg, looked up in build.json, joined by spaces. */
static char *sc__rd_build(const sc__src *s, const char *arg)
{
    char buf[2048] = "", key[64];
    json_object *v;
    size_t used = 0;

    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, " ");
        snprintf(key, sizeof(key), "%.*s", (int)n, p);
        p += n + (p[n] == ' ');
        if (s->build && json_object_object_get_ex(s->build, key, &v) && v)
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", used ? " " : "",
                                     json_object_get_string(v));
        if (used >= sizeof(buf))
            break;
    }
    return sc__dup(*buf ? buf : NULL);
}

/* env: "K=V K2=V2" by name ("none" when empty); without environ_at_ready.txt only the
   card's, and it says the inherited ones were not recorded. */
static char *sc__env(const sc__src *s)
{
    const sc_bundle_facts *f = s->facts;
    char *out = strdup(f->n_env ? "" : "none");

    for (size_t i = 0; out && i < f->n_env; i++) {
        char *grown = sc__fmt("%s%s%s", out, i ? " " : "", f->env[i]);
        free(out);
        out = grown;
    }
    if (out && !s->environ_seen) {
        char *grown = sc__fmt("%s %s", out, SC__ENV_UNRECORDED);
        free(out);
        out = grown;
    }
    return out;
}

/* A number or a word of the card as a comparison shows it: a word not set, or a number
   whose row writes it only when not negative (memory_node -1), is "none". */
static char *sc__card_text(const sc_card *c, const sc__card_key *key)
{
    const void *slot = sc__card_slot_of(c, key->field);

    if ((key->type == SC__CT_STRING || key->type == SC__CT_NAME || key->type == SC__CT_CHOICE ||
         key->type == SC__CT_CARRIERS) &&
        !*(char *const *)slot)
        return strdup("none");
    if (key->emit == SC__EMIT_NOT_NEGATIVE && key->type == SC__CT_LONG && *(const long *)slot < 0)
        return strdup("none");
    if (key->type == SC__CT_DOUBLE)
        return sc__fmt("%g", *(const double *)slot);
    return sc__card_value_text(c, key->field);
}

/* A list key (command): its items as YAML's flow style writes them, [a, b]. */
static char *sc__card_list_text(const sc_card *c, sc_card_field field)
{
    sc__card_list list = sc__card_list_of((sc_card *)c, field);
    char *out = strdup("[");

    for (size_t i = 0; out && list.n && i < *list.n; i++) {
        char *grown = sc__fmt("%s%s%s", out, i ? ", " : "", (*list.items)[i]);
        free(out);
        out = grown;
    }
    if (out) {
        char *grown = sc__fmt("%s]", out);
        free(out);
        out = grown;
    }
    return out;
}

/* metrics: "name unit better[ primary] /pattern/" (or "from marker") per figure, "; "
   between; "none". */
static char *sc__card_metrics_text(const sc_card *c)
{
    char *out = strdup(c->n_metrics ? "" : "none");

    for (size_t i = 0; out && i < c->n_metrics; i++) {
        const sc_card_metric *m = &c->metrics[i];
        char *grown = sc__fmt("%s%s%s %s %s%s%s%s%s", out, i ? "; " : "", m->name ? m->name : "",
                              m->unit ? m->unit : "", m->higher ? "higher" : "lower",
                              m->primary ? " primary" : "",
                              m->from_marker ? " from marker" : m->pattern ? " /" : "",
                              m->pattern && !m->from_marker ? m->pattern : "",
                              m->pattern && !m->from_marker ? "/" : "");
        free(out);
        out = grown;
    }
    return out;
}

/* expect: "transport=shm min_rate_MBps=100": each key of role expect the card sets (a word,
   or a number above 0); "none" when the card expects nothing. */
static char *sc__rd_expect(const sc__src *s, const char *arg)
{
    char buf[512] = "";
    size_t used = 0;

    (void)arg;
    if (!s->card)
        return sc__dup(NULL);
    for (size_t i = 0; i < SC_CF_COUNT && used < sizeof(buf); i++) {
        const sc__card_key *key = &sc__card_keys[i];
        const void *slot = sc__card_slot_of(s->card, key->field);
        bool word = key->type == SC__CT_STRING || key->type == SC__CT_NAME ||
                    key->type == SC__CT_CHOICE || key->type == SC__CT_CARRIERS;
        if (key->role != SC__ROLE_EXPECT || (word && !*(char *const *)slot) ||
            (key->type == SC__CT_DOUBLE && !(*(const double *)slot > 0)) ||
            (key->type == SC__CT_U64 && !*(const uint64_t *)slot) ||
            (key->type == SC__CT_LONG && *(const long *)slot <= 0))
            continue;
        char *v = sc__card_text(s->card, key);
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%.100s", used ? " " : "",
                                 sc__card_key_name(key), v ? v : "?");
        free(v);
    }
    return strdup(*buf ? buf : "none");
}

/* The card key of path arg, as checked and resolved (defaults applied). */
static char *sc__rd_card(const sc__src *s, const char *arg)
{
    const sc_card *c = s->card;
    const sc__card_key *key = sc__card_key_by_path(arg);

    if (!c || !key)
        return sc__dup(NULL);
    switch (key->type) {
    case SC__CT_ENV: return sc__env(s);
    case SC__CT_LIST: return sc__card_list_text(c, key->field);
    case SC__CT_METRICS: return sc__card_metrics_text(c);
    case SC__CT_CPULIST: return sc_cpulist_format(c->cpus);
    default: break;
    }
    char *text = sc__card_text(c, key);
    if (text && key->field == SC_CF_NT_STORES) {
        char *with = sc__fmt("%s (used: %s)", text, *s->stores ? s->stores : "not in stream.log");
        free(text);
        text = with;
    }
    return text;
}

/* One key of the platform state: before.txt and after.txt agree, or the change is shown. */
static char *sc__platform_value(const sc__src *s, const char *key)
{
    char b[512] = "", a[512] = "";
    bool hb = sc_kv_get(s->before, key, b, sizeof(b));
    bool ha = sc_kv_get(s->after, key, a, sizeof(a));

    if (hb && ha && strcmp(a, b) != 0)
        return sc__fmt("%s -> %s (changed during the run)", b, a);
    return sc__dup(hb ? b : ha ? a : NULL);
}

static char *sc__rd_platform(const sc__src *s, const char *arg)
{
    char key[64], *out = NULL;

    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, " ");
        snprintf(key, sizeof(key), "%.*s", (int)n, p);
        p += n + (p[n] == ' ');
        char *v = sc__platform_value(s, key);
        char *joined = v ? (out ? sc__fmt("%s %s", out, v) : strdup(v)) : NULL;
        free(v);
        free(out);
        out = joined;
        if (!out)
            return NULL;
    }
    return out;
}

static char *sc__rd_governor(const sc__src *s, const char *arg)
{
    char req[128] = "", obs[128] = "", key[64];
    char *first = NULL, *out = NULL;
    bool mixed = false;
    unsigned cpu;

    (void)arg;
    if (sc_kv_get(s->state, "REQUESTED_GOVERNOR", req, sizeof(req)) && *req &&
        strcmp(req, "unchanged") != 0)
        return sc__dup(sc_kv_get(s->state, "OBSERVED_GOVERNOR", obs, sizeof(obs)) && *obs
                           ? obs
                           : "not read back");
    if (!s->card || hwloc_bitmap_iszero(s->card->cpus))
        return sc__dup(NULL);
    /* The governor of every CPU of cpu_list: one value, or each CPU's. */
    out = strdup("");
    hwloc_bitmap_foreach_begin(cpu, s->card->cpus)
    {
        snprintf(key, sizeof(key), "cpu%u.governor", cpu);
        char *v = sc__platform_value(s, key);
        if (!first)
            first = v ? strdup(v) : NULL;
        else if (v && strcmp(v, first) != 0)
            mixed = true;
        char *grown = out && v ? sc__fmt("%s%scpu%u=%s", out, *out ? " " : "", cpu, v) : NULL;
        free(v);
        free(out);
        out = grown;
    }
    hwloc_bitmap_foreach_end();
    if (mixed) {
        char *m = out ? sc__fmt("mixed: %s", out) : NULL;
        free(out);
        free(first);
        return m;
    }
    free(out);
    return first ? first : sc__dup(NULL);
}

static char *sc__rd_prefetch(const sc__src *s, const char *arg)
{
    char obs[64] = "", valid[16] = "";

    (void)arg;
    /* A readback by the command as root that could not read the registers (no msr
       device) knows as little as a run that did not try. */
    if (!sc_kv_get(s->state, "OBSERVED_STATE", obs, sizeof(obs)) || !*obs ||
        strcmp(obs, "unchanged") == 0 ||
        (sc_platform_read_by_cli(s->state) && strcmp(obs, "unknown") == 0))
        return strdup("unchanged (not read back)");
    sc_kv_get(s->state, "STATE_VALID", valid, sizeof(valid));
    if (strcmp(valid, "1") != 0)
        return sc__fmt("%s (STATE_VALID=%s)", obs, *valid ? valid : "missing");
    return strdup(obs);
}

static char *sc__rd_blas_core(const sc__src *s, const char *arg)
{
    json_object *ev, *blas, *core;

    (void)arg;
    if (s->results && json_object_object_get_ex(s->results, "evidence", &ev) &&
        json_object_object_get_ex(ev, "blas", &blas) &&
        json_object_object_get_ex(blas, "corename", &core) &&
        json_object_is_type(core, json_type_string))
        return strdup(json_object_get_string(core));
    return sc__rd_build(s, "blas_corename");
}

static char *sc__rd_host(const sc__src *s, const char *arg)
{
    json_object *v;
    char host[256] = "";

    (void)arg;
    if (s->results && json_object_object_get_ex(s->results, "host", &v) && v)
        return strdup(json_object_get_string(v));
    return sc__dup(sc_kv_get(s->run_conf, "host", host, sizeof(host)) ? host : NULL);
}

/* The MPI stack's variables: a library's identity, the settings, the providers. */
static char *sc__rd_mpi(const sc__src *s, const char *arg)
{
    if (!strcmp(arg, "settings"))
        return sc_mpistack_settings(s->run_conf, s->card);
    if (!strcmp(arg, "providers"))
        return sc_mpistack_providers(s->run_conf);
    return sc_mpistack_library(s->run_conf, arg);
}

const char *sc_facts_var(size_t index, const char **group, const char **source)
{
    size_t n;
    const struct sc__var *vars = sc__vars_of(&n);

    if (index >= n)
        return NULL;
    if (group)
        *group = vars[index].group;
    if (source)
        *source = vars[index].source;
    return vars[index].name;
}

bool sc_facts_unshown(const char *value)
{
    static const char stores[] = "(used: not in stream.log)";
    size_t n = strlen(value);

    static const char env[] = SC__ENV_UNRECORDED;

    return !strcmp(value, "unavailable") ||
           (n >= sizeof(stores) - 1 && !strcmp(value + n - (sizeof(stores) - 1), stores)) ||
           (n >= sizeof(env) - 1 && !strcmp(value + n - (sizeof(env) - 1), env));
}

bool sc_facts_var_known(const char *name, size_t len)
{
    size_t n;
    const struct sc__var *vars = sc__vars_of(&n);

    for (size_t i = 0; i < n; i++)
        if (strlen(vars[i].name) == len && strncmp(vars[i].name, name, len) == 0)
            return true;
    return false;
}

/* Card keys whose change shows in a controlled variable of another name. */
static const struct {
    const char *key, *var;
} sc__key_vars[] = {
    {"one_per_core", "cpu_list"}, /* the CPUs it keeps are the resolved cpu_list */
    {"blas", "blas_core"},        /* another build may choose another core type */
};

bool sc_facts_key_changes(const char *key, const char *var)
{
    if (!strncmp(key, "env.", 4))
        return !strcmp(var, "env");
    if (!strncmp(key, "expect.", 7)) {
        char path[96];
        snprintf(path, sizeof(path), "experiment.%s", key);
        const sc__card_key *row = sc__card_key_by_path(path);
        return row && row->role == SC__ROLE_EXPECT && !strcmp(var, "expect");
    }
    for (size_t i = 0; i < sizeof(sc__key_vars) / sizeof(sc__key_vars[0]); i++)
        if (!strcmp(key, sc__key_vars[i].key) && !strcmp(var, sc__key_vars[i].var))
            return true;
    /* Every other variable a card key changes is named after the key (threads, nq,
       governor, prefetch, blas, ...). */
    return !strcmp(key, var) && sc_facts_var_known(var, strlen(var));
}

const char *sc_facts_get(const sc_bundle_facts *f, const char *name)
{
    for (size_t i = 0; i < f->n_vars; i++)
        if (strcmp(f->vars[i].name, name) == 0)
            return f->vars[i].value;
    return NULL;
}

size_t sc_facts_diff(const sc_bundle_facts *a, const sc_bundle_facts *b,
                     size_t idx[SC_FACTS_MAX_VARS])
{
    size_t n = 0;

    for (size_t i = 0; i < a->n_vars && i < b->n_vars; i++)
        if (strcmp(a->vars[i].value, b->vars[i].value) != 0)
            idx[n++] = i;
    return n;
}

/*
 * A variable at the value it would take by default, derived from another: threads that
 * fill cpu_list (stream, ipsearch), pool_threads equal to threads. Judged by value, since
 * a resolved card.yaml (flags, sweeps) spells every default out.
 */
static const char *sc__follows(const sc__src *src, const char *name)
{
    const sc_card *c = src->card;

    if (!c)
        return NULL;
    if (!strcmp(name, "threads") && !sc_workload_mpi(c) &&
        c->threads == hwloc_bitmap_weight(c->cpus))
        return "cpu_list";
    if (!strcmp(name, "pool_threads") && sc_workload_reads(c->workload, SC_CF_POOL_THREADS) &&
        c->pool_threads == c->threads)
        return "threads";
    /* The core type the BLAS chooses comes from the environment (OPENBLAS_CORETYPE) and
       the CPU: a change of env explains it. */
    if (!strcmp(name, "blas_core"))
        return "env";
    return NULL;
}

const char *sc_facts_follows(const sc_bundle_facts *a, const sc_bundle_facts *b, size_t i)
{
    const char *from = a->vars[i].follows, *va, *vb;

    if (!from || !b->vars[i].follows || strcmp(from, b->vars[i].follows) != 0)
        return NULL;
    va = sc_facts_get(a, from);
    vb = sc_facts_get(b, from);
    return va && vb && strcmp(va, vb) != 0 ? from : NULL;
}

/* Whether a variable applies to the card's workload: a card key's as the workload modules
   say (the one definition of which workload reads which key), the others' by their mask. */
static bool sc__var_applies(const struct sc__var *var, const sc_card *card)
{
    if (var->applies == SC__VAR_BLAS)
        return card && sc_workload_reads(card->workload, SC_CF_BLAS);
    if (var->applies == SC__VAR_MPI)
        return sc_workload_mpi(card);
    if (var->card == SC_CF_COUNT)
        return true;
    return card ? sc_workload_reads(card->workload, var->card) : !sc_workload_own_key(var->card);
}

int sc__facts_read_vars(const sc__src *src, sc_bundle_facts *f)
{
    size_t n;
    const struct sc__var *vars = sc__vars_of(&n);

    for (size_t i = 0; i < n; i++) {
        const struct sc__var *var = &vars[i];
        f->vars[i].name = var->name;
        f->vars[i].group = var->group;
        f->vars[i].follows = sc__follows(src, var->name);
        char *value = sc__var_applies(var, src->card) ? var->read(src, var->arg) : strdup("n/a");
        /* Values are shown (compare, classify, report, export): kept as safe text (a value
           made of parts escaped already, such as env's, is not escaped twice). */
        if (value && !sc_text_is_printable(value, strlen(value))) {
            char *safe = sc_text_escape_dup(value, 0);
            free(value);
            value = safe;
        }
        if (!(f->vars[i].value = value))
            return -ENOMEM;
        f->n_vars = i + 1;
    }
    return 0;
}
