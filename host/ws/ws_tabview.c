/* The configuration table's rows, stamped without a stat where the
 * workspace index vouches for their absence (ws_tabview.h). */
#include "ws_tabview.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "strutil.h"
#include "ws_conftab.h"
#include "ws_index.h"

/* What a nested row's directory was at the last full stamping. */
enum { DIR_ABSENT = 0, DIR_REAL = 1, DIR_OTHER = 2 };

static struct {
    pthread_mutex_t mu;
    ws_index *ix; /* the index the epoch is of */
    char *root;
    ws_index_epoch ep; /* taken before the rows were stamped */
    ws_stamp *rows;
    unsigned char *dir; /* per row: its directory (DIR_*; DIR_REAL for top rows) */
    int valid;
} tv = {.mu = PTHREAD_MUTEX_INITIALIZER};

size_t ws_tabview_rows(void)
{
    size_t n = 0;
    while (ws_conftab[n].path)
        n++;
    return n;
}

static void stamp_row(int rfd, const char *root, const char *rel, ws_stamp *s)
{
    if (rfd >= 0) {
        ws_stamp_take_at(rfd, rel, s);
        return;
    }
    /* the root could not be opened: by its path (never "absent" for want
     * of a descriptor) */
    char *p = str_printf("%s/%s", root, rel);
    ws_stamp_take(p, s);
    free(p);
}

/* DIR_* of the directory part of `rel` (DIR_REAL for a top-level row);
 * `memo`/`memo_kind` keep the last one asked (rows of one directory are
 * neighbours in the table). */
static unsigned char dir_kind(ws_index *ix, int rfd, const char *rel, char *memo, size_t cap,
                              unsigned char *memo_kind)
{
    const char *slash = strchr(rel, '/');
    if (!slash)
        return DIR_REAL;
    size_t len = (size_t)(slash - rel);
    if (len >= cap || strchr(slash + 1, '/') || rfd < 0)
        return DIR_OTHER;
    if (!strncmp(memo, rel, len) && memo[len] == '\0')
        return *memo_kind;
    memcpy(memo, rel, len);
    memo[len] = '\0';
    struct stat st;
    if (fstatat(rfd, memo, &st, AT_SYMLINK_NOFOLLOW) != 0)
        *memo_kind = errno == ENOENT ? DIR_ABSENT : DIR_OTHER;
    else
        /* a directory the index does not watch sends no events */
        *memo_kind = S_ISDIR(st.st_mode) && ws_index_watched(ix, memo) ? DIR_REAL : DIR_OTHER;
    return *memo_kind;
}

/* 1 when row i, absent at the last stamping, is vouched absent now
 * (tv.mu held, the epoch unmoved). */
static int vouched_absent(size_t i)
{
    return !tv.rows[i].exists && (tv.dir[i] == DIR_ABSENT || tv.dir[i] == DIR_REAL);
}

static int kept_for(const char *root, ws_index *ix)
{
    if (tv.rows && tv.dir && tv.ix == ix && tv.root && !strcmp(tv.root, root))
        return 1;
    free(tv.rows);
    free(tv.dir);
    free(tv.root);
    size_t n = ws_tabview_rows();
    tv.rows = calloc(n ? n : 1, sizeof *tv.rows);
    tv.dir = calloc(n ? n : 1, 1);
    tv.root = strdup(root);
    tv.ix = ix;
    tv.valid = 0;
    return tv.rows && tv.dir && tv.root;
}

void ws_tabview_take(const char *root, ws_stamp *out)
{
    size_t n = ws_tabview_rows();
    ws_index *ix = ws_index_current();
    pthread_mutex_lock(&tv.mu);
    /* the epoch before the stamps: a change after it moves the next one */
    ws_index_epoch ep = ws_index_epoch_now(ix, root);
    int keep = ix && ep.exact && ws_index_watched(ix, "") && kept_for(root, ix);
    int reuse = keep && tv.valid && ws_index_epoch_same(tv.ep, ep);
    int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    char memo[256] = "";
    unsigned char memo_kind = DIR_OTHER;
    for (size_t i = 0; i < n; i++) {
        if (reuse && vouched_absent(i)) {
            out[i] = tv.rows[i];
            continue;
        }
        stamp_row(rfd, root, ws_conftab[i].path, &out[i]);
        /* a row's directory changes only with an event in the root, which
         * moves the epoch: kept while it does not */
        if (keep && !reuse)
            tv.dir[i] = dir_kind(ix, rfd, ws_conftab[i].path, memo, sizeof memo, &memo_kind);
    }
    if (rfd >= 0)
        close(rfd);
    if (keep) {
        memcpy(tv.rows, out, n * sizeof *out);
        tv.ep = ep;
        tv.valid = rfd >= 0;
    } else if (tv.rows) {
        tv.valid = 0;
    }
    pthread_mutex_unlock(&tv.mu);
}

void ws_tabview_reset(void)
{
    pthread_mutex_lock(&tv.mu);
    free(tv.rows);
    free(tv.dir);
    free(tv.root);
    tv.rows = NULL;
    tv.dir = NULL;
    tv.root = NULL;
    tv.ix = NULL;
    tv.valid = 0;
    pthread_mutex_unlock(&tv.mu);
}
