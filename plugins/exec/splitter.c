/* A recursive-descent reader for the part of the shell grammar that
 * decides which programs run: lists, pipelines, subshells, groups,
 * command/process substitution, redirections, here-documents and the
 * scripts of `sh -c`.  It errs towards SPLIT_OPAQUE: anything it cannot
 * see into must never be approvable by an allow rule. */
#include "shell_words.h"
#include "splitter.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define MAX_DEPTH 24
#define MAX_NEST 64 /* ${ ${ "$( ... nesting inside one word */
#define MAX_HEREDOCS 16

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (VT_GROW(&b->p, &b->cap, b->len + n + 1) != 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static void sb_putc(sbuf *b, char c) { sb_putn(b, &c, 1); }
static void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
static const char *sb_str(sbuf *b) { return b->p ? b->p : ""; }

typedef struct heredoc {
    char *delim;
    int strip_tabs; /* <<- */
    int expands;    /* unquoted delimiter: the body is expanded */
} heredoc;

typedef struct parser {
    const char *s;
    size_t i, n;
    int depth;
    int nest;  /* parse_dollar recursion: past MAX_NEST the text is opaque */
    int error; /* syntax the reader does not accept */
    int oom;
    split_list *out;
    heredoc hd[MAX_HEREDOCS];
    int nhd;
} parser;

/* One word: its text after quote removal, its source text, and whether
 * the shell would expand anything in it. */
typedef struct word {
    sbuf lit;
    size_t start, end;
    int has_exp;
    int glob; /* unquoted * ? [ */
    int quoted;
} word;

static void split_word_free(word *w) { free(w->lit.p); }

static void split_emit(parser *p, split_kind kind, const char *text)
{
    split_list *l = p->out;
    if (p->oom)
        return;
    if (VT_GROW(&l->items, &l->cap, l->count + 1) != 0) {
        p->oom = 1;
        return;
    }
    char *t = strdup(text);
    if (!t) {
        p->oom = 1;
        return;
    }
    l->items[l->count].kind = kind;
    l->items[l->count].text = t;
    l->count++;
}

static int peek(const parser *p, size_t off)
{
    return p->i + off < p->n ? (unsigned char)p->s[p->i + off] : -1;
}

static int is_meta(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
           c == ')' || c == '<' || c == '>' || c < 0;
}

static int is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

static void split_parse_list(parser *p, int term);
static void split_text(parser *parent, const char *text, size_t len);

/* $( ... ) after the "$(": the inner list, then the ")". */
static void split_parse_subst(parser *p)
{
    if (p->depth >= MAX_DEPTH) {
        p->error = 1;
        return;
    }
    p->depth++;
    split_parse_list(p, ')');
    p->depth--;
}

/* $(( ... )) after the "$((": arithmetic, not a command; whatever it
 * nests is out of reach, so a substitution inside is opaque. */
static void split_skip_arith(parser *p, size_t start)
{
    int level = 2;
    /* Arithmetic evaluates variables whose values may hold a[$(...)]:
     * what runs depends on values the text does not show. */
    split_emit(p, SPLIT_OPAQUE, "arithmetic evaluation");
    while (p->i < p->n && level > 0) {
        char c = p->s[p->i++];
        if (c == '(')
            level++;
        else if (c == ')')
            level--;
        else if (c == '`' || (c == '$' && peek(p, 0) == '('))
            split_emit(p, SPLIT_OPAQUE, "command substitution inside arithmetic");
    }
    if (level > 0)
        p->error = 1;
    (void)start;
}

/* `...` after the opening backtick: find the closing one, undo the
 * backslash escapes that are special inside, and split the result. */
static void parse_backtick(parser *p)
{
    sbuf inner = {0};
    for (;;) {
        int c = peek(p, 0);
        if (c < 0) {
            p->error = 1;
            break;
        }
        p->i++;
        if (c == '`')
            break;
        if (c == '\\') {
            int d = peek(p, 0);
            if (d == '`' || d == '\\' || d == '$') {
                sb_putc(&inner, (char)d);
                p->i++;
                continue;
            }
        }
        sb_putc(&inner, (char)c);
    }
    if (inner.oom)
        p->oom = 1;
    else if (!p->error)
        split_text(p, sb_str(&inner), inner.len);
    free(inner.p);
}

static void parse_dollar(parser *p, word *w);

/* The body of "..." after the opening quote. */
static void parse_dquote(parser *p, word *w)
{
    for (;;) {
        int c = peek(p, 0);
        if (c < 0) {
            p->error = 1;
            return;
        }
        p->i++;
        if (c == '"')
            return;
        if (c == '\\') {
            int d = peek(p, 0);
            if (d == '\n') {
                p->i++;
                continue;
            }
            if (d == '$' || d == '`' || d == '"' || d == '\\') {
                sb_putc(&w->lit, (char)d);
                p->i++;
                continue;
            }
            sb_putc(&w->lit, '\\');
            continue;
        }
        if (c == '`') {
            w->has_exp = 1;
            parse_backtick(p);
            continue;
        }
        if (c == '$') {
            parse_dollar(p, w);
            continue;
        }
        sb_putc(&w->lit, (char)c);
    }
}

/* ${ ... } after the "${": parameter expansion, whose operands may hold
 * quotes and substitutions of their own. */
static void parse_brace_param(parser *p, word *w)
{
    int level = 1;
    /* Modelled: ${name}, ${#name} and ${name OP word} with OP one of
     * :- := :+ :? - = + ? # ## % %% / // ^ ^^ , ,,.  Indirection (${!x}),
     * transformations (${x@P}), subscripts and substrings (arithmetic)
     * are not: their effect depends on values the text does not show. */
    size_t j = p->i;
    if (j < p->n && p->s[j] == '#' && j + 1 < p->n && p->s[j + 1] != '}')
        j++;
    size_t name = j;
    if (j < p->n && is_name_start((unsigned char)p->s[j]))
        while (j < p->n && is_name_char((unsigned char)p->s[j]))
            j++;
    else if (j < p->n && strchr("0123456789@*#?$-", p->s[j]))
        j++;
    int ok = j > name && j < p->n;
    if (ok && p->s[j] == ':')
        ok = j + 1 < p->n && strchr("-=+?", p->s[j + 1]);
    else if (ok)
        ok = strchr("}-=+?#%/^,", p->s[j]) != NULL;
    if (!ok)
        split_emit(p, SPLIT_OPAQUE, "parameter expansion the splitter does not model");
    while (level > 0) {
        int c = peek(p, 0);
        if (c < 0) {
            p->error = 1;
            return;
        }
        p->i++;
        if (c == '\\') {
            if (peek(p, 0) >= 0)
                p->i++;
        } else if (c == '\'') {
            while (peek(p, 0) >= 0 && peek(p, 0) != '\'')
                p->i++;
            if (peek(p, 0) < 0) {
                p->error = 1;
                return;
            }
            p->i++;
        } else if (c == '"') {
            parse_dquote(p, w);
        } else if (c == '`') {
            parse_backtick(p);
        } else if (c == '$') {
            parse_dollar(p, w);
        } else if (c == '{') {
            level++;
        } else if (c == '}') {
            level--;
        }
    }
}

static void parse_dollar_in(parser *p, word *w);

/* After a "$" (already consumed).  Every nesting of the word grammar
 * passes through here: past MAX_NEST the text is opaque, so no input can
 * exhaust the stack. */
static void parse_dollar(parser *p, word *w)
{
    if (p->nest >= MAX_NEST) {
        p->error = 1;
        p->i = p->n;
        return;
    }
    p->nest++;
    parse_dollar_in(p, w);
    p->nest--;
}

static void parse_dollar_in(parser *p, word *w)
{
    int c = peek(p, 0);
    if (c == '[') {
        /* $[ ... ]: old arithmetic */
        w->has_exp = 1;
        split_emit(p, SPLIT_OPAQUE, "arithmetic evaluation");
        while (peek(p, 0) >= 0 && peek(p, 0) != ']')
            p->i++;
        if (peek(p, 0) < 0)
            p->error = 1;
        else
            p->i++;
        return;
    }
    if (c == '(' && peek(p, 1) == '(') {
        w->has_exp = 1;
        p->i += 2;
        split_skip_arith(p, p->i);
    } else if (c == '(') {
        w->has_exp = 1;
        p->i++;
        split_parse_subst(p);
    } else if (c == '{') {
        w->has_exp = 1;
        p->i++;
        parse_brace_param(p, w);
    } else if (c == '\'') {
        /* $'...': ANSI-C quoting.  Its escapes can spell any name, so the
         * word keeps its source text and counts as expanded. */
        w->has_exp = 1;
        p->i++;
        for (;;) {
            int d = peek(p, 0);
            if (d < 0) {
                p->error = 1;
                return;
            }
            p->i++;
            if (d == '\\' && peek(p, 0) >= 0)
                p->i++;
            else if (d == '\'')
                return;
        }
    } else if (c == '"') {
        /* $"..." (locale translation) reads like "...". */
        p->i++;
        w->quoted = 1;
        parse_dquote(p, w);
    } else if (is_name_start(c)) {
        w->has_exp = 1;
        while (is_name_char(peek(p, 0)))
            p->i++;
    } else if (c >= 0 && strchr("0123456789@*#?$!-", c)) {
        w->has_exp = 1;
        p->i++;
    } else {
        sb_putc(&w->lit, '$');
    }
}

/* One word, up to the next unquoted metacharacter. */
static void split_parse_word(parser *p, word *w)
{
    memset(w, 0, sizeof *w);
    w->start = p->i;
    for (;;) {
        int c = peek(p, 0);
        if ((c == '<' || c == '>') && peek(p, 1) == '(' && p->i == w->start) {
            /* <(...) or >(...): process substitution. */
            w->has_exp = 1;
            p->i += 2;
            split_parse_subst(p);
            continue;
        }
        if (is_meta(c) || p->error)
            break;
        p->i++;
        switch (c) {
        case '\\':
            if (peek(p, 0) == '\n') {
                p->i++;
            } else if (peek(p, 0) >= 0) {
                sb_putc(&w->lit, p->s[p->i]);
                p->i++;
                w->quoted = 1;
            }
            break;
        case '\'': {
            w->quoted = 1;
            size_t st = p->i;
            while (peek(p, 0) >= 0 && peek(p, 0) != '\'')
                p->i++;
            if (peek(p, 0) < 0) {
                p->error = 1;
                break;
            }
            sb_putn(&w->lit, p->s + st, p->i - st);
            p->i++;
            break;
        }
        case '"':
            w->quoted = 1;
            parse_dquote(p, w);
            break;
        case '`':
            w->has_exp = 1;
            parse_backtick(p);
            break;
        case '$': parse_dollar(p, w); break;
        case '*':
        case '?':
        case '[':
            /* Globs expand to file names: keep the source text. */
            w->glob = 1;
            sb_putc(&w->lit, (char)c);
            break;
        case '{':
            /* {rm,-f,x} and {a..b}: brace expansion spells other words. */
            for (size_t j = p->i; j < p->n && !is_meta((unsigned char)p->s[j]) && p->s[j] != '}';
                 j++)
                if (p->s[j] == ',' || (p->s[j] == '.' && j + 1 < p->n && p->s[j + 1] == '.'))
                    w->has_exp = 1;
            sb_putc(&w->lit, (char)c);
            break;
        default: sb_putc(&w->lit, (char)c);
        }
    }
    w->end = p->i;
    if (w->lit.oom)
        p->oom = 1;
}

static int safe_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_@%+=:,./-~^]", c));
}

