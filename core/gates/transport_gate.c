/*
 * transport_gate.c: the carrier decided again from the log, and the transport gate (see
 * sc_transport_gate.h).
 */
#include "sc_transport_gate.h"
#include "sc_carrier.h"
#include "sc_text.h"
#include "sc_trace_protocol.h"
#include "sc_workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The TRACE_TRANSPORT_RANK format: rank, host, candidates. */
#define SC__RANK_FMT                                                                               \
    SC_TRACE_AFTER_TAG(                                                                            \
        SC_TRACE_TRANSPORT_RANK("%d", "%63s", "%127s", "%*s", "%*s", "%*s", "%*s", ""),            \
        SC_TRACE_TAG_TRANSPORT_RANK)

/* Every rank's evidence for sc_carrier_decide() from the log's lines; *n ranks. */
static sc_carrier_rank *sc__ranks(const sc_tracelog *t, size_t *n)
{
    const sc_text_list *tr = &t->mpi[SC_MPI_TRANSPORT_RANK];
    sc_carrier_rank *ranks = calloc(tr->n ? tr->n : 1, sizeof(*ranks));
    char(*hosts)[64] = calloc(tr->n ? tr->n : 1, sizeof(*hosts));

    *n = 0;
    for (size_t i = 0; ranks && hosts && i < tr->n; i++) {
        sc_carrier_rank *c = &ranks[*n];
        if (sscanf(tr->items[i], SC__RANK_FMT, &c->rank, hosts[*n], c->candidates) == 3)
            (*n)++;
    }
    for (size_t i = 0; ranks && hosts && i < t->mpi[SC_MPI_PAYLOAD].n; i++) {
        int r;
        char netns[32];
        unsigned long long sent;
        size_t dropped;
        if (sscanf(t->mpi[SC_MPI_PAYLOAD].items[i],
                   SC_TRACE_AFTER_TAG(SC_TRACE_PAYLOAD_BYTES("%d", "%31s", "%llu", "%zu"),
                                      SC_TRACE_TAG_PAYLOAD_BYTES),
                   &r, netns, &sent, &dropped) != 4)
            continue;
        for (size_t k = 0; k < *n; k++)
            if (ranks[k].rank == r) {
                snprintf(ranks[k].netns, sizeof(ranks[k].netns), "%s@%s", netns, hosts[k]);
                ranks[k].payload_sent = sent;
                ranks[k].bytes_known = true;
            }
    }
    for (size_t i = 0; ranks && hosts && i < t->mpi[SC_MPI_IFACE].n; i++) {
        int r;
        char netns[32], iface[32];
        unsigned long long rx, tx;
        if (sscanf(t->mpi[SC_MPI_IFACE].items[i],
                   SC_TRACE_AFTER_TAG(SC_TRACE_IFACE_BYTES("%d", "%31s", "%31s", "%llu", "%llu"),
                                      SC_TRACE_TAG_IFACE_BYTES),
                   &r, netns, iface, &rx, &tx) != 5)
            continue;
        size_t len = strlen(netns);
        for (size_t k = 0; k < *n; k++)
            if (ranks[k].rank == r && !strncmp(ranks[k].netns, netns, len) &&
                ranks[k].netns[len] == '@')
                ranks[k].wire_tx += tx;
    }
    free(hosts);
    return ranks;
}

void sc_transport_decide(const sc_tracelog *t, char *out, size_t len, char *note, size_t notelen)
{
    size_t n = 0;
    sc_carrier_rank *ranks = t ? sc__ranks(t, &n) : NULL;

    if (!ranks || n == 0) {
        snprintf(out, len, "%s", SC_CARRIER_UNKNOWN);
        snprintf(note, notelen, "no rank reported the carriers its MPI library selected");
    } else {
        sc_carrier_decide(ranks, n, out, len, note, notelen);
    }
    free(ranks);
}

