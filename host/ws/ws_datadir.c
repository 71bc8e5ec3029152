/* vthost's data directories judged where they lead (ws_datadir.h). */
#include "ws_datadir.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "paths.h"
#include "strutil.h"
#include "ws_index.h"

/* Why the entry `name` of the directory `dfd` cannot be trusted, or
 * NULL; a missing entry is fine. */
static const char *untrusted_at(int dfd, const char *name, int want_dir)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return NULL;
    if (S_ISLNK(st.st_mode))
        return "is a symbolic link";
    if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        return want_dir ? "is not a directory" : "is not a regular file";
    if (st.st_uid != geteuid())
        return "belongs to another user";
    if (st.st_mode & 022)
        return "is writable by other users";
    return NULL;
}

static int refuse(char **err, const char *path, const char *why)
{
    *err = str_printf("vthost's data directory %s %s: another user or a command could forge "
                      "what vthost keeps there (the workspace index, the anti-blind-editing "
                      "count, the checks owed). Remove it, or point XDG_CACHE_HOME and "
                      "XDG_STATE_HOME at directories of your own (mode 0700), and start again.",
                      path, why);
    return VT_ERR_DENIED;
}

/* `base` (the vthost directory, "$XDG_*_HOME/vthost"), its subdirectory
 * `sub` and the file `file` in it. */
static int check_one(const char *base, const char *sub, const char *file, char **err)
{
    char *dir = str_printf("%s/%s", base, sub);
    if (!dir || paths_mkdirs(dir, 0700) != VT_OK) {
        free(dir);
        return VT_OK; /* cannot be made: nothing is kept there either */
    }
    free(dir);
    char real[PATH_MAX];
    if (!realpath(base, real))
        return VT_OK;
    char *parent = strdup(real), *slash = parent ? strrchr(parent, '/') : NULL;
    int rc = VT_OK;
    struct stat st;
    if (slash) {
        *slash = '\0';
        const char *pp = parent[0] ? parent : "/";
        if (stat(pp, &st) == 0 && st.st_uid != geteuid() && st.st_uid != 0)
            rc = refuse(err, pp, "belongs to another user, who can rename what is in it");
        else if (stat(pp, &st) == 0 && (st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
            rc = refuse(err, pp,
                        "lets other users rename what is in it (writable by all, no sticky bit)");
    }
    int pfd = rc == VT_OK && slash
                  ? open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC)
                  : -1;
    const char *why = pfd >= 0 ? untrusted_at(pfd, slash + 1, 1) : NULL;
    if (why)
        rc = refuse(err, real, why);
    int bfd = rc == VT_OK && pfd >= 0
                  ? openat(pfd, slash + 1, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                  : -1;
    if (bfd >= 0 && (why = untrusted_at(bfd, sub, 1))) {
        char *p = str_printf("%s/%s", real, sub);
        rc = refuse(err, p ? p : real, why);
        free(p);
    }
    int sfd = rc == VT_OK && bfd >= 0
                  ? openat(bfd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                  : -1;
    if (sfd >= 0 && file && (why = untrusted_at(sfd, file, 0))) {
        char *p = str_printf("%s/%s/%s", real, sub, file);
        rc = refuse(err, p ? p : real, why);
        free(p);
    }
    if (sfd >= 0)
        close(sfd);
    if (bfd >= 0)
        close(bfd);
    if (pfd >= 0)
        close(pfd);
    free(parent);
    return rc;
}

int ws_datadir_check(const char *root, char **err)
{
    *err = NULL;
    char key[17];
    ws_index_key(root, key);
    char *idx = str_printf("%s.idx", key), *guard = str_printf("%s.json", key);
    char *cache = ws_index_cache_dir(), *state = ws_index_state_dir();
    int rc = VT_OK;
    if (cache && idx)
        rc = check_one(cache, "wsindex", idx, err);
    if (rc == VT_OK && state && guard)
        rc = check_one(state, "guard", guard, err);
    if (rc == VT_OK && state)
        rc = check_one(state, "owed", NULL, err);
    free(idx);
    free(guard);
    free(cache);
    free(state);
    return rc;
}
