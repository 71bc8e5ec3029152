/* Command patterns, wrapper look-through and domains.  Path patterns are
 * in perm_path.c. */
#include "perm_match.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
static int compile_re(const char *src, size_t len, pcre2_code **re, char **err,
                      const char *pat)
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

static void limits_init(void)
{
    limits = rx_match_context_create(200000, 10000);
}

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

typedef struct wrapper {
    const char *name;
    const char *const *arg_opts; /* options that take a separate argument */
    int positional;              /* leading non-option words to skip */
    int only_flagless;           /* looked through only without options */
} wrapper;

static const char *const env_opts[] = {"-u", "--unset", "-C", "--chdir", "-S", "--split-string", NULL};
static const char *const timeout_opts[] = {"-s", "--signal", "-k", "--kill-after", NULL};
static const char *const nice_opts[] = {"-n", "--adjustment", NULL};
static const char *const time_opts[] = {"-f", "--format", "-o", "--output", NULL};
static const char *const stdbuf_opts[] = {"-i", "-o", "-e", "--input", "--output", "--error", NULL};
static const char *const sudo_opts[] = {"-u", "--user", "-g", "--group", "-C", "-D", "-h", "-p", "-r", "-t", NULL};
static const char *const none_opts[] = {NULL};

static const wrapper wrappers[] = {
    {"env", env_opts, 0, 0},       {"timeout", timeout_opts, 1, 0},
    {"nice", nice_opts, 0, 0},     {"nohup", none_opts, 0, 0},
    {"time", time_opts, 0, 0},     {"command", none_opts, 0, 0},
    {"stdbuf", stdbuf_opts, 0, 0}, {"xargs", none_opts, 0, 1},
    {"exec", none_opts, 0, 0},     {"builtin", none_opts, 0, 0},
    {"sudo", sudo_opts, 0, 0},     {"doas", sudo_opts, 0, 0},
    {"ionice", none_opts, 0, 0},   {"chrt", none_opts, 1, 0},
    {"setsid", none_opts, 0, 0},   {"unbuffer", none_opts, 0, 0},
};

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

static int word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(w, s, len) == 0;
}

/* Skip a wrapper's options and positional words; NULL when the words do
 * not look like a use of that wrapper. */
static const char *skip_wrapper(const wrapper *wr, const char *p)
{
    int saw_opt = 0;
    while (*p && *p == '-') {
        size_t len = word_len(p);
        saw_opt = 1;
        if (word_is(p, len, "--")) {
            p = next_word(p);
            break;
        }
        int takes = 0;
        for (const char *const *o = wr->arg_opts; *o; o++)
            if (word_is(p, len, *o))
                takes = 1;
        p = next_word(p);
        if (takes && *p)
            p = next_word(p);
    }
    if (saw_opt && wr->only_flagless)
        return NULL;
    if (strcmp(wr->name, "env") == 0)
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
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        char **nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            free(s);
            return VT_ERR_NOMEM;
        }
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = s;
    return 0;
}

int perm_command_variants(const char *cmd, char ***out, size_t *count)
{
    char **v = NULL;
    size_t n = 0, cap = 0;
    const char *p = cmd;
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
        for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++)
            if (word_is(name, nlen, wrappers[i].name))
                next = skip_wrapper(&wrappers[i], next_word(p));
        if (p != start && *p && push(&v, &n, &cap, strdup(p)) < 0)
            goto nomem;
        if (!next)
            break;
        if (push(&v, &n, &cap, strdup(next)) < 0)
            goto nomem;
        p = next;
    }
    *out = v;
    *count = n;
    return 0;
nomem:
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
    return hl > dl && host[hl - dl - 1] == '.' &&
           strncasecmp(domain, host + hl - dl, dl) == 0;
}
