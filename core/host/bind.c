/* bind.c: CPU affinity and memory binding of the calling process (see sc_bind.h). */
#include "sc_bind.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>

int sc_bind_self(hwloc_const_bitmap_t cpus, long memory_node)
{
    if (cpus) {
        int last = hwloc_bitmap_last(cpus);
        size_t ncpus = last < 0 ? 1 : (size_t)last + 1;
        cpu_set_t *set = CPU_ALLOC(ncpus);
        size_t size = CPU_ALLOC_SIZE(ncpus);
        unsigned cpu;
        if (!set)
            return -ENOMEM;
        CPU_ZERO_S(size, set);
        hwloc_bitmap_foreach_begin(cpu, cpus)
        {
            CPU_SET_S(cpu, size, set);
        }
        hwloc_bitmap_foreach_end();
        int rc = sched_setaffinity(0, size, set);
        int err = errno;
        CPU_FREE(set);
        if (rc < 0)
            return -err;
    }
    if (memory_node >= 0) {
        if (numa_available() < 0)
            return -ENOSYS;
        struct bitmask *nodes = numa_allocate_nodemask();
        if (!nodes)
            return -ENOMEM;
        numa_bitmask_setbit(nodes, (unsigned)memory_node);
        numa_set_bind_policy(1);
        numa_set_strict(1);
        errno = 0;
        numa_set_membind(nodes);
        int err = errno;
        numa_free_nodemask(nodes);
        if (err == EINVAL || err == EPERM)
            return -err;
    }
    return 0;
}
