/* simdevents.c: raw PMU events for packed and scalar FP instructions (see simdevents.h). */
#include "simdevents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Intel family 6 models with FP_ARITH_INST_RETIRED and one core PMU (Intel SDM vol. 3B,
   the perfmon event lists): Broadwell, Skylake and its client refreshes, the Xeons up to
   Emerald Rapids, Ice Lake and Tiger Lake clients. */
static const unsigned sct__intel_fp_arith[] = {
    0x3D, 0x47, 0x4F, 0x56,             /* Broadwell, Broadwell-EP/DE */
    0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6, /* Skylake, Kaby/Coffee/Comet Lake */
    0x55,                               /* Skylake-SP, Cascade Lake, Cooper Lake */
    0x66, 0x7D, 0x7E, 0x6A, 0x6C,       /* Cannon Lake, Ice Lake, Ice Lake-SP */
    0x8C, 0x8D, 0xA7,                   /* Tiger Lake, Rocket Lake */
    0x8F, 0xCF,                         /* Sapphire Rapids, Emerald Rapids */
};

#define SCT_FP_ARITH_EVENT 0xC7u
#define SCT_FP_ARITH_SCALAR 0x03u /* scalar double | scalar single */
#define SCT_FP_ARITH_PACKED 0xFCu /* 128-, 256-, 512-bit packed, double and single */

/* The value of the first "key : value" line of cpuinfo for key, into out; "" if none. */
static void sct__field(const char *cpuinfo, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);

    out[0] = '\0';
    for (const char *line = cpuinfo; line && *line;) {
        size_t n = strcspn(line, "\n");
        /* "key", blanks, ':': not a longer key ("model name" is not "model"). */
        const char *colon = n > klen && strncmp(line, key, klen) == 0
                                ? line + klen + strspn(line + klen, " \t")
                                : NULL;
        if (colon && colon < line + n && *colon == ':') {
            const char *v = colon + 1 + strspn(colon + 1, " \t");
            snprintf(out, len, "%.*s", (int)(line + n - v), v);
            return;
        }
        line += n + (line[n] == '\n');
    }
}

void sct_simd_events_for(const char *cpuinfo, struct sct_simd_events *ev)
{
    char vendor[64], family_s[16], model_s[16];
    unsigned family, model;

    memset(ev, 0, sizeof(*ev));
    sct__field(cpuinfo ? cpuinfo : "", "vendor_id", vendor, sizeof(vendor));
    sct__field(cpuinfo ? cpuinfo : "", "cpu family", family_s, sizeof(family_s));
    sct__field(cpuinfo ? cpuinfo : "", "model", model_s, sizeof(model_s));
    if (!vendor[0] || !family_s[0] || !model_s[0]) {
        snprintf(ev->why, sizeof(ev->why), "no vendor_id, cpu family and model in /proc/cpuinfo");
        return;
    }
    family = (unsigned)strtoul(family_s, NULL, 10);
    model = (unsigned)strtoul(model_s, NULL, 10);
    if (strcmp(vendor, "GenuineIntel") == 0 && family == 6) {
        for (size_t i = 0; i < sizeof(sct__intel_fp_arith) / sizeof(sct__intel_fp_arith[0]); i++) {
            if (sct__intel_fp_arith[i] == model) {
                ev->known = 1;
                ev->packed = SCT_FP_ARITH_EVENT | (SCT_FP_ARITH_PACKED << 8);
                ev->scalar = SCT_FP_ARITH_EVENT | (SCT_FP_ARITH_SCALAR << 8);
                return;
            }
        }
    }
    if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0)
        snprintf(ev->why, sizeof(ev->why),
                 "%.16s family %u model %u: the PMU counts retired SSE/AVX operations, not packed "
                 "against scalar instructions",
                 vendor, family, model);
    else
        snprintf(ev->why, sizeof(ev->why),
                 "%.16s family %u model %u: no known raw event for packed and scalar FP "
                 "instructions (FP_ARITH_INST_RETIRED: Intel cores since Broadwell)",
                 vendor, family, model);
}
