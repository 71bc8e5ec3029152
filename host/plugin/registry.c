/* The tool registry.  Entries are created at load and never move; the
 * listed set grows when a catalog search (api->catalog_expand) expands
 * deferred tools, under a lock because calls run concurrently. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "edit_distance.h"
#include "legacy.h"
#include "loader.h"
#include "output_schema.h"
#include "registry.h"
#include "registry_view.h"
#include "schema.h"
#include "strutil.h"
#include "typed.h"

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static tool_entry **entries;
static size_t nentries, entries_cap;
static const tool_entry **public_order; /* profile order */
static size_t npublic;
static uint64_t epoch = 1;
/* Dynamic entries replaced or removed: kept until registry_clear, since
 * registry_find hands out borrowed pointers that calls in flight hold. */
static tool_entry **graveyard;
static size_t ngraveyard, graveyard_cap;

/* Name index: open addressing over `entries`, rebuilt whenever entries
 * are added or removed (load time only), so lookups stay O(1) with tens
 * of thousands of tools. */
static tool_entry **index_slots;
static size_t index_cap;

static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static int index_rebuild(void)
{
    size_t cap = 64;
    while (cap < nentries * 2 + 1)
        cap *= 2;
    tool_entry **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < nentries; i++) {
        size_t k = name_hash(entries[i]->t.name) & (cap - 1);
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = entries[i];
    }
    free(index_slots);
    index_slots = slots;
    index_cap = cap;
    return VT_OK;
}

static tool_entry *find_locked(const char *name)
{
    if (!name || !index_cap)
        return NULL;
    for (size_t k = name_hash(name) & (index_cap - 1); index_slots[k];
         k = (k + 1) & (index_cap - 1))
        if (strcmp(index_slots[k]->t.name, name) == 0)
            return index_slots[k];
    return NULL;
}

const tool_entry *registry_find(const char *name)
{
    pthread_rwlock_rdlock(&lock);
    const tool_entry *e = find_locked(name);
    pthread_rwlock_unlock(&lock);
    return e;
}

int registry_name_valid(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > 64)
        return 0;
    for (; *n; n++)
        if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
              *n == '_' || *n == '.' || *n == '-'))
            return 0;
    return 1;
}

static void entry_free(tool_entry *e)
{
    if (!e)
        return;
    cJSON_Delete(e->schema);
    free(e->output_text);
    typed_tool_free(e->typed);
    free(e->own_name);
    free(e->own_description);
    free(e->own_schema_text);
    cJSON_Delete(e->annotations);
    cJSON_Delete(e->shown_schema);
    free(e);
}

void registry_entry_free(tool_entry *e) { entry_free(e); }

static int bury_locked(tool_entry *e)
{
    if (VT_GROW(&graveyard, &graveyard_cap, ngraveyard + 1) != 0)
        return VT_ERR_NOMEM;
    graveyard[ngraveyard++] = e;
    return VT_OK;
}

static void unpublic_locked(const tool_entry *e)
{
    size_t k = 0;
    for (size_t i = 0; i < npublic; i++)
        if (public_order[i] != e)
            public_order[k++] = public_order[i];
    npublic = k;
}

static int listed_all_locked(const tool_entry *e);

int registry_dyn_put(tool_entry *fresh, int *was_listed)
{
    *was_listed = 0;
    pthread_rwlock_wrlock(&lock);
    int rc = VT_OK;
    tool_entry *old = find_locked(fresh->t.name);
    if (old && (!old->dynamic || old->module != fresh->module)) {
        rc = VT_ERR_EXISTS;
    } else if (old) {
        if ((rc = bury_locked(old)) == VT_OK) {
            *was_listed = old->is_public || old->is_expanded || listed_all_locked(old);
            fresh->is_public = old->is_public;
            fresh->is_expanded = old->is_expanded;
            for (size_t i = 0; i < nentries; i++)
                if (entries[i] == old)
                    entries[i] = fresh;
            for (size_t i = 0; i < npublic; i++)
                if (public_order[i] == old)
                    public_order[i] = fresh;
            rc = index_rebuild();
        }
    } else {
        if (VT_GROW(&entries, &entries_cap, nentries + 1) != 0) {
            rc = VT_ERR_NOMEM;
        } else {
            entries[nentries++] = fresh;
            if ((rc = index_rebuild()) != VT_OK)
                nentries--;
            /* with the whole catalog listed, a tool that arrives late (a
             * provider started after the first tools/list) is a change */
            *was_listed = rc == VT_OK && listed_all_locked(fresh);
        }
    }
    if (rc == VT_OK)
        epoch++;
    pthread_rwlock_unlock(&lock);
    return rc;
}

