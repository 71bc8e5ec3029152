/* Typed tools: a C function described by a signature string, called
 * through libffi.
 *
 * Grammar (whitespace allowed between tokens):
 *   signature := RET NAME '(' [ 'void' | param { ',' param } ] ')' [ ':' DOC ]
 *   param     := TYPE NAME [ '=' DEFAULT ] [ ':' DOC ]
 *   TYPE      := string | int64 | double | bool | json
 *   RET       := TYPE | void
 *   NAME      := [A-Za-z_][A-Za-z0-9_]*
 *   DEFAULT   := a JSON literal of the parameter's type
 *   DOC       := a JSON string: the parameter's description in the input
 *                schema, or (after ')') the result's in the output schema
 * Example: int64 word_count(string path: "File to read",
 *                           bool unique = false: "Count each word once")
 *          : "Number of words"
 * C types: string = const char * (borrowed for the call), int64 =
 * int64_t, double = double, bool = bool, json = const cJSON * (borrowed).
 * A string return is a char * the plugin allocated with api->strdup() or
 * api->alloc() (the host's malloc); the host frees it with free() after
 * copying it.  A json return is a new cJSON tree the host takes and frees
 * with cJSON_Delete().  NULL returns become JSON null.
 *
 * libffi is opened on the first typed tool (opened_lib.h): the host's own
 * plugins declare none. */
#include <ctype.h>
#include <ffi.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "opened_lib.h"
#include "strutil.h"
#include "typed.h"

/* A signature is a declaration, not a program: a bound keeps the
 * marshalling arrays small and fixed. */
#define TYPED_MAX_PARAMS 32
#define TYPED_MAX_NAME 64

typedef enum ttype { T_VOID, T_STRING, T_INT64, T_DOUBLE, T_BOOL, T_JSON } ttype;

static const struct {
    const char *name;
    ttype type;
    const char *schema_type; /* NULL: any JSON value */
} type_names[] = {
    {"string", T_STRING, "string"}, {"int64", T_INT64, "integer"}, {"double", T_DOUBLE, "number"},
    {"bool", T_BOOL, "boolean"},    {"json", T_JSON, NULL},        {"void", T_VOID, NULL},
};

typedef struct tparam {
    char name[TYPED_MAX_NAME + 1];
    ttype type;
    cJSON *def; /* default value, or NULL when required */
    char *doc;  /* description, or NULL */
} tparam;

struct typed_tool {
    char *tool;
    void (*fn)(void);
    ttype ret;
    char *ret_doc; /* the result's description, or NULL */
    size_t nparams;
    tparam params[TYPED_MAX_PARAMS];
    ffi_type *atypes[TYPED_MAX_PARAMS];
    ffi_cif cif;
};

typedef struct parser {
    const char *sig;
    const char *p;
    const char *tool;
    char *err;
} parser;

/* Records the first error at the current position (1-based character). */
static int perr(parser *ps, const char *what)
{
    if (!ps->err)
        ps->err = str_printf("tool '%s': signature \"%s\", character %zu: %s", ps->tool, ps->sig,
                             (size_t)(ps->p - ps->sig) + 1, what);
    return VT_ERR_INVALID;
}

static void skip_ws(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int read_ident(parser *ps, char *out, const char *what)
{
    skip_ws(ps);
    const char *s = ps->p;
    if (!isalpha((unsigned char)*s) && *s != '_') {
        char *m = str_printf("expected %s", what);
        int rc = perr(ps, m ? m : what);
        free(m);
        return rc;
    }
    size_t n = 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_')
        n++;
    if (n > TYPED_MAX_NAME)
        return perr(ps, "name longer than 64 characters");
    memcpy(out, s, n);
    out[n] = '\0';
    ps->p += n;
    return 0;
}

static int read_type(parser *ps, int allow_void, ttype *out)
{
    skip_ws(ps);
    const char *at = ps->p;
    char word[TYPED_MAX_NAME + 1];
    if (read_ident(ps, word, "a type (string, int64, double, bool, json)") != 0)
        return VT_ERR_INVALID;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strcmp(word, type_names[i].name) == 0) {
            if (type_names[i].type == T_VOID && !allow_void) {
                ps->p = at;
                return perr(ps, "'void' is only a return type");
            }
            *out = type_names[i].type;
            return 0;
        }
    ps->p = at;
    char *m = str_printf("unknown type '%s' (expected string, int64, double, bool, json%s)", word,
                         allow_void ? " or void" : "");
    int rc = perr(ps, m ? m : "unknown type");
    free(m);
    return rc;
}

