/* JSON-RPC ids: comparing them and echoing them exactly as sent. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "json_exact.h"
#include "mcp_internal.h"

int mcp_id_equal(const cJSON *a, const cJSON *b)
{
    if (!a || !b)
        return 0;
    if (cJSON_IsString(a) && cJSON_IsString(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    /* A string id holding \u0000 is kept as its raw text (json_exact.c). */
    if (cJSON_IsRaw(a) && cJSON_IsRaw(b))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b)) {
        /* Past 2^53 doubles merge neighbours: compare the text sent. */
        const char *la = json_number_lexeme(a), *lb = json_number_lexeme(b);
        if (la && lb && strcmp(la, lb) == 0)
            return 1;
        return a->valuedouble == b->valuedouble && fabs(a->valuedouble) < 9007199254740992.0;
    }
    return 0;
}

cJSON *mcp_id_copy(const cJSON *id)
{
    /* A number is echoed as the exact text the client sent. */
    if (json_number_lexeme(id))
        return json_copy_exact(id);
    /* Built in memory: cJSON prints large integers in 15 significant
     * digits, so an integral id is printed whole. */
    if (cJSON_IsNumber(id) && id->valuedouble == floor(id->valuedouble) &&
        fabs(id->valuedouble) < 1e17) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.0f", id->valuedouble);
        return cJSON_CreateRaw(buf);
    }
    return cJSON_Duplicate(id, 1);
}
