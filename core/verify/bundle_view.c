/*
 * bundle_view.c: a finished bundle opened once for every command (see sc_bundle_view.h):
 * one pass over its files, verify then the facts over the same pass.
 */
#include "sc_bundle_view.h"
#include "sc_bundle.h"
#include "sc_facts_src.h"
#include "sc_verify_pass.h"

#include <stdio.h>
#include <string.h>

void sc__first_run_free(sc_first_run *first)
{
    if (!first) /* zeroed, or what verify parsed (the facts took theirs) */
        return;
    sc_tracelog_free(&first->log);
    json_object_put(first->build);
    json_object_put(first->results);
    first->build = first->results = NULL;
}

/* Verifies (and, with facts, loads) the bundle at path in one pass. The verify rc. */
static int sc__one_pass(const char *path, const sc_verify_opts *opts, sc_verify_report *out,
                        sc_bundle_facts *facts, int *facts_rc)
{
    sc_first_run first;
    sc_bundle b;

    memset(&first, 0, sizeof(first));
    sc__verify_report_init(out);
    int rc = sc_bundle_open(&b, path);
    if (rc < 0)
        return rc;
    (void)sc_bundle_remember(&b); /* -ENOMEM: read as without it */
    rc = sc__verify_at(&b, opts, out, &first);
    if (rc == 0 && facts)
        *facts_rc = sc__facts_load_at(&b, path, facts, &first);
    sc__first_run_free(&first);
    sc__verify_sums(&b, out); /* last: the readers above hashed what they read */
    sc_bundle_close(&b);
    return rc;
}

int sc_verify_bundle(const char *path, sc_verify_report *out)
{
    return sc_verify_bundle_opts(path, NULL, out);
}

int sc_verify_bundle_opts(const char *path, const sc_verify_opts *opts, sc_verify_report *out)
{
    return sc__one_pass(path, opts, out, NULL, NULL);
}

int sc_bundle_view_open(const char *path, const sc_bundle_view_opts *opts, sc_bundle_view *v)
{
    int facts_rc = 0;
    bool facts = !(opts && opts->no_facts);

    memset(v, 0, sizeof(*v));
    v->verdict = SC_VIEW_UNVERIFIED;
    v->open_rc = sc__one_pass(path, opts ? opts->verify : NULL, &v->verify,
                              facts ? &v->facts : NULL, &facts_rc);
    if (v->open_rc < 0) {
        snprintf(v->why, sizeof(v->why), "cannot open the bundle: %s", strerror(-v->open_rc));
        return v->open_rc;
    }
    v->verdict = sc_verify_usable(&v->verify)   ? SC_VIEW_VERIFIED
                 : sc_verify_intact(&v->verify) ? SC_VIEW_FAILED
                                                : SC_VIEW_UNVERIFIED;
    if (v->verdict != SC_VIEW_VERIFIED)
        sc_verify_why(&v->verify, v->why, sizeof(v->why));
    if (facts_rc < 0) {
        v->open_rc = facts_rc;
        v->verdict = SC_VIEW_UNVERIFIED;
        snprintf(v->why, sizeof(v->why), "cannot read the bundle: %s", strerror(-facts_rc));
        return facts_rc;
    }
    v->loaded = facts;
    return 0;
}

void sc_bundle_view_close(sc_bundle_view *v)
{
    if (!v)
        return;
    sc_verify_report_free(&v->verify);
    if (v->loaded)
        sc_facts_free(&v->facts);
    v->loaded = false;
}

const char *sc_view_verdict_name(sc_view_verdict verdict)
{
    return verdict == SC_VIEW_VERIFIED ? "ok" : verdict == SC_VIEW_FAILED ? "failed" : "unverified";
}
