/*
 * test_num: the one rule for figures (sc_num.h): finite numbers only, as JSON values, as
 * printed words, and over whole documents, with the path of the first that is not.
 */
#include "sc_num.h"
#include "sc_test.h"

#include <errno.h>
#include <string.h>

struct text_case {
    const char *text;
    int rc;
    double value;
};

/* What a workload prints is a figure; what strtod would also take (inf, nan, hexadecimal,
   spaces) or what overflows is not. */
static const struct text_case text_cases[] = {
    {"82850.0", 0, 82850.0},   {"-0.5", 0, -0.5},     {"+3", 0, 3},
    {"1.5e+03", 0, 1500},      {".5", 0, 0.5},        {"7.", 0, 7},
    {"5e-324", 0, 5e-324},     {"1e308", 0, 1e308},   {"1e999", -ERANGE, 0},
    {"-1e999", -ERANGE, 0},    {"inf", -EINVAL, 0},   {"Infinity", -EINVAL, 0},
    {"-infinity", -EINVAL, 0}, {"nan", -EINVAL, 0},   {"NaN", -EINVAL, 0},
    {"0x10", -EINVAL, 0},      {" 1", -EINVAL, 0},    {"1 ", -EINVAL, 0},
    {"", -EINVAL, 0},          {"-", -EINVAL, 0},     {"e5", -EINVAL, 0},
    {"1e", -EINVAL, 0},        {"1.2.3", -EINVAL, 0},
};

static void test_text(void)
{
    for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
        const struct text_case *c = &text_cases[i];
        double v = -42;
        int rc = sc_num_str(c->text, &v);
        SC_CHECK_MSG(rc == c->rc, "\"%s\": %d, expected %d", c->text, rc, c->rc);
        if (c->rc == 0)
            SC_CHECK_MSG(v == c->value, "\"%s\": %.17g", c->text, v);
        else
            SC_CHECK_MSG(v == -42, "\"%s\": a refused text set the value", c->text);
    }
    double v;
    SC_CHECK_INT_EQ(sc_num_text("12.5xyz", 4, &v), 0); /* the length given, not the string */
    SC_CHECK(v == 12.5);
    SC_CHECK_INT_EQ(sc_num_str(NULL, &v), -ENOENT);
}

static void test_json(void)
{
    json_object *doc = json_tokener_parse(
        "{\"a\": 1, \"b\": 2.5, \"c\": Infinity, \"d\": -Infinity, \"e\": NaN, \"f\": 1e999,"
        " \"g\": null, \"h\": \"3\", \"i\": true}");
    double v = -1;

    SC_CHECK(doc != NULL);
    SC_CHECK_INT_EQ(sc_num_get(doc, "a", &v), 0);
    SC_CHECK(v == 1);
    SC_CHECK_INT_EQ(sc_num_get(doc, "b", &v), 0);
    SC_CHECK(v == 2.5);
    SC_CHECK_INT_EQ(sc_num_get(doc, "c", &v), -ERANGE);
    SC_CHECK_INT_EQ(sc_num_get(doc, "d", &v), -ERANGE);
    SC_CHECK_INT_EQ(sc_num_get(doc, "e", &v), -ERANGE);
    SC_CHECK_INT_EQ(sc_num_get(doc, "f", &v), -ERANGE);
    SC_CHECK_INT_EQ(sc_num_get(doc, "g", &v), -ENOENT);
    SC_CHECK_INT_EQ(sc_num_get(doc, "h", &v), -EINVAL);
    SC_CHECK_INT_EQ(sc_num_get(doc, "i", &v), -EINVAL);
    SC_CHECK_INT_EQ(sc_num_get(doc, "missing", &v), -ENOENT);
    SC_CHECK(v == 2.5); /* untouched by every refusal */
    json_object_put(doc);
}

struct doc_case {
    const char *json, *where; /* where: NULL when every number is finite */
};

static const struct doc_case doc_cases[] = {
    {"{\"runs\": [{\"metrics\": {\"rates\": {\"copy\": 1.5}}}], \"n\": 3}", NULL},
    {"{\"runs\": [{\"m\": 1}, {\"m\": 2}, {\"metrics\": {\"rates\": {\"copy\": Infinity}}}]}",
     "runs[2].metrics.rates.copy is Infinity"},
    {"{\"stats\": {\"copy\": {\"values\": [1, 2, -Infinity]}}}",
     "stats.copy.values[2] is -Infinity"},
    {"[1, NaN]", "[1] is NaN"},
    {"1e999", "the document is Infinity"},
    {"{\"k\\u001b[2J\": NaN}", "k\\x1b[2J is NaN"}, /* a key is shown escaped */
    {"{\"a\": null, \"b\": \"Infinity\"}", NULL},   /* a string is not a number */
};

static void test_documents(void)
{
    for (size_t i = 0; i < sizeof(doc_cases) / sizeof(doc_cases[0]); i++) {
        json_object *doc = json_tokener_parse(doc_cases[i].json);
        char where[256] = "";
        SC_CHECK_MSG(doc != NULL || !strcmp(doc_cases[i].json, "null"), "%s: not JSON",
                     doc_cases[i].json);
        bool ok = sc_num_all_finite(doc, where, sizeof(where));
        SC_CHECK_MSG(ok == !doc_cases[i].where, "%s: %s", doc_cases[i].json, where);
        if (doc_cases[i].where)
            SC_CHECK_STR_EQ(where, doc_cases[i].where);
        json_object_put(doc);
    }
}

int main(void)
{
    SC_TEST_RUN(test_text);
    SC_TEST_RUN(test_json);
    SC_TEST_RUN(test_documents);
    return SC_TEST_RESULT();
}
