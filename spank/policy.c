/* policy.c: the plugin's plugstack.conf arguments (see policy.h). */
#include "policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* allow=prefetch,governor (or allow=none) */
static int sc__policy_allow(sc_policy *p, const char *value, char *why, size_t whylen)
{
    p->allow_prefetch = p->allow_governor = false;
    for (const char *w = value; *w;) {
        size_t n = strcspn(w, ",");
        if (n == 8 && strncmp(w, "prefetch", 8) == 0)
            p->allow_prefetch = true;
        else if (n == 8 && strncmp(w, "governor", 8) == 0)
            p->allow_governor = true;
        else if (!(n == 4 && strncmp(w, "none", 4) == 0)) {
            snprintf(why, whylen,
                     "allow=%s: \"%.*s\" is not a setting (valid: prefetch, "
                     "governor, none)",
                     value, (int)n, w);
            return -EINVAL;
        }
        w += n;
        if (*w == ',')
            w++;
    }
    return 0;
}

static int sc__policy_path(char *dst, size_t dstlen, const char *key, const char *value, char *why,
                           size_t whylen)
{
    if (value[0] != '/' || strlen(value) >= dstlen || strstr(value, "/../") ||
        (strlen(value) >= 3 && strcmp(value + strlen(value) - 3, "/..") == 0)) {
        snprintf(why, whylen, "%s=%s: not an absolute path without \"..\"", key, value);
        return -EINVAL;
    }
    snprintf(dst, dstlen, "%s", value);
    return 0;
}

/* check_user=NAME: a POSIX-portable user name of at most 32 characters. */
static int sc__policy_user(sc_policy *p, const char *value, char *why, size_t whylen)
{
    size_t n = strlen(value);

    if (n == 0 || n >= sizeof(p->check_user) || value[0] == '-' ||
        strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n) {
        snprintf(why, whylen,
                 "check_user=%s: not a user name (valid: 1-32 of a-z, A-Z, 0-9, '.', '_', "
                 "'-', not starting with '-')",
                 value);
        return -EINVAL;
    }
    snprintf(p->check_user, sizeof(p->check_user), "%s", value);
    return 0;
}

/* A whole decimal number in [1, max]. */
static int sc__policy_count(long *out, const char *key, const char *value, long max, char *why,
                            size_t whylen)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(value, &end, 10);

    if (errno || !*value || *end || v < 1 || v > max || value[0] == '+') {
        snprintf(why, whylen, "%s=%s: not a whole number from 1 to %ld", key, value, max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

int sc_policy_parse(sc_policy *p, int argc, char *const argv[], char *why, size_t whylen)
{
    memset(p, 0, sizeof(*p));
    p->require_exclusive = true;
    snprintf(p->state_dir, sizeof(p->state_dir), "%s", SC_POLICY_STATE_DIR);
    snprintf(p->sysroot, sizeof(p->sysroot), "/");
    snprintf(p->key, sizeof(p->key), "%s", SC_POLICY_KEY);
    snprintf(p->check_user, sizeof(p->check_user), "%s", SC_POLICY_CHECK_USER);
    p->attest_keep = SC_POLICY_ATTEST_KEEP;
    p->attest_days = SC_POLICY_ATTEST_DAYS;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
        const char *value = eq ? eq + 1 : "";
        int rc = 0;
        if (klen == 5 && strncmp(arg, "allow", 5) == 0) {
            rc = sc__policy_allow(p, value, why, whylen);
        } else if (klen == 17 && strncmp(arg, "require_exclusive", 17) == 0) {
            if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0)
                p->require_exclusive = strcmp(value, "yes") == 0;
            else {
                snprintf(why, whylen, "require_exclusive=%s: not yes or no", value);
                rc = -EINVAL;
            }
        } else if (klen == 9 && strncmp(arg, "state_dir", 9) == 0) {
            rc = sc__policy_path(p->state_dir, sizeof(p->state_dir), "state_dir", value, why,
                                 whylen);
        } else if (klen == 7 && strncmp(arg, "sysroot", 7) == 0) {
            rc = sc__policy_path(p->sysroot, sizeof(p->sysroot), "sysroot", value, why, whylen);
        } else if (klen == 3 && strncmp(arg, "key", 3) == 0) {
            rc = sc__policy_path(p->key, sizeof(p->key), "key", value, why, whylen);
            p->key_given = rc == 0;
        } else if (klen == 10 && strncmp(arg, "check_user", 10) == 0) {
            rc = sc__policy_user(p, value, why, whylen);
        } else if (klen == 11 && strncmp(arg, "attest_keep", 11) == 0) {
            rc = sc__policy_count(&p->attest_keep, "attest_keep", value, SC_POLICY_ATTEST_KEEP_MAX,
                                  why, whylen);
        } else if (klen == 11 && strncmp(arg, "attest_days", 11) == 0) {
            rc = sc__policy_count(&p->attest_days, "attest_days", value, 3650, why, whylen);
        } else {
            snprintf(why, whylen,
                     "unknown argument \"%s\" (valid: allow=, require_exclusive=, "
                     "state_dir=, sysroot=, key=, check_user=, attest_keep=, attest_days=)",
                     arg);
            rc = -EINVAL;
        }
        if (rc < 0)
            return rc;
    }
    return 0;
}

