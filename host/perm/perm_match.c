/* Command patterns, wrapper look-through and domains.  Path patterns are
 * in perm_path.c. */
#include "perm_commands.h"
#include "perm_match.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

static char *fmt_err(const char *what, const char *pat)
{
    char *s = NULL;
    if (asprintf(&s, "%s in pattern \"%s\"", what, pat) < 0)
        return NULL;
    return s;
}

/* Compile an anchored PCRE2 pattern and JIT it: rules are compiled once
 * and matched on every decision. */
static int compile_re(const char *src, size_t len, pcre2_code **re, char **err, const char *pat)
{
    int ec;
    PCRE2_SIZE off;
    *re = rx_compile((PCRE2_SPTR)src, len,
                     PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_DOTALL | PCRE2_UTF |
                         PCRE2_MATCH_INVALID_UTF,
                     &ec, &off);
    if (!*re) {
        PCRE2_UCHAR msg[160];
        rx_error_message(ec, msg, sizeof msg);
        char *m = NULL;
        if (asprintf(&m, "%s", (char *)msg) >= 0) {
            *err = fmt_err(m, pat);
            free(m);
        }
        return VT_ERR_INVALID;
    }
    rx_jit_compile(*re, PCRE2_JIT_COMPLETE); /* best effort */
    return 0;
}

/* Append c to the regex buffer, escaped when not alphanumeric. */
static void put_lit(char *out, size_t *n, char c)
{
    if (!isalnum((unsigned char)c) && !((unsigned char)c & 0x80))
        out[(*n)++] = '\\';
    out[(*n)++] = c;
}

char *perm_command_normalise(const char *cmd)
{
    size_t len = strlen(cmd);
    char *out = malloc(len + 1), q = 0;
    size_t n = 0;
    if (!out)
        return NULL;
    int pending_space = 0;
    for (const char *p = cmd; *p; p++) {
        char c = *p;
        if (!q && (c == ' ' || c == '\t')) {
            pending_space = n > 0;
            continue;
        }
        if (pending_space) {
            out[n++] = ' ';
            pending_space = 0;
        }
        if (q) {
            if (c == q)
                q = 0;
            else if (c == '\\' && q == '"' && p[1])
                out[n++] = *p++;
        } else if (c == '\'' || c == '"') {
            q = c;
        } else if (c == '\\' && p[1]) {
            out[n++] = *p++;
        }
        out[n++] = *p;
    }
    out[n] = 0;
    return out;
}

int perm_compile_command(const char *pat, pcre2_code **re, char **key, char **err)
{
    *re = NULL;
    *key = NULL;
    char *norm = perm_command_normalise(pat);
    if (!norm)
        return VT_ERR_NOMEM;
    size_t len = strlen(norm);
    /* Claude Code's prefix form, Bash(npm run test:*): the words, then
     * anything (`rm:*` is `rm *`). */
    if (len > 2 && strcmp(norm + len - 2, ":*") == 0 && norm[len - 3] != ' ')
        norm[len - 2] = ' ';
    if (len == 0) {
        free(norm);
        *err = fmt_err("empty command", pat);
        return VT_ERR_INVALID;
    }
    int tail_any = len >= 2 && strcmp(norm + len - 2, " *") == 0;
    size_t body = tail_any ? len - 2 : len;
    char *src = malloc(body * 2 + 16);
    if (!src) {
        free(norm);
        return VT_ERR_NOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < body; i++) {
        if (norm[i] == '*') {
            memcpy(src + n, ".*", 2);
            n += 2;
        } else {
            put_lit(src, &n, norm[i]);
        }
    }
    if (tail_any) {
        /* ` *` at the end: the bare command too, and only at a word
         * boundary (`cargo check *` is not `cargo checkout`). */
        memcpy(src + n, "(?: .*)?", 8);
        n += 8;
    }
    int rc = compile_re(src, n, re, err, pat);
    free(src);
    if (rc == 0) {
        size_t w = strcspn(norm, " ");
        if (memchr(norm, '*', w) == NULL)
            *key = strndup(norm, w);
    }
    free(norm);
    return rc;
}

/* Bounds the work of one match: `*` patterns against long subjects could
 * otherwise backtrack for a long time.  Created once, then shared
 * read-only by all threads. */
static pcre2_match_context *limits;
static pthread_once_t limits_once = PTHREAD_ONCE_INIT;

static void limits_init(void) { limits = rx_match_context_create(200000, 10000); }

