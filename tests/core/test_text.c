/* test_text: sc_text_escape and friends, table-driven. */
#include "sc_test.h"
#include "sc_text.h"

#include <stdlib.h>

struct esc_case {
    const char *name;
    const char *in;
    size_t in_len; /* 0: strlen(in) */
    size_t cap;
    const char *want;
};

static const struct esc_case esc_cases[] = {
    {"plain ASCII stays", "job 42 ok", 0, 64, "job 42 ok"},
    {"newline forges no line", "x\nrestore: job 7", 0, 64, "x\\nrestore: job 7"},
    {"tab, CR, backslash", "a\tb\rc\\d", 0, 64, "a\\tb\\rc\\\\d"},
    {"ESC and DEL", "\x1b[32mok\x7f", 0, 64, "\\x1b[32mok\\x7f"},
    {"valid UTF-8 kept",
     "n\xc5\x8d"
     "de \xe2\x82\xac \xf0\x9f\x98\x80",
     0, 64,
     "n\xc5\x8d"
     "de \xe2\x82\xac \xf0\x9f\x98\x80"},
    {"C1 CSI escaped",
     "a\xc2\x9b"
     "31m",
     0, 64, "a\\u009b31m"},
    {"bidi override escaped",
     "txt\xe2\x80\xae" /* NOLINT(misc-misleading-bidirectional): the test input */
     "cod",
     0, 64, "txt\\u202ecod"},
    {"line separator escaped",
     "a\xe2\x80\xa8"
     "b",
     0, 64, "a\\u2028b"},
    {"invalid byte",
     "a\xff"
     "b",
     0, 64, "a\\xffb"},
    {"overlong slash", "\xc0\xaf", 0, 64, "\\xc0\\xaf"},
    {"surrogate", "\xed\xa0\x80", 0, 64, "\\xed\\xa0\\x80"},
    {"above U+10FFFF", "\xf4\x90\x80\x80", 0, 64, "\\xf4\\x90\\x80\\x80"},
    {"cut sequence at the end", "ab\xe2\x82", 0, 64, "ab\\xe2\\x82"},
    {"NUL inside the input", "a\0b", 3, 64, "a\\x00b"},
    {"fits exactly", "abcdef", 0, 7, "abcdef"},
    {"truncated with marker", "abcdefgh", 0, 7, "abc..."},
    {"never inside a character", "ab\xe2\x82\xac\xe2\x82\xac", 0, 8, "ab..."},
    {"never inside an escape", "ab\ncdef", 0, 8, "ab\\n..."},
    {"tiny buffer", "abcdef", 0, 3, ""},
    {"empty", "", 0, 4, ""},
};

static void test_escape_table(void)
{
    char out[128];

    for (size_t i = 0; i < sizeof(esc_cases) / sizeof(esc_cases[0]); i++) {
        const struct esc_case *c = &esc_cases[i];
        size_t n = c->in_len ? c->in_len : strlen(c->in);
        size_t len = sc_text_escape(out, c->cap, c->in, n);
        SC_CHECK_MSG(strcmp(out, c->want) == 0, "%s: got \"%s\", want \"%s\"", c->name, out,
                     c->want);
        SC_CHECK_MSG(len == strlen(out), "%s: returned %zu for %zu bytes", c->name, len,
                     strlen(out));
        SC_CHECK_MSG(len < c->cap, "%s: %zu bytes do not fit in %zu", c->name, len, c->cap);
    }
}

/* Doubles every backslash of s into out: what escaping a text that holds nothing else to
   escape gives. */
static void double_backslashes(const char *s, char *out)
{
    for (; *s; s++) {
        if (*s == '\\')
            *out++ = '\\';
        *out++ = *s;
    }
    *out = '\0';
}

/* Whatever the input (all 2-byte prefixes before a stray continuation byte), the output
   holds nothing left to escape but its own backslashes. */
