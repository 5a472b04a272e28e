/*
 * transport_report.c: the probe's records gathered to rank 0 and printed as trace lines,
 * the ranks' captured text written as transport.log, and the carrier decided by the bytes
 * of the main loop (see transport.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* asprintf */
#endif
#include "transport.h"
#include "sc_trace_protocol.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A field of a trace line is one word: blanks and control characters become '?'. */
static const char *scm__word(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", *s ? s : "-");
    for (char *p = buf; *p; p++)
        if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
            *p = '?';
    return buf;
}

/* The rest of a trace line: control characters become '?'. */
static const char *scm__rest(const char *s, char *buf, size_t len)
{
    snprintf(buf, len, "%s", s);
    for (char *p = buf; *p; p++)
        if (iscntrl((unsigned char)*p))
            *p = '?';
    return buf;
}

static void scm__print_rank(const struct scm_transport *t)
{
    char host[64], fi[384], w[256], v[256];

    printf(SC_TRACE_TRANSPORT_RANK("%d", "%s", "%s", "%s", "%s", "%s", "%s", "%s") "\n", t->rank,
           scm__word(t->host, host, sizeof(host)), t->candidates, t->pml, t->btl, t->mtl,
           t->provider, scm__rest(t->stack.fi_providers, fi, sizeof(fi)));
    for (int i = 0; i < t->n_refusals; i++)
        printf(SC_TRACE_TRANSPORT_REFUSED("%d", "%s") "%s\n", t->rank,
               scm__word(t->refusals[i].subject, w, sizeof(w)),
               scm__rest(t->refusals[i].why, v, sizeof(v)));
    for (int i = 0; i < SCM_LIB_COUNT; i++) {
        const struct scm_lib *l = &t->stack.lib[i];
        const char *loaded = !l->path[0] ? "no" : l->unloaded ? "unloaded" : "yes";
        printf(SC_TRACE_MPI_LIBRARY("%d", "%s", "%s", "%s", "%s") "%s\n", t->rank,
               scm_stack_lib_name(i), loaded, l->path[0] ? l->sha256 : "-",
               scm__word(l->path, w, sizeof(w)), scm__rest(l->version, v, sizeof(v)));
    }
    for (int i = 0; i < t->params.n; i++) {
        const struct scm_param *p = &t->params.p[i];
        printf(SC_TRACE_MPI_PARAM("%d", "%s", "%s") "%s\n", t->rank, p->name,
               scm__word(p->source, w, sizeof(w)), scm__rest(p->value, v, sizeof(v)));
    }
}

int scm_transport_report(const struct scm_transport *mine, struct scm_transport *all, MPI_Comm comm)
{
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = MPI_Gather(mine, (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE, 0, comm);
    if (rc != MPI_SUCCESS || rank != 0)
        return rc;
    for (int r = 0; r < size; r++)
        scm__print_rank(&all[r]);
    fflush(stdout);
    return MPI_SUCCESS;
}

/* This rank's section of transport.log (malloc'd, NULL on ENOMEM). */
static char *scm__log_section(const struct scm_probe *p, const struct scm_transport *t)
{
    const char *text = p->capture.text ? p->capture.text : "";
    size_t n = strlen(text);
    char *out = NULL, *both = NULL;

    if (asprintf(&out,
                 "# rank %d on %s: what the MPI library and the fabric libraries said while "
                 "MPI_Init selected the transport (stdout and stderr%s)\n%s%s",
                 t->rank, t->host, p->capture.truncated ? ", its first MiB" : "", text,
                 n && text[n - 1] != '\n' ? "\n" : "") < 0)
        return NULL;
    if (!p->fi_said)
        return out;
    if (asprintf(&both,
                 "%s# rank %d on %s: what libfabric said while streamcard asked it for its "
                 "providers (fi_getinfo)\n%s",
                 out, t->rank, t->host, p->fi_said) < 0)
        both = NULL;
    free(out);
    return both;
}

int scm_transport_log(const struct scm_probe *p, const struct scm_transport *mine, MPI_Comm comm,
                      const char *path)
{
    int rank, size, rc = 0;
    char *section = scm__log_section(p, mine), *all = NULL;
    int len = section ? (int)strlen(section) : 0, *lens = NULL, *offs = NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof(int));
        offs = calloc((size_t)size, sizeof(int));
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    long total = 0;
    for (int r = 0; rank == 0 && lens && offs && r < size; r++) {
        offs[r] = (int)total;
        total += lens[r];
    }
    if (rank == 0 && lens && offs)
        all = malloc((size_t)total + 1);
    MPI_Gatherv(section ? section : "", len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm);
    if (rank == 0 && path) {
        FILE *f = all ? fopen(path, "we") : NULL;
        if (!f || fwrite(all, 1, (size_t)total, f) != (size_t)total)
            rc = -(errno ? errno : ENOMEM);
        if (f && fclose(f) != 0 && rc == 0)
            rc = -errno;
    }
    free(all);
    free(lens);
    free(offs);
    free(section);
    return rc;
}

