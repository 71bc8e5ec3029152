/* The workspace's layout as vthost keeps it: its policy directory
 * (.vtcode/, kept out of the repository's status by its own .gitignore),
 * the names at the workspace root that programs outside a sandbox open
 * and run from (vthost's policy, IDE and agent configuration), a
 * vtcode.toml that appeared while commands ran (moved aside into
 * .vtcode/, or, when that fails, recorded as refused under the host's
 * state directory, where host/perm/perm_trust.c reads the record back).
 * The configuration names come from the one table (ws_conftab.h);
 * plugins ask the workspace service (vt_wsindex_v1.protected_names,
 * prepare). */
#ifndef VTHOST_WS_LAYOUT_H
#define VTHOST_WS_LAYOUT_H

#include <stdint.h>

struct ws_conf_row;

/* Where the host spools tool output, workspace-relative, and the view
 * of one client session of the HTTP server (its call_client_id, 16 hex
 * digits) inside it: its calls spool there and its commands see only
 * that directory (host/call/spool_dir.h). */
#define WS_LAYOUT_SPOOL_DIR ".vtcode/context/tool_outputs"
#define WS_LAYOUT_SPOOL_VIEW_FMT "c-%016llx"

/* The names at the workspace root that programs outside a sandbox open
 * and run from: ".vtcode", "vtcode.toml", then the directory and file
 * rows at the root of the configuration table (ws_conftab.h, the one
 * list), NULL-ended, as many as the table holds; built on the first
 * call and kept.  NULL when memory ran out building it (logged once):
 * the workspace service then refuses to open rather than leave names
 * unprotected. */
const char *const *ws_layout_names(void);

/* The same list built from the table `tab` (ended by a NULL path) into
 * *out (malloc'd, free() it; the names are borrowed from `tab`).  0 or
 * VT_ERR_NOMEM (*out NULL). */
int ws_layout_names_of(const struct ws_conf_row *tab, const char ***out);

/* Make `root`'s .vtcode/ (and its .gitignore) when missing; *dir its
 * path (malloc'd, also on failure).  0, or VT_ERR_IO and *err (malloc'd)
 * saying what could not be made. */
int ws_layout_prepare(const char *root, char **dir, char **err);

/* Client `client`'s spool view in `root`, made beneath it without
 * following a link: *own its directory, *all the spool directory (both
 * malloc'd).  0, VT_ERR_IO or VT_ERR_NOMEM. */
int ws_layout_spool_view(const char *root, uint64_t client, char **all, char **own);

/* 1 when `root` has no vtcode.toml now, else 0. */
int ws_layout_toml_absent(const char *root);

/* Where the refusal of the file `st` describes is recorded:
 * $XDG_STATE_HOME/vthost/refused/<dev>-<inode> (malloc'd), or NULL
 * without a state directory.  The one place that spells the record's
 * name; host/perm/perm_trust.c reads it back. */
struct stat;
char *ws_layout_refused_path(const struct stat *st);

/* A vtcode.toml in `root` that was absent when the host started is set
 * aside (moved to .vtcode/refused-vtcode.toml.*, or recorded as refused
 * so that no later start applies it).  *report (malloc'd) says what was
 * done, or is NULL when there is no such file. */
void ws_layout_late_toml(const char *root, char **report);

#endif
