/* Matching a program's argv against the guard's lists.  The argv comes
 * from the exec plugin's report of what actually ran, so there is no
 * shell syntax left to interpret here: one program, its words. */
#include "guard_match.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
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

/* Flags that make any program print and stop, or only pretend. */
static const char *const idle_flags[] = {
    "--version",    "--help",  "-h",       "-?",        "--dry-run",
    "--just-print", "--recon", "--dryrun", "--what-if", NULL};

size_t guard_split_words(const char *s, char ***out)
{
    size_t n = 0, cap = 4;
    char **v = malloc(cap * sizeof *v);
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (n == cap) {
            char **q = realloc(v, (cap *= 2) * sizeof *v);
            if (!q)
                break;
            v = q;
        }
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
    if (rs->n == rs->cap) {
        /* Doubling: the default set alone is some eighty rules, read at
         * every start; growing one by one left a trail of freed blocks
         * over several fresh heap pages. */
        size_t cap = rs->cap ? rs->cap * 2 : 64;
        rule *q = realloc(rs->v, cap * sizeof *q);
        if (!q) {
            guard_free_words(r.words, r.nwords);
            rx_code_free(r.re);
            return VT_ERR_NOMEM;
        }
        rs->v = q;
        rs->cap = cap;
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

static int is_assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return 0;
    for (const char *c = w; c < eq; c++)
        if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (c > w && *c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

/* Options of a wrapper that take a separate value. */
static int takes_value(const char *wrapper, const char *opt)
{
    if (!strcmp(wrapper, "env"))
        return !strcmp(opt, "-u") || !strcmp(opt, "-C") || !strcmp(opt, "-S");
    if (!strcmp(wrapper, "nice"))
        return !strcmp(opt, "-n");
    if (!strcmp(wrapper, "timeout"))
        return !strcmp(opt, "-s") || !strcmp(opt, "-k");
    if (!strcmp(wrapper, "stdbuf"))
        return !strcmp(opt, "-i") || !strcmp(opt, "-o") || !strcmp(opt, "-e");
    if (!strcmp(wrapper, "ionice"))
        return !strcmp(opt, "-c") || !strcmp(opt, "-n");
    return 0;
}

/* The index of the program a chain of wrappers (and leading NAME=VALUE
 * words) finally runs, or argc when there is none. */
static size_t wrapped(char *const *argv, size_t argc)
{
    static const char *const wrappers[] = {"env",  "nice",   "timeout", "stdbuf", "nohup",
                                           "time", "ionice", "command", NULL};
    size_t i = 0;
    while (i < argc) {
        while (i < argc && is_assignment(argv[i]))
            i++;
        if (i == argc || !in(base_name(argv[i]), wrappers))
            return i;
        const char *w = base_name(argv[i++]);
        while (i < argc && argv[i][0] == '-' && argv[i][1]) {
            int sep = !strcmp(argv[i], "--");
            i += takes_value(w, argv[i]) ? 2 : 1;
            if (sep)
                break;
        }
        if (!strcmp(w, "timeout") && i < argc)
            i++; /* the duration */
    }
    return i;
}

static int idle(char *const *argv, size_t argc)
{
    for (size_t i = 1; i < argc; i++) {
        if (in(argv[i], idle_flags) || !strncmp(argv[i], "--dry-run=", 10))
            return 1;
        /* -n is a dry run (make, ninja, go) unless it takes a count
         * (pytest-xdist's -n 4, -n auto). */
        if (!strcmp(argv[i], "-n")) {
            const char *next = i + 1 < argc ? argv[i + 1] : "";
            if (!(next[0] >= '0' && next[0] <= '9') && strcmp(next, "auto") &&
                strcmp(next, "logical"))
                return 1;
        }
    }
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

int guard_classify(const guard_rules *r, char *const *argv, size_t argc)
{
    size_t k = wrapped(argv, argc);
    if (k == argc)
        return 0; /* a wrapper alone, or assignments */
    argv += k;
    argc -= k;
    if (idle(argv, argc))
        return 0;
    for (size_t i = 0; r && i < r->n; i++)
        if (rule_matches(&r->v[i], argv, argc))
            return 1;
    if (in(base_name(argv[0]), neutral) &&
        !(strcmp(base_name(argv[0]), "sed") == 0 && guard_known_writer(argv, argc, NULL)))
        return 0;
    return -1;
}

/* An option cluster with -i in it (-i, -i.bak, -Ei, -pi): only the
 * program's value-less flags may come before the i. */
static int in_place(char *const *argv, size_t argc, const char *flags, const char *lng)
{
    for (size_t i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (lng && !strncmp(a, lng, strlen(lng)))
            return 1;
        if (a[0] != '-' || a[1] == '-')
            continue;
        size_t k = 1 + strspn(a + 1, flags);
        if (a[k] == 'i')
            return 1;
    }
    return 0;
}

int guard_known_writer(char *const *argv, size_t argc, const char **what)
{
    static const char *const writers[] = {
        "rm",       "rmdir", "mv",    "cp",    "ln",    "touch",  "mkdir", "install", "dd",
        "truncate", "patch", "chmod", "chown", "rsync", "unlink", "shred", "mkfifo",  NULL};
    static const char *const git_writers[] = {
        "apply", "checkout",    "restore", "reset", "mv",     "rm",     "stash",  "clean",
        "am",    "cherry-pick", "merge",   "pull",  "rebase", "revert", "switch", NULL};
    const char *dummy;
    if (!what)
        what = &dummy;
    size_t k = wrapped(argv, argc);
    if (k == argc)
        return 0;
    argv += k;
    argc -= k;
    const char *p = base_name(argv[0]);
    *what = p;
    if (in(p, writers))
        return 1;
    if (!strcmp(p, "tee")) {
        for (size_t i = 1; i < argc; i++)
            if (argv[i][0] != '-' || !argv[i][1])
                return 1;
        return 0;
    }
    /* sed -i / -Ei / --in-place, perl -i / -pi -e */
    if (!strcmp(p, "sed"))
        return in_place(argv, argc, "nrEsuz", "--in-place");
    if (!strcmp(p, "perl"))
        return in_place(argv, argc, "pnlawsTt0123456789", NULL);
    if (!strcmp(p, "git")) {
        for (size_t i = 1; i < argc; i++) {
            if (argv[i][0] == '-') {
                if (!strcmp(argv[i], "-C") || !strcmp(argv[i], "-c"))
                    i++;
                continue;
            }
            return in(argv[i], git_writers);
        }
    }
    return 0;
}
