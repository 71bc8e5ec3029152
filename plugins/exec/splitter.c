/* A recursive-descent reader for the part of the shell grammar that
 * decides which programs run: lists, pipelines, subshells, groups,
 * command/process substitution, redirections, here-documents and the
 * scripts of `sh -c`.  It errs towards SPLIT_OPAQUE: anything it cannot
 * see into must never be approvable by an allow rule. */
#include "shell_words.h"
#include "splitter_int.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

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
void split_parse_list(parser *p, int term)
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

void split_text(parser *parent, const char *text, size_t len)
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
