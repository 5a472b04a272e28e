/*
 * fuzz_transport.c: what the MPI library and the fabric libraries said, as
 * mpi/transport_parse.c reads it. Input: a fixture (tests/mpi/transport_fixture.h: "# key:
 * value" lines, then the text); the seeds are the fixtures the unit test checks.
 *
 * Every output buffer is malloc'd at exactly its size (ASan sees a write past it), and
 * filled with a byte that is not NUL first (a missing terminator is seen too). The lists
 * hold each item once and no empty item; the candidates are never empty and every one of
 * them is a carrier of the vocabulary or has an "unknown" part; each refusal has a subject.
 */
#include "support.h"

#include "sc_carrier.h"
#include "transport_fixture.h"
#include "transport_parse.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

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

/* Every candidate is a carrier the card could name, a libfabric provider by its name, or
   says it is unknown. */
static void sc__candidates_ok(const char *cand)
{
    char item[SC_CARRIER_MAX], canon[SC_CARRIER_MAX], why[256];

    sc_fuzz_require(cand[0] != '\0', "scm_transport_candidates: no candidate at all");
    for (const char *p = cand; *p;) {
        size_t w = strcspn(p, ",");
        snprintf(item, sizeof(item), "%.*s", (int)w, p);
        if (sc_carrier_known(item) &&
            sc_carrier_canonical(item, canon, sizeof(canon), why, sizeof(why)) != 0 &&
            !(!strncmp(item, "ofi:", 4) && item[4] && !strpbrk(item + 4, "+;: \t"))) {
            fprintf(stderr, "fuzz: candidate \"%s\" of \"%s\": %s\n", item, cand, why);
            sc_fuzz_fail("a candidate that is no carrier of the vocabulary");
        }
        p += w + (p[w] == ',');
    }
}

/* One rank's view under one Open MPI version. */
static void sc__rank(const struct scm_fixture *f, int ompi)
{
    enum { LIST = 64, EV = 512, OUT = 128, MAXREF = 4 };
    char *peer_btl = sc__buf(LIST), *self_btl = sc__buf(LIST), *ev = sc__buf(EV);
    char *prov = sc__buf(LIST), *dom = sc__buf(LIST), *ucx = sc__buf(LIST), *out = sc__buf(OUT);
    struct scm_refusal *r = malloc(MAXREF * sizeof(*r));

    sc_fuzz_require(r != NULL, "out of memory");
    ev[0] = '\0'; /* the caller starts the evidence */
    scm_parse_bml(f->text, f->self, f->peer, peer_btl, LIST, self_btl, LIST, ev, EV);
    sc__list_ok(peer_btl, LIST, "scm_parse_bml: btl_peer is not a string");
    sc__list_ok(self_btl, LIST, "scm_parse_bml: btl_self is not a string");
    scm_parse_ofi(f->text, ompi, prov, LIST, dom, LIST, ev, EV);
    sc_fuzz_require(memchr(prov, '\0', LIST) && memchr(dom, '\0', LIST) && memchr(ev, '\0', EV),
                    "scm_parse_ofi: an output is not a string");
    sc_fuzz_require(!strpbrk(prov, ",; \t"), "scm_parse_ofi: not a core provider's name");
    scm_parse_ucx(f->text, ucx, LIST, ev, EV);
    sc__list_ok(ucx, LIST, "scm_parse_ucx: not a string");
    scm_transport_candidates(f->pml, peer_btl, f->mtl, prov, ucx, out, OUT);
    sc__list_ok(out, OUT, "scm_transport_candidates: not a string");
    sc__candidates_ok(out);
    size_t n = scm_parse_refusals(f->text, ompi, r, MAXREF);
    sc_fuzz_require(n <= MAXREF, "scm_parse_refusals: more than asked for");
    for (size_t i = 0; i < n; i++)
        sc_fuzz_require(r[i].subject[0] && memchr(r[i].why, '\0', sizeof(r[i].why)),
                        "scm_parse_refusals: a refusal without a subject or a string");
    free(peer_btl);
    free(self_btl);
    free(ev);
    free(prov);
    free(dom);
    free(ucx);
    free(out);
    free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    struct scm_fixture f;

    sc_fuzz_require(text != NULL, "out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    scm_fixture_parse(text, &f);
    sc__rank(&f, f.ompi);
    sc__rank(&f, f.ompi >= 5 ? 4 : 5); /* the other wording: never worse than wrong */
    free(text);
    return 0;
}
