/* Git directories as git recognises them (ws_gitdir.h).  The rules are
 * git's; each function below names the part of git it follows. */
#include "ws_gitdir.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"
#include "strutil.h"

/* git reads at most this much of a HEAD (validate_headref) and of a
 * gitfile (read_gitfile_gently: larger ones are refused). */
#define HEAD_READ 255
#define GITFILE_MAX (1 << 20)

/* `len` bytes at most of the file `path` (followed, as git opens it),
 * NUL-terminated (malloc'd), or NULL.  *n: the bytes read. */
static char *read_head_of(const char *path, size_t len, size_t *n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *b = malloc(len + 1);
    size_t got = 0;
    while (b && got < len) {
        ssize_t r = read(fd, b + got, len - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (b)
        b[got] = '\0';
    *n = got;
    return b;
}

static int hex40(const char *s)
{
    for (int i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* validate_headref: a "refs/..." symlink, a symbolic ref ("ref:", any
 * whitespace, "refs/"), or a detached object name (SHA-1's 40 hex digits
 * start SHA-256's 64 too; git reads either case). */
int ws_gitdir_headref(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISLNK(st.st_mode)) {
        char t[HEAD_READ + 1];
        ssize_t n = readlink(path, t, HEAD_READ);
        return n >= 5 && !memcmp(t, "refs/", 5);
    }
    size_t n = 0;
    char *b = read_head_of(path, HEAD_READ, &n);
    if (!b)
        return 0;
    int ok = 0;
    if (!strncmp(b, "ref:", 4)) {
        const char *r = b + 4;
        while (isspace((unsigned char)*r))
            r++;
        ok = !strncmp(r, "refs/", 5);
    }
    if (!ok)
        ok = n >= 40 && hex40(b);
    free(b);
    return ok;
}

/* get_common_dir: $GIT_COMMON_DIR, else what `dir`/commondir names
 * (trailing newlines dropped, relative to `dir`, made canonical; git
 * dies when it cannot, so that is no git directory: -1), else `dir`.
 * *common (malloc'd) is set only for a commondir file. */
static int common_dir(const char *dir, char **common, char **which)
{
    *common = NULL;
    const char *env = getenv("GIT_COMMON_DIR");
    if (env) {
        *which = strdup(env);
        return *which ? 0 : -1;
    }
    char *file = str_printf("%s/commondir", dir);
    struct stat st;
    if (!file || stat(file, &st) != 0) {
        free(file);
        *which = strdup(dir);
        return *which ? 0 : -1;
    }
    size_t n = 0;
    char *data = read_head_of(file, PATH_MAX, &n);
    free(file);
    while (data && n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
        data[--n] = '\0';
    char *joined = !data || !n ? NULL : data[0] == '/' ? strdup(data) : paths_join(dir, data);
    free(data);
    char *real = joined ? realpath(joined, NULL) : NULL;
    free(joined);
    if (!real)
        return -1;
    *common = real;
    *which = strdup(real);
    return *which ? 0 : -1;
}

/* access(X_OK) of `dir`/`name`, as git tests objects/ and refs/. */
static int enterable(const char *dir, const char *name)
{
    char *p = str_printf("%s/%s", dir, name);
    int ok = p && access(p, X_OK) == 0;
    free(p);
    return ok;
}

/* is_git_directory */
int ws_gitdir_judge(const char *dir, char **common)
{
    if (common)
        *common = NULL;
    char *head = str_printf("%s/HEAD", dir);
    int ok = head && ws_gitdir_headref(head);
    free(head);
    if (!ok)
        return 0;
    char *cd = NULL, *which = NULL;
    if (common_dir(dir, &cd, &which) != 0) {
        free(cd);
        return 0;
    }
    const char *objenv = getenv("GIT_OBJECT_DIRECTORY");
    ok = (objenv ? access(objenv, X_OK) == 0 : enterable(which, "objects")) &&
         enterable(which, "refs");
    free(which);
    if (ok && common)
        *common = cd;
    else
        free(cd);
    return ok;
}

/* read_gitfile_gently: a regular file (followed) of at most 1 MiB
 * starting "gitdir: ", trailing newlines dropped, naming a git
 * directory relative to the file's own directory. */
int ws_gitdir_gitfile(const char *path, char **gitdir)
{
    if (gitdir)
        *gitdir = NULL;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > GITFILE_MAX)
        return 0;
    size_t n = 0;
    char *b = read_head_of(path, (size_t)st.st_size, &n);
    if (!b || strncmp(b, "gitdir: ", 8)) {
        free(b);
        return 0;
    }
    while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
        b[--n] = '\0';
    char *dir = NULL;
    const char *slash = strrchr(path, '/');
    if (n >= 9)
        dir = b[8] == '/' || !slash ? strdup(b + 8)
                                    : str_printf("%.*s%s", (int)(slash + 1 - path), path, b + 8);
    free(b);
    int ok = dir && ws_gitdir_judge(dir, NULL);
    if (ok && gitdir && !(*gitdir = realpath(dir, NULL)))
        ok = 0;
    free(dir);
    return ok;
}
