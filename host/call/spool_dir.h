/* The spool directory (.vtcode/context/tool_outputs): safe paths, size
 * bounds and retention, and the `vthost spool` command.
 *
 * Configuration, [tools.spool] in vtcode.toml:
 *   max_call_mib  (256)  one call's spool file stops growing here
 *   max_dir_mib   (1024) the directory's total; the oldest files of
 *                        finished calls are deleted past it
 *   max_age_days  (7)    files of finished calls older than this are
 *                        deleted when vthost starts (0: never)
 * A file is in use while a call writes it: its writer holds a shared
 * flock(2) on it, and only files that can be locked exclusively are
 * deleted, by this process or any other. */
#ifndef VTHOST_SPOOL_DIR_H
#define VTHOST_SPOOL_DIR_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "ws_layout.h"

#define SPOOL_DIR WS_LAYOUT_SPOOL_DIR
/* The spool view of one client session of the HTTP server (its
 * vt_host_api.call_client_id, 16 hex digits): its calls spool there, and
 * its commands see only that directory of SPOOL_DIR (the exec plugin's
 * sandbox mounts an empty directory over SPOOL_DIR and binds this one
 * back).  The stdio client (id 0) spools to SPOOL_DIR itself. */
#define SPOOL_VIEW_FMT WS_LAYOUT_SPOOL_VIEW_FMT

/* Read [tools.spool] (a wrong type or range is an error naming the key,
 * *err malloc'd) and delete files past max_age_days. */
int spool_configure(const char *workspace, const cJSON *config, const char *file, char **err);

uint64_t spool_call_cap(void);

/* Create (truncate) SPOOL_DIR/name for writing, locked shared; `name`
 * may be VIEW/FILE, a spool view's directory made as needed.  The
 * directories are made and walked without following a symbolic link,
 * and the file is opened with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) from the workspace root (an O_NOFOLLOW walk where
 * openat2 is missing).  Returns the fd, or a negative vt_status with
 * *why (malloc'd) saying what was refused. */
int spool_dir_create(const char *workspace, const char *name, char **why);

/* A client session ended: its spool view (SPOOL_VIEW_FMT of `client`)
 * is removed when empty; one holding files stays for `vthost spool list`
 * and the age limit. */
void spool_view_remove(const char *workspace, uint64_t client);

/* Delete the oldest finished files (spool views' included) until the
 * directory fits max_dir_mib. */
void spool_dir_enforce(const char *workspace);

/* `vthost spool list|clean`: exit status. */
int spool_cli(const char *workspace, int argc, char **argv);

#endif