/* The refusal subject that speaks of carrier c: "ofi:cxi" for ofi:cxi, "ucx" for ucx:*. */
static void sc__subject_of(const char *c, char *out, size_t len, char *kind, size_t kindlen)
{
    out[0] = kind[0] = '\0';
    if (!strncmp(c, "ofi:", 4)) {
        snprintf(out, len, "%.*s", (int)strcspn(c, "+"), c);
        snprintf(kind, kindlen, "ofi");
    } else if (!strncmp(c, "ucx:", 4)) {
        snprintf(out, len, "ucx");
        snprintf(kind, kindlen, "ucx");
    }
}

/*
 * The first reason an expected fabric was refused, in the log's order: a line about the
 * expected carrier first ("the first reason ofi:cxi was refused"), else one about its fabric
 * in general ("the first refusal ofi reported"). "" when none.
 */
static void sc__first_refusal(const sc_tracelog *t, const char *expected, char *out, size_t len)
{
    const sc_text_list *rf = &t->mpi[SC_MPI_REFUSED];
    char item[SC_CARRIER_MAX], want[64], kind[16], subject[64];
    int used = 0;

    out[0] = '\0';
    for (int pass = 0; pass < 2 && !out[0]; pass++) {
        for (const char *p = expected; *p && !out[0];) {
            size_t n = strcspn(p, ",");
            snprintf(item, sizeof(item), "%.*s", (int)n, p);
            p += n + (p[n] == ',');
            sc__subject_of(item, want, sizeof(want), kind, sizeof(kind));
            if (!want[0])
                continue;
            for (size_t i = 0; i < rf->n && !out[0]; i++) {
                int r;
                if (sscanf(rf->items[i],
                           SC_TRACE_AFTER_TAG(SC_TRACE_TRANSPORT_REFUSED("%d", "%63s") "%n",
                                              SC_TRACE_TAG_TRANSPORT_REFUSED),
                           &r, subject, &used) != 2)
                    continue;
                if (strcmp(subject, pass == 0 ? want : kind) != 0)
                    continue;
                char why[256]; /* the fabric's words, quoted: one line whatever they hold */
                const char *said = rf->items[i] + used;
                sc_text_escape(why, sizeof(why), said, strlen(said));
                if (strcmp(subject, kind) != 0)
                    snprintf(out, len, "the first reason %.*s was refused, on rank %d: \"%.*s\"",
                             64, item, r, 255, why);
                else /* a line about the fabric in general, not about the expected carrier */
                    snprintf(out, len, "the first refusal %s reported, on rank %d: \"%.*s\"", kind,
                             r, 255, why);
            }
        }
    }
}

/*
 * For an expected ofi:<provider>: the first rank whose libfabric (asked through the library
 * the MPI library loaded) offers no such provider, said in out; "" when every rank's does
 * or their providers are not known.
 */
static void sc__provider_absent(const sc_tracelog *t, const char *expected, char *out, size_t len)
{
    const sc_text_list *tr = &t->mpi[SC_MPI_TRANSPORT_RANK];
    char want[64];

    out[0] = '\0';
    for (const char *p = expected; *p && !out[0];) {
        size_t n = strcspn(p, ",");
        if (n > 4 && !strncmp(p, "ofi:", 4) && n - 4 < sizeof(want) && !memchr(p, '+', n)) {
            snprintf(want, sizeof(want), "%.*s", (int)(n - 4), p + 4);
            for (size_t i = 0; i < tr->n && !out[0]; i++) {
                const char *fi = strstr(tr->items[i], " fi_info=");
                long rank = -1;
                if (!fi || sscanf(tr->items[i], "rank=%ld", &rank) != 1)
                    continue;
                fi += strlen(" fi_info=");
                if (!strncmp(fi, "unavailable", 11) || !strncmp(fi, "none", 4))
                    continue;
                bool has = false;
                for (const char *q = fi; *q && !has;) {
                    size_t w = strcspn(q, ",;");
                    has = w == strlen(want) && !strncmp(q, want, w);
                    q += w;
                    q += strspn(q, ",;");
                }
                if (!has)
                    snprintf(out, len, "; the libfabric of rank %ld offers no %s provider", rank,
                             want);
            }
        }
        p += n + (p[n] == ',');
    }
}