/* The normalised form of a word: its source text when it expands, else
 * its literal text, single-quoted when the shell would need quotes. */
static void split_word_render(const parser *p, const word *w, sbuf *out)
{
    if (w->has_exp || w->glob) {
        sb_putn(out, p->s + w->start, w->end - w->start);
        return;
    }
    const char *t = sb_str((sbuf *)&w->lit);
    int plain = w->lit.len > 0;
    for (const char *c = t; *c; c++)
        if (!safe_char((unsigned char)*c))
            plain = 0;
    if (plain) {
        sb_puts(out, t);
        return;
    }
    sb_putc(out, '\'');
    for (const char *c = t; *c; c++) {
        if (*c == '\'')
            sb_puts(out, "'\\''");
        else
            sb_putc(out, *c);
    }
    sb_putc(out, '\'');
}

static int split_is_assignment(const parser *p, const word *w)
{
    const char *s = p->s + w->start;
    size_t n = w->end - w->start, i = 0;
    if (n == 0 || !is_name_start((unsigned char)s[0]))
        return 0;
    while (i < n && is_name_char((unsigned char)s[i]))
        i++;
    if (i < n && s[i] == '[') {
        while (i < n && s[i] != ']')
            i++;
        i++;
    }
    if (i < n && s[i] == '+')
        i++;
    return i < n && s[i] == '=';
}

