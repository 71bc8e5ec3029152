/* Old workspace index files go: every workspace a one-shot call ever
 * indexed (temporary checkouts, test workspaces) leaves a file in
 * $XDG_CACHE_HOME/vthost/wsindex/, and a process killed while saving
 * leaves its temporary file.  A file neither written nor read for 30 days
 * goes, as the code_search index's do.  Reading it counts as use through
 * its access time (kept by the default relatime mounts at least once a
 * day), so a load costs nothing more; on a noatime mount an unchanged
 * workspace's file may go and is then built again once.  The directory
 * is read at most once a day, when a stamp file there is older than
 * that: a save costs one stat more (some 2 us). */
#include "ws_index_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "paths.h"

#define DAY (24 * 3600)
#define IDX_MAX_AGE (30 * DAY) /* not written nor read for that long */
#define TMP_MAX_AGE 3600       /* a save takes far less */
#define STAMP ".swept"
/* Removals per sweep: a cache grown for years goes over some hours, and
 * no call's end waits for thousands of unlinks (12,844 took 0.54 s). */
#define MAX_REMOVE 1000

/* Whether `name` is one of ours: KEY.idx (KEY: 16 hex digits), or a
 * save's temporary KEY.idx.PID (*tmp set). */
static int ours(const char *name, int *tmp)
{
    if (strspn(name, "0123456789abcdef") != 16 || strncmp(name + 16, ".idx", 4) != 0)
        return 0;
    const char *pid = name + 20;
    *tmp = *pid != '\0';
    return !*tmp || (pid[0] == '.' && pid[1] && strspn(pid + 1, "0123456789") == strlen(pid + 1));
}

/* Whether the stamp `st` (of the last sweep) is fresh: less than a day
 * old, and not in the future. */
static int fresh(const struct stat *st, time_t now)
{
    return S_ISREG(st->st_mode) && now - st->st_mtime < DAY && st->st_mtime <= now + 60;
}

/* Whether the last sweep of `dfd` is a day old or more (or never was);
 * the stamp is moved to now when it is.  A stamp that cannot be written
 * means no sweep: otherwise every save would read the directory. */
static int due(int dfd, time_t now)
{
    struct stat st;
    if (fstatat(dfd, STAMP, &st, AT_SYMLINK_NOFOLLOW) == 0 && fresh(&st, now))
        return 0;
    int fd = openat(dfd, STAMP, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && futimens(fd, NULL) == 0;
    close(fd);
    return ok;
}

void wsx_cache_sweep(const char *dir, const char *keep)
{
    time_t now = time(NULL);
    /* the usual case, a sweep made today, in one stat */
    char *stamp = paths_join(dir, STAMP);
    struct stat st;
    int today = stamp && lstat(stamp, &st) == 0 && fresh(&st, now);
    free(stamp);
    if (today)
        return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd >= 0 && due(dfd, now) ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct dirent *e;
    int removed = 0;
    while (removed < MAX_REMOVE && (e = readdir(d)) != NULL) {
        int tmp = 0;
        if (!ours(e->d_name, &tmp) || (keep && strcmp(e->d_name, keep) == 0))
            continue;
        struct stat f;
        /* links, directories and other users' files are not ours to remove */
        if (fstatat(dfd, e->d_name, &f, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(f.st_mode) ||
            f.st_uid != geteuid())
            continue;
        time_t used = f.st_mtime > f.st_atime ? f.st_mtime : f.st_atime;
        if (now - used > (tmp ? TMP_MAX_AGE : IDX_MAX_AGE) && unlinkat(dfd, e->d_name, 0) == 0)
            removed++;
    }
    if (removed == MAX_REMOVE) {
        /* more may be left: the next sweep is due in an hour */
        struct timespec t[2] = {{now - DAY + 3600, 0}, {now - DAY + 3600, 0}};
        (void)utimensat(dfd, STAMP, t, AT_SYMLINK_NOFOLLOW);
    }
    closedir(d);
}
