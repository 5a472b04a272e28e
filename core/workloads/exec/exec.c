/*
 * exec.c: any program the card names (command: [path, args...]), run without a shell under
 * the card's CPUs, memory node and environment. It prints no trace lines: the whole process
 * is its main loop, and the bundle says the capture is less precise (doc/contracts/layout.md,
 * "Workloads as modules"). With ranks: it is an MPI program, started as mpi-pingpong is
 * (doc/contracts/layout.md, "MPI programs under exec").
 */
#include "exec_figures.h"
#include "sc_card_schema.h"
#include "sc_file.h"
#include "sc_hostlist.h"
#include "sc_metric_def.h"
#include "sc_num.h"
#include "sc_results_protocol.h"
#include "sc_trace_protocol.h"
#include "sc_workload.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sc_card_field sc__keys[] = {
    SC_CF_COMMAND,     SC_CF_METRICS,          SC_CF_VALIDATE_PATTERN, SC_CF_BEGIN_PATTERN,
    SC_CF_END_PATTERN, SC_CF_MARKERS,          SC_CF_MEMORY_NODE,      SC_CF_BLAS,
    SC_CF_RANKS,       SC_CF_EXPECT_TRANSPORT, SC_CF_EXPECT_INTERFACE};

/* ranks: an MPI program, started by the launcher of mpi-pingpong (doc/contracts/layout.md,
   "MPI programs under exec"). */
static bool sc__mpi(const sc_card *card)
{
    return card->present[SC_CF_RANKS] && card->ranks > 0;
}

/* An MPI program's ranks run one thread each unless the card says otherwise. */
static int sc__defaults(sc_card *card)
{
    if (sc__mpi(card) && !card->present[SC_CF_THREADS])
        card->threads = 1;
    return 0;
}

/* The card's nodes: the hosts of nodes:, at least one (the local host without it). */
static long sc__nodes(const sc_card *card)
{
    long nodes = card->nodes ? (long)sc_hostlist_count(card->nodes) : 1;

    return nodes > 0 ? nodes : 1;
}

/* Its ranks over the card's nodes (one task without ranks:). */
static void sc__tasks(const sc_card *card, sc_card_tasks *t)
{
    if (!sc__mpi(card))
        return;
    t->ntasks = card->ranks;
    t->nodes = sc__nodes(card);
    t->per_node = (t->ntasks + t->nodes - 1) / t->nodes;
}

/* The expect: keys that judge how the ranks' data went, and their names in messages. */
static const struct {
    sc_card_field f;
    const char *name;
} sc__expect_mpi[] = {{SC_CF_EXPECT_TRANSPORT, "transport"}, {SC_CF_EXPECT_INTERFACE, "interface"}};

/*
 * ranks: one rank per CPU of cpu_list on each node (the launcher binds rank i to its i-th
 * CPU), one rank as legitimate as more; memory_node is not for ranks (as mpi-pingpong);
 * expect: transport and expect: interface need two ranks or more (one rank sends nothing to
 * another), and are for an MPI program only (the probe counts the ranks' bytes).
 */
static void sc__check_ranks(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];
    long cpus = card->cpus ? hwloc_bitmap_weight(card->cpus) : 0;
    long nodes = sc__nodes(card);

    for (size_t i = 0; i < sizeof(sc__expect_mpi) / sizeof(sc__expect_mpi[0]); i++) {
        sc_card_field f = sc__expect_mpi[i].f;
        if (!card->present[f] || card->invalid[f])
            continue;
        if (!sc__mpi(card))
            sc_diag_addf(diag,
                         "%s: expect: %s: only for an MPI program (valid: ranks: 2 or more, or no "
                         "expect: %s)",
                         sc__card_where(card, f, where, sizeof(where)), sc__expect_mpi[i].name,
                         sc__expect_mpi[i].name);
        else if (!card->invalid[SC_CF_RANKS] && card->ranks < 2)
            sc_diag_addf(diag,
                         "%s: expect: %s: ranks: %ld sends nothing between ranks (valid: ranks: 2 "
                         "or more, or no expect: %s)",
                         sc__card_where(card, f, where, sizeof(where)), sc__expect_mpi[i].name,
                         card->ranks, sc__expect_mpi[i].name);
        else
            continue;
        (*errors)++;
    }
    if (!sc__mpi(card))
        return;
    long per_node = (card->ranks + nodes - 1) / nodes;
    if (card->cpus && !card->invalid[SC_CF_RANKS] && per_node > cpus) {
        sc_diag_addf(diag,
                     "%s: ranks: %ld ranks are more than the %ld CPU(s) of cpu_list %s%s (valid: "
                     "at most %ld ranks, one per CPU, or a longer cpu_list)",
                     sc__card_where(card, SC_CF_RANKS, where, sizeof(where)), card->ranks, cpus,
                     card->cpu_list, nodes > 1 ? " on each node" : "", cpus * nodes);
        (*errors)++;
    }
    if (card->present[SC_CF_MEMORY_NODE] && !card->invalid[SC_CF_MEMORY_NODE]) {
        sc_diag_addf(diag,
                     "%s: memory_node: not for MPI ranks (valid: no memory_node with ranks:, or "
                     "no ranks:)",
                     sc__card_where(card, SC_CF_MEMORY_NODE, where, sizeof(where)));
        (*errors)++;
    }
}