static int int64_of(double v, int64_t *out)
{
    /* 2^63 is exact in a double; the range is [-2^63, 2^63). */
    if (!isfinite(v) || v != floor(v) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
        return VT_ERR_INVALID;
    *out = (int64_t)v;
    return 0;
}

static int default_fits(const cJSON *v, ttype t)
{
    int64_t i;
    switch (t) {
    case T_STRING: return cJSON_IsString(v);
    case T_INT64: return cJSON_IsNumber(v) && int64_of(v->valuedouble, &i) == 0;
    case T_DOUBLE: return cJSON_IsNumber(v);
    case T_BOOL: return cJSON_IsBool(v);
    case T_JSON: return 1;
    case T_VOID: break;
    }
    return 0;
}

static const char *type_name(ttype t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (type_names[i].type == t)
            return type_names[i].name;
    return "?";
}

static int read_default(parser *ps, tparam *pa)
{
    skip_ws(ps);
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithOpts(ps->p, &end, 0);
    if (!v || !default_fits(v, pa->type)) {
        cJSON_Delete(v);
        char *m = str_printf("default of %s parameter '%s' must be a JSON %s", type_name(pa->type),
                             pa->name,
                             pa->type == T_STRING   ? "string in double quotes"
                             : pa->type == T_INT64  ? "integer"
                             : pa->type == T_DOUBLE ? "number"
                             : pa->type == T_BOOL   ? "true or false"
                                                    : "value");
        int rc = perr(ps, m ? m : "bad default");
        free(m);
        return rc;
    }
    pa->def = v;
    ps->p = end;
    return 0;
}

/* After a ':', a JSON string: a description. */
static int read_doc(parser *ps, char **out)
{
    skip_ws(ps);
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithOpts(ps->p, &end, 0);
    if (!cJSON_IsString(v) || !*v->valuestring) {
        cJSON_Delete(v);
        return perr(ps, "expected a description in double quotes after ':'");
    }
    *out = strdup(v->valuestring);
    cJSON_Delete(v);
    if (!*out)
        return VT_ERR_NOMEM;
    ps->p = end;
    return 0;
}

/* An optional ": DOC". */
static int read_opt_doc(parser *ps, char **out)
{
    skip_ws(ps);
    if (*ps->p != ':')
        return 0;
    ps->p++;
    return read_doc(ps, out);
}

static int read_param(parser *ps, struct typed_tool *tt)
{
    if (tt->nparams == TYPED_MAX_PARAMS)
        return perr(ps, "more than 32 parameters");
    tparam *pa = &tt->params[tt->nparams];
    if (read_type(ps, 0, &pa->type) != 0)
        return VT_ERR_INVALID;
    skip_ws(ps);
    const char *at = ps->p;
    if (read_ident(ps, pa->name, "a parameter name") != 0)
        return VT_ERR_INVALID;
    for (size_t i = 0; i < tt->nparams; i++)
        if (strcmp(tt->params[i].name, pa->name) == 0) {
            ps->p = at;
            return perr(ps, "duplicate parameter name");
        }
    if (strcmp(pa->name, "max_output_tokens") == 0) {
        ps->p = at;
        return perr(ps, "'max_output_tokens' is reserved: the host adds it to every tool");
    }
    tt->nparams++;
    skip_ws(ps);
    if (*ps->p == '=') {
        ps->p++;
        if (read_default(ps, pa) != 0)
            return VT_ERR_INVALID;
    }
    return read_opt_doc(ps, &pa->doc);
}

static int parse(parser *ps, struct typed_tool *tt)
{
    char fname[TYPED_MAX_NAME + 1];
    if (read_type(ps, 1, &tt->ret) != 0 || read_ident(ps, fname, "the function name") != 0)
        return VT_ERR_INVALID;
    skip_ws(ps);
    if (*ps->p != '(')
        return perr(ps, "expected '('");
    ps->p++;
    skip_ws(ps);
    /* "()" and "(void)" both mean no parameters. */
    if (strncmp(ps->p, "void", 4) == 0 && !isalnum((unsigned char)ps->p[4]) && ps->p[4] != '_') {
        const char *q = ps->p + 4;
        while (isspace((unsigned char)*q))
            q++;
        if (*q == ')')
            ps->p = q;
    }
    if (*ps->p != ')') {
        for (;;) {
            if (read_param(ps, tt) != 0)
                return VT_ERR_INVALID;
            skip_ws(ps);
            if (*ps->p == ',') {
                ps->p++;
                continue;
            }
            if (*ps->p != ')')
                return perr(ps, "expected ',' or ')'");
            break;
        }
    }
    ps->p++;
    if (read_opt_doc(ps, &tt->ret_doc) != 0)
        return VT_ERR_INVALID;
    skip_ws(ps);
    if (*ps->p)
        return perr(ps, "unexpected text after ')'");
    return 0;
}

/* libffi, bound once (every member or none). */
static struct {
    __typeof__(ffi_prep_cif) *prep_cif;
    __typeof__(ffi_call) *call;
    ffi_type *pointer, *sint64, *dbl, *uint8, *nothing;
} ffi;
static pthread_once_t ffi_once = PTHREAD_ONCE_INIT;
static char *ffi_error;

static void bind_ffi(void)
{
    const opened_sym syms[] = {
        {"ffi_prep_cif", (void **)&ffi.prep_cif},    {"ffi_call", (void **)&ffi.call},
        {"ffi_type_pointer", (void **)&ffi.pointer}, {"ffi_type_sint64", (void **)&ffi.sint64},
        {"ffi_type_double", (void **)&ffi.dbl},      {"ffi_type_uint8", (void **)&ffi.uint8},
        {"ffi_type_void", (void **)&ffi.nothing},    {NULL, NULL},
    };
    opened_lib_bind(VTHOST_FFI_SONAME, syms, &ffi_error);
}

static ffi_type *ffi_of(ttype t)
{
    switch (t) {
    case T_STRING:
    case T_JSON: return ffi.pointer;
    case T_INT64: return ffi.sint64;
    case T_DOUBLE: return ffi.dbl;
    /* C bool travels as an unsigned char holding 0 or 1. */
    case T_BOOL: return ffi.uint8;
    case T_VOID: break;
    }
    return ffi.nothing;
}

static char *derive_schema(const struct typed_tool *tt)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *props = cJSON_AddObjectToObject(s, "properties");
    cJSON *req = cJSON_CreateArray();
    for (size_t i = 0; i < tt->nparams; i++) {
        const tparam *pa = &tt->params[i];
        cJSON *p = cJSON_AddObjectToObject(props, pa->name);
        for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
            if (type_names[k].type == pa->type && type_names[k].schema_type)
                cJSON_AddStringToObject(p, "type", type_names[k].schema_type);
        if (pa->doc)
            cJSON_AddStringToObject(p, "description", pa->doc);
        else if (pa->type == T_JSON)
            cJSON_AddStringToObject(p, "description", "Any JSON value.");
        if (pa->def)
            cJSON_AddItemToObject(p, "default", cJSON_Duplicate(pa->def, 1));
        else
            cJSON_AddItemToArray(req, cJSON_CreateString(pa->name));
    }
    cJSON_AddItemToObject(s, "required", req);
    cJSON_AddBoolToObject(s, "additionalProperties", 0);
    char *text = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    return text;
}