static void split_skip_blanks(parser *p)
{
    for (;;) {
        int c = peek(p, 0);
        if (c == ' ' || c == '\t' || c == '\r')
            p->i++;
        else if (c == '\\' && peek(p, 1) == '\n')
            p->i += 2;
        else
            return;
    }
}

static void split_skip_comment(parser *p)
{
    while (peek(p, 0) >= 0 && peek(p, 0) != '\n')
        p->i++;
}

/* Whether a redirect target is a device that edits nothing. */
static int harmless_target(const char *t)
{
    return !strcmp(t, "/dev/null") || !strcmp(t, "/dev/stdout") || !strcmp(t, "/dev/stderr") ||
           !strcmp(t, "/dev/tty");
}

/* A redirection operator at p->i (after an optional fd number or {var}).
 * Returns its length, or 0 when there is none.  *kind: 'w' write,
 * 'r' read, 'd'/'D' duplicate-or-path (>&, <&), 'h' here-doc,
 * 's' here-string. */
static size_t redirect_op(const parser *p, size_t at, char *kind, int *strip)
{
    const char *s = p->s + at;
    size_t n = p->n - at;
    *strip = 0;
#define OP(str, k)                                                                                 \
    if (n >= sizeof(str) - 1 && !strncmp(s, str, sizeof(str) - 1)) {                               \
        *kind = k;                                                                                 \
        return sizeof(str) - 1;                                                                    \
    }
    OP("&>>", 'w')
    OP("&>", 'w')
    OP("<<<", 's')
    if (n >= 3 && !strncmp(s, "<<-", 3)) {
        *kind = 'h';
        *strip = 1;
        return 3;
    }
    OP("<<", 'h')
    OP("<>", 'w')
    OP("<&", 'D')
    OP(">&", 'd')
    OP(">>", 'w')
    OP(">|", 'w')
    OP(">", 'w')
    OP("<", 'r')
#undef OP
    return 0;
}

