/* Per-language fixtures with known answers: for each query, every match
 * in the fixture with its category (D definition, U usage, T text) and
 * line:column.  The fixtures hold the declaration forms of each language
 * and the same names inside comments, strings, raw strings, template
 * literals, heredocs, JSX text and nested comments, which must stay text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test_util.h"
#include "cs_types.h"

typedef struct expect { const char *file, *query, *want; } expect;

static const expect CASES[] = {
    /* C: macro, typedef struct/func pointer, enum constants, file-level
     * variables (several declarators), prototype + definition; the name in
     * a comment and a string is text. */
    {"lang/sample.c", "find_item", "D7:14 D15:14 U9:35 T8:4 T11:22"},
    {"lang/sample.c", "MAX_ITEMS", "D2:9 U13:29"},
    {"lang/sample.c", "item_t", "D3:33 U12:5"},
    {"lang/sample.c", "cmp_fn", "D4:15"},
    {"lang/sample.c", "RED", "D5:14 U13:41"},
    {"lang/sample.c", "GREEN", "D5:19"},
    {"lang/sample.c", "counter", "D6:12 U13:19"},
    {"lang/sample.c", "other", "D6:25"},
    {"lang/sample.c", "helper", "D9:12 U13:12"},
    {"lang/sample.c", "main", "D10:5"},
    /* C++: namespace, class, constructor, method prototype and out-of-class
     * definition, using alias, template function, raw string R"delim(...)". */
    {"lang/sample.cpp", "Point", "D3:7 D5:5 U10:31 U12:5 U15:18 T10:7 T14:27"},
    {"lang/sample.cpp", "norm", "D6:9 D12:12 U15:42"},
    {"lang/sample.cpp", "geo", "D2:11 U15:13"},
    {"lang/sample.cpp", "PointList", "D10:7"},
    {"lang/sample.cpp", "twice", "D11:25 U15:51"},
    {"lang/sample.cpp", "raw", "D14:13 T14:39"},
    /* Rust: nested block comment, raw string r#"..."#, char vs lifetime. */
    {"lang/sample.rs", "Widget", "D4:12 U10:26 U14:36 U16:6 U17:17 U20:9 T1:20 T1:46 T10:6 T18:25"},
    {"lang/sample.rs", "LIMIT", "D12:7 U14:51"},
    {"lang/sample.rs", "COUNTER", "D13:12"},
    {"lang/sample.rs", "make_widget", "D14:14"},
    {"lang/sample.rs", "Shape", "D8:10"},
    {"lang/sample.rs", "Drawable", "D9:7"},
    {"lang/sample.rs", "WidgetRef", "D10:6"},
    {"lang/sample.rs", "widgets", "D11:5"},
    /* Go: grouped type/var declarations, method with receiver, raw `...`. */
    {"lang/sample.go", "Server", "D6:6 U16:18 U20:10 U22:19 U23:7 T5:4 T16:9 T20:45 T22:9 T23:21"},
    {"lang/sample.go", "Handler", "D9:2"},
    {"lang/sample.go", "Port", "D10:2"},
    {"lang/sample.go", "MaxConn", "D13:7"},
    {"lang/sample.go", "defaultServer", "D16:2"},
    {"lang/sample.go", "verbose", "D17:2"},
    {"lang/sample.go", "Start", "D20:18"},
    /* Python: docstring, f/rb prefixes, triple quotes, module-level
     * assignments (plain and annotated); all lower-case matches Parser. */
    {"lang/sample.py", "parser", "D8:5 D13:7 U14:21 U20:16 U23:10 T1:30 T4:1 T5:1 T9:7 T15:15 T15:23 T16:16 T18:9"},
    {"lang/sample.py", "Parser", "D13:7"},
    {"lang/sample.py", "PARSER_LIMIT", "D4:1"},
    {"lang/sample.py", "parser_cache", "D5:1"},
    /* JavaScript with JSX: template literal with ${} code, regex literal,
     * JSX attribute string and text (with an apostrophe), class method. */
    {"lang/sample.js", "render", "D4:17 D10:3 U5:33 U6:45 U15:34 T1:4 T5:18 T6:22 T6:66 T11:13 T11:27 T15:7 T16:5"},
    {"lang/sample.js", "View", "D9:7"},
    {"lang/sample.js", "renderAll", "D15:7"},
    {"lang/sample.js", "twice", "T6:73"},
    /* TypeScript: interface, type alias, enum, namespace, class, method. */
    {"lang/sample.ts", "Store", "D1:11 U5:37 U8:14 U9:25 T2:6 T4:11 T5:20 T8:32 T9:13 T10:4"},
    {"lang/sample.ts", "StoreKey", "D2:6"},
    {"lang/sample.ts", "Mode", "D3:6"},
    {"lang/sample.ts", "Stores", "D4:11"},
    {"lang/sample.ts", "MemoryStore", "D5:14 U8:26"},
    {"lang/sample.ts", "useStore", "D9:10"},
    /* TSX: generic call vs JSX, nested template literals, JSX text with an
     * apostrophe, a component tag as a usage, an attribute name as text. */
    {"lang/sample.tsx", "Banner", "D3:17 U5:42 U8:65 T5:16 T5:59 T6:58 T8:14"},
    {"lang/sample.tsx", "BannerList", "D8:14"},
    {"lang/sample.tsx", "Props", "D2:6 U3:35 U8:35"},
    {"lang/sample.tsx", "setOpen", "U4:16"},
    {"lang/sample.tsx", "title", "U2:16 U3:26 U8:81 T8:72"},
    /* Java: class, constructor, method with throws, static constant, text
     * block, nested interface/enum/record, javadoc. */
    {"lang/Sample.java", "Account", "D4:14 D8:12 U17:36 U19:18 T3:5 T12:13"},
    {"lang/Sample.java", "MAX_ACCOUNTS", "D5:22"},
    {"lang/Sample.java", "deposit", "D10:16"},
    {"lang/Sample.java", "Ledger", "D17:15"},
    {"lang/Sample.java", "Kind", "D18:10"},
    {"lang/Sample.java", "Entry", "D19:12"},
    /* Shell: function forms, assignments (plain and export), heredoc body,
     * comments, quoted arguments, $VAR in double quotes. */
    {"lang/sample.sh", "deploy", "D6:1 U15:5 U18:1 T2:3 T3:1 T4:8 T4:20 T8:11 T8:25 T10:1 T15:14 T18:9"},
    {"lang/sample.sh", "DEPLOY_DIR", "D3:1 U8:25 U15:14"},
    {"lang/sample.sh", "DEPLOY_USER", "D4:8"},
    {"lang/sample.sh", "rollback", "D14:10"},
    /* More declaration forms: Rust qualifiers, Go generics and multi-name
     * var, Python async/nested/tuple assignment (class attributes are not
     * module-level), JS class members (static, generator, getter, #private)
     * vs object-literal methods, C inline functions, function-like macros,
     * forward declarations (usages), function-pointer variables and
     * parameters, Java annotations, generic methods, static fields, shell
     * function forms and assignments after readonly and inside if. */
    {"forms/m.rs", "fetch", "D1:21 U5:21 T5:5"},
    {"forms/m.rs", "raw_ptr", "D2:11"},
    {"forms/m.rs", "limit", "D3:14"},
    {"forms/m.rs", "method", "D4:19"},
    {"forms/m.go", "List", "D2:6 U3:10"},
    {"forms/m.go", "Push", "D3:19"},
    {"forms/m.go", "Map", "D4:6"},
    {"forms/m.go", "x", "D5:5 T4:20"},
    {"forms/m.go", "y", "D5:8 T2:2 T2:15 T4:17"},
    {"forms/m.py", "fetch", "D2:11"},
    {"forms/m.py", "Inner", "D5:11"},
    {"forms/m.py", "method", "D6:13"},
    {"forms/m.py", "attr", "U7:5"},
    {"forms/m.py", "b", "D8:4"},
    {"forms/m.js", "Widget", "D1:22 U2:32"},
    {"forms/m.js", "create", "D2:10"},
    {"forms/m.js", "items", "D3:10"},
    {"forms/m.js", "size", "D4:7"},
    {"forms/m.js", "secret", "D5:4"},
    {"forms/m.js", "gen", "D7:24"},
    {"forms/m.js", "method", "U8:15"},
    {"forms/m.js", "helper", "D10:10 U9:10"},
    {"forms/m.c", "add", "D1:19"},
    {"forms/m.c", "SQUARE", "D2:9"},
    {"forms/m.c", "fwd", "U3:8 U4:8 T4:18"},
    {"forms/m.c", "make_fwd", "D4:13"},
    {"forms/m.c", "handler", "D5:7"},
    {"forms/m.c", "big_counter", "D6:20"},
    {"forms/m.c", "names", "D7:13"},
    {"forms/m.c", "register_cb", "D8:6"},
    {"forms/m.c", "cb", "U8:25 T8:15"},
    {"forms/M.java", "Marker", "D1:19"},
    {"forms/M.java", "Box", "D2:7"},
    {"forms/M.java", "map", "D3:18"},
    {"forms/M.java", "NAME", "D4:32"},
    {"forms/M.java", "run", "D5:19"},
    {"forms/m.sh", "setup", "D1:10"},
    {"forms/m.sh", "cleanup", "D4:1"},
    {"forms/m.sh", "VERSION", "D5:10"},
    {"forms/m.sh", "LEVEL", "D6:15"},
};

