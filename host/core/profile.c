/* Profile loading with inih.  inih is used for these INI files only. */
#include <errno.h>
#include <ini.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "opened_lib.h"
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

/* A copy of `s` (or NULL) after the *n items of *v (*cap allocated). */
static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
    if (VT_GROW(v, cap, *n + 1) != 0)
        return 0;
    char **g = *v;
    g[*n] = s ? strdup(s) : NULL;
    if (s && !g[*n])
        return 0;
    (*n)++;
    return 1;
}

static int split_list(const char *value, char ***v, size_t *n, size_t *cap)
{
    char *copy = strdup(value), *save = NULL;
    if (!copy)
        return 0;
    int ok = 1;
    for (char *tok = strtok_r(copy, ", \t", &save); tok && ok; tok = strtok_r(NULL, ", \t", &save))
        ok = push(v, n, cap, tok);
    free(copy);
    return ok;
}

/* A comma-separated list of permission rules (which may hold blanks);
 * a continuation line adds to it. */
static int split_rules(const char *value, char ***v, size_t *n, size_t *cap)
{
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, ",");
        const char *b = p, *e = p + len;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > b) {
            char *rule = strndup(b, (size_t)(e - b));
            int ok = rule && push(v, n, cap, rule);
            free(rule);
            if (!ok)
                return 0;
        }
        p += len + (p[len] == ',');
    }
    size_t end = *n;
    return push(v, &end, cap, NULL);
}

