/* The language table.  Extensions map to one language; a file whose
 * extension is unknown still gives text and path results when no
 * file_types filter is set. */
#include "cs_types.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct lang_def {
    const char *name;
    const char *exts;     /* space-separated, without dots */
    const char *files;    /* exact base names, space-separated */
    int lexer;
} lang_def;

/* Alphabetical by name; the order is the order in error messages. */
static const lang_def LANGS[] = {
    {"c", "c h", "", CS_LEX_CPP},  /* headers may be C++: that lexer is a superset */
    {"cmake", "cmake", "CMakeLists.txt", CS_LEX_NONE},
    {"cpp", "cc cpp cxx c++ hh hpp hxx h++ ipp tcc inl", "", CS_LEX_CPP},
    {"css", "css scss", "", CS_LEX_NONE},
    {"go", "go", "", CS_LEX_GO},
    {"html", "html htm xhtml", "", CS_LEX_NONE},
    {"java", "java", "", CS_LEX_JAVA},
    {"javascript", "js mjs cjs jsx", "", CS_LEX_JS},
    {"json", "json jsonc", "", CS_LEX_NONE},
    {"make", "mk mak", "Makefile GNUmakefile makefile", CS_LEX_NONE},
    {"markdown", "md markdown", "", CS_LEX_NONE},
    {"python", "py pyi pyw", "", CS_LEX_PYTHON},
    {"rust", "rs", "", CS_LEX_RUST},
    {"shell", "sh bash zsh ksh", ".bashrc .bash_profile .profile .zshrc", CS_LEX_SHELL},
    {"sql", "sql", "", CS_LEX_NONE},
    {"text", "txt rst", "", CS_LEX_NONE},
    {"toml", "toml", "", CS_LEX_NONE},
    {"typescript", "ts mts cts tsx", "", CS_LEX_TS},
    {"xml", "xml xsd xsl svg", "", CS_LEX_NONE},
    {"yaml", "yaml yml", "", CS_LEX_NONE},
};
#define NLANGS ((int)(sizeof LANGS / sizeof LANGS[0]))

/* Extra names people use for a language. */
static const struct { const char *alias; const char *name; } ALIASES[] = {
    {"c++", "cpp"}, {"golang", "go"}, {"js", "javascript"}, {"ts", "typescript"},
    {"py", "python"}, {"sh", "shell"}, {"bash", "shell"}, {"yml", "yaml"},
    {"md", "markdown"}, {"rs", "rust"}, {"makefile", "make"},
};

int cs_lang_count(void) { return NLANGS; }

const char *cs_lang_name(int lang)
{
    return lang >= 0 && lang < NLANGS ? LANGS[lang].name : NULL;
}

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
            if (lx == CS_LEX_TS && strcasecmp(ext, "tsx") == 0)
                lx = CS_LEX_TSX;
            else if (lx == CS_LEX_JS)
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
