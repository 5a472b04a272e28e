/*
 * cli.h: what every workload's main() shares: the one-line usage errors, whole-number
 * options, and the test-only faults of STREAMCARD_FAULT.
 *
 * Usage errors go to stderr as one line, "<prog>: <what>: <why> (<what would be valid>)",
 * and the workload exits with status 2. The faults exist so that tests can check what
 * observers and gates do with a wrong result, a crash or a hang; a real run never sets them.
 */
#ifndef SC_KERNELS_CLI_H
#define SC_KERNELS_CLI_H

/* STREAMCARD_FAULT: corrupt (the workload damages its result after the main loop, so
 * validation must fail), crash (SIGSEGV) and hang (sleep forever), mid main loop. */
enum sct_fault { SCT_FAULT_NONE, SCT_FAULT_CORRUPT, SCT_FAULT_CRASH, SCT_FAULT_HANG };

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
