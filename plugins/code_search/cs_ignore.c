/* gitignore patterns are translated to anchored PCRE2 regexes:
 *   *  -> [^/]*     ?  -> [^/]     [..] -> a class     ** -> any depth
 * A pattern without an inner slash matches a name at any depth; one with
 * a leading or inner slash is anchored at the file's directory.  The last
 * matching rule wins, so negations re-include. */
#include "cs_ignore.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

typedef struct sbuf {
    char *s;
    size_t n, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (VT_GROW(&b->s, &b->cap, b->n + n + 1) != 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}
#define PUTS(b, lit) put((b), (lit), sizeof(lit) - 1)

static void put_lit(sbuf *b, char c)
{
    if (strchr("\\^$.|?*+()[]{}", c))
        put(b, "\\", 1);
    put(b, &c, 1);
}

/* Translate glob p[0..n) (no leading/trailing slash handling) to regex. */
static void translate(sbuf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '*' && i + 1 < n && p[i + 1] == '*') {
            int at_start = i == 0 || p[i - 1] == '/';
            size_t j = i + 2;
            if (at_start && j < n && p[j] == '/') { /* "**" + "/" */
                PUTS(b, "(?:.*/)?");
                i = j;
            } else if (at_start && j == n) { /* trailing "**" */
                PUTS(b, ".*");
                i = j - 1;
            } else { /* plain: like * */
                PUTS(b, "[^/]*");
                i++;
            }
        } else if (c == '*') {
            PUTS(b, "[^/]*");
        } else if (c == '?') {
            PUTS(b, "[^/]");
        } else if (c == '[') {
            size_t j = i + 1;
            if (j < n && (p[j] == '!' || p[j] == '^'))
                j++;
            if (j < n && p[j] == ']')
                j++;
            while (j < n && p[j] != ']')
                j++;
            if (j >= n) { /* no class: literal */
                put_lit(b, c);
                continue;
            }
            PUTS(b, "[");
            size_t k = i + 1;
            if (p[k] == '!' || p[k] == '^') {
                PUTS(b, "^");
                k++;
            }
            for (; k < j; k++) {
                if (p[k] == '\\' || p[k] == '[' || (p[k] == ']' && k > i + 1))
                    put(b, "\\", 1);
                put(b, &p[k], 1);
            }
            PUTS(b, "]");
            i = j;
        } else if (c == '\\' && i + 1 < n) {
            put_lit(b, p[++i]);
        } else {
            put_lit(b, c);
        }
    }
}

static int add_rule(cs_ignore *ig, const char *line, size_t n)
{
    cs_rule r = {0};
    if (n && line[0] == '!') {
        r.negate = 1;
        line++;
        n--;
    }
    if (n && line[n - 1] == '/') {
        r.dir_only = 1;
        n--;
    }
    if (!n)
        return 0;
    int anchored = memchr(line, '/', n) != NULL;
    if (line[0] == '/') {
        line++;
        n--;
    }
    sbuf b = {0};
    if (anchored)
        PUTS(&b, "^");
    else
        PUTS(&b, "^(?:.*/)?");
    translate(&b, line, n);
    PUTS(&b, "$");
    if (b.oom) {
        free(b.s);
        return VT_ERR_NOMEM;
    }
    int errc;
    PCRE2_SIZE off;
    r.re = pcre2_compile((PCRE2_SPTR)b.s, b.n, PCRE2_DOTALL, &errc, &off, NULL);
    free(b.s);
    if (!r.re)
        return 0; /* a malformed pattern is ignored, as git does */
    if (VT_GROW(&ig->v, &ig->cap, ig->n + 1) != 0) {
        pcre2_code_free(r.re);
        return VT_ERR_NOMEM;
    }
    ig->v[ig->n++] = r;
    return 0;
}

int cs_ignore_parse(cs_ignore *ig, const char *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - text) : len;
        const char *l = text + i;
        size_t n = e - i;
        i = e + 1;
        if (n && l[n - 1] == '\r')
            n--;
        /* Trailing spaces go unless escaped with a backslash. */
        while (n && l[n - 1] == ' ' && !(n >= 2 && l[n - 2] == '\\'))
            n--;
        if (!n || l[0] == '#')
            continue;
        int rc = add_rule(ig, l, n);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int cs_ignore_load(cs_ignore *ig, int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1 << 22)) {
        close(fd);
        return 0;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        close(fd);
        return VT_ERR_NOMEM;
    }
    ssize_t got = read(fd, buf, (size_t)st.st_size);
    close(fd);
    int rc = got > 0 ? cs_ignore_parse(ig, buf, (size_t)got) : 0;
    free(buf);
    return rc;
}

pcre2_match_data *cs_ignore_md(void) { return pcre2_match_data_create(4, NULL); }

int cs_ignore_match(const cs_ignore *ig, const char *rel, size_t len, int is_dir,
                    pcre2_match_data *md)
{
    for (size_t i = ig->n; i-- > 0;) {
        const cs_rule *r = &ig->v[i];
        if (r->dir_only && !is_dir)
            continue;
        if (pcre2_match(r->re, (PCRE2_SPTR)rel, len, 0, 0, md, NULL) >= 0)
            return r->negate ? 0 : 1;
    }
    return -1;
}

void cs_ignore_free(cs_ignore *ig)
{
    for (size_t i = 0; i < ig->n; i++)
        pcre2_code_free(ig->v[i].re);
    free(ig->v);
    memset(ig, 0, sizeof *ig);
}
