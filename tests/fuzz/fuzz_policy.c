/*
 * fuzz_policy.c: the plugin's plugstack.conf arguments (sc_policy_parse()), one argument
 * per NUL-separated part of the input, at most 16 as a plugstack.conf line would hold. A
 * policy that parses has absolute paths without "..", and NUL-terminated ones.
 */
#include "support.h"

#include "policy.h"

#include <string.h>

#define SC__MAX_ARGS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[SC__MAX_ARGS], why[256];
    sc_policy p;
    int argc = (int)sc_fuzz_split(data, size, argv, SC__MAX_ARGS);

    if (sc_policy_parse(&p, argc, argv, why, sizeof(why)) == 0) {
        sc_fuzz_require(memchr(p.state_dir, '\0', sizeof(p.state_dir)) &&
                            memchr(p.sysroot, '\0', sizeof(p.sysroot)),
                        "sc_policy_parse: an unterminated path");
        sc_fuzz_require(p.state_dir[0] == '/' && p.sysroot[0] == '/' &&
                            !strstr(p.state_dir, "/../") && !strstr(p.sysroot, "/../"),
                        "sc_policy_parse: accepted a relative path or one with \"..\"");
    }
    sc_fuzz_free_parts(argv, SC__MAX_ARGS);
    return 0;
}
