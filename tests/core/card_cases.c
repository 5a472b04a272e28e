/* card_cases.c: the card tests' table runner (card_cases.h). */
#include "card_cases.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool lines_match(const sc_diag *d, const char *const expect[SC_MAX_LINES])
{
    size_t n = 0;

    while (n < SC_MAX_LINES && expect[n])
        n++;
    if (d->count != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strstr(d->lines[i], expect[i]))
            return false;
    return true;
}

void report_case(const char *name, const char *const expect[SC_MAX_LINES], int rc,
                 const sc_diag *d)
{
    fprintf(stderr, "case \"%s\": rc=%d, expected:\n", name, rc);
    for (size_t i = 0; i < SC_MAX_LINES && expect[i]; i++)
        fprintf(stderr, "  %s\n", expect[i]);
    fprintf(stderr, "got %zu messages:\n", d->count);
    sc_diag_print(d, "  ", stderr);
}

int parse_and_check(sc_card *card, const char *yaml, sc_diag *d)
{
    int rc = sc_card_parse(card, yaml, strlen(yaml), "card.yaml", d);
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, d);
        rc = rc ? rc : crc;
    }
    return rc;
}

int card_cases_run(const card_case *cases, size_t n)
{
    int failures = 0;

    for (size_t i = 0; i < n; i++) {
        const card_case *c = &cases[i];
        sc_card *card = sc_card_new();
        sc_diag d;
        sc_diag_init(&d);
        int rc = parse_and_check(card, c->yaml, &d);
        bool ok = (c->expect[0] ? rc < 0 : rc == 0) && lines_match(&d, c->expect);
        if (!ok)
            report_case(c->name, c->expect, rc, &d);
        sc_diag_free(&d);
        sc_card_free(card);
        failures += !ok;
    }
    return failures;
}