/* The program's name without its directory, for messages and the run name. */
static const char *sc__base(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* metrics: each a name given once, a pattern with one capture group or from: marker; one
   primary at most. */
static void sc__check_metrics(const sc_card *card, sc_diag *diag, int *errors)
{
    char why[256];
    const char *where = card->source_name;
    int primaries = 0;

    if (card->n_metrics > SC_CARD_MAX_METRICS) {
        sc_diag_addf(diag, "%s: metrics: %zu metrics (valid: at most %d)", where, card->n_metrics,
                     SC_CARD_MAX_METRICS);
        (*errors)++;
    }
    for (size_t i = 0; i < card->n_metrics; i++) {
        const sc_card_metric *m = &card->metrics[i];
        if (!m->name || (!m->pattern && !m->from_marker) || !m->unit)
            continue; /* said where it was read */
        primaries += m->primary;
        if (!sc__card_is_name(m->name)) {
            sc_diag_addf(diag,
                         "%s:%d: metrics: \"%s\" is not a valid name (valid: letters, digits, "
                         "'.', '_', '-', ':', at most 100, not starting with '.' or '-')",
                         where, m->line, m->name);
            (*errors)++;
        }
        if (strlen(m->name) >= SC_METRIC_NAME_MAX || strlen(m->unit) >= SC_METRIC_UNIT_MAX) {
            sc_diag_addf(diag,
                         "%s:%d: metrics: %s: %s longer than %d bytes (valid: a name of at most "
                         "%d, a unit of at most %d)",
                         where, m->line, m->name,
                         strlen(m->name) >= SC_METRIC_NAME_MAX ? "its name is" : "its unit is",
                         strlen(m->name) >= SC_METRIC_NAME_MAX ? SC_METRIC_NAME_MAX - 1
                                                               : SC_METRIC_UNIT_MAX - 1,
                         SC_METRIC_NAME_MAX - 1, SC_METRIC_UNIT_MAX - 1);
            (*errors)++;
        }
        for (size_t j = 0; j < i; j++)
            if (card->metrics[j].name && !strcmp(card->metrics[j].name, m->name)) {
                sc_diag_addf(diag, "%s:%d: metrics: %s is declared twice (first on line %d)", where,
                             m->line, m->name, card->metrics[j].line);
                (*errors)++;
            }
        if (m->pattern && sc_exec_pattern_check(m->pattern, 1, why, sizeof(why)) < 0) {
            sc_diag_addf(diag,
                         "%s:%d: metrics: %s: pattern \"%s\": %s (valid: a POSIX extended regex "
                         "with one capture group, the figure)",
                         where, m->line, m->name, m->pattern, why);
            (*errors)++;
        }
    }
    if (primaries > 1) {
        sc_diag_addf(diag, "%s: metrics: %d are primary: true (valid: at most one)", where,
                     primaries);
        (*errors)++;
    }
}

/* markers: library and none take no begin_pattern; patterns needs them. */
static void sc__check_markers(const sc_card *card, sc_diag *diag, int *errors)
{
    char at[512];

    if (!card->markers || card->invalid[SC_CF_MARKERS] || card->from_record)
        return; /* a record carries no patterns: the child checked them with markers */
    bool patterns = !strcmp(card->markers, "patterns");
    if (patterns == !!card->begin_pattern)
        return;
    sc__card_where(card, SC_CF_MARKERS, at, sizeof(at));
    if (patterns)
        sc_diag_addf(diag,
                     "%s: markers: patterns without begin_pattern and end_pattern (valid: both "
                     "given, or markers: library | none)",
                     at);
    else
        sc_diag_addf(diag,
                     "%s: markers: %s with begin_pattern (valid: markers: patterns with the "
                     "patterns, or %s without them)",
                     at, card->markers, card->markers);
    (*errors)++;
}

/* validate_pattern, begin_pattern and end_pattern: bounded regexes; the phases' two together. */
static void sc__check_patterns(const sc_card *card, sc_diag *diag, int *errors)
{
    static const sc_card_field fields[] = {SC_CF_VALIDATE_PATTERN, SC_CF_BEGIN_PATTERN,
                                           SC_CF_END_PATTERN};
    const char *const patterns[] = {card->validate_pattern, card->begin_pattern, card->end_pattern};
    char why[256], at[512];

    for (size_t i = 0; i < 3; i++)
        if (patterns[i] && !card->invalid[fields[i]] &&
            sc_exec_pattern_check(patterns[i], -1, why, sizeof(why)) < 0) {
            sc_diag_addf(diag, "%s: %s: \"%s\": %s (valid: a POSIX extended regex)",
                         sc__card_where(card, fields[i], at, sizeof(at)),
                         sc_card_field_name(fields[i]), patterns[i], why);
            (*errors)++;
        }
    if (!card->begin_pattern != !card->end_pattern) {
        sc_diag_addf(diag,
                     "%s: %s without %s (valid: both, the program's lines that begin and end its "
                     "main loop, or neither: the whole process)",
                     sc__card_where(card,
                                    card->begin_pattern ? SC_CF_BEGIN_PATTERN : SC_CF_END_PATTERN,
                                    at, sizeof(at)),
                     card->begin_pattern ? "begin_pattern" : "end_pattern",
                     card->begin_pattern ? "end_pattern" : "begin_pattern");
        (*errors)++;
    }
    sc__check_markers(card, diag, errors);
}

/* command: given, its program named (not empty), by an absolute path or a bare name. */
static void sc__check(const sc_card *card, sc_diag *diag, int *errors)
{
    char where[512];
    const char *prog = card->n_command ? card->command[0] : NULL;

    sc__check_metrics(card, diag, errors);
    sc__check_patterns(card, diag, errors);
    sc__check_ranks(card, diag, errors);
    sc__card_where(card, SC_CF_COMMAND, where, sizeof(where));
    if (card->invalid[SC_CF_COMMAND] || (!prog && card->from_record))
        return; /* a record carries no command: the child checked it */
    if (!prog) {
        sc_diag_addf(diag,
                     "%s: command: missing (valid: a list, the program then its arguments: "
                     "[/usr/bin/dd, if=/dev/zero, of=/dev/null])",
                     where);
        (*errors)++;
    } else if (!*prog) {
        sc_diag_addf(diag,
                     "%s: command: the program is empty (valid: an absolute path, or a name found "
                     "on PATH)",
                     where);
        (*errors)++;
    } else if (prog[0] != '/' && strchr(prog, '/')) {
        sc_diag_addf(diag,
                     "%s: command: \"%s\" is a relative path (valid: an absolute path, or a name "
                     "found on PATH such as \"%s\")",
                     where, prog, sc__base(prog));
        (*errors)++;
    }
}

/* "exec_<program>_<threads>thread", the program's name kept to the characters of a name. */
static void sc__layout_name(const sc_card *card, char *buf, size_t len)
{
    char prog[41] = "program";

    if (card->n_command && *sc__base(card->command[0]))
        snprintf(prog, sizeof(prog), "%s", sc__base(card->command[0]));
    sc__card_name_sanitize(prog);
    if (sc__mpi(card))
        snprintf(buf, len, "exec_%s_%ldrank", prog, card->ranks);
    else
        snprintf(buf, len, "exec_%s_%ldthread", prog, card->threads);
}

/* The program's arguments, as the card lists them. */
static void sc__args(const sc_card *card, sc_strv *argv)
{
    for (size_t i = 1; i < card->n_command; i++)
        sc_strv_addf(argv, "%s", card->command[i]);
}

static void sc__describe(const sc_card *card, FILE *out)
{
    sc_markers markers = sc_exec_markers(card);

    fprintf(out, "  capture:     %s\n",
            markers == SC_MARKERS_LIBRARY ? "the program's sc_marker_begin and sc_marker_end "
                                            "(streamcard/marker.h) bound the main loop"
            : markers == SC_MARKERS_PATTERNS
                ? "the program's lines matching begin_pattern and end_pattern bound the main loop"
                : "no phase markers: the whole process is the main loop (less precise)");
    if (card->n_metrics || card->validate_pattern)
        fprintf(out, "  figures:     %zu metric(s) by pattern from the log%s\n", card->n_metrics,
                card->validate_pattern ? ", validate_pattern" : "");
}

/* The card's program as an absolute path: as given, or the first on PATH with that name. */
static int sc__program_path(const sc_card *card, char **path, sc_diag *diag)
{
    const char *prog = card->n_command ? card->command[0] : "";

    *path = NULL;
    if (prog[0] == '/') {
        int rc = sc_file_is_program(prog);
        if (rc == 0)
            return (*path = strdup(prog)) ? 0 : -ENOMEM;
        sc_diag_addf(diag, "command: %s: %s (valid: an executable regular file)", prog,
                     rc == -EACCES ? "not an executable regular file" : strerror(-rc));
        return -ENOENT;
    }
    if (*prog && !strchr(prog, '/') && (*path = sc_file_which(prog)))
        return 0;
    if (errno == ENOMEM)
        return -ENOMEM;
    sc_diag_addf(diag,
                 "command: \"%s\" is not an executable file in any absolute directory of PATH "
                 "(valid: an absolute path, or a name found on PATH)",
                 prog);
    return -ENOENT;
}

/* The program's results: the figures its log shows by the card's patterns. */
static char *sc__results_of_log(const sc_card *card, const char *log)
{
    json_object *root = json_object_new_object(), *metrics = json_object_new_object();
    char why[512], *text = NULL;

    if (root && metrics &&
        sc_exec_figures(card, log ? log : "", metrics, why, sizeof(why)) != -ENOMEM &&
        json_object_object_add(root, SC_RESULT_METRICS, json_object_get(metrics)) == 0)
        text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN));
    json_object_put(metrics);
    json_object_put(root);
    return text;
}

