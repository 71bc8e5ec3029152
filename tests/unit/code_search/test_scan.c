/* The scan around the lexers: smart case with Unicode folding, ignore
 * rules and skipped files, path results, scope limits, bounds, truncation,
 * determinism across thread counts, snippets. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#include "cs_lex.h"
#include "cs_snippet.h"
#include "cs_test_util.h"
#include "cs_types.h"

#include <vthost/plugin.h>

#define TEXT (1u << CS_TEXT)
#define DEFS (1u << CS_DEF)
#define USES (1u << CS_USE)
#define PATHS (1u << CS_PATH)

static void expect_search(const char *root, const char *scope, const char *q,
                          unsigned cats, int max, const char *want)
{
    char *got = tu_search_paths(root, scope, q, cats, max, 0, 2);
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        print_error("query %s:\n  want %s\n  got  %s\n", q, want, got);
    assert_string_equal(got, want);
    free(got);
}

static void test_smart_case_unicode(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    tu_write(root, "u.txt", "Straße\nSTRASSE\nstrasse\nÉCOLE école École\nstraßE\n", -1);
    /* All lower-case: case-insensitive with full Unicode folding (ß = ss). */
    expect_search(root, NULL, "straße", TEXT, 20,
                  "T u.txt:1:1 T u.txt:2:1 T u.txt:3:1 T u.txt:5:1");
    /* A binary file (a NUL in its first 8 KiB) gives no hits, whichever
     * search finds the match: the byte scan, PCRE2 or the folding one. */
    tu_write(root, "bin.dat", "strasse Straße STRASSE\0", 24);
    expect_search(root, NULL, "école", TEXT, 20,
                  "T u.txt:4:1 T u.txt:4:8 T u.txt:4:15");
    /* An upper-case letter, ASCII or not, makes it case-sensitive. */
    expect_search(root, NULL, "ÉCOLE", TEXT, 20, "T u.txt:4:1");
    expect_search(root, NULL, "École", TEXT, 20, "T u.txt:4:15");
    expect_search(root, NULL, "STRASSE", TEXT, 20, "T u.txt:2:1");
    expect_search(root, NULL, "Straße", TEXT, 20, "T u.txt:1:1");
    /* ASCII queries fold ASCII letters. */
    expect_search(root, NULL, "strasse", TEXT, 20, "T u.txt:2:1 T u.txt:3:1");
    /* Identifiers fold too: a non-ASCII name is a definition and a usage. */
    tu_write(root, "g.py", "größe = 1\nprint(GRÖSSE)\n# größe\n", -1);
    expect_search(root, "g.py", "größe", 0, 20,
                  "D g.py:1:1 U g.py:2:7 T g.py:3:3");
    expect_search(root, "g.py", "GRÖSSE", 0, 20, "U g.py:2:7");
    tu_rmrf(root);
    free(root);
}

static void test_ignore_rules(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    char *outside = tu_mkdtemp();
    tu_write(outside, "secret.txt", "needle outside\n", -1);
    tu_write(root, ".gitignore",
             "# comment\n*.log\nbuild/\n!keep.log\n/rootonly.txt\ndocs/**/secret.md\n"
             "important.txt\n", -1);
    tu_write(root, ".ignore", "ignored_by_ignore.txt\n", -1);
    tu_write(root, "a/.gitignore", "local.txt\n!important.txt\n", -1);
    const char *files[] = {
        "x.log", "keep.log", "build/out.txt", "sub/build/y.txt", "rootonly.txt",
        "sub/rootonly.txt", "docs/a/b/secret.md", "docs/secret.md", "docs/public.md",
        "a/local.txt", "local.txt", "a/important.txt", "b/important.txt",
        "ignored_by_ignore.txt", ".hidden/h.txt", ".git/config", ".env", ".env.local",
        "build.txt", NULL};
    for (int i = 0; files[i]; i++)
        tu_write(root, files[i], "a needle here\n", -1);
    tu_write(root, "bin.dat", "needle\0binary", 13);
    char link[4096], target[4096];
    snprintf(target, sizeof target, "%s/secret.txt", outside);
    snprintf(link, sizeof link, "%s/link.txt", root);
    assert_int_equal(symlink(target, link), 0);
    snprintf(link, sizeof link, "%s/linkdir", root);
    assert_int_equal(symlink(outside, link), 0);

    expect_search(root, NULL, "needle", TEXT, 50,
                  "T .hidden/h.txt:1:3 T a/important.txt:1:3 T build.txt:1:3 "
                  "T docs/public.md:1:3 T keep.log:1:3 T local.txt:1:3 "
                  "T sub/rootonly.txt:1:3");
    /* Searching inside an ignored directory's sibling keeps ancestor rules. */
    expect_search(root, "sub", "needle", TEXT, 50, "T sub/rootonly.txt:1:3");
    /* A file named explicitly is searched even when a rule ignores it. */
    expect_search(root, "x.log", "needle", TEXT, 50, "T x.log:1:3");
    tu_rmrf(root);
    tu_rmrf(outside);
    free(root);
    free(outside);
}

