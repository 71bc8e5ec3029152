/* The repository neutraliser (gitneutral.h): a strict reader of git's
 * config syntax that keeps an allow-list, and the moves of hooks and
 * configuration files into the set-aside directory.  Every file is
 * reached from a directory descriptor without following symlinks: a
 * command that is still running cannot redirect these writes. */
#include "gitneutral.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "strbuf.h"

#define CONFIG_MAX (1024 * 1024)

static void puts_(vt_strbuf *b, const char *s) { strbuf_append(b, s, strlen(s)); }

/* What a neutralisation says, and how many of its steps left something
 * live. */
typedef struct report {
    vt_strbuf s;
    int failed;
} report;

/* ---- the allow-list ------------------------------------------------------ */

/* Keys that never name a program and that git init, clone and commit
 * write.  `sub`: 0 the section has no subsection, 1 it must have one. */
static const struct {
    const char *section, *key;
    int sub;
} allowed[] = {
    {"core", "repositoryformatversion", 0},
    {"core", "filemode", 0},
    {"core", "bare", 0},
    {"core", "logallrefupdates", 0},
    {"core", "ignorecase", 0},
    {"core", "precomposeunicode", 0},
    {"core", "symlinks", 0},
    {"core", "autocrlf", 0},
    {"core", "eol", 0},
    {"core", "safecrlf", 0},
    {"core", "quotepath", 0},
    {"extensions", "objectformat", 0},
    {"extensions", "refstorage", 0},
    {"user", "name", 0},
    {"user", "email", 0},
    {"init", "defaultbranch", 0},
    {"remote", "url", 1},
    {"remote", "pushurl", 1},
    {"remote", "fetch", 1},
    {"remote", "push", 1},
    {"remote", "tagopt", 1},
    {"branch", "remote", 1},
    {"branch", "merge", 1},
    {"submodule", "url", 1},
    {"submodule", "active", 1},
};

/* `<transport>::<address>` runs the helper git-remote-<transport>, and
 * ext:: runs any command: a URL of that form is not kept. */
static int helper_url(const char *v)
{
    size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return n && v[n] == ':' && v[n + 1] == ':';
}

static int keep(const char *section, const char *sub, const char *key, const char *value)
{
    for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) {
        if (strcmp(allowed[i].section, section) || strcmp(allowed[i].key, key) ||
            allowed[i].sub != (sub != NULL))
            continue;
        if ((!strcmp(key, "url") || !strcmp(key, "pushurl")) && (!value || helper_url(value)))
            return 0;
        return 1;
    }
    return 0;
}

/* ---- the reader ------------------------------------------------------------ */

typedef struct line {
    const char *p, *end;
} line;

static void skip_space(line *l)
{
    while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
        l->p++;
}

/* Nothing but whitespace and a comment left on the line. */
static int line_done(line *l)
{
    skip_space(l);
    return l->p == l->end || *l->p == '#' || *l->p == ';';
}

/* `[name]` or `[name "sub"]`: lower-cased name and the subsection
 * (malloc'd or NULL). */
static int read_section(line *l, char *name, size_t size, char **sub)
{
    *sub = NULL;
    l->p++; /* [ */
    size_t n = 0;
    while (l->p < l->end && (isalnum((unsigned char)*l->p) || *l->p == '-')) {
        if (n + 1 >= size)
            return -1;
        name[n++] = (char)tolower((unsigned char)*l->p++);
    }
    name[n] = '\0';
    if (!n)
        return -1;
    if (l->p < l->end && (*l->p == ' ' || *l->p == '\t')) {
        skip_space(l);
        if (l->p == l->end || *l->p != '"')
            return -1;
        l->p++;
        vt_strbuf b = VT_STRBUF_INIT;
        while (l->p < l->end && *l->p != '"') {
            char c = *l->p++;
            if (c == '\\') {
                if (l->p == l->end || (*l->p != '\\' && *l->p != '"')) {
                    strbuf_reset(&b);
                    return -1;
                }
                c = *l->p++;
            }
            strbuf_append(&b, &c, 1);
        }
        if (b.failed || l->p == l->end) {
            strbuf_reset(&b);
            return -1;
        }
        l->p++; /* closing quote */
        *sub = strbuf_take(&b);
    }
    if (l->p == l->end || *l->p != ']') {
        free(*sub);
        *sub = NULL;
        return -1;
    }
    l->p++;
    if (!line_done(l)) { /* git reads a key here; this reader does not */
        free(*sub);
        *sub = NULL;
        return -1;
    }
    return 0;
}

