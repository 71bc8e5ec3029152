/* JSON Schema validation for tool arguments: the subset tools use.
 *
 * schema_prepare() (schema_prepare.c) checks a plugin's schema once, at
 * load time, so that schema_validate() can walk it without re-checking
 * keyword types on every call.  Errors name the first offending field deterministically: required
 * properties in declared order, then arguments in the order they were sent. */
#include "json_exact.h"
#include "schema.h"
#include "schema_internal.h"
#include "strutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>
#include <vthost/plugin.h>

#define MOT_NAME "max_output_tokens"

/* Longest argument value or key quoted in an error message, in bytes. */
#define QUOTE_MAX 80

/* ---- small string helpers ------------------------------------------- */

/* Length of the longest prefix of s (len bytes) not longer than max bytes
 * that ends on a UTF-8 character boundary. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
    size_t pos = 0;
    while (pos < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n =
            utf8proc_iterate((const utf8proc_uint8_t *)s + pos, (utf8proc_ssize_t)(len - pos), &cp);
        if (n <= 0)
            n = 1; /* invalid byte: step over it alone */
        if (pos + (size_t)n > max)
            break;
        pos += (size_t)n;
    }
    return pos;
}

/* A JSON rendering of a string, shortened to about QUOTE_MAX bytes. */
static char *quote_string(const char *s)
{
    size_t len = strlen(s);
    size_t keep = len > QUOTE_MAX ? utf8_cut(s, len, QUOTE_MAX) : len;
    char *cut = strndup(s, keep);
    if (!cut)
        return NULL;
    cJSON *tmp = cJSON_CreateString(cut);
    free(cut);
    char *json = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    cJSON_Delete(tmp);
    if (json && keep < len) {
        char *more = str_printf("%s...", json);
        cJSON_free(json);
        return more;
    }
    if (!json)
        return NULL;
    char *out = strdup(json);
    cJSON_free(json);
    return out;
}

static char *format_number(double v)
{
    if (isfinite(v) && floor(v) == v && fabs(v) < 1e15)
        return str_printf("%.0f", v);
    return str_printf("%.17g", v);
}

/* A short rendering of any value for "got ..." (objects and arrays are
 * described, not printed: they can be arbitrarily large). */
static char *render_value(const cJSON *v)
{
    if (cJSON_IsString(v))
        return quote_string(v->valuestring);
    if (json_number_lexeme(v)) /* as sent: "got 1.0" */
        return strdup(json_number_lexeme(v));
    if (cJSON_IsNumber(v))
        return format_number(v->valuedouble);
    if (cJSON_IsTrue(v))
        return strdup("true");
    if (cJSON_IsFalse(v))
        return strdup("false");
    if (cJSON_IsNull(v))
        return strdup("null");
    if (cJSON_IsArray(v))
        return strdup("an array");
    if (cJSON_IsObject(v))
        return strdup("an object");
    return strdup("an unknown value");
}

static const char *kind_article(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    return NULL; /* null, arrays and objects already say what they are */
}

/* "got X" with the kind of X when it is not evident from X itself. */
static char *render_got_typed(const cJSON *v)
{
    char *r = render_value(v);
    if (!r)
        return NULL;
    const char *k = kind_article(v);
    if (!k)
        return r;
    char *s = str_printf("%s (%s)", r, k);
    free(r);
    return s;
}

/* ---- paths -------------------------------------------------------------- */

