/* The configuration table's rows (ws_conftab.h) stamped as they are
 * now, for the checks around every call (ws_changes.c, ws_check.c).
 *
 * Most rows do not exist in a given workspace, and a row cannot come
 * into being without an entry made in its directory, which the live
 * workspace index sees by inotify.  So a row that was absent at the
 * last stamping is taken as still absent, without a stat, when the
 * index's epoch has not moved since (no change logged, no rebuild, the
 * index exact throughout: ws_index_epoch_same) and the row's directory
 * is one the index watches: the workspace itself, or a subdirectory
 * that was absent or a real directory the index holds a watch on (never
 * a link, whose target the index does not watch, nor a directory the
 * host could not read, which inotify cannot watch).  Rows that exist are stamped every time: a file
 * written through a mapping or a hard link elsewhere changes without an
 * event in its directory.  Without an index, or with any doubt, every
 * row is stamped. */
#ifndef VTHOST_WS_TABVIEW_H
#define VTHOST_WS_TABVIEW_H

#include <stddef.h>
#include "ws_stamp.h"

/* The most rows the table may have: callers stamp it into arrays of this
 * length on the stack, where the stamping must not fail for lack of
 * memory (ws_conftab.c fails the build past it). */
#define WS_TABVIEW_MAX 128

/* The number of rows of the table (the length of out[] below). */
size_t ws_tabview_rows(void);

/* Stamp every row below the workspace `root` (absolute, canonical) into
 * out[0 .. ws_tabview_rows()), as ws_stamp_take_at would from the root
 * opened now. */
void ws_tabview_take(const char *root, ws_stamp *out);

/* Forget what was kept (the workspace closed). */
void ws_tabview_reset(void);

#endif
