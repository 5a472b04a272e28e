/*
 * node_tool.c: streamcard-node, the admin's view of a node's platform state, as root.
 * It shares the platform layer with the plugin (the journal, the facade; every write is
 * platform.c's), so it reads journals and restores exactly as the plugin does.
 *
 *   streamcard-node state [--clear [--job ID]] [--state-dir DIR] [--sysroot DIR]
 */
#include "pfctl.h"
#include "policy.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sc__usage(FILE *f)
{
    fprintf(f,
            "usage: streamcard-node state [--clear [--job ID]] [--state-dir DIR] [--sysroot DIR]\n"
            "\n"
            "Shows this node's platform state as the streamcard SPANK plugin journaled it: one\n"
            "line per job whose prefetch or governor change is journaled (its request, CPUs,\n"
            "holders alive or dead; DAMAGED when the journal cannot be read) and one per damaged\n"
            "journal set aside. Exit status 0 when no change is journaled, 1 when one is.\n"
            "\n"
            "  --clear          restore every journal (or job ID's) whatever its holders, and\n"
            "                   remove it (a damaged one: what can be read, then set aside);\n"
            "                   exit status 0 when everything read back as journaled\n"
            "  --job ID         with --clear: only this job's journal\n"
            "  --state-dir DIR  the plugin's state_dir= (default %s)\n"
            "  --sysroot DIR    the plugin's sysroot= (default /)\n"
            "  -h, --help       this help\n"
            "Exit status 2: usage; 3: not root, or the state directory cannot be used.\n",
            SC_POLICY_STATE_DIR);
}

/* Restores the listed journals (or only job); prints what was done. 0 or 1. */
static int sc__clear(const sc_pfctl_config *cfg, const uint32_t *jobs, size_t n, long only)
{
    int status = 0;

    for (size_t i = 0; i < n; i++) {
        char *log = NULL;
        if (only >= 0 && jobs[i] != (uint32_t)only)
            continue;
        if (sc_pfctl_restore_job(cfg, jobs[i], &log) < 0)
            status = 1;
        fputs(log ? log : "", stdout);
        free(log);
    }
    return status;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"clear", no_argument, NULL, 'c'},
                                         {"job", required_argument, NULL, 'j'},
                                         {"state-dir", required_argument, NULL, 's'},
                                         {"sysroot", required_argument, NULL, 'r'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *state_dir = SC_POLICY_STATE_DIR, *sysroot = "/";
    char *end = NULL, *text = NULL;
    uint32_t *jobs = NULL;
    size_t n = 0;
    long only = -1;
    int clear = 0, c;

    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            clear = 1;
            break;
        case 'j':
            errno = 0;
            only = strtol(optarg, &end, 10);
            if (errno || *end || only < 0 || only > (long)UINT32_MAX) {
                fprintf(stderr,
                        "streamcard-node: --job: \"%s\" is not a job id (valid: a "
                        "number)\n",
                        optarg);
                return 2;
            }
            break;
        case 's':
            state_dir = optarg;
            break;
        case 'r':
            sysroot = optarg;
            break;
        case 'h':
            sc__usage(stdout);
            return 0;
        default:
            sc__usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1 || strcmp(argv[optind], "state") != 0 || (only >= 0 && !clear)) {
        sc__usage(stderr);
        return 2;
    }
    if (geteuid() != 0) {
        fprintf(stderr, "streamcard-node: must run as root (the journals and the MSRs are "
                        "root's)\n");
        return 3;
    }
    sc_pfctl_config cfg = {.sysroot = sysroot, .state_dir = state_dir};
    int rc = sc_pfctl_show(&cfg, &text, &jobs, &n);
    if (rc < 0) {
        fprintf(stderr, "streamcard-node: %s\n", text ? text : strerror(-rc));
        free(text);
        return 3;
    }
    fputs(text, stdout);
    free(text);
    int status = n > 0;
    if (clear)
        status = sc__clear(&cfg, jobs, n, only);
    free(jobs);
    return status;
}