static bool plain_key(const char *k)
{
    if (!*k)
        return false;
    for (const char *p = k; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return strlen(k) <= QUOTE_MAX;
}

/* Path of a member `key` of the object at `parent` (NULL = the arguments). */
static char *path_member(const char *parent, const char *key)
{
    if (plain_key(key))
        return parent ? str_printf("%s.%s", parent, key) : strdup(key);
    char *q = quote_string(key);
    if (!q)
        return NULL;
    char *s = str_printf("%s[%s]", parent ? parent : "", q);
    free(q);
    return s;
}

static char *path_index(const char *parent, int i)
{
    return str_printf("%s[%d]", parent ? parent : "root", i);
}

/* ---- validation --------------------------------------------------------- */

typedef struct {
    const char *tool;
    char *err; /* first error, complete message */
} vctx;

static int fail(vctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(vctx *c, const char *path, const char *fmt, ...)
{
    char *head = str_printf("Invalid arguments for tool '%s': %s: ", c->tool, path ? path : "root");
    va_list ap;
    va_start(ap, fmt);
    c->err = str_vprintf_after(head, fmt, ap);
    va_end(ap);
    free(head);
    return c->err ? VT_ERR_INVALID : VT_ERR_NOMEM;
}

/* fail() with "WHAT WANT, got GOT", taking both strings; NULL for either
 * means the rendering ran out of memory. */
static int fail_got(vctx *c, const char *path, const char *what, char *want, char *got)
{
    int rc = (want && got) ? fail(c, path, "%s %s, got %s", what, want, got) : VT_ERR_NOMEM;
    free(want);
    free(got);
    return rc;
}

static bool type_matches(const char *type, const cJSON *v)
{
    if (!strcmp(type, "object"))
        return cJSON_IsObject(v);
    if (!strcmp(type, "array"))
        return cJSON_IsArray(v);
    if (!strcmp(type, "string"))
        return cJSON_IsString(v);
    if (!strcmp(type, "number"))
        return cJSON_IsNumber(v) && isfinite(v->valuedouble);
    /* only an integer literal is an integer: 1.0, 1e3 and -0 are not */
    if (!strcmp(type, "integer"))
        return json_is_integer_literal(v);
    if (!strcmp(type, "boolean"))
        return cJSON_IsBool(v);
    if (!strcmp(type, "null"))
        return cJSON_IsNull(v);
    return false;
}

static const cJSON *num_kw(const cJSON *schema, const char *kw)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(schema, kw);
    return cJSON_IsNumber(n) ? n : NULL;
}

/* "from 1 to 5", ">= 1", "> 0 and <= 1" or "" for the numeric bounds. */
static char *range_text(const cJSON *schema)
{
    const cJSON *mn = num_kw(schema, "minimum"), *mx = num_kw(schema, "maximum");
    const cJSON *emn = num_kw(schema, "exclusiveMinimum");
    const cJSON *emx = num_kw(schema, "exclusiveMaximum");
    char *a = NULL, *b = NULL, *s = NULL;
    if (mn && mx && !emn && !emx) {
        a = format_number(mn->valuedouble);
        b = format_number(mx->valuedouble);
        s = (a && b) ? str_printf(" from %s to %s", a, b) : NULL;
        free(a);
        free(b);
        return s;
    }
    /* a schema giving both forms of one bound is rare: the message names
     * the exclusive one, while in_range() enforces both */
    char *lo = NULL, *hi = NULL;
    if (emn) {
        a = format_number(emn->valuedouble);
        lo = a ? str_printf("> %s", a) : NULL;
    } else if (mn) {
        a = format_number(mn->valuedouble);
        lo = a ? str_printf(">= %s", a) : NULL;
    }
    if (emx) {
        b = format_number(emx->valuedouble);
        hi = b ? str_printf("< %s", b) : NULL;
    } else if (mx) {
        b = format_number(mx->valuedouble);
        hi = b ? str_printf("<= %s", b) : NULL;
    }
    if (lo && hi)
        s = str_printf(" %s and %s", lo, hi);
    else if (lo || hi)
        s = str_printf(" %s", lo ? lo : hi);
    else
        s = strdup("");
    free(a);
    free(b);
    free(lo);
    free(hi);
    return s;
}

static bool in_range(const cJSON *schema, double v)
{
    const cJSON *k;
    if ((k = num_kw(schema, "minimum")) && v < k->valuedouble)
        return false;
    if ((k = num_kw(schema, "maximum")) && v > k->valuedouble)
        return false;
    if ((k = num_kw(schema, "exclusiveMinimum")) && v <= k->valuedouble)
        return false;
    if ((k = num_kw(schema, "exclusiveMaximum")) && v >= k->valuedouble)
        return false;
    return true;
}

static int int_kw(const cJSON *schema, const char *kw)
{
    const cJSON *n = num_kw(schema, kw);
    if (!n)
        return -1;
    if (n->valuedouble > 1e9)
        return 1000000000;
    if (n->valuedouble < -1e9)
        return -1000000000;
    return (int)n->valuedouble;
}

/* "of 1 to 5 UNITs", "of at least 1 UNIT", "" ... */
static char *count_text(const cJSON *schema, const char *minkw, const char *maxkw, const char *unit)
{
    int mn = int_kw(schema, minkw), mx = int_kw(schema, maxkw);
    /* unit is plural; "1 character", "1 item" drop the final s */
    int ulen = (int)strlen(unit);
    if (mn >= 0 && mx >= 0)
        return str_printf(" of %d to %d %.*s", mn, mx, mx == 1 ? ulen - 1 : ulen, unit);
    if (mn >= 0)
        return str_printf(" of at least %d %.*s", mn, mn == 1 ? ulen - 1 : ulen, unit);
    if (mx >= 0)
        return str_printf(" of at most %d %.*s", mx, mx == 1 ? ulen - 1 : ulen, unit);
    return strdup("");
}

/* What a value of one JSON type must be, with that type's constraints. */
static char *describe_type(const cJSON *schema, const char *type)
{
    if (!strcmp(type, "integer") || !strcmp(type, "number")) {
        char *r = range_text(schema);
        char *s =
            r ? str_printf("%s%s", !strcmp(type, "integer") ? "an integer" : "a number", r) : NULL;
        free(r);
        return s;
    }
    if (!strcmp(type, "string")) {
        char *r = count_text(schema, "minLength", "maxLength", "characters");
        char *s = r ? str_printf("a string%s", r) : NULL;
        free(r);
        return s;
    }
    if (!strcmp(type, "array")) {
        char *r = count_text(schema, "minItems", "maxItems", "items");
        char *s = r ? str_printf("an array%s", r) : NULL;
        free(r);
        return s;
    }
    if (!strcmp(type, "object"))
        return strdup("an object");
    if (!strcmp(type, "boolean"))
        return strdup("a boolean (true or false)");
    if (!strcmp(type, "null"))
        return strdup("null");
    return str_printf("of type %s", type);
}

/* "a string or null" for a list of types. */
static char *describe_types(const cJSON *schema, const cJSON *type)
{
    if (cJSON_IsString(type))
        return describe_type(schema, type->valuestring);
    char *acc = NULL;
    const cJSON *t;
    cJSON_ArrayForEach(t, type)
    {
        char *d = describe_type(schema, t->valuestring);
        if (!d) {
            free(acc);
            return NULL;
        }
        char *n = acc ? str_printf("%s or %s", acc, d) : strdup(d);
        free(acc);
        free(d);
        if (!n)
            return NULL;
        acc = n;
    }
    return acc ? acc : strdup("a value");
}

/* The JSON type of v as a schema type name ("integer" for whole numbers). */
static const char *value_type(const cJSON *v)
{
    if (cJSON_IsObject(v))
        return "object";
    if (cJSON_IsArray(v))
        return "array";
    if (cJSON_IsString(v))
        return "string";
    if (cJSON_IsNumber(v))
        return json_is_integer_literal(v) ? "integer" : "number";
    if (cJSON_IsBool(v))
        return "boolean";
    return "null";
}

/* The type whose constraints apply to v: the schema's matching type, or the
 * value's own type when the schema leaves the type open. */
static const char *effective_type(const cJSON *type, const cJSON *v)
{
    if (cJSON_IsString(type))
        return type->valuestring;
    if (cJSON_IsArray(type)) {
        const cJSON *t;
        /* prefer an exact match so "number" bounds read as numbers */
        cJSON_ArrayForEach(t,
                           type) if (type_matches(t->valuestring, v) &&
                                     !strcmp(t->valuestring, value_type(v))) return t->valuestring;
        cJSON_ArrayForEach(t, type) if (type_matches(t->valuestring, v)) return t->valuestring;
    }
    return value_type(v);
}

static int fail_expected(vctx *c, const char *path, const cJSON *schema, const char *type,
                         const cJSON *v)
{
    char *want = describe_type(schema, type);
    char *got = render_value(v);
    return fail_got(c, path, "must be", want, got);
}

static int validate_node(vctx *c, const cJSON *schema, const cJSON *v, const char *path);

static int check_type(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if (!type)
        return 0;
    if (cJSON_IsString(type)) {
        if (type_matches(type->valuestring, v))
            return 0;
    } else {
        const cJSON *t;
        cJSON_ArrayForEach(t, type) if (type_matches(t->valuestring, v)) return 0;
    }
    /* numbers print bare ("got 1.5"): their kind is evident, and for a
     * fraction where an integer is wanted "a number" would mislead */
    char *want = describe_types(schema, type);
    char *got = cJSON_IsNumber(v) ? render_value(v) : render_got_typed(v);
    return fail_got(c, path, "must be", want, got);
}

static int check_enum(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
    if (!cJSON_IsArray(en))
        return 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, en) if (cJSON_Compare(e, v, true)) return 0;
    /* list the allowed values as JSON, in declared order */
    char *list = NULL;
    cJSON_ArrayForEach(e, en)
    {
        char *r = cJSON_IsString(e) ? quote_string(e->valuestring) : render_value(e);
        char *n = r ? (list ? str_printf("%s, %s", list, r) : strdup(r)) : NULL;
        free(r);
        free(list);
        if (!n)
            return VT_ERR_NOMEM;
        list = n;
    }
    char *got = render_value(v);
    return fail_got(c, path, "must be one of", list, got);
}

