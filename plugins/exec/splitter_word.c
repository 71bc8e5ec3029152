/* The splitter's reading of one word: quotes, parameter expansions,
 * command, process and arithmetic substitutions (whose programs it
 * splits in turn), and the word's normalised form. */
#include "splitter_int.h"

void split_emit(parser *p, split_kind kind, const char *text)
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

/* $( ... ) after the "$(": the inner list, then the ")". */
void split_parse_subst(parser *p)
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
void split_skip_arith(parser *p, size_t start)
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
void split_parse_word(parser *p, word *w)
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
void split_word_render(const parser *p, const word *w, sbuf *out)
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

int split_is_assignment(const parser *p, const word *w)
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

void split_skip_blanks(parser *p)
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

void split_skip_comment(parser *p)
{
    while (peek(p, 0) >= 0 && peek(p, 0) != '\n')
        p->i++;
}