static void test_paths_and_scope(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    tu_write(root, "needle_notes.md", "nothing\n", -1);
    tu_write(root, "needles/f.txt", "a needle\n", -1);
    tu_write(root, "other/Needle.c", "int needle;\n", -1);
    tu_write(root, "other/x.txt", "needle\n", -1);
    expect_search(root, NULL, "needle", PATHS, 20,
                  "P:needle_notes.md P:needles P:other/Needle.c");
    expect_search(root, NULL, "Needle", PATHS, 20, "P:other/Needle.c");
    /* A slash in the query matches against the whole relative path. */
    expect_search(root, NULL, "les/f", PATHS, 20, "P:needles/f.txt");
    /* Everything, in category order. */
    expect_search(root, NULL, "needle", 0, 20,
                  "D other/Needle.c:1:5 T needles/f.txt:1:3 T other/x.txt:1:1 "
                  "P:needle_notes.md P:needles P:other/Needle.c");
    /* The scope limits every category. */
    expect_search(root, "other", "needle", 0, 20,
                  "D other/Needle.c:1:5 T other/x.txt:1:1 P:other/Needle.c");
    expect_search(root, "other/x.txt", "needle", 0, 20, "T other/x.txt:1:1");
    tu_rmrf(root);
    free(root);
}

static void test_bounds_truncation(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    char name[64];
    for (int i = 0; i < 30; i++) {
        snprintf(name, sizeof name, "f%02d.c", i);
        tu_write(root, name, "int needle(void);\nint x = needle();\n// needle\n", -1);
    }
    char *s = tu_search(root, NULL, "needle", 0, 5, 0, 2);
    assert_string_equal(s, "D1:5 D1:5 D1:5 D1:5 D1:5 +");
    free(s);
    s = tu_search_paths(root, NULL, "needle", 0, 3, 0, 2);
    assert_string_equal(s, "D f00.c:1:5 D f01.c:1:5 D f02.c:1:5 +");
    free(s);
    /* Exactly max_results candidates: not truncated; one fewer: truncated. */
    s = tu_search(root, NULL, "needle", USES, 30, 0, 2);
    assert_non_null(s);
    assert_null(strstr(s, "+"));
    free(s);
    s = tu_search(root, NULL, "needle", USES, 29, 0, 2);
    assert_non_null(strstr(s, " +"));
    free(s);
    /* Text only: a file with many matches is cut at the bound. */
    char big[4000] = "";
    for (int i = 0; i < 200; i++)
        strcat(big, "needle ");
    tu_write(root, "big.txt", big, -1);
    s = tu_search_paths(root, "big.txt", "needle", TEXT, 3, 0, 1);
    assert_string_equal(s, "T big.txt:1:1 T big.txt:1:8 T big.txt:1:15 +");
    free(s);
    /* Usages fill the bound early, yet a definition in the last file still
     * comes first: later files are scanned for the categories that can
     * still be returned. */
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "p/f%02d.c", i);
        tu_write(root, name, i == 19 ? "void g(void) { needle(); needle(); }\n// needle\nint needle(void);\n"
                                     : "void g(void) { needle(); needle(); }\n// needle\n", -1);
    }
    for (int th = 1; th <= 4; th *= 2) {
        s = tu_search_paths(root, "p", "needle", 0, 3, 0, th);
        assert_string_equal(s, "D p/f19.c:3:5 U p/f00.c:1:16 U p/f00.c:1:26 +");
        free(s);
        s = tu_search_paths(root, "p", "needle", USES | TEXT, 41, 0, th);
        assert_non_null(strstr(s, "U p/f19.c:1:26 T p/f00.c:2:4 +"));
        free(s);
    }
    /* The same output whatever the thread count (early stop included). */
    char *ref = tu_search_paths(root, NULL, "needle", 0, 7, 0, 1);
    for (int th = 2; th <= 8; th *= 2)
        for (int rep = 0; rep < 3; rep++) {
            s = tu_search_paths(root, NULL, "needle", 0, 7, 0, th);
            assert_string_equal(s, ref);
            free(s);
        }
    free(ref);
    ref = tu_search_paths(root, NULL, "needle", TEXT | PATHS, 100, 0, 1);
    s = tu_search_paths(root, NULL, "needle", TEXT | PATHS, 100, 0, 4);
    assert_string_equal(s, ref);
    free(s);
    free(ref);
    tu_rmrf(root);
    free(root);
}

