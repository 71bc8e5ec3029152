/* Damerau-Levenshtein distance (optimal string alignment) with weights.
 * Three rows, not a matrix: the suggestion runs on start-up paths (an
 * unknown config key) and a 65x65 matrix was nine pages of stack. */
#include "edit_distance.h"

#include <ctype.h>
#include <string.h>

static size_t min2(size_t a, size_t b) { return a < b ? a : b; }

size_t edit_distance(const char *a, const char *b, const edit_costs *c)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > EDIT_DISTANCE_MAX || lb > EDIT_DISTANCE_MAX)
        return (size_t)-1;
    size_t rows[3][EDIT_DISTANCE_MAX + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = c->edit * j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = c->edit * i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned char x = (unsigned char)a[i - 1], y = (unsigned char)b[j - 1];
            size_t sub = x == y ? 0 : tolower(x) == tolower(y) ? c->case_change : c->edit;
            size_t v = min2(prev[j - 1] + sub, min2(prev[j], cur[j - 1]) + c->edit);
            if (c->transpose && i > 1 && j > 1 && x == (unsigned char)b[j - 2] &&
                (unsigned char)a[i - 2] == y)
                v = min2(v, before[j - 2] + c->edit);
            cur[j] = v;
        }
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}
