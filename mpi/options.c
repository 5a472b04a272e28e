/*
 * options.c: the command line, its one-line errors and the fault switch (see options.h).
 */
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCM_MAX_BYTES (1UL << 30) /* the card's limit for max_bytes */
#define SCM_MAX_WINDOW 1024
#define SCM_MAX_PASSES 100 /* --passes: the card allows as many */

const char *scm_kernel_name(enum scm_kernel k)
{
    return k == SCM_KERNEL_UNIBAND ? "uniband" : "pingpong";
}

void scm_options_usage(FILE *out)
{
    fprintf(out,
            "usage: " SCM_PROG " [options]   (run as 2 MPI ranks: mpirun -np 2, srun -n 2)\n"
            "Ping-pong latency/bandwidth and windowed unidirectional bandwidth between two MPI\n"
            "ranks, every payload checked, with streamcard trace lines and the transport that\n"
            "carried the data as the MPI library reports it.\n"
            "\n"
            "  --kernel pingpong|uniband  what to measure (default pingpong)\n"
            "  --min-bytes N         smallest message (default 0); sizes double from it\n"
            "                        (0 is followed by 1) up to --max-bytes\n"
            "  --max-bytes N         largest message, at most 1073741824 (default 4194304)\n"
            "  --iterations N        round trips (pingpong) or windows (uniband) per size,\n"
            "                        N >= 1 (default 1000); big messages get fewer:\n"
            "                        min(N, max(10, 41943040 / bytes)), as IMB does with its\n"
            "                        40 MiB per size but never below 10; a warm-up of\n"
            "                        max(2, repetitions / 10) precedes each size, not timed\n"
            "  --window N            uniband: messages in flight per window, 1..1024\n"
            "                        (default 64); the receiver holds N x --max-bytes\n"
            "  --pairs first|all     first (default): ranks 0 and 1 of exactly 2; all: every\n"
            "                        pair of N >= 2 ranks (one per node), in rounds of\n"
            "                        disjoint pairs measured at once, a barrier between\n"
            "                        rounds; --json then names the raw figures' files\n"
            "  --passes N            with --pairs all: the whole schedule N times, 1..100\n"
            "                        (default 1), each pair once a pass\n"
            "  --json PATH           also write the results as JSON to PATH (rank 0)\n"
            "  --transport-log PATH  write what every rank's MPI library and fabric said\n"
            "                        while MPI_Init selected the transport to PATH (rank 0)\n"
            "  --build-info          print compiler, flags, MPI library and exit\n"
            "  --help                print this help and exit\n"
            "\n"
            "Exit status: 0 validated, 1 validation failed or run-time error, 2 bad usage\n"
            "(including a rank count other than 2, or below 2 with --pairs all).\n"
            "\n"
            "Test-only (never set in a real run): STREAMCARD_FAULT=corrupt corrupts one\n"
            "received payload (validation must fail), =crash raises SIGSEGV and =hang sleeps\n"
            "forever, both on rank 0 halfway through the sizes.\n");
}

/* Rank 0 of the launcher (Open MPI, PMIx, Slurm), or no launcher at all. */
static int scm__launcher_rank0(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strcmp(v, "0") == 0;
    }
    return 1;
}

void scm_error(const char *what, const char *why, const char *valid)
{
    if (scm__launcher_rank0())
        sct_cli_bad(SCM_PROG, what, why, valid);
}