static int check_const(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(schema, "const");
    if (!k || cJSON_Compare(k, v, true))
        return 0;
    char *want = cJSON_IsString(k) ? quote_string(k->valuestring) : render_value(k);
    char *got = render_value(v);
    return fail_got(c, path, "must be", want, got);
}

static int check_string(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    int mn = int_kw(schema, "minLength"), mx = int_kw(schema, "maxLength");
    if (mn < 0 && mx < 0)
        return 0;
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)v->valuestring;
    utf8proc_ssize_t len = (utf8proc_ssize_t)strlen(v->valuestring), pos = 0;
    long count = 0;
    while (pos < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(s + pos, len - pos, &cp);
        if (n <= 0)
            return fail(c, path, "must be valid UTF-8 text, got an invalid byte at offset %ld",
                        (long)pos);
        pos += n;
        count++;
    }
    if ((mn >= 0 && count < mn) || (mx >= 0 && count > mx)) {
        char *want = describe_type(schema, "string");
        int rc = want ? fail(c, path, "must be %s, got %ld character%s", want, count,
                             count == 1 ? "" : "s")
                      : VT_ERR_NOMEM;
        free(want);
        return rc;
    }
    return 0;
}

static int check_array(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    int n = cJSON_GetArraySize(v);
    int mn = int_kw(schema, "minItems"), mx = int_kw(schema, "maxItems");
    if ((mn >= 0 && n < mn) || (mx >= 0 && n > mx)) {
        char *want = describe_type(schema, "array");
        int rc = want ? fail(c, path, "must be %s, got %d item%s", want, n, n == 1 ? "" : "s")
                      : VT_ERR_NOMEM;
        free(want);
        return rc;
    }
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
    if (!cJSON_IsObject(items))
        return 0;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        char *p = path_index(path, i++);
        if (!p)
            return VT_ERR_NOMEM;
        int rc = validate_node(c, items, e, p);
        free(p);
        if (rc)
            return rc;
    }
    return 0;
}

