/* Tool schemas at load time: schema_prepare() checks a plugin's schema
 * text once (supported keywords, their types, bounds) and adds the shared
 * max_output_tokens property, so that schema_validate() (schema.c) can
 * walk it on every call without re-checking. */
#include "schema.h"
#include "schema_internal.h"
#include "strutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vthost/plugin.h>

#define MOT_NAME "max_output_tokens"
#define MOT_DESCRIPTION                                                                            \
    "Upper bound on the tokens of output returned to the model (1-50000, "                         \
    "default 10000); the complete output is kept in a spool file."
#define render_value schema_render_value
#define render_got_typed schema_render_got_typed

static bool is_whole(double v) { return isfinite(v) && floor(v) == v; }

/* ---- schema checks (load time) ----------------------------------------- */

static const char *const known_types[] = {"object",  "array",   "string", "number",
                                          "integer", "boolean", "null"};

static bool known_type(const char *t)
{
    for (size_t i = 0; i < sizeof known_types / sizeof *known_types; i++)
        if (!strcmp(t, known_types[i]))
            return true;
    return false;
}

/* Validation keywords outside the subset.  A schema using one is refused
 * rather than half-enforced: its author would otherwise believe a
 * constraint holds that nothing checks.  Annotations (description, title,
 * default, examples, format, ...) are accepted and ignored. */
static const char *const unsupported[] = {"pattern",
                                          "patternProperties",
                                          "anyOf",
                                          "oneOf",
                                          "allOf",
                                          "not",
                                          "$ref",
                                          "if",
                                          "then",
                                          "else",
                                          "dependencies",
                                          "dependentRequired",
                                          "dependentSchemas",
                                          "propertyNames",
                                          "contains",
                                          "minContains",
                                          "maxContains",
                                          "prefixItems",
                                          "additionalItems",
                                          "uniqueItems",
                                          "multipleOf",
                                          "minProperties",
                                          "maxProperties",
                                          "unevaluatedProperties",
                                          "unevaluatedItems"};

#define SUPPORTED                                                                                  \
    "type, properties, required, additionalProperties, enum, const, minimum, maximum, "            \
    "exclusiveMinimum, exclusiveMaximum, minLength, maxLength, items, minItems, maxItems"