/* The gate's words for figures of the program its card does not declare (doc/markers.md). */
static const char *sc__undeclared_note(const sc_card *card, json_object *metrics)
{
    size_t declared = 0;

    for (size_t i = 0; i < card->n_metrics; i++)
        declared += card->metrics[i].name &&
                    json_object_object_get_ex(metrics, card->metrics[i].name, NULL);
    return (size_t)json_object_object_length(metrics) > declared
               ? "; some not declared in the card (no direction: shown, not judged)"
               : "";
}

/* Its figures, each from exactly one line, and validate_pattern: the program's own check. */
static void sc__validate(const sc_card *card, const char *log, sc_gate *g)
{
    json_object *metrics = json_object_new_object();
    char why[512];
    long at = 0;

    if (!metrics || sc_exec_figures(card, log, metrics, why, sizeof(why)) < 0)
        sc_gate_set(g, SC_GATE_FAIL, "%s", metrics ? why : "out of memory");
    else if (card->validate_pattern &&
             (at = sc_exec_match_after(log, card->validate_pattern, 0)) <= 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "no line of the log matches validate_pattern \"%s\" (the program's own check)",
                    card->validate_pattern);
    else if (card->validate_pattern || json_object_object_length(metrics))
        sc_gate_set(g, SC_GATE_OK,
                    "%d figure(s), each read from one line of the log (card patterns and "
                    "sc_marker_figure)%s%s; no failed validation, NaN or Inf in the log",
                    json_object_object_length(metrics), sc__undeclared_note(card, metrics),
                    at ? "; validate_pattern matched" : "");
    json_object_put(metrics);
}

