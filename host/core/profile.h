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
    char *source;          /* file it was read from, or "(embedded)" */
    char **modules;        /* module names, in file order */
    char **packages;       /* package shipping each module (may be NULL) */
    size_t nmodules;
    char **tools;          /* public tools, in order */
    size_t ntools;
} profile;

/* Canonical profile name for a user-given one (VT Code aliases). */
const char *profile_canonical_name(const char *name);

/* Load profile `name` from the first directory holding NAME.ini, else
 * the embedded copy.  *err names the file and line of a syntax error. */
int profile_load(const char *name, const char *const *dirs, size_t ndirs,
                 profile *out, char **err);
/* Parse INI text; exposed for tests. */
int profile_parse(const char *text, const char *source, profile *out, char **err);
void profile_free(profile *p);

#endif
