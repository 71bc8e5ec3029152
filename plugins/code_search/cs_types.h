/* File types: language names, their extensions, and which lexer reads them. */
#ifndef CS_TYPES_H
#define CS_TYPES_H

#include <stdint.h>

/* Lexers.  CS_LEX_NONE files give text and path results only. */
enum cs_lexer {
    CS_LEX_NONE = 0, CS_LEX_C, CS_LEX_CPP, CS_LEX_RUST, CS_LEX_GO,
    CS_LEX_PYTHON, CS_LEX_JS, CS_LEX_JSX, CS_LEX_TS, CS_LEX_TSX,
    CS_LEX_JAVA, CS_LEX_SHELL
};

/* Number of languages; a language id is 0..cs_lang_count()-1. */
int cs_lang_count(void);
const char *cs_lang_name(int lang);
/* A language name or an extension with or without its dot, any case.
 * Returns the language id, or -1 when unknown. */
int cs_lang_lookup(const char *name);
/* The language and lexer of a file by its base name; -1 when unknown. */
int cs_lang_of_file(const char *base, int *lexer);
/* "c, cpp, ..." (malloc'd): the known language names. */
char *cs_lang_known(void);

#endif
