/* results_json.c: numbers and the file of the workloads' --json results (see results_json.h). */
#include "results_json.h"

#include <errno.h>
#include <math.h>

/* v with the text it is written as; NULL when v is not finite. */
static json_object *sct__number(double v, const char *text)
{
    return isfinite(v) ? json_object_new_double_s(v, text) : NULL;
}

json_object *sct_json_double(double v, int digits)
{
    char text[64];

    snprintf(text, sizeof(text), "%.*g", digits, v);
    return sct__number(v, text);
}

json_object *sct_json_fixed(double v, int decimals)
{
    char text[512]; /* room for any double's %f with a few decimals */

    snprintf(text, sizeof(text), "%.*f", decimals, v);
    return sct__number(v, text);
}

int sct_json_write(FILE *f, json_object *root)
{
    if (!root)
        return -ENOMEM;
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text || fprintf(f, "%s\n", text) < 0 || fflush(f) != 0)
        return -EIO;
    return 0;
}
