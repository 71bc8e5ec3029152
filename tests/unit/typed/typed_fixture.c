/* A plugin whose tools are plain C functions (typed tools). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>

static VT_PLUGIN_API(g_api);

/* Words separated by spaces; `unique` counts distinct ones. */
static int64_t word_count(const char *text, bool unique)
{
    char *copy = strdup(text), *save = NULL;
    char *seen[256];
    int64_t n = 0, nseen = 0;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int dup = 0;
        for (int64_t i = 0; unique && i < nseen; i++)
            dup |= strcmp(seen[i], w) == 0;
        if (!dup) {
            n++;
            if (nseen < 256)
                seen[nseen++] = w;
        }
    }
    free(copy);
    return n;
}

static cJSON *object_keys(const cJSON *obj)
{
    cJSON *keys = cJSON_CreateArray();
    const cJSON *e;
    cJSON_ArrayForEach(e, obj)
        if (e->string)
            cJSON_AddItemToArray(keys, cJSON_CreateString(e->string));
    return keys;
}

static char *shout(const char *s)
{
    char *r = g_api->strdup(s);
    for (char *p = r; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return r;
}

static const vt_tool tools[] = {
    {.name = "word_count", .description = "Count the words of a text.",
     .effects = VT_EFFECT_READ_ONLY, .flags = VT_TOOL_DEFERRED,
     .signature = "int64 word_count(string text, bool unique = false)",
     .typed_fn = (void (*)(void))word_count},
    {.name = "object_keys", .description = "List the keys of a JSON object.",
     .effects = VT_EFFECT_READ_ONLY, .flags = VT_TOOL_DEFERRED,
     .signature = "json object_keys(json obj)", .typed_fn = (void (*)(void))object_keys},
    {.name = "shout_text", .description = "Upper-case a text.",
     .effects = VT_EFFECT_READ_ONLY, .flags = VT_TOOL_DEFERRED,
     .signature = "string shout(string text)", .typed_fn = (void (*)(void))shout},
    {0},
};

static const vt_plugin plugin = {
    VT_PLUGIN_HEADER, .name = "typed_fixture", .version = "1", .license = "MIT",
    .tools = tools, .api_slot = &g_api,
};
VT_PLUGIN_ENTRY(plugin)
