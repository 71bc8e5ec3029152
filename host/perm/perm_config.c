/* [permissions], [permissions.auto] and [permissions.auto.environment]
 * from one vtcode.toml layer.  Inside these tables everything is strict:
 * an unknown key, a known key of the wrong type or a rule that does not
 * parse is an error naming the file, the line and the key.  The rest of
 * vtcode.toml is shared with other tools and stays free-form. */
#include "perm_commands.h"
#include "perm_config.h"
#include "perm_rules.h"
#include "perm_strict.h"
#include "strutil.h"
#include "toml_reader.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *file_of(const char *path) { return path ? path : "vtcode.toml"; }

/* "PATH:LINE: " or "PATH: " for messages about `dotted`. */
static char *where(const char *path, const char *dotted, int index)
{
    int line = 0, rc = VT_ERR_NOT_FOUND;
    if (path)
        rc = index >= 0 ? toml_array_item_line(path, dotted, index, &line)
                        : toml_key_line(path, dotted, &line);
    char *s = NULL;
    if (rc == 0 && line > 0) {
        if (asprintf(&s, "%s:%d", file_of(path), line) < 0)
            s = NULL;
    } else if (asprintf(&s, "%s", file_of(path)) < 0) {
        s = NULL;
    }
    return s;
}

static int type_error(const char *path, const char *dotted, const char *expect, char **err)
{
    char *w = where(path, dotted, -1);
    if (asprintf(err, "%s: %s must be %s", w ? w : file_of(path), dotted, expect) < 0)
        *err = NULL;
    free(w);
    return VT_ERR_INVALID;
}

/* The kinds of value a [permissions] key holds, and how a message says
 * what a value of each kind must be. */
typedef enum { KIND_STRING, KIND_BOOL, KIND_COUNT, KIND_STRINGS } value_kind;
static const char *const kind_words[] = {"a string", "true or false", "a non-negative integer",
                                         "an array of strings"};

static int valid(const cJSON *v, value_kind kind)
{
    const cJSON *it;
    switch (kind) {
    case KIND_STRING: return cJSON_IsString(v);
    case KIND_BOOL: return cJSON_IsBool(v);
    case KIND_COUNT:
        return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 1e9 &&
               floor(v->valuedouble) == v->valuedouble;
    case KIND_STRINGS:
        if (!cJSON_IsArray(v))
            return 0;
        cJSON_ArrayForEach(it, v)
        {
            if (!cJSON_IsString(it))
                return 0;
        }
        return 1;
    }
    return 0;
}

/* The member `key` of `t` (*v; NULL when absent).  A member of another
 * kind is an error naming `dotted` and what it must be. */
static int member(const cJSON *t, const char *key, value_kind kind, const char *dotted,
                  const char *path, const cJSON **v, char **err)
{
    *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (*v && !valid(*v, kind)) {
        *v = NULL;
        return type_error(path, dotted, kind_words[kind], err);
    }
    return 0;
}

static int copy_strings(const cJSON *v, perm_string_list *out)
{
    const cJSON *it;
    out->items = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *out->items);
    if (!out->items)
        return VT_ERR_NOMEM;
    cJSON_ArrayForEach(it, v)
    {
        if (!(out->items[out->count] = strdup(it->valuestring)))
            return VT_ERR_NOMEM;
        out->count++;
    }
    return 0;
}

/* The member `key` of `t` into *out, a char * (malloc'd, replacing the
 * old one), int, long or perm_string_list (NULL-terminated) by `kind`;
 * untouched when absent. */
static int get_value(const cJSON *t, const char *key, value_kind kind, const char *dotted,
                     const char *path, void *out, char **err)
{
    const cJSON *v;
    int rc = member(t, key, kind, dotted, path, &v, err);
    if (!v)
        return rc;
    switch (kind) {
    case KIND_STRING:
        free(*(char **)out);
        *(char **)out = strdup(v->valuestring);
        return *(char **)out ? 0 : VT_ERR_NOMEM;
    case KIND_BOOL: *(int *)out = cJSON_IsTrue(v); return 0;
    case KIND_COUNT: *(long *)out = (long)v->valuedouble; return 0;
    case KIND_STRINGS: return copy_strings(v, out);
    }
    return VT_ERR_INTERNAL;
}

/* The typed faces of get_value. */
static int get_string(const cJSON *t, const char *key, const char *dotted, const char *path,
                      char **out, char **err)
{
    return get_value(t, key, KIND_STRING, dotted, path, out, err);
}
static int get_bool(const cJSON *t, const char *key, const char *dotted, const char *path, int *out,
                    char **err)
{
    return get_value(t, key, KIND_BOOL, dotted, path, out, err);
}
static int get_strings(const cJSON *t, const char *key, const char *dotted, const char *path,
                       perm_string_list *out, char **err)
{
    return get_value(t, key, KIND_STRINGS, dotted, path, out, err);
}

