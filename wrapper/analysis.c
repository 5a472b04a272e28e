/* analysis.c: what the analysis commands share (see analysis.h). */
#include "analysis.h"

#include <errno.h>
#include <string.h>

int sc_analysis_load(sc_analysis_bundle *ab, const char *path)
{
    memset(ab, 0, sizeof(*ab));
    ab->arg = path;
    ab->open_rc = sc_verify_bundle(path, &ab->verify);
    if (ab->open_rc < 0) {
        snprintf(ab->why, sizeof(ab->why), "cannot open the bundle: %s", strerror(-ab->open_rc));
        return ab->open_rc;
    }
    ab->usable = sc_verify_usable(&ab->verify);
    if (!ab->usable)
        sc_verify_why(&ab->verify, ab->why, sizeof(ab->why));
    int rc = sc_facts_load(path, &ab->facts);
    if (rc < 0) {
        ab->open_rc = rc;
        snprintf(ab->why, sizeof(ab->why), "cannot read the bundle: %s", strerror(-rc));
        ab->usable = false;
        return rc;
    }
    ab->loaded = true;
    return 0;
}

void sc_analysis_free(sc_analysis_bundle *ab)
{
    if (!ab)
        return;
    sc_verify_report_free(&ab->verify);
    if (ab->loaded)
        sc_facts_free(&ab->facts);
    ab->loaded = false;
}

double sc_analysis_change(double base, double value)
{
    return base > 0 ? 100.0 * (value - base) / base : 0;
}

void sc_analysis_print_variables(FILE *out)
{
    const char *group, *source, *name;

    fprintf(out, "%-22s %-9s %s\n", "variable", "group", "read from");
    for (size_t i = 0; (name = sc_facts_var(i, &group, &source)); i++)
        fprintf(out, "%-22s %-9s %s\n", name, group, source);
}