/* The start of a redirection at p->i: [n] or {name} then an operator. */
static size_t split_redirect_at(const parser *p, char *kind, int *strip)
{
    size_t at = p->i;
    if (peek(p, 0) == '{') {
        size_t j = at + 1;
        while (j < p->n && is_name_char((unsigned char)p->s[j]))
            j++;
        if (j < p->n && p->s[j] == '}' && j > at + 1)
            at = j + 1;
    } else {
        while (at < p->n && p->s[at] >= '0' && p->s[at] <= '9')
            at++;
    }
    if (at == p->i && at + 1 < p->n && p->s[at] == '&' && p->s[at + 1] == '>')
        return redirect_op(p, at, kind, strip);
    if (at < p->n && (p->s[at] == '<' || p->s[at] == '>') &&
        !(at + 1 < p->n && p->s[at + 1] == '(')) {
        size_t len = redirect_op(p, at, kind, strip);
        if (len)
            return at + len - p->i;
    }
    return 0;
}

static void split_parse_redirect(parser *p, size_t len, char kind, int strip)
{
    p->i += len;
    split_skip_blanks(p);
    if (is_meta(peek(p, 0))) {
        p->error = 1;
        return;
    }
    word w;
    split_parse_word(p, &w);
    sbuf t = {0};
    if (kind == 'h') {
        if (p->nhd < MAX_HEREDOCS) {
            heredoc *h = &p->hd[p->nhd++];
            h->delim = strdup(sb_str(&w.lit));
            h->strip_tabs = strip;
            h->expands = !w.quoted;
            /* bash's delimiter is the word's text, unexpanded: whatever
             * the splitter reads as the delimiter may not be it. */
            if (w.has_exp || w.glob)
                split_emit(p, SPLIT_OPAQUE, "here-document whose delimiter holds an expansion");
            if (!h->delim)
                p->oom = 1;
        } else {
            p->error = 1;
        }
        split_word_free(&w);
        return;
    }
    if (kind == 's') {
        split_word_free(&w);
        return;
    }
    split_word_render(p, &w, &t);
    const char *lit = sb_str(&w.lit);
    if (kind == 'd' || kind == 'D') {
        /* >&N, >&- duplicate descriptors; >&word redirects to a file. */
        int dup = !w.has_exp && w.lit.len > 0;
        for (const char *c = lit; *c; c++)
            if (!(*c >= '0' && *c <= '9') && strcmp(lit, "-"))
                dup = 0;
        kind = dup ? 'x' : (kind == 'd' ? 'w' : 'r');
    }
    if (kind == 'w' && !harmless_target(lit))
        split_emit(p, SPLIT_WRITE, sb_str(&t));
    else if (kind == 'r')
        split_emit(p, SPLIT_READ, sb_str(&t));
    if (t.oom)
        p->oom = 1;
    free(t.p);
    split_word_free(&w);
}

/* Here-document bodies start after the newline that ends their command. */
static void split_skip_heredocs(parser *p)
{
    for (int k = 0; k < p->nhd; k++) {
        heredoc *h = &p->hd[k];
        int substitutes = 0;
        while (p->i < p->n) {
            size_t ls = p->i;
            while (p->i < p->n && p->s[p->i] != '\n')
                p->i++;
            size_t le = p->i;
            if (p->i < p->n)
                p->i++;
            size_t a = ls;
            if (h->strip_tabs)
                while (a < le && p->s[a] == '\t')
                    a++;
            if (h->delim && le - a == strlen(h->delim) && !strncmp(p->s + a, h->delim, le - a))
                break;
            for (size_t j = ls; j < le; j++)
                if (p->s[j] == '`' || (p->s[j] == '$' && j + 1 < le && strchr("({[", p->s[j + 1])))
                    substitutes = 1;
        }
        if (h->expands && substitutes)
            split_emit(p, SPLIT_OPAQUE, "expansion inside a here-document");
        free(h->delim);
        h->delim = NULL;
    }
    p->nhd = 0;
}

static int in_list(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(w, *list))
            return 1;
    return 0;
}

static const char *base_name(const char *s)
{
    const char *b = strrchr(s, '/');
    return b ? b + 1 : s;
}

/* `bash -c SCRIPT ...` with the shell at word `name`: the index of SCRIPT
 * (nw when it is missing or read from stdin), or -1 when no script runs
 * out of sight.  With need_c, only `-c` counts (a shell met as an
 * argument, as in `sudo bash -c ...` or `find -exec sh -c ...`). */