/* A setting that picks the carrier: the frameworks' selections, the OFI components' provider
   lists, libfabric's and UCX's own. */
static bool sc__selector(const char *name)
{
    static const char *const exact[] = {"pml",         "btl",     "mtl",
                                        "FI_PROVIDER", "UCX_TLS", "UCX_NET_DEVICES"};
    static const char *const tails[] = {"_provider_include", "_provider_exclude"};
    size_t n = strlen(name);

    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (!strcmp(name, exact[i]))
            return true;
    for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
        if (n > strlen(tails[i]) && !strcmp(name + n - strlen(tails[i]), tails[i]))
            return true;
    return false;
}

/*
 * "; the selection was set by btl=tcp,self from the environment, pml=ob1 from
 * /etc/openmpi/openmpi-mca-params.conf": the settings of the first rank that reported any
 * that pick the carrier, and where each came from (TRACE_MPI_PARAM; streamcard's own
 * verbosity left out). "" when none was set: the library chose alone.
 */
static void sc__selection(const sc_tracelog *t, char *out, size_t len)
{
    const sc_text_list *ps = &t->mpi[SC_MPI_PARAM];
    char name[64], source[160], said[256];
    size_t used = 0;
    int first = -1, used_n = 0;

    out[0] = '\0';
    for (size_t i = 0; i < ps->n && used < len; i++) {
        int r;
        if (sscanf(ps->items[i],
                   SC_TRACE_AFTER_TAG(SC_TRACE_MPI_PARAM("%d", "%63s", "%159s") "%n",
                                      SC_TRACE_TAG_MPI_PARAM),
                   &r, name, source, &used_n) != 3 ||
            (first >= 0 && r != first) || !strcmp(source, "streamcard") || !sc__selector(name))
            continue;
        first = r;
        const char *value = ps->items[i] + used_n;
        const char *where = !strcmp(source, "environment") ? "the environment"
                            : !strncmp(source, "file:", 5) ? source + 5
                                                           : source;
        sc_text_escape(said, sizeof(said), value, strlen(value));
        int w = snprintf(out + used, len - used, "%s%s=%s from %s",
                         used ? ", " : "; the selection was set by ", name, said, where);
        used += w > 0 ? (size_t)w : len;
    }
}

/* True when carrier is one of the comma list's. */
static bool sc__expected(const char *list, const char *carrier)
{
    return sc_word_in(list, ",", carrier);
}

/* "shm or tcp" for messages. */
static void sc__any_of(const char *list, char *out, size_t len)
{
    size_t used = 0;

    out[0] = '\0';
    for (const char *p = list; *p && used < len;) {
        size_t n = strcspn(p, ",");
        int w = snprintf(out + used, len - used, "%s%.*s", used ? " or " : "", (int)n, p);
        used += w > 0 ? (size_t)w : 0;
        p += n + (p[n] == ',');
    }
}

/* expect: transport: the carrier decided from the log against the card's. */
static void sc__carrier_gate(const sc_card *card, const sc_tracelog *t, const char *decided,
                             sc_gate *g)
{
    char carrier[SC_CARRIER_MAX], note[1024], want[256], refused[420], absent[128] = "";
    char selection[320] = "";

    sc_transport_decide(t, carrier, sizeof(carrier), note, sizeof(note));
    if (decided)
        snprintf(carrier, sizeof(carrier), "%s", decided);
    sc__any_of(card->expect_transport, want, sizeof(want));
    if (t && t->transport[0] && strcmp(t->transport, carrier) != 0 && !decided) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "the workload's TRACE_TRANSPORT line says %s, but its own evidence shows %s "
                    "(%s)",
                    t->transport, carrier, note);
        return;
    }
    if (sc__expected(card->expect_transport, carrier)) {
        sc_gate_set(g, SC_GATE_OK, "transport %s as expected (%s)", carrier, note);
        return;
    }
    refused[0] = '\0';
    if (t) {
        sc__first_refusal(t, card->expect_transport, refused, sizeof(refused));
        sc__provider_absent(t, card->expect_transport, absent, sizeof(absent));
        sc__selection(t, selection, sizeof(selection));
    }
    if (!sc_carrier_known(carrier))
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: the carrier is %s, expected %s%s%s%s%s (%s)",
                    carrier, want, refused[0] ? "; " : "", refused, absent, selection, note);
    else
        sc_gate_set(g, SC_GATE_FAIL, "expected transport %s, the data went over %s%s%s%s%s (%s)",
                    want, carrier, refused[0] ? "; " : "", refused, absent, selection, note);
}

