/* verify_reps.c: results.json's per-repetition times against the log (sc_verify_reps.h). */
#include "sc_verify_reps.h"
#include "sc_num.h"
#include "sc_results_protocol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* What the log printed of one list: fastest, average, slowest, and the digit they show. */
typedef struct sc__shown {
    double min_s, avg_s, max_s, unit;
} sc__shown;

static void sc__check_list(json_object *list, const char *name, const sc__shown *shown,
                           long iterations, sc_diag *problems)
{
    size_t n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    double min = 0, max = 0, sum = 0;

    if ((long)n != iterations) {
        sc_diag_addf(problems,
                     "results.json: rep_seconds.%s has %zu repetitions, but the card "
                     "ran %ld",
                     name, n, iterations);
        return;
    }
    for (size_t i = 1; i < n; i++) { /* repetition 0, the warm-up, is not counted */
        double t = NAN;              /* not a figure (sc_num.h): shown by no log */
        sc_num_json(json_object_array_get_idx(list, i), &t);
        min = i == 1 || t < min ? t : min;
        max = i == 1 || t > max ? t : max;
        sum += t;
    }
    double avg = n > 1 ? sum / (double)(n - 1) : 0;
    if (!sc_tracelog_shows(min, shown->min_s, shown->unit) ||
        !sc_tracelog_shows(avg, shown->avg_s, shown->unit) ||
        !sc_tracelog_shows(max, shown->max_s, shown->unit))
        sc_diag_addf(problems,
                     "results.json: rep_seconds.%s gives min %.9g, avg %.9g, max %.9g "
                     "s, but stream.log shows %.9g, %.9g, %.9g",
                     name, min, avg, max, shown->min_s, shown->avg_s, shown->max_s);
}

void sc_verify_reps(json_object *metrics, const sc_tracelog *t, const sc_card *card,
                    sc_diag *problems)
{
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
    json_object *reps;

    if (!metrics || !json_object_object_get_ex(metrics, SC_RESULT_REP_SECONDS, &reps) ||
        !json_object_is_type(reps, json_type_object))
        return;
    json_object_object_foreach(reps, name, list)
    {
        sc__shown shown = {0, 0, 0, 0};
        double times[4];
        if (ops && ops->rep_times && ops->rep_times(t, name, times))
            shown = (sc__shown){times[0], times[1], times[2], times[3]};
        if (shown.unit == 0)
            sc_diag_addf(problems,
                         "results.json: rep_seconds.%s, but stream.log shows no "
                         "times for %s",
                         name, name);
        else
            sc__check_list(list, name, &shown, card->iterations, problems);
    }
}
