/*
 * pingpong_report.c: the IMB-style table and results.json (see pingpong_report.h).
 */
#include "pingpong_report.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "results_json.h"
#include "sc_pairs_csv.h"
#include "sc_results_protocol.h"
#include "transport_parse.h"

static const char scm__rule[] = "#---------------------------------------------------";

void scm_report_banner(FILE *out, const struct scm_opts *o, const char *library)
{
    fprintf(out, "%s\n# " SCM_PROG ": MPI %s between %s, every payload checked\n", scm__rule,
            o->kernel == SCM_KERNEL_UNIBAND ? "windowed unidirectional bandwidth" : "ping-pong",
            o->pairs_all ? "every pair of ranks in rounds (rows: the median time over the pairs)"
                         : "two ranks");
    fprintf(out, "# MPI library: %s\n%s\n", library, scm__rule);
}

void scm_report_table_header(FILE *out, const struct scm_opts *o, int nranks)
{
    fprintf(out, "%s\n", scm__rule);
    if (o->kernel == SCM_KERNEL_UNIBAND)
        fprintf(out, "# Benchmarking Uniband (window %d)\n", o->window);
    else
        fprintf(out, "# Benchmarking PingPong\n");
    fprintf(out, "# #processes = %d\n", nranks);
    /* Repetitions fewer than the card's iterations are said, with the rule, not left to
       the column alone. */
    fprintf(out,
            "# repetitions per size: the card's %ld up to %ld bytes; above, min(%ld, max(%d, "
            "%ld / bytes)) (IMB's %ld MiB per size), as #repetitions shows\n%s\n",
            o->iterations, SCM_VOLUME / o->iterations, o->iterations, SCM_MIN_REPS, SCM_VOLUME,
            SCM_VOLUME >> 20, scm__rule);
    fprintf(out, "%13s %12s %12s %12s\n", "#bytes", "#repetitions", "t[usec]", "Mbytes/sec");
    fflush(out);
}

void scm_report_row(const struct scm_size_result *r, void *ctx)
{
    FILE *out = ctx;

    fprintf(out, "%13zu %12ld %12.2f %12.2f\n", r->bytes, r->reps, r->t_usec, r->MBps);
    fflush(out);
}

/* A comma list as a JSON array ("none", "unknown" and a "none: why", "unavailable: why"
   stay a string). */
static json_object *scm__list(const char *list, const char *sep)
{
    if (!strcmp(list, SCM_NONE) || !strcmp(list, SCM_UNKNOWN) || !strncmp(list, "none:", 5) ||
        !strncmp(list, "unavailable", 11))
        return json_object_new_string(list);
    json_object *a = json_object_new_array();
    for (const char *p = list; *p;) {
        size_t w = strstr(p, sep) ? (size_t)(strstr(p, sep) - p) : strlen(p);
        json_object_array_add(a, json_object_new_string_len(p, (int)w));
        p += w;
        if (*p)
            p += strlen(sep);
    }
    return a;
}

static void scm__add_str(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, json_object_new_string(value));
}

/* The stack: each library found, and libfabric's providers. */
static json_object *scm__stack(const struct scm_stack *st)
{
    json_object *o = json_object_new_object();

    for (int i = 0; i < SCM_LIB_COUNT; i++) {
        const struct scm_lib *l = &st->lib[i];
        json_object *lib = json_object_new_object();
        scm__add_str(lib, "loaded", !l->path[0] ? "no" : l->unloaded ? "unloaded" : "yes");
        if (l->path[0]) {
            scm__add_str(lib, "path", l->path);
            scm__add_str(lib, "sha256", l->sha256);
            scm__add_str(lib, "version", l->version);
        }
        json_object_object_add(o, scm_stack_lib_name(i), lib);
    }
    json_object_object_add(o, "fi_providers", scm__list(st->fi_providers, ","));
    return o;
}

