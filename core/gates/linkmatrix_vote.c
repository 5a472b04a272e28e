/*
 * linkmatrix_vote.c: the passes' vote over a link matrix's judgements (sc_linkmatrix.h says
 * the rule and its confidence). Each judgement is sc_linkmatrix_judge's, O(n^2); the vote
 * adds P of them and a match of findings, at most a few per judgement in practice (a
 * pass's findings are bounded by its pairs and nodes).
 */
#include "sc_linkmatrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The vote for finding f in out, appended when new (NULL: out of memory). */
static sc_linkmatrix_vote *sc__vote_for(sc_linkmatrix_votes *out, size_t *cap,
                                        const sc_linkmatrix_finding *f)
{
    for (size_t i = 0; i < out->n; i++)
        if (out->votes[i].f.kind == f->kind && out->votes[i].f.a == f->a &&
            out->votes[i].f.b == f->b)
            return &out->votes[i];
    if (out->n == *cap) {
        size_t want = *cap ? *cap * 2 : 8;
        sc_linkmatrix_vote *grown = realloc(out->votes, want * sizeof(*grown));
        if (!grown)
            return NULL;
        out->votes = grown;
        *cap = want;
    }
    out->votes[out->n] = (sc_linkmatrix_vote){.f = *f};
    return &out->votes[out->n++];
}

int sc_linkmatrix_judge_passes(const double *medians, const double *per_pass, size_t passes,
                               size_t n, sc_linkmatrix_better better, double mad_factor,
                               double min_pct, sc_linkmatrix_votes *out)
{
    sc_linkmatrix_verdict v;
    size_t cap = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!per_pass || passes < 1 || passes > SC_LINKMATRIX_MAX_PASSES)
        return -EINVAL;
    rc = sc_linkmatrix_judge(medians, n, better, mad_factor, min_pct, &v);
    if (rc < 0)
        return rc;
    out->judged = v.judged;
    out->n_nodes = v.n_nodes;
    out->passes = passes;
    for (size_t i = 0; rc == 0 && i < v.n; i++) {
        sc_linkmatrix_vote *one = sc__vote_for(out, &cap, &v.findings[i]);
        if (!one)
            rc = -ENOMEM;
        else {
            one->in_medians = true;
            /* One pass: its matrix is the medians' (a pair's median of one value), so it
               names what they name, without judging the same matrix twice. */
            one->passes_naming = passes == 1;
        }
    }
    sc_linkmatrix_verdict_free(&v);
    for (size_t p = 0; rc == 0 && passes > 1 && p < passes; p++) {
        rc = sc_linkmatrix_judge(per_pass + p * n * n, n, better, mad_factor, min_pct, &v);
        for (size_t i = 0; rc == 0 && i < v.n; i++) {
            sc_linkmatrix_vote *one = sc__vote_for(out, &cap, &v.findings[i]);
            if (!one)
                rc = -ENOMEM;
            else
                one->passes_naming++;
        }
        sc_linkmatrix_verdict_free(&v);
    }
    if (rc < 0)
        sc_linkmatrix_votes_free(out);
    return rc;
}

bool sc_linkmatrix_vote_holds(const sc_linkmatrix_vote *v, size_t passes)
{
    return passes >= 2 && v->in_medians && v->passes_naming == passes;
}

double sc_linkmatrix_vote_confidence(size_t passes)
{
    return passes >= 2 ? 1 - ldexp(1.0, -(int)(passes > 64 ? 64 : passes)) : 0;
}

void sc_linkmatrix_votes_free(sc_linkmatrix_votes *v)
{
    free(v->votes);
    v->votes = NULL;
    v->n = 0;
}
