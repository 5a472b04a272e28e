/*
 * journal.c: the restore journal in memory, as text, and its holders (see journal.h); the
 * files in the state directory are journal_store.c's.
 *
 * Format (version 1), one "key=value" per line, '#' lines are comments:
 *
 *   version=1
 *   job=<job id>
 *   prefetch=on|off|unchanged             the request
 *   governor=<name>|unchanged
 *   cpus=<cpulist>
 *   arch=<class>                          informational (sc_arch_name)
 *   msr=<cpu> 0x<reg> 0x<mask> 0x<orig>   one per CPU and register
 *   gov=<cpu> <original governor>         one per CPU
 *   holder=<pid> <start time>             one per step daemon using the change
 *   end=1                                 last line: a journal without it is truncated
 *
 * Lines have no length limit: what sc_journal_format() writes, the parser reads (the file
 * is at most 4 MiB, checked before it is written). Parsing is strict: an unknown key, a
 * malformed number or a missing field makes the whole journal corrupt (-EBADMSG), but every
 * well-formed record is still returned, so that it can be restored.
 */
#include "journal.h"
#include "sc_why.h"
#include "sc_cpulist.h"
#include "sc_file.h"
#include "sc_kv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sc_journal_init(sc_journal *j, uint32_t job_id)
{
    memset(j, 0, sizeof(*j));
    j->job_id = job_id;
    snprintf(j->governor, sizeof(j->governor), "unchanged");
    j->cpus = hwloc_bitmap_alloc();
    return j->cpus ? 0 : -ENOMEM;
}

void sc_journal_free(sc_journal *j)
{
    if (!j)
        return;
    hwloc_bitmap_free(j->cpus);
    free(j->msr);
    free(j->gov);
    free(j->holders);
    memset(j, 0, sizeof(*j));
}

/* Grows an array by one element; returns the new element or NULL on ENOMEM. */
static void *sc__push(void **array, size_t *count, size_t size)
{
    char *grown = realloc(*array, (*count + 1) * size);

    if (!grown)
        return NULL;
    *array = grown;
    memset(grown + *count * size, 0, size);
    return grown + (*count)++ * size;
}

int sc_journal_add_msr(sc_journal *j, const sc_journal_msr *rec)
{
    sc_journal_msr *m = sc__push((void **)&j->msr, &j->n_msr, sizeof(*m));

    if (!m)
        return -ENOMEM;
    *m = *rec;
    return 0;
}

int sc_journal_add_gov(sc_journal *j, unsigned cpu, const char *orig)
{
    sc_journal_gov *g = sc__push((void **)&j->gov, &j->n_gov, sizeof(*g));

    if (!g)
        return -ENOMEM;
    g->cpu = cpu;
    snprintf(g->orig, sizeof(g->orig), "%s", orig);
    return 0;
}

int sc_journal_add_holder(sc_journal *j, pid_t pid, unsigned long long start)
{
    for (size_t i = 0; i < j->n_holders; i++) {
        if (j->holders[i].pid == pid) {
            j->holders[i].start = start;
            return 0;
        }
    }
    sc_journal_holder *h = sc__push((void **)&j->holders, &j->n_holders, sizeof(*h));
    if (!h)
        return -ENOMEM;
    h->pid = pid;
    h->start = start;
    return 0;
}

bool sc_journal_remove_holder(sc_journal *j, pid_t pid)
{
    for (size_t i = 0; i < j->n_holders; i++) {
        if (j->holders[i].pid == pid) {
            j->holders[i] = j->holders[--j->n_holders];
            return true;
        }
    }
    return false;
}

size_t sc_journal_prune_holders(sc_journal *j)
{
    size_t live = 0;

    for (size_t i = 0; i < j->n_holders; i++)
        if (sc_journal_holder_alive(&j->holders[i]))
            j->holders[live++] = j->holders[i];
    j->n_holders = live;
    return live;
}

bool sc_journal_same_request(const sc_journal *j, sc_prefetch prefetch, const char *governor,
                             hwloc_const_bitmap_t cpus)
{
    return j->prefetch == prefetch && strcmp(j->governor, governor) == 0 &&
           hwloc_bitmap_isequal(j->cpus, cpus);
}