char *typed_tool_output_schema(const struct typed_tool *tt)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "type", "object");
    cJSON *r = cJSON_AddObjectToObject(cJSON_AddObjectToObject(s, "properties"), "result");
    switch (tt->ret) {
    case T_VOID: cJSON_AddStringToObject(r, "type", "null"); break;
    case T_JSON: break; /* any JSON value (NULL returns null) */
    case T_STRING: {    /* a NULL return is null */
        cJSON *t = cJSON_AddArrayToObject(r, "type");
        cJSON_AddItemToArray(t, cJSON_CreateString("string"));
        cJSON_AddItemToArray(t, cJSON_CreateString("null"));
        break;
    }
    default:
        for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
            if (type_names[k].type == tt->ret && type_names[k].schema_type)
                cJSON_AddStringToObject(r, "type", type_names[k].schema_type);
    }
    if (tt->ret_doc)
        cJSON_AddStringToObject(r, "description", tt->ret_doc);
    cJSON *req = cJSON_AddArrayToObject(s, "required");
    cJSON_AddItemToArray(req, cJSON_CreateString("result"));
    char *text = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    return text;
}

int typed_tool_prepare(const vt_tool *t, struct typed_tool **out, char **schema_text, char **err)
{
    *out = NULL;
    *schema_text = NULL;
    *err = NULL;
    const char *name = t->name ? t->name : "(unnamed)";
    if (!t->signature || !t->typed_fn) {
        *err = str_printf("tool '%s': a typed tool needs both a signature and a function", name);
        return VT_ERR_INVALID;
    }
    struct typed_tool *tt = calloc(1, sizeof *tt);
    if (!tt || !(tt->tool = strdup(name))) {
        free(tt);
        return VT_ERR_NOMEM;
    }
    tt->fn = t->typed_fn;
    parser ps = {.sig = t->signature, .p = t->signature, .tool = name};
    if (parse(&ps, tt) != 0) {
        *err = ps.err ? ps.err : str_printf("tool '%s': bad signature", name);
        typed_tool_free(tt);
        return VT_ERR_INVALID;
    }
    pthread_once(&ffi_once, bind_ffi);
    if (!ffi.call) {
        *err = str_printf("tool '%s': typed tools need libffi: %s", name,
                          ffi_error ? ffi_error : "it could not be opened");
        typed_tool_free(tt);
        return VT_ERR_UNSUPPORTED;
    }
    for (size_t i = 0; i < tt->nparams; i++)
        tt->atypes[i] = ffi_of(tt->params[i].type);
    if (ffi.prep_cif(&tt->cif, FFI_DEFAULT_ABI, (unsigned)tt->nparams, ffi_of(tt->ret),
                     tt->atypes) != FFI_OK) {
        *err = str_printf("tool '%s': libffi cannot prepare a call for \"%s\"", name, t->signature);
        typed_tool_free(tt);
        return VT_ERR_UNSUPPORTED;
    }
    *schema_text = derive_schema(tt);
    if (!*schema_text) {
        typed_tool_free(tt);
        return VT_ERR_NOMEM;
    }
    *out = tt;
    return VT_OK;
}

