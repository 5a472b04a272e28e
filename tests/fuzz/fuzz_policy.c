/*
 * fuzz_policy.c: the plugin's plugstack.conf arguments (sc_policy_parse()), one argument
 * per NUL-separated part of the input, at most 16 as a plugstack.conf line would hold; and
 * the input up to its first NUL as the text of a policy file (sc_policy_parse_text(), what
 * `streamcard run --platform apply` reads as root). A policy that parses has absolute paths
 * without "..", and NUL-terminated ones.
 */
#include "support.h"

#include "policy.h"

#include <stdlib.h>
#include <string.h>

#define SC__MAX_ARGS 16

/* What every accepted policy holds. */
static void sc__check(const sc_policy *p, const char *who)
{
    sc_fuzz_require(memchr(p->state_dir, '\0', sizeof(p->state_dir)) &&
                        memchr(p->sysroot, '\0', sizeof(p->sysroot)),
                    who);
    sc_fuzz_require(p->state_dir[0] == '/' && p->sysroot[0] == '/' &&
                        !strstr(p->state_dir, "/../") && !strstr(p->sysroot, "/../"),
                    who);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[SC__MAX_ARGS], why[256], *text = strndup((const char *)data, size);
    sc_policy p;
    int argc = (int)sc_fuzz_split(data, size, argv, SC__MAX_ARGS);

    if (sc_policy_parse(&p, argc, argv, why, sizeof(why)) == 0)
        sc__check(&p, "sc_policy_parse: an unterminated or relative path, or one with \"..\"");
    if (text && sc_policy_parse_text(&p, text, why, sizeof(why)) == 0)
        sc__check(&p, "sc_policy_parse_text: an unterminated or relative path, or one with "
                      "\"..\"");
    free(text);
    sc_fuzz_free_parts(argv, SC__MAX_ARGS);
    return 0;
}
