/*
 * transport_parse.c: evidence text -> component lists, carriers and refusals
 * (see transport_parse.h).
 */
#include "transport_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int scm_list_has(const char *list, const char *item)
{
    size_t n = strlen(item);

    for (const char *p = list; *p;) {
        size_t w = strcspn(p, ",");
        if (w == n && strncmp(p, item, n) == 0)
            return 1;
        p += w;
        p += *p == ',';
    }
    return 0;
}

void scm_list_add(char *buf, size_t len, const char *item)
{
    size_t n = strlen(item), used = strlen(buf);

    /* An item with a comma would read back as two: no library names a component so. */
    if (n == 0 || strchr(item, ',') || scm_list_has(buf, item))
        return;
    if (used + (used > 0) + n + 1 > len)
        return; /* full: the list is evidence, not a buffer overflow */
    snprintf(buf + used, len - used, "%s%s", used ? "," : "", item);
}

void scm_component_add(char *buf, size_t len, const char *fw, const char *cvar)
{
    size_t n = strlen(fw);
    char comp[64];

    if (strncmp(cvar, fw, n) != 0 || cvar[n] != '_')
        return;
    const char *start = cvar + n + 1, *end = strchr(start, '_');
    if (!end || end == start || (size_t)(end - start) >= sizeof(comp))
        return;
    snprintf(comp, sizeof(comp), "%.*s", (int)(end - start), start);
    if (strcmp(comp, "base") != 0)
        scm_list_add(buf, len, comp);
}

int scm_ompi_major(const char *library)
{
    const char *v = library ? strstr(library, "Open MPI v") : NULL;

    return v && isdigit((unsigned char)v[10]) ? atoi(v + 10) : 0;
}

/* Copy the line at p (without its newline) into buf. Returns the start of the next line. */
static const char *scm__line(const char *p, char *buf, size_t len)
{
    size_t n = strcspn(p, "\n");

    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
    buf[strcspn(buf, "\r")] = '\0';
    return p[n] ? p + n + 1 : p + n;
}

/* Append a line to the " | "-separated evidence, once. */
static void scm__evidence(char *ev, size_t len, const char *line)
{
    size_t used = strlen(ev);

    while (*line == ' ')
        line++;
    if (strstr(ev, line))
        return;
    snprintf(ev + used, len - used, "%s%s", used ? " | " : "", line);
}

void scm_parse_bml(const char *text, int self, int peer, char *btl_peer, size_t peer_len,
                   char *btl_self, size_t self_len, char *evidence, size_t ev_len)
{
    static const char marker[] = "mca: bml: Using ";
    char line[512], btl[64];
    unsigned job, family;
    int rank;

    btl_peer[0] = btl_self[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        const char *m = strstr(line, marker);
        if (!m || sscanf(m + sizeof(marker) - 1, "%63s btl for send to [[%u,%u],%d]", btl, &job,
                         &family, &rank) != 4)
            continue;
        if (rank == peer)
            scm_list_add(btl_peer, peer_len, btl);
        else if (rank == self)
            scm_list_add(btl_self, self_len, btl);
        else
            continue;
        scm__evidence(evidence, ev_len, m);
    }
}

/* A provider or domain name: up to the first character no libfabric name holds (a blank,
   a comma: see scm_list_add); "tcp;ofi_rxm" and a linked "shm+cxi:lnx" are kept whole here.
   "none" is none. */
static void scm__name(char *out, size_t len, const char *from)
{
    static const char name_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789_.-;+:";

    snprintf(out, len, "%.*s", (int)strspn(from, name_chars), from);
    if (!strcmp(out, SCM_NONE))
        out[0] = '\0';
}

void scm_parse_ofi(const char *text, int ompi_major, char *provider, size_t prov_len, char *domain,
                   size_t dom_len, char *evidence, size_t ev_len)
{
    /* 4.1: prov = provider, provider = domain; 5.0: provider = provider, provider:domain. */
    static const char prov41[] = "mtl:ofi:prov: ", provider_m[] = "mtl:ofi:provider: ",
                      dom50[] = "mtl:ofi:provider:domain: ";
    char line[512];
    int v5 = ompi_major >= 5;

    if (ompi_major == 0) /* not told: the 4.1 words are the only ones with "prov: " */
        v5 = text && !strstr(text, prov41);
    provider[0] = domain[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        const char *m;
        if (!v5 && (m = strstr(line, prov41)))
            scm__name(provider, prov_len, m + sizeof(prov41) - 1);
        else if ((m = strstr(line, provider_m)))
            scm__name(v5 ? provider : domain, v5 ? prov_len : dom_len, m + sizeof(provider_m) - 1);
        else if (v5 && (m = strstr(line, dom50)))
            scm__name(domain, dom_len, m + sizeof(dom50) - 1);
        else
            continue;
        scm__evidence(evidence, ev_len, m);
    }
    char whole[128];
    snprintf(whole, sizeof(whole), "%s", provider);
    scm_ofi_core_provider(whole, provider, prov_len, NULL, 0);
}