static char *allowed_list(const cJSON *props)
{
    char *list = NULL;
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        char *n = list ? str_printf("%s, %s", list, p->string) : strdup(p->string);
        free(list);
        if (!n)
            return NULL;
        list = n;
    }
    return list ? list : strdup("(none)");
}

static int check_object(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
    const cJSON *addl = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
    const cJSON *r;
    cJSON_ArrayForEach(r, req)
    {
        if (!cJSON_IsString(r) || cJSON_GetObjectItemCaseSensitive(v, r->valuestring))
            continue;
        char *p = path_member(path, r->valuestring);
        int rc = p ? fail(c, p, "required property is missing") : VT_ERR_NOMEM;
        free(p);
        return rc;
    }
    const cJSON *m;
    cJSON_ArrayForEach(m, v)
    {
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(props, m->string);
        char *p = path_member(path, m->string);
        if (!p)
            return VT_ERR_NOMEM;
        int rc = 0;
        if (sub)
            rc = validate_node(c, sub, m, p);
        else if (cJSON_IsFalse(addl)) {
            char *allowed = allowed_list(props);
            rc = allowed ? fail(c, p, "unknown property; allowed: %s", allowed) : VT_ERR_NOMEM;
            free(allowed);
        } else if (cJSON_IsObject(addl))
            rc = validate_node(c, addl, m, p);
        free(p);
        if (rc)
            return rc;
    }
    return 0;
}

static int validate_node(vctx *c, const cJSON *schema, const cJSON *v, const char *path)
{
    int rc = check_type(c, schema, v, path);
    if (rc)
        return rc;
    if ((rc = check_enum(c, schema, v, path)) || (rc = check_const(c, schema, v, path)))
        return rc;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    const char *eff = effective_type(type, v);
    if (cJSON_IsNumber(v) && !in_range(schema, v->valuedouble))
        return fail_expected(c, path, schema, eff, v);
    if (cJSON_IsString(v))
        return check_string(c, schema, v, path);
    if (cJSON_IsArray(v))
        return check_array(c, schema, v, path);
    if (cJSON_IsObject(v))
        return check_object(c, schema, v, path);
    return 0;
}

int schema_validate(const cJSON *schema, const cJSON *args, const char *tool, char **err)
{
    vctx c = {.tool = tool ? tool : "?", .err = NULL};
    if (err)
        *err = NULL;
    if (!schema)
        return VT_ERR_INVALID;
    int rc;
    if (!cJSON_IsObject(args)) {
        char *got = args ? render_got_typed(args) : strdup("nothing");
        rc = got ? fail(&c, NULL, "must be an object, got %s", got) : VT_ERR_NOMEM;
        free(got);
    } else {
        rc = validate_node(&c, schema, args, NULL);
    }
    if (rc && err)
        *err = c.err;
    else
        free(c.err);
    return rc;
}

int schema_max_output_tokens(const cJSON *args)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(args, MOT_NAME);
    if (json_is_integer_literal(m) && m->valuedouble >= 1 &&
        m->valuedouble <= SCHEMA_MAX_OUTPUT_TOKENS_MAX)
        return (int)m->valuedouble;
    return SCHEMA_MAX_OUTPUT_TOKENS_DEFAULT;
}

char *schema_render_value(const cJSON *v) { return render_value(v); }
char *schema_render_got_typed(const cJSON *v) { return render_got_typed(v); }
