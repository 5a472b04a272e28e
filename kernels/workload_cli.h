/*
 * workload_cli.h: the workload CLI, what every workload's main() shares (streamcard-stream,
 * streamcard-ipsearch, streamcard-pingpong): the one-line usage errors, whole-number
 * options, and the test-only faults of STREAMCARD_FAULT.
 *
 * Usage errors go to stderr as one line, "<prog>: <what>: <why> (<what would be valid>)",
 * and the workload exits with status 2. The faults exist so that tests can check what
 * observers and gates do with a wrong result, a crash or a hang; a real run never sets them.
 */
#ifndef SC_KERNELS_WORKLOAD_CLI_H
#define SC_KERNELS_WORKLOAD_CLI_H

#include <getopt.h>
#include <stdio.h>

/* STREAMCARD_FAULT: corrupt (the workload damages its result after the main loop, so
 * validation must fail), crash (SIGSEGV) and hang (sleep forever), mid main loop. */
enum sct_fault { SCT_FAULT_NONE, SCT_FAULT_CORRUPT, SCT_FAULT_CRASH, SCT_FAULT_HANG };

/* The options every workload has: --json PATH, --build-info and --help. */
struct sct_cli_common {
    const char *json; /* write the results as JSON here too (NULL: no) */
    int build_info;   /* print the build identity and exit */
    int help;         /* print the usage and exit */
};

/* getopt_long values of the common options (beyond any short option character). */
enum { SCT_OPT_JSON = 0x100, SCT_OPT_BUILD_INFO, SCT_OPT_HELP = 'h' };

/* The common options' entries of a workload's `struct option` table. */
#define SCT_CLI_COMMON_LONGOPTS                                                                \
    {"json", required_argument, NULL, SCT_OPT_JSON},                                           \
        {"build-info", no_argument, NULL, SCT_OPT_BUILD_INFO},                                 \
        {"help", no_argument, NULL, SCT_OPT_HELP}

/*
 * A value c from getopt_long (with optstring ":h") that the workload's own options did not
 * take: a common option is stored in co; a missing value (':'), an unknown option or an
 * operand left after the options is a one-line error. Returns 0 or -EINVAL.
 */
int sct_cli_common_opt(const char *prog, int c, const char *arg, char **argv,
                       struct sct_cli_common *co);

/* After the getopt_long loop: options only, no operands. Returns 0 or -EINVAL. */
int sct_cli_no_operands(const char *prog, int argc, char **argv);

/* Open --json PATH for writing; NULL after the one-line error. */
FILE *sct_cli_open_json(const char *prog, const char *path);

/* Close the --json file; 0, or -EIO after the one-line error (a full disk shows here). */
int sct_cli_close_json(const char *prog, const char *path, FILE *f);

/* Print "<prog>: <what>: <why> (<valid>)" to stderr; returns -EINVAL. */
int sct_cli_bad(const char *prog, const char *what, const char *why, const char *valid);

/*
 * Parse s, the value of option opt, as a decimal whole number in [min, max] (digits only:
 * no sign, no blanks, no suffix). Returns 0, or -EINVAL after printing the error.
 */
int sct_cli_count(const char *prog, const char *opt, const char *s, unsigned long long min,
                  unsigned long long max, const char *valid, unsigned long long *out);

/* Read STREAMCARD_FAULT (unset or empty: none); -EINVAL after the error for other values. */
int sct_fault_read(const char *prog, enum sct_fault *out);

/* Crash (SIGSEGV, even where inherited as ignored) or hang (forever) for those faults;
 * returns at once for the others. */
void sct_fault_strike(enum sct_fault fault);

#endif
