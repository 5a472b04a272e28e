/*
 * cmd_history.c: `streamcard history add|show|check|report` (doc/contracts/analysis.md, "History"):
 * the options every subcommand shares (the store, the filters), then the subcommand.
 */
#include "analysis.h"
#include "cli.h"
#include "history_cli.h"

#include "sc_changepoint.h"
#include "sc_text.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sc__history_usage(FILE *out)
{
    fprintf(
        out,
        "usage: streamcard history add [--db FILE] [--quiet] BUNDLE|DIR...\n"
        "       streamcard history show [--db FILE] [FILTERS] [--csv | --json]\n"
        "       streamcard history check [--db FILE] [FILTERS] [--alpha P] [--noise-bound PCT]\n"
        "                                [--no-record] [--all] [--junit FILE]\n"
        "       streamcard history report [--db FILE] [FILTERS] -o FILE\n"
        "\n"
        "A store of every verified bundle (SQLite): add refuses a bundle that verify does\n"
        "not find intact and adds each bundle once (by the digest of its SHA256SUMS); a\n"
        "bundle whose gates failed is kept with its verdict and gates, without figures.\n"
        "show prints the series of medians with their 95%% intervals; check finds where a\n"
        "series changed (Pettitt's rank test by binary segmentation), the ratio across the\n"
        "change with its interval and what differs between the bundles on its two sides;\n"
        "report writes a page of the series' trends with the change points marked.\n"
        "\n"
        "options:\n"
        "  --db FILE          the store (default: %s when you may\n"
        "                     write it, else $XDG_DATA_HOME/streamcard/history.db or\n"
        "                     ~/.local/share/streamcard/history.db)\n"
        "  --card NAME        one card (its run name)\n"
        "  --host HOST        one host\n"
        "  --metric NAME      one metric (streamcard compare --help lists them)\n"
        "  --var NAME=VALUE   bundles whose controlled variable NAME has VALUE (repeatable)\n"
        "  --node NODE        a node of link matrices (its median over its pairs)\n"
        "  --link NODE,NODE   a link of link matrices\n"
        "  --since T, --until T\n"
        "                     bundles that ended from or until T (YYYY-MM-DD,\n"
        "                     YYYY-MM-DDTHH:MM:SSZ or epoch seconds)\n"
        "  --csv, --json      show: CSV (every text quoted) or JSON instead of a table\n"
        "  --alpha P          check: the level of each change-point test (default %g)\n"
        "  --noise-bound PCT  check: a change within +-PCT %% is not confirmed (default %g)\n"
        "  --no-record        check: do not remember the changes reported (read only)\n"
        "  --all              check: print the changes reported before too\n"
        "  --junit FILE       check: a JUnit XML report, one test case per series\n"
        "  -o FILE            report: the page to write\n"
        "  --quiet            add: no line per bundle\n"
        "\n"
        "Exit status: add: 0 every bundle added or there already, 1 a bundle refused or\n"
        "unreadable; show, report: 0; check: 0 no new change point, 1 a new confirmed one,\n"
        "4 new suspect ones only; all: 2 usage, 3 the store cannot be used (foreign,\n"
        "corrupt, newer schema, unwritable).\n",
        SC_HISTORY_SITE_DB, SC_CHANGEPOINT_ALPHA, SC_STATS_NOISE_BOUND);
}

typedef struct sc__hopts {
    const char *db, *output, *junit;
    sc_history_filter f;
    sc_history_format fmt;
    double alpha, bound;
    bool record, all, quiet;
    char link[512];
} sc__hopts;

enum {
    SC__O_DB = 256,
    SC__O_CARD,
    SC__O_HOST,
    SC__O_METRIC,
    SC__O_VAR,
    SC__O_NODE,
    SC__O_LINK,
    SC__O_SINCE,
    SC__O_UNTIL,
    SC__O_CSV,
    SC__O_JSON,
    SC__O_ALPHA,
    SC__O_BOUND,
    SC__O_NOREC,
    SC__O_ALL,
    SC__O_JUNIT,
    SC__O_QUIET
};

static int sc__bad(const char *opt, const char *arg, const char *valid)
{
    char *shown = sc_text_escape_dup(arg ? arg : "", 200);
    fprintf(stderr, "streamcard: history: %s %s: not valid (valid: %s)\n", opt, shown ? shown : "?",
            valid);
    free(shown);
    return SC_EXIT_USAGE;
}

