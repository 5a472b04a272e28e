/*
 * cli.h: the subcommands of the `streamcard` command and the exit codes they share.
 * main.c only dispatches; each command is a cmd_<name>.c over libstreamcard: run
 * (cmd_run.c, with plan.c, run_series.c, execute.c and submit.c), verify, resources, and
 * the analysis commands compare, classify, report and export (over analysis.c).
 */
#ifndef SC_CLI_H
#define SC_CLI_H

/* Exit codes of `streamcard run` and `streamcard verify` (classify has its own: analysis.h). */
enum {
    SC_EXIT_OK = 0,
    SC_EXIT_FAILED = 1, /* the run or the bundle failed its checks */
    SC_EXIT_USAGE = 2,  /* bad card or options: nothing ran */
    SC_EXIT_ERROR = 3,  /* could not run at all (missing kernel, unwritable output) */
};

int sc_cmd_run(int argc, char **argv);
int sc_cmd_verify(int argc, char **argv);
int sc_cmd_resources(int argc, char **argv);
int sc_cmd_compare(int argc, char **argv);
int sc_cmd_classify(int argc, char **argv);
int sc_cmd_report(int argc, char **argv);
int sc_cmd_export(int argc, char **argv);
int sc_cmd_keygen(int argc, char **argv);
int sc_cmd_health(int argc, char **argv);
int sc_cmd_history(int argc, char **argv);
/* export --in-toto (export_intoto.c), reached through sc_cmd_export(). */
int sc_export_intoto(int argc, char **argv);

#endif