/* A value as git reads it (config.c parse_value): quotes toggle, a
 * backslash escapes \ " n t b, whitespace outside quotes is kept inside
 * the value (one space each) and dropped at its ends, # and ; outside
 * quotes start a comment.  A continuation line is refused. */
static char *read_value(line *l)
{
    vt_strbuf b = VT_STRBUF_INIT;
    int quote = 0;
    size_t space = 0;
    skip_space(l);
    while (l->p < l->end) {
        char c = *l->p++;
        if (!quote && (c == ';' || c == '#'))
            break;
        if (!quote && isspace((unsigned char)c)) {
            if (b.len)
                space++;
            continue;
        }
        for (; space; space--)
            strbuf_append(&b, " ", 1);
        if (c == '\\') {
            if (l->p == l->end)
                goto bad; /* continuation */
            c = *l->p++;
            switch (c) {
            case 't': c = '\t'; break;
            case 'b': c = '\b'; break;
            case 'n': c = '\n'; break;
            case '\\':
            case '"': break;
            default: goto bad;
            }
            strbuf_append(&b, &c, 1);
            continue;
        }
        if (c == '"') {
            quote = !quote;
            continue;
        }
        strbuf_append(&b, &c, 1);
    }
    if (quote || b.failed)
        goto bad;
    return strbuf_take(&b);
bad:
    strbuf_reset(&b);
    return NULL;
}

static void put_quoted(vt_strbuf *b, const char *v)
{
    puts_(b, "\"");
    for (; *v; v++) {
        switch (*v) {
        case '\\': puts_(b, "\\\\"); break;
        case '"': puts_(b, "\\\""); break;
        case '\n': puts_(b, "\\n"); break;
        case '\t': puts_(b, "\\t"); break;
        case '\b': puts_(b, "\\b"); break;
        default: strbuf_append(b, v, 1);
        }
    }
    puts_(b, "\"");
}

static const char MINIMAL[] = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n"
                              "\tbare = false\n\tlogallrefupdates = true\n";

/* What gitneutral_config carries from line to line. */
typedef struct config_state {
    vt_strbuf kept, gone;
    char section[64];
    char *cur_sub;
    int header_out;         /* the current section's header is in kept */
    gitneutral_key_fn each; /* gitneutral_each: every key to it instead */
    void *ctx;
} config_state;

static void put_kept(config_state *st, const char *key, const char *value)
{
    if (!st->header_out) {
        strbuf_printf(&st->kept, "[%s", st->section);
        if (st->cur_sub) {
            puts_(&st->kept, " ");
            put_quoted(&st->kept, st->cur_sub);
        }
        puts_(&st->kept, "]\n");
        st->header_out = 1;
    }
    strbuf_printf(&st->kept, "\t%s", key);
    if (value) {
        puts_(&st->kept, " = ");
        put_quoted(&st->kept, value);
    }
    puts_(&st->kept, "\n");
}

static void put_gone(config_state *st, const char *key)
{
    if (st->gone.len)
        puts_(&st->gone, ", ");
    strbuf_printf(&st->gone, "%s.", st->section);
    if (st->cur_sub) {
        puts_(&st->gone, st->cur_sub);
        puts_(&st->gone, ".");
    }
    puts_(&st->gone, key);
}

