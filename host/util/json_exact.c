/* Exact-number JSON parsing: see json_exact.h. */
#include <math.h>
#include <string.h>
#include "json_exact.h"

typedef struct {
    const char *p, *end;
} scan;

/* Advance to the next number token outside strings; its bounds go to
 * *tok / *tok_len.  Returns false when none is left. */
static bool next_number(scan *s, const char **tok, size_t *tok_len)
{
    while (s->p < s->end) {
        char c = *s->p;
        if (c == '"') {
            for (s->p++; s->p < s->end && *s->p != '"'; s->p++)
                if (*s->p == '\\' && s->p + 1 < s->end)
                    s->p++;
            s->p++;
            continue;
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            const char *start = s->p;
            while (s->p < s->end && (strchr("0123456789+-.eE", *s->p) && *s->p))
                s->p++;
            *tok = start;
            *tok_len = (size_t)(s->p - start);
            return true;
        }
        s->p++;
    }
    return false;
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
 * (cJSON, through strtod, also takes "01" and "1."). */
static bool json_number_ok(const char *p, size_t n)
{
    const char *e = p + n;
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == '0')
        p++;
    else if (p < e && *p >= '1' && *p <= '9')
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    else
        return false;
    if (p < e && *p == '.') {
        const char *d = ++p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return false;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const char *d = p;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return false;
    }
    return p == e;
}

/* Give every number of `v` (in document order, which is cJSON's
 * pre-order) its lexeme. */
static bool attach(cJSON *v, scan *s)
{
    for (; v; v = v->next) {
        if (cJSON_IsNumber(v)) {
            const char *tok;
            size_t n;
            if (!next_number(s, &tok, &n) || !json_number_ok(tok, n))
                return false;
            char *copy = cJSON_malloc(n + 1);
            if (!copy)
                return false;
            memcpy(copy, tok, n);
            copy[n] = '\0';
            v->valuestring = copy;
        } else if (v->child && !attach(v->child, s)) {
            return false;
        }
    }
    return true;
}

cJSON *json_parse_exact(const char *text, size_t len, const char **end)
{
    const char *stop = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &stop, 0);
    if (end)
        *end = stop;
    if (!root)
        return NULL;
    scan s = {text, stop ? stop : text + len};
    if (!attach(root, &s)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

const char *json_number_lexeme(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuestring ? v->valuestring : NULL;
}

bool json_is_integer_literal(const cJSON *v)
{
    if (!cJSON_IsNumber(v))
        return false;
    const char *lex = json_number_lexeme(v);
    if (lex)
        return !strpbrk(lex, ".eE") && strcmp(lex, "-0") != 0;
    double d = v->valuedouble;
    return isfinite(d) && floor(d) == d && !(d == 0 && signbit(d));
}

cJSON *json_copy_exact(const cJSON *v)
{
    const char *lex = json_number_lexeme(v);
    return lex ? cJSON_CreateRaw(lex) : cJSON_Duplicate(v, 1);
}
