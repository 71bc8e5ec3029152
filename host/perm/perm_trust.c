/* Workspace trust: reading [trust] and adding to it in place. */
#include "fd_write.h"
#include "paths.h"
#include "perm_strict.h"
#include "perm_trust.h"
#include "strutil.h"
#include "toml_reader.h"
#include "ws_index.h"
#include "ws_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

char *perm_trust_user_config(void)
{
    char *dir = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
    char *file = dir ? paths_join(dir, "vtcode.toml") : NULL;
    free(dir);
    return file;
}

static char *where(const char *path, const char *dotted)
{
    int line = 0;
    if (path && toml_key_line(path, dotted, &line) == 0 && line > 0)
        return str_printf("%s:%d", path, line);
    return strdup(path ? path : "vtcode.toml");
}

int perm_trust_check(const cJSON *tree, const char *path, char **err)
{
    static const char *const keys[] = {"workspaces", NULL};
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tree, "trust");
    if (!t)
        return 0;
    char *w = NULL;
    if (!cJSON_IsObject(t)) {
        w = where(path, "trust");
        *err = str_printf("%s: trust must be a table ([trust] workspaces = [...])", w);
        free(w);
        return VT_ERR_INVALID;
    }
    int rc = perm_strict_keys(t, "trust", keys, path, err);
    if (rc)
        return rc;
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(t, "workspaces"), *it;
    int ok = !ws || cJSON_IsArray(ws);
    cJSON_ArrayForEach(it, ws) ok &= cJSON_IsString(it) && it->valuestring[0] != 0;
    if (ok)
        return 0;
    w = where(path, "trust.workspaces");
    *err = str_printf("%s: trust.workspaces must be an array of directory paths", w);
    free(w);
    return VT_ERR_INVALID;
}

/* An entry made canonical: ~/ expanded, symlinks resolved when it exists. */
static char *canonical(const char *p)
{
    char *expanded = NULL;
    const char *home = getenv("HOME");
    if (p[0] == '~' && (p[1] == '/' || !p[1]) && home)
        expanded = str_printf("%s%s", home, p + 1);
    char *real = realpath(expanded ? expanded : p, NULL);
    if (!real)
        real = strdup(expanded ? expanded : p);
    free(expanded);
    size_t n = real ? strlen(real) : 0;
    while (n > 1 && real[n - 1] == '/')
        real[--n] = 0;
    return real;
}

int perm_trust_listed(const cJSON *tree, const char *workspace)
{
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tree, "trust"), "workspaces");
    const cJSON *it;
    cJSON_ArrayForEach(it, ws)
    {
        if (!cJSON_IsString(it))
            continue;
        char *c = canonical(it->valuestring);
        int same = c && strcmp(c, workspace) == 0;
        free(c);
        if (same)
            return 1;
    }
    return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* DIR as a TOML string: a literal string when it can be one. */
static char *toml_string(const char *s)
{
    int literal = 1;
    for (const char *p = s; *p; p++)
        if (*p == '\'' || (unsigned char)*p < 0x20 || *p == 0x7f)
            literal = 0;
    if (literal)
        return str_printf("'%s'", s);
    char *out = malloc(strlen(s) * 6 + 3);
    if (!out)
        return NULL;
    char *o = out;
    *o++ = '"';
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += sprintf(o, "\\u%04x", c);
        } else {
            *o++ = (char)c;
        }
    }
    *o++ = '"';
    *o = 0;
    return out;
}

/* Byte offset of (line, column in characters), or -1. */
static long offset_of(const char *text, int line, int col)
{
    const char *p = text;
    for (int l = 1; l < line; l++) {
        p = strchr(p, '\n');
        if (!p)
            return -1;
        p++;
    }
    for (int c = 1; c < col && *p && *p != '\n'; c++) {
        p++;
        while (((unsigned char)*p & 0xC0) == 0x80)
            p++;
    }
    return (long)(p - text);
}

/* From the '[' at `at`, the offset of its matching ']' (strings and
 * comments skipped); *empty says whether the array holds no value and
 * *comma whether its last value is followed by a comma.  -1 if none. */
