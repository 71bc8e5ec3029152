/* The configuration's layers (the user's vtcode.toml, the workspace's,
 * --config), combined: merged key by key, an untrusted workspace's read
 * through the keys that can only tighten, [mcp.requirements] combined so
 * that a later layer only tightens, the keys the host reads checked, and
 * the approval preset's sandbox settings applied. */
#ifndef VTHOST_CONFIG_LAYERS_H
#define VTHOST_CONFIG_LAYERS_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* One layer as read: its tree, and whether it applies (an untrusted
 * workspace's does not). */
typedef struct config_layer {
    const cJSON *tree;
    int applied;
} config_layer;

/* A copy of `b` merged over `a` (tables merged key by key, anything else
 * replaced); `a` is consumed. */
cJSON *config_merge(cJSON *a, const cJSON *b);

/* The table at a dotted path ("tools.anti_blind_editing"), or NULL. */
const cJSON *config_table_at(const cJSON *root, const char *path);

/* What an untrusted layer `t` may set over `below` (the trusted layers
 * merged so far): a new tree of the keys that only tighten; *ignored
 * (malloc'd, or NULL) lists the keys left unread ("mcp, tools.profile"). */
cJSON *config_untrusted_view(const cJSON *t, const cJSON *below, char **ignored);

/* [mcp.requirements] of the applied layers combined into `config`. */
int config_merge_requirements(cJSON *config, const config_layer *layers, size_t n);

/* Keys the host itself reads, checked in the layer `config` read from
 * `file`: VT_ERR_INVALID and *err naming the key otherwise. */
int config_check_keys(const cJSON *config, const char *file, char **err);

/* The approval preset (permission_approval()) applied to [sandbox] of
 * `config`: a preset other than ask needs a sandbox and bounds it. */
int config_apply_approval(cJSON *config, char **err);

/* The files of the layers: the user's vtcode.toml, the workspace's and
 * --config (each NULL when absent; user and ws malloc'd, the caller
 * frees them). */
typedef struct layer_files {
    char *user, *ws;
    const char *named;
    int named_ws; /* --config names the workspace's own file: trusted */
    int ws_link;  /* the workspace's vtcode.toml is a symbolic link */
} layer_files;

/* The layer files that exist for `workspace` and --config
 * `explicit_path` (may be NULL). */
void config_find_layer_files(const char *workspace, const char *explicit_path, layer_files *f);

/* 1 when `a` and `b` (either may be NULL) name the same file. */
int config_same_file(const char *a, const char *b);

#endif