/* One option into o: SC_ANALYSIS_GO_ON, or the exit status. */
static int sc__option(sc__hopts *o, int c, char *arg)
{
    char *end;

    switch (c) {
    case SC__O_DB:
        o->db = arg;
        break;
    case SC__O_CARD:
        o->f.card = arg;
        break;
    case SC__O_HOST:
        o->f.host = arg;
        break;
    case SC__O_METRIC: {
        sc_metric m;
        if (sc_metric_lookup(arg, &m) < 0)
            return sc__bad("--metric", arg, "a metric name, see streamcard compare --help");
        o->f.metric = strdup(m.name); /* canonical: bw_1048576B is bw_1MiB */
        break;
    }
    case SC__O_VAR:
        if (!strchr(arg, '=') || *arg == '=' || o->f.n_vars == SC_HISTORY_MAX_VARS)
            return sc__bad("--var", arg, "NAME=VALUE, at most 16");
        o->f.vars[o->f.n_vars++] = arg;
        break;
    case SC__O_NODE:
        o->f.node_a = arg;
        o->f.node_b = NULL;
        break;
    case SC__O_LINK: {
        snprintf(o->link, sizeof(o->link), "%s", arg);
        char *comma = strchr(o->link, ',');
        if (!comma || comma == o->link || !comma[1])
            return sc__bad("--link", arg, "NODE,NODE");
        *comma = '\0';
        /* stored with the nodes in the matrix's order: try both when querying is costly, so
           the smaller name first as the matrix usually lists them */
        o->f.node_a = o->link;
        o->f.node_b = comma + 1;
        break;
    }
    case SC__O_SINCE:
    case SC__O_UNTIL:
        if (!sc_history_parse_time(arg, c == SC__O_SINCE ? &o->f.since : &o->f.until))
            return sc__bad(c == SC__O_SINCE ? "--since" : "--until", arg,
                           "YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ or epoch seconds");
        break;
    case SC__O_CSV:
        o->fmt = SC_HISTORY_CSV;
        break;
    case SC__O_JSON:
        o->fmt = SC_HISTORY_JSON;
        break;
    case SC__O_ALPHA:
        o->alpha = strtod(arg, &end);
        if (*end || !(o->alpha > 0 && o->alpha < 0.5))
            return sc__bad("--alpha", arg, "0 < P < 0.5, e.g. 0.001");
        break;
    case SC__O_BOUND:
        if (!sc_analysis_bound_ok("history", arg, &o->bound))
            return SC_EXIT_USAGE;
        break;
    case SC__O_NOREC:
        o->record = false;
        break;
    case SC__O_ALL:
        o->all = true;
        break;
    case SC__O_JUNIT:
        o->junit = arg;
        break;
    case 'o':
        o->output = arg;
        break;
    case SC__O_QUIET:
        o->quiet = true;
        break;
    default:
        return SC_EXIT_USAGE;
    }
    return SC_ANALYSIS_GO_ON;
}

static int sc__parse(int argc, char **argv, sc__hopts *o)
{
    static const struct option opts[] = {{"db", required_argument, NULL, SC__O_DB},
                                         {"card", required_argument, NULL, SC__O_CARD},
                                         {"host", required_argument, NULL, SC__O_HOST},
                                         {"metric", required_argument, NULL, SC__O_METRIC},
                                         {"var", required_argument, NULL, SC__O_VAR},
                                         {"node", required_argument, NULL, SC__O_NODE},
                                         {"link", required_argument, NULL, SC__O_LINK},
                                         {"since", required_argument, NULL, SC__O_SINCE},
                                         {"until", required_argument, NULL, SC__O_UNTIL},
                                         {"csv", no_argument, NULL, SC__O_CSV},
                                         {"json", no_argument, NULL, SC__O_JSON},
                                         {"alpha", required_argument, NULL, SC__O_ALPHA},
                                         {"noise-bound", required_argument, NULL, SC__O_BOUND},
                                         {"no-record", no_argument, NULL, SC__O_NOREC},
                                         {"all", no_argument, NULL, SC__O_ALL},
                                         {"junit", required_argument, NULL, SC__O_JUNIT},
                                         {"output", required_argument, NULL, 'o'},
                                         {"quiet", no_argument, NULL, SC__O_QUIET},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        if (c == 'h') {
            sc__history_usage(stdout);
            return SC_EXIT_OK;
        }
        if (c == ':' || c == '?') {
            char *shown = sc_text_escape_dup(argv[optind - 1], 200);
            fprintf(stderr, "streamcard: history: %s: %s (see streamcard history --help)\n",
                    shown ? shown : "?", c == ':' ? "needs a value" : "unknown option");
            free(shown);
            return SC_EXIT_USAGE;
        }
        int rc = sc__option(o, c, optarg);
        if (rc != SC_ANALYSIS_GO_ON)
            return rc;
    }
    return SC_ANALYSIS_GO_ON;
}

