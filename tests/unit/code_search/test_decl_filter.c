/* The declaration pre-checks of C and C++ (cs_decl_clike_possible on
 * tokens, cs_decl_clike_raw_possible on bytes before lexing): a file
 * whose matches all fail one is not marked (or not lexed), so neither
 * may say 0 for a token the full marking calls a declaration.  Checked token by
 * token on the fixtures, on a file of the forms at the edges of its
 * rules, on random programs of the pieces the rules look at, on vthost's
 * own sources, and on every C/C++ file under the directories listed in
 * $CS_DECL_FILTER_TREES (colon-separated; /usr/include is a good one);
 * then through a whole search. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cs_lex.h"
#include "cs_test_util.h"
#include "cs_types.h"

/* Declaration forms next to their usages, the edges of every rule. */
static const char EDGES[] =
    "#define size_t unsigned long\n"
    "typedef unsigned long size_t;\n"
    "typedef int (*size_t)(int);\n"
    "struct size_t final { int a; };\n"
    "struct __attribute__((packed)) size_t x { int b; };\n"
    "namespace size_t { }\n"
    "using size_t = unsigned;\n"
    "template <class T> struct size_t<T *> { };\n"
    "enum e { size_t, b = size_t, size_t __attribute__((deprecated)), c };\n"
    "enum f {\n#if X\n size_t\n#endif\n};\n"
    "enum g { a = sizeof(struct { int x; }), size_t };\n"
    "enum h\n#define Y {\n{ size_t };\n"
    "typedef enum { size_t } k;\n"
    "struct m { size_t a; enum { size_t } e; size_t b; };\n"
    "size_t size_t;\n"
    "int a, size_t;\n"
    "int size_t[4];\n"
    "int (*size_t)(void);\n"
    "size_t f(size_t n, size_t m) { return (size_t)n * sizeof(size_t); }\n"
    "static inline size_t *g(const size_t *p, size_t) { size_t q = 0; return 0; }\n"
    /* what the lexer hides from the bytes: a directive's '(' or a
     * continued directive before an enumerator, a '(' in a literal */
    "enum i {\n#define F(x\n a, size_t };\n"
    "enum j {\n#define X \\\n a\n size_t };\n"
    "enum l { a = \"(\", size_t, b = '[', size_t };\n"
    /* constructors: a name and '(' at a statement start in a class body */
    "struct c { size_t() {} };\n"
    "struct d { int a; size_t() : a(0) {} };\n"
    "struct e { void f() {} size_t() {} };\n"
    "struct f {\n#if X\n#endif\n size_t() {} };\n"
    /* brackets that leave paren depth 0 for a variable or typedef name */
    "typedef int t1[size_t, 2];\n"
    "typedef ) (size_t, t2);\n"
    "f ( ] int size_t, y;\n"
    "F(x) int size_t;\n"
    "G(x)\nint size_t = 1, b;\n";

/* Forms each on its own (one file each: an earlier form must not make
 * up for a later one).  Braces the raw pre-check's enum scan must not
 * count, in a comment, a literal or a directive; an enum inside braces
 * that the statement still holds; a C++ raw string it cannot follow;
 * literals left open to the end of their line. */
