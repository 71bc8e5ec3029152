/* The names a file declares, kept in its content index entry: a small
 * hashed set (two bits a name, ASCII letters lowered) of every token
 * cs_decl_mark marks.  A search that can only still return definitions
 * leaves out an unchanged file whose set cannot hold the query. */
#ifndef CS_DECLS_H
#define CS_DECLS_H

#include <stdint.h>

#include "cs_index.h"
#include "cs_lex.h"
#include "cs_query.h"

typedef struct cs_dq {
    int usable; /* the query's matches are its bytes, ASCII case aside */
    uint64_t h; /* its hash */
} cs_dq;

/* Usable when matches are byte matches: case-sensitive, or an ASCII
 * case-insensitive query (ASCII letters fold, nothing else).  Then a
 * definition hit is a marked token whose bytes equal the query but for
 * ASCII case, so its hash is the query's.  A folding query (ß matches
 * SS) is not usable. */
void cs_dq_init(cs_dq *dq, const cs_query *q);
/* 0 when entry e vouches that its file declares no name the query
 * matches whole (CS_IX_DECLS set, a bit of the query missing). */
int cs_decls_may(const cs_dq *dq, const cs_ientry *e);
/* The set for the `len` bytes of buf, lexed with `lexer` (scratch: t),
 * into f (its dlog2, dbits and the CS_IX_DECLS flag).  Returns 0, or
 * VT_ERR_NOMEM with f left without a set. */
int cs_decls_make(cs_fresh *f, int lexer, const char *buf, size_t len, cs_toks *t);
/* This build of the search (the identity of the object it was loaded
 * from): which names a file declares depends on its rules, so an index
 * written by another build is not used.  0 when unknown. */
uint64_t cs_decls_build(void);

#endif