int perm_regex_match(const pcre2_code *re, const char *s, pcre2_match_data *md)
{
    pthread_once(&limits_once, limits_init);
    int rc = rx_match(re, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, md, limits);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

void perm_first_word(const char *cmd, char *buf, size_t size)
{
    size_t w = strcspn(cmd, " ");
    if (w >= size)
        w = size - 1;
    memcpy(buf, cmd, w);
    buf[w] = 0;
}

/* ---- wrapper look-through --------------------------------------------- */

/* End of the word starting at p (quote-aware). */
static const char *word_end(const char *p)
{
    char q = 0;
    for (; *p; p++) {
        if (q) {
            if (*p == q)
                q = 0;
            else if (*p == '\\' && q == '"' && p[1])
                p++;
        } else if (*p == '\'' || *p == '"') {
            q = *p;
        } else if (*p == '\\' && p[1]) {
            p++;
        } else if (*p == ' ' || *p == '\t') {
            break;
        }
    }
    return p;
}

/* Start of the next word after the one at p, or the end. */
static const char *next_word(const char *p)
{
    p = word_end(p);
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static size_t word_len(const char *p) { return (size_t)(word_end(p) - p); }

static int is_assignment(const char *w, size_t len)
{
    if (len == 0 || !(isalpha((unsigned char)w[0]) || w[0] == '_'))
        return 0;
    for (size_t i = 1; i < len; i++) {
        if (w[i] == '=')
            return 1;
        if (!(isalnum((unsigned char)w[i]) || w[i] == '_'))
            return 0;
    }
    return 0;
}

/* The word at p without its quotes (a command string: su -c 'rm x'),
 * collapsed like a command text.  malloc'd. */
static char *unquote_word(const char *p)
{
    size_t len = word_len(p);
    char *raw = malloc(len + 1), q = 0;
    size_t n = 0;
    if (!raw)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (q) {
            if (c == q) {
                q = 0;
                continue;
            }
            if (c == '\\' && q == '"' && i + 1 < len)
                c = p[++i];
        } else if (c == '\'' || c == '"') {
            q = c;
            continue;
        } else if (c == '\\' && i + 1 < len) {
            c = p[++i];
        }
        raw[n++] = c;
    }
    raw[n] = 0;
    char *norm = perm_command_normalise(raw);
    free(raw);
    return norm;
}

/* The first byte the word at p stands for once the shell removed its
 * quotes ('-' for '--x=a b' too, as the exec plugin renders a word with a
 * blank), '$' for an expansion whose value nobody knows yet ($X, "$X",
 * `cmd`), 0 for an empty word. */
static char word_head(const char *p)
{
    size_t len = word_len(p);
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '\'' || p[i] == '"')
            continue;
        if (p[i] == '`')
            return '$';
        if (p[i] == '\\' && i + 1 < len)
            return p[i + 1];
        return p[i];
    }
    return 0;
}

/* Skip a wrapper's options and positional words; NULL when the words do
 * not look like a use of that wrapper.  A command option (su -c CMD)
 * holds the program in one word: *own receives that word's command
 * text (malloc'd), returned. */
static const char *skip_wrapper(const perm_wrapper *wr, const char *p, char **own)
{
    for (const char *q = p; wr->cmd_opts && *q; q = next_word(q))
        if (perm_cmd_wrapper_opt(wr, q, word_len(q)) == 2) {
            q = next_word(q);
            *own = *q ? unquote_word(q) : NULL;
            return *own && **own ? *own : NULL;
        }
    int saw_opt = 0;
    while (*p && word_head(p) == '-') {
        char *opt = unquote_word(p);
        if (!opt)
            return NULL;
        saw_opt = 1;
        int end = !strcmp(opt, "--");
        int takes = !end && perm_cmd_wrapper_opt(wr, opt, strlen(opt)) == 1;
        free(opt);
        p = next_word(p);
        if (end)
            break;
        if (takes && *p)
            p = next_word(p);
    }
    if (saw_opt && wr->only_flagless)
        return NULL;
    if (wr->assignments)
        while (*p && is_assignment(p, word_len(p)))
            p = next_word(p);
    for (int i = 0; i < wr->positional && *p; i++)
        p = next_word(p);
    return *p ? p : NULL;
}

static int push(char ***v, size_t *n, size_t *cap, char *s)
{
    if (!s)
        return VT_ERR_NOMEM;
    if (VT_GROW(v, cap, *n + 1) != 0) {
        free(s);
        return VT_ERR_NOMEM;
    }
    (*v)[(*n)++] = s;
    return 0;
}

/* How many later words an unknown global option makes the matcher try
 * as the subcommand.  The program itself refuses an option it does not
 * know, so one the table misses is a real option of a newer version:
 * the subcommand is then a word or two further on, never dozens. */
#define GLOBAL_TRIES 64

/* `git -C . -c k=v push x` -> `git push x`: the program's name followed
 * by the words from its subcommand on.  An option the table does not
 * know may take a value, which would make the word read as the
 * subcommand its value and hide the real one: from the first such
 * option on, every later word that is no option is tried as the
 * subcommand too (these variants are matched by deny and ask rules
 * only, so this can only make them hold more often). */