/* A "key" or "key = value" line; -1 when it is not in the syntax read. */
static int config_key(config_state *st, line *l)
{
    char key[128];
    size_t n = 0;
    if (!st->section[0] || !isalpha((unsigned char)*l->p))
        return -1;
    while (l->p < l->end && (isalnum((unsigned char)*l->p) || *l->p == '-') && n + 1 < sizeof key)
        key[n++] = (char)tolower((unsigned char)*l->p++);
    key[n] = '\0';
    char *value = NULL;
    if (!line_done(l)) {
        if (*l->p != '=')
            return -1;
        l->p++;
        if (!(value = read_value(l)))
            return -1;
    }
    if (st->each)
        st->each(st->ctx, st->section, st->cur_sub, key, value);
    else if (keep(st->section, st->cur_sub, key, value))
        put_kept(st, key, value);
    else
        put_gone(st, key);
    free(value);
    return 0;
}

/* One line: blank or a comment, a section header, or a key. */
static int config_line(config_state *st, line *l)
{
    if (line_done(l))
        return 0;
    if (*l->p != '[')
        return config_key(st, l);
    char name[64], *sub = NULL;
    if (read_section(l, name, sizeof name, &sub) != 0) {
        free(sub);
        return -1;
    }
    snprintf(st->section, sizeof st->section, "%s", name);
    free(st->cur_sub);
    st->cur_sub = sub;
    st->header_out = 0;
    return 0;
}

/* A file not in the syntax read is replaced whole. */
static int replace_whole(char **out, char **removed)
{
    *out = strdup(MINIMAL);
    *removed = strdup("the whole file (not in the syntax vthost reads; replaced by a "
                      "minimal configuration)");
    if (!*out || !*removed) {
        free(*out);
        free(*removed);
        *out = *removed = NULL;
        return VT_ERR_NOMEM;
    }
    return 1;
}

/* Every line of a config text through config_line; non-zero when the
 * text is not one git reads (a NUL byte, a line it refuses). */
static int config_walk(config_state *st, const char *text, size_t len)
{
    int bad = memchr(text, '\0', len) != NULL;
    for (const char *p = text, *end = text + len; !bad && p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        line l = {p, nl ? nl : end};
        p = nl ? nl + 1 : end;
        if (l.end > l.p && l.end[-1] == '\r')
            l.end--;
        bad = config_line(st, &l) != 0;
    }
    free(st->cur_sub);
    st->cur_sub = NULL;
    return bad;
}

int gitneutral_config(const char *text, size_t len, char **out, char **removed)
{
    *out = *removed = NULL;
    config_state st = {0};
    int bad = config_walk(&st, text, len);
    if (bad || st.kept.failed || st.gone.failed) {
        strbuf_reset(&st.kept);
        strbuf_reset(&st.gone);
        return bad ? replace_whole(out, removed) : VT_ERR_NOMEM;
    }
    if (!st.gone.len) {
        strbuf_reset(&st.kept);
        return 0;
    }
    *out = strbuf_take(&st.kept);
    *removed = strbuf_take(&st.gone);
    if (*out && *removed)
        return 1;
    free(*out);
    free(*removed);
    *out = *removed = NULL;
    return VT_ERR_NOMEM;
}

int gitneutral_each(const char *text, size_t len, gitneutral_key_fn fn, void *ctx)
{
    config_state st = {.each = fn, .ctx = ctx};
    int bad = config_walk(&st, text, len);
    return bad ? VT_ERR_INVALID : VT_OK;
}

static int read_small(int dirfd_, const char *name, char **text, size_t *len);

/* The digest of the keys the allow-list would remove, in order: a
 * change of what runs programs, not of what git itself writes. */
typedef struct run_digest {
    uint64_t h;
} run_digest;

static void digest_mix(run_digest *d, const char *s)
{
    for (const char *p = s ? s : "\x01"; *p; p++)
        d->h = (d->h ^ (unsigned char)*p) * 1099511628211u;
    d->h = (d->h ^ 0xff) * 1099511628211u;
}