int registry_dyn_drop(const char *name, const plugin_module *m, int *was_listed)
{
    *was_listed = 0;
    pthread_rwlock_wrlock(&lock);
    tool_entry *e = find_locked(name);
    int rc = !e                                ? VT_ERR_NOT_FOUND
             : (!e->dynamic || e->module != m) ? VT_ERR_DENIED
                                               : bury_locked(e);
    if (rc == VT_OK) {
        *was_listed = e->is_public || e->is_expanded || listed_all_locked(e);
        unpublic_locked(e);
        size_t k = 0;
        for (size_t i = 0; i < nentries; i++)
            if (entries[i] != e)
                entries[k++] = entries[i];
        nentries = k;
        index_rebuild();
        epoch++;
    }
    pthread_rwlock_unlock(&lock);
    return rc;
}

/* Build an entry for one tool; *err says what is wrong with it. */
static tool_entry *entry_new(plugin_module *m, const unsigned char *raw, char **err)
{
    size_t n = m->desc->sizeof_tool < sizeof(vt_tool) ? m->desc->sizeof_tool : sizeof(vt_tool);
    tool_entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    memcpy(&e->t, raw, n);
    e->module = m;
    const char *name = e->t.name;
    if (!name || !registry_name_valid(name)) {
        *err = str_printf("tool name '%s' is not valid (1-64 of [A-Za-z0-9_.-])",
                          name ? name : "(null)");
        goto fail;
    }
    if (legacy_replacement(name)) {
        *err =
            str_printf("tool '%s' uses a removed legacy name; %s", name, legacy_replacement(name));
        goto fail;
    }
    char *schema_text = NULL, *why = NULL;
    if (e->t.signature) {
        if (typed_tool_prepare(&e->t, &e->typed, &schema_text, &why) != VT_OK) {
            *err = why ? why : str_printf("tool '%s': bad signature", name);
            why = NULL;
            goto fail;
        }
    } else if (!e->t.run) {
        *err = str_printf("tool '%s' has no run hook", name);
        goto fail;
    } else if (!e->t.input_schema) {
        *err = str_printf("tool '%s' has no input schema", name);
        goto fail;
    }
    int rc = schema_prepare(schema_text ? schema_text : e->t.input_schema, &e->schema, &why);
    free(schema_text);
    if (rc != VT_OK) {
        *err = str_printf("tool '%s': %s", name, why ? why : "malformed input schema");
        free(why);
        goto fail;
    }
    /* The output schema: the plugin's, or the typed tool's derived one;
     * checked now, completed with the host's fields only when a tool list
     * shows it (most starts never list: `vthost call`, `vthost tools`). */
    char *out_text = e->typed ? typed_tool_output_schema(e->typed) : NULL;
    if (!out_text && e->t.output_schema && !(out_text = strdup(e->t.output_schema))) {
        *err = strdup("out of memory");
        goto fail;
    }
    e->output_text = out_text;
    rc = out_text ? output_schema_check(out_text, &why) : VT_OK;
    if (rc != VT_OK) {
        *err = str_printf("tool '%s': %s", name, why ? why : "malformed output schema");
        free(why);
        goto fail;
    }
    return e;
fail:
    entry_free(e);
    return NULL;
}