/* Interfaces kept apart when the payload's bytes are counted per interface. */
#define SC__IFACES_MAX 64

typedef struct sc__iface_sum {
    char name[32];
    bool fabric; /* a fabric port's counters (TRACE_FABRIC_BYTES), not a kernel interface's */
    unsigned long long tx;
} sc__iface_sum;

/* tx more bytes through name (a fabric port when fabric) in sums (n of them); returns the
   new n. */
static size_t sc__iface_add(sc__iface_sum *sums, size_t n, const char *name, bool fabric,
                            unsigned long long tx)
{
    size_t k = 0;

    while (k < n && (strcmp(sums[k].name, name) != 0 || sums[k].fabric != fabric))
        k++;
    if (k == n && n == SC__IFACES_MAX)
        return n;
    if (k == n) {
        snprintf(sums[n].name, sizeof(sums[0].name), "%s", name);
        sums[n].fabric = fabric;
        sums[n++].tx = 0;
    }
    sums[k].tx += tx;
    return n;
}

/* The TRACE_FABRIC_BYTES format: rank, host, port, rx, tx. */
#define SC__FABRIC_FMT                                                                             \
    SC_TRACE_AFTER_TAG(SC_TRACE_FABRIC_BYTES("%d", "%63s", "%31s", "%llu", "%llu"),                \
                       SC_TRACE_TAG_FABRIC_BYTES)

/* One counter read around the main loop: where ("<netns>@<host>" for an interface of a
   namespace, "<host>" for a fabric port), its name, the bytes it sent. */
typedef struct sc__counted {
    char where[96], name[32];
    bool fabric;
    unsigned long long tx;
} sc__counted;

/* The host of rank r among the TRACE_TRANSPORT_RANK lines' ranks (hosts: n of them, parsed
   once by sc__ranks()' format), "" when none. */
static const char *sc__host_of(const sc_carrier_rank *ranks, char (*hosts)[64], size_t n, int r)
{
    for (size_t k = 0; k < n; k++)
        if (ranks[k].rank == r)
            return hosts[k];
    return "";
}

/* Every interface and fabric port line of t as counters, into c (room for all); returns
   how many. */
static size_t sc__counters(const sc_tracelog *t, sc__counted *c)
{
    const sc_text_list *tr = &t->mpi[SC_MPI_TRANSPORT_RANK], *ifs = &t->mpi[SC_MPI_IFACE];
    const sc_text_list *fl = &t->mpi[SC_MPI_FABRIC];
    sc_carrier_rank *ranks = calloc(tr->n ? tr->n : 1, sizeof(*ranks));
    char(*hosts)[64] = calloc(tr->n ? tr->n : 1, sizeof(*hosts));
    size_t nr = 0, n = 0;

    for (size_t i = 0; ranks && hosts && i < tr->n; i++)
        if (sscanf(tr->items[i], SC__RANK_FMT, &ranks[nr].rank, hosts[nr], ranks[nr].candidates) ==
            3)
            nr++;
    for (size_t i = 0; ranks && hosts && i < ifs->n; i++) {
        int r;
        char netns[32];
        unsigned long long rx;
        if (sscanf(ifs->items[i],
                   SC_TRACE_AFTER_TAG(SC_TRACE_IFACE_BYTES("%d", "%31s", "%31s", "%llu", "%llu"),
                                      SC_TRACE_TAG_IFACE_BYTES),
                   &r, netns, c[n].name, &rx, &c[n].tx) != 5)
            continue;
        snprintf(c[n].where, sizeof(c[n].where), "%s@%s", netns, sc__host_of(ranks, hosts, nr, r));
        n++;
    }
    for (size_t i = 0; i < fl->n; i++) {
        int r;
        unsigned long long rx;
        if (sscanf(fl->items[i], SC__FABRIC_FMT, &r, c[n].where, c[n].name, &rx, &c[n].tx) == 5)
            c[n++].fabric = true;
    }
    free(ranks);
    free(hosts);
    return n;
}

