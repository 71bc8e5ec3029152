/* The language table.  Every language of the original tool (33 canonical
 * names) plus vthost's older names (shell, markdown, cmake, make, text,
 * xml) as aliases or text-only types.  Extensions map to one language; a
 * file whose extension is unknown still gives text and path results when
 * no file_types filter is set. */
#include "cs_types.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct lang_def {
    const char *name;
    const char *exts;  /* space-separated, without dots, any case */
    const char *files; /* exact base names, space-separated */
    int lexer;
} lang_def;

/* Alphabetical by name; the order is the order in error messages. */
static const lang_def LANGS[] = {
    {"bash", "sh bash zsh ksh bats", ".bashrc .bash_profile .profile .zshrc .bash_logout",
     CS_LEX_SHELL},
    {"c", "c h", "", CS_LEX_CPP}, /* headers may be C++: that lexer is a superset */
    {"cmake", "cmake", "CMakeLists.txt", CS_LEX_NONE},
    {"cpp", "cc cpp cxx c++ hh hpp hxx h++ ipp tcc inl cu cuh ino", "", CS_LEX_CPP},
    {"csharp", "cs csx", "", CS_LEX_CSHARP},
    {"css", "css scss less", "", CS_LEX_CSS},
    {"dart", "dart", "", CS_LEX_DART},
    {"dockerfile", "dockerfile", "Dockerfile Containerfile", CS_LEX_DOCKERFILE},
    {"elixir", "ex exs", "", CS_LEX_ELIXIR},
    {"go", "go", "", CS_LEX_GO},
    {"haskell", "hs lhs", "", CS_LEX_HASKELL},
    {"hcl", "hcl tf tfvars", "", CS_LEX_HCL},
    {"html", "html htm xhtml", "", CS_LEX_NONE},
    {"java", "java", "", CS_LEX_JAVA},
    {"javascript", "js mjs cjs jsx", "", CS_LEX_JS},
    {"json", "json jsonc json5", "", CS_LEX_JSON},
    {"kotlin", "kt kts", "", CS_LEX_KOTLIN},
    {"lua", "lua", "", CS_LEX_LUA},
    {"make", "mk mak", "Makefile GNUmakefile makefile", CS_LEX_NONE},
    {"md", "md markdown mdx", "", CS_LEX_MD},
    {"nix", "nix", "", CS_LEX_NIX},
    {"php", "php phtml", "", CS_LEX_PHP},
    {"proto", "proto", "", CS_LEX_PROTO},
    {"python", "py pyi pyw py3 bzl", "BUILD.bazel WORKSPACE.bazel", CS_LEX_PYTHON},
    {"ruby", "rb rake gemspec", "Rakefile Gemfile", CS_LEX_RUBY},
    {"rust", "rs", "", CS_LEX_RUST},
    {"scala", "scala sc", "", CS_LEX_SCALA},
    {"solidity", "sol", "", CS_LEX_SOLIDITY},
    {"sql", "sql", "", CS_LEX_SQL},
    {"swift", "swift", "", CS_LEX_SWIFT},
    {"text", "txt rst", "", CS_LEX_NONE},
    {"toml", "toml", "Cargo.lock", CS_LEX_TOML},
    {"tsx", "tsx", "", CS_LEX_TSX},
    {"typescript", "ts mts cts", "", CS_LEX_TS},
    {"xml", "xml xsd xsl svg", "", CS_LEX_NONE},
    {"yaml", "yaml yml", "", CS_LEX_YAML},
    {"zig", "zig zon", "", CS_LEX_ZIG},
};
#define NLANGS ((int)(sizeof LANGS / sizeof LANGS[0]))
_Static_assert(sizeof LANGS / sizeof LANGS[0] <= 64, "a language mask has 64 bits");

