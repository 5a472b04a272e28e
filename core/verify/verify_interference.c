/* verify_interference.c: results.json's foreign work against the raw records
   (sc_verify_interference.h). */
#include "sc_verify_interference.h"
#include "sc_interference.h"
#include "sc_num.h"

#include <math.h>

/* The "cpus" array of an interference object, or NULL. */
static json_object *sc__cpus(json_object *intf)
{
    json_object *cpus = NULL;

    return intf && json_object_object_get_ex(intf, "cpus", &cpus) &&
                   json_object_is_type(cpus, json_type_array)
               ? cpus
               : NULL;
}

/* A number of a record, NAN when absent or not finite. */
static double sc__num(json_object *o, const char *key)
{
    double v = NAN;

    sc_num_get(o, key, &v);
    return v;
}

void sc_verify_interference(const sc_card *card, const char *interference_txt, const char *log,
                            json_object *run, sc_diag *problems)
{
    sc_interference rec = {0};
    json_object *claimed = NULL, *truth = NULL;

    if (!run || sc_interference_load(card, interference_txt, log, &rec) < 0)
        goto out; /* unreadable raw records: the interference gate says so */
    truth = sc_interference_json(card, &rec);
    json_object_object_get_ex(run, "interference", &claimed);
    json_object *want = sc__cpus(truth), *have = sc__cpus(claimed);
    size_t nw = want ? json_object_array_length(want) : 0;
    size_t nh = have ? json_object_array_length(have) : 0;
    if (nw != nh) {
        sc_diag_addf(problems,
                     "results.json: interference lists %zu CPUs, but the raw records "
                     "(interference.txt) give %zu",
                     nh, nw);
        goto out;
    }
    for (size_t i = 0; i < nw; i++) {
        json_object *w = json_object_array_get_idx(want, i), *h = json_object_array_get_idx(have, i);
        double ws = sc__num(w, "share_pct"), hs = sc__num(h, "share_pct");
        double wc = sc__num(w, "cpu"), hc = sc__num(h, "cpu");
        /* the record rounds to 0.001 (sc_interference_json): equal, not near */
        if (!(wc == hc) || !(fabs(ws - hs) <= 0.0015)) {
            sc_diag_addf(problems,
                         "results.json: interference says cpu %g had %g%% foreign work, but "
                         "the raw records (interference.txt) give cpu %g at %g%%",
                         hc, hs, wc, ws);
            goto out;
        }
    }
out:
    json_object_put(truth);
    sc_interference_free(&rec);
}
