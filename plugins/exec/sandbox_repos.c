/* Finding the repositories below a directory, asked of the host
 * (sandbox_repos.h). */
#include "sandbox_repos.h"

#include <stddef.h>
#include <string.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

/* Report the entries of a {"repositories", "complete"} answer; an
 * incomplete one is cut for `why`. */
static int report(const cJSON *o, repo_walk *w, int why)
{
    int rc = VT_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "repositories"))
    {
        const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (path && kind)
            rc = w->found(w, path, !strcmp(kind, "dir") ? 'd' : !strcmp(kind, "link") ? 'l' : 'f');
        if (rc != VT_OK)
            break;
    }
    if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "complete")))
        w->cut(w, why);
    return rc;
}

int repos_from_index(const struct vt_wsindex_v1 *index, repo_walk *w)
{
    cJSON *o = NULL;
    if (!index || index->repositories(NULL, &o) != VT_OK || !o)
        return 1;
    int rc = report(o, w, REPOS_CUT_INDEX);
    cJSON_Delete(o);
    return rc;
}

int repos_below(const struct vt_wsindex_v1 *index, const char *root, repo_walk *w)
{
    /* a host older than 1.13 cannot say: what is below `root` is
     * unknown, which the plan treats as a cut walk */
    if (!index ||
        index->struct_size <
            offsetof(struct vt_wsindex_v1, repositories_below) + sizeof index->repositories_below ||
        !index->repositories_below) {
        w->cut(w, REPOS_CUT_UNKNOWN);
        return VT_OK;
    }
    cJSON *o = NULL;
    int rc = index->repositories_below(root, &o);
    if (rc == VT_OK && o) {
        rc = report(o, w, REPOS_CUT_WALK);
    } else if (rc != VT_ERR_NOMEM) {
        w->cut(w, REPOS_CUT_UNKNOWN);
        rc = VT_OK;
    }
    cJSON_Delete(o);
    return rc;
}