/* The bytes each interface sent in the main loop, each namespace's counters once (ranks in
   one namespace of one host read the same ones), then each fabric port's: into sums
   (returns how many), the payload every rank sent into *payload, and the interfaces the
   ranks could not count (uncounted_ifaces) into *uncounted. */
static size_t sc__iface_sums(const sc_tracelog *t, sc__iface_sum *sums, unsigned long long *payload,
                             size_t *uncounted)
{
    const sc_text_list *pl = &t->mpi[SC_MPI_PAYLOAD];
    size_t n = 0;

    *payload = 0;
    *uncounted = 0;
    for (size_t i = 0; i < pl->n; i++) {
        int r;
        char netns[32];
        unsigned long long sent;
        size_t dropped;
        if (sscanf(pl->items[i],
                   SC_TRACE_AFTER_TAG(SC_TRACE_PAYLOAD_BYTES("%d", "%31s", "%llu", "%zu"),
                                      SC_TRACE_TAG_PAYLOAD_BYTES),
                   &r, netns, &sent, &dropped) == 4) {
            *payload += sent;
            *uncounted += dropped;
        }
    }
    sc__counted *c = calloc(t->mpi[SC_MPI_IFACE].n + t->mpi[SC_MPI_FABRIC].n + 1, sizeof(*c));
    size_t nc = c ? sc__counters(t, c) : 0;

    for (size_t i = 0; i < nc; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(c[j].where, c[i].where) && !strcmp(c[j].name, c[i].name);
        if (!seen)
            n = sc__iface_add(sums, n, c[i].name, c[i].fabric, c[i].tx);
    }
    free(c);
    return n;
}

/* "1048576 bytes through lo, 0 through eth0" for a note: as many of sums as fit in out. */
static void sc__iface_note(const sc__iface_sum *sums, size_t n, char *out, size_t len)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(out + used, len - used, "%s%llu%s through %s", used ? ", " : "",
                         sums[i].tx, used ? "" : " bytes", sums[i].name);
        used += w > 0 ? (size_t)w : len;
    }
}

/*
 * expect: interface: the named interface must have sent at least SC_CARRIER_SHARE of the
 * payload bytes (doc/contracts/gates.md, "Carriers"). Sets g, and says the bytes per interface.
 */
static void sc__interface_gate(const sc_card *card, const sc_tracelog *t, const char *before,
                               sc_gate *g)
{
    sc__iface_sum sums[SC__IFACES_MAX];
    unsigned long long payload = 0, carried = 0;
    size_t uncounted = 0, n = t ? sc__iface_sums(t, sums, &payload, &uncounted) : 0;
    char bytes[256];

    for (size_t i = 0; i < n; i++) /* every interface, however many the note can name */
        if (!strcmp(sums[i].name, card->expect_interface))
            carried += sums[i].tx;
    sc__iface_note(sums, n, bytes, sizeof(bytes));
    if (payload == 0 || n == 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: expected interface %s, but no rank counted its "
                    "payload and interfaces",
                    card->expect_interface);
    else if ((double)carried >= SC_CARRIER_SHARE * (double)payload)
        sc_gate_set(g, SC_GATE_OK, "%s%sinterface %s carried the %llu payload bytes: %s", before,
                    before[0] ? "; " : "", card->expect_interface, payload, bytes);
    else
        sc_gate_set(g, SC_GATE_FAIL,
                    "expected interface %s to carry 90%% of the %llu payload bytes, it sent %llu: "
                    "%s",
                    card->expect_interface, payload, carried, bytes);
}