static int load_rules(perm_ruleset *set, const cJSON *perms, const char *key, const char *dotted,
                      const char *path, const char *origin, const perm_rule_env *env, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(perms, key);
    if (!v)
        return 0;
    const cJSON *it;
    if (!cJSON_IsArray(v))
        return type_error(path, dotted, "an array of rule strings", err);
    int i = 0;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it)) {
            char *w = where(path, dotted, i);
            if (asprintf(err, "%s: %s[%d] must be a rule string", w ? w : file_of(path), dotted,
                         i) < 0)
                *err = NULL;
            free(w);
            return VT_ERR_INVALID;
        }
        perm_rule *r = NULL;
        char *why = NULL;
        int rc = perm_rule_parse(it->valuestring, file_of(path), env, &r, &why);
        if (rc < 0) {
            char *w = where(path, dotted, i);
            if (asprintf(err, "%s: %s: %s", w ? w : file_of(path), dotted,
                         why ? why : "invalid rule") < 0)
                *err = NULL;
            free(w);
            free(why);
            return rc;
        }
        r->origin = origin;
        /* The line is looked up when a trace or message shows it. */
        if (path) {
            r->cfg_key = dotted;
            r->cfg_index = i;
        }
        if ((rc = perm_ruleset_add(set, r)) < 0) {
            perm_rule_free(r);
            return rc;
        }
        i++;
    }
    return 0;
}

static int load_command(perm_settings *st, const cJSON *au, const char *path, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(au, "command");
    const char *dotted = "permissions.auto.command";
    if (!v)
        return 0;
    if (cJSON_IsString(v)) {
        if (!*v->valuestring)
            return 0;
        st->command_argv = calloc(4, sizeof(char *));
        if (!st->command_argv)
            return VT_ERR_NOMEM;
        st->command_argv[0] = strdup("/bin/sh");
        st->command_argv[1] = strdup("-c");
        st->command_argv[2] = strdup(v->valuestring);
        return st->command_argv[2] ? 0 : VT_ERR_NOMEM;
    }
    perm_string_list l = {0};
    int rc = get_strings(au, "command", dotted, path, &l, err);
    if (rc < 0) {
        free(*err);
        perm_strings_clear(&l);
        return type_error(path, dotted, "a string or an array of strings", err);
    }
    if (l.count == 0) {
        perm_strings_clear(&l);
        return 0;
    }
    st->command_argv = l.items; /* NULL-terminated by get_strings */
    return 0;
}

void perm_strings_clear(perm_string_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->count = 0;
}

static const char *const perm_keys[] = {"allow",           "ask",           "deny",
                                        "non_interactive", "audit_enabled", "auto",
                                        "approval",        "wrappers",      NULL};

