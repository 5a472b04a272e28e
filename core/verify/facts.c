/*
 * facts.c: loads what one bundle says about its run (see sc_facts.h): its files, parsed
 * once, then the controlled variables (facts_vars.c) and the results.
 */
#include "sc_facts_src.h"
#include "sc_verify_pass.h"
#include "sc_fact_rates.h"
#include "sc_bounds.h"
#include "sc_bundle.h"
#include "sc_caches.h"
#include "sc_cpulist.h"
#include "sc_gates.h"
#include "sc_num.h"
#include "sc_results_protocol.h"
#include "sc_runs.h"
#include "sc_envhazard.h"
#include "sc_kv.h"
#include "sc_runenv.h"
#include "sc_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

long long sc_facts_epoch(const char *iso)
{
    struct tm tm = {0};
    const char *end = iso ? strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;

    return end && !*end ? (long long)timegm(&tm) : -1;
}

static void sc__copy_json_str(json_object *o, const char *key, char *buf, size_t len)
{
    json_object *v;

    if (o && json_object_object_get_ex(o, key, &v) && v) {
        const char *text = json_object_get_string(v);
        sc_text_escape(buf, len, text, strlen(text));
    }
}

/* A figure (sc_num.h), 0 when there is none. */
static int sc__load_sizes(sc_bundle_facts *f, json_object *metrics)
{
    json_object *arr;

    if (!metrics || !json_object_object_get_ex(metrics, SC_RESULT_SIZES, &arr) ||
        !json_object_is_type(arr, json_type_array))
        return 0;
    size_t n = json_object_array_length(arr);
    f->sizes = calloc(n ? n : 1, sizeof(*f->sizes));
    if (!f->sizes)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        f->sizes[f->n_sizes++] =
            (sc_fact_size){(unsigned long long)sc__fact_num(e, "bytes"), sc__fact_num(e, "t_usec"),
                           sc__fact_num(e, SC_RESULT_MBPS)};
    }
    return 0;
}

/* metrics.transport, or a top-level transport: a name, or an object naming it (the MPI
   workload's {"transport": "shm", "pml": ...}). */
static void sc__load_transport(sc_bundle_facts *f, const sc__src *s)
{
    json_object *v = NULL, *name;

    if (!f->mpi)
        return;
    if (!(s->metrics && json_object_object_get_ex(s->metrics, "transport", &v) && v))
        if (s->results && !json_object_object_get_ex(s->results, "transport", &v) && s->first_run)
            json_object_object_get_ex(s->first_run, "transport", &v); /* several runs */
    if (v && json_object_is_type(v, json_type_object) &&
        json_object_object_get_ex(v, "transport", &name))
        v = name;
    const char *t =
        v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "not recorded";
    sc_text_escape(f->transport, sizeof(f->transport), t, strlen(t));
}

/* One "NAME=VALUE" entry and where it came (the first of a name wins). */
typedef struct sc__env_entry {
    char *text;
    size_t order;
} sc__env_entry;