static void test_fixtures(void **state)
{
    (void)state;
    int failed = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const expect *e = &CASES[i];
        char scope[4096];
        snprintf(scope, sizeof scope, "%s/%s", CS_FIXTURES, e->file);
        char *got = tu_search(CS_FIXTURES, scope, e->query, 7, 100, 0, 1);
        assert_non_null(got);
        if (strcmp(got, e->want) != 0) {
            print_error("%s %s:\n  want %s\n  got  %s\n", e->file, e->query, e->want, got);
            failed++;
        }
        free(got);
    }
    assert_int_equal(failed, 0);
}

/* The same answers with all categories at once and several threads: the
 * whole fixture directory, definitions first, deterministic. */
static void test_all_files_order(void **state)
{
    (void)state;
    char *a = tu_search_paths(CS_FIXTURES "/lang", NULL, "Point", 0, 100, 0, 4);
    char *b = tu_search_paths(CS_FIXTURES "/lang", NULL, "Point", 0, 100, 0, 1);
    assert_non_null(a);
    assert_non_null(b);
    assert_string_equal(a, b);
    assert_string_equal(a, "D sample.cpp:3:7 D sample.cpp:5:5 U sample.cpp:10:31 "
                           "U sample.cpp:12:5 U sample.cpp:15:18 T sample.cpp:10:7 "
                           "T sample.cpp:14:27");
    free(a);
    free(b);
}