static const char *const ENUM_EDGES[] = {
    "enum n { /* } */ a, size_t };\n",
    "enum n { // }\n a, size_t };\n",
    "enum o { a = \"}\", size_t };\n",
    "enum o { a = '}', size_t };\n",
    "enum q {\n#define Z }\n a, size_t };\n",
    "enum q {\n#define Z {\n a, size_t };\nstruct z { int a; };\n",
    "x = { enum p e; } { size_t };\n",
    "enum r { a = 1'0, size_t, b = '}', size_t };\n",
    "enum r { a = 1'0 }; enum s { size_t };\n",
    "enum u { a = sizeof R\"x(\" } \")x\", size_t };\n",
    "#include <a/*>\nenum v { a, size_t };\n/* */\n",
    "enum w { a = \"x (\n, size_t };\n",
    "enum w { a = 'x (\n, size_t };\n",
    /* comments between an enumerator and the ',' before it, where the
     * byte pre-check must find where the comment really starts */
    "enum y { a,\n/* c */\n/* d */\nsize_t };\n",
    "enum y { a,\n/*/ x\n/* y */\nsize_t };\n",
    "enum y { a = \"/*\", /* x */\nsize_t };\n",
    "enum y { a = 1 //\n/* c */ , /* d */\nsize_t };\n",
    "enum y { a =\n/* c */ b,\n/* d */\nsize_t };\n",
    /* a statement's start inside a literal left open to the line's end */
    "\"x; (\nint size_t, b;\n",
    "'x; (\nint size_t, b;\n",
};

/* Every token marked a declaration must pass the pre-check; returns the
 * number of tokens that failed (and prints them). */
static int check_buf(const char *name, const char *buf, size_t len, int lexer)
{
    cs_toks t = {0};
    int bad = 0;
    if (cs_lex(lexer, buf, len, &t) == 0 && cs_decl_mark(lexer, buf, &t) == 0) {
        cs_raw_enum tre, re; /* the token and the raw pre-check's */
        cs_raw_enum_init(&tre, lexer);
        cs_raw_enum_init(&re, lexer);
        for (size_t k = 0; k < t.n; k++) {
            const cs_tok *tk = &t.v[k];
            if (!tk->def || tk->kind != 'i')
                continue;
            if (!cs_decl_clike_possible(buf, len, &t, k, &tre) && ++bad)
                print_error("%s: declaration '%.*s' at byte %u fails the pre-check\n", name,
                            (int)(tk->end - tk->start), buf + tk->start, tk->start);
            if (!cs_decl_clike_raw_possible(buf, len, tk->start, tk->end, &re) && ++bad)
                print_error("%s: declaration '%.*s' at byte %u fails the raw pre-check\n", name,
                            (int)(tk->end - tk->start), buf + tk->start, tk->start);
        }
    }
    cs_toks_free(&t);
    return bad;
}

static int check_file(const char *path)
{
    const char *slash = strrchr(path, '/');
    int lexer = -1;
    if (cs_lang_of_file(slash ? slash + 1 : path, &lexer) < 0 ||
        (lexer != CS_LEX_C && lexer != CS_LEX_CPP))
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *buf = NULL;
    size_t len = 0, cap = 0, r;
    char chunk[65536];
    while ((r = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + r + 64 > cap) {
            cap = (len + r + 64) * 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        memcpy(buf + len, chunk, r);
        len += r;
    }
    fclose(f);
    int bad = 0;
    if (buf) {
        memset(buf + len, 0, 64);
        if (!memchr(buf, '\0', len < 8192 ? len : 8192))
            bad = check_buf(path, buf, len, lexer);
    }
    free(buf);
    return bad;
}

static int check_tree(const char *dir, size_t *files)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            bad += check_tree(path, files);
        else if (S_ISREG(st.st_mode) && ++*files)
            bad += check_file(path);
    }
    closedir(d);
    return bad;
}

static void test_never_misses_a_declaration(void **state)
{
    (void)state;
    assert_int_equal(check_buf("edges.c", EDGES, sizeof EDGES - 1, CS_LEX_C), 0);
    assert_int_equal(check_buf("edges.cpp", EDGES, sizeof EDGES - 1, CS_LEX_CPP), 0);
    for (size_t i = 0; i < sizeof ENUM_EDGES / sizeof *ENUM_EDGES; i++) {
        assert_int_equal(check_buf("enum.c", ENUM_EDGES[i], strlen(ENUM_EDGES[i]), CS_LEX_C), 0);
        assert_int_equal(check_buf("enum.cpp", ENUM_EDGES[i], strlen(ENUM_EDGES[i]), CS_LEX_CPP),
                         0);
    }
    size_t files = 0;
    assert_int_equal(check_tree(CS_FIXTURES, &files), 0);
    /* vthost's own sources: real C of many forms, always at hand. */
    static const char *const own[] = {"host", "plugins", "sdk", "tests/unit"};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", CS_SOURCE_DIR, own[i]);
        assert_int_equal(check_tree(dir, &files), 0);
    }
    const char *trees = getenv("CS_DECL_FILTER_TREES");
    if (trees && *trees) {
        char *copy = strdup(trees), *save = NULL;
        for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
            assert_int_equal(check_tree(p, &files), 0);
        free(copy);
    }
    print_message("checked %zu files\n", files);
}

