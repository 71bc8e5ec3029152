/* File types: language names, their extensions, and which lexer reads them. */
#ifndef CS_TYPES_H
#define CS_TYPES_H

#include <stdint.h>

/* Lexers.  CS_LEX_NONE files give text and path results only.  The C
 * family, JS/TS, Python and shell have their own lexers; the others are
 * read by the table-driven lexer (cs_lex_generic.c) or, for data and
 * markup files, by small recognisers (cs_lex_data.c). */
enum cs_lexer {
    CS_LEX_NONE = 0,
    CS_LEX_C,
    CS_LEX_CPP,
    CS_LEX_RUST,
    CS_LEX_GO,
    CS_LEX_PYTHON,
    CS_LEX_JS,
    CS_LEX_JSX,
    CS_LEX_TS,
    CS_LEX_TSX,
    CS_LEX_JAVA,
    CS_LEX_SHELL,
    /* table-driven (cs_lex_generic.c) */
    CS_LEX_CSHARP,
    CS_LEX_KOTLIN,
    CS_LEX_SWIFT,
    CS_LEX_SCALA,
    CS_LEX_DART,
    CS_LEX_ZIG,
    CS_LEX_PROTO,
    CS_LEX_SOLIDITY,
    CS_LEX_PHP,
    CS_LEX_RUBY,
    CS_LEX_LUA,
    CS_LEX_ELIXIR,
    CS_LEX_HASKELL,
    CS_LEX_NIX,
    CS_LEX_SQL,
    CS_LEX_HCL,
    /* data and markup (cs_lex_data.c) */
    CS_LEX_JSON,
    CS_LEX_YAML,
    CS_LEX_TOML,
    CS_LEX_MD,
    CS_LEX_CSS,
    CS_LEX_DOCKERFILE,
    CS_LEX_COUNT
};
#define CS_LEX_FIRST_GENERIC CS_LEX_CSHARP
#define CS_LEX_FIRST_DATA CS_LEX_JSON

/* A set of languages: bit (1 << id). */
typedef uint64_t cs_lang_mask;

/* Number of languages; a language id is 0..cs_lang_count()-1. */
int cs_lang_count(void);
const char *cs_lang_name(int lang);
/* A language name, one of its aliases, or an extension with or without
 * its dot, any case.  Returns the language id, or -1 when unknown. */
int cs_lang_lookup(const char *name);
/* The language and lexer of a file by its base name; -1 when unknown. */
int cs_lang_of_file(const char *base, int *lexer);
/* "c, cpp, ..." (malloc'd): the known language names. */
char *cs_lang_known(void);
/* Whether the language's files give definitions (1) and usages (2). */
unsigned cs_lang_support(int lang);
#define CS_SUPPORT_DEF 1u
#define CS_SUPPORT_USE 2u
/* The same for a lexer. */
unsigned cs_lexer_support(int lexer);

#endif