typedef union tvalue {
    const char *s;
    int64_t i;
    double d;
    uint8_t b;
    const cJSON *j;
} tvalue;

/* The C value of parameter `pa` from `v` (the argument or its default). */
static int to_c(const struct typed_tool *tt, const tparam *pa, const cJSON *v, tvalue *out,
                char **err)
{
    int ok = 0;
    switch (pa->type) {
    case T_STRING:
        if ((ok = cJSON_IsString(v)))
            out->s = v->valuestring;
        break;
    case T_INT64: ok = cJSON_IsNumber(v) && int64_of(v->valuedouble, &out->i) == 0; break;
    case T_DOUBLE:
        if ((ok = cJSON_IsNumber(v)))
            out->d = v->valuedouble;
        break;
    case T_BOOL:
        if ((ok = cJSON_IsBool(v)))
            out->b = cJSON_IsTrue(v) ? 1 : 0;
        break;
    case T_JSON:
        ok = 1;
        out->j = v;
        break;
    case T_VOID: break;
    }
    if (!ok)
        *err = str_printf("tool '%s': parameter '%s' must be %s %s", tt->tool, pa->name,
                          pa->type == T_INT64 ? "an" : "a",
                          pa->type == T_INT64 ? "integer in the int64 range" : type_name(pa->type));
    return ok ? 0 : VT_ERR_INVALID;
}

static cJSON *to_json(const struct typed_tool *tt, const void *rv, const tvalue *args)
{
    const union {
        ffi_arg a;
        int64_t i;
        double d;
        void *p;
    } *r = rv;
    switch (tt->ret) {
    case T_VOID: return cJSON_CreateNull();
    case T_INT64: return cJSON_CreateNumber((double)r->i);
    case T_DOUBLE: return cJSON_CreateNumber(r->d);
    /* libffi widens returns narrower than a register to ffi_arg. */
    case T_BOOL: return cJSON_CreateBool((uint8_t)r->a != 0);
    case T_STRING: {
        char *s = r->p;
        cJSON *v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
        free(s);
        return v;
    }
    case T_JSON: {
        cJSON *j = r->p;
        if (!j)
            return cJSON_CreateNull();
        /* Handing back a borrowed argument is a plugin bug that would
         * free the caller's tree twice: copy it instead of taking it. */
        for (size_t i = 0; i < tt->nparams; i++)
            if (tt->params[i].type == T_JSON && args[i].j == j)
                return cJSON_Duplicate(j, 1);
        return j;
    }
    }
    return cJSON_CreateNull();
}

int typed_tool_call(struct typed_tool *tt, const cJSON *args, cJSON **result, char **err)
{
    *result = NULL;
    *err = NULL;
    tvalue vals[TYPED_MAX_PARAMS];
    void *avalues[TYPED_MAX_PARAMS];
    for (size_t i = 0; i < tt->nparams; i++) {
        const tparam *pa = &tt->params[i];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, pa->name);
        if (!v)
            v = pa->def;
        if (!v) {
            *err = str_printf("tool '%s': required parameter '%s' is missing", tt->tool, pa->name);
            return VT_ERR_INVALID;
        }
        int rc = to_c(tt, pa, v, &vals[i], err);
        if (rc != 0)
            return rc;
        avalues[i] = &vals[i];
    }
    union {
        ffi_arg a;
        int64_t i;
        double d;
        void *p;
    } rv;
    memset(&rv, 0, sizeof rv);
    ffi.call(&tt->cif, tt->fn, &rv, tt->nparams ? avalues : NULL);
    cJSON *value = to_json(tt, &rv, vals);
    cJSON *res = cJSON_CreateObject();
    if (!value || !res) {
        cJSON_Delete(value);
        cJSON_Delete(res);
        return VT_ERR_NOMEM;
    }
    cJSON_AddItemToObject(res, "result", value);
    *result = res;
    return VT_OK;
}

void typed_tool_free(struct typed_tool *tt)
{
    if (!tt)
        return;
    for (size_t i = 0; i < tt->nparams; i++) {
        cJSON_Delete(tt->params[i].def);
        free(tt->params[i].doc);
    }
    free(tt->ret_doc);
    free(tt->tool);
    free(tt);
}
