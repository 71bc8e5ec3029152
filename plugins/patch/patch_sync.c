/* Syncing staged files, and when a rename needs no sync (see
 * patch_sync.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/mount_watch.h>
#include <vthost/plugin.h>
#include "patch_fs.h"
#include "patch_sync.h"
#include "patch_text.h"

typedef struct sync_job {
    int root;
    char *const *rels;
    const int *fds;
    size_t n;
    atomic_size_t next;
    atomic_int failed; /* index + 1 of the first failure */
    atomic_int err_no;
} sync_job;

static void *sync_worker(void *arg)
{
    sync_job *j = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            return NULL;
        const char *rel = j->rels[i];
        int borrowed = j->fds && j->fds[i] >= 0;
        int fd = borrowed ? j->fds[i]
                 : *rel   ? fs_open_beneath(j->root, rel, O_RDONLY, 0)
                          : fcntl(j->root, F_DUPFD_CLOEXEC, 0);
        int ok = fd >= 0 && fsync(fd) == 0;
        int e = errno;
        if (fd >= 0 && !borrowed)
            close(fd);
        int none = 0;
        if (!ok && atomic_compare_exchange_strong(&j->failed, &none, (int)i + 1))
            atomic_store(&j->err_no, e);
    }
}

int fs_sync_paths(int root, char *const *rels, const int *fds, size_t n, char **err)
{
    *err = NULL;
    sync_job j = {.root = root, .rels = rels, .fds = fds, .n = n};
    /* Concurrent fsyncs share journal commits (ext4, xfs): far fewer
     * device flushes than one fsync after another. */
    enum { MAX_WORKERS = 16 };
    pthread_t th[MAX_WORKERS];
    size_t nth = n < MAX_WORKERS ? n : MAX_WORKERS, started = 0;
    for (size_t i = 1; i < nth; i++)
        if (pthread_create(&th[started], NULL, sync_worker, &j) == 0)
            started++;
    sync_worker(&j);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    int f = atomic_load(&j.failed);
    if (f)
        return patch_fail(err, VT_ERR_IO, "Cannot sync '%s' to disk: %s", rels[f - 1],
                          strerror(atomic_load(&j.err_no)));
    return 0;
}

int fs_sync_wanted(int need, int replaces)
{
    if (need == FS_VOLATILE)
        return 0;
    return !replaces || need != FS_RENAME_ORDERED;
}

/* Fill cur[] with the pieces from iov[at] (skip bytes of it already
 * written), at most `max` bytes (0: no limit); returns how many. */
static size_t next_batch(struct iovec cur[IOV_MAX], const struct iovec *iov, size_t n, size_t at,
                         size_t skip, size_t max)
{
    size_t k = 0, bytes = 0;
    for (size_t i = at; i < n && k < IOV_MAX && (!max || bytes < max); i++) {
        size_t off = i == at ? skip : 0, len = iov[i].iov_len - off;
        if (max && len > max - bytes)
            len = max - bytes;
        if (len)
            cur[k++] = (struct iovec){(char *)iov[i].iov_base + off, len};
        bytes += len;
    }
    return k;
}

int fs_writev_all(int fd, const struct iovec *iov, size_t n, size_t slice)
{
    struct iovec cur[IOV_MAX];
    size_t at = 0, skip = 0; /* the next piece, and bytes of it already written */
    off_t done = 0;
    while (at < n) {
        size_t k = next_batch(cur, iov, n, at, skip, slice);
        if (k == 0)
            break;
        ssize_t w = writev(fd, cur, (int)k);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        /* only a hint: a failure here leaves the sync to do it all */
        if (slice && w > 0)
            sync_file_range(fd, done, w, SYNC_FILE_RANGE_WRITE);
        done += w;
        size_t left = (size_t)w;
        while (at < n && left >= iov[at].iov_len - skip) {
            left -= iov[at].iov_len - skip;
            at++;
            skip = 0;
        }
        skip += left;
    }
    return 0;
}

/* 1 when the comma-separated `opts` hold the option `name`. */
static int has_opt(const char *opts, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = opts, *end = opts + len; p < end;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t l = c ? (size_t)(c - p) : (size_t)(end - p);
        if (l == n && memcmp(p, name, n) == 0)
            return 1;
        p += l + 1;
    }
    return 0;
}

/* Judge one mountinfo line ("ID PARENT MAJ:MIN ROOT DIR OPTS... - TYPE
 * SOURCE SUPEROPTS"): -1 when it is not the device, else 0 or 1. */