static int bad(char **err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad(char **err, const char *path, const char *fmt, ...)
{
    if (!err)
        return VT_ERR_INVALID;
    char *head = path && *path ? str_printf("input schema: %s", path) : strdup("input schema");
    va_list ap;
    va_start(ap, fmt);
    *err = str_vprintf_after(head, fmt, ap);
    va_end(ap);
    free(head);
    return *err ? VT_ERR_INVALID : VT_ERR_NOMEM;
}

static char *sub_path(const char *path, const char *kw)
{
    return *path ? str_printf("%s.%s", path, kw) : strdup(kw);
}

/* Draft-4 boolean exclusiveMinimum/Maximum become the numeric form. */
static int normalise_exclusive(cJSON *s, const char *path, const char *bound, const char *excl,
                               char **err)
{
    cJSON *e = cJSON_GetObjectItemCaseSensitive(s, excl);
    if (!cJSON_IsBool(e))
        return 0;
    cJSON *b = cJSON_GetObjectItemCaseSensitive(s, bound);
    if (cJSON_IsFalse(e)) {
        cJSON_DeleteItemFromObjectCaseSensitive(s, excl);
        return 0;
    }
    if (!cJSON_IsNumber(b))
        return bad(err, path, "%s%s: true needs a numeric %s", *path ? "." : ": ", excl, bound);
    cJSON *n = cJSON_CreateNumber(b->valuedouble);
    if (!n)
        return VT_ERR_NOMEM;
    cJSON_ReplaceItemInObjectCaseSensitive(s, excl, n);
    cJSON_DeleteItemFromObjectCaseSensitive(s, bound);
    return 0;
}

/* "input schema: PATH.kw ..." or "input schema: kw ..." at top level. */
#define KW(path, kw) (*(path) ? (path) : ""), (*(path) ? "." : ""), (kw)

/* Checks (and normalises) one schema object and everything below it. */
static int check_schema(cJSON *s, const char *path, char **err);

static int check_type(const cJSON *type, const char *path, char **err)
{
    if (cJSON_IsString(type)) {
        if (!known_type(type->valuestring))
            return bad(err, "", ": %s%s%s: unknown type \"%s\"", KW(path, "type"),
                       type->valuestring);
    } else if (cJSON_IsArray(type) && cJSON_GetArraySize(type) > 0) {
        const cJSON *t;
        cJSON_ArrayForEach(t, type)
        {
            if (!cJSON_IsString(t) || !known_type(t->valuestring))
                return bad(err, "", ": %s%s%s: not a list of known type names", KW(path, "type"));
        }
    } else {
        return bad(err, "", ": %s%s%s: must be a type name or a list of them", KW(path, "type"));
    }
    return 0;
}

/* The keywords of one schema object, its sub-schemas aside. */
static int check_keywords(cJSON *s, const char *path, char **err)
{
    static const char *const counts[] = {"minLength", "maxLength", "minItems", "maxItems"};
    static const char *const bounds[] = {"minimum", "maximum", "exclusiveMinimum",
                                         "exclusiveMaximum"};
    int rc;
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++)
        if (cJSON_GetObjectItemCaseSensitive(s, unsupported[i]))
            return bad(err, "", ": %s%s%s: keyword not supported (supported: " SUPPORTED ")",
                       KW(path, unsupported[i]));
    if ((rc = normalise_exclusive(s, path, "minimum", "exclusiveMinimum", err)) ||
        (rc = normalise_exclusive(s, path, "maximum", "exclusiveMaximum", err)))
        return rc;
    cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (type && (rc = check_type(type, path, err)))
        return rc;
    for (size_t i = 0; i < 4; i++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(s, counts[i]);
        if (k && !(cJSON_IsNumber(k) && is_whole(k->valuedouble) && k->valuedouble >= 0))
            return bad(err, "", ": %s%s%s: must be a non-negative integer", KW(path, counts[i]));
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(s, bounds[i]);
        if (b && !(cJSON_IsNumber(b) && isfinite(b->valuedouble)))
            return bad(err, "", ": %s%s%s: must be a number", KW(path, bounds[i]));
    }
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
    if (en && !(cJSON_IsArray(en) && cJSON_GetArraySize(en) > 0))
        return bad(err, "", ": %s%s%s: must be a non-empty array", KW(path, "enum"));
    return 0;
}

/* One sub-schema under `key` ("items", "additionalProperties"). */
static int check_sub(cJSON *sub, const char *path, const char *key, char **err)
{
    char *p = sub_path(path, key);
    int rc = p ? check_schema(sub, p, err) : VT_ERR_NOMEM;
    free(p);
    return rc;
}

static int check_properties(cJSON *props, const char *path, char **err)
{
    if (!cJSON_IsObject(props))
        return bad(err, "", ": %s%s%s is not an object", KW(path, "properties"));
    cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        char *pp = *path ? str_printf("%s.properties.%s", path, p->string)
                         : str_printf("properties.%s", p->string);
        if (!pp)
            return VT_ERR_NOMEM;
        int rc = cJSON_IsObject(p) ? check_schema(p, pp, err)
                                   : bad(err, "", ": %s is not an object", pp);
        free(pp);
        if (rc)
            return rc;
    }
    return 0;
}

static int check_required(const cJSON *req, const cJSON *props, const char *path, char **err)
{
    if (!cJSON_IsArray(req))
        return bad(err, "", ": %s%s%s is not an array of property names", KW(path, "required"));
    int i = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, req)
    {
        if (!cJSON_IsString(r))
            return bad(err, "", ": %s%s%s[%d] is not a string", KW(path, "required"), i);
        if (!cJSON_GetObjectItemCaseSensitive(props, r->valuestring))
            return bad(err, "", ": %s%s%s[%d] names \"%s\", which is not in properties",
                       KW(path, "required"), i, r->valuestring);
        i++;
    }
    return 0;
}