/* Pieces of C and C++ that the declaration rules look at: names, the
 * keywords they test, every punctuator they branch on, directives. */
static const char *const PIECES[] = {
    "size_t", "a", "T", "size_t", "int", "unsigned", "struct", "union", "enum", "class",
    "typedef", "namespace", "using", "static", "const", "extern", "template", "final",
    "__attribute__((x))", "__declspec(y)", "operator", "return", "sizeof", "{", "}", "(", ")",
    "[", "]", ";", ",", "=", "*", "&", "<", ">", ":", "::", "~", "->", ".", "\"C\"", "0", "(*",
    ")(int)", "size_t)",
    "\n#define size_t ", "\n#define F(x) ", "\n#if X\n", "\n#endif\n", "\n", "/* c */",
    "// c struct\n", "\\\n", "\n#define G(", "\"(\"", "'['", "\"}\"", "'{'", "/* } */", "// {\n",
};

/* Random programs made of PIECES (a fixed seed: the same ones every run):
 * whatever a rule added to the marking, some of them exercise it, and a
 * declaration it finds that the pre-check refuses fails here, not only on
 * the trees CS_DECL_FILTER_TREES names. */
static void test_random_programs(void **state)
{
    (void)state;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    const size_t npieces = sizeof PIECES / sizeof *PIECES;
    char buf[2048];
    int bad = 0;
    for (int prog = 0; prog < 40000 && bad < 5; prog++) {
        size_t len = 0;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int count = 4 + (int)((seed >> 33) % 40);
        for (int i = 0; i < count; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const char *p = PIECES[(seed >> 33) % npieces];
            size_t n = strlen(p);
            if (len + n + 2 + 64 >= sizeof buf)
                break;
            memcpy(buf + len, p, n);
            len += n;
            buf[len++] = ' ';
        }
        memset(buf + len, 0, 64);
        int lexer = prog % 2 ? CS_LEX_CPP : CS_LEX_C;
        bad += check_buf(prog % 2 ? "random.cpp" : "random.c", buf, len, lexer);
        if (bad)
            print_error("program %d: %.*s\n", prog, (int)len, buf);
    }
    assert_int_equal(bad, 0);
}

/* The plain usages are still usages and the declarations still found,
 * in a file with enum and one without. */
static void test_search(void **state)
{
    (void)state;
    char *root = tu_mkdtemp();
    tu_write(root, "a.h",
             "typedef unsigned long size_t;\n"
             "size_t f(size_t n, const size_t *p);\n"
             "static size_t g(int a, size_t b) { return (size_t)a; }\n",
             -1);
    tu_write(root, "b.h", "enum { x, size_t };\nint h(int a, size_t b);\n", -1);
    tu_write(root, "c.h", "int k(int a, size_t b);\nstruct s { size_t len; };\n", -1);
    char *got = tu_search_paths(root, NULL, "size_t", 0, 100, 0, 1);
    assert_non_null(got);
    assert_string_equal(got, "D a.h:1:23 D b.h:1:11 U a.h:2:1 U a.h:2:10 U a.h:2:26 U a.h:3:8 "
                             "U a.h:3:24 U a.h:3:44 U b.h:2:14 U c.h:1:14 U c.h:2:12");
    free(got);
    tu_rmrf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_misses_a_declaration),
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