static void digest_key(void *ctx, const char *section, const char *sub, const char *key,
                       const char *value)
{
    if (keep(section, sub, key, value))
        return;
    run_digest *d = ctx;
    digest_mix(d, section);
    digest_mix(d, sub);
    digest_mix(d, key);
    digest_mix(d, value);
}

int gitneutral_run_digest(const char *path, uint64_t *out)
{
    *out = 0;
    char *text = NULL;
    size_t len = 0;
    int rc = read_small(AT_FDCWD, path, &text, &len);
    if (rc == -ENOENT)
        return VT_OK;
    if (rc != 0)
        return rc == VT_ERR_NOMEM ? rc : VT_ERR_INVALID;
    run_digest d = {1469598103934665603u};
    rc = gitneutral_each(text, len, digest_key, &d);
    free(text);
    *out = d.h;
    return rc;
}

/* ---- moves --------------------------------------------------------------- */

static int copy_file(int fromfd, const char *name, int asidefd, const char *newname)
{
    int in = openat(fromfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return -errno;
    int out = openat(asidefd, newname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = out < 0 ? -errno : 0;
    char b[65536];
    ssize_t r;
    while (rc == 0 && (r = read(in, b, sizeof b)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
        } else if (write(out, b, (size_t)r) != r) {
            rc = -EIO;
        }
    }
    close(in);
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

int gitneutral_move_aside(int fromfd, const char *name, int asidefd, const char *newname)
{
    if (renameat(fromfd, name, asidefd, newname) == 0)
        return 0;
    if (errno != EXDEV)
        return -errno;
    struct stat st;
    if (fstatat(fromfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -EXDEV;
    int rc = copy_file(fromfd, name, asidefd, newname);
    if (rc == 0 && unlinkat(fromfd, name, 0) != 0)
        rc = -errno;
    return rc;
}

static void report_add(report *r, const char *label, const char *what)
{
    puts_(&r->s, r->s.len ? "; " : "");
    strbuf_printf(&r->s, "%s: %s", label, what);
}

/* A step that left something git would still run. */
static void report_live(report *r, const char *label, const char *what)
{
    r->failed++;
    report_add(r, label, what);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Every hook git could run: what is in hooks/ but *.sample. */
static void hooks_aside(int gitfd, int asidefd, const char *prefix, const char *label, report *r)
{
    struct stat st;
    char name[512];
    if (fstatat(gitfd, "hooks", &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        /* a hooks symlink leads git elsewhere: the link goes */
        snprintf(name, sizeof name, "%shooks", prefix);
        int rc = gitneutral_move_aside(gitfd, "hooks", asidefd, name);
        char what[768];
        snprintf(what, sizeof what,
                 rc == 0 ? "hooks (not a directory) moved to %s"
                         : "hooks (not a directory) could not be moved "
                           "aside (%s): remove it before running git there",
                 rc == 0 ? name : strerror(-rc));
        (rc == 0 ? report_add : report_live)(r, label, what);
        return;
    }
    int fd = openat(gitfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        if ((n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]))) || ends_with(n, ".sample"))
            continue;
        snprintf(name, sizeof name, "%shooks%%%s", prefix, n);
        int rc = gitneutral_move_aside(dirfd(d), n, asidefd, name);
        char what[1024];
        if (rc == 0)
            snprintf(what, sizeof what, "hook %s moved to %s", n, name);
        else
            snprintf(what, sizeof what,
                     "hook %s could not be moved aside (%s): remove it "
                     "before running git there",
                     n, strerror(-rc));
        (rc == 0 ? report_add : report_live)(r, label, what);
    }
    closedir(d);
}

static int read_small(int dirfd_, const char *name, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd = openat(dirfd_, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX) {
        close(fd);
        return -EFBIG;
    }
    char *t = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    ssize_t r;
    while (t && n < (size_t)st.st_size && (r = read(fd, t + n, (size_t)st.st_size - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!t)
        return VT_ERR_NOMEM;
    t[n] = '\0';
    *text = t;
    *len = n;
    return 0;
}

/* A configuration file: rewritten to what the allow-list keeps, the
 * original moved aside (a hard link first, so that git never sees the
 * file missing). */
static void config_neutral(int gitfd, int asidefd, const char *prefix, const char *label,
                           const char *file, report *r)
{
    struct stat st;
    if (fstatat(gitfd, file, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    char aside[512], what[2048];
    snprintf(aside, sizeof aside, "%s%s", prefix, file);
    if (!S_ISREG(st.st_mode)) {
        /* a symlink or odd file: git would follow it; it goes whole */
        int rc = gitneutral_move_aside(gitfd, file, asidefd, aside);
        snprintf(what, sizeof what,
                 rc == 0 ? "%s (not a regular file) moved to %s"
                         : "%s (not a regular file) could not be moved "
                           "aside (%s)",
                 file, rc == 0 ? aside : strerror(-rc));
        (rc == 0 ? report_add : report_live)(r, label, what);
        return;
    }
    char *text = NULL, *out = NULL, *removed = NULL;
    size_t len = 0;
    int rc = read_small(gitfd, file, &text, &len);
    int changed = rc == 0 ? gitneutral_config(text, len, &out, &removed) : 1;
    free(text);
    if (changed == 0)
        return;
    if (rc != 0 || changed < 0) {
        /* too large or unreadable: moved aside whole */
        rc = gitneutral_move_aside(gitfd, file, asidefd, aside);
        snprintf(what, sizeof what,
                 rc == 0 ? "%s (too large or unreadable) moved to %s"
                         : "%s (too large or unreadable) could not be "
                           "moved aside (%s)",
                 file, rc == 0 ? aside : strerror(-rc));
        (rc == 0 ? report_add : report_live)(r, label, what);
        free(out);
        free(removed);
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s.vthost-%ld", file, (long)getpid());
    /* O_EXCL: a name a command planted (a hard link to a file of the
     * user's) is never written through */
    unlinkat(gitfd, tmp, 0);
    int fd = openat(gitfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    size_t olen = strlen(out);
    rc = fd < 0 ? -errno : write(fd, out, olen) == (ssize_t)olen ? 0 : -EIO;
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && linkat(gitfd, file, asidefd, aside, 0) != 0)
        rc = errno == EXDEV ? copy_file(gitfd, file, asidefd, aside) : -errno;
    if (rc == 0 && renameat(gitfd, tmp, gitfd, file) != 0)
        rc = -errno;
    if (rc != 0) {
        unlinkat(gitfd, tmp, 0);
        /* cannot rewrite it: then it must not stay */
        int mv = gitneutral_move_aside(gitfd, file, asidefd, aside);
        snprintf(what, sizeof what,
                 mv == 0 ? "%s could not be rewritten (%s) and was moved "
                           "to %s whole"
                         : "%s could not be rewritten (%s) nor moved "
                           "aside: remove it before running git there",
                 file, strerror(-rc), aside);
        if (mv != 0)
            r->failed++;
    } else {
        snprintf(what, sizeof what, "%s keys removed (%s), the original moved to %s", file, removed,
                 aside);
    }
    report_add(r, label, what);
    free(out);
    free(removed);
}

int gitneutral_dir(int gitfd, int asidefd, const char *prefix, const char *label, char **out)
{
    report r = {VT_STRBUF_INIT, 0};
    *out = NULL;
    hooks_aside(gitfd, asidefd, prefix, label, &r);
    config_neutral(gitfd, asidefd, prefix, label, "config", &r);
    config_neutral(gitfd, asidefd, prefix, label, "config.worktree", &r);
    int empty = !r.s.len;
    char *text = strbuf_take(&r.s);
    if (!text)
        return VT_ERR_NOMEM;
    if (empty)
        free(text);
    else
        *out = text;
    return r.failed ? 1 : VT_OK;
}