static int check_schema(cJSON *s, const char *path, char **err)
{
    int rc = check_keywords(s, path, err);
    if (rc)
        return rc;
    cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    if (items && !cJSON_IsObject(items))
        return bad(err, "", ": %s%s%s is not an object", KW(path, "items"));
    if (items && (rc = check_sub(items, path, "items", err)))
        return rc;
    cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    if (props && (rc = check_properties(props, path, err)))
        return rc;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    if (req && (rc = check_required(req, props, path, err)))
        return rc;
    cJSON *addl = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
    if (addl && !cJSON_IsBool(addl) && !cJSON_IsObject(addl))
        return bad(err, "", ": %s%s%s must be true, false or a schema object",
                   KW(path, "additionalProperties"));
    if (addl && cJSON_IsObject(addl))
        return check_sub(addl, path, "additionalProperties", err);
    return 0;
}

static int replace_or_add(cJSON *obj, const char *key, cJSON *item)
{
    if (!item)
        return VT_ERR_NOMEM;
    if (cJSON_GetObjectItemCaseSensitive(obj, key))
        cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item);
    else
        cJSON_AddItemToObject(obj, key, item);
    return 0;
}

/* Declare max_output_tokens, or force the shared bounds on a declaration. */
static int add_max_output_tokens(cJSON *props)
{
    cJSON *m = cJSON_GetObjectItemCaseSensitive(props, MOT_NAME);
    if (!m) {
        m = cJSON_CreateObject();
        if (!m)
            return VT_ERR_NOMEM;
        cJSON_AddItemToObject(props, MOT_NAME, m);
        if (!cJSON_AddStringToObject(m, "description", MOT_DESCRIPTION))
            return VT_ERR_NOMEM;
    }
    static const char *const drop[] = {"exclusiveMinimum", "exclusiveMaximum", "enum"};
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++)
        cJSON_DeleteItemFromObjectCaseSensitive(m, drop[i]);
    if (replace_or_add(m, "type", cJSON_CreateString("integer")) ||
        replace_or_add(m, "minimum", cJSON_CreateNumber(1)) ||
        replace_or_add(m, "maximum", cJSON_CreateNumber(SCHEMA_MAX_OUTPUT_TOKENS_MAX)) ||
        replace_or_add(m, "default", cJSON_CreateNumber(SCHEMA_MAX_OUTPUT_TOKENS_DEFAULT)))
        return VT_ERR_NOMEM;
    return 0;
}

int schema_prepare(const char *schema_text, cJSON **out, char **err)
{
    if (out)
        *out = NULL;
    if (err)
        *err = NULL;
    if (!schema_text || !out)
        return bad(err, NULL, " is missing");
    const char *end = NULL;
    cJSON *s = cJSON_ParseWithOpts(schema_text, &end, true);
    if (!s) {
        size_t at = end && end >= schema_text ? (size_t)(end - schema_text) : 0;
        return bad(err, NULL, " is not valid JSON near byte %zu", at);
    }
    int rc;
    if (!cJSON_IsObject(s)) {
        char *got = render_got_typed(s);
        rc = bad(err, NULL, " must be a JSON object, got %s", got ? got : "something else");
        free(got);
        goto fail;
    }
    cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
    if (!type) {
        if (!cJSON_GetObjectItemCaseSensitive(s, "properties")) {
            rc = bad(err, NULL, ": no \"type\": \"object\" and no \"properties\"");
            goto fail;
        }
        if (!cJSON_AddStringToObject(s, "type", "object")) {
            rc = VT_ERR_NOMEM;
            goto fail;
        }
    } else if (!cJSON_IsString(type) || strcmp(type->valuestring, "object")) {
        char *got = render_value(type);
        rc = bad(err, NULL, ": type must be \"object\", got %s", got ? got : "?");
        free(got);
        goto fail;
    }
    if ((rc = check_schema(s, "", err)))
        goto fail;
    cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    if (!props && !(props = cJSON_AddObjectToObject(s, "properties"))) {
        rc = VT_ERR_NOMEM;
        goto fail;
    }
    if ((rc = add_max_output_tokens(props)))
        goto fail;
    if (!cJSON_GetObjectItemCaseSensitive(s, "additionalProperties") &&
        !cJSON_AddFalseToObject(s, "additionalProperties")) {
        rc = VT_ERR_NOMEM;
        goto fail;
    }
    *out = s;
    return 0;
fail:
    cJSON_Delete(s);
    if (rc == VT_ERR_NOMEM && err && !*err)
        *err = strdup("input schema: out of memory");
    return rc;
}