static int push_global_variants(const perm_global_opts *g, const char *name, size_t nlen,
                                const char *args, char ***v, size_t *n, size_t *cap)
{
    const char *p = args, *unknown = NULL;
    for (char h; *p && ((h = word_head(p)) == '-' || h == '$' || (g->plus_word && h == '+'));) {
        /* an expansion before the subcommand may be any option */
        char *opt = h == '$' ? NULL : unquote_word(p);
        if (h != '$' && !opt)
            return VT_ERR_NOMEM;
        int end = opt && !strcmp(opt, "--");
        int takes = end ? 0 : opt ? perm_cmd_global_opt(g, opt, strlen(opt)) : -1;
        free(opt);
        p = next_word(p);
        if (end)
            break;
        if (takes < 0 && !unknown)
            unknown = p;
        if (takes > 0 && *p)
            p = next_word(p);
    }
    char *s = NULL;
    if (p != args && *p &&
        (asprintf(&s, "%.*s %s", (int)nlen, name, p) < 0 || push(v, n, cap, s) < 0))
        return VT_ERR_NOMEM;
    for (int tries = 0; unknown && *unknown && tries < GLOBAL_TRIES; unknown = next_word(unknown)) {
        if (word_head(unknown) == '-' || unknown == p)
            continue;
        tries++;
        if (asprintf(&s, "%.*s %s", (int)nlen, name, unknown) < 0 || push(v, n, cap, s) < 0)
            return VT_ERR_NOMEM;
    }
    return 0;
}

/* su -c 'ls; rm x': each list member of the string `own` (a wrapper's
 * command text, or NULL) as a command of its own. */
static int push_list_members(const char *own, char ***v, size_t *n, size_t *cap)
{
    if (!own || !strpbrk(own, ";&|\n"))
        return 0;
    for (const char *q = own; *q;) {
        size_t k = strcspn(q, ";&|\n"), t = k;
        while (t && q[t - 1] == ' ')
            t--;
        if (t && push(v, n, cap, strndup(q, t)) < 0)
            return -1;
        q += k;
        q += strspn(q, ";&|\n ");
    }
    return 0;
}

int perm_command_variants(const char *cmd, char ***out, size_t *count)
{
    char **v = NULL, *own = NULL;
    size_t n = 0, cap = 0;
    const char *p = cmd;
    /* An exec tool's own shell argument (subject "shell:ARG") is a
     * program like any other: deny and ask rules see its base name. */
    if (strncmp(cmd, "shell:", 6) == 0 && cmd[6]) {
        const char *b = strrchr(cmd + 6, '/');
        if (push(&v, &n, &cap, strdup(b && b[1] ? b + 1 : cmd + 6)) < 0)
            goto nomem;
    }
    for (int guard = 0; guard < 16 && *p; guard++) {
        const char *start = p;
        while (*p && is_assignment(p, word_len(p)))
            p = next_word(p);
        size_t len = word_len(p);
        /* /usr/bin/rm -> rm */
        const char *slash = memrchr(p, '/', len);
        if (slash && slash + 1 < p + len) {
            char *s = NULL;
            if (asprintf(&s, "%s", slash + 1) < 0 || push(&v, &n, &cap, s) < 0)
                goto nomem;
        }
        const char *name = slash ? slash + 1 : p;
        size_t nlen = slash ? (size_t)(p + len - name) : len;
        const char *next = NULL;
        const perm_wrapper *wr = perm_cmd_wrapper(name, nlen);
        char *prev = own; /* p may point into it until this step ends */
        own = NULL;
        if (wr)
            next = skip_wrapper(wr, next_word(p), &own);
        const perm_global_opts *g = perm_cmd_global_opts(name, nlen);
        if (g && push_global_variants(g, name, nlen, next_word(p), &v, &n, &cap) < 0) {
            free(prev);
            goto nomem;
        }
        int bad = p != start && *p && push(&v, &n, &cap, strdup(p)) < 0;
        bad = bad || (next && push(&v, &n, &cap, strdup(next)) < 0);
        bad = bad || push_list_members(own, &v, &n, &cap) < 0;
        free(prev);
        if (bad)
            goto nomem;
        if (!next)
            break;
        p = next;
    }
    free(own);
    *out = v;
    *count = n;
    return 0;
nomem:
    free(own);
    perm_strings_free(v, n);
    return VT_ERR_NOMEM;
}

void perm_strings_free(char **v, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(v[i]);
    free(v);
}

int perm_domain_match(const char *domain, const char *host)
{
    size_t dl = strlen(domain), hl = strlen(host);
    if (hl && host[hl - 1] == '.')
        hl--; /* fully qualified form */
    if (hl == dl)
        return strncasecmp(domain, host, dl) == 0;
    return hl > dl && host[hl - dl - 1] == '.' && strncasecmp(domain, host + hl - dl, dl) == 0;
}
