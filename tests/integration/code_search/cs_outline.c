/* The definitions code_search finds in files, one per line:
 *   PATH<TAB>LINE<TAB>COLUMN<TAB>NAME      (1-based, columns in bytes)
 * for the oracle comparison (oracle/oracle.mjs).
 *   cs_outline FILE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_lex.h"
#include "cs_types.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 64);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, cap * 2 + 64);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (b)
        memset(b + n, 0, 64);
    *len = n;
    return b;
}

int main(int argc, char **argv)
{
    cs_toks t = {0};
    int rc = 0;
    for (int a = 1; a < argc; a++) {
        const char *base = strrchr(argv[a], '/');
        base = base ? base + 1 : argv[a];
        int lexer;
        if (cs_lang_of_file(base, &lexer) < 0 || lexer == CS_LEX_NONE)
            continue;
        size_t len;
        char *b = slurp(argv[a], &len);
        if (!b) {
            fprintf(stderr, "cs_outline: cannot read %s\n", argv[a]);
            rc = 1;
            continue;
        }
        if (cs_lex(lexer, b, len, &t) == 0 && cs_decl_mark(lexer, b, &t) == 0) {
            size_t line = 1, ls = 0, pos = 0;
            for (size_t k = 0; k < t.n; k++) {
                if (!t.v[k].def)
                    continue;
                for (; pos < t.v[k].start; pos++)
                    if (b[pos] == '\n') {
                        line++;
                        ls = pos + 1;
                    }
                printf("%s\t%zu\t%zu\t%.*s\n", argv[a], line, (size_t)t.v[k].start - ls + 1,
                       (int)(t.v[k].end - t.v[k].start), b + t.v[k].start);
            }
        }
        free(b);
    }
    cs_toks_free(&t);
    cs_decl_release();
    return rc;
}
