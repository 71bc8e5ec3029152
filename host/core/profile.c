/* Profile loading with inih.  inih is used for these INI files only. */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "paths.h"
#include "profile.h"
#include "strutil.h"

const char *profile_canonical_name(const char *name)
{
    if (!name)
        return "default";
    if (strcmp(name, "vt_code") == 0)
        return "default";
    if (strcmp(name, "advanced_vtcode") == 0)
        return "advanced";
    return name;
}

static int push(char ***v, size_t *n, const char *s)
{
    char **g = realloc(*v, (*n + 1) * sizeof *g);
    if (!g)
        return 0;
    *v = g;
    g[*n] = s ? strdup(s) : NULL;
    if (s && !g[*n])
        return 0;
    (*n)++;
    return 1;
}

static int split_list(const char *value, char ***v, size_t *n)
{
    char *copy = strdup(value), *save = NULL;
    if (!copy)
        return 0;
    int ok = 1;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && ok; tok = strtok_r(NULL, ", \t", &save))
        ok = push(v, n, tok);
    free(copy);
    return ok;
}

typedef struct parse_state {
    profile *p;
    char *error;
} parse_state;

static int module_index(profile *p, const char *name)
{
    for (size_t i = 0; i < p->nmodules; i++)
        if (strcmp(p->modules[i], name) == 0)
            return (int)i;
    return -1;
}

/* inih handler: returns 0 to stop with an error at the current line. */
static int on_value(void *user, const char *section, const char *key, const char *value)
{
    parse_state *st = user;
    profile *p = st->p;
    if (strcmp(section, "profile") == 0) {
        if (strcmp(key, "name") == 0) {
            free(p->name);
            p->name = strdup(value);
        } else if (strcmp(key, "description") == 0) {
            free(p->description);
            p->description = strdup(value);
        } else if (strcmp(key, "tools") == 0) {
            return split_list(value, &p->tools, &p->ntools);
        }
        return 1;
    }
    if (strncmp(section, "module.", 7) == 0 && section[7]) {
        const char *mod = section + 7;
        int i = module_index(p, mod);
        size_t np = p->nmodules;
        if (i < 0 && !(push(&p->modules, &p->nmodules, mod) && push(&p->packages, &np, NULL)))
            return 0;
        i = module_index(p, mod);
        if (key && strcmp(key, "package") == 0) {
            free(p->packages[i]);
            p->packages[i] = strdup(value);
        }
        return 1;
    }
    return 1; /* unknown sections are for other tools */
}

int profile_parse(const char *text, const char *source, profile *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    parse_state st = {out, NULL};
    int line = ini_parse_string(text, on_value, &st);
    out->source = strdup(source);
    if (line != 0) {
        if (asprintf(err, "%s:%d: syntax error in profile (expected '[section]' or "
                     "'key = value')", source, line) < 0)
            *err = NULL;
        profile_free(out);
        return VT_ERR_INVALID;
    }
    if (out->ntools == 0) {
        if (asprintf(err, "%s: profile lists no tools (add 'tools = ...' under [profile])",
                     source) < 0)
            *err = NULL;
        profile_free(out);
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *text = file_read_all(f);
    fclose(f);
    return text;
}

int profile_load(const char *name, const char *const *dirs, size_t ndirs,
                 profile *out, char **err)
{
    name = profile_canonical_name(name);
    size_t nl = strlen(name);
    if (strchr(name, '/') || (nl > 4 && strcmp(name + nl - 4, ".ini") == 0)) {
        /* A profile given as a file path. */
        char *text = read_file(name);
        if (!text) {
            if (asprintf(err, "cannot read profile file %s", name) < 0)
                *err = NULL;
            return VT_ERR_NOT_FOUND;
        }
        int rc = profile_parse(text, name, out, err);
        free(text);
        return rc;
    }
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == '.') {
            if (asprintf(err, "invalid profile name '%s'", name) < 0)
                *err = NULL;
            return VT_ERR_INVALID;
        }
    for (size_t i = 0; i < ndirs; i++) {
        char file[4096];
        snprintf(file, sizeof file, "%s/%s.ini", dirs[i], name);
        if (access(file, F_OK) != 0)
            continue;
        char *text = read_file(file);
        if (!text) {
            if (asprintf(err, "cannot read profile %s", file) < 0)
                *err = NULL;
            return VT_ERR_IO;
        }
        int rc = profile_parse(text, file, out, err);
        free(text);
        return rc;
    }
    for (const profile_text *e = profile_embedded; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return profile_parse(e->text, "(embedded)", out, err);
    char known[512] = "";
    for (const profile_text *e = profile_embedded; e->name; e++) {
        strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, e->name, sizeof known - strlen(known) - 1);
    }
    if (asprintf(err, "unknown profile '%s' (known: %s, or a NAME.ini in a profile "
                 "directory)", name, known) < 0)
        *err = NULL;
    return VT_ERR_NOT_FOUND;
}

void profile_free(profile *p)
{
    for (size_t i = 0; i < p->nmodules; i++) {
        free(p->modules[i]);
        free(p->packages[i]);
    }
    for (size_t i = 0; i < p->ntools; i++)
        free(p->tools[i]);
    free(p->modules);
    free(p->packages);
    free(p->tools);
    free(p->name);
    free(p->description);
    free(p->source);
    memset(p, 0, sizeof *p);
}