static int sc__env_entry_cmp(const void *a, const void *b)
{
    const sc__env_entry *x = a, *y = b;
    int c = sc_runenv_cmp(&x->text, &y->text);

    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Appends "NAME=VALUE" (len bytes) to list as safe text (shown by compare, classify,
   report and export; a value a user chose may hold ESC): escaped unless printable. */
static int sc__env_push(sc__env_entry **list, size_t *n, size_t *cap, const char *entry, size_t len)
{
    if (strcspn(entry, "=") >= len)
        return 0;
    if (*n == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        sc__env_entry *grown = realloc(*list, grown_cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        *list = grown;
        *cap = grown_cap;
    }
    char *text = strndup(entry, len);
    if (text && !sc_text_is_printable(text, len)) {
        char *safe = sc_text_escape_dup(text, 0);
        free(text);
        text = safe;
    }
    if (!text)
        return -ENOMEM;
    (*list)[*n] = (sc__env_entry){.text = text, .order = *n};
    (*n)++;
    return 0;
}

/* The env list: the card's env first (it wins), then environ_at_ready.txt's variables but
   the placement ones, which follow threads and cpu_list. A name given twice is kept once,
   found by sorting (n log n: environ_at_ready.txt is the user's file). */
static int sc__load_env(sc_bundle_facts *f, const sc_card *card, const char *environ_text)
{
    sc__env_entry *list = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    for (size_t i = 0; card && rc == 0 && i < card->n_env; i++) {
        char *entry = NULL;
        if (asprintf(&entry, "%s=%s", card->env[i].key, card->env[i].value) < 0) {
            rc = -ENOMEM;
            break;
        }
        rc = sc__env_push(&list, &n, &cap, entry, strlen(entry));
        free(entry);
    }
    for (const char *line = environ_text; rc == 0 && line && *line;) {
        size_t len = strcspn(line, "\n"), name = strcspn(line, "=\n");
        if (name < len && !sc_runenv_placement(line, name) &&
            !sc_runenv_own_preload(card, line, len)) /* the blas variable's, the probe's */
            rc = sc__env_push(&list, &n, &cap, line, len);
        line += len + (line[len] == '\n');
    }
    if (rc == 0 && n && !(f->env = malloc(n * sizeof(*f->env))))
        rc = -ENOMEM;
    if (n)
        qsort(list, n, sizeof(*list), sc__env_entry_cmp);
    for (size_t i = 0; i < n; i++) {
        bool repeat = f->n_env && sc_runenv_cmp(&f->env[f->n_env - 1], &list[i].text) == 0;
        if (rc < 0 || repeat)
            free(list[i].text);
        else
            f->env[f->n_env++] = list[i].text;
    }
    free(list);
    return rc;
}

const char *sc_facts_env_get(const sc_bundle_facts *f, const char *name)
{
    size_t n = strlen(name);

    if (!f->n_env)
        return NULL;
    /* f->env is sorted by name (sc_runenv_cmp compares up to the '='). */
    const char *const *hit = bsearch(&name, f->env, f->n_env, sizeof(*f->env), sc_runenv_cmp);
    return hit && (*hit)[n] == '=' ? *hit + n + 1 : NULL;
}

/* Appends the name of entry to buf when its value in other differs. */
static size_t sc__env_differs(const char *entry, const sc_bundle_facts *other, char *buf,
                              size_t len, size_t *used, bool skip_common)
{
    size_t name = strcspn(entry, "=");
    char key[256];

    snprintf(key, sizeof(key), "%.*s", (int)name, entry);
    const char *v = sc_facts_env_get(other, key);
    if (v ? strcmp(v, entry + name + 1) == 0 : false)
        return 0;
    if (skip_common && v) /* both set, already counted from the other side */
        return 0;
    if (*used < len)
        *used += (size_t)snprintf(buf + *used, len - *used, "%s%s", *used ? ", " : "", key);
    return 1;
}

size_t sc_facts_env_diff(const sc_bundle_facts *a, const sc_bundle_facts *b, char *buf, size_t len)
{
    size_t n = 0, used = 0;

    if (len)
        *buf = '\0';
    for (size_t i = 0; i < a->n_env; i++)
        n += sc__env_differs(a->env[i], b, buf, len, &used, false);
    for (size_t i = 0; i < b->n_env; i++)
        n += sc__env_differs(b->env[i], a, buf, len, &used, true);
    return n;
}

/* threads_at_ready.txt: "PID TID PSR STAT COMM" lines after a header. */
static int sc__load_threads(sc_bundle_facts *f, const char *text)
{
    size_t cap = 0;

    for (const char *line = text; line && *line;) {
        long pid, tid, psr;
        if (sscanf(line, "%ld %ld %ld", &pid, &tid, &psr) == 3) {
            if (f->n_threads == cap) {
                cap = cap ? cap * 2 : 16;
                sc_fact_thread *grown = realloc(f->threads, cap * sizeof(*grown));
                if (!grown)
                    return -ENOMEM;
                f->threads = grown;
            }
            f->threads[f->n_threads++] = (sc_fact_thread){tid, psr, -1};
        }
        line += strcspn(line, "\n");
        line += *line == '\n';
    }
    return 0;
}

/* mpi-pingpong: the ranks' own threads and memory (what ran), not the launcher's. */
static int sc__load_rank_snapshots(sc_bundle_facts *f)
{
    f->threads = calloc(f->n_rank_threads ? f->n_rank_threads : 1, sizeof(*f->threads));
    if (!f->threads)
        return -ENOMEM;
    for (size_t i = 0; i < f->n_rank_threads; i++)
        f->threads[f->n_threads++] = (sc_fact_thread){
            f->rank_threads[i].tid, f->rank_threads[i].cpu, f->rank_threads[i].rank};
    for (size_t i = 0; i < f->n_rank_numa; i++) {
        long node = f->rank_numa[i].node;
        if (node < 0 || node >= SC_FACTS_MAX_NODES)
            continue;
        f->node_bytes[node] += f->rank_numa[i].bytes;
        if (node + 1 > f->n_nodes)
            f->n_nodes = (int)node + 1;
    }
    return 0;
}

/* Anonymous memory per node, with the gate's own numa_maps reader. */
static void sc__load_nodes(sc_bundle_facts *f, const char *maps)
{
    unsigned long long on = 0, off = 0, seen = 0;

    if (!maps || sc_numa_maps_anon_bytes(maps, 0, &on, &off) < 0)
        return;
    unsigned long long total = on + off;
    for (int node = 0; node < SC_FACTS_MAX_NODES && seen < total; node++) {
        sc_numa_maps_anon_bytes(maps, node, &on, &off);
        f->node_bytes[node] = on;
        seen += on;
        if (on)
            f->n_nodes = node + 1;
    }
}

/* A file of the bundle's first run (the top level when the card is unreadable). */
static char *sc__read_run_file(const sc_bundle *b, const sc_card *card, const char *name)
{
    char rel[128];

    return sc_bundle_read_opt(b, card ? sc_runs_path(card, 0, name, rel, sizeof(rel)) : name);
}

json_object *sc__facts_scalars(json_object *doc)
{
    json_object *keep = doc ? json_object_new_object() : NULL;

    if (keep && json_object_is_type(doc, json_type_object)) {
        json_object_object_foreach(doc, key, val)
        {
            if (val && !json_object_is_type(val, json_type_object) &&
                !json_object_is_type(val, json_type_array))
                json_object_object_add(keep, key, json_object_get(val));
        }
    }
    json_object_put(doc);
    return keep;
}

/* The bindings and the ranks' snapshots of the first run's log as parsed, taken from t. */
static void sc__take_log(sc_bundle_facts *f, sc_tracelog *t)
{
    f->bindings = t->bindings;
    f->n_bindings = t->n_bindings;
    f->rank_threads = t->rank_threads;
    f->n_rank_threads = t->n_rank_threads;
    f->rank_numa = t->rank_numa;
    f->n_rank_numa = t->n_rank_numa;
    t->bindings = NULL;
    t->rank_threads = NULL;
    t->rank_numa = NULL;
    t->n_bindings = t->n_rank_threads = t->n_rank_numa = 0;
}

/* The first run's log, read and parsed within what a run of the card can print, then
   freed: the report shows nothing else of it (one 64 MiB text less held while results.json
   is parsed). */
static void sc__load_log(sc_bundle_facts *f, const sc_bundle *b, sc__src *src)
{
    sc_tracelog_limits lines;
    sc_interference_limits records;
    sc_tracelog t;
    char *log = sc__read_run_file(b, src->card, "stream.log");

    sc_bounds_of(src->card, &lines, &records);
    if (log && sc_tracelog_parse_bounded(log, &lines, &t) == 0) {
        sc__take_log(f, &t);
        sc_tracelog_free(&t);
    }
    /* the Stores: line is near the top: looked for within the parse's bound */
    sc_tracelog_stores(log, lines.lines, src->stores, sizeof(src->stores));
    free(log);
}

/* Fills the card, the log's facts and the results; src keeps pointers into f. first: the
   first run's log as verify parsed it in this pass (NULL: read here). */
static void sc__load_sources(sc_bundle_facts *f, const sc_bundle *b, sc__src *src, char **build,
                             char **results, char **maps, char **threads, char **environ_text,
                             sc_first_run *first)
{
    sc_diag ignored;

    f->card_text = sc_bundle_read_opt(b, "card.yaml");
    f->run_conf = sc_bundle_read_opt(b, "run.conf");
    f->platform_before = sc_bundle_read_opt(b, "platform/before.txt");
    f->platform_after = sc_bundle_read_opt(b, "platform/after.txt");
    f->state_env = sc_bundle_read_opt(b, "prefetch/state/state.env");
    if (!(first && first->json_given)) {
        *build = sc_bundle_read_opt(b, "build.json");
        *results = sc_bundle_read_opt(b, "results.json");
    }
    sc_diag_init(&ignored);
    src->card = f->card_text ? sc_card_new() : NULL;
    if (src->card &&
        (sc_card_parse(src->card, f->card_text, strlen(f->card_text), "card.yaml", &ignored) < 0 ||
         sc_card_check(src->card, &ignored) < 0)) {
        sc_card_free(src->card);
        src->card = NULL;
    }
    sc_diag_free(&ignored);
    if (src->card) { /* array_size: auto: the size the run used */
        char *caches = sc_bundle_read_opt(b, "platform/caches.txt");
        (void)sc_caches_resolve_card(src->card, caches);
        free(caches);
    }
    /* The first run's files: at the top for one run, in run-1/ for several (sc_runs.h). */
    *maps = sc__read_run_file(b, src->card, "numa_maps_at_ready.txt");
    *threads = sc__read_run_file(b, src->card, "threads_at_ready.txt");
    *environ_text = sc__read_run_file(b, src->card, "environ_at_ready.txt");
    if (first && first->parsed) { /* verify parsed the log in this pass: not read again */
        if (first->log.over_line >= 0)
            sc__take_log(f, &first->log);
        snprintf(src->stores, sizeof(src->stores), "%s", first->stores);
    } else {
        sc__load_log(f, b, src);
    }
    if (first && first->json_given) { /* parsed by verify in this pass: taken, not again */
        src->build = first->build;
        src->results = first->results;
        first->build = first->results = NULL;
    } else {
        src->build = *build ? sc__facts_scalars(json_tokener_parse(*build)) : NULL;
        src->results = *results ? json_tokener_parse(*results) : NULL;
    }
    /* The workload's own record: the top level's (one run), else the first run's. */
    json_object *runs = NULL;
    if (src->results && json_object_object_get_ex(src->results, "runs", &runs) &&
        json_object_is_type(runs, json_type_array) && json_object_array_length(runs))
        src->first_run = json_object_array_get_idx(runs, 0);
    if (src->results &&
        !json_object_object_get_ex(src->results, SC_RESULT_METRICS, &src->metrics) &&
        src->first_run)
        json_object_object_get_ex(src->first_run, SC_RESULT_METRICS, &src->metrics);
    src->before = f->platform_before;
    src->after = f->platform_after;
    src->state = f->state_env;
    src->run_conf = f->run_conf;
}

int sc_facts_load(const char *path, sc_bundle_facts *f)
{
    sc_bundle b;

    memset(f, 0, sizeof(*f));
    int rc = sc_bundle_open(&b, path);
    if (rc == 0) {
        rc = sc__facts_load_at(&b, path, f, NULL);
        sc_bundle_close(&b);
    }
    return rc;
}

int sc__facts_load_at(const sc_bundle *b, const char *path, sc_bundle_facts *f, sc_first_run *first)
{
    sc__src src = {0};
    char *build = NULL, *results = NULL, *maps = NULL, *threads = NULL;
    char *environ_text = NULL;
    int rc = 0;

    memset(f, 0, sizeof(*f));
    struct stat st;
    f->owner_uid = fstat(b->dirfd, &st) == 0 ? (long)st.st_uid : -1;
    f->path = sc_text_escape_dup(path, 0); /* shown, never opened again */
    if (!f->path) {
        rc = -ENOMEM;
        goto out;
    }
    /* The name is the last component, trailing slashes ignored. */
    size_t len = strlen(f->path);
    while (len > 1 && f->path[len - 1] == '/')
        f->path[--len] = '\0';
    f->name = strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 : f->path;
    sc__load_sources(f, b, &src, &build, &results, &maps, &threads, &environ_text, first);
    src.environ_seen = environ_text != NULL;
    src.facts = f;
    rc = sc__load_env(f, src.card, environ_text);
    if (rc == 0)
        rc = sc__facts_read_vars(&src, f);
    if (rc < 0)
        goto out;
    f->workload = src.card ? src.card->workload : 0; /* 0: none */
    f->mpi = sc_workload_mpi(src.card);
    f->cpu_list = src.card ? sc_cpulist_format(src.card->cpus) : NULL;
    if (src.card && environ_text) {
        char simd[32] = "";
        if (f->platform_before)
            sc_kv_get(f->platform_before, SC_ENVHAZARD_SIMD_KEY, simd, sizeof(simd));
        f->hazards = sc_envhazard_lines(environ_text, src.card, simd, &f->n_hazards);
        if (f->hazards) /* the BLAS's own choice of kernels, said with them */
            f->hazards = sc_envhazard_with_blas(f->hazards, &f->n_hazards, environ_text,
                                                sc_facts_get(f, "blas_core"), simd);
    }
    snprintf(f->verdict, sizeof(f->verdict), "unknown");
    sc__copy_json_str(src.results, "host", f->host, sizeof(f->host));
    sc__copy_json_str(src.results, "run_name", f->run_name, sizeof(f->run_name));
    sc__copy_json_str(src.results, "verdict", f->verdict, sizeof(f->verdict));
    sc__copy_json_str(src.results, "started_at", f->started_at, sizeof(f->started_at));
    sc__copy_json_str(src.results, "ended_at", f->ended_at, sizeof(f->ended_at));
    f->n_metrics =
        sc_metric_defaults(src.card, src.results, SC_METRIC_ALL, f->metrics, SC_METRIC_MAX);
    f->n_headline = sc_metric_defaults(src.card, src.results, SC_METRIC_HEADLINE, f->headline,
                                       sizeof(f->headline) / sizeof(f->headline[0]));
    f->has_primary = sc_metric_primary(src.card, src.results, &f->primary) == 0;
    f->n_undeclared = sc_metric_undeclared(src.card, src.results, f->undeclared,
                                           sizeof(f->undeclared) / sizeof(f->undeclared[0]));
    sc__load_transport(f, &src);
    f->rate_unit = "MB/s";
    const sc_workload_ops *ops = src.card ? sc_workload_ops_of(src.card->workload) : NULL;
    if (ops && ops->facts)
        ops->facts(f, src.metrics, src.card);
    rc = sc__load_sizes(f, src.metrics);
    if (rc == 0 && f->mpi)
        rc = sc__load_rank_snapshots(f);
    else if (rc == 0) {
        rc = sc__load_threads(f, threads);
        sc__load_nodes(f, maps);
    }
out:
    sc_card_free(src.card);
    json_object_put(src.build);
    f->results = src.results; /* kept for the metrics */
    free(build);
    free(results);
    free(maps);
    free(threads);
    free(environ_text);
    if (rc < 0)
        sc_facts_free(f);
    return rc;
}

size_t sc_facts_available(const sc_bundle_facts *f, sc_metric *out, size_t max)
{
    size_t n = sc_metric_available(NULL, f->results, out, max);
    double v;

    /* The card's declared metrics are among its defaults (sc_metric_declared()). */
    for (size_t i = 0; i < f->n_metrics && n < max; i++)
        if (f->metrics[i].declared && sc_metric_value(&f->metrics[i], f->results, &v) == 0)
            out[n++] = f->metrics[i];
    return n;
}

int sc_facts_metric_named(const sc_bundle_facts *f, const char *name, sc_metric *m)
{
    return sc_metric_find(f->metrics, f->n_metrics, name, m) == 0 && m->declared
               ? 0
               : sc_metric_lookup(name, m);
}

int sc_facts_metric(const sc_bundle_facts *f, const sc_metric *m, double *value)
{
    return sc_metric_value(m, f->results, value);
}

void sc_facts_drop_detail(sc_bundle_facts *f)
{
    for (size_t i = 0; i < f->n_rates; i++) {
        free(f->rates[i].rep_s);
        f->rates[i].rep_s = NULL;
        f->rates[i].n_rep = 0;
    }
    free(f->bindings);
    free(f->threads);
    free(f->rank_threads);
    free(f->rank_numa);
    free(f->card_text);
    free(f->run_conf);
    free(f->platform_before);
    free(f->platform_after);
    free(f->state_env);
    f->bindings = NULL;
    f->threads = NULL;
    f->rank_threads = NULL;
    f->rank_numa = NULL;
    f->n_bindings = f->n_threads = f->n_rank_threads = f->n_rank_numa = 0;
    f->card_text = f->run_conf = f->platform_before = f->platform_after = f->state_env = NULL;
}

void sc_facts_free(sc_bundle_facts *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_vars; i++)
        free(f->vars[i].value);
    free(f->path);
    for (size_t i = 0; i < f->n_rates; i++)
        free(f->rates[i].rep_s);
    free(f->sizes);
    free(f->bindings);
    free(f->threads);
    free(f->rank_threads);
    free(f->rank_numa);
    free(f->cpu_list);
    free(f->card_text);
    free(f->run_conf);
    free(f->platform_before);
    free(f->platform_after);
    free(f->state_env);
    json_object_put(f->results);
    for (size_t i = 0; i < f->n_env; i++)
        free(f->env[i]);
    free(f->env);
    free(f->hazards);
    memset(f, 0, sizeof(*f));
}