int sc_cmd_history(int argc, char **argv)
{
    sc__hopts o = {.f = {.since = -1, .until = -1},
                   .alpha = SC_CHANGEPOINT_ALPHA,
                   .bound = SC_STATS_NOISE_BOUND,
                   .record = true};
    char path[PATH_MAX], why[1024];
    const char *sub = argc > 1 ? argv[1] : "";
    sc_history *h = NULL;
    int status;

    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        sc__history_usage(stdout);
        return SC_EXIT_OK;
    }
    bool add = !strcmp(sub, "add"), show = !strcmp(sub, "show"), check = !strcmp(sub, "check"),
         report = !strcmp(sub, "report");
    if (!add && !show && !check && !report) {
        char *shown = sc_text_escape_dup(sub, 200);
        fprintf(stderr,
                "streamcard: history: %s: unknown subcommand (valid: add, show, check, "
                "report; see streamcard history --help)\n",
                shown ? shown : "?");
        free(shown);
        return SC_EXIT_USAGE;
    }
    if ((status = sc__parse(argc - 1, argv + 1, &o)) != SC_ANALYSIS_GO_ON)
        goto out;
    int rest = argc - 1 - optind;
    if ((add && rest == 0) || (!add && rest > 0) || (report && !o.output)) {
        fprintf(stderr, "streamcard: history %s: %s (see streamcard history --help)\n", sub,
                add                   ? "needs bundles or folders of them"
                : report && !o.output ? "needs -o FILE"
                                      : "takes no bundle: filters only");
        status = SC_EXIT_USAGE;
        goto out;
    }
    if (!o.db) {
        if (sc_history_default_path(path, sizeof(path)) < 0) {
            fprintf(stderr, "streamcard: history: no store: HOME is not set (valid: --db FILE)\n");
            status = SC_EXIT_USAGE;
            goto out;
        }
        o.db = path;
    }
    bool write = add || (check && o.record);
    if (sc_history_open(o.db, write, add, &h, why, sizeof(why)) < 0) {
        fprintf(stderr, "streamcard: history %s: %s\n", sub, why);
        status = SC_EXIT_ERROR;
        goto out;
    }
    if (add) {
        size_t counts[3] = {0};
        sc_history_add_opts ao = {.db = o.db, .quiet = o.quiet, .counts = counts};
        status = sc_history_add(h, argv + 1 + optind, (size_t)rest, &ao);
        fprintf(stderr, "streamcard: history add: %s: %zu added, %zu there already, %zu refused\n",
                o.db, counts[0], counts[1], counts[2]);
    } else {
        sc_history_set set;
        if (sc_history_query(h, &o.f, &set, why, sizeof(why)) < 0) {
            fprintf(stderr, "streamcard: history %s: %s: %s\n", sub, o.db, why);
            sc_history_close(h);
            status = SC_EXIT_ERROR;
            goto out;
        }
        if (set.n == 0)
            fprintf(stderr, "streamcard: history %s: %s: no series matches\n", sub, o.db);
        sc_history_check_opts co = {.alpha = o.alpha,
                                    .bound_pct = o.bound,
                                    .record = o.record,
                                    .junit = o.junit,
                                    .all = o.all};
        if (show)
            status = sc_history_show(&set, o.fmt, stdout);
        else if (check)
            status = sc_history_check(h, &set, &co);
        else
            status = sc_history_report(h, &set, &co, o.output);
        sc_history_set_free(&set);
    }
    sc_history_close(h);
out:
    free((char *)o.f.metric);
    return status;
}
