/*
 * spank_streamcard_epilog.c: spank_streamcard_epilog.so, an opt-in companion of
 * spank_streamcard.so for sites without PrologFlags=Contain. It defines only
 * slurm_spank_job_epilog, which runs in the job epilog (slurmd's separate process, as root,
 * when the job is over on the node) and restores whatever the job's journal still holds:
 * the work of the extern step's slurm_spank_exit in the main plugin, which needs Contain.
 * Without either, a killed slurmstepd leaves the platform changed until the next slurmd
 * start.
 *
 * It is a plugin of its own because defining slurm_spank_job_epilog makes slurmd start
 * an extra process for every job (~25 ms each, measured on Slurm 22.05): sites with
 * Contain do not load it and do not pay for it.
 *
 * In the job epilog only the plugstack.conf arguments and a few items (the job id, the
 * uid) are available; spank_getenv crashes there (measured), so it is never called. The
 * arguments are the main plugin's (policy.h): state_dir= and sysroot= must match it.
 *   required /usr/lib/slurm/spank_streamcard.so allow=prefetch state_dir=/run/streamcard
 *   required /usr/lib/slurm/spank_streamcard_epilog.so state_dir=/run/streamcard
 *
 * Nothing here may take slurmd's epilog down: every message is one line, and a failed
 * restore is reported (the next slurmd start tries again), not returned as a failure,
 * which would drain the node.
 */
#include "pfctl.h"
#include "policy.h"
#include "spank_log.h"

#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdlib.h>

SPANK_PLUGIN(streamcard_epilog, 1);

int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    char why[1024] = "";
    uint32_t job_id = 0;
    sc_policy policy;
    char *log = NULL;

    if (sc_policy_parse(&policy, ac, av, why, sizeof(why)) < 0) {
        sc_spank_error("streamcard: job epilog: plugstack.conf: %s", why);
        return 0;
    }
    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) {
        sc_spank_error("streamcard: job epilog: no job id in the job epilog: nothing restored (the "
                       "next slurmd start restores what is left)");
        return 0;
    }
    sc_pfctl_config cfg = {.sysroot = policy.sysroot, .state_dir = policy.state_dir};
    if (sc_pfctl_restore_job(&cfg, job_id, &log) < 0)
        sc_spank_error("streamcard: job epilog: job %u: restoring the platform in the job epilog "
                       "failed (the next slurmd start tries again)",
                       job_id);
    sc_spank_log_lines("streamcard: job epilog: ", log);
    free(log);
    return 0;
}