/* Other names people use for a language, and vthost's older names. */
static const struct {
    const char *alias;
    const char *name;
} ALIASES[] = {
    {"c++", "cpp"},       {"golang", "go"},   {"js", "javascript"},  {"ts", "typescript"},
    {"py", "python"},     {"sh", "bash"},     {"shell", "bash"},     {"zsh", "bash"},
    {"yml", "yaml"},      {"markdown", "md"}, {"rs", "rust"},        {"makefile", "make"},
    {"c#", "csharp"},     {"cs", "csharp"},   {"rb", "ruby"},        {"kt", "kotlin"},
    {"terraform", "hcl"}, {"tf", "hcl"},      {"protobuf", "proto"}, {"docker", "dockerfile"},
    {"sol", "solidity"},  {"ex", "elixir"},   {"hs", "haskell"},     {"jsx", "javascript"},
};

int cs_lang_count(void) { return NLANGS; }

const char *cs_lang_name(int lang) { return lang >= 0 && lang < NLANGS ? LANGS[lang].name : NULL; }

/* Whether `word` (length n) is one of the space-separated words. */
static int in_words(const char *words, const char *word, size_t n, int nocase)
{
    const char *p = words;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && (nocase ? strncasecmp(p, word, n) : strncmp(p, word, n)) == 0)
            return 1;
        if (!e)
            break;
        p = e + 1;
    }
    return 0;
}

static int by_name(const char *s)
{
    for (int i = 0; i < NLANGS; i++)
        if (strcasecmp(LANGS[i].name, s) == 0)
            return i;
    return -1;
}

int cs_lang_lookup(const char *name)
{
    if (!name || !*name)
        return -1;
    int l = by_name(name);
    if (l >= 0)
        return l;
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strcasecmp(ALIASES[i].alias, name) == 0)
            return by_name(ALIASES[i].name);
    const char *ext = name[0] == '.' ? name + 1 : name;
    if (!*ext)
        return -1;
    for (int i = 0; i < NLANGS; i++)
        if (in_words(LANGS[i].exts, ext, strlen(ext), 1))
            return i;
    return -1;
}

int cs_lang_of_file(const char *base, int *lexer)
{
    size_t blen = strlen(base);
    for (int i = 0; i < NLANGS; i++)
        if (in_words(LANGS[i].files, base, blen, 0)) {
            *lexer = LANGS[i].lexer;
            return i;
        }
    /* Dockerfile.dev, app.Dockerfile */
    if (strncmp(base, "Dockerfile.", 11) == 0) {
        *lexer = CS_LEX_DOCKERFILE;
        return by_name("dockerfile");
    }
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1]) {
        *lexer = CS_LEX_NONE;
        return -1;
    }
    const char *ext = dot + 1;
    size_t n = strlen(ext);
    for (int i = 0; i < NLANGS; i++)
        if (in_words(LANGS[i].exts, ext, n, 1)) {
            int lx = LANGS[i].lexer;
            /* JSX syntax only where it is allowed. */
            if (lx == CS_LEX_JS)
                lx = CS_LEX_JSX;
            *lexer = lx;
            return i;
        }
    *lexer = CS_LEX_NONE;
    return -1;
}

char *cs_lang_known(void)
{
    size_t len = 1;
    for (int i = 0; i < NLANGS; i++)
        len += strlen(LANGS[i].name) + 2;
    char *s = malloc(len);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < NLANGS; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, LANGS[i].name);
    }
    return s;
}

unsigned cs_lexer_support(int lexer)
{
    switch (lexer) {
    case CS_LEX_NONE: return 0;
    /* Data and markup: declared names (keys, headings, selectors, build
     * stages) but no code to use them in, except where noted. */
    case CS_LEX_JSON:
    case CS_LEX_YAML:
    case CS_LEX_TOML:
    case CS_LEX_MD: return CS_SUPPORT_DEF;
    default: return CS_SUPPORT_DEF | CS_SUPPORT_USE;
    }
}

unsigned cs_lang_support(int lang)
{
    return lang >= 0 && lang < NLANGS ? cs_lexer_support(LANGS[lang].lexer) : 0;
}