void scm_ofi_core_provider(const char *name, char *core, size_t len, char *links, size_t llen)
{
    char buf[128], item[64];
    size_t n = strcspn(name, ";"); /* the core provider under a utility one: "tcp;ofi_rxm" */

    if (links && llen)
        links[0] = '\0';
    snprintf(buf, sizeof(buf), "%.*s", (int)(n < sizeof(buf) ? n : sizeof(buf) - 1), name);
    char *suffix = strrchr(buf, ':');
    if (!strchr(buf, '+') || !suffix ||
        (strcmp(suffix, ":lnx") != 0 && strcmp(suffix, ":linkx") != 0)) {
        /* "+" and ":" belong to LINKx names only: anything else is no provider's name */
        snprintf(core, len, "%s", strpbrk(buf, "+:") ? "" : buf);
        return;
    }
    /* libfabric 2's LINKx provider, "shm+cxi:lnx" ("shm+cxi:linkx" before its release): shm
       carries to the peers on this host, the other provider to the rest; the carrier the
       card names is the fabric's. */
    *suffix = '\0';
    core[0] = '\0';
    if (strchr(buf, ':') || strstr(buf, "++") || buf[0] == '+' || buf[strlen(buf) - 1] == '+') {
        /* a linked part that is itself no provider's name ("shm+cxi:x:lnx", "shm++cxi:lnx") */
        return;
    }
    for (const char *p = buf; *p;) {
        size_t w = strcspn(p, "+");
        snprintf(item, sizeof(item), "%.*s", (int)(w < sizeof(item) ? w : sizeof(item) - 1), p);
        if (!core[0] && strcmp(item, "shm") != 0)
            snprintf(core, len, "%s", item);
        else if (links && llen)
            scm_list_add(links, llen, item);
        p += w + (p[w] == '+');
    }
    if (!core[0]) /* shm linked to shm only: the peers are all on this host */
        snprintf(core, len, "shm");
}