/* A text value; a continuation line appends with a blank. */
static int append_text(char **dst, const char *value)
{
    char *t = *dst ? str_printf("%s %s", *dst, value) : strdup(value);
    if (!t)
        return 0;
    free(*dst);
    *dst = t;
    return 1;
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
            return split_list(value, &p->tools, &p->ntools, &p->cap_tools);
        } else if (strcmp(key, "unopened") == 0) {
            return split_list(value, &p->unopened, &p->nunopened, &p->cap_unopened);
        } else if (strcmp(key, "unopened_names") == 0) {
            return split_list(value, &p->unopened_names, &p->nunopened_names,
                              &p->cap_unopened_names);
        }
        return 1;
    }
    if (strcmp(section, "approval") == 0) {
        static const char *const presets[] = {"ask", "sandboxed", "read-only"};
        for (int i = 0; i < 3; i++)
            if (strcmp(key, presets[i]) == 0)
                return split_rules(value, &p->approval[i], &p->napproval[i], &p->cap_approval[i]);
        return 1;
    }
    if (strcmp(section, "instructions") == 0) {
        char **dst = strcmp(key, "text") == 0         ? &p->instructions
                     : strcmp(key, "unix_like") == 0  ? &p->shell_unix
                     : strcmp(key, "powershell") == 0 ? &p->shell_powershell
                     : strcmp(key, "deferred") == 0   ? &p->deferred_hint
                                                      : NULL;
        return dst ? append_text(dst, value) : 1;
    }
    if (strncmp(section, "module.", 7) == 0 && section[7]) {
        const char *mod = section + 7;
        int i = module_index(p, mod);
        size_t np = p->nmodules;
        if (i < 0 && !(push(&p->modules, &p->nmodules, &p->cap_modules, mod) &&
                       push(&p->packages, &np, &p->cap_packages, NULL)))
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

/* inih, opened by soname on the first parse: a start that parses no
 * profile (a listing from the cache) does not map it. */
static __typeof__(ini_parse_string) *parse_string;
static pthread_once_t inih_once = PTHREAD_ONCE_INIT;
static char *inih_error; /* kept for the process, as the library is */

static void bind_inih(void)
{
    const opened_sym syms[] = {{"ini_parse_string", (void **)&parse_string}, {NULL, NULL}};
    opened_lib_bind(VTHOST_INIH_SONAME, syms, &inih_error);
}

int profile_parse(const char *text, const char *source, profile *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    pthread_once(&inih_once, bind_inih);
    if (!parse_string) {
        *err = str_printf("%s: profiles are read with inih: %s. Install the package libinih1",
                          source, inih_error ? inih_error : "it could not be opened");
        return VT_ERR_UNSUPPORTED;
    }
    parse_state st = {out, NULL};
    int line = parse_string(text, on_value, &st);
    out->source = strdup(source);
    if (line != 0) {
        if (asprintf(err,
                     "%s:%d: syntax error in profile (expected '[section]' or "
                     "'key = value')",
                     source, line) < 0)
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

#define TAKE(field)                                                                                \
    do {                                                                                           \
        if (!p->field) {                                                                           \
            p->field = d.field;                                                                    \
            d.field = NULL;                                                                        \
        }                                                                                          \
    } while (0)

/* What the profile does not say comes from the embedded default. */
static void inherit_default(profile *p)
{
    profile d;
    char *err = NULL;
    /* a profile that says it all (the default itself) needs no second parse */
    if (p->approval[0] && p->approval[1] && p->approval[2] && p->instructions && p->shell_unix &&
        p->shell_powershell && p->deferred_hint)
        return;
    for (const profile_text *e = profile_embedded; e->name; e++)
        if (strcmp(e->name, "default") == 0 &&
            profile_parse(e->text, "(embedded)", &d, &err) == 0) {
            for (int i = 0; i < 3; i++)
                if (!p->approval[i]) {
                    p->approval[i] = d.approval[i];
                    p->napproval[i] = d.napproval[i];
                    d.approval[i] = NULL;
                    d.napproval[i] = 0;
                }
            TAKE(instructions);
            TAKE(shell_unix);
            TAKE(shell_powershell);
            TAKE(deferred_hint);
            profile_free(&d);
        }
    free(err);
}

const char *profile_listing(const char *tool)
{
    const char *found = NULL;
    for (const profile_text *e = profile_embedded; e->name && !found; e++) {
        profile q;
        char *err = NULL;
        if (profile_parse(e->text, "(embedded)", &q, &err) == 0) {
            for (size_t i = 0; i < q.ntools && !found; i++)
                if (strcmp(q.tools[i], tool) == 0)
                    found = e->name;
            profile_free(&q);
        }
        free(err);
    }
    return found;
}

static int load_text(const char *name, const char *const *dirs, size_t ndirs, profile *out,
                     char **err);

int profile_load(const char *name, const char *const *dirs, size_t ndirs, profile *out, char **err)
{
    int rc = load_text(name, dirs, ndirs, out, err);
    if (rc == VT_OK)
        inherit_default(out);
    return rc;
}

static int load_text(const char *name, const char *const *dirs, size_t ndirs, profile *out,
                     char **err)
{
    name = profile_canonical_name(name);
    size_t nl = strlen(name);
    if (strchr(name, '/') || (nl > 4 && strcmp(name + nl - 4, ".ini") == 0)) {
        /* A profile given as a file path. */
        char *text = read_file(name);
        if (!text) {
            const char *why = strerror(errno ? errno : EIO);
            if (asprintf(err,
                         "cannot read profile file %s: %s. --profile takes a profile name "
                         "(default, advanced) or the path of a profile .ini file",
                         name, why) < 0)
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
    if (asprintf(err,
                 "unknown profile '%s' (known: %s, or a NAME.ini in a profile "
                 "directory)",
                 name, known) < 0)
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
    for (size_t i = 0; i < p->nunopened; i++)
        free(p->unopened[i]);
    free(p->unopened);
    for (size_t i = 0; i < p->nunopened_names; i++)
        free(p->unopened_names[i]);
    free(p->unopened_names);
    free(p->modules);
    free(p->packages);
    free(p->tools);
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < p->napproval[k]; i++)
            free(p->approval[k][i]);
        free(p->approval[k]);
    }
    free(p->instructions);
    free(p->shell_unix);
    free(p->shell_powershell);
    free(p->deferred_hint);
    free(p->name);
    free(p->description);
    free(p->source);
    memset(p, 0, sizeof *p);
}