/* The marker library's phase lines (streamcard/marker.h), as whole lines of the log. */
static void sc__library_phases(const char *log, sc_gate *g)
{
    long begin = sc_exec_match_after(log, "^" SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN "$", 0);
    long end = begin > 0
                   ? sc_exec_match_after(log, "^" SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END "$", begin)
                   : 0;

    if (begin <= 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "markers: library, but the log has no " SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN
                    " line: the program never called sc_marker_begin(\"main_loop\") (or was "
                    "not built with the marker library)");
    else if (end <= 0)
        sc_gate_set(g, SC_GATE_FAIL,
                    "sc_marker_begin at log line %ld, but no " SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END
                    " after it: the main loop did not finish",
                    begin);
    else
        sc_gate_set(g, SC_GATE_OK,
                    "sc_marker_begin at log line %ld, sc_marker_end at log line %ld (the marker "
                    "library's lines)",
                    begin, end);
}

/* The gate's note from the log: the marker library's lines, the patterns' lines, or none. */
static void sc__phases_of_log(const sc_card *card, const char *log, sc_gate *g)
{
    long begin, end;

    if (sc_exec_markers(card) == SC_MARKERS_LIBRARY) {
        sc__library_phases(log, g);
    } else if (!card->begin_pattern || !card->end_pattern) {
        sc_gate_set(g, SC_GATE_OK,
                    "no phase markers: the whole process is the main loop, from its start to its "
                    "end (the capture is less precise)");
    } else if ((begin = sc_exec_match_after(log, card->begin_pattern, 0)) <= 0) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "no line of the log matches begin_pattern \"%s\": the main loop did not begin",
                    card->begin_pattern);
    } else if ((end = sc_exec_match_after(log, card->end_pattern, begin)) <= 0) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "begin_pattern at log line %ld, but no line after it matches end_pattern "
                    "\"%s\": the main loop did not finish",
                    begin, card->end_pattern);
    } else {
        sc_gate_set(g, SC_GATE_OK,
                    "begin_pattern at log line %ld, end_pattern at log line %ld (the program's "
                    "own lines as its markers)",
                    begin, end);
    }
}