static int shell_script_index(word *ws, int nw, int name, int need_c)
{
    static const char *const SHELLS[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", NULL};
    if (ws[name].has_exp || ws[name].glob || !in_list(base_name(sb_str(&ws[name].lit)), SHELLS))
        return -1;
    int has_c = 0, k = name + 1;
    for (; k < nw; k++) {
        const char *t = sb_str(&ws[k].lit);
        if (ws[k].has_exp || (t[0] != '-' && t[0] != '+'))
            break;
        if (!strcmp(t, "--")) {
            k++;
            break;
        }
        if (t[0] == '-' && t[1] != '-' && strchr(t, 'c'))
            has_c = 1;
        if ((!strcmp(t, "-o") || !strcmp(t, "+o") || !strcmp(t, "-O") || !strcmp(t, "+O")) &&
            k + 1 < nw)
            k++;
    }
    if (has_c)
        return k; /* nw when the script is missing */
    if (need_c)
        return -1;
    /* No -c: a script file runs (a command), or with no operand the
     * shell reads its script from stdin, out of sight. */
    return k < nw ? -1 : nw;
}

/* Variables that change what later programs do (where they are found,
 * which configuration and start-up files they read, what they load). */
static int sensitive_var(const char *s, size_t n)
{
    static const char *const names[] = {"PATH",
                                        "HOME",
                                        "BASH_ENV",
                                        "ENV",
                                        "IFS",
                                        "CDPATH",
                                        "GLOBIGNORE",
                                        "SHELLOPTS",
                                        "BASHOPTS",
                                        "PS4",
                                        "PROMPT_COMMAND",
                                        "BASH_XTRACEFD",
                                        "TMPDIR",
                                        "SHELL",
                                        "XDG_CONFIG_HOME",
                                        "XDG_DATA_HOME",
                                        "ZDOTDIR",
                                        "INPUTRC",
                                        "PAGER",
                                        "EDITOR",
                                        "VISUAL",
                                        "LESSOPEN",
                                        "LESSCLOSE",
                                        "MANPAGER",
                                        "BROWSER",
                                        "PYTHONPATH",
                                        "PYTHONSTARTUP",
                                        "PYTHONHOME",
                                        "PERL5LIB",
                                        "PERL5OPT",
                                        "PERLLIB",
                                        "RUBYOPT",
                                        "RUBYLIB",
                                        "NODE_OPTIONS",
                                        "NODE_PATH",
                                        "GCONV_PATH",
                                        "MAKEFLAGS",
                                        "MFLAGS",
                                        "CC",
                                        "CXX",
                                        "SSH_ASKPASS",
                                        "SUDO_ASKPASS",
                                        "NPM_CONFIG_PREFIX",
                                        NULL};
    static const char *const prefixes[] = {"LD_",         "GIT_",        "BASH_FUNC_", "DYLD_",
                                           "npm_config_", "NPM_CONFIG_", NULL};
    for (const char *const *k = names; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, s, n))
            return 1;
    for (const char *const *k = prefixes; *k; k++)
        if (n >= strlen(*k) && !strncmp(*k, s, strlen(*k)))
            return 1;
    return 0;
}

/* NAME=, NAME+= or NAME[..]= at the start of `w`: is NAME sensitive? */
static int sensitive_assignment(const parser *p, const word *w)
{
    const char *s = p->s + w->start;
    size_t n = 0;
    while (w->start + n < w->end && is_name_char((unsigned char)s[n]))
        n++;
    return sensitive_var(s, n);
}

/* A shell started interactive or as a login shell reads start-up files. */
static int rc_shell(const parser *p, word *ws, int nw, int name)
{
    static const char *const SHELLS[] = {"sh",   "bash", "dash",  "zsh", "ksh",
                                         "mksh", "ash",  "rbash", NULL};
    (void)p;
    if (!in_list(base_name(sb_str(&ws[name].lit)), SHELLS))
        return 0;
    for (int k = name + 1; k < nw; k++) {
        const char *t = sb_str(&ws[k].lit);
        if (t[0] != '-' && t[0] != '+')
            break;
        if (ws[k].has_exp)
            return 1;
        if (!strcmp(t, "--login") || !strcmp(t, "--rcfile") || !strcmp(t, "--init-file") ||
            !strcmp(t, "--interactive") || !strcmp(t, "-o") || !strcmp(t, "+o") ||
            !strcmp(t, "-O") || !strcmp(t, "+O"))
            return 1;
        if (t[1] != '-' && (strchr(t, 'i') || strchr(t, 'l') || strchr(t, 's')))
            return 1;
    }
    return 0;
}