int registry_add_module(plugin_module *m, char **err)
{
    *err = NULL;
    size_t count = 0;
    const unsigned char *p = (const unsigned char *)m->desc->tools;
    for (;
         ((const vt_tool *)p)->name || ((const vt_tool *)p)->run || ((const vt_tool *)p)->signature;
         p += m->desc->sizeof_tool)
        count++;
    tool_entry **fresh = calloc(count ? count : 1, sizeof *fresh);
    if (!fresh)
        return VT_ERR_NOMEM;
    pthread_rwlock_wrlock(&lock);
    int rc = VT_OK;
    p = (const unsigned char *)m->desc->tools;
    for (size_t i = 0; i < count && rc == VT_OK; i++, p += m->desc->sizeof_tool) {
        fresh[i] = entry_new(m, p, err);
        if (!fresh[i]) {
            rc = *err ? VT_ERR_INVALID : VT_ERR_NOMEM;
            break;
        }
        tool_entry *dup = find_locked(fresh[i]->t.name);
        if (dup) {
            *err = str_printf("duplicate tool name '%s' (already registered by plugin '%s')",
                              fresh[i]->t.name, dup->module->stem);
            rc = VT_ERR_EXISTS;
        }
    }
    if (rc == VT_OK) {
        if (VT_GROW(&entries, &entries_cap, nentries + count + 1) != 0) {
            rc = VT_ERR_NOMEM;
        } else {
            memcpy(entries + nentries, fresh, count * sizeof *fresh);
            nentries += count;
            rc = index_rebuild();
            /* Duplicates inside the module show up as two equal names. */
            for (size_t i = 0; rc == VT_OK && i < count; i++) {
                tool_entry *first = find_locked(fresh[i]->t.name);
                if (first != fresh[i]) {
                    *err = str_printf("duplicate tool name '%s' (declared twice by plugin '%s')",
                                      fresh[i]->t.name, m->stem);
                    rc = VT_ERR_EXISTS;
                }
            }
            if (rc != VT_OK) {
                nentries -= count;
                index_rebuild();
            }
        }
    }
    if (rc != VT_OK)
        for (size_t i = 0; i < count; i++)
            entry_free(fresh[i]);
    pthread_rwlock_unlock(&lock);
    free(fresh);
    return rc;
}

void registry_refresh_descriptions(plugin_module *m)
{
    pthread_rwlock_wrlock(&lock);
    const unsigned char *p = (const unsigned char *)m->desc->tools;
    for (; ((const vt_tool *)p)->name; p += m->desc->sizeof_tool) {
        tool_entry *e = find_locked(((const vt_tool *)p)->name);
        if (!e || e->module != m)
            continue;
        /* A plugin before 1.7 may have rewritten its descriptor in init;
         * from 1.7 on, describe() gives what depends on init. */
        const char *d = e->t.describe ? e->t.describe(e->t.name) : NULL;
        e->t.description = d ? d : ((const vt_tool *)p)->description;
    }
    pthread_rwlock_unlock(&lock);
}

void registry_remove_module(plugin_module *m)
{
    pthread_rwlock_wrlock(&lock);
    size_t k = 0;
    for (size_t i = 0; i < nentries; i++) {
        if (entries[i]->module == m)
            entry_free(entries[i]);
        else
            entries[k++] = entries[i];
    }
    nentries = k;
    index_rebuild();
    pthread_rwlock_unlock(&lock);
}

int registry_set_public(const char *const *names, size_t count, char **err)
{
    *err = NULL;
    pthread_rwlock_wrlock(&lock);
    free(public_order);
    public_order = calloc(count ? count : 1, sizeof *public_order);
    npublic = 0;
    int rc = public_order ? VT_OK : VT_ERR_NOMEM;
    for (size_t i = 0; rc == VT_OK && i < count; i++) {
        tool_entry *e = find_locked(names[i]);
        if (!e) {
            *err = str_printf("the profile lists tool '%s', but no loaded plugin provides it",
                              names[i]);
            rc = VT_ERR_NOT_FOUND;
            break;
        }
        if (!e->is_public) {
            e->is_public = 1;
            public_order[npublic++] = e;
        }
    }
    epoch++;
    pthread_rwlock_unlock(&lock);
    return rc;
}