/* The words for what bounded the ranks' byte counts, in the order of the spans below; a line
   without a span is a probe's from before the field, which counted from MPI_Init. */
static const char *const sc__span_words[] = {SC_TRACE_SPAN_MAIN_LOOP, SC_TRACE_SPAN_MPI,
                                             SC_TRACE_SPAN_BEGIN_TO_FINALIZE};
static const char *const sc__span_said[] = {
    "over the main loop's markers", "over MPI_Init..MPI_Finalize",
    "from sc_marker_begin to MPI_Finalize (no sc_marker_end)"};

/*
 * What bounded the ranks' byte counts (their TRACE_PAYLOAD_BYTES lines' spans), for a note:
 * "over the main loop's markers" when every rank's did; mixed, each span with its ranks
 * ("over the main loop's markers on 1 rank, over MPI_Init..MPI_Finalize on 1 rank (no
 * sc_marker_begin came)").
 */
static void sc__bytes_spans(const sc_tracelog *t, char *out, size_t len)
{
    const sc_text_list *pl = &t->mpi[SC_MPI_PAYLOAD];
    size_t counts[3] = {0}, kinds = 0, used = 0;
    char span[32];

    out[0] = '\0';
    for (size_t i = 0; i < pl->n; i++) {
        if (sc_tracelog_bytes_span(pl->items[i], span, sizeof(span)) < 0)
            continue;
        for (size_t k = 0; k < 3; k++)
            if (!strcmp(span[0] ? span : SC_TRACE_SPAN_MPI, sc__span_words[k]))
                kinds += counts[k]++ == 0;
    }
    for (size_t k = 0; k < 3 && used < len; k++) {
        if (!counts[k])
            continue;
        int w = kinds == 1
                    ? snprintf(out, len, "%s", sc__span_said[k])
                    : snprintf(out + used, len - used, "%s%s on %zu rank%s%s", used ? ", " : "",
                               sc__span_said[k], counts[k], counts[k] == 1 ? "" : "s",
                               k == 1 ? " (no sc_marker_begin came)" : "");
        used += w > 0 ? (size_t)w : len;
    }
}

/* Whether carrier (one, or parts joined by '+') has a part that goes over a kernel network
   interface (fabric false) or over a fabric's own ports (fabric true: neither shm nor on the
   wire). */
static bool sc__carrier_goes_over(const char *carrier, bool fabric)
{
    char part[SC_CARRIER_MAX];

    for (const char *p = carrier; *p;) {
        size_t len = strcspn(p, "+");
        snprintf(part, sizeof(part), "%.*s", (int)len, p);
        bool wire = sc_carrier_on_wire(part);
        if (fabric ? !wire && strcmp(part, "shm") != 0 : wire)
            return true;
        p += len + (p[len] == '+');
    }
    return false;
}

/*
 * expect: interface for a program we did not write, whose payload the probe cannot know:
 * the ranks' carrier must go over that kind of interface (a kernel interface: TCP; a fabric
 * port: a fabric's provider), no interface may have gone uncounted, and the named one must
 * have sent at least SC_CARRIER_SHARE of the bytes every counted interface of its kind sent
 * over the ranks' windows (a fabric port's counters also hold the traffic of the kernel
 * interface over it, IPoIB's ib0 or hsn0, so the kinds are not added together; doc/contracts/
 * gates.md, "Carriers"). Sets g, and says the bytes per interface and what bounded them.
 */