/*
 * An MPI program's ranks: what bounded each one's interference window (their
 * SC_TRACE_RANK_WINDOW lines), counted after the gate's note; nothing without such lines. A
 * program marked by patterns: the ranks' samplers' windows, which the interference gate
 * replaces by the observer's on its host (its note says so).
 */
static void sc__rank_windows(const sc_card *card, const char *log, sc_gate *g)
{
    static const char *const spans[] = {SC_TRACE_SPAN_MAIN_LOOP, SC_TRACE_SPAN_MPI,
                                        SC_TRACE_SPAN_BEGIN_TO_FINALIZE};
    const char *const words[] = {
        "its main loop's markers",
        sc_exec_markers(card) == SC_MARKERS_PATTERNS /* sc_workload_observer_window */
            ? "MPI_Init to MPI_Finalize (their samplers'; the interference gate's note says "
              "which windows it judged)"
            : "MPI_Init to MPI_Finalize (no markers)",
        "sc_marker_begin to MPI_Finalize (no sc_marker_end)"};
    size_t counts[3] = {0}, all = 0, used = strlen(g->note);
    char span[48];

    for (const char *p = log; (p = strstr(p, SC_TRACE_TAG_RANK_WINDOW)); p++)
        if ((p == log || p[-1] == '\n') &&
            sscanf(p, SC_TRACE_RANK_WINDOW("%*d", "%47s", "%*d", "%*d", "%*d", "%*d"), span) == 1)
            for (size_t i = 0; i < 3; i++)
                if (!strcmp(span, spans[i])) {
                    counts[i]++;
                    all++;
                }
    if (!all)
        return;
    used += (size_t)snprintf(g->note + used, sizeof(g->note) - used,
                             "; the ranks' interference windows:");
    for (size_t i = 0; i < 3 && used < sizeof(g->note); i++)
        if (counts[i]) {
            all -= counts[i];
            used += (size_t)snprintf(g->note + used, sizeof(g->note) - used, " %zu from %s%s",
                                     counts[i], words[i], all ? "," : "");
        }
}