/* This rank's interfaces and its host's fabric ports now, the ports under the sysroot the
   plugin names (STREAMCARD_SYSROOT; "/" without it). Returns 0 or -errno. */
static int scm__bytes_read(sc_netdev *out)
{
    const char *sysroot = getenv("STREAMCARD_SYSROOT");
    int rc = sc_netdev_read(out);
    int root = open(sysroot && *sysroot ? sysroot : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (rc == 0 && root >= 0)
        sc_netdev_read_fabric(root, out);
    if (root >= 0)
        close(root);
    return rc;
}

int scm_bytes_begin(sc_netdev *before)
{
    return scm__bytes_read(before);
}

void scm_bytes_end(const sc_netdev *before, int rc, unsigned long long payload_sent,
                   const char *span, struct scm_bytes *b)
{
    sc_netdev after;

    memset(b, 0, sizeof(*b));
    b->payload_sent = payload_sent;
    snprintf(b->span, sizeof(b->span), "%s", span);
    if (rc == 0 && scm__bytes_read(&after) == 0) {
        sc_netdev_delta(before, &after, &b->delta);
        b->known = 1;
    }
}

/* One rank's byte lines: its payload and what bounded the counts, its namespace's
   interfaces (loopback always), its host's fabric ports that moved bytes. */
static void scm__print_bytes(int rank, const char *host, const struct scm_bytes *b)
{
    const sc_netdev *d = &b->delta;

    if (!b->known)
        return; /* no line: the bytes are not evidence */
    printf(SC_TRACE_PAYLOAD_BYTES("%d", "%s", "%llu", "%zu") SC_TRACE_BYTES_SPAN("%s") "\n", rank,
           d->netns[0] ? d->netns : "-", b->payload_sent, d->dropped,
           b->span[0] ? b->span : SC_TRACE_SPAN_MAIN_LOOP);
    for (size_t i = 0; i < d->n; i++) {
        const sc_netdev_if *f = &d->ifs[i];
        if (f->kind == SC_NETDEV_KERNEL && (f->rx_bytes || f->tx_bytes || !strcmp(f->name, "lo")))
            printf(SC_TRACE_IFACE_BYTES("%d", "%s", "%s", "%llu", "%llu") "\n", rank,
                   d->netns[0] ? d->netns : "-", f->name, f->rx_bytes, f->tx_bytes);
    }
    for (size_t i = 0; i < d->n; i++) {
        const sc_netdev_if *f = &d->ifs[i];
        if (f->kind != SC_NETDEV_KERNEL && (f->rx_bytes || f->tx_bytes))
            printf(SC_TRACE_FABRIC_BYTES("%d", "%s", "%s", "%llu", "%llu") "\n", rank,
                   host[0] ? host : "-", f->name, f->rx_bytes, f->tx_bytes);
    }
}

int scm_transport_decide(const struct scm_transport *all, const struct scm_bytes *mine,
                         struct scm_bytes *bytes, MPI_Comm comm, char *agreed, size_t len,
                         char *note, size_t notelen)
{
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = MPI_Gather(mine, (int)sizeof(*mine), MPI_BYTE, bytes, (int)sizeof(*mine), MPI_BYTE, 0,
                    comm);
    if (rc != MPI_SUCCESS || rank != 0)
        return rc;
    sc_carrier_rank *ranks = calloc((size_t)size, sizeof(*ranks));
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (int r = 0; r < size; r++) {
        sc_carrier_rank *c = &ranks[r];
        c->rank = r;
        snprintf(c->candidates, sizeof(c->candidates), "%s", all[r].candidates);
        snprintf(c->netns, sizeof(c->netns), "%s@%s", bytes[r].delta.netns, all[r].host);
        c->payload_sent = bytes[r].payload_sent;
        c->wire_tx = sc_netdev_tx_total(&bytes[r].delta);
        c->bytes_known = bytes[r].known != 0;
        scm__print_bytes(r, all[r].host, &bytes[r]);
    }
    sc_carrier_decide(ranks, (size_t)size, agreed, len, note, notelen);
    free(ranks);
    printf(SC_TRACE_TRANSPORT("%s", "%s", "%s", "%s", "%s") "\n", agreed, all[0].pml, all[0].btl,
           all[0].mtl, all[0].provider);
    fflush(stdout);
    return MPI_SUCCESS;
}