static void test_file_types(void **state)
{
    (void)state;
    int rust = cs_lang_lookup("rust");
    assert_true(rust >= 0);
    assert_int_equal(cs_lang_lookup("rs"), rust);
    assert_int_equal(cs_lang_lookup(".rs"), rust);
    assert_int_equal(cs_lang_lookup("RUST"), rust);
    assert_string_equal(cs_lang_name(cs_lang_lookup(".h")), "c");
    assert_string_equal(cs_lang_name(cs_lang_lookup("hpp")), "cpp");
    assert_string_equal(cs_lang_name(cs_lang_lookup("tsx")), "tsx");
    assert_string_equal(cs_lang_name(cs_lang_lookup("yml")), "yaml");
    assert_string_equal(cs_lang_name(cs_lang_lookup("bash")), "bash");
    assert_string_equal(cs_lang_name(cs_lang_lookup("shell")), "bash");
    assert_string_equal(cs_lang_name(cs_lang_lookup("markdown")), "md");
    assert_int_equal(cs_lang_lookup("cobol"), -1);
    assert_int_equal(cs_lang_lookup("."), -1);
    assert_int_equal(cs_lang_lookup(""), -1);
    char *known = cs_lang_known();
    assert_non_null(strstr(known, "python"));
    assert_non_null(strstr(known, "typescript"));
    free(known);
    int lexer;
    assert_int_equal(cs_lang_of_file("main.RS", &lexer), rust);
    assert_int_equal(lexer, CS_LEX_RUST);
    cs_lang_of_file("App.tsx", &lexer);
    assert_int_equal(lexer, CS_LEX_TSX);
    cs_lang_of_file("app.ts", &lexer);
    assert_int_equal(lexer, CS_LEX_TS);
    assert_int_equal(cs_lang_of_file("README", &lexer), -1);
    assert_int_equal(lexer, CS_LEX_NONE);
}

