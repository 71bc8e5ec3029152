/* A provider's tools/call answer as a vthost result. */
#include <stdlib.h>
#include <string.h>
#include "result.h"

/* Bytes of a provider's error text kept in the message. */
#define MAX_ERROR_TEXT 4000

/* The provider's CallToolResult as a vthost result: text goes to the
 * spool (the host applies the output budget), other content (images,
 * audio, resources) and structuredContent are passed through. */
int result_convert(vt_call *call, provider *p, const char *tool, const cJSON *reply, cJSON **result)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(reply, "error");
    if (e) {
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
        return mcpp_api->call_error(
            call, VT_ERR_IO, "MCP provider '%s' refused the call of '%s': %.*s (code %d)", p->name,
            tool, MAX_ERROR_TEXT, m ? m : "no message", cJSON_IsNumber(code) ? code->valueint : 0);
    }
    cJSON *r = cJSON_GetObjectItemCaseSensitive(reply, "result");
    if (!cJSON_IsObject(r))
        return mcpp_api->call_error(
            call, VT_ERR_IO, "MCP provider '%s' answered tools/call without a result", p->name);
    int is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError"));
    cJSON *out = cJSON_CreateObject();
    cJSON *other = NULL;
    vt_spool *spool = is_error ? NULL : mcpp_api->spool_open(call);
    size_t nt = 0;
    char *errtext = NULL;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "content"))
    {
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "type"));
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "text"));
        if (type && strcmp(type, "text") == 0 && text) {
            if (is_error) {
                if (!errtext)
                    errtext = strdup(text);
            } else {
                if (nt++)
                    mcpp_api->spool_write(spool, "\n", 1);
                mcpp_api->spool_write(spool, text, strlen(text));
            }
        } else {
            if (!other)
                other = cJSON_AddArrayToObject(out, "content");
            cJSON_AddItemToArray(other, cJSON_Duplicate(c, 1));
        }
    }
    if (is_error) {
        cJSON_Delete(out);
        int rc =
            mcpp_api->call_error(call, VT_ERR_IO, "tool '%s' of MCP provider '%s' failed: %.*s",
                                 tool, p->name, MAX_ERROR_TEXT, errtext ? errtext : "(no text)");
        free(errtext);
        return rc;
    }
    cJSON *sc = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");
    if (sc)
        cJSON_AddItemToObject(out, "structured_content", cJSON_Duplicate(sc, 1));
    if (other) {
        /* non-text content is not cut by the token budget; bound it */
        char *s = cJSON_PrintUnformatted(other);
        size_t budget = 4 * 50000;
        if (s && strlen(s) > budget) {
            cJSON_DeleteItemFromObjectCaseSensitive(out, "content");
            mcpp_api->call_warn(call,
                                "the provider returned %zu bytes of non-text content; "
                                "dropped (over the output budget)",
                                strlen(s));
        }
        free(s);
    }
    *result = out;
    return VT_OK;
}
