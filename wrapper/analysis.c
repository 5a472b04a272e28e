/* analysis.c: what the analysis commands share (see analysis.h). */
#include "analysis.h"
#include "cli.h"
#include "sc_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sc_analysis_load(sc_analysis_bundle *ab, const char *path)
{
    memset(ab, 0, sizeof(*ab));
    /* A path a user named (a glob over users' directories): shown, never printed raw. */
    sc_text_escape(ab->arg_shown, sizeof(ab->arg_shown), path, strlen(path));
    ab->arg = ab->arg_shown;
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

/* The options: SC_ANALYSIS_GO_ON, or the exit status to stop with. */
static int sc__options(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx)
{
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, cmd->short_opts, cmd->long_opts, NULL)) != -1) {
        if (c == 'h') {
            cmd->usage(stdout);
            return SC_EXIT_OK;
        }
        if (c == ':' || c == '?') {
            fprintf(stderr, "streamcard: %s: %s: %s (see streamcard %s --help)\n", cmd->name,
                    argv[optind - 1], c == ':' ? "needs a value" : "unknown option", cmd->name);
            return cmd->usage_status;
        }
        int rc = cmd->option(ctx, c, optarg);
        if (rc != SC_ANALYSIS_GO_ON)
            return rc;
    }
    return cmd->check(ctx, (size_t)(argc - optind));
}

bool sc_analysis_options(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx, int *first,
                         int *status)
{
    *status = sc__options(cmd, argc, argv, ctx);
    if (*status != SC_ANALYSIS_GO_ON)
        return false;
    *first = optind;
    *status = SC_EXIT_OK;
    return true;
}

void sc_analysis_load_named(const sc_analysis_cmd *cmd, sc_analysis_bundle *ab, const char *path,
                            int *status)
{
    if (sc_analysis_load(ab, path) < 0) {
        if (!cmd->unreadable_hint)
            return;
        fprintf(stderr, "streamcard: %s: %s: %s%s\n", cmd->name, ab->arg, ab->why,
                cmd->unreadable_hint);
        *status = cmd->unreadable_status;
    } else if (!ab->usable && cmd->refused_hint) {
        fprintf(stderr, "streamcard: %s: %s: refused: %s%s\n", cmd->name, ab->arg, ab->why,
                cmd->refused_hint);
        if (*status == SC_EXIT_OK)
            *status = SC_EXIT_FAILED;
    }
}

bool sc_analysis_begin(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx,
                       sc_analysis_set *set, int *status)
{
    int first;

    set->b = NULL;
    set->n = 0;
    if (!sc_analysis_options(cmd, argc, argv, ctx, &first, status))
        return false;
    size_t n = (size_t)(argc - first);
    set->b = calloc(n ? n : 1, sizeof(*set->b));
    if (!set->b) {
        *status = SC_EXIT_ERROR;
        return false;
    }
    set->n = n;
    for (size_t i = 0; i < n; i++)
        sc_analysis_load_named(cmd, &set->b[i], argv[first + (int)i], status);
    return true;
}

void sc_analysis_set_free(sc_analysis_set *set)
{
    for (size_t i = 0; set->b && i < set->n; i++)
        sc_analysis_free(&set->b[i]);
    free(set->b);
    set->b = NULL;
    set->n = 0;
}

size_t sc_analysis_differences(const sc_bundle_facts *a, const sc_bundle_facts *b,
                               size_t idx[SC_FACTS_MAX_VARS])
{
    size_t all[SC_FACTS_MAX_VARS], n = 0, nall = sc_facts_diff(a, b, all);

    for (size_t i = 0; i < nall; i++)
        if (!sc_facts_follows(a, b, all[i]))
            idx[n++] = all[i];
    return n;
}

void sc_analysis_difference(const sc_bundle_facts *a, const sc_bundle_facts *b, size_t i, char *buf,
                            size_t len)
{
    char names[400];

    if (strcmp(a->vars[i].name, "env") == 0 && sc_facts_env_diff(a, b, names, sizeof(names)))
        snprintf(buf, len, "env (%s)", names);
    else
        snprintf(buf, len, "%s", a->vars[i].name);
}

size_t sc_analysis_metrics(const sc_bundle_facts *f, const char *name, sc_metric *out, size_t max)
{
    size_t n = 0;

    if (name)
        return max && sc_metric_lookup(name, out) == 0 ? 1 : 0;
    for (; n < f->n_metrics && n < max; n++)
        out[n] = f->metrics[n];
    return n;
}

bool sc_analysis_metric_ok(const char *cmd, const char *name)
{
    sc_metric m;

    if (!name || sc_metric_lookup(name, &m) == 0)
        return true;
    fprintf(stderr,
            "streamcard: %s: --metric %s: not a metric (valid: copy, scale, add, triad, qps, "
            "thread_seconds, latency_<size>, bw_<size> with a size like 8B, 64KiB, 1MiB)\n",
            cmd, name);
    return false;
}

void sc_analysis_print_metrics(FILE *out)
{
    const char *unit, *better, *workload, *name;

    for (size_t i = 0; (name = sc_metric_family(i, &unit, &better, &workload, NULL)); i++)
        fprintf(out, "  %-16s %-10s %-7s %s\n", name, unit, better, workload);
}

void sc_analysis_print_variables(FILE *out)
{
    const char *group, *source, *name;

    fprintf(out, "%-22s %-9s %s\n", "variable", "group", "read from");
    for (size_t i = 0; (name = sc_facts_var(i, &group, &source)); i++)
        fprintf(out, "%-22s %-9s %s\n", name, group, source);
}
