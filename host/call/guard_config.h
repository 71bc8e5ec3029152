/* The anti-blind-editing guard's settings: [tools.anti_blind_editing] of
 * vtcode.toml read and checked, with the default verification commands. */
#ifndef VTHOST_GUARD_CONFIG_H
#define VTHOST_GUARD_CONFIG_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include "guard_match.h"

typedef struct guard_settings {
    int enabled, require_success, detect;
    long threshold;     /* max_unverified_mutations */
    size_t max_entries; /* max_snapshot_entries */
    guard_rules *rules; /* what counts as a verification run */
    const char *workspace;
} guard_settings;

/* Read the table from `config` (the merged configuration) into `s`: the
 * defaults where a key is absent, VT_ERR_INVALID and *err (malloc'd)
 * naming the key and what it must be otherwise.  s->rules, when set, is
 * the caller's (guard_rules_free), on failure too; s->workspace is left
 * alone. */
int guard_settings_read(const cJSON *config, guard_settings *s, char **err);

#endif
