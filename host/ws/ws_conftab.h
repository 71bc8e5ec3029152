/* The configuration that starts programs when a person or another tool
 * later opens the workspace: IDE tasks and dev containers, and every
 * coding agent's project file that launches MCP servers, hooks or
 * plugins.  One table for the host: the permission engine asks before a
 * tool writes such a path, and the after-call check (ws_after.h) sets
 * aside what a call made or changed there.
 *
 * Rows are workspace-relative.  A directory row is set aside whole when a
 * call makes it; a file row (inside a directory row or at the root) is
 * set aside when a call makes or changes it. */
#ifndef VTHOST_WS_CONFTAB_H
#define VTHOST_WS_CONFTAB_H

#include <stddef.h>

enum ws_conf_kind { WS_CONF_DIR = 1, WS_CONF_ENTRY = 2 };

typedef struct ws_conf_row {
    const char *path; /* workspace-relative */
    int kind;         /* enum ws_conf_kind */
    const char *who;  /* what reads it, for the report */
} ws_conf_row;

/* The rows, ended by one whose path is NULL; directory rows come before
 * the file rows inside them. */
extern const ws_conf_row ws_conftab[];

/* 1 when the path component name[0..len) is a directory row's or a
 * root file row's name (a protected name at any depth: ".git" and
 * ".vtcode" are the host's own and are included), else 0. */
int ws_conftab_protected_name(const char *name, size_t len);

#endif
