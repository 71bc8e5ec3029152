/* Matching a program's argv against the guard's lists.  The argv comes
 * from the exec plugin's report of what actually ran, so there is no
 * shell syntax left to interpret here: one program, its words. */
#include "guard_match.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "perm_commands.h"
#include "rx.h"
#include "strutil.h"

typedef struct rule {
    char **words; /* prefix rule */
    size_t nwords;
    pcre2_code *re; /* or a pattern */
} rule;

struct guard_rules {
    rule *v;
    size_t n, cap;
};

/* Verify nothing, but may stand beside a verification ("make | tail"). */
static const char *const neutral[] = {
    "tail", "head", "grep",   "egrep",  "fgrep", "rg",    "cat",  "sort", "uniq", "wc",
    "cut",  "tr",   "echo",   "printf", "true",  "sleep", "date", "pwd",  "ls",   "which",
    "test", "[",    "column", "nl",     "less",  "more",  "tput", "sed",  "awk",  NULL};

size_t guard_split_words(const char *s, char ***out)
{
    size_t n = 0, cap = 0;
    char **v = NULL;
    /* an empty text still gives an (empty) array: callers free it */
    if (VT_GROW(&v, &cap, 1) != 0)
        v = NULL;
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (VT_GROW(&v, &cap, n + 1) != 0)
            break;
        v[n++] = strndup(s, (size_t)(e - s));
        s = e;
    }
    *out = v;
    return v ? n : 0;
}

void guard_free_words(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int guard_rules_new(guard_rules **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? VT_OK : VT_ERR_NOMEM;
}

void guard_rules_free(guard_rules *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        guard_free_words(r->v[i].words, r->v[i].nwords);
        rx_code_free(r->v[i].re);
    }
    free(r->v);
    free(r);
}

int guard_rules_add(guard_rules *rs, const char *text, char **err)
{
    rule r = {0};
    if (strncmp(text, "re:", 3) == 0) {
        int ec;
        PCRE2_SIZE off;
        r.re = rx_compile((PCRE2_SPTR)(text + 3), PCRE2_ZERO_TERMINATED, PCRE2_UTF, &ec, &off);
        if (!r.re) {
            PCRE2_UCHAR msg[256];
            rx_error_message(ec, msg, sizeof msg);
            *err = str_printf("[tools.anti_blind_editing] verification rule '%s': %s at "
                              "offset %zu",
                              text, (char *)msg, (size_t)off);
            return VT_ERR_INVALID;
        }
    } else {
        r.nwords = guard_split_words(text, &r.words);
        if (r.nwords == 0) {
            guard_free_words(r.words, 0);
            *err = str_printf("[tools.anti_blind_editing] verification rule '%s' is empty", text);
            return VT_ERR_INVALID;
        }
    }
    /* Doubling: the default set alone is some eighty rules, read at every
     * start; growing one by one left a trail of freed blocks over several
     * fresh heap pages. */
    if (VT_GROW(&rs->v, &rs->cap, rs->n + 1) != 0) {
        guard_free_words(r.words, r.nwords);
        rx_code_free(r.re);
        return VT_ERR_NOMEM;
    }
    rs->v[rs->n++] = r;
    return VT_OK;
}

static const char *base_name(const char *w)
{
    const char *s = strrchr(w, '/');
    return s ? s + 1 : w;
}

static int in(const char *w, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return 1;
    return 0;
}

static int rule_matches(const rule *r, char *const *w, size_t nw)
{
    if (r->re) {
        size_t len = 0;
        for (size_t i = 0; i < nw; i++)
            len += strlen(i ? w[i] : base_name(w[i])) + 1;
        char *joined = malloc(len + 1), *p = joined;
        if (!joined)
            return 0;
        for (size_t i = 0; i < nw; i++)
            p += sprintf(p, "%s%s", i ? " " : "", i ? w[i] : base_name(w[i]));
        *p = '\0';
        pcre2_match_data *md = rx_match_data_create_from_pattern(r->re);
        int m =
            md ? rx_match(r->re, (PCRE2_SPTR)joined, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) : -1;
        rx_match_data_free(md);
        free(joined);
        return m >= 0;
    }
    if (nw < r->nwords)
        return 0;
    for (size_t i = 0; i < r->nwords; i++)
        if (strcmp(i == 0 ? base_name(w[i]) : w[i], r->words[i]) != 0)
            return 0;
    return 1;
}

/* The program a chain of wrappers runs: its argv (borrowed, or split
 * from a wrapper's command string into *own), or NULL when there is none. */
static char *const *unwrap(char *const *argv, size_t *argc, char ***own, size_t *nown)
{
    const char *text = NULL;
    size_t k = perm_cmd_unwrap(argv, *argc, &text);
    *own = NULL;
    *nown = 0;
    if (k < *argc) {
        *argc -= k;
        return argv + k;
    }
    if (!text)
        return NULL;
    /* su -c 'make test': the words of the string, once more unwrapped */
    *nown = guard_split_words(text, own);
    k = perm_cmd_unwrap(*own, *nown, &text);
    if (k >= *nown)
        return NULL;
    *argc = *nown - k;
    return *own + k;
}

int guard_classify(const guard_rules *r, char *const *argv, size_t argc, const char *cwd)
{
    char **own;
    size_t nown;
    argv = unwrap(argv, &argc, &own, &nown);
    int k = -1;
    if (!argv || perm_cmd_not_verifying(argv, argc, cwd))
        k = 0; /* a wrapper alone, assignments, or a run that checks nothing */
    for (size_t i = 0; k < 0 && r && i < r->n; i++)
        if (rule_matches(&r->v[i], argv, argc))
            k = 1;
    if (k < 0 && in(base_name(argv[0]), neutral) &&
        !(strcmp(base_name(argv[0]), "sed") == 0 && guard_known_writer(argv, argc, NULL)))
        k = 0;
    guard_free_words(own, nown);
    return k;
}

int guard_known_writer(char *const *argv, size_t argc, const char **what)
{
    static const char wrapped_text[] = "a wrapper's command";
    const char *dummy;
    if (!what)
        what = &dummy;
    char **own;
    size_t nown;
    argv = unwrap(argv, &argc, &own, &nown);
    const char *p = argv ? base_name(argv[0]) : NULL;
    /* *what is static for the caller: a word split from a string is not */
    *what = p && own ? wrapped_text : p;
    perm_write_mode how = p ? perm_cmd_writer(p) : PERM_W_NONE;
    int w = 0;
    if (!p) {
        w = 0;
    } else if (how == PERM_W_INPLACE) {
        for (size_t i = 1; i < argc && !w; i++)
            w = perm_cmd_in_place(p, argv[i]);
    } else if (!strcmp(p, "tee")) {
        for (size_t i = 1; i < argc && !w; i++)
            w = argv[i][0] != '-' || !argv[i][1];
    } else if (how != PERM_W_NONE) {
        w = 1;
    } else if (!strcmp(p, "git")) {
        const perm_global_opts *g = perm_cmd_global_opts("git", 3);
        for (size_t i = 1; i < argc; i++) {
            if (argv[i][0] == '-') {
                for (const char *const *o = g->arg_opts; *o; o++)
                    if (!strcmp(argv[i], *o)) {
                        i++;
                        break;
                    }
                continue;
            }
            w = perm_cmd_git_writer(argv[i]);
            break;
        }
    }
    guard_free_words(own, nown);
    return w;
}
