/* What a verification run changed: its build output, or the project's
 * sources.  A run that rewrites sources (a model-written Makefile whose
 * recipe writes src*.c) has made blind edits of its own, so it must not
 * reset the count; one that only leaves object files, libraries and
 * ignored files behind verified what was there.
 *
 * Build output is known by name (object files, archives, libraries,
 * dependency and coverage files), by its first bytes (ELF, ar) or by the
 * .gitignore files of its directories, read as the run left them: a run
 * that changes a .gitignore has changed a source.  The paths come from
 * the workspace index or the snapshot diff, which already leave out the
 * tools' and build directories (ws_index_noise). */
#include "guard_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "beneath.h"
#include "perm_match.h"
#include "rx.h"
#include "strutil.h"

#define IGNORE_FILE_MAX (256 * 1024)

static const char *const output_suffixes[] = {".o",     ".obj",  ".a",     ".so",  ".lo",  ".la",
                                              ".d",     ".gcno", ".gcda",  ".pyc", ".pyo", ".class",
                                              ".dylib", ".dll",  ".exe",   ".out", ".pdb", ".ilk",
                                              ".wasm",  ".rlib", ".rmeta", ".gch", ".pch", NULL};

typedef struct ig_rule {
    pcre2_code *re;
    int negate, dir_only;
} ig_rule;

/* The rules of one directory's .gitignore (dir workspace-relative, "" for
 * the root). */
typedef struct ig_dir {
    char *dir;
    ig_rule *v;
    size_t n, cap;
} ig_dir;

typedef struct ig_cache {
    int root;
    const char *workspace;
    ig_dir *d;
    size_t n, cap;
} ig_cache;

static int has_output_name(const char *rel)
{
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    size_t bl = strlen(base);
    for (size_t i = 0; output_suffixes[i]; i++) {
        size_t sl = strlen(output_suffixes[i]);
        if (bl > sl && !strcmp(base + bl - sl, output_suffixes[i]))
            return 1;
    }
    return strstr(base, ".so.") != NULL; /* libfoo.so.1.2 */
}

/* 1: a directory or a binary build product as the run left it. */
static int is_output_file(int root, const char *rel)
{
    struct stat st;
    if (fstatat(root, rel, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return 1; /* the files made in it are listed on their own */
    if (!S_ISREG(st.st_mode))
        return 0;
    int fd = beneath_open(root, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    char b[8] = {0};
    ssize_t r = read(fd, b, sizeof b);
    close(fd);
    return (r >= 4 && !memcmp(b, "\177ELF", 4)) || (r == 8 && !memcmp(b, "!<arch>\n", 8));
}

static char *read_ignore_file(int root, const char *dir)
{
    char *rel = *dir ? str_printf("%s/.gitignore", dir) : strdup(".gitignore");
    int fd = rel ? beneath_open(root, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0) : -1;
    free(rel);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > IGNORE_FILE_MAX) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got < 0) {
        free(text);
        return NULL;
    }
    text[got] = '\0';
    return text;
}

/* One .gitignore line as a workspace path pattern (perm_compile_path's
 * "/..." form, which also matches what lies below a match). */
static int add_line(ig_dir *d, const char *workspace, char *line)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r')
        line[--len] = '\0';
    while (len && line[len - 1] == ' ' && !(len > 1 && line[len - 2] == '\\'))
        line[--len] = '\0';
    if (!len || line[0] == '#')
        return 0;
    ig_rule r = {0};
    if (line[0] == '!') {
        r.negate = 1;
        line++;
        len--;
    } else if (line[0] == '\\' && (line[1] == '#' || line[1] == '!')) {
        line++;
        len--;
    }
    while (len && line[len - 1] == '/') {
        r.dir_only = 1;
        line[--len] = '\0';
    }
    int anchored = line[0] == '/' || strchr(line, '/') != NULL;
    while (line[0] == '/')
        line++;
    if (!*line)
        return 0;
    char *spec = str_printf("/%s%s%s%s", d->dir, *d->dir ? "/" : "", anchored ? "" : "**/", line);
    perm_path_base base;
    char *key = NULL, *err = NULL;
    int rc = spec ? perm_compile_path(spec, workspace, NULL, &base, &r.re, &key, &err) : -1;
    free(spec);
    free(key);
    free(err);
    if (rc != 0)
        return 0; /* git skips a pattern it cannot read, too */
    if (VT_GROW(&d->v, &d->cap, d->n + 1) != 0) {
        rx_code_free(r.re);
        return -1;
    }
    d->v[d->n++] = r;
    return 0;
}

static ig_dir *dir_rules(ig_cache *c, const char *dir)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->d[i].dir, dir))
            return &c->d[i];
    if (VT_GROW(&c->d, &c->cap, c->n + 1) != 0)
        return NULL;
    ig_dir *d = &c->d[c->n];
    *d = (ig_dir){.dir = strdup(dir)};
    if (!d->dir)
        return NULL;
    c->n++;
    char *text = read_ignore_file(c->root, dir);
    for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save))
        if (add_line(d, c->workspace, line) != 0)
            break;
    free(text);
    return d;
}

/* Last matching rule of the .gitignore files from the root down to the
 * path's own directory: 1 ignored, 0 not. */
static int ignored(ig_cache *c, const char *rel)
{
    char *abs = str_printf("%s/%s", c->workspace, rel);
    char *dir = strdup(rel);
    const char *slash = strrchr(rel, '/');
    /* a directory-only rule matches a directory the path lies in */
    char *parent = slash ? str_printf("%s/%.*s", c->workspace, (int)(slash - rel), rel) : NULL;
    pcre2_match_data *md = NULL;
    int verdict = 0;
    for (size_t end = 0; abs && dir;) {
        char save = dir[end];
        dir[end] = '\0';
        ig_dir *d = dir_rules(c, dir);
        dir[end] = save;
        for (size_t i = 0; d && i < d->n; i++) {
            const char *subject = d->v[i].dir_only ? parent : abs;
            if (!md)
                md = rx_match_data_create_from_pattern(d->v[i].re);
            if (md && subject && perm_regex_match(d->v[i].re, subject, md) == 1)
                verdict = !d->v[i].negate;
        }
        const char *next = strchr(rel + end + (end ? 1 : 0), '/');
        if (!next)
            break;
        end = (size_t)(next - rel);
    }
    rx_match_data_free(md);
    free(parent);
    free(abs);
    free(dir);
    return verdict;
}

static int is_ignore_file(const char *rel)
{
    const char *base = strrchr(rel, '/');
    return !strcmp(base ? base + 1 : rel, ".gitignore");
}

size_t guard_output_sources(const char *workspace, char *const *paths, size_t n,
                            const char **sources, size_t max_sources)
{
    ig_cache c = {.root = -1, .workspace = workspace};
    if (workspace)
        c.root = open(workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    size_t found = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rel = paths[i];
        int output = c.root >= 0 && rel && rel[0] != '(' && !is_ignore_file(rel) &&
                     (has_output_name(rel) || is_output_file(c.root, rel) || ignored(&c, rel));
        if (output)
            continue;
        if (found < max_sources && sources)
            sources[found] = rel;
        found++;
    }
    for (size_t i = 0; i < c.n; i++) {
        for (size_t j = 0; j < c.d[i].n; j++)
            rx_code_free(c.d[i].v[j].re);
        free(c.d[i].v);
        free(c.d[i].dir);
    }
    free(c.d);
    if (c.root >= 0)
        close(c.root);
    return found;
}