static void sc__interface_share_gate(const sc_card *card, const sc_tracelog *t, const char *decided,
                                     const char *before, sc_gate *g)
{
    sc__iface_sum sums[SC__IFACES_MAX];
    unsigned long long payload = 0, carried = 0, total = 0;
    size_t uncounted = 0, n = t ? sc__iface_sums(t, sums, &payload, &uncounted) : 0;
    char bytes[256], spans[200] = "", carrier[SC_CARRIER_MAX], why[256];
    bool named = false, fabric = false;

    for (size_t i = 0; i < n; i++)
        if (!strcmp(sums[i].name, card->expect_interface)) {
            named = true;
            fabric = sums[i].fabric;
        }
    for (size_t i = 0; i < n; i++)
        if (sums[i].fabric == fabric) {
            total += sums[i].tx;
            if (!strcmp(sums[i].name, card->expect_interface))
                carried += sums[i].tx;
        }
    sc__iface_note(sums, n, bytes, sizeof(bytes));
    if (decided)
        snprintf(carrier, sizeof(carrier), "%s", decided);
    else if (t)
        sc_transport_decide(t, carrier, sizeof(carrier), why, sizeof(why));
    else
        snprintf(carrier, sizeof(carrier), "unknown");
    if (t)
        sc__bytes_spans(t, spans, sizeof(spans));
    double pct = total ? 100.0 * (double)carried / (double)total : 0;
    if (!t || t->mpi[SC_MPI_PAYLOAD].n == 0 || n == 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: expected interface %s, but no rank counted its "
                    "interfaces",
                    card->expect_interface);
    else if (uncounted)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: %zu interface%s the ranks could not count "
                    "(uncounted_ifaces), so %s's share of the bytes is unknown: %s",
                    uncounted, uncounted == 1 ? "" : "s", card->expect_interface, bytes);
    else if (!named)
        sc_gate_set(g, SC_GATE_FAIL,
                    "expected interface %s, but the ranks counted no interface %s %s: %s",
                    card->expect_interface, card->expect_interface, spans, bytes);
    else if (!sc_carrier_known(carrier))
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: the ranks' carrier is %s, so %s's bytes cannot be "
                    "told from other traffic: %s",
                    carrier, card->expect_interface, bytes);
    else if (!sc__carrier_goes_over(carrier, fabric))
        sc_gate_set(g, SC_GATE_FAIL,
                    "expected interface %s, but the ranks' carrier is %s, which %s does not "
                    "carry (its bytes are other traffic): %s",
                    card->expect_interface, carrier,
                    fabric ? "a fabric port" : "a network interface", bytes);
    else if (total == 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: no interface carried traffic in the window (%s: "
                    "%s)",
                    spans, bytes);
    else if ((double)carried >= SC_CARRIER_SHARE * (double)total)
        sc_gate_set(g, SC_GATE_OK,
                    "%s%sinterface %s carried %llu of the %llu bytes the counted %s sent "
                    "(%.1f%%) %s, the ranks' carrier %s: %s",
                    before, before[0] ? "; " : "", card->expect_interface, carried, total,
                    fabric ? "fabric ports" : "interfaces", pct, spans, carrier, bytes);
    else
        sc_gate_set(g, SC_GATE_FAIL,
                    "expected interface %s to carry 90%% of the %llu bytes the counted %s sent "
                    "%s, it sent %llu (%.1f%%): %s",
                    card->expect_interface, total, fabric ? "fabric ports" : "interfaces", spans,
                    carried, pct, bytes);
}

void sc_transport_gate(const sc_card *card, const sc_tracelog *t, const char *decided, sc_gate *g)
{
    char before[512];

    if (!card->expect_transport && !card->expect_interface) {
        sc_gate_set(g, SC_GATE_NULL, "the card expects no transport");
        return;
    }
    if (card->expect_transport)
        sc__carrier_gate(card, t, decided, g);
    if (!card->expect_interface || (card->expect_transport && g->state == SC_GATE_FAIL))
        return;
    snprintf(before, sizeof(before), "%s", card->expect_transport ? g->note : "");
    if (sc_workload_foreign(card)) /* its payload is unknown: the share of all the bytes */
        sc__interface_share_gate(card, t, decided, before, g);
    else
        sc__interface_gate(card, t, before, g);
}