char *sc_journal_format(const sc_journal *j)
{
    char *cpus = sc_cpulist_format(j->cpus);
    sc_kv kv;

    if (!cpus)
        return NULL;
    sc_kv_init(&kv);
    sc_kv_append(&kv, "# streamcard restore journal: the platform state before this job "
                      "changed it.\n# Restored and removed by the plugin; see journal.c.\n");
    sc_kv_addf(&kv, "version", "1");
    sc_kv_addf(&kv, "job", "%u", (unsigned)j->job_id);
    sc_kv_addf(&kv, "prefetch", "%s", sc_prefetch_name(j->prefetch));
    sc_kv_addf(&kv, "governor", "%s", j->governor);
    sc_kv_addf(&kv, "cpus", "%s", cpus);
    sc_kv_addf(&kv, "arch", "%s", *j->arch ? j->arch : "unknown");
    for (size_t i = 0; i < j->n_msr; i++)
        sc_kv_addf(&kv, "msr", "%u 0x%x 0x%llx 0x%llx", j->msr[i].cpu, (unsigned)j->msr[i].reg,
                   (unsigned long long)j->msr[i].mask, (unsigned long long)j->msr[i].orig);
    for (size_t i = 0; i < j->n_gov; i++)
        sc_kv_addf(&kv, "gov", "%u %s", j->gov[i].cpu, j->gov[i].orig);
    for (size_t i = 0; i < j->n_holders; i++)
        sc_kv_addf(&kv, "holder", "%ld %llu", (long)j->holders[i].pid, j->holders[i].start);
    sc_kv_addf(&kv, "end", "1");
    free(cpus);
    if (kv.failed) {
        sc_kv_free(&kv);
        return NULL;
    }
    return kv.text;
}

/*
 * Reads one unsigned number at *p and moves past it and one following space. hex numbers
 * must be written 0x...; decimal ones start with a digit. Returns false when malformed or
 * larger than max.
 */
static bool sc__num(const char **p, bool hex, unsigned long long max, unsigned long long *out)
{
    const char *s = *p;
    char *end = NULL;

    if (hex ? strncmp(s, "0x", 2) != 0 || !isxdigit((unsigned char)s[2])
            : !isdigit((unsigned char)*s))
        return false;
    errno = 0;
    *out = strtoull(s, &end, hex ? 16 : 10);
    if (errno || *out > max || (*end != ' ' && *end != '\0'))
        return false;
    *p = *end == ' ' ? end + 1 : end;
    return true;
}

