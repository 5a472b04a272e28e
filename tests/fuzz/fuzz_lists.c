/*
 * fuzz_lists.c: the small list syntaxes of a card and of sysfs. Input: CPULIST NUL
 * HOSTLIST NUL HOST. A cpulist that parses must format and parse back to the same set;
 * a hostlist is checked and searched for HOST; the CPU list is also read as a sysfs choice
 * file ("always [madvise] never") and as a word list.
 */
#include "support.h"

#include "sc_cpulist.h"
#include "sc_hostlist.h"
#include "sc_sysstate.h"
#include "sc_text.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[3], why[256], selected[64];
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), again = hwloc_bitmap_alloc();

    sc_fuzz_require(set && again, "out of memory");
    sc_fuzz_split(data, size, part, 3);
    if (sc_cpulist_parse(part[0], set, why, sizeof(why)) == 0) {
        char *text = sc_cpulist_format(set);
        sc_fuzz_require(text != NULL, "sc_cpulist_format: out of memory");
        sc_fuzz_require(sc_cpulist_parse(text, again, why, sizeof(why)) == 0 &&
                            hwloc_bitmap_isequal(set, again),
                        "a formatted cpulist does not parse back to the same CPUs");
        free(text);
    }
    sc_sysstate_selected(part[0], selected, sizeof(selected));
    if (part[1]) {
        sc_hostlist_check(part[1], why, sizeof(why));
        sc_hostlist_contains(part[1], part[2] ? part[2] : "node01");
        sc_word_in(part[1], ",", part[2] ? part[2] : "node01");
    }
    sc_fuzz_free_parts(part, 3);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(again);
    return 0;
}
