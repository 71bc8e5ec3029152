/* Reading the permission settings from the vtcode.toml tree. */
#ifndef VTHOST_PERM_CONFIG_H
#define VTHOST_PERM_CONFIG_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "perm_types.h"

/* Defaults: 3 consecutive / 20 total denials, broad allows dropped,
 * reviewer command timeout 10 s. */
void perm_settings_defaults(perm_settings *st);
/* Fill `st` (workspace and home already set) from config's [permissions].
 * `path` names the file in messages (NULL: "vtcode.toml").  *err is a
 * malloc'd "FILE:LINE: key must be ..." on failure. */
int perm_config_load(perm_settings *st, const cJSON *config, const char *path, char **err);
/* One configuration layer: rules take `origin` ("user", "workspace",
 * "config"); an untrusted layer's allow rules, non_interactive = "allow"
 * and [permissions.auto] are checked but not applied. */
int perm_config_load_layer(perm_settings *st, const cJSON *config, const char *path,
                           const char *origin, int trusted, char **err);
void perm_settings_free(perm_settings *st);
/* Approval presets: "ask" 0, "sandboxed" 1, "read-only" 2; -1 unknown. */
int perm_approval_parse(const char *s);
const char *perm_approval_name(int approval);
void perm_strings_clear(perm_string_list *l);

/* "file:line" of a rule (looked up in the TOML file when needed). */
char *perm_rule_source(const perm_rule *r);

#endif
