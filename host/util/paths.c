/* Workspace path resolution.  A path is resolved through every symlink
 * and must land inside the workspace; with VT_RESOLVE_NO_SYMLINKS any
 * symlink on the way is refused, even one that stays inside. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "paths.h"

char *paths_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    char *r = malloc(la + lb + 2);
    if (!r)
        return NULL;
    memcpy(r, a, la);
    r[la] = '/';
    memcpy(r + la + 1, b, lb + 1);
    return r;
}

int paths_is_within(const char *root, const char *path)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return path[0] == '/';
    return strncmp(root, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int has_control_chars(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* Lexically normalise an absolute path: collapse "//", ".", "..". */
static void normalise_lexically(char *p)
{
    char *out = p, *in = p;
    while (*in) {
        while (*in == '/')
            in++;
        if (!*in)
            break;
        char *seg = in;
        while (*in && *in != '/')
            in++;
        size_t len = (size_t)(in - seg);
        if (len == 1 && seg[0] == '.')
            continue;
        if (len == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/')
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, seg, len);
        out += len;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

/* With NO_SYMLINKS: lstat every component below root. */
static int check_no_symlinks(const char *root, const char *lexical)
{
    size_t n = strlen(root);
    char buf[PATH_MAX];
    if (strlen(lexical) >= sizeof buf)
        return VT_ERR_INVALID;
    strcpy(buf, lexical);
    for (char *p = buf + n; *p; p++) {
        if (*p != '/' || p == buf + n)
            continue;
        *p = '\0';
        struct stat st;
        int rc = lstat(buf, &st);
        *p = '/';
        if (rc == 0 && S_ISLNK(st.st_mode))
            return VT_ERR_OUTSIDE;
    }
    struct stat st;
    if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode))
        return VT_ERR_OUTSIDE;
    return VT_OK;
}

/* Canonicalise a path whose tail may not exist yet: realpath of the
 * longest existing prefix, then the remaining components. */
static int canonicalise(const char *lexical, char **out)
{
    char *r = realpath(lexical, NULL);
    if (r) {
        *out = r;
        return VT_OK;
    }
    if (errno != ENOENT && errno != ENOTDIR)
        return VT_ERR_IO;
    char *copy = strdup(lexical);
    if (!copy)
        return VT_ERR_NOMEM;
    char *slash = strrchr(copy, '/');
    while (slash && slash != copy) {
        *slash = '\0';
        r = realpath(copy, NULL);
        if (r) {
            char *joined = paths_join(r, lexical + (slash - copy) + 1);
            free(r);
            free(copy);
            if (!joined)
                return VT_ERR_NOMEM;
            *out = joined;
            return VT_OK;
        }
        slash = strrchr(copy, '/');
    }
    free(copy);
    return VT_ERR_NOT_FOUND;
}

int paths_resolve(const char *root, const char *path, unsigned flags, char **out)
{
    *out = NULL;
    if (!path || !*path || has_control_chars(path))
        return VT_ERR_INVALID;
    char *abs = path[0] == '/' ? strdup(path) : paths_join(root, path);
    if (!abs)
        return VT_ERR_NOMEM;
    normalise_lexically(abs);
    if (!paths_is_within(root, abs)) {
        free(abs);
        return VT_ERR_OUTSIDE;
    }
    int rc = VT_OK;
    if (flags & VT_RESOLVE_NO_SYMLINKS)
        rc = check_no_symlinks(root, abs);
    char *canon = NULL;
    if (rc == VT_OK)
        rc = canonicalise(abs, &canon);
    free(abs);
    if (rc != VT_OK)
        return rc;
    if (!paths_is_within(root, canon)) {
        free(canon);
        return VT_ERR_OUTSIDE;
    }
    struct stat st;
    if ((flags & (VT_RESOLVE_MUST_EXIST | VT_RESOLVE_DIRECTORY)) && stat(canon, &st) != 0) {
        free(canon);
        return VT_ERR_NOT_FOUND;
    }
    if ((flags & VT_RESOLVE_DIRECTORY) && !S_ISDIR(st.st_mode)) {
        free(canon);
        return VT_ERR_INVALID;
    }
    *out = canon;
    return VT_OK;
}

char *paths_xdg_dir(const char *var, const char *fallback, const char *name)
{
    /* joined by hand, not by printf: a start that only looks files up
     * (`vthost tools` from its cache) then never faults printf's code in */
    const char *v = getenv(var), *home = getenv("HOME");
    if (v && v[0] == '/')
        return paths_join(v, name);
    if (!home || home[0] != '/')
        return NULL;
    char *base = paths_join(home, fallback);
    char *r = base ? paths_join(base, name) : NULL;
    free(base);
    return r;
}