/* Options that take a number; the table keeps the ranges next to their messages. */
static int scm__number(int c, const char *arg, struct scm_opts *o)
{
    unsigned long long v;

    switch (c) {
    case 'm':
        if (sct_cli_count(SCM_PROG, "--min-bytes", arg, 0, SCM_MAX_BYTES, "0..1073741824 bytes",
                          &v))
            return -EINVAL;
        o->min_bytes = (size_t)v;
        return 0;
    case 'M':
        if (sct_cli_count(SCM_PROG, "--max-bytes", arg, 0, SCM_MAX_BYTES, "0..1073741824 bytes",
                          &v))
            return -EINVAL;
        o->max_bytes = (size_t)v;
        return 0;
    case 'i':
        if (sct_cli_count(SCM_PROG, "--iterations", arg, 1, 1000000000,
                          "a whole number from 1 to 1000000000", &v))
            return -EINVAL;
        o->iterations = (long)v;
        return 0;
    case 'P':
        if (sct_cli_count(SCM_PROG, "--passes", arg, 1, SCM_MAX_PASSES, "1..100 passes", &v))
            return -EINVAL;
        o->passes = (int)v;
        return 0;
    default: /* 'w' */
        if (sct_cli_count(SCM_PROG, "--window", arg, 1, SCM_MAX_WINDOW, "1..1024 messages", &v))
            return -EINVAL;
        o->window = (int)v;
        return 0;
    }
}

static int scm__parse(int argc, char **argv, struct scm_opts *o)
{
    static const struct option longopts[] = {
        {"kernel", required_argument, NULL, 'k'},
        {"min-bytes", required_argument, NULL, 'm'},
        {"max-bytes", required_argument, NULL, 'M'},
        {"iterations", required_argument, NULL, 'i'},
        {"window", required_argument, NULL, 'w'},
        {"passes", required_argument, NULL, 'P'},
        {"transport-log", required_argument, NULL, 't'},
        {"pairs", required_argument, NULL, 'p'},
        SCT_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int c, window_set = 0;
    char why[160];

    *o = (struct scm_opts){.max_bytes = 4194304, .iterations = 1000, .window = 64, .passes = 1};
    opterr = 0; /* our own one-line messages */
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            if (!strcmp(optarg, "pingpong") || !strcmp(optarg, "uniband")) {
                o->kernel = optarg[0] == 'u' ? SCM_KERNEL_UNIBAND : SCM_KERNEL_PINGPONG;
                break;
            }
            snprintf(why, sizeof(why), "'%.64s' is not a kernel", optarg);
            return sct_cli_bad(SCM_PROG, "--kernel", why, "pingpong|uniband");
        case 'p':
            if (!strcmp(optarg, "first") || !strcmp(optarg, "all")) {
                o->pairs_all = optarg[0] == 'a';
                break;
            }
            snprintf(why, sizeof(why), "'%.64s' is not a pairing", optarg);
            return sct_cli_bad(SCM_PROG, "--pairs", why, "first|all");
        case 't':
            if (!*optarg)
                return sct_cli_bad(SCM_PROG, "--transport-log", "an empty path", "a file path");
            o->transport_log = optarg;
            break;
        case 'm':
        case 'M':
        case 'i':
        case 'P':
        case 'w':
            if (scm__number(c, optarg, o))
                return -EINVAL;
            window_set |= c == 'w';
            break;
        default:
            if (sct_cli_common_opt(SCM_PROG, c, optarg, argv, &o->cli))
                return -EINVAL;
        }
    }
    if (sct_cli_no_operands(SCM_PROG, argc, argv))
        return -EINVAL;
    if (o->min_bytes > o->max_bytes) {
        snprintf(why, sizeof(why), "%zu is above --max-bytes %zu", o->min_bytes, o->max_bytes);
        return sct_cli_bad(SCM_PROG, "--min-bytes", why, "min-bytes <= max-bytes");
    }
    if (window_set && o->kernel != SCM_KERNEL_UNIBAND)
        return sct_cli_bad(SCM_PROG, "--window", "only the uniband kernel has a window",
                           "--kernel uniband");
    return o->cli.help || o->cli.build_info ? 0 : sct_fault_read(SCM_PROG, &o->fault);
}

int scm_options_parse(int argc, char **argv, struct scm_opts *o)
{
    int saved = -1, rc;

    if (!scm__launcher_rank0()) { /* every rank parses; rank 0 alone says what is wrong */
        int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        saved = devnull >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
        if (saved >= 0)
            dup2(devnull, STDERR_FILENO);
        if (devnull >= 0)
            close(devnull);
    }
    rc = scm__parse(argc, argv, o);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    return rc;
}
