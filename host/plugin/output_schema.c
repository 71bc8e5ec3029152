/* A tool's MCP outputSchema: the result object its run hook returns (the
 * plugin's output_schema, or the typed tool's derived one), completed
 * with what the host itself puts in every response, so that each
 * structuredContent the host sends validates against it — a success, a
 * failure ({"success": false, "error"}), a guard block, a response cut
 * by the output budget. */
#include <stdlib.h>
#include <string.h>
#include "output_schema.h"
#include "strutil.h"

/* Fields the host sets: the output budget (spool.c), warnings (the
 * pipeline), a failed call (pipeline.c) and the guard's block (guard.c). */
static const char HOST_FIELDS[] =
    "{\"success\":{\"type\":\"boolean\",\"description\":\"false when the call failed\"},"
    "\"error\":{\"type\":\"string\",\"description\":\"why the call failed\"},"
    "\"output\":{\"type\":\"string\",\"description\":\"the output, cut to max_output_tokens\"},"
    "\"truncated\":{\"type\":\"boolean\"},"
    "\"original_token_count\":{\"type\":\"integer\",\"minimum\":0},"
    "\"spool_path\":{\"type\":\"string\",\"description\":\"workspace-relative file with the "
    "complete output\"},"
    "\"spool_truncated\":{\"type\":\"boolean\"},"
    "\"spool_incomplete\":{\"type\":\"boolean\"},"
    "\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"blocked\":{\"type\":\"boolean\"},"
    "\"failure_kind\":{\"type\":\"string\"},"
    "\"hint\":{\"type\":\"string\"},"
    "\"pending_mutations\":{\"type\":\"integer\"},"
    "\"max_unverified_mutations\":{\"type\":\"integer\"}}";

/* A failed call, and a response the budget replaced by its spooled whole,
 * need not carry the tool's required fields. */
static const char OTHER_SHAPES[] =
    "[{\"properties\":{\"success\":{\"const\":false}},\"required\":[\"success\",\"error\"]},"
    "{\"properties\":{\"truncated\":{\"const\":true}},\"required\":[\"truncated\"]}]";

/* Parse `text` and check its shape; *in is the tree (caller deletes). */
static int parse_checked(const char *text, cJSON **in_out, char **err)
{
    *in_out = NULL;
    *err = NULL;
    cJSON *in = cJSON_Parse(text);
    if (!in) {
        *err = strdup("output schema is not valid JSON");
        return VT_ERR_INVALID;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(in, "type");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(in, "required");
    int ok = cJSON_IsObject(in) && cJSON_IsString(type) && !strcmp(type->valuestring, "object") &&
             (!props || cJSON_IsObject(props)) && (!req || cJSON_IsArray(req));
    for (const cJSON *r = req ? req->child : NULL; ok && r; r = r->next)
        ok = cJSON_IsString(r);
    if (!ok) {
        cJSON_Delete(in);
        *err = strdup("output schema must be a JSON Schema object of \"type\": \"object\" "
                      "(with \"properties\" an object and \"required\" an array of names)");
        return VT_ERR_INVALID;
    }
    *in_out = in;
    return VT_OK;
}

int output_schema_check(const char *text, char **err)
{
    cJSON *in;
    int rc = parse_checked(text, &in, err);
    cJSON_Delete(in);
    return rc;
}

int output_schema_complete(const char *text, cJSON **out, char **err)
{
    *out = NULL;
    cJSON *in;
    int rc = parse_checked(text, &in, err);
    if (rc != VT_OK)
        return rc;
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(in, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(in, "required");
    cJSON *s = cJSON_CreateObject();
    cJSON *host = cJSON_Parse(HOST_FIELDS);
    cJSON *merged = props ? cJSON_Duplicate(props, 1) : cJSON_CreateObject();
    if (!s || !host || !merged) {
        cJSON_Delete(s);
        cJSON_Delete(host);
        cJSON_Delete(merged);
        cJSON_Delete(in);
        return VT_ERR_NOMEM;
    }
    /* The host's fields, unless the tool describes them itself. */
    while (host->child) {
        cJSON *f = cJSON_DetachItemViaPointer(host, host->child);
        if (cJSON_GetObjectItemCaseSensitive(merged, f->string))
            cJSON_Delete(f);
        else
            cJSON_AddItemToObject(merged, f->string, f);
    }
    cJSON_Delete(host);
    cJSON_AddStringToObject(s, "type", "object");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(in, "description");
    if (cJSON_IsString(desc))
        cJSON_AddStringToObject(s, "description", desc->valuestring);
    cJSON_AddItemToObject(s, "properties", merged);
    if (req && cJSON_GetArraySize(req) > 0) {
        cJSON *any = cJSON_Parse(OTHER_SHAPES);
        cJSON *ok_shape = cJSON_CreateObject();
        if (!any || !ok_shape) {
            cJSON_Delete(any);
            cJSON_Delete(ok_shape);
            cJSON_Delete(s);
            cJSON_Delete(in);
            return VT_ERR_NOMEM;
        }
        cJSON_AddItemToObject(ok_shape, "required", cJSON_Duplicate(req, 1));
        cJSON_InsertItemInArray(any, 0, ok_shape);
        cJSON_AddItemToObject(s, "anyOf", any);
    }
    cJSON_Delete(in);
    *out = s;
    return VT_OK;
}