/* Its phases, once its snapshot was taken: the marker library's lines, the lines its
   patterns match, or without them the whole process; an MPI program's, the ranks' windows. */
static void sc__phases(const sc_card *card, const char *log, sc_gate *g)
{
    sc__phases_of_log(card, log, g);
    if (sc__mpi(card))
        sc__rank_windows(card, log, g);
}

/* results.json's figures are the ones the log shows by the card's patterns and its figure
   lines (sc_marker_figure), all of them. */
static void sc__verify_results(json_object *metrics, const sc_tracelog *t, const sc_card *card,
                               const char *log, sc_diag *problems)
{
    json_object *shown = json_object_new_object(), *v;
    char why[512];
    double claimed = NAN, recomputed;

    (void)t;
    if (!shown)
        return;
    sc_exec_figures(card, log, shown, why, sizeof(why)); /* the gate says what is missing */
    json_object_object_foreach(metrics, key, value)
    {
        if (!json_object_object_get_ex(shown, key, &v))
            sc_diag_addf(problems,
                         "results.json: metric %s, but stream.log shows no such figure by the "
                         "card's patterns or its figure lines (sc_marker_figure)",
                         key);
        else if (sc_num_json(v, &recomputed) < 0 || sc_num_json(value, &claimed) < 0 ||
                 fabs(claimed - recomputed) > 1e-9 * fabs(recomputed))
            sc_diag_addf(problems, "results.json: %s %.9g, but stream.log shows %.9g", key, claimed,
                         recomputed);
    }
    json_object_object_foreach(shown, name, figure)
    {
        (void)figure;
        if (!json_object_object_get_ex(metrics, name, NULL))
            sc_diag_addf(problems, "results.json: no metric %s, but stream.log shows it", name);
    }
    json_object_put(shown);
}

extern const sc_workload_ops sc__workload_exec;

/* The card's metrics are the registry's for its bundles (sc_metric_declared()). */
static const sc_metric_def sc__metrics[] = {
    {"<card_metric>", NULL, "card's", SC_METRIC_HIGHER,
     "metrics.<name>: each name, unit and direction the card's metrics: declare",
     sc__metric_rd_named, NULL, true},
};

/* Every metric the card declares; a summary row shows the first few. */
static size_t sc__metric_defaults(const sc_card *card, json_object *results, unsigned which,
                                  sc_metric *out, size_t max)
{
    (void)results;
    (void)which;
    return sc__metric_declared(&sc__workload_exec, card, out, max);
}

/* The one metric its verdicts judge: primary: true, else the first the card declares. */
static int sc__metric_primary(const sc_card *card, json_object *results, sc_metric *out)
{
    sc_metric all[SC_CARD_MAX_METRICS];
    size_t n = sc__metric_declared(&sc__workload_exec, card, all, SC_CARD_MAX_METRICS);

    (void)results;
    if (!n)
        return -ENOENT;
    *out = all[0];
    for (size_t i = 0; i < card->n_metrics; i++)
        if (card->metrics[i].primary)
            return sc_metric_find(all, n, card->metrics[i].name, out) == 0 ? 0 : -ENOENT;
    return 0;
}

static int sc__metric_study(const sc_card *card, sc_metric *out)
{
    return sc__metric_primary(card, NULL, out) == 0 ? 0 : -EINVAL;
}

const sc_workload_ops sc__workload_exec = {
    .id = SC_WORKLOAD_EXEC,
    .name = "exec",
    .program = NULL,
    .foreign = true,
    .program_path = sc__program_path,
    .keys = sc__keys,
    .n_keys = sizeof(sc__keys) / sizeof(sc__keys[0]),
    .defaults = sc__defaults,
    .check = sc__check,
    .layout_name = sc__layout_name,
    .tasks = sc__tasks,
    .mpi = sc__mpi,
    .args = sc__args,
    .describe = sc__describe,
    .verify_results = sc__verify_results,
    .results_of_log = sc__results_of_log,
    .validate = sc__validate,
    .phases = sc__phases,
    .metrics = sc__metrics,
    .n_metrics = sizeof(sc__metrics) / sizeof(sc__metrics[0]),
    .metric_defaults = sc__metric_defaults,
    .metric_primary = sc__metric_primary,
    .metric_study = sc__metric_study,
};
