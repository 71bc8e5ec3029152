/* Old index files go: every workspace ever searched leaves one in the
 * cache directory (temporary checkouts too), and a process killed while
 * saving leaves its temporary file. */
#include "cs_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DAY (24 * 3600)
#define IDX_MAX_AGE (30 * DAY) /* not written nor used for that long */
#define TMP_MAX_AGE 3600       /* a save takes far less */

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

void cs_index_sweep(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "code_search-", 12) != 0)
            continue;
        int tmp = ends_with(e->d_name, ".tmp");
        if (!tmp && !ends_with(e->d_name, ".idx"))
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (now - st.st_mtime > (tmp ? TMP_MAX_AGE : IDX_MAX_AGE))
            (void)unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

void cs_index_touch(int fd, const struct stat *st)
{
    /* An index in use stays: its time moves at most once a day. */
    if (time(NULL) - st->st_mtime > DAY)
        (void)futimens(fd, NULL);
}