/* Emit one finished simple command. */
static void split_finish_command(parser *p, word *ws, int nw)
{
    int name = 0;
    while (name < nw && split_is_assignment(p, &ws[name]))
        name++;
    for (int k = 0; k < name; k++)
        if (sensitive_assignment(p, &ws[k])) {
            split_emit(p, SPLIT_OPAQUE, "assignment to a variable that changes what programs do");
            break;
        }
    if (name == nw)
        return; /* assignments only: nothing runs (substitutions were seen) */
    /* Builtins that define aliases, traps, hashed paths or arithmetic, or
     * read a script, or set the variables they name: what runs afterwards
     * is not what the text shows. */
    const char *cmd0 = sb_str(&ws[name].lit);
    unsigned own = ws[name].has_exp ? 0 : shell_word(cmd0);
    int opaque = 0;
    if (own & SW_REDEFINES)
        opaque = 1;
    else if (own & SW_DECLARES)
        for (int k = name + 1; !opaque && k < nw; k++)
            opaque = (strcmp(cmd0, "printf") &&
                      (ws[k].has_exp || sensitive_var(sb_str(&ws[k].lit), ws[k].lit.len) ||
                       sensitive_assignment(p, &ws[k]))) ||
                     !strcmp(sb_str(&ws[k].lit), "-v") || !strcmp(sb_str(&ws[k].lit), "-n");
    if (opaque)
        split_emit(p, SPLIT_OPAQUE, "builtin that changes what later commands run");
    if (rc_shell(p, ws, nw, name))
        split_emit(p, SPLIT_OPAQUE, "interactive or login shell (reads start-up files)");
    sbuf text = {0};
    for (int k = 0; k < nw; k++) {
        if (k)
            sb_putc(&text, ' ');
        split_word_render(p, &ws[k], &text);
    }
    const char *nm = sb_str(&ws[name].lit);
    int script = shell_script_index(ws, nw, name, 0);
    if (ws[name].has_exp || (ws[name].glob && strcmp(nm, "[") && strcmp(nm, "[["))) {
        split_emit(p, SPLIT_OPAQUE, sb_str(&text));
    } else if (!strcmp(nm, "eval") || (script >= 0 && (script >= nw || ws[script].has_exp))) {
        /* Program text nobody can read here (eval, `| bash`, bash -c
         * "$x"): opaque, and the shell itself a command that needs a
         * rule of its own.  The run-time checks see only the programs it
         * executes, not its builtins (redirections, source, enable -f). */
        split_emit(p, SPLIT_OPAQUE, sb_str(&text));
        split_emit(p, SPLIT_COMMAND, sb_str(&text));
    } else if (script >= 0) {
        if (p->depth >= MAX_DEPTH)
            p->error = 1;
        else
            split_text(p, sb_str(&ws[script].lit), ws[script].lit.len);
    } else {
        split_emit(p, SPLIT_COMMAND, sb_str(&text));
        /* A wrapper's shell script (sudo/timeout/xargs/find -exec ...
         * sh -c SCRIPT) is split too: more subjects, never fewer. */
        for (int k = name + 1; k < nw && !p->error; k++) {
            int sc = shell_script_index(ws, nw, k, 1);
            if (sc < 0)
                continue;
            if (sc >= nw || ws[sc].has_exp)
                split_emit(p, SPLIT_OPAQUE, sb_str(&text));
            else if (p->depth >= MAX_DEPTH)
                p->error = 1;
            else
                split_text(p, sb_str(&ws[sc].lit), ws[sc].lit.len);
            break;
        }
    }
    if (text.oom)
        p->oom = 1;
    free(text.p);
}

/* [[ ... ]]: a conditional whose && || < > are its own operators. */
static void parse_dbracket(parser *p, word *first)
{
    sbuf text = {0};
    split_word_render(p, first, &text);
    for (;;) {
        split_skip_blanks(p);
        int c = peek(p, 0);
        if (c < 0 || c == '\n') {
            p->error = 1;
            break;
        }
        word w;
        if (is_meta(c) && !((c == '<' || c == '>') && peek(p, 1) == '(')) {
            /* operators inside [[ ]] are part of the test */
            size_t st = p->i;
            while (p->i < p->n && strchr("&|<>()", p->s[p->i]))
                p->i++;
            if (p->i == st)
                p->i++;
            sb_putc(&text, ' ');
            sb_putn(&text, p->s + st, p->i - st);
            continue;
        }
        split_parse_word(p, &w);
        sb_putc(&text, ' ');
        split_word_render(p, &w, &text);
        int end = !w.has_exp && !strcmp(sb_str(&w.lit), "]]");
        split_word_free(&w);
        if (end || p->error)
            break;
    }
    if (!p->error)
        split_emit(p, SPLIT_COMMAND, sb_str(&text));
    free(text.p);
}

/* One simple command (or compound-command keyword) up to an operator. */
typedef struct words {
    word *w;
    int n;
    size_t cap;
} words;

