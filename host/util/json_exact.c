/* Exact-number JSON parsing: see json_exact.h. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "json_exact.h"

typedef struct {
    const char *p, *end;
} scan;

/* Advance to the next number or string token; its bounds (a string's
 * with its quotes) go to *tok / *tok_len.  Returns false when none is
 * left. */
static bool next_token(scan *s, const char **tok, size_t *tok_len)
{
    while (s->p < s->end) {
        char c = *s->p;
        if (c == '"') {
            const char *start = s->p;
            for (s->p++; s->p < s->end && *s->p != '"'; s->p++)
                if (*s->p == '\\' && s->p + 1 < s->end)
                    s->p++;
            if (s->p < s->end)
                s->p++;
            *tok = start;
            *tok_len = (size_t)(s->p - start);
            return true;
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

static char *copy_token(const char *tok, size_t n)
{
    char *copy = cJSON_malloc(n + 1);
    if (copy) {
        memcpy(copy, tok, n);
        copy[n] = '\0';
    }
    return copy;
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
 * pre-order) its lexeme.  Keys and strings are tokens too: a member's key
 * comes before its value.  At the top level (depth 0) an "id" string
 * holding \u0000, which cJSON cuts at the NUL, becomes a raw item with
 * the text as sent, so that the answer names the request whole. */
static bool attach(cJSON *v, scan *s, int in_object, int depth)
{
    for (; v; v = v->next) {
        const char *tok;
        size_t n;
        if (in_object && (!next_token(s, &tok, &n) || *tok != '"'))
            return false;
        if (cJSON_IsNumber(v)) {
            if (!next_token(s, &tok, &n) || *tok == '"' || !json_number_ok(tok, n))
                return false;
            if (!(v->valuestring = copy_token(tok, n)))
                return false;
        } else if (cJSON_IsString(v)) {
            if (!next_token(s, &tok, &n) || *tok != '"')
                return false;
            if (depth == 0 && in_object && v->string && strcmp(v->string, "id") == 0 &&
                memmem(tok, n, "\\u0000", 6)) {
                char *raw = copy_token(tok, n);
                if (!raw)
                    return false;
                cJSON_free(v->valuestring);
                v->valuestring = raw;
                v->type = cJSON_Raw | (v->type & ~0xFF);
            }
        } else if (v->child && !attach(v->child, s, cJSON_IsObject(v), depth + 1)) {
            return false;
        }
    }
    return true;
}

/* Whether `v` holds anything attach() changes: a number, or a top-level
 * "id" string.  A document of strings, booleans and nulls (a patch, a
 * command) skips the second pass over its text, which for a long string
 * costs as much as cJSON's parse of it. */
static bool needs_attach(const cJSON *v, int in_object, int depth)
{
    for (; v; v = v->next) {
        if (cJSON_IsNumber(v))
            return true;
        if (cJSON_IsString(v) && depth == 0 && in_object && v->string &&
            strcmp(v->string, "id") == 0)
            return true;
        if (v->child && needs_attach(v->child, cJSON_IsObject(v), depth + 1))
            return true;
    }
    return false;
}

cJSON *json_parse_exact(const char *text, size_t len, const char **end)
{
    const char *stop = NULL;
    /* The error position comes back in `stop`, this thread's own: cJSON
     * also writes it to a process-wide global that parses on other threads
     * overwrite (never read here: tests/suppressions/helgrind.supp). */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &stop, 0);
    if (end)
        *end = stop;
    if (!root)
        return NULL;
    scan s = {text, stop ? stop : text + len};
    if (needs_attach(root, 0, -1) && !attach(root, &s, 0, -1)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

cJSON *json_parse_document(const char *text, size_t len)
{
    if (!text || memchr(text, 0, len))
        return NULL;
    /* cJSON skips any control byte before a value; JSON only these four */
    const char *p = text;
    while (p < text + len && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    if (p < text + len && (unsigned char)*p < 0x20)
        return NULL;
    const char *end = NULL;
    cJSON *root = json_parse_exact(text, len, &end);
    if (!root || !end)
        goto bad;
    for (p = end; p < text + len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            goto bad;
    return root;
bad:
    cJSON_Delete(root);
    return NULL;
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

bool json_integer_within(const cJSON *v, double lo, double hi)
{
    if (!cJSON_IsNumber(v))
        return false;
    double d = v->valuedouble;
    /* written so that NaN fails the range: only then is the cast defined */
    return d >= lo && d <= hi && d == (double)(int64_t)d;
}

cJSON *json_copy_exact(const cJSON *v)
{
    const char *lex = json_number_lexeme(v);
    return lex ? cJSON_CreateRaw(lex) : cJSON_Duplicate(v, 1);
}