static int gated_out(const tool_entry *e)
{
    return (e->t.flags & VT_TOOL_PROFILE_GATED) && !e->is_public;
}

/* Set by `vthost serve`: a model calls only what it was shown. */
static atomic_int require_search;
/* Set by `vthost serve --catalog full`: every tool is listed up front. */
static atomic_int list_all;

void registry_require_search(int on) { atomic_store(&require_search, on); }

void registry_list_all(int on)
{
    pthread_rwlock_wrlock(&lock);
    if (atomic_exchange(&list_all, on) != on)
        epoch++;
    pthread_rwlock_unlock(&lock);
}

int registry_listing_all(void) { return atomic_load(&list_all); }

int registry_needs_search(const tool_entry *e)
{
    return atomic_load(&require_search) && registry_is_deferred(e);
}

int registry_callable(const tool_entry *e)
{
    return e && !gated_out(e) && !registry_needs_search(e);
}

/* Expanded for everyone, or for the client this thread works for. */
static int expanded(const tool_entry *e) { return e->is_expanded || registry_view_has(e); }

int registry_is_deferred(const tool_entry *e)
{
    return e && !e->is_public && !expanded(e) && !gated_out(e) && !atomic_load(&list_all);
}

/* Listed because the whole catalog is (list_all), not gated away. */
static int listed_all_locked(const tool_entry *e)
{
    return atomic_load(&list_all) && !gated_out(e);
}

/* Listed after the profile's tools: expanded ones, or with list_all
 * every tool the profile does not gate away. */
static int listed_extra(const tool_entry *e)
{
    return !e->is_public && (expanded(e) || (atomic_load(&list_all) && !gated_out(e)));
}

int registry_is_listed(const tool_entry *e) { return e && (e->is_public || listed_extra(e)); }

static int by_name(const void *a, const void *b)
{
    const tool_entry *x = *(const tool_entry *const *)a, *y = *(const tool_entry *const *)b;
    return strcmp(x->t.name, y->t.name);
}

int registry_listed(const tool_entry ***out, size_t *count)
{
    pthread_rwlock_rdlock(&lock);
    const tool_entry **v = malloc((nentries + 1) * sizeof *v);
    size_t n = 0;
    if (v) {
        if (npublic)
            memcpy(v, public_order, npublic * sizeof *v);
        n = npublic;
        size_t first_expanded = n;
        for (size_t i = 0; i < nentries; i++)
            if (listed_extra(entries[i]))
                v[n++] = entries[i];
        qsort(v + first_expanded, n - first_expanded, sizeof *v, by_name);
    }
    pthread_rwlock_unlock(&lock);
    *out = v;
    *count = n;
    return v ? VT_OK : VT_ERR_NOMEM;
}

int registry_all(const tool_entry ***out, size_t *count)
{
    pthread_rwlock_rdlock(&lock);
    const tool_entry **v = malloc((nentries + 1) * sizeof *v);
    if (v && nentries) /* entries is NULL while nothing is registered */
        memcpy(v, entries, nentries * sizeof *v);
    size_t n = nentries;
    pthread_rwlock_unlock(&lock);
    if (v)
        qsort(v, n, sizeof *v, by_name);
    *out = v;
    *count = v ? n : 0;
    return v ? VT_OK : VT_ERR_NOMEM;
}

int registry_expand(const char *const *names, size_t count, uint64_t *out_epoch)
{
    pthread_rwlock_wrlock(&lock);
    int changed = 0;
    for (size_t i = 0; i < count; i++) {
        tool_entry *e = find_locked(names[i]);
        if (e && registry_is_deferred(e)) {
            /* Found for the client this thread works for (its epoch
             * moves, no one else's), or for all. */
            if (registry_viewer())
                registry_view_add(e);
            else
                changed = e->is_expanded = 1;
        }
    }
    if (changed)
        epoch++;
    if (out_epoch)
        *out_epoch = registry_view_epoch(epoch);
    pthread_rwlock_unlock(&lock);
    return VT_OK;
}