static word *words_next(parser *p, words *ws)
{
    if (VT_GROW(&ws->w, &ws->cap, (size_t)ws->n + 1) != 0) {
        p->oom = 1;
        return NULL;
    }
    return &ws->w[ws->n];
}

static void words_clear(words *ws)
{
    for (int k = 0; k < ws->n; k++)
        split_word_free(&ws->w[k]);
    ws->n = 0;
}

/* "((" at a command start: arithmetic when its parentheses close with
 * "))", as bash decides; otherwise nested subshells (left unconsumed). */
static int arith_command(parser *p)
{
    int level = 0;
    for (size_t j = p->i; j < p->n; j++) {
        if (p->s[j] == '(')
            level++;
        else if (p->s[j] == ')' && --level == 1)
            return j + 1 < p->n && p->s[j + 1] == ')' ? (p->i += 2, split_skip_arith(p, p->i), 1)
                                                      : 0;
    }
    return 0;
}

/* What parse_command carries between its steps. */
typedef struct command_state {
    words ws;
    int discard; /* for/select/function headers run nothing */
    int after_time;
} command_state;

enum { STEP_NEXT, STEP_STOP };

/* "(" inside a command: arithmetic, a subshell, or "name ()". */
static int command_paren(parser *p, command_state *cs)
{
    words *ws = &cs->ws;
    if (ws->n == 0 && peek(p, 1) == '(' && arith_command(p)) {
        cs->discard = 1;
        return STEP_NEXT;
    }
    if (ws->n == 0) { /* subshell */
        p->i++;
        split_parse_subst(p);
        return STEP_NEXT;
    }
    if (ws->n == 1 && !ws->w[0].has_exp) { /* name () body */
        split_emit(p, SPLIT_OPAQUE, "function definition");
        p->i++;
        split_skip_blanks(p);
        if (peek(p, 0) != ')') {
            p->error = 1;
            return STEP_STOP;
        }
        p->i++;
        words_clear(ws);
        return STEP_NEXT;
    }
    p->error = 1;
    return STEP_STOP;
}

/* A word just read (the slot past the command's last): a keyword the
 * reader acts on, or the command's next word. */
static int command_word(parser *p, command_state *cs, word *w)
{
    words *ws = &cs->ws;
    const char *t = sb_str(&w->lit);
    int keyword = ws->n == 0 && !w->has_exp && !w->quoted;
    if (keyword && (!strcmp(t, "while") || !strcmp(t, "until")))
        split_emit(p, SPLIT_OPAQUE, "loop");
    if (keyword && (shell_word(t) & SW_FRAME)) {
        cs->after_time = !strcmp(t, "time");
        split_word_free(w);
        return STEP_NEXT;
    }
    if (cs->after_time && ws->n == 0 && t[0] == '-' && !w->has_exp) {
        split_word_free(w); /* time -p */
        return STEP_NEXT;
    }
    cs->after_time = 0;
    if (keyword && !strcmp(t, "case")) {
        /* case patterns reuse ")" and ";;": not worth the risk. */
        split_word_free(w);
        split_emit(p, SPLIT_OPAQUE, p->s);
        p->error = 2;
        return STEP_STOP;
    }
    if (keyword && !strcmp(t, "[[")) {
        parse_dbracket(p, w);
        split_word_free(w);
        cs->discard = 1;
        return STEP_NEXT;
    }
    if (keyword && (!strcmp(t, "for") || !strcmp(t, "select") || !strcmp(t, "function"))) {
        /* a loop variable or a function body: names and values the
         * text does not show (`for x do ... done` even hides its body) */
        split_emit(p, SPLIT_OPAQUE, !strcmp(t, "function") ? "function definition" : "loop");
        cs->discard = 1;
    }
    ws->n++;
    /* "function f {": the body's "{" follows the header directly. */
    if (cs->discard && ws->n == 2 && !strcmp(sb_str(&ws->w[0].lit), "function")) {
        words_clear(ws);
        cs->discard = 0;
        split_skip_blanks(p);
        if (peek(p, 0) == '(' && peek(p, 1) == ')')
            p->i += 2;
    }
    return STEP_NEXT;
}

static void parse_command(parser *p)
{
    command_state cs = {0};
    for (;;) {
        split_skip_blanks(p);
        int c = peek(p, 0);
        if (p->error || p->oom)
            break;
        if (c == '&' && peek(p, 1) == '>') {
            char kind;
            int strip;
            size_t rlen = split_redirect_at(p, &kind, &strip);
            split_parse_redirect(p, rlen, kind, strip);
            continue;
        }
        if (c < 0 || c == ';' || c == '&' || c == '|' || c == '\n' || c == ')')
            break;
        if (c == '#') {
            split_skip_comment(p);
            continue;
        }
        if (c == '(') {
            if (command_paren(p, &cs) == STEP_STOP)
                break;
            continue;
        }
        char kind;
        int strip;
        size_t rlen = split_redirect_at(p, &kind, &strip);
        if (rlen) {
            split_parse_redirect(p, rlen, kind, strip);
            continue;
        }
        word *w = words_next(p, &cs.ws);
        if (!w)
            break;
        split_parse_word(p, w);
        if (p->error) {
            split_word_free(w);
            break;
        }
        if (command_word(p, &cs, w) == STEP_STOP)
            break;
    }
    if (!cs.discard && !p->error && !p->oom)
        split_finish_command(p, cs.ws.w, cs.ws.n);
    words_clear(&cs.ws);
    free(cs.ws.w);
}

