/*
 * fuzz_transport.c: the MPI library's reports as mpi/transport_parse.c reads them.
 * Input: STDERR NUL PML NUL MTL NUL FI_LIST NUL FI_INFO NUL CVARS (MPI_T variable names,
 * one a line).
 *
 * Every output buffer is malloc'd at exactly its size (ASan sees a write past it), and
 * filled with a byte that is not NUL first (a missing terminator is seen too). The lists
 * hold each item once and no empty item; the transport of parsed evidence is never empty;
 * two ranks that report the same transport agree on it.
 */
#include "support.h"

#include "transport_parse.h"

#include <stdlib.h>
#include <string.h>

enum { PART_STDERR, PART_PML, PART_MTL, PART_FI_LIST, PART_FI_INFO, PART_CVARS, PART_COUNT };

/* A buffer of exactly len bytes, none of them NUL. */
static char *sc__buf(size_t len)
{
    char *b = malloc(len);

    sc_fuzz_require(b != NULL, "out of memory");
    memset(b, 'x', len);
    return b;
}

/* The output in b (len bytes) is a string, and as a comma list has no empty or repeated item. */
static void sc__list_ok(const char *b, size_t len, const char *what)
{
    sc_fuzz_require(memchr(b, '\0', len) != NULL, what);
    for (const char *p = b; *p;) {
        size_t w = strcspn(p, ",");
        sc_fuzz_require(w > 0, "a comma list with an empty item");
        for (const char *q = p + w + (p[w] == ','); *q;) {
            size_t v = strcspn(q, ",");
            sc_fuzz_require(v != w || strncmp(p, q, w) != 0, "a comma list with an item twice");
            q += v + (q[v] == ',');
        }
        p += w + (p[w] == ',');
    }
}

/* One rank's view: its BTLs and provider from stderr, then its transport. */
static char *sc__rank(const char *text, int self, int peer, const char *pml, const char *mtl)
{
    enum { LIST = 64, EV = 512, OUT = 96 };
    char *peer_btl = sc__buf(LIST), *self_btl = sc__buf(LIST), *ev = sc__buf(EV);
    char *prov = sc__buf(LIST), *dom = sc__buf(LIST), *out = sc__buf(OUT);

    ev[0] = '\0'; /* the caller starts the evidence */
    scm_parse_bml(text, self, peer, peer_btl, LIST, self_btl, LIST, ev, EV);
    sc__list_ok(peer_btl, LIST, "scm_parse_bml: btl_peer is not a string");
    sc__list_ok(self_btl, LIST, "scm_parse_bml: btl_self is not a string");
    scm_parse_ofi(text, prov, LIST, dom, LIST, ev, EV);
    sc_fuzz_require(memchr(prov, '\0', LIST) && memchr(dom, '\0', LIST) && memchr(ev, '\0', EV),
                    "scm_parse_ofi: an output is not a string");
    scm_transport_normalize(pml, peer_btl, mtl, prov, out, OUT);
    sc_fuzz_require(memchr(out, '\0', OUT) != NULL, "scm_transport_normalize: not a string");
    sc_fuzz_require(out[0] != '\0', "scm_transport_normalize: an empty transport");
    free(peer_btl);
    free(self_btl);
    free(ev);
    free(prov);
    free(dom);
    return out;
}

/* Both ranks' transports, and that a rank agrees with itself. */
static void sc__agree(const char *a, const char *b)
{
    enum { OUT = 300 };
    const char *same[2] = {a, a}, *both[2] = {a, b};
    char *out = sc__buf(OUT);

    scm_transport_agree(same, 2, out, OUT);
    sc_fuzz_require(memchr(out, '\0', OUT) != NULL, "scm_transport_agree: not a string");
    if (!strchr(a, ','))
        sc_fuzz_require(strcmp(out, a) == 0, "two ranks with one transport do not agree on it");
    scm_transport_agree(both, 2, out, OUT);
    sc_fuzz_require(memchr(out, '\0', OUT) != NULL, "scm_transport_agree: not a string");
    free(out);
}

/* The components of the MPI_T variable names, for the frameworks the probe asks about. */
static void sc__components(const char *cvars)
{
    enum { LIST = 48 };
    static const char *const fw[] = {"pml", "btl", "mtl"};

    for (size_t f = 0; f < sizeof(fw) / sizeof(fw[0]); f++) {
        char *list = sc__buf(LIST);
        list[0] = '\0';
        for (const char *p = cvars ? cvars : ""; *p;) {
            size_t n = strcspn(p, "\n");
            char *name = strndup(p, n);
            sc_fuzz_require(name != NULL, "out of memory");
            scm_component_add(list, LIST, fw[f], name);
            free(name);
            p += n + (p[n] == '\n');
        }
        sc__list_ok(list, LIST, "scm_component_add: not a string");
        free(list);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { LIST = 128 };
    char *part[PART_COUNT];

    sc_fuzz_split(data, size, part, PART_COUNT);
    const char *text = part[PART_STDERR];
    const char *pml = part[PART_PML] ? part[PART_PML] : "ob1";
    const char *mtl = part[PART_MTL] ? part[PART_MTL] : SCM_NONE;
    char *r0 = sc__rank(text, 0, 1, pml, mtl), *r1 = sc__rank(text, 1, 0, pml, mtl);
    sc__agree(r0, r1);
    free(r0);
    free(r1);
    char *fi = sc__buf(LIST);
    scm_parse_fi_list(part[PART_FI_LIST], fi, LIST);
    sc__list_ok(fi, LIST, "scm_parse_fi_list: not a string");
    scm_parse_fi_usable(part[PART_FI_INFO], fi, LIST);
    sc__list_ok(fi, LIST, "scm_parse_fi_usable: not a string");
    free(fi);
    sc__components(part[PART_CVARS]);
    sc_fuzz_free_parts(part, PART_COUNT);
    return 0;
}