uint64_t registry_epoch(void)
{
    pthread_rwlock_rdlock(&lock);
    uint64_t e = epoch;
    pthread_rwlock_unlock(&lock);
    return registry_view_epoch(e);
}

char *registry_listed_names(void)
{
    const tool_entry **v;
    size_t n;
    if (registry_listed(&v, &n) != VT_OK)
        return NULL;
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(v[i]->t.name) + 2;
    char *s = malloc(len);
    if (s) {
        s[0] = '\0';
        for (size_t i = 0; i < n; i++) {
            if (i)
                strcat(s, ", ");
            strcat(s, v[i]->t.name);
        }
    }
    free(v);
    return s;
}

const char *registry_suggest(const char *name)
{
    static const edit_costs costs = {.case_change = 1, .edit = 1, .transpose = 0};
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    pthread_rwlock_rdlock(&lock);
    for (size_t i = 0; i < nentries; i++) {
        const tool_entry *e = entries[i];
        if (!e->is_public && !listed_extra(e))
            continue;
        size_t d = edit_distance(name, e->t.name, &costs);
        if (d < best_d) {
            best_d = d;
            best = e->t.name;
        }
    }
    pthread_rwlock_unlock(&lock);
    size_t limit = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
    return best_d <= limit ? best : NULL;
}

cJSON *registry_describe(const tool_entry *e, const char *format)
{
    cJSON *schema = cJSON_Duplicate(e->shown_schema ? e->shown_schema : e->schema, 1);
    const char *desc = e->t.description ? e->t.description : "";
    if (format && strcmp(format, "openai") == 0) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "type", "function");
        cJSON *f = cJSON_AddObjectToObject(o, "function");
        cJSON_AddStringToObject(f, "name", e->t.name);
        cJSON_AddStringToObject(f, "description", desc);
        cJSON_AddItemToObject(f, "parameters", schema);
        return o;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", e->t.name);
    if (e->t.title && *e->t.title)
        cJSON_AddStringToObject(o, "title", e->t.title);
    cJSON_AddStringToObject(o, "description", desc);
    cJSON_AddItemToObject(o, "inputSchema", schema);
    cJSON *out = NULL;
    char *why = NULL;
    if (e->output_text && output_schema_complete(e->output_text, &out, &why) == VT_OK)
        cJSON_AddItemToObject(o, "outputSchema", out);
    free(why);
    if (e->annotations) {
        cJSON_AddItemToObject(o, "annotations", cJSON_Duplicate(e->annotations, 1));
        return o;
    }
    uint32_t fx = e->t.effects;
    int ro = (fx & VT_EFFECT_READ_ONLY) != 0;
    cJSON *a = cJSON_AddObjectToObject(o, "annotations");
    cJSON_AddBoolToObject(a, "readOnlyHint", ro);
    cJSON_AddBoolToObject(a, "destructiveHint",
                          !ro && (fx & (VT_EFFECT_MUTATES_WORKSPACE | VT_EFFECT_EXECUTES)));
    cJSON_AddBoolToObject(a, "idempotentHint", ro || (fx & VT_EFFECT_IDEMPOTENT));
    cJSON_AddBoolToObject(a, "openWorldHint", (fx & (VT_EFFECT_NETWORK | VT_EFFECT_EXECUTES)) != 0);
    return o;
}

void registry_clear(void)
{
    pthread_rwlock_wrlock(&lock);
    for (size_t i = 0; i < nentries; i++)
        entry_free(entries[i]);
    free(entries);
    entries = NULL;
    nentries = entries_cap = 0;
    for (size_t i = 0; i < ngraveyard; i++)
        entry_free(graveyard[i]);
    free(graveyard);
    graveyard = NULL;
    ngraveyard = graveyard_cap = 0;
    free(index_slots);
    index_slots = NULL;
    index_cap = 0;
    free(public_order);
    public_order = NULL;
    npublic = 0;
    epoch = 1;
    registry_view_clear();
    pthread_rwlock_unlock(&lock);
}
