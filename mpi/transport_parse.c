/*
 * transport_parse.c: evidence text -> component lists and the normalized transport
 * (see transport_parse.h).
 */
#include "transport_parse.h"

#include <stdio.h>
#include <string.h>

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

/* Copy the line at p (without its newline) into buf. Returns the start of the next line. */
static const char *scm__line(const char *p, char *buf, size_t len)
{
    size_t n = strcspn(p, "\n");

    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
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

void scm_parse_ofi(const char *text, char *provider, size_t prov_len, char *domain, size_t dom_len,
                   char *evidence, size_t ev_len)
{
    static const char prov_marker[] = "mtl:ofi:prov: ", dom_marker[] = "mtl:ofi:provider: ";
    char line[512];

    provider[0] = domain[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        const char *m;
        if ((m = strstr(line, prov_marker)))
            snprintf(provider, prov_len, "%s", m + sizeof(prov_marker) - 1);
        else if ((m = strstr(line, dom_marker)))
            snprintf(domain, dom_len, "%s", m + sizeof(dom_marker) - 1);
        else
            continue;
        scm__evidence(evidence, ev_len, m);
    }
    provider[strcspn(provider, " \t\r,")] = '\0'; /* a name ends there: see scm_list_add */
    domain[strcspn(domain, " \t\r,")] = '\0';
}

/* One BTL's transport name: shared-memory BTLs are "shm", the OFI BTL names its provider. */
static void scm__btl_transport(const char *btl, const char *provider, char *out, size_t len)
{
    if (!strcmp(btl, "vader") || !strcmp(btl, "sm") || !strcmp(btl, "smcuda"))
        snprintf(out, len, "shm");
    else if (!strcmp(btl, "ofi"))
        snprintf(out, len, "ofi:%.*s", (int)strcspn(*provider ? provider : SCM_UNKNOWN, ";"),
                 *provider ? provider : SCM_UNKNOWN);
    else
        snprintf(out, len, "%s", btl);
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

void scm_transport_normalize(const char *pml, const char *btl_peer, const char *mtl,
                             const char *provider, char *out, size_t len)
{
    char real[64], one[96], item[64];

    scm__real_pml(pml, real, sizeof(real));
    snprintf(out, len, "%s", SCM_UNKNOWN);
    if (!strcmp(real, "ob1")) {
        if (!*btl_peer)
            return;
        out[0] = '\0';
        for (const char *p = btl_peer; *p;) {
            size_t w = strcspn(p, ",");
            snprintf(item, sizeof(item), "%.*s", (int)(w < sizeof(item) ? w : sizeof(item) - 1), p);
            scm__btl_transport(item, provider, one, sizeof(one));
            scm_list_add(out, len, one); /* once: vader and sm would both say shm */
            p += w;
            p += *p == ',';
        }
        for (char *c = strchr(out, ','); c; c = strchr(c, ','))
            *c = '+'; /* several rails: "tcp+openib" */
    } else if (!strcmp(real, "cm")) {
        if (!strcmp(mtl, "ofi"))
            snprintf(out, len, "ofi:%.*s", (int)strcspn(*provider ? provider : SCM_UNKNOWN, ";"),
                     *provider ? provider : SCM_UNKNOWN);
        else if (*mtl && strcmp(mtl, SCM_NONE) != 0 && !strchr(mtl, ','))
            snprintf(out, len, "%s", mtl);
    } else if (*real && strcmp(real, SCM_UNKNOWN) != 0) {
        snprintf(out, len, "%s", real); /* ucx, or a PML this probe does not look inside */
    }
}

void scm_transport_agree(const char *const per_rank[], int n, char *out, size_t len)
{
    char list[256] = "";

    for (int i = 0; i < n; i++)
        scm_list_add(list, sizeof(list), per_rank[i]);
    if (!strchr(list, ','))
        snprintf(out, len, "%s", n > 0 ? list : SCM_UNKNOWN);
    else
        snprintf(out, len, "mixed:%s", list);
}

void scm_parse_fi_list(const char *text, char *out, size_t len)
{
    char line[256];

    out[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        size_t n = strlen(line);
        if (n > 1 && line[0] != ' ' && line[0] != '\t' && line[n - 1] == ':') {
            line[n - 1] = '\0';
            scm_list_add(out, len, line);
        }
    }
}

void scm_parse_fi_usable(const char *text, char *out, size_t len)
{
    char line[256], name[128];

    out[0] = '\0';
    for (const char *p = text ? text : ""; *p;) {
        p = scm__line(p, line, sizeof(line));
        if (sscanf(line, "provider: %127s", name) == 1)
            scm_list_add(out, len, name);
    }
}
