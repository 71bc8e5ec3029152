/* The view of an untrusted workspace's vtcode.toml: only the keys that
 * can only tighten what the trusted layers set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "config_keys.h"
#include "config_layers.h"
#include "strbuf.h"
#include "strutil.h"

/* What an untrusted workspace's vtcode.toml may set: the keys declared
 * to only tighten, by the host (sandbox.mode, ...) or by a plugin for a
 * key of its own (config_keys.c).  Anything else (providers, profiles,
 * tool and guard settings, agents, approvals, plugin tables, and
 * whatever key is added later) waits for trust.  The permission tables
 * are the engine's, which reads every layer apart and keeps only deny and
 * ask rules of an untrusted one. */

/* The table at a dotted path ("tools.anti_blind_editing"), or NULL. */
const cJSON *config_table_at(const cJSON *root, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *t = root;
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && t; k = strtok_r(NULL, ".", &save))
        t = cJSON_GetObjectItemCaseSensitive(t, k);
    return cJSON_IsObject(t) ? t : NULL;
}

static cJSON *table_make(cJSON *root, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    cJSON *t = root;
    char *save = NULL;
    for (char *k = strtok_r(buf, ".", &save); k && t; k = strtok_r(NULL, ".", &save)) {
        cJSON *n = cJSON_GetObjectItemCaseSensitive(t, k);
        t = n ? n : cJSON_AddObjectToObject(t, k);
    }
    return t;
}

/* Whether every string of array `a` is in array `b` (absent: empty). */
static int strings_within(const cJSON *a, const cJSON *b)
{
    if (a && !cJSON_IsArray(a))
        return 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        int found = 0;
        const cJSON *y;
        cJSON_ArrayForEach(y, b)
        {
            found |=
                cJSON_IsString(x) && cJSON_IsString(y) && !strcmp(x->valuestring, y->valuestring);
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* The strings of array `a` that array `b` holds too (a new array). */
static cJSON *strings_common(const cJSON *a, const cJSON *b)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        cJSON *one = cJSON_CreateArray();
        if (one && cJSON_AddItemToArray(one, cJSON_Duplicate(x, 1)) && strings_within(one, b))
            cJSON_AddItemToArray(out, cJSON_Duplicate(x, 1));
        cJSON_Delete(one);
    }
    return out;
}

/* Whether `v` is an array of strings only. */
static int string_list(const cJSON *v)
{
    const cJSON *x;
    int ok = cJSON_IsArray(v);
    cJSON_ArrayForEach(x, v) ok &= cJSON_IsString(x);
    return ok;
}

/* Whether `v` only tightens what `below` (the trusted layers merged so
 * far) holds.  The lists are of strings on both sides: a declared list
 * never replaces a table or carries tables (a key declared by a plugin
 * that does not read it must not let providers or settings through). */
static int tightens(const vt_config_key *r, const cJSON *v, const cJSON *below)
{
    switch (r->kind) {
    case VT_CONFIG_TRUSTED: return 0;
    /* what is in force and listed again is kept (strings_common): the
     * entries left out are removed; with nothing in force, nothing to do */
    case VT_CONFIG_SUBSET:
        return string_list(v) && string_list(below) && cJSON_GetArraySize(below) > 0;
    case VT_CONFIG_SUPERSET:
        /* an empty list adds nothing */
        return string_list(v) && cJSON_GetArraySize(v) > 0 && (!below || string_list(below)) &&
               strings_within(below, v);
    case VT_CONFIG_STRING: return cJSON_IsString(v) && strcmp(v->valuestring, r->fixed) == 0;
    case VT_CONFIG_FALSE: return cJSON_IsFalse(v);
    case VT_CONFIG_TRUE: return cJSON_IsTrue(v);
    case VT_CONFIG_SMALLER:
    case VT_CONFIG_SMALLER_NONZERO: {
        if (!cJSON_IsNumber(v) || v->valuedouble < 0)
            return 0;
        double now = cJSON_IsNumber(below) ? below->valuedouble : r->default_value;
        int none = r->kind == VT_CONFIG_SMALLER_NONZERO;
        if (none && v->valuedouble == 0)
            return 0; /* "no limit" never tightens */
        return (none && now == 0) || v->valuedouble < now;
    }
    }
    return 0;
}

/* Every key of `t` (dotted, tables down to `depth` levels) that `kept`
 * does not hold, appended to `out` ("mcp, tools.profile, ..."). */
static void note_ignored(const cJSON *t, const cJSON *kept, const char *prefix, int depth,
                         vt_strbuf *out)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, t)
    {
        if (!prefix && strcmp(it->string, "permissions") == 0)
            continue; /* the engine's, reported by it */
        const cJSON *k = kept ? cJSON_GetObjectItemCaseSensitive(kept, it->string) : NULL;
        char *name = prefix ? str_printf("%s.%s", prefix, it->string) : strdup(it->string);
        if (!name)
            return;
        if (k && cJSON_IsObject(it) && cJSON_IsObject(k) && depth > 1)
            note_ignored(it, k, name, depth - 1, out);
        else if (!k) {
            if (out->len)
                strbuf_append(out, ", ", 2);
            strbuf_append(out, name, strlen(name));
        }
        free(name);
    }
}

cJSON *config_untrusted_view(const cJSON *t, const cJSON *below, char **ignored)
{
    cJSON *c = cJSON_CreateObject();
    if (!c)
        return NULL;
    for (size_t i = 0; i < config_keys_count(); i++) {
        const vt_config_key *r = config_keys_at(i);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(config_table_at(t, r->table), r->key);
        const cJSON *in_force =
            cJSON_GetObjectItemCaseSensitive(config_table_at(below, r->table), r->key);
        if (!v || !tightens(r, v, in_force))
            continue;
        cJSON *dst = table_make(c, r->table);
        cJSON *kept =
            r->kind == VT_CONFIG_SUBSET ? strings_common(v, in_force) : cJSON_Duplicate(v, 1);
        if (!dst || !cJSON_AddItemToObject(dst, r->key, kept)) {
            cJSON_Delete(c);
            return NULL;
        }
    }
    vt_strbuf sb = VT_STRBUF_INIT;
    /* deep enough for a declared key in a sub-table (sandbox.network) */
    note_ignored(t, c, NULL, 8, &sb);
    *ignored = sb.len ? strbuf_take(&sb) : NULL;
    strbuf_reset(&sb);
    return c;
}
