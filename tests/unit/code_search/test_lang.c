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
    /* The other languages of the original (fixtures/langs): per file, the
     * declaration forms of the language, the same names in comments,
     * strings, heredocs, raw/long strings and doc blocks (text), and uses
     * (usages; data and markup files have none).  A name that is declared
     * nowhere in a file never comes back as a definition. */
    {"langs/sample.cs", "Widget", "D6:18 D10:16 U12:22 U12:36 U13:25 U14:29 U18:34 T1:4 T5:23 T6:28 T8:48"},
    {"langs/sample.cs", "Count", "D9:20"},
    {"langs/sample.cs", "Size", "D5:36 D11:20 U13:38"},
    {"langs/sample.cs", "Red", "D4:25"},
    {"langs/sample.cs", "Label", "D8:39"},
    {"langs/sample.cs", "Clone", "D12:30"},
    {"langs/sample.cs", "Handler", "D18:26"},
    {"langs/sample.cs", "Point", "D17:19"},
    {"langs/sample.cs", "IWidget", "D5:22 U6:27"},
    {"langs/sample.kt", "Widget", "D5:12 U3:29 U10:33 U11:16 U13:24 U13:33 T2:4 T3:11 T13:14 T15:21 T16:19"},
    {"langs/sample.kt", "size", "D4:23 D6:18 T4:11 T5:52"},
    {"langs/sample.kt", "toWidget", "D13:12 U15:19"},
    {"langs/sample.kt", "LIMIT", "D7:34"},
    {"langs/sample.kt", "widgets", "D10:9 U11:26"},
    {"langs/sample.kt", "WidgetList", "D3:11"},
    {"langs/sample.kt", "Registry", "D9:8 U17:5"},
    {"langs/sample.swift", "Widget", "D4:8 U10:29 U13:19 U16:11 T2:4 T2:21 T7:37 T10:11 T12:16"},
    {"langs/sample.swift", "draw", "D3:26 D7:10 T3:10 T4:16"},
    {"langs/sample.swift", "square", "D9:27"},
    {"langs/sample.swift", "items", "D12:9 U13:29"},
    {"langs/sample.swift", "WidgetMap", "D10:11 U12:16"},
    {"langs/sample.swift", "Drawable", "D3:10 U4:16"},
    {"langs/sample.scala", "Widget", "D4:12 D7:8 U9:22 U9:31 U11:24 U14:14 T2:4 T5:26 T11:6 T13:14"},
    {"langs/sample.scala", "draw", "D3:22 D5:7 T3:7 T4:50"},
    {"langs/sample.scala", "Limit", "D8:7"},
    {"langs/sample.scala", "make", "D9:7"},
    {"langs/sample.scala", "WidgetList", "D11:6 U13:14"},
    {"langs/sample.scala", "items", "D13:7 U14:32 U14:45"},
    {"langs/sample.dart", "Widget", "D5:7 D9:3 U3:25 U11:3 U12:17 U16:16 U17:1 U17:30 T1:4 T3:9 T7:18 T17:12 T18:14 T18:27"},
    {"langs/sample.dart", "name", "D7:10"},
    {"langs/sample.dart", "limit", "D8:16"},
    {"langs/sample.dart", "copy", "D11:10"},
    {"langs/sample.dart", "makeWidget", "D17:8 U18:23"},
    {"langs/sample.dart", "defaultWidget", "D18:7"},
    {"langs/sample.dart", "dark", "D4:20"},
    {"langs/sample.dart", "WidgetBuilder", "D3:9"},
    {"langs/sample.dart", "Sized", "D16:7"},
    {"langs/sample.zig", "Widget", "D3:11 U5:23 U13:28 U15:12 T1:4 T10:7 T13:12 T17:7 T18:19"},
    {"langs/sample.zig", "size", "D5:12 U19:11"},
    {"langs/sample.zig", "counter", "D12:5 U14:5"},
    {"langs/sample.zig", "makeWidget", "D13:8 U18:15"},
    {"langs/sample.proto", "Widget", "D5:9 U16:44 T3:4 T4:33 T15:9 T16:10 T16:20 T18:12"},
    {"langs/sample.proto", "KIND_SMALL", "D11:5"},
    {"langs/sample.proto", "Kind", "D9:8 U13:3"},
    {"langs/sample.proto", "GetWidget", "D16:7 T16:17 T18:9"},
    {"langs/sample.proto", "tags", "D8:22"},
    {"langs/sample.proto", "deprecated", "U7:20"},
    {"langs/sample.proto", "WidgetService", "D15:9"},
    {"langs/sample.sol", "Widget", "D5:12 U7:24 U14:26 T3:4 T4:10 T9:11 T10:13 T11:65 T12:17 T15:14"},
    {"langs/sample.sol", "widgets", "D7:39 U11:43 U14:9 T4:10"},
    {"langs/sample.sol", "count", "D8:20 U13:9 U14:17 U14:33 U15:26 U16:16"},
    {"langs/sample.sol", "WidgetAdded", "D9:11 U15:14"},
    {"langs/sample.sol", "NoWidget", "D10:11"},
    {"langs/sample.sol", "exists", "D11:14"},
    {"langs/sample.sol", "addWidget", "D12:14"},
    {"langs/sample.sol", "Retired", "D6:26"},
    {"langs/sample.sol", "WidgetStore", "D4:10"},
    {"langs/sample.php", "Widget", "D6:7 U12:48 U13:20 U18:12 T3:4 T4:11 T17:15 T21:1"},
    {"langs/sample.php", "LIMIT", "D7:11"},
    {"langs/sample.php", "count", "D8:18 U11:49"},
    {"langs/sample.php", "registry", "D9:20"},
    {"langs/sample.php", "size", "D5:35 D11:21 T5:11 T6:25"},
    {"langs/sample.php", "make", "D12:28 U18:20 T16:10"},
    {"langs/sample.php", "make_widget", "D16:10"},
    {"langs/sample.php", "Spades", "D23:31"},
    {"langs/sample.php", "Sized", "D5:11 U6:25"},
    {"langs/sample.rb", "Widget", "D4:9 U11:7 U21:17 T1:3 T19:1 T23:3"},
    {"langs/sample.rb", "name", "D5:20 U7:20 U8:8 U8:15 U10:20 U11:18 U14:8"},
    {"langs/sample.rb", "size", "D5:27"},
    {"langs/sample.rb", "LIMIT", "D6:5"},
    {"langs/sample.rb", "initialize", "D7:9"},
    {"langs/sample.rb", "build", "D10:14 U21:24"},
    {"langs/sample.rb", "valid?", "D13:9"},
    {"langs/sample.rb", "DEFAULT", "D21:1"},
    {"langs/sample.rb", "Shop", "D3:8 U21:11"},
    {"langs/sample.lua", "Widget", "D4:7 U5:1 U5:18 U6:10 U7:33 U11:10 U17:8 T1:4 T2:6 T15:16"},
    {"langs/sample.lua", "new", "D6:17"},
    {"langs/sample.lua", "size", "D11:17"},
    {"langs/sample.lua", "helper", "D14:16 U16:9"},
    {"langs/sample.lua", "count", "D16:1"},
    {"langs/sample.ex", "Widget", "D2:16 U7:26 U15:14 U16:19 T1:3 T4:3 T17:21"},
    {"langs/sample.ex", "new", "D7:7"},
    {"langs/sample.ex", "helper", "D8:8 U10:5"},
    {"langs/sample.ex", "valid?", "D9:7 U16:26"},
    {"langs/sample.ex", "widget_macro", "D12:12"},
    {"langs/sample.ex", "Store", "D14:16"},
    {"langs/sample.hs", "Widget", "D5:6 D5:15 U1:13 U7:17 U10:22 U11:16 T2:4 T3:4 T6:9 T6:20 T7:6 T10:5 T11:5 T12:11 T14:10"},
    {"langs/sample.hs", "WidgetId", "D6:9 D6:20"},
    {"langs/sample.hs", "Widgets", "D7:6 U12:11"},
    {"langs/sample.hs", "Sized", "D8:7"},
    {"langs/sample.hs", "size", "D9:3 T8:7"},
    {"langs/sample.hs", "makeWidget", "D10:1 D11:1"},
    {"langs/sample.hs", "count'", "D12:1 D13:1"},
    {"langs/sample.hs", "label", "D14:1"},
    {"langs/sample.hs", "widgetId", "D5:24"},
    {"langs/sample.nix", "widget", "D8:3 U13:11 T1:3 T4:3 T4:18 T6:5 T8:14 T8:21 T10:5 T12:6"},
    {"langs/sample.nix", "widget-name", "D4:3 U8:21"},
    {"langs/sample.nix", "version", "D5:3 U6:60"},
    {"langs/sample.nix", "mkWidget", "D6:3 U8:12"},
    {"langs/sample.nix", "description", "D9:8"},
    {"langs/sample.sql", "widgets", "D2:14 U6:44 U8:17 U9:75 U10:13 T6:28 T7:33 T10:37 T11:4"},
    {"langs/sample.sql", "widgets_name", "D6:28"},
    {"langs/sample.sql", "big_widgets", "D7:29"},
    {"langs/sample.sql", "widget_count", "D9:17"},
    {"langs/main.tf", "widget", "D10:26 U19:24 T1:3 T2:11 T7:3 T7:18 T8:26 T11:23 T18:9 T21:9"},
    {"langs/main.tf", "widget_count", "D2:11 U11:23"},
    {"langs/main.tf", "widget_name", "D7:3"},
    {"langs/main.tf", "base", "D15:17 U12:32"},
    {"langs/main.tf", "widget_ids", "D18:9"},
    {"langs/main.tf", "widget_net", "D21:9"},
    {"langs/Dockerfile", "widget", "T4:5 T4:22 T5:5 T6:14 T6:26 T8:11 T8:20 T10:26 T10:42"},
    {"langs/Dockerfile", "builder", "D3:17 U7:6 U10:13"},
    {"langs/Dockerfile", "BASE", "D2:5 U3:8"},
    {"langs/Dockerfile", "WIDGET_HOME", "D4:5 U6:14"},
    {"langs/Dockerfile", "WIDGET_MODE", "D5:5 U8:20"},
    {"langs/Dockerfile", "test", "D7:17"},
    {"langs/config.toml", "widget", "D3:2 D6:3 T1:3 T2:10 T9:1"},
    {"langs/config.toml", "parts", "D6:10"},
    {"langs/config.toml", "width", "D5:6"},
    {"langs/config.toml", "title", "D2:1"},
    {"langs/config.toml", "quoted key", "D12:2"},
    {"langs/config.yaml", "widget", "D2:1 T1:3 T4:3 T7:14 T10:3 T11:8"},
    {"langs/config.yaml", "part_id", "D6:7 D8:7"},
    {"langs/config.yaml", "quoted key", "D12:2"},
    {"langs/config.yaml", "script", "D9:1"},
    {"langs/data.json", "widget", "D2:4 T3:14 T4:6 T5:35"},
    {"langs/data.json", "part_id", "D5:19"},
    {"langs/style.css", "widget", "D3:2 D3:26 T1:5 T2:11 T3:11 T4:17 T7:12 T8:30 T9:9 T9:30"},
    {"langs/style.css", "--widget-gap", "D2:9 U4:15"},
    {"langs/style.css", "widget-main", "D3:11"},
    {"langs/style.css", "widget-spin", "D7:12"},
    {"langs/style.css", "widget-small", "D8:30"},
    {"langs/README.md", "Widget", "D1:3 T3:1 T8:3"},
    {"langs/README.md", "widget", "D1:3 D15:2 T3:1 T8:3 T9:1 T15:31"},
    {"langs/README.md", "Usage", "D5:4"},
    {"langs/README.md", "Install Guide", "D12:1"},
    {"langs/page.html", "widget", "T3:10 T3:25 T3:33 T4:6"},
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