static void test_snippet(void **state)
{
    (void)state;
    char *s = cs_snippet("  int\t\tx  =   1;   ", 19, 2);
    assert_string_equal(s, "int x = 1;");
    free(s);
    /* A long line with multi-byte characters: a window around the match,
     * at most 240 bytes, cut on character boundaries. */
    char line[3000] = "";
    for (int i = 0; i < 300; i++)
        strcat(line, "é");  /* 600 bytes */
    size_t at = strlen(line);
    strcat(line, "NEEDLE");
    for (int i = 0; i < 300; i++)
        strcat(line, "ü");
    s = cs_snippet(line, strlen(line), at);
    assert_true(strlen(s) <= CS_SNIPPET_MAX);
    assert_non_null(strstr(s, "NEEDLE"));
    utf8proc_uint8_t *out = NULL;
    assert_true(utf8proc_map((const utf8proc_uint8_t *)s, 0, &out, UTF8PROC_NULLTERM) >= 0);
    free(out);
    free(s);
    /* Invalid UTF-8 becomes U+FFFD. */
    s = cs_snippet("a\xff" "b", 3, 0);
    assert_string_equal(s, "a\xEF\xBF\xBD" "b");
    free(s);
}

static void test_columns_bytes(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    tu_write(root, "c.rs", "// ünïcode\r\nfn ünï() {}\r\nlet x = ünï();\r\n", -1);
    expect_search(root, NULL, "ünï", 0, 20, "D c.rs:2:4 U c.rs:3:9 T c.rs:1:4");
    tu_rmrf(root);
    free(root);
}

/* One text set: a match that is not returned as a definition or usage is
 * text, whichever other categories are requested. */
static void test_text_is_one_set(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    tu_write(root, "t.c", "int calc(int x);\n"     /* 1: definition */
                          "int y = calc(2);\n"      /* 2: usage */
                          "/* calc here */\n"       /* 3: text */
                          "int calcx;\n", -1);      /* 4: text (longer name) */
    expect_search(root, NULL, "calc", 0, 20,
                  "D t.c:1:5 U t.c:2:9 T t.c:3:4 T t.c:4:5");
    expect_search(root, NULL, "calc", TEXT, 20, "T t.c:1:5 T t.c:2:9 T t.c:3:4 T t.c:4:5");
    expect_search(root, NULL, "calc", DEFS | TEXT, 20,
                  "D t.c:1:5 T t.c:2:9 T t.c:3:4 T t.c:4:5");
    expect_search(root, NULL, "calc", USES | TEXT, 20,
                  "U t.c:2:9 T t.c:1:5 T t.c:3:4 T t.c:4:5");
    expect_search(root, NULL, "calc", DEFS | USES, 20, "D t.c:1:5 U t.c:2:9");
    expect_search(root, NULL, "calc", DEFS, 20, "D t.c:1:5");
    tu_rmrf(root);
    free(root);
}