static void test_escape_output_is_safe(void)
{
    char in[3], out[32], again[64], want[64];

    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b++) {
            in[0] = (char)a, in[1] = (char)b, in[2] = (char)0x80;
            size_t len = sc_text_escape(out, sizeof(out), in, 3);
            sc_text_escape(again, sizeof(again), out, len);
            double_backslashes(out, want);
            SC_CHECK_MSG(strcmp(again, want) == 0, "%02x %02x 80 -> \"%s\" still escapes to \"%s\"",
                         a, b, out, again);
        }
}

static void test_is_safe(void)
{
    SC_CHECK(sc_text_is_safe("plain text: 1.5 GB/s", 20));
    SC_CHECK(sc_text_is_safe("n\xc5\x8d"
                             "de",
                             5));
    SC_CHECK(!sc_text_is_safe("a\nb", 3));
    SC_CHECK(!sc_text_is_safe("a\\b", 3));
    SC_CHECK(!sc_text_is_safe("\xff", 1));
    /* NOLINTNEXTLINE(misc-misleading-bidirectional): the test input */
    SC_CHECK(!sc_text_is_safe("\xe2\x80\xae", 3));
}

static void test_escape_dup(void)
{
    char *s = sc_text_escape_dup("a\x1b"
                                 "b",
                                 0);
    SC_CHECK(s != NULL);
    SC_CHECK_STR_EQ(s, "a\\x1bb");
    free(s);
    s = sc_text_escape_dup("abcdefghij", 6);
    SC_CHECK(s != NULL);
    SC_CHECK_STR_EQ(s, "abc...");
    free(s);
}

/* What sc_text_escape prints is printable; raw controls, bidi overrides and bad bytes are not. */
static void test_is_printable(void)
{
    char out[64];
    /* NOLINTNEXTLINE(misc-misleading-bidirectional): the test input */
    const char *raw = "a\\b\nc\x1b\xe2\x80\xae\xff";
    SC_CHECK(!sc_text_is_printable(raw, strlen(raw)));
    sc_text_escape(out, sizeof(out), raw, strlen(raw));
    SC_CHECK(sc_text_is_printable(out, strlen(out)));
    SC_CHECK(sc_text_is_printable("a\\b \xc5\x8d", 6));
    SC_CHECK(!sc_text_is_printable("a\tb", 3));
    SC_CHECK(!sc_text_is_printable("\xc2\x9b", 2));
}

/* Cut to a length at a character's start, ending "..."; a short text is left alone. */
static void test_truncate(void)
{
    char s[32];
    snprintf(s, sizeof(s), "short");
    SC_CHECK_INT_EQ(sc_text_truncate(s, 5), 5);
    SC_CHECK_STR_EQ(s, "short");
    snprintf(s, sizeof(s), "abcdefghij");
    SC_CHECK_INT_EQ(sc_text_truncate(s, 6), 6);
    SC_CHECK_STR_EQ(s, "abc...");
    snprintf(s, sizeof(s), "ab\xe2\x82\xac\xe2\x82\xac"); /* ab + two euro signs */
    SC_CHECK_INT_EQ(sc_text_truncate(s, 7), 5);
    SC_CHECK_STR_EQ(s, "ab...");
}

/* Repeats found with the index of the first equal text; NULL texts never repeat. */
static void test_find_repeats(void)
{
    const char *texts[] = {"a", "b", NULL, "a", "c", "b", NULL, "a"};
    size_t first[8], n = 8;
    SC_CHECK_INT_EQ(sc_text_find_repeats(texts, n, first), 0);
    const size_t want[] = {n, n, n, 0, n, 1, n, 0};
    for (size_t i = 0; i < n; i++)
        SC_CHECK_MSG(first[i] == want[i], "text %zu: first %zu, want %zu", i, first[i], want[i]);
    SC_CHECK_INT_EQ(sc_text_find_repeats(texts, 0, first), 0);
}

int main(void)
{
    SC_TEST_RUN(test_is_printable);
    SC_TEST_RUN(test_truncate);
    SC_TEST_RUN(test_find_repeats);
    SC_TEST_RUN(test_escape_table);
    SC_TEST_RUN(test_escape_output_is_safe);
    SC_TEST_RUN(test_is_safe);
    SC_TEST_RUN(test_escape_dup);
    return SC_TEST_RESULT();
}