int sc_policy_parse_text(sc_policy *p, const char *text, char *why, size_t whylen)
{
    char *copy = strdup(text), *argv[SC_POLICY_FILE_ARGS];
    int argc = 0, rc = copy ? 0 : -ENOMEM;

    for (char *s = copy; rc == 0 && s && *s;) {
        s += strspn(s, " \t\n");
        if (*s == '#') {
            s += strcspn(s, "\n");
            continue;
        }
        if (!*s)
            break;
        size_t n = strcspn(s, " \t\n");
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
                snprintf(why, whylen, "a control character in a word (valid: key=value words)");
                rc = -EINVAL;
            }
        if (rc == 0 && argc == SC_POLICY_FILE_ARGS) {
            snprintf(why, whylen, "more than %d words (valid: the plugstack.conf arguments)",
                     SC_POLICY_FILE_ARGS);
            rc = -E2BIG;
        }
        if (rc < 0)
            break;
        argv[argc++] = s;
        s += n;
        if (*s)
            *s++ = '\0';
    }
    if (rc == 0)
        rc = sc_policy_parse(p, argc, argv, why, whylen);
    free(copy);
    return rc;
}

int sc_policy_key_path(const sc_policy *p, const char *node, char *out, size_t len)
{
    size_t used = 0;

    for (const char *s = p->key; *s && used + 1 < len; s++) {
        if (s[0] == '%' && s[1] == 'n') {
            used += (size_t)snprintf(out + used, len - used, "%s", node);
            s++;
        } else {
            out[used++] = *s;
        }
    }
    if (used >= len)
        return -ENAMETOOLONG;
    out[used] = '\0';
    return 0;
}

bool sc_policy_key_wanted(const sc_policy *p)
{
    struct stat st;

    /* The default names no %n. Anything at its path (a symlink, a bad mode) is a key the
       admin meant, refused with its reason when a job signs. */
    return p->key_given || lstat(p->key, &st) == 0 || errno != ENOENT;
}

void sc_policy_key_missing(const char *path, char *why, size_t whylen)
{
    const char *slash = strrchr(path, '/');
    int dirlen = slash && slash != path ? (int)(slash - path) : 1;

    snprintf(why, whylen,
             "streamcard: key %s: no such file (valid: a node key made as root with streamcard "
             "keygen --out %.*s, or no key= in plugstack.conf: runs are then not attested)",
             path, dirlen, path);
}

int sc_policy_key_state(const sc_policy *p, const char *node, char *why, size_t whylen)
{
    char path[1024];
    struct stat st;

    if (!sc_policy_key_wanted(p)) {
        snprintf(why, whylen,
                 "streamcard: no node key configured (no key= in plugstack.conf, and %s is not "
                 "there): this node's bundles are not attested (to attest them: streamcard "
                 "keygen --out /etc/streamcard as root)",
                 p->key);
        return 1;
    }
    if (sc_policy_key_path(p, node, path, sizeof(path)) == 0 && lstat(path, &st) < 0 &&
        errno == ENOENT) {
        sc_policy_key_missing(path, why, whylen);
        return -ENOENT;
    }
    return 0;
}
