/* Bare repositories a command may have made in a subdirectory: git
 * finds one from every directory below it that has no .git, and no .git
 * entry names it, so only the change log shows it (ws_check.c).  The
 * directory of a logged change, or the one above it (hooks/NAME), that
 * git takes for a git directory (ws_gitdir.h) is such a repository. */
#ifndef VTHOST_WS_BARE_H
#define VTHOST_WS_BARE_H

#include <cjson/cJSON.h>

/* For the changes `arr` (ws_index_changes_json) below the workspace
 * `root`: fn(ctx, abs) for each git directory found, judging each
 * changed directory once however many of its entries changed (a patch
 * of many files in few directories). */
void ws_bare_find(const char *root, const cJSON *arr, void (*fn)(void *ctx, const char *abs),
                  void *ctx);

#endif
