/* libFuzzer target: the JSON Schema validator with random schemas.
 *
 * The input drives a generator of structurally valid schemas (types,
 * unions, properties, required, additionalProperties, items, enum,
 * bounds, lengths; nested up to four levels) and of values shaped like
 * them or not, numbers written as integer literals or not (1, 1.0, 1e3,
 * -0, 2^53+1).  The schema goes through schema_prepare, the value through
 * the exact-number JSON parser and schema_validate.  Checked besides
 * memory safety: every refusal says why; a generated schema is accepted
 * by schema_prepare; a number that is not an integer literal never
 * passes {"type":"integer"}. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json_exact.h"
#include "schema.h"
#include "../fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const TYPES[] = {"object", "array", "string", "number", "integer", "boolean", "null"};
static const char *const NUMS[] = {"0", "1", "-1", "1.0", "1e3", "-0", "2.5", "9007199254740993", "1E-2", "50000"};
static const char *const STRS[] = {"\"\"", "\"a\"", "\"cmd\"", "\"\\u00e9\\u0000\"", "\"long-long-string\""};
static const char *const KEYS[] = {"a", "b", "cmd", "n", "max_output_tokens"};

static cJSON *gen_schema(fuzz_src *s, int depth)
{
    cJSON *o = cJSON_CreateObject();
    unsigned t = depth == 0 ? 0 : fuzz_take(s, 9);  /* a tool's schema is an object */
    if (t < 7) {
        cJSON_AddStringToObject(o, "type", TYPES[t]);
    } else if (t == 7) {
        cJSON *u = cJSON_AddArrayToObject(o, "type");
        cJSON_AddItemToArray(u, cJSON_CreateString(TYPES[fuzz_take(s, 7)]));
        cJSON_AddItemToArray(u, cJSON_CreateString("null"));
    }
    const char *type = t < 7 ? TYPES[t] : "";
    if (!strcmp(type, "object") && depth < 4) {
        cJSON *props = cJSON_AddObjectToObject(o, "properties");
        unsigned np = fuzz_take(s, 4);
        for (unsigned i = 0; i < np; i++) {
            const char *k = KEYS[fuzz_take(s, 5)];
            if (!cJSON_GetObjectItemCaseSensitive(props, k))
                cJSON_AddItemToObject(props, k, gen_schema(s, depth + 1));
        }
        if (np && fuzz_take(s, 2)) {
            cJSON *req = cJSON_AddArrayToObject(o, "required");
            cJSON *p;
            cJSON_ArrayForEach(p, props) if (fuzz_take(s, 2))
                cJSON_AddItemToArray(req, cJSON_CreateString(p->string));
        }
        unsigned ap = fuzz_take(s, 3);
        if (ap == 1)
            cJSON_AddBoolToObject(o, "additionalProperties", 0);
        else if (ap == 2)
            cJSON_AddItemToObject(o, "additionalProperties", gen_schema(s, depth + 1));
    } else if (!strcmp(type, "array") && depth < 4) {
        if (fuzz_take(s, 2))
            cJSON_AddItemToObject(o, "items", gen_schema(s, depth + 1));
        if (fuzz_take(s, 2))
            cJSON_AddNumberToObject(o, "maxItems", fuzz_take(s, 5));
        if (fuzz_take(s, 2))
            cJSON_AddNumberToObject(o, "minItems", fuzz_take(s, 3));
    } else if (!strcmp(type, "string")) {
        if (fuzz_take(s, 2))
            cJSON_AddNumberToObject(o, "minLength", fuzz_take(s, 3));
        if (fuzz_take(s, 2))
            cJSON_AddNumberToObject(o, "maxLength", fuzz_take(s, 20));
    } else if (!strcmp(type, "number") || !strcmp(type, "integer")) {
        static const char *const B[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};
        for (int i = 0; i < 4; i++)
            if (fuzz_take(s, 3) == 0)
                cJSON_AddNumberToObject(o, B[i], (double)fuzz_take(s, 0) - 100);
    }
    if (depth > 0 && fuzz_take(s, 5) == 0) {
        cJSON *en = cJSON_AddArrayToObject(o, "enum");
        unsigned ne = 1 + fuzz_take(s, 3);
        for (unsigned i = 0; i < ne; i++)
            cJSON_AddItemToArray(en, fuzz_take(s, 2) ? cJSON_CreateNumber(fuzz_take(s, 5))
                                                : cJSON_CreateString(KEYS[fuzz_take(s, 5)]));
    }
    return o;
}

/* A value as JSON text, loosely following the schema. */
static void gen_value(fuzz_src *s, const cJSON *schema, int depth, char *out, size_t cap, size_t *len)
{
#define PUT(str) do { const char *s_ = (str); size_t l_ = strlen(s_); if (*len + l_ < cap) { memcpy(out + *len, s_, l_); *len += l_; out[*len] = 0; } } while (0)
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(schema, "type");
    const char *type = cJSON_IsString(t) ? t->valuestring : TYPES[fuzz_take(s, 7)];
    if (fuzz_take(s, 6) == 0)
        type = TYPES[fuzz_take(s, 7)];  /* sometimes the wrong type */
    if (!strcmp(type, "object") && depth < 5) {
        PUT("{");
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
        unsigned n = fuzz_take(s, 4);
        for (unsigned i = 0; i < n; i++) {
            const char *k = KEYS[fuzz_take(s, 5)];
            if (i)
                PUT(",");
            PUT("\"");
            PUT(k);
            PUT("\":");
            gen_value(s, cJSON_GetObjectItemCaseSensitive(props, k), depth + 1, out, cap, len);
        }
        PUT("}");
    } else if (!strcmp(type, "array") && depth < 5) {
        PUT("[");
        unsigned n = fuzz_take(s, 4);
        for (unsigned i = 0; i < n; i++) {
            if (i)
                PUT(",");
            gen_value(s, cJSON_GetObjectItemCaseSensitive(schema, "items"), depth + 1, out, cap, len);
        }
        PUT("]");
    } else if (!strcmp(type, "string")) {
        PUT(STRS[fuzz_take(s, 5)]);
    } else if (!strcmp(type, "number") || !strcmp(type, "integer")) {
        PUT(NUMS[fuzz_take(s, 10)]);
    } else if (!strcmp(type, "boolean")) {
        PUT(fuzz_take(s, 2) ? "true" : "false");
    } else {
        PUT("null");
    }
#undef PUT
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_src s = {data, size};
    cJSON *gen = gen_schema(&s, 0);
    char *text = cJSON_PrintUnformatted(gen);
    cJSON *schema = NULL;
    char *err = NULL;
    if (!text || schema_prepare(text, &schema, &err) != 0) {
        fprintf(stderr, "generated schema refused: %s\n%s\n", err ? err : "?", text ? text : "");
        abort();
    }
    char value[8192];
    size_t len = 0;
    value[0] = 0;
    gen_value(&s, gen, 0, value, sizeof value, &len);
    const char *end = NULL;
    cJSON *v = json_parse_exact(value, len, &end);
    if (v) {
        char *why = NULL;
        int rc = schema_validate(schema, v, "fuzz", &why);
        if (rc != 0 && !why)
            abort();
        /* integer literals only */
        const cJSON *ty = cJSON_GetObjectItemCaseSensitive(gen, "type");
        if (rc == 0 && cJSON_IsString(ty) && !strcmp(ty->valuestring, "integer") &&
            cJSON_IsNumber(v) && !json_is_integer_literal(v))
            abort();
        free(why);
        cJSON_Delete(v);
    }
    cJSON_Delete(schema);
    cJSON_free(text);
    cJSON_Delete(gen);
    return 0;
}