/* A list of commands up to `term` (')' consumed) or the end (term 0). */
static void split_parse_list(parser *p, int term)
{
    for (;;) {
        parse_command(p);
        if (p->error || p->oom)
            return;
        int c = peek(p, 0);
        if (c < 0) {
            if (term)
                p->error = 1;
            return;
        }
        p->i++;
        if (c == ')') {
            if (term == ')')
                return;
            p->error = 1;
            return;
        }
        if (c == '\n' && p->nhd)
            split_skip_heredocs(p);
        /* ; & | && || |& ;; ;& all just separate commands here */
        if ((c == '&' || c == '|' || c == ';') && (peek(p, 0) == c || peek(p, 0) == '&'))
            p->i++;
    }
}

static void split_text(parser *parent, const char *text, size_t len)
{
    parser q = {.s = text, .n = len, .depth = parent->depth + 1, .out = parent->out};
    if (q.depth > MAX_DEPTH) {
        parent->error = 1;
        return;
    }
    split_parse_list(&q, 0);
    for (int k = 0; k < q.nhd; k++)
        free(q.hd[k].delim);
    if (q.error == 1) {
        sbuf t = {0};
        sb_puts(&t, text);
        split_emit(parent, SPLIT_OPAQUE, sb_str(&t));
        free(t.p);
    }
    if (q.oom || parent->out == NULL)
        parent->oom = 1;
}

int split_shell(const char *cmd, split_list *out)
{
    parser p = {.s = cmd, .n = strlen(cmd), .out = out};
    /* bash reads a carriage return or other control character as part of
     * a word, where the splitter's reading may differ: opaque. */
    for (const char *c = cmd; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f) {
            split_emit(&p, SPLIT_OPAQUE, "control character in the command text");
            break;
        }
    split_parse_list(&p, 0);
    for (int k = 0; k < p.nhd; k++)
        free(p.hd[k].delim);
    if (p.error == 1)
        split_emit(&p, SPLIT_OPAQUE, cmd);
    return p.oom ? VT_ERR_NOMEM : VT_OK;
}

/* A word the shell would change: expansions, globs, braces (the
 * renderer quotes a word holding braces, so a quoted brace may have been
 * an unquoted brace expansion: opaque either way), a leading tilde. */
static int word_expands(const parser *p, const word *w)
{
    const char *t = sb_str((sbuf *)&w->lit);
    return w->has_exp || w->glob || strpbrk(t, "{}") || p->s[w->start] == '~';
}

int split_words(const char *text, split_list *out)
{
    split_list inner = {0}; /* what substitutions inside the words run */
    parser p = {.s = text, .n = strlen(text), .out = &inner};
    int rc = VT_OK;
    for (const char *c = text; *c; c++)
        if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f)
            rc = VT_ERR_INVALID;
    while (rc == VT_OK) {
        while (peek(&p, 0) == '\n')
            p.i++;
        split_skip_blanks(&p);
        int c = peek(&p, 0);
        if (c < 0)
            break;
        if (is_meta(c) && c != '\n') {
            rc = VT_ERR_INVALID;
            break;
        }
        if (c == '\n')
            continue;
        word w;
        split_parse_word(&p, &w);
        if (p.error || w.end == w.start) {
            rc = VT_ERR_INVALID;
        } else {
            split_list *keep = p.out;
            p.out = out;
            split_emit(&p, word_expands(&p, &w) ? SPLIT_WORD_EXPANDS : SPLIT_WORD, sb_str(&w.lit));
            p.out = keep;
        }
        split_word_free(&w);
        if (p.oom)
            rc = VT_ERR_NOMEM;
    }
    for (int k = 0; k < p.nhd; k++)
        free(p.hd[k].delim);
    split_list_free(&inner);
    return rc;
}

int split_opaque_environment(const char *text)
{
    return !strcmp(text, "assignment to a variable that changes what programs do") ||
           !strcmp(text, "builtin that changes what later commands run") ||
           !strcmp(text, "interactive or login shell (reads start-up files)");
}

void split_list_free(split_list *l)
{
    for (size_t k = 0; k < l->count; k++)
        free(l->items[k].text);
    free(l->items);
    l->items = NULL;
    l->count = l->cap = 0;
}
