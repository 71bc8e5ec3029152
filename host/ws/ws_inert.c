/* Neutralising and setting aside, fail closed (ws_inert.h). */
#include "ws_inert.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "gitneutral.h"
#include "strutil.h"
#include "ws_aside.h"

/* The set-aside directory, or the in-place fallback: *asidefd is `here`
 * (not to be closed) and *prefix starts with WS_ASIDE_IN_PLACE; *why
 * (static, may be NULL) says why, the first time. */
static int aside_for(const char *root, int here, const char *label, int *asidefd, char **prefix,
                     const char **why)
{
    int first = 0;
    *why = NULL;
    *asidefd = ws_aside_open(root, why, &first);
    char *p = ws_aside_prefix(label);
    if (*asidefd < 0) {
        *asidefd = here;
        char *q = p ? str_printf("%s%s", WS_ASIDE_IN_PLACE, p) : NULL;
        free(p);
        p = q;
        if (!first)
            *why = NULL;
    }
    *prefix = p;
    return p ? 0 : VT_ERR_NOMEM;
}

static char *where_kept(int in_place, const char *why)
{
    if (!in_place)
        return strdup("originals kept in .vtcode/set-aside/");
    if (why)
        return str_printf("originals kept beside them as " WS_ASIDE_IN_PLACE
                          "* (.vtcode/set-aside/ cannot be used: %s; make it a directory "
                          "of yours to have them collected there)",
                          why);
    return strdup("originals kept beside them as " WS_ASIDE_IN_PLACE "*");
}

int ws_inert_gitdir(int gitfd, const char *root, const char *label, char **report)
{
    *report = NULL;
    int asidefd;
    char *prefix = NULL;
    const char *why;
    if (aside_for(root, gitfd, label, &asidefd, &prefix, &why) != 0)
        return VT_ERR_NOMEM;
    int in_place = asidefd == gitfd;
    char *r = NULL;
    int rc = gitneutral_dir(gitfd, asidefd, prefix, label, &r);
    if (!in_place)
        close(asidefd);
    free(prefix);
    if (rc < 0 || !r)
        return rc < 0 ? rc : VT_OK;
    char *kept = where_kept(in_place, why);
    *report = str_printf("repository %s neutralised (%s): %s", label, kept ? kept : "", r);
    free(kept);
    free(r);
    return *report ? rc : VT_ERR_NOMEM;
}

int ws_inert_entry(int dirfd, const char *name, const char *root, const char *label,
                   const char *why, char **report)
{
    *report = NULL;
    int asidefd;
    char *prefix = NULL;
    const char *refusal;
    if (aside_for(root, dirfd, label, &asidefd, &prefix, &refusal) != 0)
        return VT_ERR_NOMEM;
    int in_place = asidefd == dirfd;
    /* the entry's name without the trailing '%' of a prefix */
    prefix[strlen(prefix) - 1] = '\0';
    int rc = gitneutral_move_aside(dirfd, name, asidefd, prefix);
    if (!in_place)
        close(asidefd);
    if (rc == -ENOENT) {
        free(prefix);
        return VT_OK;
    }
    if (rc == 0 && !in_place) {
        *report = str_printf("%s %s; it was moved to .vtcode/set-aside/%s, not applied", label, why,
                             prefix);
    } else if (rc == 0) {
        *report = str_printf("%s %s; it was renamed %s beside it, not applied%s%s%s", label, why,
                             prefix, refusal ? " (.vtcode/set-aside/ cannot be used: " : "",
                             refusal ? refusal : "", refusal ? ")" : "");
    } else {
        *report = str_printf("%s %s and could not be set aside (%s): remove it before using it",
                             label, why, strerror(-rc));
    }
    free(prefix);
    if (!*report)
        return VT_ERR_NOMEM;
    return rc == 0 ? VT_OK : 1;
}