static json_object *scm__params(const struct scm_params *ps)
{
    json_object *a = json_object_new_array();

    for (int i = 0; i < ps->n; i++) {
        json_object *o = json_object_new_object();
        scm__add_str(o, "name", ps->p[i].name);
        scm__add_str(o, "source", ps->p[i].source);
        scm__add_str(o, "value", ps->p[i].value);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *scm__bytes(const struct scm_bytes *b)
{
    if (!b->known)
        return json_object_new_string("unavailable");
    json_object *o = json_object_new_object(), *ifs = json_object_new_object();
    json_object_object_add(o, "payload_sent", json_object_new_int64((int64_t)b->payload_sent));
    scm__add_str(o, "netns", b->delta.netns);
    for (size_t i = 0; i < b->delta.n; i++) {
        const sc_netdev_if *f = &b->delta.ifs[i];
        json_object *one = json_object_new_object();
        json_object_object_add(one, "rx", json_object_new_int64((int64_t)f->rx_bytes));
        json_object_object_add(one, "tx", json_object_new_int64((int64_t)f->tx_bytes));
        scm__add_str(one, "counted_by",
                     f->kind == SC_NETDEV_IB    ? "infiniband"
                     : f->kind == SC_NETDEV_CXI ? "cxi"
                                                : "netdev");
        json_object_object_add(ifs, f->name, one);
    }
    json_object_object_add(o, "interfaces", ifs);
    return o;
}

static json_object *scm__rank_transport(const struct scm_transport *t, const struct scm_bytes *b)
{
    json_object *o = json_object_new_object(), *req = json_object_new_object();
    json_object *refused = json_object_new_array();

    json_object_object_add(o, "rank", json_object_new_int(t->rank));
    scm__add_str(o, "host", t->host);
    json_object_object_add(o, "candidates", scm__list(t->candidates, ","));
    scm__add_str(o, "pml", t->pml);
    scm__add_str(o, "btl", t->btl);
    scm__add_str(o, "btls_open", t->btls_open);
    scm__add_str(o, "mtl", t->mtl);
    scm__add_str(o, "provider", t->provider);
    scm__add_str(o, "domain", t->domain);
    scm__add_str(o, "ucx", t->ucx);
    scm__add_str(req, "pml", t->req_pml);
    scm__add_str(req, "btl", t->req_btl);
    scm__add_str(req, "mtl", t->req_mtl);
    json_object_object_add(o, "requested", req);
    for (int i = 0; i < t->n_refusals; i++) {
        json_object *one = json_object_new_object();
        scm__add_str(one, "subject", t->refusals[i].subject);
        scm__add_str(one, "why", t->refusals[i].why);
        json_object_array_add(refused, one);
    }
    json_object_object_add(o, "refused", refused);
    json_object_object_add(o, "stack", scm__stack(&t->stack));
    json_object_object_add(o, "settings", scm__params(&t->params));
    json_object_object_add(o, "main_loop_bytes", scm__bytes(b));
    json_object_object_add(
        o, "evidence", t->evidence[0] ? scm__list(t->evidence, " | ") : json_object_new_array());
    return o;
}

static json_object *scm__metrics(const struct scm_results *r)
{
    json_object *m = json_object_new_object(), *sizes = json_object_new_array();
    json_object *latency = NULL;
    double peak = 0;

    for (int i = 0; i < r->bench->nsizes; i++) {
        const struct scm_size_result *s = &r->bench->sizes[i];
        json_object *row = json_object_new_object();
        json_object_object_add(row, SC_RESULT_BYTES, json_object_new_int64((int64_t)s->bytes));
        json_object_object_add(row, "repetitions", json_object_new_int64(s->reps));
        json_object_object_add(row, "t_usec", json_object_new_double(s->t_usec));
        json_object_object_add(row, SC_RESULT_MBPS, json_object_new_double(s->MBps));
        json_object_object_add(row, "batches", json_object_new_int(s->batches));
        json_object_object_add(row, "t_min_usec", json_object_new_double(s->t_min_usec));
        json_object_object_add(row, "MBps_max", json_object_new_double(s->MBps_max));
        json_object_array_add(sizes, row);
        if (s->MBps > peak)
            peak = s->MBps;
        if (s->bytes == 8 && r->o->kernel == SCM_KERNEL_PINGPONG)
            latency = json_object_new_double(s->t_usec);
    }
    json_object_object_add(m, SC_RESULT_SIZES, sizes);
    json_object_object_add(m, "latency_usec_8B", latency); /* null when 8 B was not measured */
    json_object_object_add(m, "peak_MBps", json_object_new_double(peak));
    return m;
}

/* --pairs all: the nodes in rank order, the rounds' wall times, and per size the file of its
   raw figures (sc_pairs_csv.h) with their count and medians. */
static json_object *scm__matrix(const struct scm_results *r)
{
    const struct scm_matrix *m = r->matrix;
    json_object *o = json_object_new_object(), *nodes = json_object_new_array();
    json_object *rounds = json_object_new_array(), *sizes = json_object_new_array();

    for (int i = 0; i < r->nranks; i++)
        json_object_array_add(nodes, json_object_new_string(r->bindings[i].host));
    for (size_t k = 0; k < m->rounds * (size_t)m->passes; k++)
        json_object_array_add(rounds, json_object_new_double(m->round_seconds[k]));
    for (int s = 0; s < m->nsizes; s++) {
        json_object *one = json_object_new_object();
        json_object_object_add(one, SC_RESULT_BYTES, json_object_new_int64((int64_t)m->bytes[s]));
        char file[64];
        sc_pairs_csv_name(m->bytes[s], file, sizeof(file));
        scm__add_str(one, "file", file);
        json_object_object_add(one, "pairs", json_object_new_int64((int64_t)m->pairs[s]));
        json_object_object_add(one, "t_usec", json_object_new_double(m->med_t_usec[s]));
        json_object_object_add(one, SC_RESULT_MBPS, json_object_new_double(m->med_MBps[s]));
        json_object_array_add(sizes, one);
    }
    scm__add_str(o, "pairs", "all");
    json_object_object_add(o, SC_RESULT_NODES, nodes);
    json_object_object_add(o, SC_RESULT_PASSES, json_object_new_int64((int64_t)m->passes));
    json_object_object_add(o, "rounds", json_object_new_int64((int64_t)m->rounds));
    json_object_object_add(o, "round_seconds", rounds);
    json_object_object_add(o, "total_seconds", json_object_new_double(m->total_seconds));
    json_object_object_add(o, SC_RESULT_SIZES, sizes);
    return o;
}

int scm_report_json(FILE *f, const struct scm_results *r)
{
    json_object *root = json_object_new_object(), *tr = json_object_new_object();
    json_object *ranks = json_object_new_array(), *bindings = json_object_new_array();
    const struct scm_transport *t0 = &r->transports[0];
    int rc;

    if (!root || !tr || !ranks || !bindings)
        return -ENOMEM;
    json_object_object_add(root, "schema", json_object_new_int(1));
    scm__add_str(root, "workload", "mpi-pingpong");
    scm__add_str(root, "kernel", scm_kernel_name(r->o->kernel));
    json_object_object_add(root, "ranks", json_object_new_int(r->nranks));
    json_object *reps = json_object_new_object();
    json_object_object_add(reps, "card_iterations", json_object_new_int64(r->o->iterations));
    json_object_object_add(reps, "kept_up_to_bytes",
                           json_object_new_int64(SCM_VOLUME / r->o->iterations));
    scm__add_str(reps, "rule", "min(iterations, max(10, 41943040 / bytes)): IMB's 40 MiB per size");
    json_object_object_add(root, "repetitions", reps);
    json_object_object_add(root, "min_bytes", json_object_new_int64((int64_t)r->o->min_bytes));
    json_object_object_add(root, "max_bytes", json_object_new_int64((int64_t)r->o->max_bytes));
    json_object_object_add(root, "iterations", json_object_new_int64(r->o->iterations));
    if (r->o->kernel == SCM_KERNEL_UNIBAND)
        json_object_object_add(root, "window", json_object_new_int(r->o->window));
    scm__add_str(root, "library", r->library);
    json_object_object_add(root, SC_RESULT_METRICS, scm__metrics(r));
    if (r->matrix)
        json_object_object_add(root, SC_RESULT_MATRIX, scm__matrix(r));

    scm__add_str(tr, "transport", r->transport);
    scm__add_str(tr, "decided", r->transport_note);
    scm__add_str(tr, "pml", t0->pml);
    scm__add_str(tr, "btl", t0->btl);
    scm__add_str(tr, "mtl", t0->mtl);
    scm__add_str(tr, "provider", t0->provider);
    for (int i = 0; i < r->nranks; i++)
        json_object_array_add(ranks, scm__rank_transport(&r->transports[i], &r->bytes[i]));
    json_object_object_add(tr, "ranks", ranks);
    json_object_object_add(root, "transport", tr);

    for (int i = 0; i < r->nranks; i++) {
        const struct scm_binding *b = &r->bindings[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "rank", json_object_new_int(b->rank));
        scm__add_str(o, "host", b->host);
        json_object_object_add(o, "cpu", json_object_new_int(b->cpu));
        json_object_object_add(o, "pid", json_object_new_int64(b->pid));
        scm__add_str(o, "allowed", b->allowed);
        json_object_array_add(bindings, o);
    }
    json_object_object_add(root, "bindings", bindings);
    scm__add_str(root, "validation", r->validated ? "ok" : "failed");
    json_object_object_add(root, "messages_checked", json_object_new_int64((int64_t)r->messages));
    json_object_object_add(root, "failed_checks", json_object_new_int64((int64_t)r->failed));

    rc = sct_json_write(f, root);
    json_object_put(root);
    return rc;
}