/* A UCX transport's carrier: by class, "" for lanes that carry nothing between ranks. */
static const char *scm__ucx_class(const char *tl, size_t n)
{
    static const struct {
        const char *prefix, *carrier;
    } map[] = {
        {"self", ""},       {"cuda", ""},        {"rocm", ""},         {"gdr", ""},
        {"ze_", ""},        {"rc", "ucx:rc"},    {"dc", "ucx:dc"},     {"ud", "ucx:ud"},
        {"tcp", "ucx:tcp"}, {"posix", "ucx:sm"}, {"sysv", "ucx:sm"},   {"cma", "ucx:sm"},
        {"knem", "ucx:sm"}, {"xpmem", "ucx:sm"}, {"ugni", "ucx:ugni"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (n >= strlen(map[i].prefix) && strncmp(tl, map[i].prefix, strlen(map[i].prefix)) == 0)
            return map[i].carrier;
    return "ucx:unknown";
}

void scm_parse_ucx(const char *text, char *carriers, size_t len, char *evidence, size_t ev_len)
{
    char line[1024];

    carriers[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        const char *ucx = strstr(line, "UCX"), *cfg = ucx ? strstr(ucx, "ep_cfg[") : NULL;
        if (ucx && !cfg && (cfg = strstr(ucx, "cfg#")) && strstr(ucx, " self cfg#"))
            continue; /* 1.16+: the endpoint to this process itself */
        const char *tag = cfg ? strstr(cfg, "tag(") : NULL;
        if (!tag)
            continue;
        for (const char *l = tag + 4; *l && *l != ')';) {
            size_t w = strcspn(l, " )"), tl = strcspn(l, "/ )");
            const char *c = scm__ucx_class(l, tl);
            scm_list_add(carriers, len, c);
            l += w;
            l += *l == ' ';
        }
        scm__evidence(evidence, ev_len, cfg);
    }
}

/* One BTL's carrier. */
static const char *scm__btl_carrier(const char *btl)
{
    static const char *const own[] = {"openib", "usnic", "portals4"};

    if (!strcmp(btl, "vader") || !strcmp(btl, "sm") || !strcmp(btl, "smcuda"))
        return "shm";
    if (!strcmp(btl, "tcp"))
        return "tcp";
    if (!strcmp(btl, "ofi"))
        return "ofi:" SCM_UNKNOWN; /* the OFI BTL does not report its provider */
    if (!strcmp(btl, "uct"))
        return "ucx:" SCM_UNKNOWN;
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (!strcmp(btl, own[i]))
            return own[i];
    return SCM_UNKNOWN;
}

/* The PML that moves the data when wrappers (monitoring, v) are stacked on it. */
static void scm__real_pml(const char *pml, char *out, size_t len)
{
    char item[64];

    out[0] = '\0';
    for (const char *p = pml; *p;) {
        size_t w = strcspn(p, ",");
        snprintf(item, sizeof(item), "%.*s", (int)(w < sizeof(item) ? w : sizeof(item) - 1), p);
        if (strcmp(item, "monitoring") != 0 && strcmp(item, "v") != 0) {
            if (out[0]) { /* two real PMLs: no single answer */
                snprintf(out, len, "%s", SCM_UNKNOWN);
                return;
            }
            snprintf(out, len, "%s", item);
        }
        p += w;
        p += *p == ',';
    }
}

void scm_transport_candidates(const char *pml, const char *btl_peer, const char *mtl,
                              const char *provider, const char *ucx, char *out, size_t len)
{
    char real[64], item[64];

    scm__real_pml(pml, real, sizeof(real));
    out[0] = '\0';
    if (!strcmp(real, "ob1")) {
        for (const char *p = btl_peer; *p;) {
            size_t w = strcspn(p, ",");
            snprintf(item, sizeof(item), "%.*s", (int)(w < sizeof(item) ? w : sizeof(item) - 1), p);
            scm_list_add(out, len, scm__btl_carrier(item)); /* vader and sm: shm once */
            p += w;
            p += *p == ',';
        }
    } else if (!strcmp(real, "cm")) {
        if (!strcmp(mtl, "ofi"))
            snprintf(out, len, "ofi:%s", *provider ? provider : SCM_UNKNOWN);
        else if (!strcmp(mtl, "psm") || !strcmp(mtl, "psm2") || !strcmp(mtl, "portals4"))
            snprintf(out, len, "%s", mtl);
    } else if (!strcmp(real, "ucx")) {
        snprintf(out, len, "%s", *ucx ? ucx : "ucx:" SCM_UNKNOWN);
    }
    if (!out[0])
        snprintf(out, len, "%s", SCM_UNKNOWN);
}

/* The line without Open MPI's and UCX's "[host:pid] " prefixes and a source file's path. */
static const char *scm__strip(const char *line, char *buf, size_t len)
{
    while (*line == '[' && strstr(line, "] ")) {
        line = strstr(line, "] ") + 2;
        while (*line == ' ')
            line++;
    }
    size_t tok = strcspn(line, ": ");
    const char *slash = NULL;
    for (const char *s = line; s < line + tok; s++)
        if (*s == '/')
            slash = s;
    snprintf(buf, len, "%s", slash ? slash + 1 : line);
    return buf;
}

/* True when a message says something failed (libfabric's and UCX's warnings are often not). */
static int scm__says_failure(const char *msg)
{
    static const char *const words[] = {"fail",      "error",   "unable",       "cannot",
                                        "could not", "no such", "not supported"};

    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        size_t n = strlen(words[i]);
        for (const char *p = msg; *p; p++)
            if (strncasecmp(p, words[i], n) == 0)
                return 1;
    }
    return 0;
}

/* libfabric's log line "libfabric:<pid>:<time>:<prefix>:<prov>:<subsys>:<func>():<line> msg":
   the provider's subject, or "" when it is not a failure. */
static void scm__libfabric(const char *s, char *subject, size_t len)
{
    const char *f = s;

    subject[0] = '\0';
    for (int i = 0; i < 4 && f; i++)
        f = strchr(f, ':') ? strchr(f, ':') + 1 : NULL;
    const char *msg = f ? strstr(f, "():") : NULL;
    if (!msg || !scm__says_failure(msg))
        return;
    size_t n = strcspn(f, ":");
    if (n == 0 || !strncmp(f, "core", n) || !strncmp(f, "ofi_", 4) || n >= len - 4)
        snprintf(subject, len, "ofi");
    else
        snprintf(subject, len, "ofi:%.*s", (int)n, f);
}

/* True when the OFI path as a whole failed: fi_getinfo() (not EFA's own probe), no provider. */
static int scm__ofi_failed(const char *s, int v5)
{
    const char *q = strstr(s, "fi_getinfo(): ");

    if (q && !strstr(s, "EFA specific") && strncmp(q + 14, "Success", 7) != 0)
        return 1;
    return strstr(s, "fi_getinfo failed") || strstr(s, "no provider found") ||
           strstr(s, "mtl:ofi:prov: none") || (v5 && strstr(s, "mtl:ofi:provider: none"));
}

/* True when UCX refused: its errors and warnings, a failing diagnostic, pml ucx not selected. */
static int scm__ucx_failed(const char *s)
{
    const char *q = strstr(s, "UCX  ");

    if (q && (!strncmp(q + 5, "ERROR", 5) || !strncmp(q + 5, "WARN", 4) ||
              (!strncmp(q + 5, "DIAG", 4) && scm__says_failure(q + 9))))
        return 1;
    return strstr(s, "PML ucx cannot be selected") != NULL;
}

/* The subject of one stripped line, "" when it refuses nothing. `prov` is the OFI MTL's
   provider so far. */
static void scm__refusal_subject(const char *s, int v5, const char *prov, char *subject, size_t len)
{
    const char *q = strstr(s, "tl:ofi: \"");

    subject[0] = '\0';
    if (q && (strstr(q, "\" in exclude list") || strstr(q, "\" not in include list"))) {
        q += strlen("tl:ofi: \"");
        size_t n = strcspn(q, "\";");
        snprintf(subject, len, "ofi:%.*s", (int)(n < 40 ? n : 40), q);
    } else if (scm__ofi_failed(s, v5)) {
        snprintf(subject, len, "ofi");
    } else if ((!strncmp(s, "mtl_ofi", 7) || !strncmp(s, "btl_ofi", 7) ||
                !strncmp(s, "common_ofi", 10)) &&
               strstr(s, " failed: ")) {
        snprintf(subject, len, *prov ? "ofi:%s" : "ofi", prov);
    } else if (!strncmp(s, "libfabric:", 10)) {
        scm__libfabric(s, subject, len);
    } else if (scm__ucx_failed(s)) {
        snprintf(subject, len, "ucx");
    }
}

/* The box of Open MPI 5's help-mtl-ofi.txt [OFI call fail], from its first line at p:
   "Open MPI failed an OFI Libfabric library call (fi_domain): Function not implemented (38),
   at mtl_ofi_component.c:999" into why (its Error and Location lines, within the box). */
static void scm__ofi_call_box(const char *first, const char *p, char *why, size_t len)
{
    char line[512], where[256] = "", error[160] = "";
    const char *call = strstr(first, "library call (");
    size_t n = call ? strcspn(call + 14, ")") : 0;

    for (int i = 0; i < 8 && *p; i++) {
        p = scm__line(p, line, sizeof(line));
        const char *s = line + strspn(line, " ");
        if (!strncmp(s, "---", 3))
            break;
        if (!strncmp(s, "Location: ", 10)) {
            const char *base = strrchr(s + 10, '/');
            snprintf(where, sizeof(where), ", at %s", base ? base + 1 : s + 10);
        } else if (!strncmp(s, "Error: ", 7)) {
            snprintf(error, sizeof(error), ": %s", s + 7);
        }
    }
    snprintf(why, len, "Open MPI failed an OFI Libfabric library call (%.*s)%s%s", (int)n,
             call ? call + 14 : "?", error, where);
}

size_t scm_parse_refusals(const char *text, int ompi_major, struct scm_refusal *out, size_t max)
{
    char line[1024], stripped[1024], prov[64] = "", dom[8], ev[8];
    size_t n = 0;
    int v5 = ompi_major >= 5 || (ompi_major == 0 && text && !strstr(text, "mtl:ofi:prov: "));

    for (const char *p = text ? text : ""; *p && n < max;) {
        const char *start = p;
        p = scm__line(p, line, sizeof(line));
        const char *s = scm__strip(line, stripped, sizeof(stripped));
        if (strstr(s, "mtl:ofi:prov")) { /* a selected provider: the subject of what follows */
            char one[1024], got[64];
            snprintf(one, sizeof(one), "%.*s", (int)(p - start), start);
            ev[0] = '\0';
            scm_parse_ofi(one, v5 ? 5 : 4, got, sizeof(got), dom, sizeof(dom), ev, sizeof(ev));
            if (got[0])
                snprintf(prov, sizeof(prov), "%s", got);
        }
        struct scm_refusal r = {0}; /* subject set below; the rest zeroed for the copy */
        if (!strncmp(s, "Open MPI failed an OFI Libfabric library call (", 47)) {
            /* 5.0's box: about the provider selected before it, when one was named */
            snprintf(r.subject, sizeof(r.subject), *prov ? "ofi:%s" : "ofi", prov);
            scm__ofi_call_box(s, p, r.why, sizeof(r.why));
        } else {
            scm__refusal_subject(s, v5, prov, r.subject, sizeof(r.subject));
            snprintf(r.why, sizeof(r.why), "%.*s", (int)sizeof(r.why) - 1, s); /* cut */
        }
        if (!r.subject[0])
            continue;
        int seen = 0;
        for (size_t i = 0; i < n && !seen; i++)
            seen = !strcmp(out[i].why, r.why);
        if (!seen)
            out[n++] = r;
    }
    return n;
}