char *paths_xdg_vthost(const char *var, const char *fallback)
{
    return paths_xdg_dir(var, fallback, "vthost");
}

int paths_mkdirs(const char *abs_dir, int mode)
{
    char buf[PATH_MAX];
    if (strlen(abs_dir) >= sizeof buf)
        return VT_ERR_INVALID;
    strcpy(buf, abs_dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
            return VT_ERR_IO;
        *p = '/';
    }
    if (mkdir(buf, (mode_t)mode) != 0 && errno != EEXIST)
        return VT_ERR_IO;
    return VT_OK;
}

/* Trees a project never lives in: with one as the workspace the sandbox
 * would let commands write system files, and trust would cover them. */
static const char *const system_trees[] = {"/usr", "/etc", "/var",  "/boot", "/bin", "/sbin",
                                           "/opt", "/run", "/proc", "/sys",  "/dev", "/snap"};

static int under(const char *dir, const char *top)
{
    size_t n = strlen(top);
    return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

const char *paths_holds_homes(const char *dir, const char *passwd)
{
    static const char *const why = "a directory of users' home directories";
    if (strcmp(dir, "/home") == 0 || strcmp(dir, "/Users") == 0)
        return why;
    FILE *f = passwd ? fopen(passwd, "re") : NULL;
    if (!f)
        return NULL;
    char line[4096], last[PATH_MAX] = "", *real = NULL;
    const char *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        /* name:password:uid:gid:gecos:home:shell */
        char *h = line;
        for (int field = 0; field < 5 && h; field++)
            h = (h = strchr(h, ':')) ? h + 1 : NULL;
        char *end = h ? strchr(h, ':') : NULL;
        char *slash = end ? memrchr(h, '/', (size_t)(end - h)) : NULL;
        if (!h || h[0] != '/' || !slash || slash == h || (size_t)(slash - h) >= sizeof last)
            continue; /* no home, or one directly below / (refused already) */
        *slash = '\0';
        /* dir holds this home when it is the home's parent or above it,
         * as written or through links (the parent, once per parent) */
        if (strcmp(h, last) != 0) {
            snprintf(last, sizeof last, "%s", h);
            free(real);
            real = realpath(h, NULL);
        }
        if (under(h, dir) || (real && under(real, dir)))
            found = why;
    }
    free(real);
    fclose(f);
    return found;
}

const char *paths_unsafe_workspace(const char *dir, const char *home)
{
    if (!dir || dir[0] != '/')
        return "not an absolute path";
    if (strcmp(dir, "/") == 0)
        return "the root directory";
    for (size_t i = 0; i < sizeof system_trees / sizeof *system_trees; i++)
        if (under(dir, system_trees[i]))
            return "inside a system directory";
    /* /lib, /lib32, /lib64, /libx32 and the like */
    if (strncmp(dir, "/lib", 4) == 0)
        return "inside a system directory";
    if (home && home[0] == '/' && strcmp(home, "/") != 0) {
        if (under(home, dir))
            return strcmp(home, dir) == 0 ? "the home directory" : "above the home directory";
        size_t n = strlen(home);
        if (under(dir, home) && dir[n] == '/' && dir[n + 1] == '.')
            return "inside a hidden directory of the home directory";
    }
    return paths_holds_homes(dir, "/etc/passwd");
}

const char *paths_vtcode_refusal(const char *workspace)
{
    int root = workspace ? open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    if (root < 0)
        return NULL;
    struct statx ws, vt;
    const char *why = NULL;
    unsigned mask = STATX_TYPE | STATX_MNT_ID;
    if (statx(root, "", AT_EMPTY_PATH, mask, &ws) != 0) {
        close(root);
        return NULL;
    }
    if (statx(root, ".vtcode", AT_SYMLINK_NOFOLLOW, mask, &vt) != 0)
        why = errno == ENOENT ? NULL : "cannot be examined";
    else if (S_ISLNK(vt.stx_mode))
        why = "a symbolic link";
    else if (!S_ISDIR(vt.stx_mode))
        why = "not a directory";
    else if (vt.stx_dev_major != ws.stx_dev_major || vt.stx_dev_minor != ws.stx_dev_minor ||
             ((vt.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
              (vt.stx_attributes & STATX_ATTR_MOUNT_ROOT)) ||
             ((vt.stx_mask & ws.stx_mask & STATX_MNT_ID) && vt.stx_mnt_id != ws.stx_mnt_id))
        why = "another filesystem or a mount";
    close(root);
    return why;
}
