/* carrier.c: the carrier vocabulary and the decision by bytes (see sc_carrier.h). */
#include "sc_carrier.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Carriers that are a word of their own. */
static const char *const sc__plain[] = {"shm", "tcp", "psm", "psm2", "openib", "usnic", "portals4"};

/* libfabric's core providers (utility providers such as ofi_rxm are layered on these and
   are not carriers: "tcp;ofi_rxm" is reported as ofi:tcp). */
static const char *const sc__ofi[] = {"cxi",     "efa", "gni",  "lnx",  "lpp",   "net",
                                      "opx",     "psm", "psm2", "psm3", "shm",   "sm2",
                                      "sockets", "tcp", "ucx",  "udp",  "usnic", "verbs"};

/* UCX transport classes: rc (rc_verbs, rc_mlx5), dc, ud, tcp, sm (posix, sysv, cma, knem,
   xpmem), ugni (Cray Aries). */
static const char *const sc__ucx[] = {"rc", "dc", "ud", "tcp", "sm", "ugni"};

/* Socket-based: their bytes show in /proc/net/dev. */
static const char *const sc__wire[] = {"tcp",     "ucx:tcp",     "ofi:tcp",
                                       "ofi:net", "ofi:sockets", "ofi:udp"};

#define SC__N(a) (sizeof(a) / sizeof((a)[0]))

static bool sc__in(const char *const *list, size_t n, const char *word, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(list[i]) == len && strncmp(list[i], word, len) == 0)
            return true;
    return false;
}

const char *sc_carrier_choices(void)
{
    return "shm, tcp, ofi:PROVIDER (cxi, efa, gni, lnx, lpp, net, opx, psm, psm2, psm3, shm, "
           "sm2, sockets, tcp, ucx, udp, usnic, verbs), ucx:TRANSPORT (rc, dc, ud, tcp, sm, "
           "ugni), psm, psm2, openib, usnic, portals4; two that both carried data joined by '+' "
           "(shm+tcp); a list means any of them";
}

/* One carrier (len bytes at p): 0, or -EINVAL with the reason. */
static int sc__check_one(const char *p, size_t len, char *why, size_t whylen)
{
    const char *colon = memchr(p, ':', len);
    size_t kind = colon ? (size_t)(colon - p) : len, rest = colon ? len - kind - 1 : 0;

    if (!colon && sc__in(sc__plain, SC__N(sc__plain), p, len))
        return 0;
    if (colon && rest == 7 && strncmp(colon + 1, "unknown", 7) == 0) {
        snprintf(why, whylen, "\"%.*s\" is no carrier: unknown means the evidence named none",
                 (int)len, p);
        return -EINVAL;
    }
    if (kind == 3 && strncmp(p, "ofi", 3) == 0) {
        if (colon && sc__in(sc__ofi, SC__N(sc__ofi), colon + 1, rest))
            return 0;
        snprintf(why, whylen,
                 colon ? "\"%.*s\" names no libfabric core provider"
                       : "\"%.*s\" is too vague: it names no libfabric provider",
                 (int)len, p);
        return -EINVAL;
    }
    if (kind == 3 && strncmp(p, "ucx", 3) == 0) {
        if (colon && sc__in(sc__ucx, SC__N(sc__ucx), colon + 1, rest))
            return 0;
        snprintf(why, whylen,
                 colon ? "\"%.*s\" names no UCX transport class"
                       : "\"%.*s\" is too vague: it names no UCX transport",
                 (int)len, p);
        return -EINVAL;
    }
    if ((len == 5 && strncmp(p, "vader", 5) == 0) || (len == 2 && strncmp(p, "sm", 2) == 0))
        snprintf(why, whylen,
                 "\"%.*s\" is an Open MPI component, not a carrier (did you mean "
                 "shm?)",
                 (int)len, p);
    else
        snprintf(why, whylen, "\"%.*s\" is not a carrier", (int)len, p);
    return -EINVAL;
}

static int sc__cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sc_carrier_canonical(const char *name, char *out, size_t len, char *why, size_t whylen)
{
    char copy[SC_CARRIER_MAX], *parts[8];
    size_t n = 0, used = 0;

    if (strlen(name) >= sizeof(copy)) {
        snprintf(why, whylen, "longer than %zu characters", sizeof(copy) - 1);
        return -ENAMETOOLONG;
    }
    snprintf(copy, sizeof(copy), "%s", name);
    for (char *save = NULL, *p = strtok_r(copy, "+", &save); p; p = strtok_r(NULL, "+", &save)) {
        int rc = sc__check_one(p, strlen(p), why, whylen);
        if (rc < 0)
            return rc;
        if (n == SC__N(parts)) {
            snprintf(why, whylen, "more than %zu carriers joined", SC__N(parts));
            return -EINVAL;
        }
        parts[n++] = p;
    }
    if (n == 0 || name[0] == '+' || name[strlen(name) - 1] == '+' || strstr(name, "++")) {
        snprintf(why, whylen, "\"%s\" is not a carrier", name);
        return -EINVAL;
    }
    qsort(parts, n, sizeof(parts[0]), sc__cmp);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(parts[i], parts[i - 1]) == 0)
            continue; /* "tcp+tcp" is tcp */
        int w = snprintf(out + used, len - used, "%s%s", used ? "+" : "", parts[i]);
        if (w < 0 || (size_t)w >= len - used) {
            snprintf(why, whylen, "longer than %zu characters", len - 1);
            return -ENAMETOOLONG;
        }
        used += (size_t)w;
    }
    return 0;
}

