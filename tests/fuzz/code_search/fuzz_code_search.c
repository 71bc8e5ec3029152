/* libFuzzer target: code_search's lexers and declaration recognisers, for
 * every language.  The first byte picks the lexer; the rest is the file.
 * The lexer reads an exactly-sized copy (the sanitizers see any read past
 * the data); every token must lie inside the data with starts in order
 * (the classifier binary-searches them).  Then the whole per-file scan
 * (literal search, lexing, declarations, snippets) runs with a query cut
 * from the input, on a buffer with the zeroed slack the real reader
 * gives. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cs.h"
#include "cs_file.h"
#include "cs_lex.h"
#include "cs_query.h"
#include "cs_types.h"

#define SLACK 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int lexer = data[0] % CS_LEX_COUNT;  /* enum cs_lexer; 0 is no lexer */
    const char *src = (const char *)data + 1;
    size_t len = size - 1;
    char *exact = malloc(len ? len : 1);
    if (!exact)
        return 0;
    memcpy(exact, src, len);
    cs_toks t = {0};
    if (cs_lex(lexer, exact, len, &t) == 0) {
        for (size_t k = 0; k < t.n; k++) {
            if (t.v[k].start > t.v[k].end || t.v[k].end > len)
                abort();
            if (k > 0 && t.v[k].start < t.v[k - 1].start)
                abort();
        }
        if (cs_decl_mark(lexer, exact, &t) == 0)
            for (size_t k = 0; k < t.n; k++)
                if (t.v[k].def && t.v[k].kind != 'i' && t.v[k].kind != 'D')
                    abort();  /* only names are declared */
    }
    cs_toks_free(&t);
    free(exact);

    /* The query: the first identifier-looking run of the input (or "a");
     * non-ASCII bytes included, so the Unicode case-folding search (and
     * its refusal of invalid UTF-8) is fuzzed too. */
    char query[33] = "a";
    for (size_t i = 0; i < len; i++)
        if (cs_id_start((unsigned char)src[i])) {
            size_t e = i;
            while (e < len && e - i < 32 && cs_id_char((unsigned char)src[e]))
                e++;
            memcpy(query, src + i, e - i);
            query[e - i] = '\0';
            break;
        }
    char *buf = calloc(len + SLACK, 1);
    cs_query q;
    char *err = NULL;
    if (buf && cs_query_init(&q, query, &err) == 0) {
        memcpy(buf, src, len);
        cs_worker w;
        if (cs_worker_init(&w, &q) == 0) {
            cs_file_hits h;
            if (cs_buf_scan(&w, buf, len, lexer, 7, 7, 50, &h) == 0)
                for (size_t i = 0; i < h.n; i++)
                    if (h.v[i].line == 0 || h.v[i].col == 0 || !h.v[i].snippet)
                        abort();
            cs_file_hits_free(&h);
        }
        cs_worker_free(&w);
        cs_query_free(&q);
    }
    free(err);
    free(buf);
    return 0;
}