/* An empty workspace, or an empty directory as the scope, is an empty
 * result (it once sorted a NULL array, which the sanitizers abort on). */
static void test_empty_scope(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    expect_search(root, NULL, "anything", 0, 20, "");
    expect_search(root, NULL, "anything", PATHS, 20, "");
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/empty", root);
    assert_int_equal(mkdir(sub, 0755), 0);
    tu_write(root, "full/a.c", "int anything;\n", -1);
    expect_search(root, "empty", "anything", 0, 20, "");
    expect_search(root, "empty", "anything", TEXT | PATHS, 20, "");
    tu_rmrf(root);
    free(root);
}

/* JS/TS regex literals ending in a backslash at the end of the buffer: no
 * token may end past the data (the lexer once stepped over it twice). */
static void test_lexer_trailing_backslash(void **state)
{
    (void)state;
    static const char *const inputs[] = {"x = /ab\\", "/\\", "a(/[\\", "`${/\\",
                                         "s = '\\", "`\\"};
    static const int lexers[] = {CS_LEX_JS, CS_LEX_JSX, CS_LEX_TS, CS_LEX_TSX};
    cs_toks t = {0};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        for (size_t l = 0; l < sizeof lexers / sizeof lexers[0]; l++) {
            size_t len = strlen(inputs[i]);
            char *copy = malloc(len);  /* exact size: ASan sees any over-read */
            memcpy(copy, inputs[i], len);
            assert_int_equal(cs_lex(lexers[l], copy, len, &t), 0);
            for (size_t k = 0; k < t.n; k++) {
                assert_true(t.v[k].start <= t.v[k].end);
                assert_true(t.v[k].end <= len);
            }
            assert_int_equal(cs_decl_mark(lexers[l], copy, &t), 0);
            free(copy);
        }
    cs_toks_free(&t);
}

/* Workers claim neighbouring files in batches: the output is the same on
 * one thread and on several, bounded or not; a cancelled search stops
 * within a file of each worker and says so. */
static int cancel_after(void *ud)
{
    int *calls = ud;
    return __atomic_add_fetch(calls, 1, __ATOMIC_SEQ_CST) > 40;
}

static void test_batches_and_cancel(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    char rel[64], body[64];
    for (int d = 0; d < 40; d++)
        for (int f = 0; f < 12; f++) {
            snprintf(rel, sizeof rel, "d%02d/f%02d.c", d, f);
            snprintf(body, sizeof body, "%*sint needle_%d;\n", f, "", d);
            tu_write(root, rel, body, -1);
        }
    for (int max = 1; max <= 100; max += 33) {
        char *one = tu_search_paths(root, NULL, "needle", TEXT, max, 0, 1);
        char *two = tu_search_paths(root, NULL, "needle", TEXT, max, 0, 2);
        char *four = tu_search_paths(root, NULL, "needle", 0, max, 0, 4);
        char *four1 = tu_search_paths(root, NULL, "needle", 0, max, 0, 1);
        assert_non_null(one);
        assert_string_equal(one, two);
        assert_string_equal(four, four1);
        free(one);
        free(two);
        free(four);
        free(four1);
    }
    int calls = 0;
    cs_options o = {.root = root, .scope = root, .query = "needle", .categories = TEXT,
                    .max_results = 100, .threads = 2, .cancelled = cancel_after,
                    .cancel_ud = &calls};
    cs_output out;
    char *err = NULL;
    assert_int_equal(cs_search(&o, &out, &err), VT_ERR_CANCELLED);
    assert_string_equal(err, "cancelled");
    assert_true(calls <= 41 + 2);
    free(err);
    tu_rmrf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_smart_case_unicode),
        cmocka_unit_test(test_ignore_rules),
        cmocka_unit_test(test_paths_and_scope),
        cmocka_unit_test(test_bounds_truncation),
        cmocka_unit_test(test_snippet),
        cmocka_unit_test(test_columns_bytes),
        cmocka_unit_test(test_text_is_one_set),
        cmocka_unit_test(test_empty_scope),
        cmocka_unit_test(test_lexer_trailing_backslash),
        cmocka_unit_test(test_batches_and_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