/* A governor or arch name: 1..31 of [A-Za-z0-9_-], the whole rest of the value. */
static bool sc__name(const char *s, char *buf, size_t buflen)
{
    size_t n = strlen(s);

    if (n == 0 || n >= buflen || n >= SC_JOURNAL_NAME_MAX ||
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
        return false;
    memcpy(buf, s, n + 1);
    return true;
}

/* Parses one "key=value" line into j. Returns false when it is malformed. */
static bool sc__parse_line(const char *key, const char *v, sc_journal *j, unsigned *seen)
{
    unsigned long long a, b, c, d;
    char name[SC_JOURNAL_NAME_MAX];

    if (strcmp(key, "version") == 0) {
        *seen |= 1;
        return strcmp(v, "1") == 0;
    }
    if (strcmp(key, "job") == 0) {
        *seen |= 2;
        return sc__num(&v, false, UINT32_MAX, &a) && !*v && a == j->job_id;
    }
    if (strcmp(key, "prefetch") == 0) {
        *seen |= 4;
        for (int p = SC_PREFETCH_UNCHANGED; p <= SC_PREFETCH_OFF; p++) {
            if (strcmp(v, sc_prefetch_name((sc_prefetch)p)) == 0) {
                j->prefetch = (sc_prefetch)p;
                return true;
            }
        }
        return false;
    }
    if (strcmp(key, "governor") == 0) {
        *seen |= 8;
        return sc__name(v, j->governor, sizeof(j->governor));
    }
    if (strcmp(key, "cpus") == 0) {
        *seen |= 16;
        return sc_cpulist_parse(v, j->cpus, NULL, 0) == 0;
    }
    if (strcmp(key, "arch") == 0)
        return sc__name(v, j->arch, sizeof(j->arch));
    if (strcmp(key, "end") == 0) {
        *seen |= 32;
        return strcmp(v, "1") == 0;
    }
    if (strcmp(key, "msr") == 0) {
        if (!sc__num(&v, false, SC_CPULIST_MAX_CPU, &a) || !sc__num(&v, true, UINT32_MAX, &b) ||
            !sc__num(&v, true, UINT64_MAX, &c) || !sc__num(&v, true, UINT64_MAX, &d) || *v)
            return false;
        sc_journal_msr m = {(unsigned)a, (uint32_t)b, c, d};
        return sc_journal_add_msr(j, &m) == 0;
    }
    if (strcmp(key, "gov") == 0) {
        if (!sc__num(&v, false, SC_CPULIST_MAX_CPU, &a) || !sc__name(v, name, sizeof(name)))
            return false;
        return sc_journal_add_gov(j, (unsigned)a, name) == 0;
    }
    if (strcmp(key, "holder") == 0) {
        if (!sc__num(&v, false, 4194304 /* PID_MAX_LIMIT */, &a) || a == 0 ||
            !sc__num(&v, false, UINT64_MAX, &b) || *v)
            return false;
        return sc_journal_add_holder(j, (pid_t)a, b) == 0;
    }
    return false;
}

/* Copies n bytes of src into dst (n + 1 bytes), control bytes as '?', for a message. */
static void sc__printable(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
    dst[n] = '\0';
}

int sc_journal_parse(const char *text, sc_journal *j, char *why, size_t whylen)
{
    static const char *const required[] = {"version", "job", "prefetch", "governor", "cpus", "end"};
    unsigned seen = 0, lineno = 0, bad = 0;
    /* Lines of any length: each is parsed in a copy of the text, so whatever
       sc_journal_format() writes (a cpus= line of thousands of CPUs) reads back. */
    char *copy = strdup(text), shown[81];

    if (!copy)
        return -ENOMEM;
    for (char *p = copy; *p;) {
        size_t n = strcspn(p, "\n");
        char *next = p[n] ? p + n + 1 : p + n;
        lineno++;
        p[n] = '\0';
        if (seen & 32) { /* nothing may follow end=1 */
            bad++;
            sc__why(why, whylen, "line %u: text after end=1", lineno);
            break;
        }
        if (n > 0 && *p != '#') {
            char *eq = strchr(p, '=');
            sc__printable(shown, p, n < 80 ? n : 80); /* the line as it was, one line */
            if (eq)
                *eq = '\0';
            if ((!eq || !sc__parse_line(p, eq + 1, j, &seen)) && !bad++)
                sc__why(why, whylen, "line %u: malformed: %s", lineno, shown);
        }
        p = next;
    }
    free(copy);
    for (unsigned i = 0; i < 6 && !bad; i++) {
        if (!(seen & (1u << i))) {
            bad++;
            sc__why(why, whylen, "%s missing%s", required[i],
                    i == 5 ? " (the journal is truncated)" : "");
        }
    }
    return bad ? -EBADMSG : 0;
}

/* State and start time of a process from /proc/<pid>/stat (the comm may hold spaces). */
int sc_proc_start_time(pid_t pid, unsigned long long *start)
{
    char path[64], *text = NULL;
    int rc;

    if (pid <= 0)
        return -ESRCH;
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    rc = sc_file_read_at(AT_FDCWD, path, 0, 4096, &text, NULL);
    if (rc < 0)
        return rc == -ENOENT ? -ESRCH : rc;
    const char *p = strrchr(text, ')');
    rc = -EINVAL;
    if (p && p[1] == ' ' && p[2]) {
        char state = p[2];
        p += 2;
        for (int field = 3; p && field < 22; field++) { /* fields 3..21 */
            p = strchr(p, ' ');
            if (p)
                p++;
        }
        if (p && state != 'Z' && state != 'X') /* a zombie is a dead holder */
            rc = sscanf(p, "%llu", start) == 1 ? 0 : -EINVAL;
        else if (p)
            rc = -ESRCH;
    }
    free(text);
    return rc;
}

bool sc_journal_holder_alive(const sc_journal_holder *h)
{
    unsigned long long start;

    return sc_proc_start_time(h->pid, &start) == 0 && start == h->start;
}
