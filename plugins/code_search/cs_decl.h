/* Declaration recognisers: internal interface between the keyword/pattern
 * pass (cs_decl.c) and the structural pass for brace languages
 * (cs_decl_clike.c). */
#ifndef CS_DECL_H
#define CS_DECL_H

#include "cs_lex.h"

/* shape[k] is one character per token: its kind, or for a keyword the
 * language's letter for it (see cs_decl.c). */
void cs_decl_structural(int lexer, const char *buf, const char *shape, const int *depth,
                        cs_toks *t);

#endif
