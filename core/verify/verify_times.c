/* verify_times.c: when a run says it ran (sc_verify_times.h). */
#include "sc_verify_times.h"
#include "sc_kv.h"
#include "sc_verify.h"

#include <string.h>
#include <time.h>

long long sc_verify_time_parse(const char *iso)
{
    struct tm tm = {0}, back;

    /* Exactly 20 characters in streamcard's form; the fields round-trip through timegm, so
       2026-02-30 or 25:00:00 is not a time. */
    if (!iso || strlen(iso) != 20 || iso[4] != '-' || iso[7] != '-' || iso[10] != 'T' ||
        iso[13] != ':' || iso[16] != ':' || iso[19] != 'Z')
        return -1;
    for (int i = 0; i < 19; i++)
        if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (iso[i] < '0' || iso[i] > '9'))
            return -1;
    const char *end = strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end)
        return -1;
    struct tm fields = tm; /* timegm normalises its argument: 02-30 would become 03-02 */
    time_t t = timegm(&tm);
    if (t < 0 || !gmtime_r(&t, &back) || back.tm_year != fields.tm_year ||
        back.tm_mon != fields.tm_mon || back.tm_mday != fields.tm_mday ||
        back.tm_hour != fields.tm_hour || back.tm_min != fields.tm_min ||
        back.tm_sec != fields.tm_sec)
        return -1;
    return (long long)t;
}

/* One time of a record: its text in buf ("" when the record has none); its seconds, or -1
   ("none", missing or not a time, the latter a problem). */
static long long sc__time(const char *file, const char *key, const char *text, long long now,
                          sc_diag *problems)
{
    long long t;

    if (!*text || strcmp(text, "none") == 0)
        return -1;
    if ((t = sc_verify_time_parse(text)) < 0) {
        sc_diag_addf(problems, "%s: %s %s is not a time (valid: YYYY-MM-DDTHH:MM:SSZ, UTC)", file,
                     key, text);
        return -1;
    }
    if (t > now + SC_VERIFY_CLOCK_SKEW_S)
        sc_diag_addf(problems,
                     "%s: %s %s is in the future of this clock (valid: at most %d s ahead)", file,
                     key, text, SC_VERIFY_CLOCK_SKEW_S);
    return t;
}

/* The start and end of one record into start, end (-1: none); the checks of each alone. */
static void sc__pair(const char *file, const char *started, const char *ended, long long now,
                     bool ran, sc_diag *problems)
{
    long long start = sc__time(file, "started_at", started, now, problems);
    long long end = sc__time(file, "ended_at", ended, now, problems);

    if (start >= 0 && end >= 0 && end < start)
        sc_diag_addf(problems, "%s: ended_at %s is before started_at %s", file, ended, started);
    if (ran && (!*started || !strcmp(started, "none") || !*ended || !strcmp(ended, "none")))
        sc_diag_addf(problems, "%s: a run that passed without started_at and ended_at", file);
}

/* The string key of obj, "" when absent (JSON null: "none"); not a string: a problem. */
static const char *sc__json_time(json_object *obj, const char *key, sc_diag *problems)
{
    json_object *v = NULL;

    if (!json_object_object_get_ex(obj, key, &v))
        return "";
    if (!v)
        return "none";
    if (!json_object_is_type(v, json_type_string)) {
        sc_diag_addf(problems, "results.json: %s is not a time (valid: YYYY-MM-DDTHH:MM:SSZ)", key);
        return "";
    }
    return json_object_get_string(v);
}

/* Whether results.json's time (json, "" when it has none) says what run.conf's does (a
   time run.conf says is none may be left out). */
static bool sc__same_time(const char *json, const char *conf)
{
    return strcmp(json, conf) == 0 || (!*json && (!*conf || !strcmp(conf, "none")));
}

void sc_verify_times(const char *conf, json_object *const *obj, size_t n, long long now, bool ran,
                     sc_diag *problems)
{
    char conf_start[128] = "", conf_end[128] = "";

    if (conf) {
        sc_kv_get(conf, "started_at", conf_start, sizeof(conf_start));
        sc_kv_get(conf, "ended_at", conf_end, sizeof(conf_end));
        sc__pair("run.conf", conf_start, conf_end, now, ran, problems);
    }
    for (size_t i = 0; i < n; i++) {
        if (!obj[i])
            continue;
        const char *start = sc__json_time(obj[i], "started_at", problems);
        const char *end = sc__json_time(obj[i], "ended_at", problems);
        bool start_same = sc__same_time(start, conf_start);
        if (!conf) {
            sc__pair("results.json", start, end, now, ran, problems);
        } else if (!start_same || !sc__same_time(end, conf_end)) {
            sc_diag_addf(problems, "results.json: %s %s, but run.conf says %s",
                         start_same ? "ended_at" : "started_at",
                         *(start_same ? end : start) ? (start_same ? end : start) : "(missing)",
                         start_same ? conf_end : conf_start);
            break; /* one disagreement is enough to say */
        }
    }
}