static int judge_line(const char *l, size_t len, const char *dev)
{
    char line[4096];
    if (len >= sizeof line)
        return -1;
    memcpy(line, l, len);
    line[len] = '\0';
    char *save = NULL, *f = strtok_r(line, " ", &save);
    for (int i = 0; f && i < 2; i++)
        f = strtok_r(NULL, " ", &save);
    if (!f || strcmp(f, dev) != 0)
        return -1;
    while ((f = strtok_r(NULL, " ", &save)) && strcmp(f, "-") != 0) {
    }
    const char *type = f ? strtok_r(NULL, " ", &save) : NULL;
    const char *source = type ? strtok_r(NULL, " ", &save) : NULL;
    const char *opts = source ? strtok_r(NULL, " ", &save) : NULL;
    if (!opts || strcmp(type, "ext4") != 0)
        return 0;
    size_t ol = strlen(opts);
    return !has_opt(opts, ol, "data=writeback") && !has_opt(opts, ol, "noauto_da_alloc");
}

int fs_mountinfo_ordered(const char *mountinfo, unsigned maj, unsigned min)
{
    char dev[32];
    snprintf(dev, sizeof dev, "%u:%u", maj, min);
    for (const char *p = mountinfo; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int r = judge_line(p, len, dev);
        if (r >= 0)
            return r;
        p += len + (nl != NULL);
    }
    return 0;
}

/* A small text file of /proc or /sys, whole (NULL when unreadable). */
static char *slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap && VT_GROW(&buf, &cap, n + 4096) != 0) {
            free(buf);
            buf = NULL;
            break;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* Whether the ext4 filesystem on maj:min has a journal: ext4 can run
 * without one, and then a rename is ordered after nothing. */
static int has_journal(unsigned maj, unsigned min)
{
    char path[320], target[256];
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u", maj, min);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    const char *name = strrchr(target, '/');
    name = name ? name + 1 : target;
    snprintf(path, sizeof path, "/proc/fs/jbd2/%.200s-8", name);
    if (access(path, F_OK) == 0)
        return 1;
    snprintf(path, sizeof path, "/sys/fs/ext4/%.200s/journal_task", name);
    char *task = slurp(path);
    int yes = task && task[0] && task[0] != '\n' && strncmp(task, "<none>", 6) != 0;
    free(task);
    return yes;
}

/* The judgement of each filesystem seen, kept until the mount table
 * changes (<vthost/mount_watch.h>): a filesystem's journal and data mode
 * change only by a mount or remount. */
enum { KNOWN_MAX = 8 };
static struct {
    pthread_mutex_t mu;
    vt_mount_watch watch;
    size_t n, next;
    dev_t dev[KNOWN_MAX];
    unsigned char need[KNOWN_MAX]; /* fs_sync_need's answer */
} known = {.mu = PTHREAD_MUTEX_INITIALIZER, .watch = {.fd = -1}};

static int judge(int fd, dev_t dev)
{
    struct statfs sf;
    if (fstatfs(fd, &sf) != 0)
        return FS_SYNC_ALWAYS;
    if (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC)
        return FS_VOLATILE;
    if (sf.f_type != EXT4_SUPER_MAGIC)
        return FS_SYNC_ALWAYS;
    char *mi = slurp("/proc/self/mountinfo");
    int ordered = mi && fs_mountinfo_ordered(mi, major(dev), minor(dev)) &&
                  has_journal(major(dev), minor(dev));
    free(mi);
    return ordered ? FS_RENAME_ORDERED : FS_SYNC_ALWAYS;
}

int fs_sync_need(int fd, fs_order_cache *c)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return FS_SYNC_ALWAYS;
    if (c && c->known && c->dev == st.st_dev)
        return c->need;
    pthread_mutex_lock(&known.mu);
    if (vt_mount_watch_changed(&known.watch))
        known.n = 0;
    int need = -1;
    for (size_t i = 0; i < known.n && need < 0; i++)
        if (known.dev[i] == st.st_dev)
            need = known.need[i];
    if (need < 0) {
        need = judge(fd, st.st_dev);
        if (vt_mount_watch_active(&known.watch)) { /* kept only while changes can be seen */
            size_t i = known.n < KNOWN_MAX ? known.n++ : known.next++ % KNOWN_MAX;
            known.dev[i] = st.st_dev;
            known.need[i] = (unsigned char)need;
        }
    }
    pthread_mutex_unlock(&known.mu);
    if (c)
        *c = (fs_order_cache){st.st_dev, 1, need};
    return need;
}

void fs_order_fini(void)
{
    pthread_mutex_lock(&known.mu);
    vt_mount_watch_close(&known.watch);
    known.n = 0;
    pthread_mutex_unlock(&known.mu);
}