/* Every canonical name of the original tool, and its extension aliases. */
static void test_all_languages(void **state)
{
    (void)state;
    static const char *const canon[] = {
        "rust", "python", "javascript", "typescript", "tsx", "go", "java", "md", "c", "cpp",
        "csharp", "css", "html", "json", "yaml", "ruby", "php", "kotlin", "swift", "lua",
        "bash", "sql", "scala", "elixir", "dockerfile", "toml", "hcl", "dart", "zig",
        "proto", "haskell", "nix", "solidity"};
    int defs = 0, uses = 0;
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
        int l = cs_lang_lookup(canon[i]);
        if (l < 0)
            print_error("unknown language %s\n", canon[i]);
        assert_true(l >= 0);
        assert_string_equal(cs_lang_name(l), canon[i]);
        defs += (cs_lang_support(l) & CS_SUPPORT_DEF) != 0;
        uses += (cs_lang_support(l) & CS_SUPPORT_USE) != 0;
    }
    assert_true(defs >= 25);
    assert_true(uses >= 12);
    static const char *const alias[][2] = {
        {".h", "c"}, {"cc", "cpp"}, {"cxx", "cpp"}, {"hpp", "cpp"}, {"hxx", "cpp"},
        {"hh", "cpp"}, {"cu", "cpp"}, {"ino", "cpp"}, {"c++", "cpp"}, {"py3", "python"},
        {"pyi", "python"}, {"bzl", "python"}, {"jsx", "javascript"}, {"cjs", "javascript"},
        {"mjs", "javascript"}, {"cts", "typescript"}, {"mts", "typescript"}, {"mdx", "md"},
        {"jsonc", "json"}, {"zsh", "bash"}, {"bats", "bash"}, {"ksh", "bash"}, {"tf", "hcl"},
        {"tfvars", "hcl"}, {"rb", "ruby"}, {"php", "php"}, {"kt", "kotlin"},
        {"kts", "kotlin"}, {"swift", "swift"}, {"cs", "csharp"}, {"lua", "lua"},
        {"scala", "scala"}, {"sc", "scala"}, {"ex", "elixir"}, {"exs", "elixir"},
        {"hs", "haskell"}, {"nix", "nix"}, {"sol", "solidity"}, {"dart", "dart"},
        {"zig", "zig"}, {"proto", "proto"}, {"sql", "sql"}, {"toml", "toml"},
        {"yaml", "yaml"}, {"yml", "yaml"}, {"css", "css"}, {"html", "html"}, {"htm", "html"},
        {"md", "md"}, {"json", "json"}, {".tsx", "tsx"}, {"sh", "bash"},
        /* vthost's older names stay accepted */
        {"shell", "bash"}, {"markdown", "md"}, {"cmake", "cmake"}, {"make", "make"},
        {"text", "text"}, {"xml", "xml"}};
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++) {
        int l = cs_lang_lookup(alias[i][0]);
        if (l < 0 || strcmp(cs_lang_name(l), alias[i][1]) != 0)
            print_error("%s -> %s, want %s\n", alias[i][0], l < 0 ? "?" : cs_lang_name(l),
                        alias[i][1]);
        assert_true(l >= 0);
        assert_string_equal(cs_lang_name(l), alias[i][1]);
    }
    int lexer;
    assert_string_equal(cs_lang_name(cs_lang_of_file("Dockerfile", &lexer)), "dockerfile");
    assert_int_equal(lexer, CS_LEX_DOCKERFILE);
    assert_string_equal(cs_lang_name(cs_lang_of_file("Dockerfile.build", &lexer)),
                        "dockerfile");
    assert_string_equal(cs_lang_name(cs_lang_of_file("main.tf", &lexer)), "hcl");
    assert_string_equal(cs_lang_name(cs_lang_of_file("x.C++", &lexer)), "cpp");
}

/* A file_types filter keeps only those languages. */
static void test_type_filter(void **state)
{
    (void)state;
    uint64_t mask = (uint64_t)1 << cs_lang_lookup("go");
    char *s = tu_search_paths(CS_FIXTURES "/lang", NULL, "server", 7, 100, mask, 2);
    assert_non_null(s);
    assert_null(strstr(s, ".rs"));
    assert_non_null(strstr(s, "D sample.go:6:6"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixtures),
        cmocka_unit_test(test_all_files_order),
        cmocka_unit_test(test_file_types),
        cmocka_unit_test(test_type_filter),
        cmocka_unit_test(test_all_languages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