static long array_end(const char *t, long at, int *empty, int *comma)
{
    int depth = 0;
    *empty = 1;
    *comma = 0;
    for (long i = at; t[i]; i++) {
        char c = t[i];
        if (c == '#') {
            while (t[i] && t[i] != '\n')
                i++;
            if (!t[i])
                return -1;
            continue;
        }
        if (c == '"' || c == '\'') {
            int triple = t[i + 1] == c && t[i + 2] == c;
            *empty = 0;
            *comma = 0;
            i += triple ? 3 : 1;
            for (; t[i]; i++) {
                if (c == '"' && t[i] == '\\' && t[i + 1]) {
                    i++;
                    continue;
                }
                if (t[i] == c && (!triple || (t[i + 1] == c && t[i + 2] == c))) {
                    i += triple ? 2 : 0;
                    break;
                }
            }
            if (!t[i])
                return -1;
            continue;
        }
        if (c == '[')
            depth++;
        else if (c == ']' && --depth == 0)
            return i;
        else if (c == ',')
            *comma = 1;
        else if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && depth >= 1) {
            *empty = 0;
            *comma = 0;
        }
    }
    return -1;
}

static int write_atomic(const char *path, const char *text, mode_t mode)
{
    char *tmp = str_printf("%s.vthost-%ld.tmp", path, (long)getpid());
    if (!tmp)
        return VT_ERR_NOMEM;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    int rc = fd < 0 ? VT_ERR_IO : 0;
    if (rc == 0 && fd_write_all(fd, text, strlen(text)) != 0)
        rc = VT_ERR_IO;
    if (fd >= 0) {
        if (rc == 0 && fsync(fd) != 0)
            rc = VT_ERR_IO;
        close(fd);
    }
    if (rc == 0 && rename(tmp, path) != 0)
        rc = VT_ERR_IO;
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* The new text of `path` (holding `text`, parsed as `tree`) with `lit`
 * added to trust.workspaces, or NULL with *msg. */
static char *edited(const char *path, const char *text, const cJSON *tree, const char *lit,
                    char **msg)
{
    const cJSON *trust = cJSON_GetObjectItemCaseSensitive(tree, "trust");
    const cJSON *ws = cJSON_GetObjectItemCaseSensitive(trust, "workspaces");
    size_t len = strlen(text);
    int nl = len && text[len - 1] != '\n';
    if (!trust)
        return str_printf("%s%s\n[trust]\nworkspaces = [%s]\n", text, nl ? "\n" : "", lit);
    int line = 0, col = 0;
    if (ws) {
        long at = toml_key_position(path, "trust.workspaces", &line, &col) == 0
                      ? offset_of(text, line, col)
                      : -1;
        int empty, comma;
        long end = at >= 0 && text[at] == '[' ? array_end(text, at, &empty, &comma) : -1;
        if (end < 0)
            return NULL;
        return str_printf("%.*s%s%s%s", (int)end, text, empty || comma ? " " : ", ", lit,
                          text + end);
    }
    /* [trust] without workspaces: a line after the table's header */
    long at = toml_key_position(path, "trust", &line, &col) == 0 ? offset_of(text, line, 1) : -1;
    if (at < 0)
        return NULL;
    const char *h = text + at;
    while (*h == ' ' || *h == '\t')
        h++;
    if (h[0] != '[' || h[1] == '[')
        return NULL;
    const char *eol = strchr(h, '\n');
    if (!eol)
        return str_printf("%s\nworkspaces = [%s]\n", text, lit);
    (void)msg;
    return str_printf("%.*s\nworkspaces = [%s]%s", (int)(eol - text), text, lit, eol);
}

static char *refused_path(const char *path, struct stat *st)
{
    if (!path || lstat(path, st) != 0)
        return NULL;
    return ws_layout_refused_path(st);
}

char *perm_trust_refused(const char *path)
{
    struct stat st, rs;
    char *rec = refused_path(path, &st);
    /* the inode is what was refused: the same file however edited since
     * (a session that outlives its call may still write to it) */
    if (rec && lstat(rec, &rs) == 0 && S_ISREG(rs.st_mode))
        return rec;
    free(rec);
    return NULL;
}

int perm_trust_refused_clear(const char *path)
{
    char *rec = perm_trust_refused(path);
    int removed = rec && unlink(rec) == 0;
    free(rec);
    return removed;
}

/* The directory to trust, canonical (*real, malloc'd): a directory, and
 * not one whose trust would cover system or personal files. */
static int trust_target(const char *dir, char **real, char **msg)
{
    struct stat sb;
    *real = realpath(dir, NULL);
    if (!*real || stat(*real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        *msg = str_printf("cannot trust '%s': not a directory", dir);
        return VT_ERR_INVALID;
    }
    const char *home = getenv("HOME");
    char *h = home && *home ? realpath(home, NULL) : NULL;
    const char *why = paths_unsafe_workspace(*real, h);
    free(h);
    if (why) {
        *msg = str_printf("will not trust %s: it is %s. Trust a project directory instead "
                          "(vthost trust /path/to/project)",
                          *real, why);
        return VT_ERR_INVALID;
    }
    return 0;
}

/* The user configuration's text (*text, malloc'd; "" when there is none
 * yet, and its directory is made) and its mode, kept by the rewrite. */
static int read_config(char *path, char **text, mode_t *mode, char **msg)
{
    struct stat sb;
    *mode = 0600;
    FILE *f = fopen(path, "rb");
    if (f) {
        *text = file_read_all(f);
        if (fstat(fileno(f), &sb) == 0)
            *mode = sb.st_mode & 07777;
        fclose(f);
        return 0;
    }
    if (errno != ENOENT) {
        *msg = str_printf("cannot read %s: %s", path, strerror(errno));
        return VT_ERR_IO;
    }
    *text = strdup("");
    char *slash = strrchr(path, '/');
    *slash = 0;
    int rc = paths_mkdirs(path, 0700);
    *slash = '/';
    return rc;
}

/* Write `text` with `real` added to [trust] workspaces (`tree` is its
 * parse, `lit` the TOML string of `real`), and say so in *msg. */
static int write_listed(const char *path, const char *text, const cJSON *tree, const char *lit,
                        const char *real, mode_t mode, char **msg)
{
    cJSON *check = NULL;
    char *out = edited(path, text, tree, lit, msg);
    int rc = 0;
    if (!out || toml_read_string(out, path, &check, NULL) != 0 || !perm_trust_listed(check, real)) {
        /* the edit must parse and say what we meant, or nothing is written */
        *msg = str_printf("cannot add %s to [trust] in %s automatically: add it to "
                          "workspaces = [...] by hand",
                          real, path);
        rc = VT_ERR_UNSUPPORTED;
    } else if ((rc = write_atomic(path, out, mode)) != 0) {
        *msg = str_printf("cannot write %s: %s", path, strerror(errno));
    } else {
        *msg = str_printf("trusted %s: its own allow rules, [permissions.auto] settings and "
                          "agents now apply (%s)",
                          real, path);
    }
    cJSON_Delete(check);
    free(out);
    return rc;
}

/* Add `real` to the workspaces of [trust] in the user configuration
 * `path` (its `text` and `mode`), unless it is there already. */
static int add_listed(const char *path, const char *text, const char *real, mode_t mode, char **msg)
{
    cJSON *tree = NULL;
    char *lit = toml_string(real);
    int rc = lit ? toml_read_string(text, path, &tree, msg) : VT_ERR_NOMEM;
    if (rc == 0)
        rc = perm_trust_check(tree, path, msg);
    if (rc == 0 && perm_trust_listed(tree, real))
        *msg = str_printf("%s is already trusted (%s)", real, path);
    else if (rc == 0)
        rc = write_listed(path, text, tree, lit, real, mode, msg);
    cJSON_Delete(tree);
    free(lit);
    return rc;
}

/* Trusted after review: a refused vtcode.toml there applies again. */
static void clear_refused(const char *real, char **msg)
{
    char *toml = str_printf("%s/vtcode.toml", real);
    if (toml && perm_trust_refused_clear(toml)) {
        char *m =
            str_printf("%s; its vtcode.toml, which a command made, is no longer refused", *msg);
        if (m) {
            free(*msg);
            *msg = m;
        }
    }
    free(toml);
}

int perm_trust_add(const char *dir, char **msg)
{
    *msg = NULL;
    char *real = NULL, *path = NULL, *text = NULL;
    mode_t mode;
    int rc = trust_target(dir, &real, msg);
    if (rc == 0 && !(path = perm_trust_user_config())) {
        *msg = str_printf("cannot trust '%s': no home directory (set HOME)", dir);
        rc = VT_ERR_INVALID;
    }
    if (rc == 0)
        rc = read_config(path, &text, &mode, msg);
    if (rc == 0)
        rc = text ? add_listed(path, text, real, mode, msg) : VT_ERR_NOMEM;
    if (rc == 0)
        clear_refused(real, msg);
    if (rc != 0 && !*msg && real)
        *msg = str_printf("cannot trust %s (error %d)", real, rc);
    free(text);
    free(path);
    free(real);
    return rc;
}