int perm_approval_parse(const char *s)
{
    static const char *const names[] = {"ask", "sandboxed", "read-only"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

const char *perm_approval_name(int a)
{
    return a == 1 ? "sandboxed" : a == 2 ? "read-only" : "ask";
}
static const char *const auto_keys[] = {"model",
                                        "probe_model",
                                        "max_consecutive_denials",
                                        "max_total_denials",
                                        "drop_broad_allow_rules",
                                        "block_rules",
                                        "allow_exceptions",
                                        "command",
                                        "command_timeout_ms",
                                        "environment",
                                        NULL};
static const char *const env_keys[] = {"trusted_paths",    "trusted_domains",  "trusted_git_hosts",
                                       "trusted_git_orgs", "trusted_services", NULL};

/* The table `key` of `t` (*out; NULL when absent): an error, naming
 * `dotted` and `what` it must be, unless it is a table of only `keys`. */
static int get_table(const cJSON *t, const char *key, const char *dotted, const char *what,
                     const char *const *keys, const char *path, const cJSON **out, char **err)
{
    *out = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!*out)
        return 0;
    if (!cJSON_IsObject(*out))
        return type_error(path, dotted, what, err);
    return perm_strict_keys(*out, dotted, keys, path, err);
}

/* The plain keys of [permissions.auto], in the order they are read: a
 * list replaces the one a lower layer set, even when absent. */
typedef struct field {
    const char *key, *dotted;
    value_kind kind;
    size_t off;
} field;
/* A key of a table, named once: its member of perm_settings has its name. */
#define FIELD(table, name, kind)                                                                   \
    {                                                                                              \
#name, table "." #name, kind, offsetof(perm_settings, name)                                \
    }
static const field auto_fields[] = {
    FIELD("permissions.auto", model, KIND_STRING),
    FIELD("permissions.auto", probe_model, KIND_STRING),
    FIELD("permissions.auto", max_consecutive_denials, KIND_COUNT),
    FIELD("permissions.auto", max_total_denials, KIND_COUNT),
    FIELD("permissions.auto", drop_broad_allow_rules, KIND_BOOL),
    FIELD("permissions.auto", block_rules, KIND_STRINGS),
    FIELD("permissions.auto", allow_exceptions, KIND_STRINGS),
    FIELD("permissions.auto", command_timeout_ms, KIND_COUNT),
};
static const field env_fields[] = {
    FIELD("permissions.auto.environment", trusted_paths, KIND_STRINGS),
    FIELD("permissions.auto.environment", trusted_domains, KIND_STRINGS),
    FIELD("permissions.auto.environment", trusted_git_hosts, KIND_STRINGS),
    FIELD("permissions.auto.environment", trusted_git_orgs, KIND_STRINGS),
    FIELD("permissions.auto.environment", trusted_services, KIND_STRINGS),
};
#undef FIELD

static int get_field(perm_settings *st, const cJSON *t, const field *f, const char *path,
                     char **err)
{
    void *at = (char *)st + f->off;
    if (f->kind == KIND_STRINGS)
        perm_strings_clear(at);
    return get_value(t, f->key, f->kind, f->dotted, path, at, err);
}

/* [permissions.auto] and its environment into `st`. */
static int load_auto(perm_settings *st, const cJSON *perms, const char *path, char **err)
{
    const cJSON *au;
    int rc = get_table(perms, "auto", "permissions.auto", "a table ([permissions.auto])", auto_keys,
                       path, &au, err);
    if (rc || !au)
        return rc;
    for (size_t i = 0; i < sizeof auto_fields / sizeof *auto_fields; i++)
        if ((rc = get_field(st, au, &auto_fields[i], path, err)))
            return rc;
    if (cJSON_GetObjectItemCaseSensitive(au, "command")) {
        if (st->command_argv)
            for (char **p = st->command_argv; *p; p++)
                free(*p);
        free(st->command_argv);
        st->command_argv = NULL;
        if ((rc = load_command(st, au, path, err)))
            return rc;
    }
    const cJSON *envt;
    if ((rc = get_table(au, "environment", "permissions.auto.environment", "a table", env_keys,
                        path, &envt, err)) ||
        !envt)
        return rc;
    /* a list a lower layer set stays unless this layer names it */
    for (size_t i = 0; i < sizeof env_fields / sizeof *env_fields; i++)
        if (cJSON_GetObjectItemCaseSensitive(envt, env_fields[i].key) &&
            (rc = get_field(st, envt, &env_fields[i], path, err)))
            return rc;
    return 0;
}

/* A key of an untrusted layer that is read (and checked) but not
 * applied: named, with its file, in the warning at start. */
static int note_ignored(perm_settings *st, const char *path, const char *dotted)
{
    st->ignored_settings = 1;
    if (st->ignored_keys && strstr(st->ignored_keys, dotted))
        return 0;
    char *k = str_printf("%s%s%s", st->ignored_keys ? st->ignored_keys : "",
                         st->ignored_keys ? ", " : "", dotted);
    if (!k)
        return VT_ERR_NOMEM;
    free(st->ignored_keys);
    st->ignored_keys = k;
    if (!st->ignored_file && path && !(st->ignored_file = strdup(path)))
        return VT_ERR_NOMEM;
    return 0;
}

/* [permissions] wrappers: programs deny and ask rules (and the guard)
 * look through, added to the command table.  A wrapper changes what the
 * guard counts as a verification, so only a trusted layer adds them. */
static int load_wrappers(perm_settings *st, const cJSON *perms, const char *path, int trusted,
                         char **err)
{
    perm_string_list l = {0};
    int rc = get_strings(perms, "wrappers", "permissions.wrappers", path, &l, err);
    for (size_t i = 0; rc == 0 && i < l.count; i++) {
        if (!trusted) {
            rc = note_ignored(st, path, "permissions.wrappers");
            break;
        }
        char *why = NULL;
        rc = perm_cmd_add_wrapper(l.items[i], &why);
        if (rc == VT_ERR_INVALID) {
            *err = str_printf("%s: %s", path ? path : "configuration", why ? why : "invalid");
            free(why);
        }
    }
    for (size_t i = 0; i < l.count; i++)
        free(l.items[i]);
    free(l.items);
    return rc;
}

int perm_config_load_layer(perm_settings *st, const cJSON *config, const char *path,
                           const char *origin, int trusted, char **err)
{
    perm_rule_env env = {st->workspace, st->home, st->tools};
    int rc = perm_strict_top(config, path, err);
    if (rc)
        return rc;
    const cJSON *perms;
    if ((rc = get_table(config, "permissions", "permissions", "a table", perm_keys, path, &perms,
                        err)) ||
        !perms)
        return rc;
    /* deny and ask of every layer are in force, an untrusted layer's ask
     * only where it tightens (perm_engine.c); allow rules of an untrusted
     * layer are kept aside, for explain to show as ignored */
    if ((rc = load_rules(&st->global[PB_DENY], perms, "deny", "permissions.deny", path, origin,
                         &env, err)) ||
        (rc = load_rules(trusted ? &st->global[PB_ASK] : &st->untrusted_ask, perms, "ask",
                         "permissions.ask", path, origin, &env, err)) ||
        (rc = load_rules(trusted ? &st->global[PB_ALLOW] : &st->ignored_allow, perms, "allow",
                         "permissions.allow", path, origin, &env, err)))
        return rc;
    char *ni = NULL;
    if ((rc = get_string(perms, "non_interactive", "permissions.non_interactive", path, &ni, err)))
        return rc;
    if (ni) {
        int ok = strcmp(ni, "deny") == 0 || strcmp(ni, "allow") == 0;
        int allow = strcmp(ni, "allow") == 0;
        free(ni);
        if (!ok)
            return type_error(path, "permissions.non_interactive", "\"deny\" or \"allow\"", err);
        if (trusted || !allow)
            st->non_interactive_allow = allow;
        else if ((rc = note_ignored(st, path, "permissions.non_interactive")))
            return rc;
    }
    char *ap = NULL;
    if ((rc = get_string(perms, "approval", "permissions.approval", path, &ap, err)))
        return rc;
    if (ap) {
        int a = perm_approval_parse(ap);
        free(ap);
        if (a < 0)
            return type_error(path, "permissions.approval",
                              "\"ask\", \"sandboxed\" or \"read-only\"", err);
        /* Not even a preset that reads as tighter: read-only runs commands
         * without asking, which the default ask never does. */
        if (trusted)
            st->approval = a;
        else if ((rc = note_ignored(st, path, "permissions.approval")))
            return rc;
    }
    int audit = 0;
    if ((rc = get_bool(perms, "audit_enabled", "permissions.audit_enabled", path, &audit, err)))
        return rc;
    st->audit_enabled |= audit; /* any layer may ask for the audit log */
    if ((rc = load_wrappers(st, perms, path, trusted, err)))
        return rc;

    if (!cJSON_GetObjectItemCaseSensitive(perms, "auto"))
        return 0;
    if (trusted)
        return load_auto(st, perms, path, err);
    /* checked like any other layer, then not applied */
    perm_settings tmp;
    memset(&tmp, 0, sizeof tmp);
    perm_settings_defaults(&tmp);
    rc = load_auto(&tmp, perms, path, err);
    perm_settings_free(&tmp);
    return rc ? rc : note_ignored(st, path, "permissions.auto");
}

int perm_config_load(perm_settings *st, const cJSON *config, const char *path, char **err)
{
    return perm_config_load_layer(st, config, path, "config", 1, err);
}

void perm_settings_defaults(perm_settings *st)
{
    st->max_consecutive_denials = 3;
    st->max_total_denials = 20;
    st->drop_broad_allow_rules = 1;
    st->command_timeout_ms = 10000;
}

void perm_settings_free(perm_settings *st)
{
    for (int i = 0; i < PB_COUNT; i++)
        perm_ruleset_free(&st->global[i]);
    perm_ruleset_free(&st->ignored_allow);
    perm_ruleset_free(&st->untrusted_ask);
    free(st->ignored_keys);
    free(st->ignored_file);
    for (size_t i = 0; i < st->npolicy; i++) {
        free(st->policy[i]);
        free(st->policy_fold ? st->policy_fold[i] : NULL);
    }
    free(st->policy);
    free(st->policy_fold);
    free(st->user_dir);
    cJSON_Delete(st->layers);
    free(st->workspace);
    free(st->home);
    free(st->config_path);
    free(st->model);
    free(st->probe_model);
    perm_strings_clear(&st->block_rules);
    perm_strings_clear(&st->allow_exceptions);
    perm_strings_clear(&st->trusted_paths);
    perm_strings_clear(&st->trusted_domains);
    perm_strings_clear(&st->trusted_git_hosts);
    perm_strings_clear(&st->trusted_git_orgs);
    perm_strings_clear(&st->trusted_services);
    if (st->command_argv)
        for (char **p = st->command_argv; *p; p++)
            free(*p);
    free(st->command_argv);
    memset(st, 0, sizeof *st);
}

char *perm_rule_source(const perm_rule *r)
{
    char *s = NULL;
    if (r->cfg_key) {
        s = where(r->source, r->cfg_key, r->cfg_index);
        if (s)
            return s;
    }
    return strdup(r->source);
}
