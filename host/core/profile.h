/* Profiles (profiles/NAME.ini, read with inih): which modules to load and
 * which tools to list. */
#ifndef VTHOST_PROFILE_H
#define VTHOST_PROFILE_H

#include <stddef.h>

typedef struct profile_text {
    const char *name;
    const char *text;
} profile_text;

/* Built-in copies of profiles/NAME.ini, ended by {NULL, NULL}. */
extern const profile_text profile_embedded[];

typedef struct profile {
    char *name;
    char *description;
    char *source;    /* file it was read from, or "(embedded)" */
    char **modules;  /* module names, in file order */
    char **packages; /* package shipping each module (may be NULL) */
    size_t nmodules;
    char **tools; /* public tools, in order */
    size_t ntools;
    /* [profile] unopened: installed modules this profile leaves closed,
     * because their tools are gated to the profiles that list them (not
     * callable, listed or searchable here): opening them would only cost
     * the start */
    char **unopened;
    size_t nunopened;
    /* [profile] unopened_names: the tool names and rule aliases of those
     * modules, which rules may still name (they stay valid, and inert) */
    char **unopened_names;
    size_t nunopened_names;
    /* [approval]: the embedded default agent's allow rules under each
     * --approval preset (PROFILE_ASK ...), NULL-terminated, or NULL */
    char **approval[3];
    size_t napproval[3];
    /* [instructions]: text for MCP clients (`text`), the sentence for
     * each shell profile (`unix_like`, `powershell`) and the hint for a
     * deferred tool called before it was found (`deferred`); or NULL */
    char *instructions, *shell_unix, *shell_powershell, *deferred_hint;
    /* the lists' allocated lengths (they grow by VT_GROW) */
    size_t cap_modules, cap_packages, cap_tools, cap_unopened, cap_unopened_names, cap_approval[3];
} profile;

/* Indices of profile.approval, as perm_approval_parse numbers presets. */
enum { PROFILE_ASK = 0, PROFILE_SANDBOXED = 1, PROFILE_READ_ONLY = 2 };

/* Canonical profile name for a user-given one (VT Code aliases). */
const char *profile_canonical_name(const char *name);

/* Load profile `name` from the first directory holding NAME.ini, else
 * the embedded copy.  *err names the file and line of a syntax error.
 * Sections [approval] and [instructions] the profile lacks come from the
 * embedded default profile. */
int profile_load(const char *name, const char *const *dirs, size_t ndirs, profile *out, char **err);
/* Parse INI text; exposed for tests. */
int profile_parse(const char *text, const char *source, profile *out, char **err);
void profile_free(profile *p);

/* The name of an embedded profile that lists `tool` publicly, or NULL
 * (static). */
const char *profile_listing(const char *tool);

#endif