bool sc_carrier_known(const char *t)
{
    if (!t || !*t || strcmp(t, SC_CARRIER_UNKNOWN) == 0)
        return false;
    for (const char *p = strstr(t, ":unknown"); p; p = strstr(p + 1, ":unknown"))
        if (p[8] == '\0' || p[8] == '+' || p[8] == ',')
            return false;
    return true;
}

bool sc_carrier_on_wire(const char *carrier)
{
    return sc__in(sc__wire, SC__N(sc__wire), carrier, strlen(carrier));
}

/* Bytes as a reader says them: "16.6 kB", "29.1 MB" (SI, as the IMB table's MB). */
static void sc__bytes(unsigned long long v, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    double d = (double)v;
    size_t u = 0;

    while (d >= 1000 && u + 1 < SC__N(unit)) {
        d /= 1000;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu B", v);
    else
        snprintf(buf, len, "%.1f %s", d, unit[u]);
}

/* The namespace's bytes: payload of every rank in it, and the first rank's interface count. */
static void sc__namespace_bytes(const sc_carrier_rank *ranks, size_t n, const sc_carrier_rank *me,
                                unsigned long long *payload, unsigned long long *wire)
{
    const sc_carrier_rank *first = NULL;

    *payload = 0;
    for (size_t i = 0; i < n; i++) {
        const sc_carrier_rank *r = &ranks[i];
        if (!r->bytes_known || strcmp(r->netns, me->netns) != 0)
            continue;
        *payload += r->payload_sent;
        if (!first || r->rank < first->rank)
            first = r; /* every rank of a namespace reads the same counters: count them once */
    }
    *wire = first ? first->wire_tx : 0;
}

/* One rank's carrier; note says why. */
static void sc__decide_rank(const sc_carrier_rank *ranks, size_t n, const sc_carrier_rank *me,
                            char *out, size_t len, char *note, size_t notelen)
{
    char copy[SC_CARRIER_MAX], *wire = NULL, *other = NULL, wb[32], pb[32];
    int n_wire = 0, n_other = 0;
    unsigned long long payload, wire_tx;

    snprintf(copy, sizeof(copy), "%s", me->candidates);
    for (char *save = NULL, *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        if (sc_carrier_on_wire(p))
            n_wire++, wire = p;
        else
            n_other++, other = p;
    }
    snprintf(out, len, "%s", SC_CARRIER_UNKNOWN);
    if (n_wire + n_other <= 1) {
        snprintf(out, len, "%s", n_wire ? wire : n_other ? other : SC_CARRIER_UNKNOWN);
        snprintf(note, notelen, "rank %d: %s, the only carrier its MPI library selected", me->rank,
                 out);
        return;
    }
    sc__namespace_bytes(ranks, n, me, &payload, &wire_tx);
    if (!me->bytes_known || payload == 0 || n_wire != 1) {
        snprintf(note, notelen, "rank %d: candidates %s, and %s", me->rank, me->candidates,
                 !me->bytes_known || payload == 0
                     ? "no byte counts of the main loop"
                     : "the bytes of the network interfaces cannot tell them apart");
        return;
    }
    double share = (double)wire_tx / (double)payload;
    if (share >= SC_CARRIER_SHARE)
        snprintf(out, len, "%s", wire);
    else if (share <= 1 - SC_CARRIER_SHARE && n_other == 1)
        snprintf(out, len, "%s", other);
    else if (n_other == 1)
        snprintf(out, len, "%s+%s", strcmp(wire, other) < 0 ? wire : other,
                 strcmp(wire, other) < 0 ? other : wire);
    sc__bytes(wire_tx, wb, sizeof(wb));
    sc__bytes(payload, pb, sizeof(pb));
    snprintf(note, notelen,
             "rank %d: candidates %s; its network interfaces sent %s while the ranks of its "
             "namespace sent %s of payload (%.1f%%)",
             me->rank, me->candidates, wb, pb, 100 * share);
}

void sc_carrier_decide(const sc_carrier_rank *ranks, size_t n, char *out, size_t len, char *note,
                       size_t notelen)
{
    char first[SC_CARRIER_MAX] = "", one[SC_CARRIER_MAX], why[512];
    size_t used = 0;

    snprintf(out, len, "%s", SC_CARRIER_UNKNOWN);
    if (notelen)
        note[0] = '\0';
    if (n == 0) {
        snprintf(note, notelen, "no rank reported its transport");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        sc__decide_rank(ranks, n, &ranks[i], one, sizeof(one), why, sizeof(why));
        if (used < notelen) {
            int w = snprintf(note + used, notelen - used, "%s%s", used ? "; " : "", why);
            used += w > 0 ? (size_t)w : 0;
        }
        if (i == 0)
            snprintf(first, sizeof(first), "%s", one);
        else if (strcmp(first, one) != 0 && strncmp(out, "mixed:", 6) != 0)
            snprintf(out, len, "mixed:%s,%s", first, one);
    }
    if (strncmp(out, "mixed:", 6) != 0)
        snprintf(out, len, "%s", first);
}
