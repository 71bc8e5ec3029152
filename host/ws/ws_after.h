/* The check after a call of a tool that writes the workspace
 * (VT_EFFECT_MUTATES_WORKSPACE): what the call wrote is judged, and a
 * git directory it made or armed is made inert before the call returns
 * (ws_inert.h), so that nothing it left runs when the user later works
 * there.  Judged are the directories the call's path subjects (created,
 * edited, deleted) lie in, up to the workspace root, and the .git
 * entries it wrote:
 * - a directory git takes for a git directory (ws_gitdir.h) that was not
 *   one before the call, or whose config, config.worktree, commondir or
 *   hooks/ the call wrote, is neutralised, and so is the common
 *   directory its commondir file names when that is in the workspace
 *   (outside it, the commondir file is set aside);
 * - a gitfile naming a git directory outside the workspace is set aside
 *   (one inside is judged by the rules above when the call wrote it, and
 *   is the user's when it did not);
 * - what the workspace itself shows the call changed (ws_changes.h): the
 *   configuration table's rows it made or changed and links it made to
 *   an outside repository are set aside, and, for a tool that writes,
 *   git directories it made or armed are neutralised even when it
 *   declared no path.
 * A tool that executes commands (VT_EFFECT_EXECUTES) is judged for the
 * table, the links, hook files and the repositories that were there
 * (their config and hooks: ws_armed.h); the repositories its commands
 * make are judged by the host's check of what sessions leave
 * (ws_check.h), in the same flow (call/pipeline.c). */
#ifndef VTHOST_WS_AFTER_H
#define VTHOST_WS_AFTER_H

#include <vthost/plugin.h>
#include "ws_changes.h"

typedef struct ws_after ws_after;

/* The workspace root the checks judge (canonical; copied), or NULL. */
void ws_after_set_root(const char *root);
const char *ws_after_root(void);

/* Before a tool of `effects` (enum vt_effect) runs: what the subjects
 * `s` (borrowed) name and what ws_changes.h stamps, as it is now.  *out
 * (NULL when there is nothing to judge) is for ws_after_end. */
int ws_after_begin(const vt_subjects *s, unsigned effects, ws_after **out);

/* After it ran: judge and make inert; frees `a` (may be NULL).
 * *report (malloc'd, NULL when nothing was found) names every
 * repository neutralised and every entry set aside.  0, or 1 when
 * something could not be made inert (named in *report): the call must
 * then fail. */
int ws_after_end(ws_after *a, char **report);

/* Outside a call (the check owed after a crash, ws_owed.h): `find`
 * reports its findings to the actor it is given, which sets aside and
 * neutralises them as ws_after_end does.  `root` must be the root set.
 * *report and the result as ws_after_end's, or a negative vt_status. */
int ws_after_act(const char *root, void (*find)(void *fctx, ws_found_fn fn, void *ctx), void *fctx,
                 char **report);

#endif
