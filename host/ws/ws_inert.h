/* Making inert what a tool call left behind, fail closed: a git
 * directory is neutralised (gitneutral.h) and an entry (a gitfile naming
 * a git directory outside the workspace, an IDE or agent configuration)
 * is set aside, the originals moved to the workspace's
 * .vtcode/set-aside/; when that directory cannot be used they stay where
 * they were under names nothing reads (WS_ASIDE_IN_PLACE), and the
 * refusal is reported once.  Nothing is deleted, and nothing is left
 * live with only a warning: a step that could not be done is returned as
 * such, for the caller to fail the call with its report. */
#ifndef VTHOST_WS_INERT_H
#define VTHOST_WS_INERT_H

/* Neutralise the git directory open at `gitfd` (borrowed) of the
 * workspace `root`; `label` names it in the report.  *report (malloc'd)
 * says what was done, or is NULL when there was nothing to do.  0, 1 when
 * something could not be made inert (said in *report), or a negative
 * vt_status. */
int ws_inert_gitdir(int gitfd, const char *root, const char *label, char **report);

/* Set aside the entry `name` of the directory open at `dirfd` (never
 * followed), which `label` names, because it `why` ("points to a git
 * directory outside the workspace").  *report as above; 0 (also when it
 * is gone already), 1 when it could not be moved, or a negative
 * vt_status. */
int ws_inert_entry(int dirfd, const char *name, const char *root, const char *label,
                   const char *why, char **report);

#endif
